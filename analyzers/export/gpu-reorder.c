/* SPDX-License-Identifier: MIT */
/*
 * gpu-reorder.c - GPU operations back in time order, in bounded memory
 * (see gpu-reorder.h).
 *
 * The points are ordered by time, then by rank (ends of operations
 * before begins, ends of operations of no duration last), then by the
 * order the operations came in. Those that come in that order wait in
 * one of two runs (rings, begins and ends apart: a stream's ends come in
 * order behind its begins); the others in a binary min-heap. Unlike the
 * nearly sorted intervals of gpu-timeline.c, both points of an operation
 * go in at once and the ends land far behind the begins, so a heap beats
 * insertion into a sorted array for what the runs do not take.
 */
#include "gpu-reorder.h"
#include "common/saturate.h"

/* Ranks of points that share a time. */
enum rank {
	RANK_END,       /* the end of an operation that lasted */
	RANK_BEGIN,     /* the begin of an operation */
	RANK_END_EMPTY, /* the end of an operation of no duration: after its begin */
};

/* Where a point's rank sits in its key, above the operation's sequence number. */
#define RANK_SHIFT 62

struct entry {
	int64_t time;
	uint64_t key; /* rank << RANK_SHIFT | the operation's sequence number */
	void *op;
};

static uint64_t key(enum rank rank, uint64_t seq)
{
	return (uint64_t)rank << RANK_SHIFT | seq;
}

static enum rank rank_of(const struct entry *e)
{
	return (enum rank)(e->key >> RANK_SHIFT);
}

/* The smallest ring a run grows to first: a queue of one CUDA stream holds a few points. */
#define RUN_FIRST_CAP 16u

void ct_gpu_reorder_init(struct ct_gpu_reorder *q, size_t max_ops, int64_t window_ns)
{
	*q = (struct ct_gpu_reorder){
		.heap = g_array_new(FALSE, FALSE, sizeof(struct entry)),
		.max_ops = max_ops ? max_ops : CT_GPU_OPS_HELD_MAX,
		.window_ns = window_ns > 0 ? window_ns : 0,
	};
}

void ct_gpu_reorder_release(struct ct_gpu_reorder *q)
{
	if (q->heap)
		g_array_free(q->heap, TRUE);
	q->heap = NULL;
	g_free(q->begins.entries);
	g_free(q->ends.entries);
	q->begins = q->ends = (struct ct_gpu_run){ 0 };
}

static bool before(const struct entry *a, const struct entry *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	return a->key < b->key;
}

/* ------------------------------------------------------------ runs */

/* The Ith point of run R, from its first; CAP is a power of two. */
static struct entry *run_at(const struct ct_gpu_run *r, size_t i)
{
	return (struct entry *)r->entries + ((r->head + i) & (r->cap - 1));
}

/* Twice the room, the points first to last from the start. */
static void run_grow(struct ct_gpu_run *r)
{
	size_t cap = r->cap ? 2 * r->cap : RUN_FIRST_CAP;
	struct entry *entries = g_new(struct entry, cap);

	for (size_t i = 0; i < r->len; i++)
		entries[i] = *run_at(r, i);
	g_free(r->entries);
	r->entries = entries;
	r->cap = cap;
	r->head = 0;
}

static void run_push(struct ct_gpu_run *r, struct entry e)
{
	if (r->len == r->cap)
		run_grow(r);
	*run_at(r, r->len++) = e;
}

static struct entry run_pop(struct ct_gpu_run *r)
{
	struct entry e = *run_at(r, 0);

	r->head = (r->head + 1) & (r->cap - 1);
	r->len--;
	return e;
}

/* ------------------------------------------------------------ heap */

static struct entry *at(struct ct_gpu_reorder *q, guint i)
{
	return &g_array_index(q->heap, struct entry, i);
}

static void swap(struct ct_gpu_reorder *q, guint i, guint j)
{
	struct entry t = *at(q, i);

	*at(q, i) = *at(q, j);
	*at(q, j) = t;
}

static void heap_push(struct ct_gpu_reorder *q, struct entry e)
{
	guint i = q->heap->len;

	g_array_append_val(q->heap, e);
	while (i > 0 && before(at(q, i), at(q, (i - 1) / 2))) {
		swap(q, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static struct entry heap_pop(struct ct_gpu_reorder *q)
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

/* ------------------------------------------------------------ the queue */

/* E into its run when it comes after the run's last point, else into the heap. */
static void push(struct ct_gpu_reorder *q, struct entry e)
{
	struct ct_gpu_run *r = rank_of(&e) == RANK_BEGIN ? &q->begins : &q->ends;

	if (!r->len || !before(&e, run_at(r, r->len - 1)))
		run_push(r, e);
	else
		heap_push(q, e);
}

/* R's first point, when it holds one and it is before *E (or *E is NULL): then in *E and *FROM. */
static inline void earlier_run(struct ct_gpu_run *r, struct ct_gpu_run **from,
                               const struct entry **e)
{
	const struct entry *first;

	if (!r->len)
		return;
	first = (const struct entry *)r->entries + r->head;
	if (!*e || before(first, *e)) {
		*from = r;
		*e = first;
	}
}

/*
 * Where the earliest point held is: a run, or the heap (NULL); false when
 * none is held. Asked once or more for every point that leaves: the
 * runs' first points are read straight.
 */
static bool earliest(struct ct_gpu_reorder *q, struct ct_gpu_run **from, const struct entry **e)
{
	*from = NULL;
	*e = q->heap->len ? at(q, 0) : NULL;
	earlier_run(&q->begins, from, e);
	earlier_run(&q->ends, from, e);
	return *e != NULL;
}

bool ct_gpu_reorder_add(struct ct_gpu_reorder *q, int64_t start, int64_t end, void *op)
{
	uint64_t seq = q->seq;

	if (end < start)
		end = start;
	if (!ct_gpu_reorder_fits(q, start)) {
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
	push(q, (struct entry){ .time = start, .key = key(RANK_BEGIN, seq), .op = op });
	push(q, (struct entry){ .time = end,
	                        .key = key(end == start ? RANK_END_EMPTY : RANK_END, seq),
	                        .op = op });
	return true;
}

bool ct_gpu_reorder_next(struct ct_gpu_reorder *q, bool flush, struct ct_gpu_point *point)
{
	struct ct_gpu_run *from;
	const struct entry *first;
	struct entry e;

	if (!earliest(q, &from, &first))
		return false;
	if (!flush && q->ops <= q->max_ops &&
	    first->time >= ct_sat_sub(q->newest_start, q->window_ns))
		return false;
	e = from ? run_pop(from) : heap_pop(q);
	if (rank_of(&e) != RANK_BEGIN)
		q->ops--;
	q->released = true;
	q->released_until = e.time;
	point->time = e.time;
	point->begin = rank_of(&e) == RANK_BEGIN;
	point->op = e.op;
	return true;
}
