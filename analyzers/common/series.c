/* SPDX-License-Identifier: MIT */
/*
 * series.c - bounded time series by bucket merging (see series.h).
 */
#include "contract/assert.h"
#include "saturate.h"
#include "series.h"

void ct_series_init(struct ct_series *series, size_t capacity)
{
	if (capacity < 2)
		capacity = 2;
	*series = (struct ct_series){
		.points = g_array_sized_new(FALSE, FALSE, sizeof(struct ct_series_point),
		                            (guint)capacity),
		.capacity = capacity,
		.width_ns = 1,
	};
}

void ct_series_release(struct ct_series *series)
{
	if (series->points)
		g_array_unref(series->points);
	*series = (struct ct_series){ 0 };
}

static struct ct_series_point *point_at(struct ct_series *series, guint i)
{
	return &g_array_index(series->points, struct ct_series_point, i);
}

int64_t ct_series_wider(int64_t width_ns)
{
	int64_t digit = width_ns;

	while (digit >= 10 && digit % 10 == 0)
		digit /= 10;
	return width_ns * (digit == 1 ? 2 : 5);
}

static int64_t bucket_of(const struct ct_series *series, int64_t time_ns)
{
	return (time_ns - series->origin_ns) / series->width_ns;
}

/* Widens the buckets, merging the points that now share a bucket. */
static void merge_buckets(struct ct_series *series)
{
	guint out = 0;

	series->width_ns = ct_series_wider(series->width_ns);
	for (guint i = 0; i < series->points->len; i++) {
		struct ct_series_point *p = point_at(series, i);
		int64_t start =
		    series->origin_ns + bucket_of(series, p->time_ns) * series->width_ns;

		if (out > 0 && point_at(series, out - 1)->time_ns == start) {
			struct ct_series_point *q = point_at(series, out - 1);

			q->min = p->min < q->min ? p->min : q->min;
			q->max = p->max > q->max ? p->max : q->max;
			q->last = p->last;
			continue;
		}
		*point_at(series, out) = *p;
		point_at(series, out)->time_ns = start;
		out++;
	}
	g_array_set_size(series->points, out);
}

/* VALUE, at a time inside POINT's bucket. */
static void keep_in(struct ct_series_point *point, int64_t value)
{
	point->min = value < point->min ? value : point->min;
	point->max = value > point->max ? value : point->max;
	point->last = value;
}

void ct_series_add(struct ct_series *series, int64_t time_ns, int64_t value)
{
	struct ct_series_point *last, point;
	int64_t start;
	int64_t before;

	if (series->points->len == 0) {
		series->origin_ns = time_ns;
		point = (struct ct_series_point){ time_ns, value, value, value };
		g_array_append_val(series->points, point);
		return;
	}
	if (time_ns < series->origin_ns)
		time_ns = series->origin_ns;
	/*
	 * In the last point's bucket (its time is the bucket's start): most
	 * values are, and are kept there without the two 64-bit divisions that
	 * place a time from the origin.
	 */
	last = point_at(series, series->points->len - 1);
	if (time_ns >= last->time_ns &&
	    (uint64_t)time_ns - (uint64_t)last->time_ns < (uint64_t)series->width_ns) {
		keep_in(last, value);
		return;
	}
	while (bucket_of(series, time_ns) >= (int64_t)series->capacity)
		merge_buckets(series);
	start = series->origin_ns + bucket_of(series, time_ns) * series->width_ns;
	last = point_at(series, series->points->len - 1);
	if (last->time_ns == start) {
		keep_in(last, value);
		return;
	}
	if (series->points->len == series->capacity) {
		merge_buckets(series);
		ct_series_add(series, time_ns, value);
		return;
	}
	/* the previous value held from the bucket's start until TIME_NS */
	CT_ASSERT_DBG(series->points->len < series->capacity);
	before = last->last;
	point = (struct ct_series_point){ start, value, value, value };
	if (time_ns > start) {
		point.min = before < value ? before : value;
		point.max = before > value ? before : value;
	}
	g_array_append_val(series->points, point);
}

void ct_series_shift(struct ct_series *series, int64_t delta)
{
	for (guint i = 0; series->points && i < series->points->len; i++) {
		struct ct_series_point *p = point_at(series, i);

		p->min = ct_sat_add(p->min, delta);
		p->max = ct_sat_add(p->max, delta);
		p->last = ct_sat_add(p->last, delta);
	}
}
