/* SPDX-License-Identifier: MIT */
/*
 * corr-map.c - a direct-mapped table of entries by correlation id (see
 * corr-map.h).
 */
#include <stdlib.h>
#include <string.h>

#include "assert.h"
#include "corr-map.h"

_Static_assert((CT_CORR_MAP_INITIAL & (CT_CORR_MAP_INITIAL - 1)) == 0 &&
                   (CT_CORR_MAP_MAX & (CT_CORR_MAP_MAX - 1)) == 0,
               "the table is direct-mapped by the low bits of the id");

static struct ct_corr_entry *slot_at(const struct ct_corr_map *map, size_t capacity,
                                     unsigned char *slots, uint32_t correlation_id)
{
	return (struct ct_corr_entry *)(slots +
	                                (correlation_id & (capacity - 1)) * map->entry_size);
}

int ct_corr_map_init(struct ct_corr_map *map, size_t entry_size)
{
	memset(map, 0, sizeof(*map));
	map->entry_size = entry_size;
	map->capacity = CT_CORR_MAP_INITIAL;
	map->max_capacity = CT_CORR_MAP_MAX;
	map->slots = calloc(map->capacity, entry_size);
	return map->slots ? 0 : -1;
}

void ct_corr_map_release(struct ct_corr_map *map)
{
	free(map->slots);
	memset(map, 0, sizeof(*map));
}

/*
 * Doubles the table. Two waiting entries cannot meet in the new table:
 * ids equal modulo 2 × capacity are equal modulo capacity, and each old
 * slot held one entry.
 */
static int grow(struct ct_corr_map *map)
{
	size_t capacity = map->capacity * 2;
	unsigned char *slots = calloc(capacity, map->entry_size);

	if (!slots)
		return -1;
	for (size_t i = 0; i < map->capacity; i++) {
		struct ct_corr_entry *old =
		    (struct ct_corr_entry *)(map->slots + i * map->entry_size);

		if (old->used)
			memcpy(slot_at(map, capacity, slots, old->correlation_id), old,
			       map->entry_size);
	}
	free(map->slots);
	map->slots = slots;
	map->capacity = capacity;
	return 0;
}

void *ct_corr_map_insert(struct ct_corr_map *map, uint32_t correlation_id)
{
	struct ct_corr_entry *entry;

	if (!map->slots)
		return NULL;
	entry = slot_at(map, map->capacity, map->slots, correlation_id);
	while (entry->used && entry->correlation_id != correlation_id &&
	       map->waiting * 2 > map->capacity && map->capacity < map->max_capacity) {
		/* many calls wait at once: make room rather than lose them */
		if (grow(map) < 0)
			break;
		entry = slot_at(map, map->capacity, map->slots, correlation_id);
	}
	if (entry->used) {
		if (entry->correlation_id != correlation_id)
			map->evicted++;
		map->waiting--;
	}
	memset(entry, 0, map->entry_size);
	entry->correlation_id = correlation_id;
	entry->used = 1;
	map->waiting++;
	CT_ASSERT_DBG(map->waiting <= map->capacity);
	return entry;
}

void *ct_corr_map_find(const struct ct_corr_map *map, uint32_t correlation_id)
{
	struct ct_corr_entry *entry;

	if (!map->slots)
		return NULL;
	entry = slot_at(map, map->capacity, map->slots, correlation_id);
	return entry->used && entry->correlation_id == correlation_id ? entry : NULL;
}

void ct_corr_map_remove(struct ct_corr_map *map, void *entry)
{
	struct ct_corr_entry *head = entry;

	if (head->used) {
		head->used = 0;
		map->waiting--;
	}
}

void ct_corr_map_foreach(const struct ct_corr_map *map, void (*fn)(void *entry, void *data),
                         void *data)
{
	for (size_t i = 0; map->slots && i < map->capacity; i++) {
		struct ct_corr_entry *entry =
		    (struct ct_corr_entry *)(map->slots + i * map->entry_size);

		if (entry->used)
			fn(entry, data);
	}
}
