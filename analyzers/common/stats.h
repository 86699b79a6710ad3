/* SPDX-License-Identifier: MIT */
/*
 * stats.h - summary statistics of a stream of durations (count, total,
 * mean, standard deviation, min, max and quantiles such as the median) in
 * memory that does not grow with the number of values.
 *
 * The first CT_STAT_EXACT values are kept as they are, so small samples get
 * exact quantiles. Beyond that the values move into a log-linear histogram
 * (the HDR histogram scheme): each power of two is split into
 * 2^CT_STAT_SUB_BITS equal buckets, so a bucket is at most 1/64 of its
 * lower bound wide and its midpoint is within 1/128 (CT_STAT_ACCURACY) of
 * every value in it: any quantile is returned with that relative error.
 * The bucket of a value comes from its highest bit and the 6 bits after
 * it, with integer operations only (the event hot path calls this).
 * Buckets exist only between the smallest and the largest magnitude seen,
 * so a kernel whose times span a factor of ten costs about 220 counters,
 * however many times it runs. A reservoir sample was the other candidate:
 * it bounds memory too, but its error has no bound for a given quantile
 * and it needs a random source, which would make reports differ from run
 * to run.
 */
#ifndef CUDATRACE_ANALYZERS_STATS_H
#define CUDATRACE_ANALYZERS_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "document.h"
#include "saturate.h"

/* Values kept exactly before the histogram takes over. */
#define CT_STAT_EXACT 64
/* Buckets per power of two: 2^CT_STAT_SUB_BITS. */
#define CT_STAT_SUB_BITS 6
/* Relative accuracy of quantiles once the histogram is in use: 1/128. */
#define CT_STAT_ACCURACY (1.0 / (2 << CT_STAT_SUB_BITS))

/* Counts of the buckets first .. first + len - 1 of one sign. */
struct ct_stat_buckets {
	uint64_t *counts; /* NULL until a value of this sign arrives; owned */
	int32_t first;
	uint32_t len;
};

struct ct_stat {
	uint64_t count;
	int64_t sum;
	double sum_squares; /* for the standard deviation */
	int64_t min;
	int64_t max;
	/*
	 * Once the histogram is in use: positive values, magnitudes of
	 * negative ones, zeros. The positive ones beside what every value
	 * changes: durations are.
	 */
	struct ct_stat_buckets positive;
	struct ct_stat_buckets negative;
	uint64_t zeros;
	int64_t exact[CT_STAT_EXACT]; /* the values, while count <= CT_STAT_EXACT */
};

/* An empty statistic (or use a zeroed struct). */
void ct_stat_init(struct ct_stat *stat);
/* Frees the histogram; the statistic is empty again. */
void ct_stat_release(struct ct_stat *stat);

/*
 * The bucket of MAGNITUDE (>= 1): its highest set bit E and the
 * CT_STAT_SUB_BITS bits after it, i.e. E × 2^SUB + sub-bucket. Below
 * 2^SUB every integer has a bucket of its own.
 */
static inline int32_t ct_stat_bucket_of(uint64_t magnitude)
{
	int e = 63 - __builtin_clzll(magnitude);
	uint64_t sub;

	if (e >= CT_STAT_SUB_BITS)
		sub = magnitude >> (e - CT_STAT_SUB_BITS);
	else
		sub = magnitude << (CT_STAT_SUB_BITS - e);
	return (int32_t)((e << CT_STAT_SUB_BITS) | (int32_t)(sub & ((1u << CT_STAT_SUB_BITS) - 1)));
}

/* What ct_stat_add does but for a positive VALUE counted in a bucket that exists. */
void ct_stat_add_other(struct ct_stat *stat, int64_t value);

/*
 * Adds VALUE. Inline: the analyses add a value or more per kernel and per
 * call, most often a positive one in a bucket already counted, in a
 * histogram already in use.
 */
static inline void ct_stat_add(struct ct_stat *stat, int64_t value)
{
	struct ct_stat_buckets *b = &stat->positive;
	uint32_t k;

	if (G_UNLIKELY(stat->count <= CT_STAT_EXACT || value <= 0) ||
	    G_UNLIKELY((k = (uint32_t)(ct_stat_bucket_of((uint64_t)value) - b->first)) >= b->len)) {
		ct_stat_add_other(stat, value);
		return;
	}
	stat->count++;
	if (value < stat->min)
		stat->min = value;
	if (value > stat->max)
		stat->max = value;
	stat->sum = ct_sat_add(stat->sum, value);
	stat->sum_squares += (double)value * (double)value;
	b->counts[k]++;
}

/* Mean, 0 when empty. */
double ct_stat_mean(const struct ct_stat *stat);
/* Population standard deviation, 0 when empty. */
double ct_stat_stddev(const struct ct_stat *stat);
/*
 * The Q-quantile (0 <= Q <= 1), 0 when empty. Exact values: the value of
 * rank Q × (count − 1), interpolated between the two neighbours. From the
 * histogram: within CT_STAT_ACCURACY of the true value, and never outside
 * [min, max].
 */
double ct_stat_quantile(const struct ct_stat *stat, double q);
/* The median: the middle value, or the mean of the two middle ones. */
double ct_stat_median(const struct ct_stat *stat);

/*
 * Writes PREFIX + "count", then PREFIX + "total", "mean", "median", "min",
 * "max" and "stddev" followed by the unit's suffix ("_ns" for
 * CT_UNIT_DURATION, "_bytes" for CT_UNIT_BYTES, none otherwise) into the
 * open object of DOC; the values are null when the statistic is empty.
 */
void ct_stat_write(struct ct_doc *doc, const char *prefix, const struct ct_stat *stat,
                   enum ct_unit unit);

#endif
