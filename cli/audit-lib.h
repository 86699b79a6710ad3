/* SPDX-License-Identifier: MIT */
/*
 * audit-lib.h - libcudatrace-audit.so (libtrace/audit.c) in the traced
 * program's environment: the dynamic linker's audit library that lists
 * every shared object the program loads into the trace directory
 * (objects-PID), so that a program whose CUDA runtime refuses to start
 * (and so never loads the tracer) still says which runtime it had.
 */
#ifndef CUDATRACE_CLI_AUDIT_LIB_H
#define CUDATRACE_CLI_AUDIT_LIB_H

#include <stddef.h>

#include "libtrace/audit.h"

#define AUDIT_LIB_NAME "libcudatrace-audit.so"

/*
 * Sets LD_AUDIT and AUDIT_DIR_ENV for the program: the audit library
 * beside TRACER (the tracing library's path) after whatever LD_AUDIT
 * already names (the dynamic linker calls each in turn), writing into
 * DIR. 0, or -1 after a warning when there is no audit library: the
 * program then runs without it, and a runtime that refuses to start
 * leaves no list.
 */
int audit_lib_prepare(const char *tracer, const char *dir);

#endif
