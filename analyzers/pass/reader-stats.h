/* SPDX-License-Identifier: MIT */
/*
 * reader-stats.h - what a pass over a trace counted (reader.h), and why it
 * stopped early if it did.
 */
#ifndef CUDATRACE_ANALYZERS_READER_STATS_H
#define CUDATRACE_ANALYZERS_READER_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_reader_stats {
	size_t traces;             /* trace directories read */
	uint64_t events;           /* cudatrace events read */
	uint64_t delivered;        /* events that passed the filters */
	uint64_t foreign_events;   /* events of other providers */
	uint64_t discarded_events; /* lost by LTTng (ring buffer full) */
	uint64_t discarded_packets;
	uint64_t dropped_records; /* lost by CUPTI (activity_dropped) */
	uint64_t unmatched_pops;  /* nvtx_pop without a push */
	/* gpu_*_times without their host event (compact-events.h), not analysed */
	uint64_t unmatched_gpu_records;
	/* repeats whose event is not in the trace (compact-events.h), not analysed */
	uint64_t unmatched_repeats;
	/* GPU records with a start and no end (CUPTI's forced flush of running work) */
	uint64_t gpu_end_unknown;
	int64_t first_ns; /* first and last event, INT64_MAX/MIN if none */
	int64_t last_ns;
	bool truncated;
	char error[512]; /* why the pass stopped early, "" if it did not */
};

#endif
