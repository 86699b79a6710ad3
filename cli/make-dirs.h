/* SPDX-License-Identifier: MIT */
/*
 * make-dirs.h - creating a directory and its missing parents (mkdir -p),
 * for the trace directories of record and the kernelspec of jupyter.
 */
#ifndef CUDATRACE_CLI_MAKE_DIRS_H
#define CUDATRACE_CLI_MAKE_DIRS_H

/* Creates PATH and its missing parents (mode 0777 less the umask); 0 or an errno. */
int make_dirs(const char *path);

#endif
