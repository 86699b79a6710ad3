/* SPDX-License-Identifier: MIT */
/*
 * ring.c - a queue in a ring of slots (see ring.h).
 */
#include <string.h>

#include <glib.h>

#include "ring.h"

/* Slots of a ring's first allocation. */
#define RING_FIRST 64u

void ct_ring_init(struct ct_ring *r, size_t item_size)
{
	*r = (struct ct_ring){ .item_size = item_size };
}

void ct_ring_release(struct ct_ring *r)
{
	g_free(r->items);
	*r = (struct ct_ring){ 0 };
}

void ct_ring_grow(struct ct_ring *r)
{
	size_t capacity = r->capacity ? r->capacity * 2 : RING_FIRST;
	char *items = g_malloc_n(capacity, r->item_size);
	/* the items in order from the front: those up to the end of the slots, then the rest */
	size_t first = r->capacity - r->head < r->count ? r->capacity - r->head : r->count;

	if (r->count) {
		memcpy(items, r->items + r->head * r->item_size, first * r->item_size);
		memcpy(items + first * r->item_size, r->items, (r->count - first) * r->item_size);
	}
	g_free(r->items);
	r->items = items;
	r->capacity = capacity;
	r->head = 0;
}
