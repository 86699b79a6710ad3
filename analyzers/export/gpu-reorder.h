/* SPDX-License-Identifier: MIT */
/*
 * gpu-reorder.h - GPU operations, which arrive out of GPU-time order, put
 * back in order as begin and end points, in bounded memory.
 *
 * CUPTI hands activity records back in buffers, late and unsorted across
 * buffers (the records of one stream are in order). Each operation added
 * gives two points, its begin at its start and its end at its end; a point
 * leaves the queue once operations starting a reorder window after it
 * have arrived. The window is twice the worst disorder seen so far between
 * operation starts, and at least the smallest the caller sets, so it
 * adapts to how the records come (the same rule as gpu-timeline.h). The
 * queue never holds more than its bound of operations: past that, the
 * earliest point leaves whatever the window says. That is the memory
 * bound (two entries of 24 bytes per operation here, and the caller's
 * operation).
 *
 * Most points come in order: the records of one stream are, and the
 * operations of a stream follow one another. A begin that comes after
 * the last begin of the begins' run joins that run (an end, the ends'
 * run): a queue in time order, where adding and taking cost the same
 * however many points are held. Only the other points go into the heap,
 * and the earliest of the runs' first points and the heap's top leaves
 * first.
 *
 * Points leave in time order. An operation that starts before the last
 * point that left cannot be put in order: ct_gpu_reorder_add refuses it
 * and counts it in `late`, for the caller to report.
 *
 * At equal times, the end of an operation leaves before the begin of
 * another (one operation ends as the next on its stream begins), and an
 * operation of no duration ends after it begins.
 */
#ifndef CUDATRACE_ANALYZERS_GPU_REORDER_H
#define CUDATRACE_ANALYZERS_GPU_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/* Operations held for reordering at most, unless the caller sets fewer. */
#define CT_GPU_OPS_HELD_MAX 65536u

/* One point in time of an operation. */
struct ct_gpu_point {
	int64_t time;
	bool begin; /* the operation's begin, else its end */
	void *op;   /* the caller's */
};

/* Points that came in order, the earliest first: a ring (gpu-reorder.c). */
struct ct_gpu_run {
	void *entries; /* struct entry (gpu-reorder.c), CAP of them; owned */
	size_t head, len, cap;
};

struct ct_gpu_reorder {
	GArray *heap;                   /* struct entry (gpu-reorder.c), a binary min-heap; owned */
	struct ct_gpu_run begins, ends; /* the begin and end points that came in order */
	size_t max_ops;
	size_t ops;           /* operations with a point still held */
	uint64_t seq;         /* operations added */
	bool started;         /* an operation was added */
	int64_t newest_start; /* largest start added */
	int64_t window_ns;
	bool released; /* a point left */
	int64_t released_until;
	uint64_t late; /* operations refused: they start before released_until */
};

/*
 * MAX_OPS: the operations held at most (0: CT_GPU_OPS_HELD_MAX);
 * WINDOW_NS: the smallest reorder window, ns (0: a point may leave as
 * soon as an operation starting after it comes).
 */
void ct_gpu_reorder_init(struct ct_gpu_reorder *q, size_t max_ops, int64_t window_ns);
/* Frees what the queue holds (the caller's OPs are not touched). */
void ct_gpu_reorder_release(struct ct_gpu_reorder *q);

/* Whether an operation starting at START can still be put in order: no later point left. */
static inline bool ct_gpu_reorder_fits(const struct ct_gpu_reorder *q, int64_t start)
{
	return !q->released || start >= q->released_until;
}

/*
 * Adds OP, from START to END (ns; END before START is taken as START).
 * False when it starts before a point that already left: it is counted
 * in late and not held.
 */
bool ct_gpu_reorder_add(struct ct_gpu_reorder *q, int64_t start, int64_t end, void *op);

/*
 * The next point that may leave, in *POINT: its time is a window before
 * the newest start, or the queue holds too many operations; with FLUSH,
 * any point (the input ended). False when none may leave yet.
 */
bool ct_gpu_reorder_next(struct ct_gpu_reorder *q, bool flush, struct ct_gpu_point *point);

#endif
