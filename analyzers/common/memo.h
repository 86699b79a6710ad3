/* SPDX-License-Identifier: MIT */
/*
 * memo.h - the values found last in a table, by their keys, checked
 * before the table is searched: a loop's lookups repeat among a few keys
 * (a loop's two calls, a training step's dozens of kernels), where one
 * value kept missed at every other lookup. Direct-mapped: a key's place
 * is its bits folded, so a lookup is one comparison. A value stays until
 * a key of its place replaces it, or the memo is cleared: its owner
 * clears it when the table frees a value the memo may hold.
 *
 *	struct ct_memo memo = { 0 };
 *	row = ct_memo_find(&memo, key);
 *	if (!row) {
 *		row = g_hash_table_lookup(table, &key);
 *		ct_memo_keep(&memo, key, row);
 *	}
 */
#ifndef CUDATRACE_ANALYZERS_MEMO_H
#define CUDATRACE_ANALYZERS_MEMO_H

#include <stdint.h>
#include <string.h>

/* Values kept: a training step runs some dozens of kernels; 16 places kept
 * fewer than two in three of them on a PyTorch step (torch-step.py). */
#define CT_MEMO_PLACES 64u

struct ct_memo {
	uint64_t key[CT_MEMO_PLACES];
	void *value[CT_MEMO_PLACES]; /* NULL: none */
};

/* Where KEY is kept: its bits folded, as the keys are small integers (call
 * ids, shape ids) or hashes (kernel ids). */
static inline unsigned ct_memo_place(uint64_t key)
{
	return (unsigned)((key ^ key >> 16 ^ key >> 32) % CT_MEMO_PLACES);
}

/* The value kept for KEY, or NULL. */
static inline void *ct_memo_find(const struct ct_memo *m, uint64_t key)
{
	unsigned at = ct_memo_place(key);

	return m->value[at] && m->key[at] == key ? m->value[at] : NULL;
}

/* Keeps VALUE (NULL: nothing) for KEY, in place of the one of its place. */
static inline void ct_memo_keep(struct ct_memo *m, uint64_t key, void *value)
{
	unsigned at = ct_memo_place(key);

	if (!value)
		return;
	m->key[at] = key;
	m->value[at] = value;
}

/* Forgets every value (the table freed one). */
static inline void ct_memo_clear(struct ct_memo *m)
{
	memset(m, 0, sizeof(*m));
}

#endif
