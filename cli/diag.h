/* SPDX-License-Identifier: MIT */
/*
 * diag.h - the messages the record, list and jupyter verbs print on stderr:
 * one line each, prefixed with the command that prints them
 * ("cudatrace record: ..."), so that they stand out from the traced
 * program's own output.
 */
#ifndef CUDATRACE_CLI_DIAG_H
#define CUDATRACE_CLI_DIAG_H

#include <stddef.h>

/* The prefix of every message, e.g. "cudatrace record"; kept by pointer. */
void diag_set_prefix(const char *prefix);
const char *diag_prefix(void);

/* "PREFIX: MESSAGE" on stderr. */
void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PREFIX: warning: MESSAGE" on stderr. */
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PREFIX: MESSAGE" on stderr, unless diag_set_quiet(1) was called. */
void diag_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_set_quiet(int quiet);

/*
 * TEXT (LEN bytes) into OUT, NUL-terminated: whole when it fits, else its
 * start and its end around a note of how much was left out (cut at UTF-8
 * character boundaries). Returns the length written.
 */
size_t diag_elide(const char *text, size_t len, char *out, size_t out_len);

#endif
