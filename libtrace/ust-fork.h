/* SPDX-License-Identifier: MIT */
/*
 * ust-fork.h - lttng-ust's own state kept whole across fork(2) of the
 * traced process (ust-fork.c).
 */
#ifndef CUDATRACE_UST_FORK_H
#define CUDATRACE_UST_FORK_H

/* Bracket every fork(2) of the process as liblttng-ust-fork.so would,
 * unless that library is loaded and does it already. 0, or -1 when the
 * handlers could not be registered. Call once. */
int ust_fork_register(void);

#endif /* CUDATRACE_UST_FORK_H */
