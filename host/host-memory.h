/* SPDX-License-Identifier: MIT */
/*
 * host-memory.h - a process's resident host memory (RSS) and its high
 * water mark, read from /proc/PID/status, and the machine's memory
 * (MemTotal of /proc/meminfo).
 */
#ifndef CUDATRACE_HOST_HOST_MEMORY_H
#define CUDATRACE_HOST_HOST_MEMORY_H

#include <stdint.h>
#include <sys/types.h>

/*
 * PID's resident set now (*RSS) and the most it has been (*PEAK), in
 * bytes. The peak is the kernel's (VmHWM), so that what happened between
 * two samples is not lost. 0, or -1 when they cannot be read (it is gone,
 * or a zombie).
 */
int host_memory_rss(pid_t pid, uint64_t *rss, uint64_t *peak);

/*
 * PID's anonymous resident memory now (RssAnon, Linux 4.5: the memory it
 * allocated itself, its heap and stacks), in bytes: what its memory
 * cgroup is charged for it, unlike the resident set, which counts the
 * pages of the files and the shared memory it maps (its libraries, the
 * tracer's buffers), charged to whichever cgroup brought them in
 * (Documentation/admin-guide/cgroup-v1/memory.rst, 2.3 "Shared Page
 * Accounting"). 0, or -1 when it cannot be read.
 */
int host_memory_anon(pid_t pid, uint64_t *anon);

/* The machine's memory in bytes, 0 when it cannot be read. */
uint64_t host_memory_total(void);

#endif
