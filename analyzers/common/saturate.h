/* SPDX-License-Identifier: MIT */
/*
 * saturate.h - arithmetic on values read from traces. A corrupt trace can
 * hold any value in a size, a time or a count (2^64 - 1 bytes, a GPU
 * interval that ends before it starts), and C's signed arithmetic is
 * undefined where it overflows: sums and differences of such values
 * saturate at the ends of their type instead, and byte counts stay within
 * [0, INT64_MAX].
 */
#ifndef CUDATRACE_ANALYZERS_SATURATE_H
#define CUDATRACE_ANALYZERS_SATURATE_H

#include <stdint.h>

/*
 * A year in ns: no traced call, and no trace, lasts longer; a span beyond
 * it comes of a damaged time (a bit flipped in an event's timestamp).
 */
#define CT_IMPLAUSIBLE_NS (INT64_C(365) * 24 * 3600 * 1000000000)

/* V as a signed count, INT64_MAX when beyond it. */
static inline int64_t ct_sat_i64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

static inline int64_t ct_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static inline int64_t ct_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_sub_overflow(a, b, &r) ? (b < 0 ? INT64_MAX : INT64_MIN) : r;
}

static inline int64_t ct_sat_mul(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_mul_overflow(a, b, &r) ? ((a < 0) != (b < 0) ? INT64_MIN : INT64_MAX) : r;
}

static inline uint64_t ct_sat_add_u64(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A byte count (>= 0) that grows by SIZE bytes, at most INT64_MAX. */
static inline int64_t ct_bytes_add(int64_t bytes, uint64_t size)
{
	return ct_sat_add(bytes, ct_sat_i64(size));
}

/*
 * A byte count that shrinks by SIZE bytes, at least 0: what was added
 * saturated may be taken away whole.
 */
static inline int64_t ct_bytes_sub(int64_t bytes, uint64_t size)
{
	int64_t r = ct_sat_sub(bytes, ct_sat_i64(size));

	return r < 0 ? 0 : r;
}

#endif
