/* SPDX-License-Identifier: MIT */
/*
 * spares.h - items no longer in use, kept for the next ones, linked
 * through their first bytes (which a spare does not need) and taken again
 * first in, first out.
 *
 * First in, first out, because the holders (corr-map.h's entries,
 * gpu-time-writer.c's operations) hold tens of thousands of items, far
 * more than the cache, and give them back in about the order they took
 * them: each new item takes the memory of the one given back longest
 * ago, so a loop's items are written and read back in the order of their
 * memory, which the cache's prefetching follows. Last in, first out
 * reversed each burst of items given back, and after a few rounds the
 * items of consecutive calls lay anywhere in memory: a cache miss for
 * most of them.
 *
 *	struct ct_spares spares = { 0 };
 *	item = ct_spares_take(&spares);    (NULL: none, allocate one)
 *	ct_spares_put(&spares, item);      (its first sizeof(void *) bytes overwritten)
 */
#ifndef CUDATRACE_ANALYZERS_SPARES_H
#define CUDATRACE_ANALYZERS_SPARES_H

#include <stddef.h>

struct ct_spares {
	void *first; /* the one taken next, NULL: none */
	void *last;  /* the one given back last, where the next goes */
};

/* ITEM, of at least sizeof(void *) bytes and aligned for a pointer, is spare. */
static inline void ct_spares_put(struct ct_spares *s, void *item)
{
	*(void **)item = NULL;
	if (s->last)
		*(void **)s->last = item;
	else
		s->first = item;
	s->last = item;
}

/* The spare given back longest ago, no longer spare; NULL if none. */
static inline void *ct_spares_take(struct ct_spares *s)
{
	void *item = s->first;

	if (item) {
		s->first = *(void **)item;
		if (!s->first)
			s->last = NULL;
	}
	return item;
}

#endif
