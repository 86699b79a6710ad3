/* SPDX-License-Identifier: MIT */
/*
 * gpu-timeline.c - busy runs, idle gaps and probes of one device from
 * out-of-order GPU intervals (see gpu-timeline.h).
 */
#include <stdlib.h>
#include <string.h>

#include "assert.h"
#include "gpu-timeline.h"

/* ------------------------------------------------------ busy series */

static int series_init(struct ct_busy_series *s, size_t capacity)
{
	memset(s, 0, sizeof(*s));
	if (capacity < 2)
		capacity = 2;
	s->busy = calloc(capacity, sizeof(*s->busy));
	if (!s->busy)
		return -1;
	s->capacity = capacity;
	s->width_ns = 1;
	return 0;
}

/* Doubles the bucket width: bucket i takes buckets 2i and 2i + 1. */
static void series_merge(struct ct_busy_series *s)
{
	size_t count = (s->count + 1) / 2;

	for (size_t i = 0; i < count; i++)
		s->busy[i] = s->busy[2 * i] + (2 * i + 1 < s->count ? s->busy[2 * i + 1] : 0);
	memset(s->busy + count, 0, (s->capacity - count) * sizeof(*s->busy));
	s->count = count;
	s->width_ns *= 2;
}

static void series_add(struct ct_busy_series *s, int64_t start, int64_t end)
{
	int64_t first, last;

	if (!s->busy || end <= start)
		return;
	if (s->count == 0)
		s->origin_ns = start;
	if (start < s->origin_ns)
		start = s->origin_ns;
	if (end <= start)
		return;
	while ((end - 1 - s->origin_ns) / s->width_ns >= (int64_t)s->capacity)
		series_merge(s);
	first = (start - s->origin_ns) / s->width_ns;
	last = (end - 1 - s->origin_ns) / s->width_ns;
	for (int64_t k = first; k <= last; k++) {
		int64_t bucket_start = s->origin_ns + k * s->width_ns;
		int64_t from = start > bucket_start ? start : bucket_start;
		int64_t to = end < bucket_start + s->width_ns ? end : bucket_start + s->width_ns;

		s->busy[k] += to - from;
	}
	if ((size_t)last + 1 > s->count)
		s->count = (size_t)last + 1;
}

/* ------------------------------------------------------------ probes */

static struct ct_gpu_probe *probe_at(const struct ct_gpu_timeline *tl, size_t i)
{
	return &tl->probes[(tl->probe_head + i) % tl->probe_capacity];
}

static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	int64_t from = a0 > b0 ? a0 : b0;
	int64_t to = a1 < b1 ? a1 : b1;

	return to > from ? to - from : 0;
}

/* Busy time [START, END) is new: credit the probes it overlaps (they are sorted by start). */
static void probes_credit(struct ct_gpu_timeline *tl, int64_t start, int64_t end)
{
	for (size_t i = 0; i < tl->probe_count; i++) {
		struct ct_gpu_probe *p = probe_at(tl, i);

		if (p->start >= end)
			break;
		p->busy_ns += overlap(start, end, p->start, p->end);
	}
}

static void probe_answer_front(struct ct_gpu_timeline *tl)
{
	struct ct_gpu_probe probe = *probe_at(tl, 0);

	tl->probe_head = (tl->probe_head + 1) % tl->probe_capacity;
	tl->probe_count--;
	probe.answer(probe.data, &probe);
}

/* Answers the probes that nothing still to come can overlap. */
static void probes_settle(struct ct_gpu_timeline *tl)
{
	while (tl->probe_count && tl->started && probe_at(tl, 0)->end <= tl->run_end)
		probe_answer_front(tl);
}

/* ----------------------------------------------------------- merging */

static void record_gap(struct ct_gpu_timeline *tl, int64_t start, int64_t end)
{
	int64_t length = end - start;
	size_t i;

	CT_ASSERT_DBG(length > 0);
	tl->gap_count++;
	tl->gap_ns += length;
	if (tl->gaps_kept == CT_GPU_GAPS_KEPT &&
	    tl->gaps[CT_GPU_GAPS_KEPT - 1].end - tl->gaps[CT_GPU_GAPS_KEPT - 1].start >= length)
		return;
	if (tl->gaps_kept < CT_GPU_GAPS_KEPT)
		tl->gaps_kept++;
	/* insertion into the list sorted by length, longest first; ties keep time order */
	for (i = tl->gaps_kept - 1; i > 0; i--) {
		const struct ct_gpu_interval *before = &tl->gaps[i - 1];

		if (before->end - before->start >= length)
			break;
		tl->gaps[i] = *before;
	}
	tl->gaps[i] = (struct ct_gpu_interval){ start, end };
}

static void cover(struct ct_gpu_timeline *tl, int64_t start, int64_t end)
{
	tl->busy_ns += end - start;
	series_add(&tl->series, start, end);
	probes_credit(tl, start, end);
}

static void close_run(struct ct_gpu_timeline *tl)
{
	tl->recent[tl->recent_next] = (struct ct_gpu_interval){ tl->run_start, tl->run_end };
	tl->recent_next = (tl->recent_next + 1) % CT_GPU_RECENT_RUNS;
	if (tl->recent_count < CT_GPU_RECENT_RUNS)
		tl->recent_count++;
}

static void merge(struct ct_gpu_timeline *tl, int64_t start, int64_t end)
{
	if (!tl->started) {
		tl->started = true;
		tl->first_ns = tl->run_start = tl->last_start = start;
		tl->run_end = end;
		cover(tl, start, end);
		return;
	}
	if (start < tl->last_start)
		tl->late++;
	else
		tl->last_start = start;
	if (start > tl->run_end) {
		record_gap(tl, tl->run_end, start);
		close_run(tl);
		tl->run_start = start;
		tl->run_end = end;
		cover(tl, start, end);
	} else if (end > tl->run_end) {
		cover(tl, tl->run_end, end);
		tl->run_end = end;
	}
	probes_settle(tl);
}

/* ------------------------------------------------- waiting intervals */

static struct ct_gpu_interval *waiting_at(const struct ct_gpu_timeline *tl, size_t i)
{
	return &tl->waiting[(tl->waiting_head + i) & (tl->waiting_capacity - 1)];
}

static int waiting_reserve(struct ct_gpu_timeline *tl)
{
	size_t capacity = tl->waiting_capacity ? tl->waiting_capacity * 2 : 256;
	struct ct_gpu_interval *waiting;

	if (tl->waiting_count < tl->waiting_capacity)
		return 0;
	waiting = malloc(capacity * sizeof(*waiting));
	if (!waiting)
		return -1;
	for (size_t i = 0; i < tl->waiting_count; i++)
		waiting[i] = *waiting_at(tl, i);
	free(tl->waiting);
	tl->waiting = waiting;
	tl->waiting_capacity = capacity;
	tl->waiting_head = 0;
	return 0;
}

/*
 * Inserts in start order, from the back: records come nearly sorted, so
 * this moves few entries (a binary heap costs a log factor on every one).
 */
static int waiting_push(struct ct_gpu_timeline *tl, int64_t start, int64_t end)
{
	size_t i;

	if (waiting_reserve(tl) < 0)
		return -1;
	for (i = tl->waiting_count; i > 0 && waiting_at(tl, i - 1)->start > start; i--)
		*waiting_at(tl, i) = *waiting_at(tl, i - 1);
	*waiting_at(tl, i) = (struct ct_gpu_interval){ start, end };
	tl->waiting_count++;
	CT_ASSERT_DBG(i + 1 == tl->waiting_count || waiting_at(tl, i + 1)->start >= start);
	return 0;
}

static void merge_earliest(struct ct_gpu_timeline *tl)
{
	struct ct_gpu_interval next = *waiting_at(tl, 0);

	tl->waiting_head = (tl->waiting_head + 1) & (tl->waiting_capacity - 1);
	tl->waiting_count--;
	merge(tl, next.start, next.end);
}

/* ------------------------------------------------------------ public */

int ct_gpu_timeline_init(struct ct_gpu_timeline *tl, size_t series_points)
{
	memset(tl, 0, sizeof(*tl));
	tl->window_ns = CT_GPU_REORDER_MIN_NS;
	return series_init(&tl->series, series_points);
}

void ct_gpu_timeline_release(struct ct_gpu_timeline *tl)
{
	free(tl->waiting);
	free(tl->probes);
	free(tl->series.busy);
	memset(tl, 0, sizeof(*tl));
}

struct ct_gpu_timeline *ct_gpu_timeline_new(size_t series_points)
{
	struct ct_gpu_timeline *tl = malloc(sizeof(*tl));

	if (tl && ct_gpu_timeline_init(tl, series_points) < 0) {
		free(tl);
		return NULL;
	}
	return tl;
}

void ct_gpu_timeline_free(struct ct_gpu_timeline *tl)
{
	if (!tl)
		return;
	ct_gpu_timeline_release(tl);
	free(tl);
}

int ct_gpu_timeline_add(struct ct_gpu_timeline *tl, int64_t start, int64_t end)
{
	if (start <= 0 || end < start)
		return 0;
	if (!tl->intervals || start > tl->newest_start)
		tl->newest_start = start;
	else if (2 * (tl->newest_start - start) > tl->window_ns)
		tl->window_ns = 2 * (tl->newest_start - start);
	tl->intervals++;
	if (waiting_push(tl, start, end) < 0) {
		/* no room to reorder: merge it now rather than lose it */
		merge(tl, start, end);
		return -1;
	}
	while (tl->waiting_count > CT_GPU_REORDER_MAX ||
	       (tl->waiting_count && waiting_at(tl, 0)->start < tl->newest_start - tl->window_ns))
		merge_earliest(tl);
	return 0;
}

/* Busy time of the runs already merged inside [START, END). */
static int64_t merged_busy(const struct ct_gpu_timeline *tl, int64_t start, int64_t end)
{
	int64_t busy;

	if (!tl->started || start >= tl->run_end)
		return 0;
	busy = overlap(start, end, tl->run_start, tl->run_end);
	/* closed runs, newest first, back to the first that ends before START */
	for (size_t k = 1; k <= tl->recent_count; k++) {
		const struct ct_gpu_interval *run =
		    &tl->recent[(tl->recent_next + CT_GPU_RECENT_RUNS - k) % CT_GPU_RECENT_RUNS];

		if (run->end <= start)
			break;
		busy += overlap(start, end, run->start, run->end);
	}
	return busy;
}

static int probes_reserve(struct ct_gpu_timeline *tl)
{
	size_t capacity;
	struct ct_gpu_probe *probes;

	if (tl->probe_count < tl->probe_capacity)
		return 0;
	if (tl->probe_capacity >= CT_GPU_PROBES_MAX) {
		/* full: move the merge forward, then answer the oldest with what is known */
		while (tl->waiting_count && tl->probe_count == tl->probe_capacity)
			merge_earliest(tl);
		if (tl->probe_count == tl->probe_capacity)
			probe_answer_front(tl);
		return 0;
	}
	capacity = tl->probe_capacity ? tl->probe_capacity * 2 : 64;
	probes = malloc(capacity * sizeof(*probes));
	if (!probes)
		return -1;
	for (size_t i = 0; i < tl->probe_count; i++)
		probes[i] = *probe_at(tl, i);
	free(tl->probes);
	tl->probes = probes;
	tl->probe_capacity = capacity;
	tl->probe_head = 0;
	return 0;
}

int ct_gpu_timeline_probe(struct ct_gpu_timeline *tl, int64_t start, int64_t end,
                          ct_gpu_probe_fn answer, void *data, uint64_t tag)
{
	struct ct_gpu_probe probe = { start, end, 0, tag, answer, data };
	size_t i;

	if (end < start)
		return 0;
	if (probes_reserve(tl) < 0)
		return -1;
	/* what was merged before the probe arrived counts too */
	probe.busy_ns = merged_busy(tl, start, end);
	/* insertion from the back: probes arrive nearly in start order */
	for (i = tl->probe_count; i > 0 && probe_at(tl, i - 1)->start > start; i--)
		*probe_at(tl, i) = *probe_at(tl, i - 1);
	*probe_at(tl, i) = probe;
	tl->probe_count++;
	probes_settle(tl);
	return 0;
}

void ct_gpu_timeline_finish(struct ct_gpu_timeline *tl)
{
	while (tl->waiting_count)
		merge_earliest(tl);
	while (tl->probe_count)
		probe_answer_front(tl);
}
