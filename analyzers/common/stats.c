/* SPDX-License-Identifier: MIT */
/*
 * stats.c - bounded-memory summary statistics: exact values first, then a
 * log-linear histogram with a guaranteed relative error (see stats.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract/assert.h"
#include "stats.h"
#include "saturate.h"

/* The value that stands for bucket I: its midpoint. */
static double bucket_value(int32_t i)
{
	int e = i >> CT_STAT_SUB_BITS;
	double sub = (double)(i & ((1 << CT_STAT_SUB_BITS) - 1));
	double low = ldexp(1 + sub / (1 << CT_STAT_SUB_BITS), e);
	double width = ldexp(1.0 / (1 << CT_STAT_SUB_BITS), e);

	/* below 2^SUB a bucket holds one integer */
	if (e < CT_STAT_SUB_BITS)
		return low;
	return low + (width - 1) / 2;
}

void ct_stat_init(struct ct_stat *stat)
{
	memset(stat, 0, sizeof(*stat));
}

void ct_stat_release(struct ct_stat *stat)
{
	g_free(stat->positive.counts);
	g_free(stat->negative.counts);
	ct_stat_init(stat);
}

/* Widens B to hold bucket I; the new buckets are empty. */
static G_GNUC_NO_INLINE void buckets_reserve(struct ct_stat_buckets *b, int32_t i)
{
	if (!b->counts) {
		b->counts = g_new0(uint64_t, 1);
		b->first = i;
		b->len = 1;
	} else if (i < b->first) {
		uint32_t more = (uint32_t)(b->first - i);

		/* the new ones at the front: grow, shift, clear */
		b->counts = g_renew(uint64_t, b->counts, b->len + more);
		memmove(b->counts + more, b->counts, b->len * sizeof(uint64_t));
		memset(b->counts, 0, more * sizeof(uint64_t));
		b->first = i;
		b->len += more;
	} else if ((uint32_t)(i - b->first) >= b->len) {
		uint32_t len = (uint32_t)(i - b->first) + 1;

		b->counts = g_renew(uint64_t, b->counts, len);
		memset(b->counts + b->len, 0, (len - b->len) * sizeof(uint64_t));
		b->len = len;
	}
}

/* Counts VALUE in the histogram. */
static void histogram_add(struct ct_stat *stat, int64_t value)
{
	struct ct_stat_buckets *b;
	int32_t i;

	if (value == 0) {
		stat->zeros++;
		return;
	}
	b = value > 0 ? &stat->positive : &stat->negative;
	i = ct_stat_bucket_of(value > 0 ? (uint64_t)value : -(uint64_t)value);
	if ((uint32_t)(i - b->first) >= b->len)
		buckets_reserve(b, i);
	CT_ASSERT_DBG(i >= b->first && (uint32_t)(i - b->first) < b->len);
	b->counts[i - b->first]++;
}

/* The exact values move into the histogram, once. */
static G_GNUC_NO_INLINE void histogram_begin(struct ct_stat *stat)
{
	for (size_t i = 0; i < CT_STAT_EXACT; i++)
		histogram_add(stat, stat->exact[i]);
}

void ct_stat_add_other(struct ct_stat *stat, int64_t value)
{
	if (G_UNLIKELY(stat->count == 0))
		stat->min = stat->max = value;
	else if (value < stat->min)
		stat->min = value;
	else if (value > stat->max)
		stat->max = value;
	stat->sum = ct_sat_add(stat->sum, value);
	stat->sum_squares += (double)value * (double)value;
	if (stat->count <= CT_STAT_EXACT) {
		if (stat->count < CT_STAT_EXACT) {
			stat->exact[stat->count++] = value;
			return;
		}
		histogram_begin(stat);
	}
	stat->count++;
	histogram_add(stat, value);
}

double ct_stat_mean(const struct ct_stat *stat)
{
	return stat->count ? (double)stat->sum / (double)stat->count : 0;
}

double ct_stat_stddev(const struct ct_stat *stat)
{
	double mean, variance;

	if (!stat->count)
		return 0;
	mean = ct_stat_mean(stat);
	variance = stat->sum_squares / (double)stat->count - mean * mean;
	return variance > 0 ? sqrt(variance) : 0;
}

static int by_value(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
}

static double exact_quantile(const struct ct_stat *stat, double q)
{
	int64_t sorted[CT_STAT_EXACT];
	double rank = q * (double)(stat->count - 1);
	size_t below = (size_t)floor(rank);
	size_t above = (size_t)ceil(rank);

	CT_ASSERT(stat->count >= 1 && stat->count <= CT_STAT_EXACT);
	memcpy(sorted, stat->exact, stat->count * sizeof(*sorted));
	qsort(sorted, stat->count, sizeof(*sorted), by_value);
	return (double)sorted[below] +
	       (rank - (double)below) * ((double)sorted[above] - (double)sorted[below]);
}

/*
 * Walks the histogram in value order (negative buckets from the largest
 * magnitude down, zeros, positive buckets up) to the bucket holding RANK.
 */
static double histogram_at(const struct ct_stat *stat, uint64_t rank)
{
	const struct ct_stat_buckets *neg = &stat->negative, *pos = &stat->positive;
	uint64_t seen = 0;

	for (uint32_t k = neg->len; k-- > 0;) {
		seen += neg->counts[k];
		if (seen > rank)
			return -bucket_value(neg->first + (int32_t)k);
	}
	seen += stat->zeros;
	if (seen > rank)
		return 0;
	for (uint32_t k = 0; k < pos->len; k++) {
		seen += pos->counts[k];
		if (seen > rank)
			return bucket_value(pos->first + (int32_t)k);
	}
	return (double)stat->max;
}

double ct_stat_quantile(const struct ct_stat *stat, double q)
{
	double value;

	if (!stat->count)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	if (stat->count <= CT_STAT_EXACT)
		return exact_quantile(stat, q);
	/* the ends are known exactly */
	if (q == 0)
		return (double)stat->min;
	if (q == 1)
		return (double)stat->max;
	value = histogram_at(stat, (uint64_t)floor(q * (double)(stat->count - 1)));
	if (value < (double)stat->min)
		value = (double)stat->min;
	if (value > (double)stat->max)
		value = (double)stat->max;
	return value;
}

double ct_stat_median(const struct ct_stat *stat)
{
	return ct_stat_quantile(stat, 0.5);
}

static const char *unit_suffix(enum ct_unit unit)
{
	switch (unit) {
	case CT_UNIT_DURATION:
		return "_ns";
	case CT_UNIT_BYTES:
		return "_bytes";
	default:
		return "";
	}
}

/*
 * The key PREFIX NAME SUFFIX, in KEY; false, after writing null under it,
 * when the statistic is empty.
 */
static bool value_key(struct ct_doc *doc, char *key, size_t len, const char *prefix,
                      const char *name, const struct ct_stat *stat, enum ct_unit unit)
{
	snprintf(key, len, "%s%s%s", prefix, name, unit_suffix(unit));
	if (!stat->count)
		ct_doc_null(doc, key);
	return stat->count != 0;
}

/* Writes PREFIX NAME SUFFIX = VALUE (null when the statistic is empty). */
static void write_value(struct ct_doc *doc, const char *prefix, const char *name,
                        const struct ct_stat *stat, double value, enum ct_unit unit)
{
	char key[96];

	if (value_key(doc, key, sizeof(key), prefix, name, stat, unit))
		ct_doc_double(doc, key, value, unit);
}

static void write_integer(struct ct_doc *doc, const char *prefix, const char *name,
                          const struct ct_stat *stat, int64_t value, enum ct_unit unit)
{
	char key[96];

	if (value_key(doc, key, sizeof(key), prefix, name, stat, unit))
		ct_doc_i64(doc, key, value, unit);
}

void ct_stat_write(struct ct_doc *doc, const char *prefix, const struct ct_stat *stat,
                   enum ct_unit unit)
{
	char key[96];

	snprintf(key, sizeof(key), "%scount", prefix);
	ct_doc_u64(doc, key, stat->count, CT_UNIT_NONE);
	write_integer(doc, prefix, "total", stat, stat->sum, unit);
	write_value(doc, prefix, "mean", stat, ct_stat_mean(stat), unit);
	write_value(doc, prefix, "median", stat, ct_stat_median(stat), unit);
	write_integer(doc, prefix, "min", stat, stat->min, unit);
	write_integer(doc, prefix, "max", stat, stat->max, unit);
	write_value(doc, prefix, "stddev", stat, ct_stat_stddev(stat), unit);
}
