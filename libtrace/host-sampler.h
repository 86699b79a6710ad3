/* SPDX-License-Identifier: MIT */
/*
 * host-sampler.h - host_memory events: the process's resident host memory
 * and its high water mark, and the memory it may use (its memory cgroup's
 * limit, else the machine's), sampled by a thread of cudatrace at a fixed
 * period (CUDATRACE_HOST_MEMORY_PERIOD_MS), never on the program's calls.
 */
#ifndef CUDATRACE_HOST_SAMPLER_H
#define CUDATRACE_HOST_SAMPLER_H

#include <stdint.h>

/* Start sampling every period_ms, the first period_ms from now; nothing for 0. */
void host_sampler_start(uint32_t period_ms);

/* A sample now, from the sampler's thread (an allocation failed): returns
 * at once. Nothing when the sampler does not run. */
void host_sampler_kick(void);

/* Stop sampling, with a last sample; waits for a sample in progress. */
void host_sampler_stop(void);

#endif
