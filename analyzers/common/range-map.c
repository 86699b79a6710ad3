/* SPDX-License-Identifier: MIT */
/*
 * range-map.c - live address ranges in a GTree, with their gaps in another
 * (see range-map.h).
 */
#include <stdbool.h>

#include "contract/assert.h"
#include "range-map.h"

struct ct_range {
	uint64_t start, end, requested;
	/* what separates it from the previous range (none for the first) */
	uint64_t gap;  /* start - the previous end when positive, else 0: in map->gaps */
	bool overlaps; /* it begins before the previous range ends */
};

static gint by_start(gconstpointer a, gconstpointer b, gpointer data)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static gint by_gap(gconstpointer pa, gconstpointer pb, gpointer data)
{
	const struct ct_range *a = pa, *b = pb;

	if (a->gap != b->gap)
		return a->gap < b->gap ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

void ct_range_map_init(struct ct_range_map *map)
{
	*map = (struct ct_range_map){
		.ranges = g_tree_new_full(by_start, NULL, NULL, g_free),
		.gaps = g_tree_new_full(by_gap, NULL, NULL, NULL),
	};
}

void ct_range_map_release(struct ct_range_map *map)
{
	if (map->gaps)
		g_tree_destroy(map->gaps);
	if (map->ranges)
		g_tree_destroy(map->ranges);
	*map = (struct ct_range_map){ 0 };
}

static struct ct_range *range_of(GTreeNode *node)
{
	return node ? g_tree_node_value(node) : NULL;
}

/* R no longer counts as following a gap or an overlap. */
static void unlink_range(struct ct_range_map *map, struct ct_range *r)
{
	if (r->gap)
		g_tree_remove(map->gaps, r);
	if (r->overlaps)
		map->overlaps--;
	r->gap = 0;
	r->overlaps = false;
}

/* R now follows PREV (NULL: R is the first). */
static void link_range(struct ct_range_map *map, struct ct_range *r, const struct ct_range *prev)
{
	unlink_range(map, r);
	if (!prev)
		return;
	if (r->start > prev->end) {
		r->gap = r->start - prev->end;
		g_tree_insert(map->gaps, r, r);
	} else if (r->start < prev->end) {
		r->overlaps = true;
		map->overlaps++;
	}
}

void ct_range_map_insert(struct ct_range_map *map, uint64_t start, uint64_t end, uint64_t requested)
{
	GTreeNode *node = g_tree_lookup_node(map->ranges, &start);
	struct ct_range *r = range_of(node);

	if (end < start)
		end = start;
	if (r) {
		/* a new allocation at the same address replaces the old one */
		map->covered -= r->end - r->start;
		map->requested -= r->requested;
		r->end = end;
		r->requested = requested;
	} else {
		r = g_new(struct ct_range, 1);
		*r = (struct ct_range){ .start = start, .end = end, .requested = requested };
		node = g_tree_insert_node(map->ranges, &r->start, r);
		link_range(map, r, range_of(g_tree_node_previous(node)));
	}
	map->covered += end - start;
	map->requested += requested;
	/* the next range's gap runs from this one's end */
	if (g_tree_node_next(node))
		link_range(map, range_of(g_tree_node_next(node)), r);
}

int ct_range_map_remove(struct ct_range_map *map, uint64_t start, uint64_t *requested)
{
	GTreeNode *node = g_tree_lookup_node(map->ranges, &start);
	struct ct_range *r = range_of(node), *prev, *next;

	if (requested)
		*requested = r ? r->requested : 0;
	if (!r)
		return 0;
	prev = range_of(g_tree_node_previous(node));
	next = range_of(g_tree_node_next(node));
	unlink_range(map, r);
	map->covered -= r->end - r->start;
	map->requested -= r->requested;
	/* frees R */
	g_tree_remove(map->ranges, &start);
	if (next)
		link_range(map, next, prev);
	return 1;
}

/* The statistics by a walk in address order, gaps from the furthest end before each range. */
static void walk_stats(const struct ct_range_map *map, struct ct_range_stats *stats)
{
	uint64_t furthest = 0;

	for (GTreeNode *node = g_tree_node_first(map->ranges); node;
	     node = g_tree_node_next(node)) {
		const struct ct_range *r = range_of(node);

		if (node != g_tree_node_first(map->ranges) && r->start > furthest &&
		    r->start - furthest > stats->largest_gap)
			stats->largest_gap = r->start - furthest;
		if (r->end > furthest)
			furthest = r->end;
	}
	stats->highest = furthest;
}

void ct_range_map_stats(const struct ct_range_map *map, struct ct_range_stats *stats)
{
	GTreeNode *first = g_tree_node_first(map->ranges);
	GTreeNode *widest = g_tree_node_last(map->gaps);

	*stats = (struct ct_range_stats){ 0 };
	if (!first)
		return;
	stats->count = (size_t)g_tree_nnodes(map->ranges);
	stats->lowest = range_of(first)->start;
	stats->covered = map->covered;
	stats->requested = map->requested;
	if (map->overlaps) {
		walk_stats(map, stats);
		return;
	}
	/* in order and apart: each range ends after the previous one, the last furthest */
	stats->highest = range_of(g_tree_node_last(map->ranges))->end;
	stats->largest_gap = widest ? range_of(widest)->gap : 0;
	CT_ASSERT_DBG(stats->highest >= stats->lowest);
}
