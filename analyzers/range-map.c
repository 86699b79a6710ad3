/* SPDX-License-Identifier: MIT */
/*
 * range-map.c - live address ranges in a treap with gap aggregates (see
 * range-map.h). Ranges of one map do not overlap in a sane trace; if they
 * do, gaps are clamped at 0 and nothing breaks.
 */
#include <stdlib.h>

#include "range-map.h"

#define CHUNK_NODES 512u

/*
 * Only what needs the tree is kept per subtree (lowest start, highest end,
 * largest gap); sums are counters of the map. The aggregates are computed
 * lazily: inserts and removals mark the nodes they change dirty, and the
 * next ct_range_map_stats() recomputes the dirty subtrees only. Each node
 * marked is recomputed once, so the cost is never more than keeping them
 * up to date at every change, and far less when stats are asked rarely.
 */
struct ct_range_node {
	uint64_t start, end, requested;
	struct ct_range_node *left, *right;
	/* aggregates of the subtree rooted here, valid unless dirty */
	uint64_t min_start, max_end, max_gap;
	uint32_t priority;
	uint8_t dirty;
};

struct ct_range_chunk {
	struct ct_range_chunk *next;
	struct ct_range_node nodes[CHUNK_NODES];
};

void ct_range_map_init(struct ct_range_map *map)
{
	*map = (struct ct_range_map){ .seed = UINT64_C(0x9e3779b97f4a7c15) };
}

void ct_range_map_release(struct ct_range_map *map)
{
	struct ct_range_chunk *chunk, *next;

	for (chunk = map->chunks; chunk; chunk = next) {
		next = chunk->next;
		free(chunk);
	}
	ct_range_map_init(map);
}

static uint32_t next_priority(struct ct_range_map *map)
{
	/* xorshift64 */
	map->seed ^= map->seed << 13;
	map->seed ^= map->seed >> 7;
	map->seed ^= map->seed << 17;
	return (uint32_t)(map->seed >> 32);
}

static struct ct_range_node *node_take(struct ct_range_map *map)
{
	struct ct_range_node *node;

	if (!map->free_nodes) {
		struct ct_range_chunk *chunk = malloc(sizeof(*chunk));

		if (!chunk)
			return NULL;
		chunk->next = map->chunks;
		map->chunks = chunk;
		for (size_t i = 0; i < CHUNK_NODES; i++) {
			chunk->nodes[i].left = map->free_nodes;
			map->free_nodes = &chunk->nodes[i];
		}
	}
	node = map->free_nodes;
	map->free_nodes = node->left;
	return node;
}

static void node_give(struct ct_range_map *map, struct ct_range_node *node)
{
	node->left = map->free_nodes;
	map->free_nodes = node;
}

static uint64_t gap(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void update(struct ct_range_node *n)
{
	const struct ct_range_node *l = n->left, *r = n->right;
	uint64_t end_before = n->end;
	uint64_t largest = 0;

	n->min_start = n->start;
	if (l) {
		n->min_start = l->min_start;
		largest = max64(l->max_gap, gap(l->max_end, n->start));
		end_before = max64(end_before, l->max_end);
	}
	n->max_end = end_before;
	if (r) {
		largest = max64(largest, max64(r->max_gap, gap(end_before, r->min_start)));
		n->max_end = max64(end_before, r->max_end);
	}
	n->max_gap = largest;
}

static struct ct_range_node *rotate_right(struct ct_range_node *n)
{
	struct ct_range_node *l = n->left;

	n->left = l->right;
	l->right = n;
	n->dirty = 1;
	l->dirty = 1;
	return l;
}

static struct ct_range_node *rotate_left(struct ct_range_node *n)
{
	struct ct_range_node *r = n->right;

	n->right = r->left;
	r->left = n;
	n->dirty = 1;
	r->dirty = 1;
	return r;
}

/*
 * Inserts NODE under ROOT; an existing node at the same start takes NODE's
 * values (its old ones are taken out of the map's sums).
 */
static struct ct_range_node *insert(struct ct_range_map *map, struct ct_range_node *root,
                                    struct ct_range_node *node, int *merged)
{
	if (!root)
		return node;
	if (node->start == root->start) {
		map->covered -= root->end - root->start;
		map->requested -= root->requested;
		root->end = node->end;
		root->requested = node->requested;
		*merged = 1;
	} else if (node->start < root->start) {
		root->left = insert(map, root->left, node, merged);
		if (root->left->priority > root->priority)
			return rotate_right(root);
	} else {
		root->right = insert(map, root->right, node, merged);
		if (root->right->priority > root->priority)
			return rotate_left(root);
	}
	root->dirty = 1;
	return root;
}

int ct_range_map_insert(struct ct_range_map *map, uint64_t start, uint64_t end, uint64_t requested)
{
	struct ct_range_node *node = node_take(map);
	int merged = 0;

	if (!node)
		return -1;
	*node = (struct ct_range_node){
		.start = start,
		.end = end > start ? end : start,
		.requested = requested,
		.priority = next_priority(map),
		.dirty = 1,
	};
	map->root = insert(map, map->root, node, &merged);
	map->covered += node->end - node->start;
	map->requested += node->requested;
	if (merged)
		node_give(map, node);
	else
		map->count++;
	return 0;
}

/* Joins two treaps whose keys are all ordered (all of A before all of B). */
static struct ct_range_node *join(struct ct_range_node *a, struct ct_range_node *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->priority > b->priority) {
		a->right = join(a->right, b);
		a->dirty = 1;
		return a;
	}
	b->left = join(a, b->left);
	b->dirty = 1;
	return b;
}

static struct ct_range_node *remove_node(struct ct_range_map *map, struct ct_range_node *root,
                                         uint64_t start, int *found, uint64_t *requested)
{
	if (!root)
		return NULL;
	if (start == root->start) {
		struct ct_range_node *rest = join(root->left, root->right);

		*found = 1;
		*requested = root->requested;
		map->covered -= root->end - root->start;
		map->requested -= root->requested;
		node_give(map, root);
		return rest;
	}
	if (start < root->start)
		root->left = remove_node(map, root->left, start, found, requested);
	else
		root->right = remove_node(map, root->right, start, found, requested);
	root->dirty = 1;
	return root;
}

int ct_range_map_remove(struct ct_range_map *map, uint64_t start, uint64_t *requested)
{
	int found = 0;
	uint64_t size = 0;

	map->root = remove_node(map, map->root, start, &found, &size);
	if (found)
		map->count--;
	if (requested)
		*requested = size;
	return found;
}

/* Recomputes the aggregates of the dirty nodes under N, children first. */
static void settle(struct ct_range_node *n)
{
	if (!n || !n->dirty)
		return;
	settle(n->left);
	settle(n->right);
	update(n);
	n->dirty = 0;
}

void ct_range_map_stats(const struct ct_range_map *map, struct ct_range_stats *stats)
{
	const struct ct_range_node *r = map->root;

	settle(map->root);

	*stats = (struct ct_range_stats){ 0 };
	if (!r)
		return;
	stats->count = map->count;
	stats->lowest = r->min_start;
	stats->highest = r->max_end;
	stats->covered = map->covered;
	stats->requested = map->requested;
	stats->largest_gap = r->max_gap;
}
