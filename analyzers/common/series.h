/* SPDX-License-Identifier: MIT */
/*
 * series.h - a time series of a step function (live bytes) kept in a fixed
 * number of buckets: when the buckets run out, neighbours merge and the
 * buckets widen (ct_series_wider), so a trace of any length costs the
 * same memory.
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
	int64_t width_ns; /* bucket width: 1 or 2 times a power of ten (ct_series_wider) */
};

/*
 * The bucket width after WIDTH_NS when buckets run out: 1, 2, 10, 20,
 * 100, 200, ... ns. Each is a multiple of the one before (2 or 5 times
 * it), so that wider buckets hold whole narrower ones, and each reads as
 * a round figure ("20 us", "1 ms"), never as 1.05 ms. Every bounded series
 * of the analyzers widens its buckets this way.
 */
int64_t ct_series_wider(int64_t width_ns);

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
