/* SPDX-License-Identifier: MIT */
/*
 * audit.h - what libcudatrace-audit.so (audit.c) and its readers
 * (cli/audit-lib.c, cli/recorded-read.c) agree on: where it writes, and
 * the names of its lists. Each list, DIR/objects-PID, holds one line per
 * shared object the process PID loaded, in the order of loading:
 *
 *     PATH <TAB> SONAME <TAB> BUILD-ID <TAB> FILE <NL>
 */
#ifndef CUDATRACE_LIBTRACE_AUDIT_H
#define CUDATRACE_LIBTRACE_AUDIT_H

/* The directory the lists go to (absolute); none written without it. */
#define AUDIT_DIR_ENV "CUDATRACE_AUDIT_DIR"
/* A list's name: this, then the pid. */
#define AUDIT_FILE_PREFIX "objects-"

#endif
