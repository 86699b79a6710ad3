/* SPDX-License-Identifier: MIT */
/*
 * range-map.h - a set of live address ranges kept in address order (a
 * treap), each subtree knowing its lowest start, highest end, bytes
 * covered and largest gap between neighbours. So the largest free block
 * between live allocations, and the free bytes among them, are known at
 * any moment in O(1), and an insert or removal costs O(log n).
 *
 * Nodes come from a pool owned by the map: no malloc per insert once the
 * pool has grown to the largest number of live ranges.
 */
#ifndef CUDATRACE_ANALYZERS_RANGE_MAP_H
#define CUDATRACE_ANALYZERS_RANGE_MAP_H

#include <stddef.h>
#include <stdint.h>

struct ct_range_node;

struct ct_range_map {
	struct ct_range_node *root; /* nodes owned by the chunks */
	struct ct_range_node *free_nodes;
	struct ct_range_chunk *chunks; /* owned */
	size_t count;
	uint64_t covered;   /* sum of end - start */
	uint64_t requested; /* sum of requested bytes */
	uint64_t seed;
};

void ct_range_map_init(struct ct_range_map *map);
/* Frees every node. */
void ct_range_map_release(struct ct_range_map *map);

/*
 * Adds [start, end) for an allocation of REQUESTED bytes (end - start may
 * be larger: rounding). A range already at START is replaced. Returns 0,
 * or -1 when out of memory.
 */
int ct_range_map_insert(struct ct_range_map *map, uint64_t start, uint64_t end, uint64_t requested);
/* Removes the range at START; returns 1 and its requested bytes in *requested, 0 if none. */
int ct_range_map_remove(struct ct_range_map *map, uint64_t start, uint64_t *requested);

/* Aggregates over the whole map (0 when empty). */
struct ct_range_stats {
	size_t count;
	uint64_t lowest;      /* first start */
	uint64_t highest;     /* last end */
	uint64_t covered;     /* bytes inside ranges (ends - starts) */
	uint64_t requested;   /* requested bytes */
	uint64_t largest_gap; /* between two neighbouring ranges */
};

void ct_range_map_stats(const struct ct_range_map *map, struct ct_range_stats *stats);

#endif
