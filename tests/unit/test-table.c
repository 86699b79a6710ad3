/* SPDX-License-Identifier: MIT */
/*
 * test-table.c - libtrace's hash table (libtrace/table.c): lock-free claims
 * (each key claimed once, however many threads race for it; a full table
 * says so), and the locked table: growth, several values per key,
 * removal that keeps every other key reachable (against a model), the
 * bound on keys, and lock-free reads that never see a value half written
 * while writers add, remove and grow.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "table.h"

/* ---------------------------------------------------------------- claims */

TABLE_FIXED(claims, 1024);
TABLE_FIXED(tiny, 8);

static void test_claim_once(void **state)
{
	(void)state;
	table_clear(&claims);
	assert_false(table_contains(&claims, 42, 1024));
	assert_int_equal(table_claim(&claims, 42, 1024), TABLE_CLAIMED);
	assert_int_equal(table_claim(&claims, 42, 1024), TABLE_PRESENT);
	assert_true(table_contains(&claims, 42, 1024));
	assert_int_equal(table_claim(&claims, 43, 1024), TABLE_CLAIMED);
	assert_true(table_contains(&claims, 43, 1024));
	/* Cleared: every key can be claimed again. */
	table_clear(&claims);
	assert_false(table_contains(&claims, 42, 1024));
	assert_int_equal(table_claim(&claims, 42, 1024), TABLE_CLAIMED);
	assert_int_equal(table_claim(&claims, 43, 1024), TABLE_CLAIMED);
}

static void test_claim_full(void **state)
{
	(void)state;
	table_clear(&tiny);
	for (uint64_t key = 1; key <= 8; key++)
		assert_int_equal(table_claim(&tiny, key, 8), TABLE_CLAIMED);
	for (uint64_t key = 1; key <= 8; key++)
		assert_int_equal(table_claim(&tiny, key, 8), TABLE_PRESENT);
	assert_int_equal(table_claim(&tiny, 9, 8), TABLE_FULL);
	assert_false(table_contains(&tiny, 9, 8));
	/* Fewer probes than the table's slots: full sooner. */
	table_clear(&tiny);
	assert_int_equal(table_claim(&tiny, 1, 1), TABLE_CLAIMED);
	for (uint64_t key = 2; key < 100; key++) {
		enum table_claim c = table_claim(&tiny, key, 1);

		assert_true(c == TABLE_CLAIMED || c == TABLE_FULL);
	}
}

#define CLAIMERS   4
#define CLAIM_KEYS 600

struct claimer {
	pthread_barrier_t *start;
	unsigned claimed[CLAIM_KEYS];
};

static void *claim_all(void *arg)
{
	struct claimer *c = arg;

	pthread_barrier_wait(c->start);
	for (uint64_t key = 1; key <= CLAIM_KEYS; key++)
		c->claimed[key - 1] = table_claim(&claims, key * 0x10000, 1024) == TABLE_CLAIMED;
	return NULL;
}

/* Threads racing for the same keys: each key is claimed by exactly one. */
static void test_claim_race(void **state)
{
	static struct claimer claimers[CLAIMERS];
	pthread_t threads[CLAIMERS];
	pthread_barrier_t start;

	(void)state;
	table_clear(&claims);
	pthread_barrier_init(&start, NULL, CLAIMERS);
	for (int i = 0; i < CLAIMERS; i++) {
		claimers[i].start = &start;
		assert_int_equal(pthread_create(&threads[i], NULL, claim_all, &claimers[i]), 0);
	}
	for (int i = 0; i < CLAIMERS; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&start);
	for (int key = 0; key < CLAIM_KEYS; key++) {
		unsigned winners = 0;

		for (int i = 0; i < CLAIMERS; i++)
			winners += claimers[i].claimed[key];
		assert_int_equal(winners, 1);
	}
}

/* ------------------------------------------------------------- locked */

static bool value_is(const uint64_t *value, const void *ctx)
{
	return value[0] == *(const uint64_t *)ctx;
}

static void add(struct table *t, uint64_t key, uint64_t v0, uint64_t v1)
{
	const uint64_t value[2] = { v0, v1 };

	table_lock(t);
	assert_true(table_add(t, key, value));
	table_unlock(t);
}

static void test_add_find_remove(void **state)
{
	struct table t = TABLE_INIT(2, 1000);
	uint64_t out[2];

	(void)state;
	assert_false(table_read(&t, 7, NULL, NULL, out)); /* no array yet */
	add(&t, 7, 70, 71);
	add(&t, 8, 80, 81);
	assert_int_equal(table_count(&t), 2);
	assert_true(table_read(&t, 7, NULL, NULL, out));
	assert_int_equal(out[0], 70);
	assert_int_equal(out[1], 71);
	assert_false(table_read(&t, 9, NULL, NULL, out));
	table_lock(&t);
	assert_true(table_find(&t, 8, NULL, NULL, out));
	assert_int_equal(out[1], 81);
	assert_true(table_remove(&t, 7, NULL, NULL, out));
	assert_int_equal(out[0], 70);
	assert_false(table_remove(&t, 7, NULL, NULL, NULL));
	assert_false(table_add(&t, 0, NULL)); /* 0 is not a key */
	table_unlock(&t);
	assert_int_equal(table_count(&t), 1);
	assert_false(table_read(&t, 7, NULL, NULL, out));
	assert_true(table_read(&t, 8, NULL, NULL, out));
	/* The first words only. */
	out[0] = out[1] = 0;
	assert_true(table_read_first(&t, 8, NULL, NULL, out, 1));
	assert_int_equal(out[0], 80);
	assert_int_equal(out[1], 0);
	/* The change of a value in place. */
	table_lock(&t);
	assert_true(table_replace(&t, 8, NULL, NULL, (const uint64_t[]){ 82, 83 }));
	assert_false(table_replace(&t, 7, NULL, NULL, (const uint64_t[]){ 1, 2 }));
	table_unlock(&t);
	assert_true(table_read(&t, 8, NULL, NULL, out));
	assert_int_equal(out[0], 82);
	assert_int_equal(out[1], 83);
	assert_int_equal(table_count(&t), 1);
	table_release(&t);
}

/* Several values under one key; match picks. */
static void test_multimap(void **state)
{
	struct table t = TABLE_INIT(2, 1000);
	uint64_t want = 30, out[2];

	(void)state;
	add(&t, 5, 10, 1);
	add(&t, 5, 20, 2);
	add(&t, 5, 30, 3);
	add(&t, 6, 30, 4);
	assert_true(table_read(&t, 5, value_is, &want, out));
	assert_int_equal(out[1], 3);
	table_lock(&t);
	want = 20;
	assert_true(table_remove(&t, 5, value_is, &want, out));
	assert_int_equal(out[1], 2);
	assert_false(table_find(&t, 5, value_is, &want, NULL));
	want = 10;
	assert_true(table_find(&t, 5, value_is, &want, out));
	want = 30;
	assert_true(table_find(&t, 5, value_is, &want, out));
	assert_int_equal(out[1], 3);
	table_unlock(&t);
	table_release(&t);
}

static bool count_visit(uint64_t key, const uint64_t *value, void *ctx)
{
	uint64_t *sum = ctx;

	assert_int_equal(value[0], key * 2);
	sum[0]++;
	sum[1] += key;
	return sum[0] < sum[2];
}

/* Many keys: the table grows, and keeps each. */
static void test_growth_and_each(void **state)
{
	struct table t = TABLE_INIT(1, 100000);
	uint64_t out, sum[3] = { 0, 0, UINT64_MAX };

	(void)state;
	for (uint64_t key = 1; key <= 20000; key++) {
		uint64_t value = key * 2;

		table_lock(&t);
		assert_true(table_add(&t, key, &value));
		table_unlock(&t);
	}
	assert_int_equal(table_count(&t), 20000);
	for (uint64_t key = 1; key <= 20000; key++) {
		assert_true(table_read(&t, key, NULL, NULL, &out));
		assert_int_equal(out, key * 2);
	}
	table_lock(&t);
	table_each(&t, count_visit, sum);
	assert_int_equal(sum[0], 20000);
	assert_int_equal(sum[1], 20000ull * 20001 / 2);
	/* visit returning false stops. */
	sum[0] = 0;
	sum[2] = 10;
	table_each(&t, count_visit, sum);
	assert_int_equal(sum[0], 10);
	table_unlock(&t);
	table_release(&t);
}

static void test_max_count(void **state)
{
	struct table t = TABLE_INIT(0, 3);

	(void)state;
	table_lock(&t);
	assert_true(table_add(&t, 1, NULL));
	assert_true(table_add(&t, 2, NULL));
	assert_true(table_add(&t, 3, NULL));
	assert_false(table_add(&t, 4, NULL));
	assert_true(table_remove(&t, 2, NULL, NULL, NULL));
	assert_true(table_add(&t, 4, NULL));
	table_unlock(&t);
	table_release(&t);
}

/* Adds and removes in random order, checked against a model: removal
 * must leave every other key reachable from its first slot. Keys collide
 * often (few distinct bits), so runs are long and wrap. */
static void test_against_model(void **state)
{
	enum { KEYS = 512 };
	static unsigned model[KEYS];
	struct table t = TABLE_INIT(1, 100000);
	unsigned seed = 12345;

	(void)state;
	memset(model, 0, sizeof(model));
	for (int step = 0; step < 50000; step++) {
		uint64_t key, value;
		int k;

		seed = seed * 1103515245u + 12345u;
		k = (int)((seed >> 8) % KEYS);
		key = (uint64_t)(k + 1) << 40;
		table_lock(&t);
		if ((seed >> 20) % 3 != 0) {
			value = key + model[k];
			assert_true(table_add(&t, key, &value));
			model[k]++;
		} else {
			bool removed = table_remove(&t, key, NULL, NULL, NULL);

			assert_int_equal(removed, model[k] > 0);
			model[k] -= removed;
		}
		table_unlock(&t);
	}
	for (int k = 0; k < KEYS; k++) {
		uint64_t key = (uint64_t)(k + 1) << 40;
		unsigned found = 0;

		table_lock(&t);
		while (table_remove(&t, key, NULL, NULL, NULL))
			found++;
		table_unlock(&t);
		assert_int_equal(found, model[k]);
	}
	assert_int_equal(table_count(&t), 0);
	table_release(&t);
}

/* A writer that changes the table while a read is under way (here, from
 * the reader's own match function, which runs mid-read) makes the reader
 * read again: it reports the table as it is after the change, not a value
 * from a slot the writer has emptied. */
struct overtaking {
	struct table *t;
	uint64_t key;
	unsigned calls;
};

static bool remove_on_first_call(const uint64_t *value, const void *ctx)
{
	struct overtaking *o = (struct overtaking *)(uintptr_t)ctx;

	(void)value;
	if (o->calls++ == 0) {
		table_lock(o->t);
		assert_true(table_remove(o->t, o->key, NULL, NULL, NULL));
		table_unlock(o->t);
	}
	return true;
}

static void test_read_overtaken(void **state)
{
	struct table t = TABLE_INIT(2, 1000);
	struct overtaking o = { &t, 77, 0 };
	uint64_t out[2] = { 0, 0 };

	(void)state;
	add(&t, 77, 1, 2);
	add(&t, 78, 3, 4);
	assert_false(table_read(&t, 77, remove_on_first_call, &o, out));
	assert_int_equal(o.calls, 1);
	assert_true(table_read(&t, 78, NULL, NULL, out));
	assert_int_equal(out[0], 3);
	table_release(&t);
}

/* Readers without the lock while a writer adds, removes and grows: the
 * keys that stay are always found, and no value is seen half written.
 * Removing a transient key moves the keys after it in its run, often
 * permanent ones: a reader that did not read again after such a move could
 * miss a key or see a key with another's value. */
#define PERMANENT 2000
struct reading {
	struct table *t;
	bool stop;
	unsigned bad;
	unsigned reads;
};

static void *reader(void *arg)
{
	struct reading *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		for (uint64_t key = 1; key <= PERMANENT; key++) {
			uint64_t out[3];

			if (!table_read(r->t, key, NULL, NULL, out) || out[0] != key ||
			    out[1] != ~key || out[2] != key * 7)
				__atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&r->reads, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void test_lock_free_readers(void **state)
{
	struct table t = TABLE_INIT(3, 1u << 20);
	struct reading readers[2] = { { &t, false, 0, 0 }, { &t, false, 0, 0 } };
	pthread_t threads[2];

	(void)state;
	for (uint64_t key = 1; key <= PERMANENT; key++) {
		const uint64_t value[3] = { key, ~key, key * 7 };

		table_lock(&t);
		assert_true(table_add(&t, key, value));
		table_unlock(&t);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, reader, &readers[i]), 0);
	/* The readers are reading before the writer starts. */
	for (int i = 0; i < 2; i++) {
		while (__atomic_load_n(&readers[i].reads, __ATOMIC_RELAXED) == 0)
			sched_yield();
	}
	for (int round = 0; round < 10; round++) {
		/* Transient keys among the readers' own: growth, shifts. */
		for (uint64_t key = 100000; key < 104000; key++) {
			const uint64_t value[3] = { 1, 2, 3 };

			table_lock(&t);
			assert_true(table_add(&t, key, value));
			table_unlock(&t);
		}
		for (uint64_t key = 100000; key < 104000; key++) {
			table_lock(&t);
			assert_true(table_remove(&t, key, NULL, NULL, NULL));
			table_unlock(&t);
		}
	}
	for (int i = 0; i < 2; i++) {
		__atomic_store_n(&readers[i].stop, true, __ATOMIC_RELAXED);
		pthread_join(threads[i], NULL);
		assert_int_equal(readers[i].bad, 0);
		assert_true(readers[i].reads > 0);
	}
	table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claim_once),     cmocka_unit_test(test_claim_full),
		cmocka_unit_test(test_claim_race),     cmocka_unit_test(test_add_find_remove),
		cmocka_unit_test(test_multimap),       cmocka_unit_test(test_growth_and_each),
		cmocka_unit_test(test_max_count),      cmocka_unit_test(test_against_model),
		cmocka_unit_test(test_read_overtaken), cmocka_unit_test(test_lock_free_readers),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
