/* SPDX-License-Identifier: MIT */
/*
 * corr-map.c - a direct-mapped map of entries by correlation id, its slots
 * in an array (see corr-map.h).
 */
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
		/* room for the free list's link */
		.entry_size = MAX(entry_size, sizeof(void *)),
		.capacity = CT_CORR_MAP_INITIAL,
	};
}

void ct_corr_map_release(struct ct_corr_map *map)
{
	for (size_t i = 0; map->slots && i < map->capacity; i++)
		g_free(map->slots[i]);
	g_free(map->slots);
	while (map->free) {
		void *next = *(void **)map->free;

		g_free(map->free);
		map->free = next;
	}
	*map = (struct ct_corr_map){ 0 };
}

/*
 * Doubles the capacity. Two waiting entries cannot meet in the new slots:
 * ids equal modulo 2 × capacity are equal modulo capacity, and each old
 * slot held one entry.
 */
static void grow(struct ct_corr_map *map)
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
}

/* ENTRY waits no more: on the free list. */
static void recycle(struct ct_corr_map *map, void *entry)
{
	*(void **)entry = map->free;
	map->free = entry;
}

/* A zeroed entry, from the free list if it has one. */
static struct ct_corr_entry *fresh_entry(struct ct_corr_map *map)
{
	void *entry = map->free;

	if (!entry)
		return g_malloc0(map->entry_size);
	map->free = *(void **)entry;
	memset(entry, 0, map->entry_size);
	return entry;
}

/* Whether ENTRY, in the slot a newcomer of TIME_NS wants, may still get its record. */
static bool still_waits(const struct ct_corr_map *map, const struct ct_corr_entry *entry,
                        int64_t time_ns)
{
	return map->waiting * 2 > map->capacity ||
	       time_ns - entry->time_ns < CT_CORR_MAP_PATIENCE_NS;
}

void *ct_corr_map_insert(struct ct_corr_map *map, uint32_t correlation_id, int64_t time_ns)
{
	struct ct_corr_entry *entry = map->slots[slot_of(map->capacity, correlation_id)];

	while (entry && entry->correlation_id != correlation_id &&
	       map->capacity < CT_CORR_MAP_MAX && still_waits(map, entry, time_ns)) {
		/* make room rather than lose what still waits */
		grow(map);
		entry = map->slots[slot_of(map->capacity, correlation_id)];
	}
	if (entry) {
		/* the entry the slot held is replaced */
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
	CT_ASSERT_DBG(map->waiting <= map->capacity);
	return entry;
}

void *ct_corr_map_find(const struct ct_corr_map *map, uint32_t correlation_id)
{
	struct ct_corr_entry *entry = map->slots[slot_of(map->capacity, correlation_id)];

	return entry && entry->correlation_id == correlation_id ? entry : NULL;
}

void ct_corr_map_remove(struct ct_corr_map *map, void *entry)
{
	const struct ct_corr_entry *head = entry;
	void **slot = &map->slots[slot_of(map->capacity, head->correlation_id)];

	if (*slot != entry)
		return;
	*slot = NULL;
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
	for (size_t i = 0; i < map->capacity; i++) {
		if (map->slots[i])
			fn(map->slots[i], data);
	}
}
