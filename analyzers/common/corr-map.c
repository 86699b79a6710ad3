/* SPDX-License-Identifier: MIT */
/*
 * corr-map.c - a direct-mapped map of entries by correlation id, its slots
 * in a GHashTable (see corr-map.h).
 */
#include "contract/assert.h"
#include "corr-map.h"

_Static_assert((CT_CORR_MAP_INITIAL & (CT_CORR_MAP_INITIAL - 1)) == 0 &&
                   (CT_CORR_MAP_MAX & (CT_CORR_MAP_MAX - 1)) == 0,
               "the map is direct-mapped by the low bits of the id");

static gpointer slot_of(size_t capacity, uint32_t correlation_id)
{
	return GSIZE_TO_POINTER(correlation_id & (capacity - 1));
}

void ct_corr_map_init(struct ct_corr_map *map, size_t entry_size)
{
	CT_ASSERT(entry_size >= sizeof(struct ct_corr_entry));
	*map = (struct ct_corr_map){
		.slots = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free),
		.entry_size = entry_size,
		.capacity = CT_CORR_MAP_INITIAL,
	};
}

void ct_corr_map_release(struct ct_corr_map *map)
{
	if (map->slots)
		g_hash_table_destroy(map->slots);
	*map = (struct ct_corr_map){ 0 };
}

/*
 * Doubles the capacity. Two waiting entries cannot meet in the new slots:
 * ids equal modulo 2 × capacity are equal modulo capacity, and each old
 * slot held one entry.
 */
static void grow(struct ct_corr_map *map)
{
	GHashTable *slots = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	GHashTableIter iter;
	gpointer value;

	map->capacity *= 2;
	g_hash_table_iter_init(&iter, map->slots);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct ct_corr_entry *entry = value;

		g_hash_table_insert(slots, slot_of(map->capacity, entry->correlation_id), value);
		g_hash_table_iter_steal(&iter);
	}
	g_hash_table_destroy(map->slots);
	map->slots = slots;
}

void *ct_corr_map_insert(struct ct_corr_map *map, uint32_t correlation_id)
{
	struct ct_corr_entry *entry =
	    g_hash_table_lookup(map->slots, slot_of(map->capacity, correlation_id));

	while (entry && entry->correlation_id != correlation_id &&
	       ct_corr_map_waiting(map) * 2 > map->capacity && map->capacity < CT_CORR_MAP_MAX) {
		/* many calls wait at once: make room rather than lose them */
		grow(map);
		entry = g_hash_table_lookup(map->slots, slot_of(map->capacity, correlation_id));
	}
	if (entry && entry->correlation_id != correlation_id)
		map->evicted++;
	entry = g_malloc0(map->entry_size);
	entry->correlation_id = correlation_id;
	/* frees the entry the slot held, if any */
	g_hash_table_replace(map->slots, slot_of(map->capacity, correlation_id), entry);
	CT_ASSERT_DBG(ct_corr_map_waiting(map) <= map->capacity);
	return entry;
}

void *ct_corr_map_find(const struct ct_corr_map *map, uint32_t correlation_id)
{
	struct ct_corr_entry *entry =
	    g_hash_table_lookup(map->slots, slot_of(map->capacity, correlation_id));

	return entry && entry->correlation_id == correlation_id ? entry : NULL;
}

void ct_corr_map_remove(struct ct_corr_map *map, void *entry)
{
	const struct ct_corr_entry *head = entry;

	g_hash_table_remove(map->slots, slot_of(map->capacity, head->correlation_id));
}

size_t ct_corr_map_waiting(const struct ct_corr_map *map)
{
	return g_hash_table_size(map->slots);
}

void ct_corr_map_foreach(const struct ct_corr_map *map, void (*fn)(void *entry, void *data),
                         void *data)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, map->slots);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		fn(value, data);
}
