/* SPDX-License-Identifier: MIT */
/*
 * tracker.c - the allocation map: sharded treaps of address ranges.
 *
 * Address ranges are indexed by the 2 MiB regions they cover. A range that
 * covers a few regions has a copy in the shard of each, so "which range
 * contains address A" is one ordered lookup in the shard of A's region; the
 * shards have their own locks, so threads that allocate in different regions
 * do not contend. Larger ranges (rare: each holds at least
 * SMALL_MAX_REGIONS regions of memory) live in one index of their own behind
 * a read-write lock. Each index is a treap keyed by start address: O(log n)
 * expected insert, remove and predecessor lookup.
 *
 * VMM handles are opaque numbers: they go in shards chosen by hash.
 */
#include <pthread.h>
#include <stdlib.h>

#include "log.h"
#include "tracker.h"

#define REGION_SHIFT      21
#define SMALL_MAX_REGIONS 4
#define SHARD_COUNT       64
#define PURGE_MAX         64

struct node {
	struct tracker_entry entry;
	uint32_t priority;
	struct node *left;
	struct node *right;
};

struct shard {
	pthread_mutex_t lock;
	struct node *root; /* owned */
};

static struct shard address_shards[SHARD_COUNT];
static struct shard handle_shards[SHARD_COUNT];
static struct {
	pthread_rwlock_t lock;
	struct node *root; /* owned */
} large = { PTHREAD_RWLOCK_INITIALIZER, NULL };

static pthread_once_t shards_once = PTHREAD_ONCE_INIT;

static void shards_init(void)
{
	for (int i = 0; i < SHARD_COUNT; i++) {
		pthread_mutex_init(&address_shards[i].lock, NULL);
		pthread_mutex_init(&handle_shards[i].lock, NULL);
	}
}

/* splitmix64's finaliser: spreads aligned addresses over shards and
 * priorities. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t range_end(const struct tracker_entry *e)
{
	uint64_t size = e->size ? e->size : 1;

	return e->start + size < e->start ? UINT64_MAX : e->start + size;
}

/* ----------------------------------------------------------------- treap */

/* Split t into the nodes with start < key (*lo) and the others (*hi). */
static void treap_split(struct node *t, uint64_t key, struct node **lo, struct node **hi)
{
	if (!t) {
		*lo = NULL;
		*hi = NULL;
		return;
	}
	if (t->entry.start < key) {
		treap_split(t->right, key, &t->right, hi);
		*lo = t;
	} else {
		treap_split(t->left, key, lo, &t->left);
		*hi = t;
	}
}

/* Join two treaps whose keys are all ordered lo < hi. */
static struct node *treap_merge(struct node *lo, struct node *hi)
{
	if (!lo)
		return hi;
	if (!hi)
		return lo;
	if (lo->priority > hi->priority) {
		lo->right = treap_merge(lo->right, hi);
		return lo;
	}
	hi->left = treap_merge(lo, hi->left);
	return hi;
}

static void treap_insert(struct node **root, struct node *n)
{
	struct node *lo, *hi;

	treap_split(*root, n->entry.start, &lo, &hi);
	*root = treap_merge(treap_merge(lo, n), hi);
}

/* Detach the node whose start is key; NULL if none. */
static struct node *treap_detach(struct node **root, uint64_t key)
{
	struct node *lo, *mid, *hi;

	treap_split(*root, key, &lo, &hi);
	treap_split(hi, key + 1, &mid, &hi);
	*root = treap_merge(lo, hi);
	return mid;
}

/* The node with the greatest start <= key. */
static struct node *treap_floor(struct node *t, uint64_t key)
{
	struct node *best = NULL;

	while (t) {
		if (t->entry.start <= key) {
			best = t;
			t = t->right;
		} else {
			t = t->left;
		}
	}
	return best;
}

/* The node with the smallest start >= key. */
static struct node *treap_ceiling(struct node *t, uint64_t key)
{
	struct node *best = NULL;

	while (t) {
		if (t->entry.start >= key) {
			best = t;
			t = t->left;
		} else {
			t = t->right;
		}
	}
	return best;
}

static struct node *node_new(const struct tracker_entry *entry)
{
	struct node *n = malloc(sizeof(*n));

	if (!n) {
		log_debug("out of memory: allocation at 0x%llx not tracked",
		          (unsigned long long)entry->start);
		return NULL;
	}
	n->entry = *entry;
	n->priority = (uint32_t)mix64(entry->start ^ (uint64_t)(uintptr_t)n);
	n->left = NULL;
	n->right = NULL;
	return n;
}

/* Drop the ranges of root that overlap [start, end): stale entries. */
static void treap_purge_overlaps(struct node **root, uint64_t start, uint64_t end)
{
	for (int i = 0; i < PURGE_MAX; i++) {
		struct node *n = treap_floor(*root, end - 1);

		if (!n || range_end(&n->entry) <= start)
			return;
		free(treap_detach(root, n->entry.start));
	}
}

/* ------------------------------------------------------- address ranges */

static uint64_t first_region(const struct tracker_entry *e)
{
	return e->start >> REGION_SHIFT;
}

static uint64_t last_region(const struct tracker_entry *e)
{
	return (range_end(e) - 1) >> REGION_SHIFT;
}

static bool is_large(const struct tracker_entry *e)
{
	return last_region(e) - first_region(e) >= SMALL_MAX_REGIONS;
}

static struct shard *region_shard(uint64_t region)
{
	return &address_shards[mix64(region) % SHARD_COUNT];
}

/* Call fn once per distinct shard that holds copies of e. */
static void for_each_shard(const struct tracker_entry *e,
                           void (*fn)(struct shard *shard, const struct tracker_entry *e))
{
	struct shard *done[SMALL_MAX_REGIONS];
	int ndone = 0;

	for (uint64_t r = first_region(e); r <= last_region(e); r++) {
		struct shard *shard = region_shard(r);
		bool seen = false;

		for (int i = 0; i < ndone; i++)
			seen = seen || done[i] == shard;
		if (seen)
			continue;
		done[ndone++] = shard;
		fn(shard, e);
	}
}

static void shard_insert(struct shard *shard, const struct tracker_entry *e)
{
	struct node *n = node_new(e);

	if (!n)
		return;
	pthread_mutex_lock(&shard->lock);
	treap_purge_overlaps(&shard->root, e->start, range_end(e));
	treap_insert(&shard->root, n);
	pthread_mutex_unlock(&shard->lock);
}

static void shard_remove(struct shard *shard, const struct tracker_entry *e)
{
	struct node *n;

	pthread_mutex_lock(&shard->lock);
	n = treap_detach(&shard->root, e->start);
	pthread_mutex_unlock(&shard->lock);
	free(n);
}

static void insert_address(const struct tracker_entry *entry)
{
	struct node *n;

	if (!is_large(entry)) {
		for_each_shard(entry, shard_insert);
		return;
	}
	n = node_new(entry);
	if (!n)
		return;
	pthread_rwlock_wrlock(&large.lock);
	treap_purge_overlaps(&large.root, entry->start, range_end(entry));
	treap_insert(&large.root, n);
	pthread_rwlock_unlock(&large.lock);
}

/* The small range containing address, copied out; false if none. */
static bool lookup_small(uint64_t address, struct tracker_entry *found)
{
	struct shard *shard = region_shard(address >> REGION_SHIFT);
	struct node *n;
	bool hit = false;

	pthread_mutex_lock(&shard->lock);
	n = treap_floor(shard->root, address);
	if (n && address < range_end(&n->entry)) {
		*found = n->entry;
		hit = true;
	}
	pthread_mutex_unlock(&shard->lock);
	return hit;
}

static bool lookup_large(uint64_t address, struct tracker_entry *found)
{
	struct node *n;
	bool hit = false;

	pthread_rwlock_rdlock(&large.lock);
	n = treap_floor(large.root, address);
	if (n && address < range_end(&n->entry)) {
		*found = n->entry;
		hit = true;
	}
	pthread_rwlock_unlock(&large.lock);
	return hit;
}

static bool remove_address(uint64_t start, struct tracker_entry *removed)
{
	struct tracker_entry e;
	struct node *n;

	if (lookup_small(start, &e) && e.start == start) {
		for_each_shard(&e, shard_remove);
		*removed = e;
		return true;
	}
	pthread_rwlock_wrlock(&large.lock);
	n = treap_detach(&large.root, start);
	pthread_rwlock_unlock(&large.lock);
	if (!n)
		return false;
	*removed = n->entry;
	free(n);
	return true;
}

/* ---------------------------------------------------------- VMM handles */

static struct shard *handle_shard(uint64_t handle)
{
	return &handle_shards[mix64(handle) % SHARD_COUNT];
}

static void insert_handle(const struct tracker_entry *entry)
{
	struct shard *shard = handle_shard(entry->start);
	struct node *n = node_new(entry);

	if (!n)
		return;
	pthread_mutex_lock(&shard->lock);
	free(treap_detach(&shard->root, entry->start));
	treap_insert(&shard->root, n);
	pthread_mutex_unlock(&shard->lock);
}

static bool remove_handle(uint64_t handle, struct tracker_entry *removed)
{
	struct shard *shard = handle_shard(handle);
	struct node *n;

	pthread_mutex_lock(&shard->lock);
	n = treap_detach(&shard->root, handle);
	pthread_mutex_unlock(&shard->lock);
	if (!n)
		return false;
	*removed = n->entry;
	free(n);
	return true;
}

/* ------------------------------------------------------------ interface */

void tracker_insert(enum tracker_space space, const struct tracker_entry *entry)
{
	pthread_once(&shards_once, shards_init);
	if (space == TRACKER_VMM_HANDLES)
		insert_handle(entry);
	else
		insert_address(entry);
}

bool tracker_remove(enum tracker_space space, uint64_t start, struct tracker_entry *removed)
{
	pthread_once(&shards_once, shards_init);
	if (space == TRACKER_VMM_HANDLES)
		return remove_handle(start, removed);
	return remove_address(start, removed);
}

static bool lookup_handle(uint64_t handle, struct tracker_entry *found)
{
	struct shard *shard = handle_shard(handle);
	struct node *n;
	bool hit = false;

	pthread_mutex_lock(&shard->lock);
	n = treap_floor(shard->root, handle);
	if (n && n->entry.start == handle) {
		*found = n->entry;
		hit = true;
	}
	pthread_mutex_unlock(&shard->lock);
	return hit;
}

bool tracker_lookup(enum tracker_space space, uint64_t key, struct tracker_entry *found)
{
	pthread_once(&shards_once, shards_init);
	if (space == TRACKER_VMM_HANDLES)
		return lookup_handle(key, found);
	return lookup_small(key, found) || lookup_large(key, found);
}

/* The first small range starting in [start, end) of the shards covering
 * that interval, scanning region by region. */
static bool find_small_within(uint64_t start, uint64_t end, struct tracker_entry *found)
{
	for (uint64_t r = start >> REGION_SHIFT; r <= (end - 1) >> REGION_SHIFT; r++) {
		struct shard *shard = region_shard(r);
		uint64_t lo = r << REGION_SHIFT > start ? r << REGION_SHIFT : start;
		struct node *n;
		bool hit = false;

		pthread_mutex_lock(&shard->lock);
		n = treap_ceiling(shard->root, lo);
		if (n && n->entry.start < end) {
			*found = n->entry;
			hit = true;
		}
		pthread_mutex_unlock(&shard->lock);
		if (hit)
			return true;
	}
	return false;
}

bool tracker_remove_within(uint64_t start, uint64_t end, struct tracker_entry *removed)
{
	struct tracker_entry e;
	struct node *n;
	bool hit = false;

	pthread_once(&shards_once, shards_init);
	if (end <= start)
		return false;
	pthread_rwlock_rdlock(&large.lock);
	n = treap_ceiling(large.root, start);
	if (n && n->entry.start < end) {
		e = n->entry;
		hit = true;
	}
	pthread_rwlock_unlock(&large.lock);
	/* Unmapping scans at most the regions of the unmapped range: bounded
	 * by the size the program passed, and VMM ranges are few. */
	if (!hit && (end - start) >> REGION_SHIFT <= 4096)
		hit = find_small_within(start, end, &e);
	if (!hit)
		return false;
	return remove_address(e.start, removed);
}
