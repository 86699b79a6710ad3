/* SPDX-License-Identifier: MIT */
/*
 * table.h - libtrace's one hash table (libtrace must not bring GLib into
 * the programs it is injected into).
 *
 * Open addressing with linear probing: a key is a non-zero uint64_t (0
 * marks an empty slot), stored with a fixed number of uint64_t value words
 * in one array, so that a lookup reads one cache line or two. Keys are
 * spread by Fibonacci hashing (a multiplication, the top bits), which
 * scatters aligned addresses and small consecutive ids alike. A key may be
 * added several times (a multimap); match functions pick among the values
 * of a key. Removal shifts later keys back (no tombstones).
 *
 * A table is used in one of two ways:
 *
 *   Claims (names.c). A fixed array (TABLE_FIXED), keys without values:
 *   table_claim() adds a key lock-free from any thread, table_contains()
 *   reads lock-free, table_clear() empties it. Nothing is removed and the
 *   table never grows; one that is full says so.
 *
 *   Locked writers, lock-free readers (tracker.c, nvtx.c). The table
 *   grows by doubling up to max_count keys. Writers hold table_lock()
 *   around table_add, table_remove, table_find and table_each. Readers
 *   call table_read() without it: a sequence count tells them when a
 *   writer changed the table under them, and they read again; after a few
 *   tries they take the lock, so a reader never waits on a writer longer
 *   than the writer holds the lock. Arrays replaced by growth are kept
 *   (they total less than the live one), since a reader may still be
 *   reading one.
 */
#ifndef CUDATRACE_TABLE_H
#define CUDATRACE_TABLE_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The slots: capacity (a power of two) times 1 + words uint64_t, each slot
 * its key then its value. Replaced as a whole when the table grows. */
struct table_array {
	size_t mask;    /* capacity - 1 */
	unsigned shift; /* 64 - log2(capacity) */
	uint64_t *slot;
	struct table_array *older; /* the arrays it replaced: owned */
};

struct table {
	struct table_array *array; /* NULL until the first add: owned */
	unsigned words;            /* value words a slot */
	bool fixed;                /* the array is static and never grows */
	size_t max_count;          /* keys it may hold */
	size_t count;              /* keys it holds: under the lock */
	uint32_t seq;              /* odd while a writer changes the array */
	pthread_mutex_t lock;
};

/* A table that grows up to max_count keys of words value words each. */
#define TABLE_INIT(words_, max_count_)                                                          \
	{                                                                                       \
		.words = (words_), .max_count = (max_count_), .lock = PTHREAD_MUTEX_INITIALIZER \
	}

/* static struct table name: a claims table of capacity keys (a power of
 * two), in static storage, usable from the first instruction. */
#define TABLE_FIXED(name, capacity)                           \
	static uint64_t name##_slots[(capacity)];             \
	static struct table_array name##_array = {            \
		.mask = (capacity)-1,                         \
		.shift = 64 - __builtin_ctzll(capacity),      \
		.slot = name##_slots,                         \
	};                                                    \
	static struct table name = { .array = &name##_array,  \
		                     .fixed = true,           \
		                     .max_count = (capacity), \
		                     .lock = PTHREAD_MUTEX_INITIALIZER }

/* Picks one of a key's values: true to take it. Called on values that a
 * writer may be changing (table_read reads them again then): it must only
 * look at them. */
typedef bool (*table_match_fn)(const uint64_t *value, const void *ctx);

/* The first slot key may occupy in a. */
static inline size_t table_home(const struct table_array *a, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> a->shift);
}

/* ---------------------------------------------------------------- claims */
/* Inline: names.c asks on every event it names. */

enum table_claim {
	TABLE_CLAIMED, /* this call added key */
	TABLE_PRESENT, /* key was there */
	TABLE_FULL,    /* not there, and no free slot within max_probes */
};

/* Add key if absent, lock-free; looks at max_probes slots at most. */
static inline enum table_claim table_claim(struct table *t, uint64_t key, unsigned max_probes)
{
	struct table_array *a = t->array; /* fixed: never replaced */
	size_t i = table_home(a, key);

	for (size_t n = 0; n < max_probes && n <= a->mask; n++, i = (i + 1) & a->mask) {
		uint64_t *cell = &a->slot[i];
		uint64_t seen = __atomic_load_n(cell, __ATOMIC_RELAXED);

		if (seen == key)
			return TABLE_PRESENT;
		if (seen == 0) {
			uint64_t expected = 0;

			if (__atomic_compare_exchange_n(cell, &expected, key, false,
			                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				return TABLE_CLAIMED;
			if (expected == key)
				return TABLE_PRESENT;
		}
	}
	return TABLE_FULL;
}

/* Whether key was claimed, lock-free; looks at max_probes slots at most. */
static inline bool table_contains(const struct table *t, uint64_t key, unsigned max_probes)
{
	const struct table_array *a = t->array;
	size_t i = table_home(a, key);

	for (size_t n = 0; n < max_probes && n <= a->mask; n++, i = (i + 1) & a->mask) {
		uint64_t seen = __atomic_load_n(&a->slot[i], __ATOMIC_RELAXED);

		if (seen == key)
			return true;
		if (seen == 0)
			return false;
	}
	return false;
}

/* Forget every key. Claims racing with it may be kept or lost. */
void table_clear(struct table *t);

/* ------------------------------------------------ locked writers, readers */

void table_lock(struct table *t);
void table_unlock(struct table *t);

/* Under the lock: add key with value (words words; NULL: zeros), beside
 * any it has already. False when the table holds max_count keys or memory
 * runs out. */
bool table_add(struct table *t, uint64_t key, const uint64_t *value);

/* Under the lock: copy into out (NULL: nowhere) the value of key that
 * match takes (NULL: the first); false if none. */
bool table_find(struct table *t, uint64_t key, table_match_fn match, const void *ctx,
                uint64_t *out);

/* Under the lock: remove key's value that match takes (NULL: the first),
 * copied into removed (NULL: nowhere); false if none. */
bool table_remove(struct table *t, uint64_t key, table_match_fn match, const void *ctx,
                  uint64_t *removed);

/* Under the lock: overwrite the value of key that match takes (NULL: the
 * first) with value; false if none. */
bool table_replace(struct table *t, uint64_t key, table_match_fn match, const void *ctx,
                   const uint64_t *value);

/* Under the lock: visit(key, value, ctx) for every key, in no order, until
 * it returns false. visit must not change the table. */
void table_each(struct table *t, bool (*visit)(uint64_t key, const uint64_t *value, void *ctx),
                void *ctx);

/* Without the lock: table_find as of one moment no writer was changing the
 * table. Inline, below: the tracker reads on every copy. */
static inline bool table_read(struct table *t, uint64_t key, table_match_fn match, const void *ctx,
                              uint64_t *out);

/* Keys held (under the lock, or a moment's count). */
size_t table_count(struct table *t);

/* Free a growable table's arrays, when nothing can use it any more (tests). */
void table_release(struct table *t);

/* ------------------------------------------------------------ inline */

static inline uint64_t *table_slot(const struct table *t, const struct table_array *a, size_t i)
{
	return &a->slot[i * (1 + (size_t)t->words)];
}

/* The index of the slot of key's value that match takes (NULL: the
 * first) in a, or -1. */
static inline long table_find_slot(const struct table *t, const struct table_array *a, uint64_t key,
                                   table_match_fn match, const void *ctx)
{
	size_t i;

	if (!a)
		return -1;
	i = table_home(a, key);
	for (size_t n = 0; n <= a->mask; n++, i = (i + 1) & a->mask) {
		const uint64_t *s = table_slot(t, a, i);
		uint64_t seen = __atomic_load_n(&s[0], __ATOMIC_RELAXED);

		if (seen == 0)
			return -1;
		if (seen == key && (!match || match(&s[1], ctx)))
			return (long)i;
	}
	return -1;
}

static inline void table_copy_value(const struct table *t, uint64_t *out, const uint64_t *value)
{
	if (!out)
		return;
	for (unsigned w = 0; w < t->words; w++)
		out[w] = __atomic_load_n(&value[w], __ATOMIC_RELAXED);
}

/* table_read's way out when writers keep overtaking it. */
bool table_read_locked(struct table *t, uint64_t key, table_match_fn match, const void *ctx,
                       uint64_t *out);

/* Tries of a lock-free read before it takes the lock. */
#define TABLE_READ_TRIES 8

/* table_read, copying only the first words words of the value (out has
 * room for all of them: when writers keep overtaking it, all are copied). */
static inline bool table_read_first(struct table *t, uint64_t key, table_match_fn match,
                                    const void *ctx, uint64_t *out, unsigned words)
{
	for (int try = 0; try < TABLE_READ_TRIES; try++) {
		uint32_t seq = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);
		const struct table_array *a;
		long i;

		if (seq & 1) {
			sched_yield();
			continue;
		}
		a = __atomic_load_n(&t->array, __ATOMIC_ACQUIRE);
		i = table_find_slot(t, a, key, match, ctx);
		if (i >= 0 && out) {
			const uint64_t *value = table_slot(t, a, (size_t)i) + 1;

			for (unsigned w = 0; w < words && w < t->words; w++)
				out[w] = __atomic_load_n(&value[w], __ATOMIC_RELAXED);
		}
		/* The slots read above were read before seq is read again. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&t->seq, __ATOMIC_RELAXED) == seq)
			return i >= 0;
	}
	return table_read_locked(t, key, match, ctx, out);
}

static inline bool table_read(struct table *t, uint64_t key, table_match_fn match, const void *ctx,
                              uint64_t *out)
{
	return table_read_first(t, key, match, ctx, out, t->words);
}

#endif /* CUDATRACE_TABLE_H */
