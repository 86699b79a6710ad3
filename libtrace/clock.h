/* SPDX-License-Identifier: MIT */
/*
 * clock.h - CLOCK_MONOTONIC now, in ns: the clock of LTTng's timestamps,
 * of the entry fields and of CUPTI's GPU times (activity.c gives it to
 * CUPTI), in one place for every module of libtrace.
 */
#ifndef CUDATRACE_CLOCK_H
#define CUDATRACE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

#endif /* CUDATRACE_CLOCK_H */
