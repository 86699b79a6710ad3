/* SPDX-License-Identifier: MIT */
/*
 * row-index.h - a hash index over the rows of a table that only grows
 * (the kernels analysis' rows by kernel id, the transfers analysis'
 * groups by key): open addressing with linear probing, each slot the row
 * number + 1 (0: empty). The capacity is a power of two and doubles before
 * the index is half full; the table itself stays the caller's, who
 * compares keys while probing.
 *
 *	uint32_t pos = hash, r;
 *
 *	while ((r = ct_row_index_probe(&index, &pos)))
 *		if (same_key(&rows[r - 1], key))
 *			return r - 1;
 *	(make room for one more row, then:)
 *	ct_row_index_add(&index, hash, new_row);
 */
#ifndef CUDATRACE_ANALYZERS_ROW_INDEX_H
#define CUDATRACE_ANALYZERS_ROW_INDEX_H

#include <stdint.h>

struct ct_row_index {
	uint32_t *slots; /* owned: capacity slots, NULL before the first row */
	uint32_t capacity;
};

/* The hash of row ROW of the caller's table DATA, as given to ct_row_index_add. */
typedef uint32_t (*ct_row_hash_fn)(const void *data, uint32_t row);

/*
 * Makes room for one more row, ROWS being indexed now; rebuilds the index
 * twice as large, hashing the rows again with HASH, when it would be more
 * than half full. Returns 0, or -1 when out of memory (the index is as it
 * was).
 */
int ct_row_index_reserve(struct ct_row_index *index, uint32_t rows, ct_row_hash_fn hash,
                         const void *data);

/* Indexes ROW under HASH; room must have been made with ct_row_index_reserve. */
void ct_row_index_add(struct ct_row_index *index, uint32_t hash, uint32_t row);

void ct_row_index_release(struct ct_row_index *index);

/*
 * The rows that may have a hash, in turn: *POS starts as the hash, and
 * each call returns a row number + 1, then 0 when no row is left.
 */
static inline uint32_t ct_row_index_probe(const struct ct_row_index *index, uint32_t *pos)
{
	uint32_t slot;

	if (!index->slots)
		return 0;
	slot = *pos & (index->capacity - 1);
	*pos = slot + 1;
	return index->slots[slot];
}

#endif
