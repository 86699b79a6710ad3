/* SPDX-License-Identifier: MIT */
/*
 * corr-map.h - host operations waiting for their GPU record, by CUPTI
 * correlation id, in one process.
 *
 * A memcpy or launch event arrives when its call returns; the gpu_memcpy
 * or gpu_kernel record with the same correlation id arrives later, when
 * CUPTI hands its activity buffer back, or never (CUPTI dropped it).
 * Correlation ids grow by one per call, so the map is direct-mapped: an
 * entry's slot is its id modulo the capacity, in an array of slots, and
 * entries waiting at the same time sit side by side. The capacity doubles
 * while more than half of it waits for records, up to a maximum. A slot
 * still taken by another entry when a newcomer comes: the entry is given
 * up if it has waited longer than CT_CORR_MAP_PATIENCE_NS (its record was
 * lost, or never comes) and counted as evicted; else it is set aside, in
 * a hash table, for its record may still come. Ids do not tell how long
 * an entry has waited: a framework makes thousands of calls between two
 * launches (cudaGetDevice, stream queries), and CUPTI hands records over
 * only when a buffer is full or flushed, once a second by default, so the
 * record of a launch may come after tens of thousands of other calls.
 * When a quarter of the capacity is set aside, the capacity doubles and
 * the entries set aside go back to their slots where they can; at the
 * maximum, the occupant is given up instead. So a few entries whose
 * record never comes do not make the map grow, and a sparse run of ids
 * does. Entries are carved from blocks of CT_CORR_MAP_BLOCK, side by side
 * in the order they were made, and those that no longer wait are kept on a
 * free list for the next ones: an operation costs no allocation, and no
 * hashing while none is set aside, a few instructions where a GHashTable
 * of allocated entries cost about a thousand. So memory is bounded by the
 * work in flight, never by the length of the trace.
 *
 * Entries are structs of the caller's that begin with a struct
 * ct_corr_entry; the map owns them.
 */
#ifndef CUDATRACE_ANALYZERS_CORR_MAP_H
#define CUDATRACE_ANALYZERS_CORR_MAP_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "spares.h"

/* The head of every entry. */
struct ct_corr_entry {
	uint32_t correlation_id;
	int64_t time_ns; /* when it began to wait */
};

/* The values of the ids' low bits the entries set aside are counted by. */
#define CT_CORR_MAP_ASIDE_BITS 256u

struct ct_corr_map {
	void **slots;          /* slot -> the entry in it, or NULL; owned */
	GPtrArray *blocks;     /* the blocks the entries are carved from; owned */
	size_t carved;         /* entries carved from the last block */
	struct ct_spares free; /* entries that wait no more (spares.h) */
	size_t entry_size;
	size_t capacity;   /* slots, a power of two */
	size_t waiting;    /* entries in the slots and set aside */
	uint64_t evicted;  /* entries given up to make room */
	GHashTable *aside; /* id -> waiting entry whose slot a newer one took; NULL: none yet */
	/* Of the ids set aside, how many fall on each value of their low
	 * bits: an id of none is not looked up in the table. A few entries
	 * whose records never come stay aside for good, and every newcomer
	 * looked for its id among them (a PyTorch trace: a lookup an insert). */
	uint32_t aside_by_bits[CT_CORR_MAP_ASIDE_BITS];
};

/* Slots to begin with and at most. */
#define CT_CORR_MAP_INITIAL 1024u
#define CT_CORR_MAP_MAX     (1u << 20)
/* Entries a block holds. */
#define CT_CORR_MAP_BLOCK 1024u

/*
 * How long an entry may wait for its record before a newcomer may take
 * its slot: the tracer hands CUPTI's records over within a flush period
 * (a second by default: CUDATRACE_FLUSH_PERIOD_MS, cudatrace-env(7)) of
 * the work's end; a minute leaves room for work queued behind long
 * kernels.
 */
#define CT_CORR_MAP_PATIENCE_NS (60 * 1000000000LL)

/* ENTRY_SIZE: sizeof the caller's entry struct. */
void ct_corr_map_init(struct ct_corr_map *map, size_t entry_size);
void ct_corr_map_release(struct ct_corr_map *map);

/*
 * A zeroed entry for CORRELATION_ID that begins to wait at TIME_NS (its
 * head filled in), replacing any entry with the same id.
 */
void *ct_corr_map_insert(struct ct_corr_map *map, uint32_t correlation_id, int64_t time_ns);
/* The waiting entry for CORRELATION_ID, NULL if none. */
void *ct_corr_map_find(const struct ct_corr_map *map, uint32_t correlation_id);
/* ENTRY (from insert or find) no longer waits; it is freed. */
void ct_corr_map_remove(struct ct_corr_map *map, void *entry);

/* Entries waiting. */
size_t ct_corr_map_waiting(const struct ct_corr_map *map);

/* Calls FN on every waiting entry (any order). */
void ct_corr_map_foreach(const struct ct_corr_map *map, void (*fn)(void *entry, void *data),
                         void *data);

#endif
