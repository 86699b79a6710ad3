/* SPDX-License-Identifier: MIT */
/*
 * test-stats.c - the helpers under the transfers, kernels and api
 * analyses: bounded statistics (exact, then within 1 %), the GPU busy
 * timeline with its reorder window and probes, and the correlation map.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/corr-map.h"
#include "common/memo.h"
#include "common/ring.h"
#include "model/gpu-timeline.h"
#include "common/stats.h"

static void test_exact_statistics(void **unused)
{
	struct ct_stat stat;

	ct_stat_init(&stat);
	assert_true(ct_stat_median(&stat) == 0);
	ct_stat_add(&stat, 5);
	ct_stat_add(&stat, 1);
	ct_stat_add(&stat, 3);
	assert_true(ct_stat_median(&stat) == 3);
	ct_stat_add(&stat, 7);
	assert_int_equal(stat.count, 4);
	assert_int_equal(stat.sum, 16);
	assert_true(ct_stat_mean(&stat) == 4);
	assert_true(ct_stat_median(&stat) == 4);
	assert_int_equal(stat.min, 1);
	assert_int_equal(stat.max, 7);
	assert_true(fabs(ct_stat_stddev(&stat) - sqrt(5)) < 1e-9);
	assert_true(ct_stat_quantile(&stat, 0) == 1);
	assert_true(ct_stat_quantile(&stat, 1) == 7);
	ct_stat_release(&stat);
}

static void test_sketch_accuracy(void **unused)
{
	struct ct_stat stat;

	ct_stat_init(&stat);
	for (int64_t v = 1; v <= 100000; v++)
		ct_stat_add(&stat, v);
	assert_true(ct_stat_mean(&stat) == 50000.5);
	assert_int_equal(stat.min, 1);
	assert_int_equal(stat.max, 100000);
	assert_true(fabs(ct_stat_median(&stat) - 50000.5) < 50000.5 * CT_STAT_ACCURACY);
	assert_true(fabs(ct_stat_quantile(&stat, 0.99) - 99000) < 99000 * CT_STAT_ACCURACY);
	assert_true(ct_stat_quantile(&stat, 1) == 100000);
	ct_stat_release(&stat);
}

/* A million values between 1 and 10 µs cost about 220 counters. */
static void test_sketch_is_bounded(void **unused)
{
	struct ct_stat stat;

	ct_stat_init(&stat);
	for (int64_t i = 0; i < 1000000; i++)
		ct_stat_add(&stat, 1000 + (i * 7919) % 9000);
	assert_true(stat.positive.len < 256);
	assert_null(stat.negative.counts);
	assert_true(fabs(ct_stat_median(&stat) - 5500) < 5500 * CT_STAT_ACCURACY);
	ct_stat_release(&stat);
}

/* Negative values (a GPU clock a little behind the host's) and zeros keep their order. */
static void test_sketch_signs(void **unused)
{
	struct ct_stat stat;

	ct_stat_init(&stat);
	for (int i = 0; i < 100; i++) {
		ct_stat_add(&stat, -1000);
		ct_stat_add(&stat, 0);
		ct_stat_add(&stat, 1000);
	}
	assert_true(ct_stat_median(&stat) == 0);
	assert_true(fabs(ct_stat_quantile(&stat, 0.1) + 1000) <= 1000 * CT_STAT_ACCURACY);
	assert_true(fabs(ct_stat_quantile(&stat, 0.9) - 1000) <= 1000 * CT_STAT_ACCURACY);
	ct_stat_release(&stat);
}

struct answers {
	int64_t busy[8];
	int count;
};

static void on_answer(void *data, const struct ct_gpu_probe *probe)
{
	struct answers *a = data;

	a->busy[probe->tag] = probe->busy_ns;
	a->count++;
}

static void test_timeline(void **unused)
{
	struct ct_gpu_timeline tl;
	struct answers answers = { { 0 }, 0 };

	ct_gpu_timeline_init(&tl, 4);
	ct_gpu_timeline_probe(&tl, 0 + 100, 60 + 100, on_answer, &answers, 0);
	ct_gpu_timeline_probe(&tl, 5 + 100, 12 + 100, on_answer, &answers, 1);
	/* out of order, overlapping */
	ct_gpu_timeline_add(&tl, 50 + 100, 70 + 100);
	ct_gpu_timeline_add(&tl, 10 + 100, 20 + 100);
	ct_gpu_timeline_add(&tl, 15 + 100, 30 + 100);
	ct_gpu_timeline_add(&tl, 0, 5);     /* untimed start: ignored */
	ct_gpu_timeline_add(&tl, 130, 120); /* reversed: ignored */
	ct_gpu_timeline_finish(&tl);
	assert_int_equal(tl.intervals, 3);
	assert_int_equal(tl.busy_ns, 40);
	assert_int_equal(tl.first_ns, 110);
	assert_int_equal(tl.run_end, 170);
	assert_int_equal(tl.gap_count, 1);
	assert_int_equal(tl.gaps[0].start, 130);
	assert_int_equal(tl.gaps[0].end, 150);
	assert_int_equal(answers.count, 2);
	assert_int_equal(answers.busy[0], 20 + 10);
	assert_int_equal(answers.busy[1], 2);
	/* the busy series covers the busy time exactly */
	{
		int64_t sum = 0;

		for (guint i = 0; i < tl.series.busy->len; i++)
			sum += g_array_index(tl.series.busy, int64_t, i);
		assert_int_equal(sum, 40);
		assert_true(tl.series.busy->len <= 4);
	}
	ct_gpu_timeline_release(&tl);
}

/* More intervals than the reorder window: merged as they go, with the same result. */
static void test_timeline_window(void **unused)
{
	struct ct_gpu_timeline tl;
	const int64_t n = 3 * CT_GPU_REORDER_MAX;

	ct_gpu_timeline_init(&tl, 64);
	for (int64_t i = 0; i < n; i++)
		ct_gpu_timeline_add(&tl, 1000 + i * 100, 1000 + i * 100 + 60);
	assert_true(ct_ring_count(&tl.waiting) <= CT_GPU_REORDER_MAX);
	ct_gpu_timeline_finish(&tl);
	assert_int_equal(tl.busy_ns, n * 60);
	assert_int_equal(tl.gap_count, n - 1);
	assert_int_equal(tl.gap_ns, (n - 1) * 40);
	assert_int_equal(tl.late, 0);
	assert_true(tl.series.busy->len <= 64);
	ct_gpu_timeline_release(&tl);
}

/*
 * A record held back longer than the reorder window arrives after later
 * ones were merged: it is counted as late (its time, in the past, is lost)
 * and the window widens to twice that disorder, so that the next records
 * as late as that are put in order.
 */
static void test_timeline_disorder(void **unused)
{
	const int64_t ms = 1000000;
	struct ct_gpu_timeline tl;

	ct_gpu_timeline_init(&tl, 16);
	for (int64_t i = 0; i < 100; i++)
		ct_gpu_timeline_add(&tl, 100 * ms + i * ms, 100 * ms + i * ms + ms / 2);
	/* 4.5 ms behind the newest start, with a window of 1 ms: too late */
	ct_gpu_timeline_add(&tl, 194 * ms + ms / 2, 194 * ms + ms * 3 / 4);
	assert_int_equal(tl.window_ns, 9 * ms);
	for (int64_t i = 100; i < 110; i++)
		ct_gpu_timeline_add(&tl, 100 * ms + i * ms, 100 * ms + i * ms + ms / 2);
	assert_int_equal(tl.late, 1);
	/* 3.5 ms behind: inside the widened window, put in order */
	ct_gpu_timeline_add(&tl, 205 * ms + ms / 2, 205 * ms + ms * 3 / 4);
	ct_gpu_timeline_finish(&tl);
	assert_int_equal(tl.late, 1);
	assert_int_equal(tl.gap_count, 109);
	assert_int_equal(tl.busy_ns, 110 * ms / 2 + ms / 4);
	ct_gpu_timeline_release(&tl);
}

/*
 * Each bucket of the busy series holds the busy time inside it: short
 * intervals in one bucket, others across a bucket's end, while the
 * buckets widen, checked against the overlap of every interval with every
 * bucket.
 */
static void test_timeline_series_buckets(void **unused)
{
	struct ct_gpu_timeline tl;
	int64_t starts[600], ends[600];
	size_t n = 0;

	ct_gpu_timeline_init(&tl, 8);
	for (int64_t t = 1000; n < G_N_ELEMENTS(starts); t += 13 + (int64_t)(n % 7) * 5) {
		/* mostly 3 ns; every ninth long enough to cross a bucket */
		int64_t length = n % 9 == 8 ? 40 + (int64_t)n : 3;

		starts[n] = t;
		ends[n] = t + length;
		ct_gpu_timeline_add(&tl, starts[n], ends[n]);
		t = ends[n];
		n++;
	}
	ct_gpu_timeline_finish(&tl);
	assert_true(tl.series.busy->len <= 8);
	for (guint k = 0; k < tl.series.busy->len; k++) {
		int64_t from = tl.series.origin_ns + (int64_t)k * tl.series.width_ns;
		int64_t to = from + tl.series.width_ns, want = 0;

		for (size_t i = 0; i < n; i++) {
			int64_t a = starts[i] > from ? starts[i] : from;
			int64_t b = ends[i] < to ? ends[i] : to;

			want += b > a ? b - a : 0;
		}
		assert_int_equal(g_array_index(tl.series.busy, int64_t, k), want);
	}
	ct_gpu_timeline_release(&tl);
}

/* A ring keeps its items in order while it wraps round its slots and grows wrapped. */
/* The memo keeps a value per place, the last key's; a miss is NULL. */
static void test_memo(void **unused)
{
	struct ct_memo memo = { 0 };
	int values[3];
	uint64_t key = 7, other = 7;

	(void)unused;
	assert_null(ct_memo_find(&memo, key));
	ct_memo_keep(&memo, key, &values[0]);
	assert_ptr_equal(ct_memo_find(&memo, key), &values[0]);
	/* another key of the same place replaces it */
	do
		other++;
	while (ct_memo_place(other) != ct_memo_place(key));
	assert_null(ct_memo_find(&memo, other));
	ct_memo_keep(&memo, other, &values[1]);
	assert_ptr_equal(ct_memo_find(&memo, other), &values[1]);
	assert_null(ct_memo_find(&memo, key));
	/* keys of other places stay; NULL is not kept */
	ct_memo_keep(&memo, key + 1, &values[2]);
	ct_memo_keep(&memo, key + 1, NULL);
	assert_ptr_equal(ct_memo_find(&memo, key + 1), &values[2]);
	assert_ptr_equal(ct_memo_find(&memo, other), &values[1]);
	/* a kernel id of FNV-1a, 64 bits, is told from one that shares its place */
	ct_memo_keep(&memo, UINT64_C(0xcbf29ce484222325), &values[0]);
	assert_int_equal(ct_memo_place(UINT64_C(0xcbf29ce484222325)),
	                 ct_memo_place(UINT64_C(0xcbf29ce484222325) ^ UINT64_C(1) << 46));
	assert_null(ct_memo_find(&memo, UINT64_C(0xcbf29ce484222325) ^ UINT64_C(1) << 46));
	ct_memo_clear(&memo);
	assert_null(ct_memo_find(&memo, key + 1));
	assert_null(ct_memo_find(&memo, other));
}

static void test_ring(void **unused)
{
	struct ct_ring ring;
	uint64_t front = 0, back = 0;

	ct_ring_init(&ring, sizeof(uint64_t));
	/* pushes and drops interleaved, so the front moves round the slots */
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 37 + round * 3; i++)
			*(uint64_t *)ct_ring_push(&ring) = back++;
		for (int i = 0; i < 30 + round; i++) {
			assert_int_equal(*(uint64_t *)ct_ring_at(&ring, 0), front++);
			ct_ring_drop_front(&ring);
		}
		assert_int_equal(ct_ring_count(&ring), back - front);
		for (size_t i = 0; i < ct_ring_count(&ring); i++)
			assert_int_equal(*(uint64_t *)ct_ring_at(&ring, i), front + i);
	}
	assert_true(ring.capacity >= ct_ring_count(&ring));
	assert_int_equal(ring.capacity & (ring.capacity - 1), 0);
	ct_ring_release(&ring);
	(void)unused;
}

struct entry {
	struct ct_corr_entry head;
	int value;
};

static void test_corr_map(void **unused)
{
	struct ct_corr_map map;
	struct entry *e;

	ct_corr_map_init(&map, sizeof(struct entry));
	/* many waiting at once: the map grows instead of losing them */
	for (uint32_t id = 1; id <= 3000; id++) {
		e = ct_corr_map_insert(&map, id, 0);
		assert_non_null(e);
		e->value = (int)id;
	}
	assert_int_equal(ct_corr_map_waiting(&map), 3000);
	assert_int_equal(map.evicted, 0);
	assert_true(map.capacity >= 4096);
	for (uint32_t id = 1; id <= 3000; id++) {
		e = ct_corr_map_find(&map, id);
		assert_non_null(e);
		assert_int_equal(e->value, (int)id);
		if (id > 10)
			ct_corr_map_remove(&map, e);
	}
	assert_null(ct_corr_map_find(&map, 3001));
	assert_int_equal(ct_corr_map_waiting(&map), 10);
	/* a few that never get their record are evicted by much later ids, once
	 * they have waited longer than any record takes to come; not grown for */
	for (uint32_t id = 3001; id <= 3001 + 2 * (uint32_t)map.capacity; id++) {
		e = ct_corr_map_insert(&map, id, CT_CORR_MAP_PATIENCE_NS);
		ct_corr_map_remove(&map, e);
	}
	assert_int_equal(map.evicted, 10);
	assert_int_equal(ct_corr_map_waiting(&map), 0);
	/* an id seen again replaces its entry */
	e = ct_corr_map_insert(&map, 9000, CT_CORR_MAP_PATIENCE_NS);
	e->value = 1;
	e = ct_corr_map_insert(&map, 9000, CT_CORR_MAP_PATIENCE_NS);
	assert_int_equal(e->value, 0);
	assert_int_equal(ct_corr_map_waiting(&map), 1);
	assert_int_equal(map.evicted, 10);
	ct_corr_map_release(&map);
}

/* Entries that wait no more, or evicted, are used again, zeroed; the
 * others stay put, and removing one twice changes nothing. */
static void test_corr_map_reuse(void **unused)
{
	struct ct_corr_map map;
	struct entry *a, *b, *c;

	(void)unused;
	ct_corr_map_init(&map, sizeof(struct entry));
	a = ct_corr_map_insert(&map, 1, 0);
	a->value = 11;
	b = ct_corr_map_insert(&map, 2, 0);
	b->value = 22;
	ct_corr_map_remove(&map, a);
	c = ct_corr_map_insert(&map, 3, 0);
	assert_ptr_equal(c, a);
	assert_int_equal(c->value, 0);
	assert_int_equal(c->head.correlation_id, 3);
	assert_ptr_equal(ct_corr_map_find(&map, 2), b);
	assert_int_equal(b->value, 22);
	ct_corr_map_remove(&map, b);
	ct_corr_map_remove(&map, b);
	assert_int_equal(ct_corr_map_waiting(&map), 1);
	/* id 3 + capacity, a minute later, takes slot 3: the old entry is evicted, recycled */
	c->value = 33;
	a = ct_corr_map_insert(&map, 3 + (uint32_t)map.capacity, CT_CORR_MAP_PATIENCE_NS);
	assert_int_equal(map.evicted, 1);
	assert_int_equal(a->value, 0);
	assert_null(ct_corr_map_find(&map, 3));
	assert_ptr_equal(ct_corr_map_find(&map, 3 + (uint32_t)map.capacity), a);
	assert_int_equal(ct_corr_map_waiting(&map), 1);
	ct_corr_map_release(&map);
}

/*
 * A loop's entries are removed in the order of their ids, and taken again
 * in that order: the entries of consecutive ids stay side by side, round
 * after round, as their slots are (a stream of records reads both in order).
 */
static void test_corr_map_in_order(void **unused)
{
	struct ct_corr_map map;
	char *prev = NULL;

	(void)unused;
	ct_corr_map_init(&map, sizeof(struct entry));
	for (uint32_t round = 0; round < 4; round++) {
		for (uint32_t i = 1; i <= 1000; i++) {
			char *e = ct_corr_map_insert(&map, round * 1000 + i, 0);

			if (i > 1)
				assert_ptr_equal(e, prev + map.entry_size);
			prev = e;
		}
		for (uint32_t i = 1; i <= 1000; i++)
			ct_corr_map_remove(&map, ct_corr_map_find(&map, round * 1000 + i));
	}
	assert_int_equal(ct_corr_map_waiting(&map), 0);
	ct_corr_map_release(&map);
}

/*
 * A framework makes thousands of calls between two launches, and CUPTI
 * hands the records over at its next flush: launches whose ids are far
 * apart, few of them waiting, all get their records within the patience.
 */
static void test_corr_map_sparse(void **unused)
{
	struct ct_corr_map map;
	struct entry *e;

	(void)unused;
	ct_corr_map_init(&map, sizeof(struct entry));
	for (uint32_t id = 75; id < 75 + 13 * 2000; id += 13) {
		e = ct_corr_map_insert(&map, id, (int64_t)id * 1000);
		e->value = (int)id;
	}
	assert_int_equal(map.evicted, 0);
	assert_int_equal(ct_corr_map_waiting(&map), 2000);
	for (uint32_t id = 75; id < 75 + 13 * 2000; id += 13) {
		e = ct_corr_map_find(&map, id);
		assert_non_null(e);
		assert_int_equal(e->value, (int)id);
		ct_corr_map_remove(&map, e);
	}
	assert_int_equal(ct_corr_map_waiting(&map), 0);
	ct_corr_map_release(&map);
}

/* Whether the map's counts of the ids set aside, by their low bits, are
 * those of the entries set aside. */
static bool aside_counted(const struct ct_corr_map *map)
{
	uint32_t counts[CT_CORR_MAP_ASIDE_BITS] = { 0 };
	GHashTableIter iter;
	gpointer key, value;

	if (map->aside) {
		g_hash_table_iter_init(&iter, map->aside);
		while (g_hash_table_iter_next(&iter, &key, &value))
			counts[GPOINTER_TO_UINT(key) % CT_CORR_MAP_ASIDE_BITS]++;
	}
	return memcmp(counts, map->aside_by_bits, sizeof(counts)) == 0;
}

/*
 * A loop of two million copies of which a dozen never get their record:
 * each is set aside when a newer id wants its slot, and the map stays at
 * its first size (it grew to its maximum, 8 MiB of slots, when such
 * stragglers kept their slots).
 */
static void test_corr_map_stragglers(void **unused)
{
	struct ct_corr_map map;
	struct entry *e;

	(void)unused;
	ct_corr_map_init(&map, sizeof(struct entry));
	for (uint32_t id = 1; id <= 2000000; id++) {
		e = ct_corr_map_insert(&map, id, (int64_t)id * 5000);
		e->value = (int)id;
		if (id % 150000 != 0)
			ct_corr_map_remove(&map, e);
	}
	assert_int_equal(ct_corr_map_waiting(&map), 13);
	assert_int_equal(map.evicted, 0);
	assert_int_equal(map.capacity, CT_CORR_MAP_INITIAL);
	/* one seen again is replaced */
	e = ct_corr_map_insert(&map, 300000, 10000000000);
	assert_int_equal(e->value, 0);
	assert_ptr_equal(ct_corr_map_find(&map, 300000), e);
	assert_int_equal(ct_corr_map_waiting(&map), 13);
	ct_corr_map_remove(&map, e);
	assert_null(ct_corr_map_find(&map, 300000));
	assert_int_equal(ct_corr_map_waiting(&map), 12);
	/* their records may still come */
	e = ct_corr_map_find(&map, 150000);
	assert_non_null(e);
	assert_int_equal(e->value, 150000);
	ct_corr_map_remove(&map, e);
	assert_null(ct_corr_map_find(&map, 150000));
	ct_corr_map_remove(&map, e);
	assert_int_equal(ct_corr_map_waiting(&map), 11);
	assert_true(aside_counted(&map));
	ct_corr_map_release(&map);
}

/*
 * At its maximum, full of entries that may still get their record, the
 * map sets a quarter of its capacity aside, then gives up the entry in
 * the newcomer's slot; at once if it has waited too long.
 */
static void test_corr_map_full(void **unused)
{
	const uint32_t max = CT_CORR_MAP_MAX, quarter = CT_CORR_MAP_MAX / 4;
	struct ct_corr_map map;

	(void)unused;
	ct_corr_map_init(&map, sizeof(struct entry));
	for (uint32_t id = 1; id <= max; id++)
		ct_corr_map_insert(&map, id, 0);
	assert_int_equal(map.capacity, max);
	assert_int_equal(ct_corr_map_waiting(&map), max);
	for (uint32_t id = max + 1; id <= max + quarter; id++)
		ct_corr_map_insert(&map, id, 1);
	assert_int_equal(map.evicted, 0);
	assert_int_equal(ct_corr_map_waiting(&map), max + quarter);
	assert_non_null(ct_corr_map_find(&map, 1));
	ct_corr_map_insert(&map, max + quarter + 1, 2);
	assert_int_equal(map.evicted, 1);
	assert_null(ct_corr_map_find(&map, quarter + 1));
	assert_int_equal(ct_corr_map_waiting(&map), max + quarter);
	ct_corr_map_insert(&map, max + quarter + 2, CT_CORR_MAP_PATIENCE_NS);
	assert_int_equal(map.evicted, 2);
	assert_null(ct_corr_map_find(&map, quarter + 2));
	assert_non_null(ct_corr_map_find(&map, max + quarter + 2));
	assert_true(aside_counted(&map));
	/* the entries set aside leave it as their records come */
	for (uint32_t id = 1; id <= quarter; id++)
		ct_corr_map_remove(&map, ct_corr_map_find(&map, id));
	assert_true(aside_counted(&map));
	assert_int_equal(g_hash_table_size(map.aside), 0);
	ct_corr_map_release(&map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_statistics),
		cmocka_unit_test(test_sketch_accuracy),
		cmocka_unit_test(test_sketch_is_bounded),
		cmocka_unit_test(test_sketch_signs),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_timeline_window),
		cmocka_unit_test(test_timeline_disorder),
		cmocka_unit_test(test_timeline_series_buckets),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_memo),
		cmocka_unit_test(test_corr_map),
		cmocka_unit_test(test_corr_map_reuse),
		cmocka_unit_test(test_corr_map_in_order),
		cmocka_unit_test(test_corr_map_sparse),
		cmocka_unit_test(test_corr_map_stragglers),
		cmocka_unit_test(test_corr_map_full),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
