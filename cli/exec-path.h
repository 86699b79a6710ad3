/* SPDX-License-Identifier: MIT */
/*
 * exec-path.h - finding a program the way execvp(3) would, before running
 * it, so that a missing command is reported before any tracing session is
 * set up.
 */
#ifndef CUDATRACE_CLI_EXEC_PATH_H
#define CUDATRACE_CLI_EXEC_PATH_H

#include <stddef.h>

/*
 * Resolves NAME: a name with a '/' is taken as is, any other is looked up
 * in $PATH (or the default path when PATH is unset). Writes the file found
 * to OUT. Returns 0, or an errno: ENOENT (nowhere), EACCES (found but not
 * executable), ENAMETOOLONG.
 */
int exec_path_find(const char *name, char *out, size_t len);

#endif
