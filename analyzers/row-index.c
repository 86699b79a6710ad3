/* SPDX-License-Identifier: MIT */
/*
 * row-index.c - the hash index over a growing table's rows (see
 * row-index.h).
 */
#include <stdlib.h>

#include "row-index.h"

/* The first free slot for HASH. */
static uint32_t free_slot(const uint32_t *slots, uint32_t capacity, uint32_t hash)
{
	uint32_t i = hash & (capacity - 1);

	while (slots[i])
		i = (i + 1) & (capacity - 1);
	return i;
}

int ct_row_index_reserve(struct ct_row_index *index, uint32_t rows, ct_row_hash_fn hash,
                         const void *data)
{
	uint32_t capacity = index->capacity ? index->capacity * 2 : 128;
	uint32_t *slots;

	if ((rows + 1) * 2 <= index->capacity)
		return 0;
	slots = calloc(capacity, sizeof(*slots));
	if (!slots)
		return -1;
	for (uint32_t r = 0; r < rows; r++)
		slots[free_slot(slots, capacity, hash(data, r))] = r + 1;
	free(index->slots);
	index->slots = slots;
	index->capacity = capacity;
	return 0;
}

void ct_row_index_add(struct ct_row_index *index, uint32_t hash, uint32_t row)
{
	index->slots[free_slot(index->slots, index->capacity, hash)] = row + 1;
}

void ct_row_index_release(struct ct_row_index *index)
{
	free(index->slots);
	index->slots = NULL;
	index->capacity = 0;
}
