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

/* The machine's memory in bytes, 0 when it cannot be read. */
uint64_t host_memory_total(void);

#endif
