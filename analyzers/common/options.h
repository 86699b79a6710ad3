/* SPDX-License-Identifier: MIT */
/*
 * options.h - what the user asked of a report: the filters (filters.c
 * applies them) and the limits every analysis honours.
 */
#ifndef CUDATRACE_ANALYZERS_OPTIONS_H
#define CUDATRACE_ANALYZERS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CT_FILTER_MAX 16

struct ct_recorded;

struct ct_options {
	/* Keep only these processes: a pid, or a procname. None: all. */
	int64_t pids[CT_FILTER_MAX];
	size_t pid_count;
	const char *procnames[CT_FILTER_MAX]; /* borrowed from argv */
	size_t procname_count;
	/* Keep only these device ordinals. None: all. */
	uint8_t devices[CT_FILTER_MAX];
	size_t device_count;
	/*
	 * Time window in ns on the trace clock; has_from/has_to say which
	 * bounds are set. Relative bounds (from the first event) are turned
	 * into absolute ones by the reader once it has seen the first event.
	 */
	bool has_from, has_to;
	bool from_relative, to_relative;
	int64_t from_ns, to_ns;
	/* Keep only events inside an NVTX push/pop range with this message. */
	const char *nvtx_range; /* borrowed; NULL: all */
	/* Longest lists in a report (peak allocations, leaks, ...). */
	size_t max_rows;
	/* Points of a time series (each series is downsampled to this many). */
	size_t series_points;
	/* What the recorder kept beside the traces (recorded.h); borrowed, NULL: none. */
	const struct ct_recorded *recorded;
	/* Directories searched first for the objects of call stacks and their
	 * debug information, by build id (DIR/.build-id/xx/...) or debug link:
	 * colon-separated; borrowed; NULL: the standard ones only. */
	const char *debug_dirs;
};

/* Defaults: no filter, 20 rows, 512 points. */
void ct_options_init(struct ct_options *opts);

#endif
