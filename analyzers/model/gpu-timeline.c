/* SPDX-License-Identifier: MIT */
/*
 * gpu-timeline.c - busy runs, idle gaps and probes of one device from
 * out-of-order GPU intervals (see gpu-timeline.h).
 *
 * The waiting intervals and probes are GArrays sorted by start, read from
 * a head that moves forward as they leave; the part behind the head is
 * dropped once it is half of the array, so leaving costs O(1) amortized.
 * Records come nearly sorted, so inserting from the back moves few
 * entries (a binary heap would cost a log factor on every one).
 */
#include <string.h>

#include "contract/assert.h"
#include "gpu-timeline.h"
#include "common/series.h"
#include "common/saturate.h"

/* ------------------------------------------------------ busy series */

static void series_init(struct ct_busy_series *s, size_t capacity)
{
	if (capacity < 2)
		capacity = 2;
	*s = (struct ct_busy_series){
		.busy = g_array_sized_new(FALSE, TRUE, sizeof(int64_t), (guint)capacity),
		.capacity = capacity,
		.width_ns = 1,
	};
}

static int64_t *bucket(struct ct_busy_series *s, guint i)
{
	return &g_array_index(s->busy, int64_t, i);
}

/* Widens the buckets (ct_series_wider): bucket i takes buckets f*i to f*i + f - 1. */
static void series_merge(struct ct_busy_series *s)
{
	int64_t wider = ct_series_wider(s->width_ns);
	guint factor = (guint)(wider / s->width_ns);
	guint count = (s->busy->len + factor - 1) / factor;

	for (guint i = 0; i < count; i++) {
		int64_t sum = 0;

		for (guint j = factor * i; j < factor * (i + 1) && j < s->busy->len; j++)
			sum += *bucket(s, j);
		*bucket(s, i) = sum;
	}
	g_array_set_size(s->busy, count);
	s->width_ns = wider;
}

/*
 * Adds [START, END) to the buckets. Intervals come in time order and most
 * are far shorter than a bucket: one inside the highest bucket is added
 * there, without the three 64-bit divisions (tens of cycles each) that
 * place an interval from the origin.
 */
static void series_add(struct ct_busy_series *s, int64_t start, int64_t end)
{
	int64_t first, last;

	if (end <= start)
		return;
	if (s->busy->len > 0) {
		guint top = s->busy->len - 1;
		int64_t top_start = s->origin_ns + (int64_t)top * s->width_ns;

		if (start >= top_start && end <= ct_sat_add(top_start, s->width_ns)) {
			*bucket(s, top) += end - start;
			return;
		}
	}
	if (s->busy->len == 0)
		s->origin_ns = start;
	if (start < s->origin_ns)
		start = s->origin_ns;
	if (end <= start)
		return;
	while ((end - 1 - s->origin_ns) / s->width_ns >= (int64_t)s->capacity)
		series_merge(s);
	first = (start - s->origin_ns) / s->width_ns;
	last = (end - 1 - s->origin_ns) / s->width_ns;
	/* new buckets are zeroed */
	if ((guint)last + 1 > s->busy->len)
		g_array_set_size(s->busy, (guint)last + 1);
	for (int64_t k = first; k <= last; k++) {
		int64_t bucket_start = s->origin_ns + k * s->width_ns;
		int64_t from = start > bucket_start ? start : bucket_start;
		int64_t bucket_end = ct_sat_add(bucket_start, s->width_ns);
		int64_t to = end < bucket_end ? end : bucket_end;

		*bucket(s, (guint)k) += to - from;
	}
}

/* ------------------------------------------------------------ probes */

static size_t probe_count(const struct ct_gpu_timeline *tl)
{
	return ct_ring_count(&tl->probes);
}

static struct ct_gpu_probe *probe_at(const struct ct_gpu_timeline *tl, size_t i)
{
	return ct_ring_at(&tl->probes, i);
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
	for (size_t i = 0; i < probe_count(tl); i++) {
		struct ct_gpu_probe *p = probe_at(tl, i);

		if (p->start >= end)
			break;
		p->busy_ns += overlap(start, end, p->start, p->end);
	}
}

static void probe_answer_front(struct ct_gpu_timeline *tl)
{
	struct ct_gpu_probe probe = *probe_at(tl, 0);

	ct_ring_drop_front(&tl->probes);
	probe.answer(probe.data, &probe);
}

/* Answers the probes that nothing still to come can overlap. */
static void probes_settle(struct ct_gpu_timeline *tl)
{
	while (probe_count(tl) && tl->started && probe_at(tl, 0)->end <= tl->run_end)
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
	CT_ASSERT_DBG(tl->run_end >= tl->run_start);
	probes_settle(tl);
}

/* ------------------------------------------------- waiting intervals */

static size_t waiting_count(const struct ct_gpu_timeline *tl)
{
	return ct_ring_count(&tl->waiting);
}

static struct ct_gpu_interval *waiting_at(const struct ct_gpu_timeline *tl, size_t i)
{
	return ct_ring_at(&tl->waiting, i);
}

/* Inserts in start order, from the back; equal starts keep their order of arrival. */
static void waiting_push(struct ct_gpu_timeline *tl, int64_t start, int64_t end)
{
	struct ct_gpu_interval interval = { start, end };
	size_t i;

	ct_ring_push(&tl->waiting);
	for (i = waiting_count(tl) - 1; i > 0 && waiting_at(tl, i - 1)->start > start; i--)
		*waiting_at(tl, i) = *waiting_at(tl, i - 1);
	*waiting_at(tl, i) = interval;
	CT_ASSERT_DBG(i + 1 == waiting_count(tl) || waiting_at(tl, i + 1)->start >= start);
}

static void merge_earliest(struct ct_gpu_timeline *tl)
{
	struct ct_gpu_interval next = *waiting_at(tl, 0);

	ct_ring_drop_front(&tl->waiting);
	merge(tl, next.start, next.end);
}

/* ------------------------------------------------------------ public */

void ct_gpu_timeline_init(struct ct_gpu_timeline *tl, size_t series_points)
{
	memset(tl, 0, sizeof(*tl));
	tl->window_ns = CT_GPU_REORDER_MIN_NS;
	ct_ring_init(&tl->waiting, sizeof(struct ct_gpu_interval));
	ct_ring_init(&tl->probes, sizeof(struct ct_gpu_probe));
	series_init(&tl->series, series_points);
}

void ct_gpu_timeline_release(struct ct_gpu_timeline *tl)
{
	ct_ring_release(&tl->waiting);
	ct_ring_release(&tl->probes);
	if (tl->series.busy)
		g_array_unref(tl->series.busy);
	memset(tl, 0, sizeof(*tl));
}

struct ct_gpu_timeline *ct_gpu_timeline_new(size_t series_points)
{
	struct ct_gpu_timeline *tl = g_new(struct ct_gpu_timeline, 1);

	ct_gpu_timeline_init(tl, series_points);
	return tl;
}

void ct_gpu_timeline_free(struct ct_gpu_timeline *tl)
{
	if (!tl)
		return;
	ct_gpu_timeline_release(tl);
	g_free(tl);
}

void ct_gpu_timeline_add(struct ct_gpu_timeline *tl, int64_t start, int64_t end)
{
	if (start <= 0 || end < start)
		return;
	if (!tl->intervals || start > tl->newest_start)
		tl->newest_start = start;
	else if (ct_sat_mul(2, tl->newest_start - start) > tl->window_ns)
		tl->window_ns = ct_sat_mul(2, tl->newest_start - start);
	tl->intervals++;
	waiting_push(tl, start, end);
	while (waiting_count(tl) > CT_GPU_REORDER_MAX ||
	       (waiting_count(tl) &&
	        waiting_at(tl, 0)->start < ct_sat_sub(tl->newest_start, tl->window_ns)))
		merge_earliest(tl);
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

/* Room for one more probe: when CT_GPU_PROBES_MAX wait, move the merge forward, then answer the oldest with what is known. */
static void probes_reserve(struct ct_gpu_timeline *tl)
{
	while (waiting_count(tl) && probe_count(tl) >= CT_GPU_PROBES_MAX)
		merge_earliest(tl);
	if (probe_count(tl) >= CT_GPU_PROBES_MAX)
		probe_answer_front(tl);
}

void ct_gpu_timeline_probe(struct ct_gpu_timeline *tl, int64_t start, int64_t end,
                           ct_gpu_probe_fn answer, void *data, uint64_t tag)
{
	struct ct_gpu_probe probe = { start, end, 0, tag, answer, data };
	size_t i;

	if (end < start)
		return;
	probes_reserve(tl);
	/* what was merged before the probe arrived counts too */
	probe.busy_ns = merged_busy(tl, start, end);
	/* insertion from the back: probes arrive nearly in start order */
	ct_ring_push(&tl->probes);
	for (i = probe_count(tl) - 1; i > 0 && probe_at(tl, i - 1)->start > start; i--)
		*probe_at(tl, i) = *probe_at(tl, i - 1);
	*probe_at(tl, i) = probe;
	probes_settle(tl);
}

void ct_gpu_timeline_finish(struct ct_gpu_timeline *tl)
{
	while (waiting_count(tl))
		merge_earliest(tl);
	while (probe_count(tl))
		probe_answer_front(tl);
}
