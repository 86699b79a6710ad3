/* SPDX-License-Identifier: MIT */
/*
 * make-dirs.h - creating a directory and its missing parents (mkdir -p),
 * for the trace directories of record and the kernelspec of jupyter; and
 * keeping what holds traces private.
 *
 * Traces, their notes (cudatrace.info) and post-mortems hold command lines
 * and program data: what cudatrace creates for them is readable by the
 * user only (directories 0700, files 0600), whatever the umask. LTTng's
 * consumer daemon creates the trace's own files group-readable (0770,
 * 0660) whatever its umask: the trace directory, made 0700 before the
 * session starts, keeps others out while it runs, and make_private_tree()
 * sets the modes of what LTTng made once it is done.
 */
#ifndef CUDATRACE_CLI_MAKE_DIRS_H
#define CUDATRACE_CLI_MAKE_DIRS_H

#include <stdio.h>
#include <sys/types.h>

/* Creates PATH and its missing parents (mode 0777 less the umask); 0 or an errno. */
int make_dirs(const char *path);

/*
 * Creates PATH and its missing parents with mode MODE exactly (not less
 * the umask); those that exist are left as they are. 0 or an errno.
 */
int make_dirs_mode(const char *path, mode_t mode);

/* Creates (or empties) the file PATH, mode 0600 whatever the umask, for writing. NULL, errno set. */
FILE *open_private(const char *path);

/*
 * Makes the directories under PATH, and PATH, 0700 and the files 0600,
 * those of this user that are not already; symbolic links are not
 * followed. Best effort.
 */
void make_private_tree(const char *path);

#endif
