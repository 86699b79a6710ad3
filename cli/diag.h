/* SPDX-License-Identifier: MIT */
/*
 * diag.h - the messages the record, list and jupyter verbs print on stderr:
 * one line each, prefixed with the command that prints them
 * ("cudatrace record: ..."), so that they stand out from the traced
 * program's own output.
 */
#ifndef CUDATRACE_CLI_DIAG_H
#define CUDATRACE_CLI_DIAG_H

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

#endif
