/* SPDX-License-Identifier: MIT */
/*
 * series.c - bounded time series by bucket merging (see series.h).
 */
#include <stdlib.h>

#include "assert.h"
#include "series.h"

int ct_series_init(struct ct_series *series, size_t capacity)
{
	*series = (struct ct_series){ 0 };
	if (capacity < 2)
		capacity = 2;
	series->points = calloc(capacity, sizeof(*series->points));
	if (!series->points)
		return -1;
	series->capacity = capacity;
	series->width_ns = 1;
	return 0;
}

void ct_series_release(struct ct_series *series)
{
	free(series->points);
	*series = (struct ct_series){ 0 };
}

static int64_t bucket_of(const struct ct_series *series, int64_t time_ns)
{
	return (time_ns - series->origin_ns) / series->width_ns;
}

/* Doubles the bucket width, merging the points that now share a bucket. */
static void merge_buckets(struct ct_series *series)
{
	size_t out = 0;

	series->width_ns *= 2;
	for (size_t i = 0; i < series->count; i++) {
		struct ct_series_point *p = &series->points[i];
		int64_t start =
		    series->origin_ns + bucket_of(series, p->time_ns) * series->width_ns;

		if (out > 0 && series->points[out - 1].time_ns == start) {
			struct ct_series_point *q = &series->points[out - 1];

			q->min = p->min < q->min ? p->min : q->min;
			q->max = p->max > q->max ? p->max : q->max;
			q->last = p->last;
			continue;
		}
		series->points[out] = *p;
		series->points[out].time_ns = start;
		out++;
	}
	series->count = out;
}

void ct_series_add(struct ct_series *series, int64_t time_ns, int64_t value)
{
	struct ct_series_point *last;
	int64_t start;
	int64_t before;

	if (!series->points)
		return;
	if (series->count == 0) {
		series->origin_ns = time_ns;
		series->points[0] = (struct ct_series_point){ time_ns, value, value, value };
		series->count = 1;
		return;
	}
	if (time_ns < series->origin_ns)
		time_ns = series->origin_ns;
	while (bucket_of(series, time_ns) >= (int64_t)series->capacity)
		merge_buckets(series);
	start = series->origin_ns + bucket_of(series, time_ns) * series->width_ns;
	last = &series->points[series->count - 1];
	if (last->time_ns == start) {
		last->min = value < last->min ? value : last->min;
		last->max = value > last->max ? value : last->max;
		last->last = value;
		return;
	}
	if (series->count == series->capacity) {
		merge_buckets(series);
		ct_series_add(series, time_ns, value);
		return;
	}
	/* the previous value held from the bucket's start until TIME_NS */
	CT_ASSERT_DBG(series->count < series->capacity);
	before = last->last;
	last = &series->points[series->count++];
	*last = (struct ct_series_point){ start, value, value, value };
	if (time_ns > start) {
		last->min = before < value ? before : value;
		last->max = before > value ? before : value;
	}
}
