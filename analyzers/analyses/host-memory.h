/* SPDX-License-Identifier: MIT */
/*
 * host-memory.h - the host memory analysis: per process, its resident
 * host memory over time, its peak and the limit it had, from the tracer's
 * host_memory samples (doc/events.md). Pinned host memory is the memory
 * analysis's (kinds host_pinned and host_registered).
 */
#ifndef CUDATRACE_ANALYZERS_HOST_MEMORY_H
#define CUDATRACE_ANALYZERS_HOST_MEMORY_H

#include <stdint.h>

#include <glib.h>

#include "common/series.h"

struct ct_host_memory_process {
	int64_t pid;
	const char *process;
	uint64_t samples;
	int64_t first_ns, last_ns; /* trace clock: its first and last sample */
	uint64_t rss_last_bytes;   /* at its last sample */
	uint64_t rss_peak_bytes;   /* the kernel's high water mark, at its last sample */
	uint64_t limit_bytes;      /* at its last sample; 0 unknown */
	uint8_t limit_of;          /* enum ct_host_limit */
	struct ct_series rss;      /* resident memory over time; owned */
};

struct ct_host_memory_result {
	GArray *processes;     /* struct ct_host_memory_process, in order of first sample */
	GStringChunk *strings; /* every string of the result */
};

#endif
