/* SPDX-License-Identifier: MIT */
/*
 * alloc-map.c - live allocations: linear-probing hash table with
 * backward-shift deletion (no tombstones, so lookups stay short however
 * many allocations come and go), records from a chunked pool.
 */
#include <stdlib.h>

#include "alloc-map.h"

#define MAP_MIN_CAPACITY 1024u
#define POOL_CHUNK       1024u

/* Records are allocated POOL_CHUNK at a time; chunks are freed together. */
struct pool_chunk {
	struct pool_chunk *next;
	struct ct_alloc records[POOL_CHUNK];
};

struct ct_alloc_map {
	struct ct_alloc **slots; /* owned array of capacity; records owned by chunks */
	size_t capacity;         /* power of two */
	size_t count;
	struct pool_chunk *chunks;  /* owned */
	struct ct_alloc *free_list; /* records not in use */
};

enum ct_addr_space ct_addr_space_of(unsigned kind)
{
	if (kind == CT_MEM_VMM_PHYSICAL)
		return CT_SPACE_VMM_HANDLE;
	if (kind == CT_MEM_VMM_MAP)
		return CT_SPACE_VMM_MAP;
	return CT_SPACE_MEMORY;
}

static uint64_t key_hash(uint32_t process, unsigned space, uint64_t address)
{
	uint64_t h = address ^ ((uint64_t)process << 40) ^ ((uint64_t)space << 60);

	/* splitmix64 finaliser: allocation addresses share their low bits */
	h ^= h >> 30;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 27;
	h *= UINT64_C(0x94d049bb133111eb);
	h ^= h >> 31;
	return h;
}

static int key_equal(const struct ct_alloc *a, uint32_t process, unsigned space, uint64_t address)
{
	return a->address == address && a->process == process && a->space == space;
}

struct ct_alloc_map *ct_alloc_map_create(void)
{
	struct ct_alloc_map *map = calloc(1, sizeof(*map));

	if (!map)
		return NULL;
	map->slots = calloc(MAP_MIN_CAPACITY, sizeof(*map->slots));
	if (!map->slots) {
		free(map);
		return NULL;
	}
	map->capacity = MAP_MIN_CAPACITY;
	return map;
}

void ct_alloc_map_destroy(struct ct_alloc_map *map)
{
	struct pool_chunk *chunk, *next;

	if (!map)
		return;
	for (chunk = map->chunks; chunk; chunk = next) {
		next = chunk->next;
		free(chunk);
	}
	free(map->slots);
	free(map);
}

static struct ct_alloc *pool_take(struct ct_alloc_map *map)
{
	struct ct_alloc *record;

	if (!map->free_list) {
		struct pool_chunk *chunk = malloc(sizeof(*chunk));

		if (!chunk)
			return NULL;
		chunk->next = map->chunks;
		map->chunks = chunk;
		for (size_t i = 0; i < POOL_CHUNK; i++) {
			chunk->records[i].next = map->free_list;
			map->free_list = &chunk->records[i];
		}
	}
	record = map->free_list;
	map->free_list = record->next;
	return record;
}

void ct_alloc_map_recycle(struct ct_alloc_map *map, struct ct_alloc *record)
{
	record->next = map->free_list;
	map->free_list = record;
}

static size_t slot_of(const struct ct_alloc_map *map, uint32_t process, unsigned space,
                      uint64_t address)
{
	size_t mask = map->capacity - 1;
	size_t i = key_hash(process, space, address) & mask;

	while (map->slots[i] && !key_equal(map->slots[i], process, space, address))
		i = (i + 1) & mask;
	return i;
}

/* Doubles the table; the records stay where they are. */
static int grow(struct ct_alloc_map *map)
{
	struct ct_alloc **old = map->slots;
	size_t old_capacity = map->capacity;
	struct ct_alloc **slots = calloc(old_capacity * 2, sizeof(*slots));

	if (!slots)
		return -1;
	map->slots = slots;
	map->capacity = old_capacity * 2;
	for (size_t i = 0; i < old_capacity; i++) {
		struct ct_alloc *a = old[i];

		if (a)
			map->slots[slot_of(map, a->process, a->space, a->address)] = a;
	}
	free(old);
	return 0;
}

struct ct_alloc *ct_alloc_map_insert(struct ct_alloc_map *map, uint32_t process, unsigned space,
                                     uint64_t address, int *replaced)
{
	struct ct_alloc *record;
	size_t i;

	*replaced = 0;
	/* keep the load under 1/2 */
	if ((map->count + 1) * 2 > map->capacity && grow(map) < 0)
		return NULL;
	i = slot_of(map, process, space, address);
	if (map->slots[i]) {
		*replaced = 1;
		return map->slots[i];
	}
	record = pool_take(map);
	if (!record)
		return NULL;
	*record =
	    (struct ct_alloc){ .address = address, .process = process, .space = (uint8_t)space };
	map->slots[i] = record;
	map->count++;
	return record;
}

struct ct_alloc *ct_alloc_map_find(const struct ct_alloc_map *map, uint32_t process, unsigned space,
                                   uint64_t address)
{
	return map->slots[slot_of(map, process, space, address)];
}

struct ct_alloc *ct_alloc_map_remove(struct ct_alloc_map *map, uint32_t process, unsigned space,
                                     uint64_t address)
{
	size_t mask = map->capacity - 1;
	size_t hole = slot_of(map, process, space, address);
	struct ct_alloc *record = map->slots[hole];
	size_t i;

	if (!record)
		return NULL;
	map->slots[hole] = NULL;
	map->count--;
	/* backward shift: move up every later record of the run that may sit in the hole */
	for (i = (hole + 1) & mask; map->slots[i]; i = (i + 1) & mask) {
		struct ct_alloc *a = map->slots[i];
		size_t home = key_hash(a->process, a->space, a->address) & mask;

		/* a may move to the hole if its home is not in (hole, i] cyclically */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			map->slots[hole] = a;
			map->slots[i] = NULL;
			hole = i;
		}
	}
	record->next = NULL;
	return record;
}

size_t ct_alloc_map_count(const struct ct_alloc_map *map)
{
	return map->count;
}

void ct_alloc_map_foreach(const struct ct_alloc_map *map,
                          void (*fn)(const struct ct_alloc *, void *), void *data)
{
	for (size_t i = 0; i < map->capacity; i++)
		if (map->slots[i])
			fn(map->slots[i], data);
}
