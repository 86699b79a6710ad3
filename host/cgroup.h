/* SPDX-License-Identifier: MIT */
/*
 * cgroup.h - the memory cgroup a process runs in, cgroup v1 (the memory
 * controller's own hierarchy) or v2 (the unified one), and what the
 * kernel counts there: how many of its processes the OOM killer killed
 * (v1 memory.oom_control's oom_kill, v2 memory.events' oom_kill; both
 * count the processes of that cgroup and, in v2, of those below it) and
 * the memory limit that applies to it (the lowest of its own and its
 * ancestors', v1 memory.limit_in_bytes, v2 memory.max).
 *
 * Everything is read from /proc and the cgroup file systems as they are
 * mounted in the caller's mount namespace; what cannot be read is said
 * unknown, never guessed.
 */
#ifndef CUDATRACE_HOST_CGROUP_H
#define CUDATRACE_HOST_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cgroup_memory {
	int version;          /* 1 or 2; 0: no memory cgroup found */
	char dir[PATH_MAX];   /* its directory, under the cgroup file system's mount */
	char mount[PATH_MAX]; /* that mount point: where the search for limits stops */
	bool oom_kills_known; /* oom_kills could be read */
	uint64_t oom_kills;
	bool limit_known; /* a limit applies: limit_bytes */
	uint64_t limit_bytes;
};

/*
 * Fills CG for the memory cgroup of PID, with its counters as they are
 * now. 0, or -1 when PID has none that can be read (no such process, no
 * memory controller mounted).
 */
int cgroup_memory_of(pid_t pid, struct cgroup_memory *cg);

/* Reads CG's counters again (its directory stays). 0, or -1 when they cannot be read. */
int cgroup_memory_refresh(struct cgroup_memory *cg);

#endif
