/* SPDX-License-Identifier: MIT */
/*
 * alloc-map.h - live allocations by (process, address space, address): an
 * open-addressing hash table whose records come from a pool, so that
 * adding and removing an allocation costs no malloc once the pool has
 * grown to the number of allocations live at once.
 *
 * Records released with ct_alloc_map_remove() belong to the caller until it
 * gives them back with ct_alloc_map_recycle() (memory.c keeps the ones
 * that were live at the peak); the map frees every record, given back or
 * not, in ct_alloc_map_destroy().
 */
#ifndef CUDATRACE_ANALYZERS_ALLOC_MAP_H
#define CUDATRACE_ANALYZERS_ALLOC_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct ct_thread;

_Static_assert(CT_ENUM_COUNT(mem_kind) <= UINT8_MAX, "memory kinds are kept in 8 bits");

/*
 * Address spaces: VMM physical handles are not addresses and mappings
 * alias the memory behind them, so each has a space of its own.
 */
enum ct_addr_space {
	CT_SPACE_MEMORY = 0,
	CT_SPACE_VMM_HANDLE = 1,
	CT_SPACE_VMM_MAP = 2,
};

/* The address space of allocations of KIND (enum ct_mem_kind). */
enum ct_addr_space ct_addr_space_of(unsigned kind);

struct ct_alloc {
	uint64_t address;
	uint64_t size;
	int64_t time_ns;          /* when allocated */
	uint64_t seq;             /* ct_event.seq of the allocation */
	struct ct_thread *thread; /* borrowed from the context */
	uint32_t process;         /* ct_process.index */
	uint32_t path;            /* NVTX path at the allocation */
	struct ct_api_ref api;
	uint32_t stream;
	uint8_t device;
	uint8_t kind;
	uint8_t space;
	struct ct_alloc *next; /* free for the owner's lists while removed */
};

struct ct_alloc_map;

struct ct_alloc_map *ct_alloc_map_create(void);
/* Frees the table and every record, in the map or not. NULL is fine. */
void ct_alloc_map_destroy(struct ct_alloc_map *map);

/*
 * A zeroed record for (process, space, address), inserted; the caller fills
 * the rest. If one exists already (an address reused without a free seen),
 * it is returned as is for the caller to overwrite, and *replaced is set to
 * 1. NULL when out of memory.
 */
struct ct_alloc *ct_alloc_map_insert(struct ct_alloc_map *map, uint32_t process, unsigned space,
                                     uint64_t address, int *replaced);
/* The record, NULL if none. */
struct ct_alloc *ct_alloc_map_find(const struct ct_alloc_map *map, uint32_t process, unsigned space,
                                   uint64_t address);
/* Takes the record out of the table; it stays valid until recycled. */
struct ct_alloc *ct_alloc_map_remove(struct ct_alloc_map *map, uint32_t process, unsigned space,
                                     uint64_t address);
/* Gives a removed record back to the pool. */
void ct_alloc_map_recycle(struct ct_alloc_map *map, struct ct_alloc *record);

size_t ct_alloc_map_count(const struct ct_alloc_map *map);
/* Calls FN on every record in the table (any order); FN must not change the map. */
void ct_alloc_map_foreach(const struct ct_alloc_map *map,
                          void (*fn)(const struct ct_alloc *, void *), void *data);

#endif
