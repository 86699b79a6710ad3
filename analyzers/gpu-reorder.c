/* SPDX-License-Identifier: MIT */
/*
 * gpu-reorder.c - GPU operations back in time order, in bounded memory
 * (see gpu-reorder.h).
 *
 * The points wait in a binary min-heap keyed by time, then by rank (ends
 * of operations before begins, ends of operations of no duration last),
 * then by the order the operations came in. Unlike the nearly sorted
 * intervals of gpu-timeline.c, both points of an operation go in at
 * once and the ends land far behind the begins, so a heap beats insertion
 * into a sorted array here.
 */
#include "gpu-reorder.h"
#include "saturate.h"

/* Ranks of points that share a time. */
enum rank {
	RANK_END,       /* the end of an operation that lasted */
	RANK_BEGIN,     /* the begin of an operation */
	RANK_END_EMPTY, /* the end of an operation of no duration: after its begin */
};

struct entry {
	int64_t time;
	uint8_t rank; /* enum rank */
	uint64_t seq; /* the operation's */
	void *op;
};

void ct_gpu_reorder_init(struct ct_gpu_reorder *q, size_t max_ops)
{
	*q = (struct ct_gpu_reorder){
		.heap = g_array_new(FALSE, FALSE, sizeof(struct entry)),
		.max_ops = max_ops ? max_ops : CT_GPU_OPS_HELD_MAX,
		.window_ns = CT_GPU_OPS_WINDOW_MIN_NS,
	};
}

void ct_gpu_reorder_release(struct ct_gpu_reorder *q)
{
	if (q->heap)
		g_array_free(q->heap, TRUE);
	q->heap = NULL;
}

static struct entry *at(struct ct_gpu_reorder *q, guint i)
{
	return &g_array_index(q->heap, struct entry, i);
}

static bool before(const struct entry *a, const struct entry *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->rank != b->rank)
		return a->rank < b->rank;
	return a->seq < b->seq;
}

static void swap(struct ct_gpu_reorder *q, guint i, guint j)
{
	struct entry t = *at(q, i);

	*at(q, i) = *at(q, j);
	*at(q, j) = t;
}

static void push(struct ct_gpu_reorder *q, struct entry e)
{
	guint i = q->heap->len;

	g_array_append_val(q->heap, e);
	while (i > 0 && before(at(q, i), at(q, (i - 1) / 2))) {
		swap(q, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static struct entry pop(struct ct_gpu_reorder *q)
{
	struct entry top = *at(q, 0);
	guint i = 0, n = q->heap->len - 1;

	*at(q, 0) = *at(q, n);
	g_array_set_size(q->heap, n);
	for (;;) {
		guint l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && before(at(q, l), at(q, m)))
			m = l;
		if (r < n && before(at(q, r), at(q, m)))
			m = r;
		if (m == i)
			break;
		swap(q, i, m);
		i = m;
	}
	return top;
}

bool ct_gpu_reorder_add(struct ct_gpu_reorder *q, int64_t start, int64_t end, void *op)
{
	uint64_t seq = q->seq;

	if (end < start)
		end = start;
	if (q->released && start < q->released_until) {
		q->late++;
		return false;
	}
	if (!q->started || start > q->newest_start) {
		q->newest_start = start;
		q->started = true;
	} else {
		/* a start this far behind the newest: hold points twice as long */
		int64_t disorder = q->newest_start - start;

		if (ct_sat_add(disorder, disorder) > q->window_ns)
			q->window_ns = ct_sat_add(disorder, disorder);
	}
	q->seq++;
	q->ops++;
	push(q, (struct entry){ .time = start, .rank = RANK_BEGIN, .seq = seq, .op = op });
	push(q, (struct entry){ .time = end,
	                        .rank = end == start ? RANK_END_EMPTY : RANK_END,
	                        .seq = seq,
	                        .op = op });
	return true;
}

bool ct_gpu_reorder_next(struct ct_gpu_reorder *q, bool flush, struct ct_gpu_point *point)
{
	struct entry e;

	if (!q->heap->len)
		return false;
	if (!flush && q->ops <= q->max_ops &&
	    at(q, 0)->time >= ct_sat_sub(q->newest_start, q->window_ns))
		return false;
	e = pop(q);
	if (e.rank != RANK_BEGIN)
		q->ops--;
	q->released = true;
	q->released_until = e.time;
	*point = (struct ct_gpu_point){ .time = e.time, .begin = e.rank == RANK_BEGIN, .op = e.op };
	return true;
}
