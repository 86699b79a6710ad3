/* SPDX-License-Identifier: MIT */
/*
 * gpu-timeline.h - when one device was busy, rebuilt from GPU records
 * (kernels, copies, memsets) that arrive out of order, in bounded memory.
 *
 * CUPTI hands records back in buffers, so they come late and unsorted.
 * Intervals wait in a queue sorted by start and are merged in start order
 * into busy runs; the space between two runs is an idle gap. An interval
 * leaves the queue once intervals starting a reorder window later arrived:
 * the window is twice the worst disorder seen so far (and at least
 * CT_GPU_REORDER_MIN_NS), so it adapts to how the records come; the queue
 * never holds more than CT_GPU_REORDER_MAX intervals. What the timeline keeps
 * does not grow with the trace: the busy and idle totals, the longest
 * gaps, a busy-time series in a fixed number of buckets (widths double as
 * the trace grows), and a few recent runs.
 *
 * Probes ask "how much of [start, end] was the GPU busy?", for instance for
 * the time a host thread was blocked in a synchronous copy. A probe is
 * answered through its callback once no interval still to come can
 * overlap it (every interval starting before its end has been merged), or
 * at the end.
 *
 * An interval that arrives after later-starting ones were merged (it was
 * held back longer than the reorder window) still counts as busy time
 * where it covers new ground, but cannot fill a gap already reported: it
 * is counted in `late`.
 */
#ifndef CUDATRACE_ANALYZERS_GPU_TIMELINE_H
#define CUDATRACE_ANALYZERS_GPU_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "common/ring.h"

/* Intervals held for reordering at most. */
#define CT_GPU_REORDER_MAX 16384u
/* The smallest reorder window, ns. */
#define CT_GPU_REORDER_MIN_NS 1000000
/* Probes waiting at once; beyond it the oldest is answered with what is known. */
#define CT_GPU_PROBES_MAX 65536u
/* Longest gaps kept. */
#define CT_GPU_GAPS_KEPT 32u
/* Recent busy runs kept to answer probes that arrive after their window was merged. */
#define CT_GPU_RECENT_RUNS 64u

struct ct_gpu_interval {
	int64_t start;
	int64_t end;
};

struct ct_gpu_probe;

/* Called when a probe is answered: BUSY_NS of its window was GPU time. */
typedef void (*ct_gpu_probe_fn)(void *data, const struct ct_gpu_probe *probe);

struct ct_gpu_probe {
	int64_t start;
	int64_t end;
	int64_t busy_ns; /* so far */
	uint64_t tag;    /* the caller's */
	ct_gpu_probe_fn answer;
	void *data; /* for ANSWER */
};

/* Busy nanoseconds per bucket of width_ns from origin_ns. */
struct ct_busy_series {
	GArray *busy;    /* int64_t per bucket, at most capacity; owned */
	size_t capacity; /* buckets */
	int64_t origin_ns;
	int64_t width_ns; /* 1 or 2 times a power of ten (ct_series_wider) */
};

struct ct_gpu_timeline {
	/* Waiting intervals, struct ct_gpu_interval sorted by start. */
	struct ct_ring waiting;

	int64_t newest_start; /* largest start added */
	int64_t window_ns;    /* reorder window */

	bool started;
	int64_t first_ns;                              /* start of the first interval */
	int64_t run_start;                             /* the busy run being merged */
	int64_t run_end;                               /* everything before it is final */
	int64_t last_start;                            /* largest start merged */
	int64_t busy_ns;                               /* union of the intervals merged */
	uint64_t intervals;                            /* intervals added */
	uint64_t late;                                 /* see the header comment */
	uint64_t gap_count;                            /* gaps between runs */
	int64_t gap_ns;                                /* their total */
	struct ct_gpu_interval gaps[CT_GPU_GAPS_KEPT]; /* the longest, longest first */
	size_t gaps_kept;
	struct ct_gpu_interval recent[CT_GPU_RECENT_RUNS]; /* closed runs, a ring */
	size_t recent_next;
	size_t recent_count;
	struct ct_busy_series series;

	/* Waiting probes, struct ct_gpu_probe sorted by start. */
	struct ct_ring probes;
};

/* SERIES_POINTS: buckets of the busy series (>= 2). */
void ct_gpu_timeline_init(struct ct_gpu_timeline *tl, size_t series_points);
void ct_gpu_timeline_release(struct ct_gpu_timeline *tl);

/* A timeline on the heap, initialized as by ct_gpu_timeline_init. */
struct ct_gpu_timeline *ct_gpu_timeline_new(size_t series_points);
/* Releases and frees a timeline from ct_gpu_timeline_new; NULL is fine. */
void ct_gpu_timeline_free(struct ct_gpu_timeline *tl);

/* The device was busy from START to END (ns). Untimed (0) or reversed intervals are ignored. */
void ct_gpu_timeline_add(struct ct_gpu_timeline *tl, int64_t start, int64_t end);

/*
 * Asks how busy the device was during [START, END]: ANSWER is called with
 * DATA and the probe, TAG included, once that is known.
 */
void ct_gpu_timeline_probe(struct ct_gpu_timeline *tl, int64_t start, int64_t end,
                           ct_gpu_probe_fn answer, void *data, uint64_t tag);

/* Merges everything still waiting and answers every probe. */
void ct_gpu_timeline_finish(struct ct_gpu_timeline *tl);

/* Last time covered by GPU work merged so far (valid when started). */
static inline int64_t ct_gpu_timeline_last_ns(const struct ct_gpu_timeline *tl)
{
	return tl->run_end;
}

#endif
