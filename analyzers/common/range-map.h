/* SPDX-License-Identifier: MIT */
/*
 * range-map.h - a set of live address ranges in address order (a GTree),
 * which knows at any moment the bytes they cover, the span from the first
 * to the last, and the largest gap between neighbours: the largest free
 * block between live allocations. An insert or removal costs O(log n).
 *
 * The gaps are kept in a second GTree ordered by size, so the largest is
 * its last node. That holds while ranges do not overlap, as in a sane
 * trace (each range ending before the next begins); when some do (an
 * address reused without a free seen, rounded extents that run into the
 * next allocation), the statistics walk the ranges instead, measuring
 * each gap from the furthest end before it, and stay exact.
 */
#ifndef CUDATRACE_ANALYZERS_RANGE_MAP_H
#define CUDATRACE_ANALYZERS_RANGE_MAP_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

struct ct_range_map {
	GTree *ranges;      /* start -> struct ct_range (owned; the key is its start) */
	GTree *gaps;        /* the ranges that follow a gap, by its size, then start; borrowed */
	size_t overlaps;    /* ranges that begin before the previous one ends */
	uint64_t covered;   /* sum of end - start */
	uint64_t requested; /* sum of requested bytes */
};

void ct_range_map_init(struct ct_range_map *map);
/* Frees every range. */
void ct_range_map_release(struct ct_range_map *map);

/*
 * Adds [start, end) for an allocation of REQUESTED bytes (end - start may
 * be larger: rounding). A range already at START is replaced.
 */
void ct_range_map_insert(struct ct_range_map *map, uint64_t start, uint64_t end,
                         uint64_t requested);
/* Removes the range at START; returns 1 and its requested bytes in *requested, 0 if none. */
int ct_range_map_remove(struct ct_range_map *map, uint64_t start, uint64_t *requested);

/* Aggregates over the whole map (0 when empty). */
struct ct_range_stats {
	size_t count;
	uint64_t lowest;      /* first start */
	uint64_t highest;     /* furthest end */
	uint64_t covered;     /* bytes inside ranges (ends - starts) */
	uint64_t requested;   /* requested bytes */
	uint64_t largest_gap; /* between a range and the furthest end before it */
};

void ct_range_map_stats(const struct ct_range_map *map, struct ct_range_stats *stats);

#endif
