/* SPDX-License-Identifier: MIT */
/*
 * test-peak-bounds.c - the most bytes that can have been live at once
 * (peak-bounds.h), against the truth computed here the slow way: threads
 * whose calls overlap allocate and free, each allocation live from its
 * call's entry and each release done at its call's exit; the events come
 * in the order of their exits, as the accountant reads them. The bound
 * is that curve's maximum exactly while the steps fit, and never below
 * it when they are folded. The regression: a call that began early and
 * returned late, read after a shorter one that began inside the interval
 * of a step (record-threads.sh, exit-join under load, was 512 bytes
 * short).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <glib.h>

#include "model/peak-bounds.h"

/* A traced call: an allocation (BYTES > 0) or the release of one (< 0). */
struct call {
	int64_t entry, exit;
	int64_t bytes;
};

static int by_exit(const void *pa, const void *pb)
{
	const struct call *a = pa, *b = pb;

	return a->exit < b->exit ? -1 : a->exit > b->exit;
}

/* The accountant's way: in the order of their exits. */
static int64_t bound(struct call *calls, size_t n)
{
	struct ct_peak_bounds *b = ct_peak_bounds_new();
	int64_t live = 0, high;

	qsort(calls, n, sizeof(*calls), by_exit);
	for (size_t i = 0; i < n; i++) {
		if (calls[i].bytes > 0)
			ct_peak_bounds_early(b, calls[i].entry, calls[i].bytes);
		live += calls[i].bytes;
		ct_peak_bounds_step(b, calls[i].exit, live);
	}
	high = ct_peak_bounds_high(b);
	ct_peak_bounds_free(b);
	return high;
}

struct change {
	int64_t time, bytes;
};

/* At one time, what is made before what is released: the highest order. */
static int by_time(const void *pa, const void *pb)
{
	const struct change *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return (a->bytes < b->bytes) - (a->bytes > b->bytes);
}

/* The truth: allocations from their entries, releases at their exits, the curve's maximum. */
static int64_t truth(const struct call *calls, size_t n)
{
	struct change *c = g_new(struct change, n);
	int64_t live = 0, high = 0;

	for (size_t i = 0; i < n; i++)
		c[i] = (struct change){ calls[i].bytes > 0 ? calls[i].entry : calls[i].exit,
			                calls[i].bytes };
	qsort(c, n, sizeof(*c), by_time);
	for (size_t i = 0; i < n; i++) {
		live += c[i].bytes;
		if (live > high)
			high = live;
	}
	g_free(c);
	return high;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define THREADS 8
#define HELD    4

/*
 * ROUNDS calls on each of THREADS threads, one after another on each,
 * each thread allocating (512 bytes to 3 MiB) and freeing what it holds
 * (up to HELD at once); calls mostly short, some long (a thread that
 * lost its core), into CALLS; their number.
 */
static size_t churn(uint64_t seed, size_t rounds, struct call *calls)
{
	static const int64_t sizes[] = { 512, 1024, 2048, 4096, 3 << 20 };
	size_t n = 0;

	for (int t = 0; t < THREADS; t++) {
		int64_t held[HELD], now = (int64_t)(next(&seed) % 1000);
		int count = 0;

		for (size_t r = 0; r < rounds; r++) {
			int64_t length = next(&seed) % 16
			                     ? 200 + (int64_t)(next(&seed) % 2000)
			                     : 100000 + (int64_t)(next(&seed) % 3000000);
			struct call *c = &calls[n++];

			c->entry = now;
			c->exit = now + length;
			if (count == HELD || (count && next(&seed) % 2)) {
				int k = (int)(next(&seed) % (uint64_t)count);

				c->bytes = -held[k];
				held[k] = held[--count];
			} else {
				c->bytes = sizes[next(&seed) % G_N_ELEMENTS(sizes)];
				held[count++] = c->bytes;
			}
			now = c->exit + (int64_t)(next(&seed) % 3000);
		}
	}
	return n;
}

static void test_exact_while_kept(void **state)
{
	struct call *calls = g_new(struct call, THREADS * 200);

	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		size_t n = churn(seed * 0x9e3779b97f4a7c15u, 200, calls);
		int64_t want = truth(calls, n);

		assert_int_equal(bound(calls, n), want);
	}
	g_free(calls);
}

static void test_a_bound_once_folded(void **state)
{
	size_t rounds = 4000;
	struct call *calls = g_new(struct call, THREADS * rounds);

	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		size_t n = churn(seed * 0x9e3779b97f4a7c15u, rounds, calls);
		int64_t want = truth(calls, n);

		assert_true(bound(calls, n) >= want);
	}
	g_free(calls);
}

/*
 * A step at 100; an allocation of 2048 whose call began at 150, inside
 * that step's interval, returns at 300, after a release at 200 lowered
 * the curve; then one of 1 MiB whose call began at 50 returns at 400.
 * From 150 to 200 both were live, with all that the release at 200 had
 * not yet freed: the highest moment.
 */
static void test_early_and_late(void **state)
{
	struct call calls[] = {
		{ 0, 10, 4096 },      /* held throughout */
		{ 20, 30, 1024 },     /* released at 200 */
		{ 60, 100, 512 },     /* the step at 100 */
		{ 90, 200, -1024 },   /* the release */
		{ 150, 300, 2048 },   /* began inside the step's interval */
		{ 50, 400, 1 << 20 }, /* began before it, read after */
	};

	(void)state;
	assert_int_equal(truth(calls, G_N_ELEMENTS(calls)), 4096 + 1024 + 512 + 2048 + (1 << 20));
	assert_int_equal(bound(calls, G_N_ELEMENTS(calls)), 4096 + 1024 + 512 + 2048 + (1 << 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_early_and_late),
		cmocka_unit_test(test_exact_while_kept),
		cmocka_unit_test(test_a_bound_once_folded),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
