/* SPDX-License-Identifier: MIT */
/*
 * corr-map.c - a direct-mapped map of entries by correlation id, its slots
 * in an array (see corr-map.h).
 */
#include <stddef.h>
#include <string.h>

#include "contract/assert.h"
#include "corr-map.h"

_Static_assert((CT_CORR_MAP_INITIAL & (CT_CORR_MAP_INITIAL - 1)) == 0 &&
                   (CT_CORR_MAP_MAX & (CT_CORR_MAP_MAX - 1)) == 0,
               "the map is direct-mapped by the low bits of the id");

static size_t slot_of(size_t capacity, uint32_t correlation_id)
{
	return correlation_id & (capacity - 1);
}

void ct_corr_map_init(struct ct_corr_map *map, size_t entry_size)
{
	CT_ASSERT(entry_size >= sizeof(struct ct_corr_entry));
	*map = (struct ct_corr_map){
		.slots = g_new0(void *, CT_CORR_MAP_INITIAL),
		.blocks = g_ptr_array_new_with_free_func(g_free),
		/* room for the free list's link, and each entry aligned as the first */
		.entry_size = (MAX(entry_size, sizeof(void *)) + _Alignof(max_align_t) - 1) /
		              _Alignof(max_align_t) * _Alignof(max_align_t),
		.carved = CT_CORR_MAP_BLOCK,
		.capacity = CT_CORR_MAP_INITIAL,
	};
}

void ct_corr_map_release(struct ct_corr_map *map)
{
	g_free(map->slots);
	if (map->aside)
		g_hash_table_destroy(map->aside);
	/* every entry, waiting or free, is in a block */
	if (map->blocks)
		g_ptr_array_free(map->blocks, TRUE);
	*map = (struct ct_corr_map){ 0 };
}

/*
 * ENTRY waits no more: on the free list, taken again first in, first out
 * (spares.h). A loop's entries are removed in the order of their ids and
 * taken again in that order, so the entries of consecutive ids stay side
 * by side in the blocks, as the slots are, and a stream of records reads
 * both in order.
 */
static void recycle(struct ct_corr_map *map, void *entry)
{
	ct_spares_put(&map->free, entry);
}

static size_t aside_count(const struct ct_corr_map *map)
{
	return map->aside ? g_hash_table_size(map->aside) : 0;
}

/* Whether ID may be set aside: some id set aside shares its low bits. */
static bool may_be_aside(const struct ct_corr_map *map, uint32_t id)
{
	return map->aside_by_bits[id % CT_CORR_MAP_ASIDE_BITS] != 0;
}

/* ENTRY is set aside no more (the table's entry is the caller's to take). */
static void leaves_aside(struct ct_corr_map *map, const struct ct_corr_entry *entry)
{
	CT_ASSERT(may_be_aside(map, entry->correlation_id));
	map->aside_by_bits[entry->correlation_id % CT_CORR_MAP_ASIDE_BITS]--;
}

/* Whether ENTRY has waited longer than any record takes to come, at TIME_NS. */
static bool stale(const struct ct_corr_entry *entry, int64_t time_ns)
{
	return time_ns - entry->time_ns >= CT_CORR_MAP_PATIENCE_NS;
}

/*
 * The entries set aside at TIME_NS: back to their slot when it is free,
 * given up when stale, else left aside.
 */
static void settle_aside(struct ct_corr_map *map, int64_t time_ns)
{
	GHashTableIter iter;
	gpointer key, value;

	if (!aside_count(map))
		return;
	g_hash_table_iter_init(&iter, map->aside);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		struct ct_corr_entry *entry = value;
		void **slot = &map->slots[slot_of(map->capacity, entry->correlation_id)];

		if (!*slot) {
			*slot = entry;
		} else if (stale(entry, time_ns)) {
			recycle(map, entry);
			map->waiting--;
			map->evicted++;
		} else {
			continue;
		}
		leaves_aside(map, entry);
		g_hash_table_iter_steal(&iter);
	}
}

/*
 * Doubles the capacity at TIME_NS. Two entries in the slots cannot meet
 * in the new slots: ids equal modulo 2 × capacity are equal modulo
 * capacity, and each old slot held one entry. Then the entries set aside
 * settle.
 */
static void grow(struct ct_corr_map *map, int64_t time_ns)
{
	void **slots = g_new0(void *, map->capacity * 2);

	for (size_t i = 0; i < map->capacity; i++) {
		struct ct_corr_entry *entry = map->slots[i];

		if (entry)
			slots[slot_of(map->capacity * 2, entry->correlation_id)] = entry;
	}
	g_free(map->slots);
	map->slots = slots;
	map->capacity *= 2;
	settle_aside(map, time_ns);
}

/* The entry set aside for ID, if any, is replaced: it waits no more. */
static void replace_aside(struct ct_corr_map *map, uint32_t id)
{
	void *before;

	if (!may_be_aside(map, id) ||
	    !(before = g_hash_table_lookup(map->aside, GUINT_TO_POINTER(id))))
		return;
	leaves_aside(map, before);
	g_hash_table_steal(map->aside, GUINT_TO_POINTER(id));
	recycle(map, before);
	map->waiting--;
}

/* ENTRY, waiting still, leaves its slot to a newer id: set aside. */
static void set_aside(struct ct_corr_map *map, struct ct_corr_entry *entry)
{
	if (!map->aside)
		map->aside = g_hash_table_new(g_direct_hash, g_direct_equal);
	replace_aside(map, entry->correlation_id);
	g_hash_table_insert(map->aside, GUINT_TO_POINTER(entry->correlation_id), entry);
	map->aside_by_bits[entry->correlation_id % CT_CORR_MAP_ASIDE_BITS]++;
}

/* A zeroed entry: from the free list if it has one, else the next of the last block. */
static struct ct_corr_entry *fresh_entry(struct ct_corr_map *map)
{
	void *entry = ct_spares_take(&map->free);

	if (!entry) {
		if (map->carved == CT_CORR_MAP_BLOCK) {
			g_ptr_array_add(map->blocks, g_malloc(map->entry_size * CT_CORR_MAP_BLOCK));
			map->carved = 0;
		}
		entry = (char *)g_ptr_array_index(map->blocks, map->blocks->len - 1) +
		        map->entry_size * map->carved++;
	}
	memset(entry, 0, map->entry_size);
	return entry;
}

void *ct_corr_map_insert(struct ct_corr_map *map, uint32_t correlation_id, int64_t time_ns)
{
	struct ct_corr_entry *entry = map->slots[slot_of(map->capacity, correlation_id)];

	if (!entry || entry->correlation_id != correlation_id)
		replace_aside(map, correlation_id);
	/* dense: make room rather than lose or set aside what still waits */
	while (entry && entry->correlation_id != correlation_id &&
	       map->capacity < CT_CORR_MAP_MAX && map->waiting * 2 > map->capacity) {
		grow(map, time_ns);
		entry = map->slots[slot_of(map->capacity, correlation_id)];
	}
	if (entry && entry->correlation_id != correlation_id && !stale(entry, time_ns) &&
	    (map->capacity < CT_CORR_MAP_MAX || aside_count(map) < CT_CORR_MAP_MAX / 4)) {
		set_aside(map, entry);
	} else if (entry) {
		/* the same id seen again is replaced; another is given up */
		if (entry->correlation_id != correlation_id)
			map->evicted++;
		recycle(map, entry);
		map->waiting--;
	}
	entry = fresh_entry(map);
	entry->correlation_id = correlation_id;
	entry->time_ns = time_ns;
	map->slots[slot_of(map->capacity, correlation_id)] = entry;
	map->waiting++;
	/* many set aside: the ids waiting are sparse, the map grows for them */
	if (aside_count(map) * 4 > map->capacity && map->capacity < CT_CORR_MAP_MAX)
		grow(map, time_ns);
	return entry;
}

void *ct_corr_map_find(const struct ct_corr_map *map, uint32_t correlation_id)
{
	struct ct_corr_entry *entry = map->slots[slot_of(map->capacity, correlation_id)];

	if (entry && entry->correlation_id == correlation_id)
		return entry;
	return may_be_aside(map, correlation_id)
	           ? g_hash_table_lookup(map->aside, GUINT_TO_POINTER(correlation_id))
	           : NULL;
}

void ct_corr_map_remove(struct ct_corr_map *map, void *entry)
{
	/* an entry given up, replaced or removed before is in neither place:
	 * its head may be the free list's link by now, and finds nothing */
	uint32_t id = ((const struct ct_corr_entry *)entry)->correlation_id;
	void **slot = &map->slots[slot_of(map->capacity, id)];

	if (*slot == entry)
		*slot = NULL;
	else if (may_be_aside(map, id) &&
	         g_hash_table_lookup(map->aside, GUINT_TO_POINTER(id)) == entry) {
		leaves_aside(map, entry);
		g_hash_table_steal(map->aside, GUINT_TO_POINTER(id));
	} else
		return;
	map->waiting--;
	recycle(map, entry);
}

size_t ct_corr_map_waiting(const struct ct_corr_map *map)
{
	return map->waiting;
}

void ct_corr_map_foreach(const struct ct_corr_map *map, void (*fn)(void *entry, void *data),
                         void *data)
{
	GHashTableIter iter;
	gpointer key, value;

	for (size_t i = 0; i < map->capacity; i++) {
		if (map->slots[i])
			fn(map->slots[i], data);
	}
	if (!aside_count(map))
		return;
	g_hash_table_iter_init(&iter, map->aside);
	while (g_hash_table_iter_next(&iter, &key, &value))
		fn(value, data);
}
