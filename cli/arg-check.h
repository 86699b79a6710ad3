/* SPDX-License-Identifier: MIT */
/*
 * arg-check.h - checks shared by the verbs' command lines: a path that
 * cannot be used as one (longer than the system takes, or with a name in
 * it longer than a file name may be) is refused at once, with a message
 * that names the option, rather than later with a message about a file;
 * and the message of a command line that is wrong.
 */
#ifndef CUDATRACE_CLI_ARG_CHECK_H
#define CUDATRACE_CLI_ARG_CHECK_H

#include <stddef.h>

/*
 * PATH, given with OPTION ("-o", "--library", "the directory"), is a
 * usable path with RESERVE bytes to spare for what goes under it: 0, or
 * -1 after a message naming OPTION.
 */
int arg_check_path(const char *option, const char *path, size_t reserve);

/*
 * OUTPUT, given with OPTION, is neither one of the COUNT INPUTS nor inside
 * one: 0, or -1 after a message. Paths are compared by device and inode,
 * the output's through its nearest existing directory, so that another
 * name for an input (a symbolic link, "..") is caught too.
 */
int arg_check_output_outside(const char *option, const char *output, const char *const *inputs,
                             size_t count);

/*
 * The first bytes of S for a message: S itself when short, else its start
 * followed by "...". Returns BUF.
 */
const char *arg_shorten(const char *s, char *buf, size_t len);

/*
 * A wrong command line of VERB ("report"): "cudatrace VERB: " and the
 * message from FMT on stderr, then where the usage is. Returns
 * EXIT_USAGE (verbs.h).
 */
int arg_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
