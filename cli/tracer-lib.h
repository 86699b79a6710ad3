/* SPDX-License-Identifier: MIT */
/*
 * tracer-lib.h - where libcudatrace.so is: the one named on the command
 * line, else $CUDATRACE_LIB (how the tests point at the build tree), else
 * the installed one.
 */
#ifndef CUDATRACE_CLI_TRACER_LIB_H
#define CUDATRACE_CLI_TRACER_LIB_H

#include <stddef.h>

#define TRACER_LIB_ENV "CUDATRACE_LIB"

/*
 * Writes the absolute path of the tracing library to OUT. OPTION is the
 * --library argument, or NULL. Returns 0, or -1 after a message saying
 * how to name the library.
 */
int tracer_lib_find(const char *option, char *out, size_t len);

/* The path of the installed library (a build-time constant). */
const char *tracer_lib_installed(void);

#endif
