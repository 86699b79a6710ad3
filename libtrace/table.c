/* SPDX-License-Identifier: MIT */
/*
 * table.c - libtrace's hash table (table.h).
 *
 * Every access to a slot is an atomic load or store (relaxed): readers and
 * claims run concurrently with writers, and the sequence count, not the
 * loads, makes what a reader saw consistent. Writers change slots between
 * write_begin and write_end only.
 */
#include <stdlib.h>
#include <string.h>

#include "contract/assert.h"
#include "table.h"

#define MIN_CAPACITY 16

static size_t stride(const struct table *t)
{
	return 1 + (size_t)t->words;
}

static uint64_t *slot_at(const struct table *t, const struct table_array *a, size_t i)
{
	return table_slot(t, a, i);
}

static uint64_t load(const uint64_t *word)
{
	return __atomic_load_n(word, __ATOMIC_RELAXED);
}

static void store(uint64_t *word, uint64_t value)
{
	__atomic_store_n(word, value, __ATOMIC_RELAXED);
}

static struct table_array *array_of(const struct table *t)
{
	return __atomic_load_n(&t->array, __ATOMIC_ACQUIRE);
}

/* ---------------------------------------------------------------- claims */

void table_clear(struct table *t)
{
	struct table_array *a = array_of(t);

	for (size_t i = 0; i <= a->mask; i++)
		store(slot_at(t, a, i), 0);
}

/* ------------------------------------------------------------- writers */

void table_lock(struct table *t)
{
	pthread_mutex_lock(&t->lock);
}

void table_unlock(struct table *t)
{
	pthread_mutex_unlock(&t->lock);
}

/* An odd count tells readers that slots are changing; the fence keeps the
 * slot stores after it. */
static void write_begin(struct table *t)
{
	CT_ASSERT_DBG((t->seq & 1) == 0);
	__atomic_store_n(&t->seq, t->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(struct table *t)
{
	__atomic_store_n(&t->seq, t->seq + 1, __ATOMIC_RELEASE);
}

static void slot_copy(const struct table *t, uint64_t *to, const uint64_t *from)
{
	for (size_t w = 0; w < stride(t); w++)
		store(&to[w], load(&from[w]));
}

/* Put key and value in the first empty slot of its run (no lock-free
 * reader may see a: a fresh array, or between write_begin and end). */
static void place(struct table *t, struct table_array *a, uint64_t key, const uint64_t *value)
{
	size_t i = table_home(a, key);
	uint64_t *s;

	while (load(slot_at(t, a, i)) != 0)
		i = (i + 1) & a->mask;
	s = slot_at(t, a, i);
	for (unsigned w = 0; w < t->words; w++)
		store(&s[1 + w], value ? load(&value[w]) : 0);
	store(&s[0], key);
}

/* A new array of capacity slots holding every key of the current one,
 * published whole: readers of the old one finish with it, then see the
 * new one through the sequence count. */
static bool grow(struct table *t, size_t capacity)
{
	struct table_array *old = t->array;
	struct table_array *a = malloc(sizeof(*a));

	if (!a)
		return false;
	a->slot = calloc(capacity, stride(t) * sizeof(uint64_t));
	if (!a->slot) {
		free(a);
		return false;
	}
	a->mask = capacity - 1;
	a->shift = 64 - (unsigned)__builtin_ctzll(capacity);
	a->older = old;
	for (size_t i = 0; old && i <= old->mask; i++) {
		const uint64_t *s = slot_at(t, old, i);

		if (load(&s[0]) != 0)
			place(t, a, load(&s[0]), &s[1]);
	}
	write_begin(t);
	__atomic_store_n(&t->array, a, __ATOMIC_RELEASE);
	write_end(t);
	return true;
}

bool table_add(struct table *t, uint64_t key, const uint64_t *value)
{
	size_t capacity = t->array ? t->array->mask + 1 : 0;

	if (!CT_CHECK(key != 0) || t->count >= t->max_count)
		return false;
	/* At most 3/4 full, so that runs stay short and one is always
	 * empty. */
	if (4 * (t->count + 1) > 3 * capacity) {
		if (t->fixed)
			return false;
		if (!grow(t, capacity ? 2 * capacity : MIN_CAPACITY))
			return false;
	}
	write_begin(t);
	place(t, t->array, key, value);
	write_end(t);
	__atomic_store_n(&t->count, t->count + 1, __ATOMIC_RELAXED);
	return true;
}

bool table_find(struct table *t, uint64_t key, table_match_fn match, const void *ctx, uint64_t *out)
{
	long i = table_find_slot(t, t->array, key, match, ctx);

	if (i < 0)
		return false;
	table_copy_value(t, out, slot_at(t, t->array, (size_t)i) + 1);
	return true;
}

/* Whether home, a key's first slot, lies cyclically in (hole, i]: then the
 * key at i may not move back to hole, or a lookup from home would stop at
 * the hole before reaching it. */
static bool home_between(size_t hole, size_t home, size_t i)
{
	if (hole <= i)
		return hole < home && home <= i;
	return hole < home || home <= i;
}

/* Empty slot hole, moving back the keys after it that its emptiness would
 * cut off from their first slot. */
static void shift_back(struct table *t, struct table_array *a, size_t hole)
{
	size_t i = hole;

	for (;;) {
		uint64_t *s;
		size_t home;

		i = (i + 1) & a->mask;
		s = slot_at(t, a, i);
		if (load(&s[0]) == 0)
			break;
		home = table_home(a, load(&s[0]));
		if (home_between(hole, home, i))
			continue;
		slot_copy(t, slot_at(t, a, hole), s);
		hole = i;
	}
	store(slot_at(t, a, hole), 0);
}

bool table_remove(struct table *t, uint64_t key, table_match_fn match, const void *ctx,
                  uint64_t *removed)
{
	long i = table_find_slot(t, t->array, key, match, ctx);

	if (i < 0)
		return false;
	table_copy_value(t, removed, table_slot(t, t->array, (size_t)i) + 1);
	write_begin(t);
	shift_back(t, t->array, (size_t)i);
	write_end(t);
	CT_ASSERT(t->count > 0);
	__atomic_store_n(&t->count, t->count - 1, __ATOMIC_RELAXED);
	return true;
}

bool table_replace(struct table *t, uint64_t key, table_match_fn match, const void *ctx,
                   const uint64_t *value)
{
	long i = table_find_slot(t, t->array, key, match, ctx);
	uint64_t *s;

	if (i < 0)
		return false;
	s = slot_at(t, t->array, (size_t)i);
	write_begin(t);
	for (unsigned w = 0; w < t->words; w++)
		store(&s[1 + w], value[w]);
	write_end(t);
	return true;
}

void table_each(struct table *t, bool (*visit)(uint64_t key, const uint64_t *value, void *ctx),
                void *ctx)
{
	struct table_array *a = t->array;

	for (size_t i = 0; a && i <= a->mask; i++) {
		const uint64_t *s = slot_at(t, a, i);

		if (s[0] != 0 && !visit(s[0], &s[1], ctx))
			return;
	}
}

/* ------------------------------------------------------------- readers */

bool table_read_locked(struct table *t, uint64_t key, table_match_fn match, const void *ctx,
                       uint64_t *out)
{
	bool found;

	table_lock(t);
	found = table_find(t, key, match, ctx, out);
	table_unlock(t);
	return found;
}

size_t table_count(struct table *t)
{
	return __atomic_load_n(&t->count, __ATOMIC_RELAXED);
}

void table_release(struct table *t)
{
	struct table_array *a = t->fixed ? NULL : t->array;

	while (a) {
		struct table_array *older = a->older;

		free(a->slot);
		free(a);
		a = older;
	}
	if (!t->fixed) {
		t->array = NULL;
		t->count = 0;
	}
}
