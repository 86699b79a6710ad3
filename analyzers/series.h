/* SPDX-License-Identifier: MIT */
/*
 * series.h - a time series of a step function (live bytes) kept in a fixed
 * number of buckets: when the buckets run out, neighbours merge and the
 * bucket width doubles, so a trace of any length costs the same memory.
 * Each bucket keeps the minimum, the maximum and the last value, so peaks
 * survive the downsampling.
 */
#ifndef CUDATRACE_ANALYZERS_SERIES_H
#define CUDATRACE_ANALYZERS_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

struct ct_series_point {
	int64_t time_ns; /* start of the bucket */
	int64_t min;
	int64_t max;
	int64_t last; /* value at the end of the bucket */
};

struct ct_series {
	GArray *points;  /* struct ct_series_point, at most capacity; owned */
	size_t capacity; /* buckets */
	int64_t origin_ns;
	int64_t width_ns; /* bucket width, a power of two */
};

/* CAPACITY >= 2. */
void ct_series_init(struct ct_series *series, size_t capacity);
void ct_series_release(struct ct_series *series);
/* The value became VALUE at TIME_NS (times never decrease). */
void ct_series_add(struct ct_series *series, int64_t time_ns, int64_t value);

/* The value was DELTA more than told at every moment so far (every point rises by it). */
void ct_series_shift(struct ct_series *series, int64_t delta);

/* Point I (0 <= I < series->points->len). */
static inline const struct ct_series_point *ct_series_at(const struct ct_series *series, size_t i)
{
	return &g_array_index(series->points, struct ct_series_point, i);
}

#endif
