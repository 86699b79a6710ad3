/* SPDX-License-Identifier: MIT */
/*
 * ring.h - a queue of fixed-size items in a ring of slots: taken from the
 * front, added at the back, read anywhere by position. Its capacity is a
 * power of two and doubles when it is full, so adding and taking cost no
 * call and move nothing; a GArray with a head index paid a call to add,
 * and a move of what was left to drop what had been taken.
 *
 *	ct_ring_init(&r, sizeof(struct item));
 *	*(struct item *)ct_ring_push(&r) = item;
 *	first = ct_ring_at(&r, 0); ct_ring_drop_front(&r);
 *	ct_ring_release(&r);
 */
#ifndef CUDATRACE_ANALYZERS_RING_H
#define CUDATRACE_ANALYZERS_RING_H

#include <stddef.h>

#include "contract/assert.h"

struct ct_ring {
	char *items; /* capacity slots of item_size bytes; owned */
	size_t item_size;
	size_t capacity; /* a power of two, or 0 before the first item */
	size_t head;     /* the slot of the front item */
	size_t count;
};

void ct_ring_init(struct ct_ring *r, size_t item_size);
void ct_ring_release(struct ct_ring *r);

/* Doubles R's capacity (ct_ring_push's slow path). */
void ct_ring_grow(struct ct_ring *r);

static inline size_t ct_ring_count(const struct ct_ring *r)
{
	return r->count;
}

/* The item at position I from the front (I < count). */
static inline void *ct_ring_at(const struct ct_ring *r, size_t i)
{
	CT_ASSERT_DBG(i < r->count);
	return r->items + ((r->head + i) & (r->capacity - 1)) * r->item_size;
}

/* A new last item, its bytes the caller's to set. */
static inline void *ct_ring_push(struct ct_ring *r)
{
	if (r->count == r->capacity)
		ct_ring_grow(r);
	r->count++;
	return ct_ring_at(r, r->count - 1);
}

/* Drops the front item (count > 0). */
static inline void ct_ring_drop_front(struct ct_ring *r)
{
	CT_ASSERT_DBG(r->count > 0);
	r->head = (r->head + 1) & (r->capacity - 1);
	r->count--;
}

#endif
