/* SPDX-License-Identifier: MIT */
/*
 * tracker.h - cudatrace's own map of the live allocations of the process.
 *
 * CUDA's free calls do not say how much they free, and copies do not say
 * whether their host side is pinned or which device a pointer belongs to:
 * this map answers both. It also knows what the events about an
 * allocation need long after its call: the context that owns it (whose
 * destruction frees it), the call that made it and when (the live set a
 * statedump gives), and, for VMM memory, the handles and mappings that
 * keep physical memory alive. Two spaces: addresses (device, host, managed
 * and mapped ranges, with "which range contains this address" lookups) and
 * VMM physical allocation handles (exact lookups only).
 *
 * Every function is thread-safe. Lookups take no lock; inserts, removals
 * and updates do bounded work under a short one; the functions that walk
 * the whole map (tracker_take_context, tracker_snapshot) hold it for one
 * pass.
 */
#ifndef CUDATRACE_TRACKER_H
#define CUDATRACE_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contract/events.h"

enum tracker_space {
	TRACKER_ADDRESSES,
	TRACKER_VMM_HANDLES,
};

struct tracker_entry {
	uint64_t start;        /* address, or VMM handle */
	uint64_t size;         /* bytes */
	uint64_t alloc_time;   /* CLOCK_MONOTONIC ns of the allocation */
	struct ct_api_ref api; /* the call that allocated it */
	uint32_t context;      /* CUPTI id of the context that owns it, 0: none */
	uint32_t stream;       /* CUPTI stream id (stream-ordered memory), or CT_STREAM_NONE */
	uint8_t kind;          /* enum ct_mem_kind */
	uint8_t device;        /* CUDA device, or CT_DEVICE_NONE */
	bool write_combined;   /* host memory the CPU reads slowly (cudaHostAllocWriteCombined) */
	/* A vmm_map: the handle of the physical memory it maps (0: unknown). */
	uint64_t handle;
	/* A vmm_physical: handles to it not yet released (cuMemCreate's and
	 * cuMemRetainAllocationHandle's), and mappings of it. Its memory is
	 * freed when both are 0. */
	uint32_t refs;
	uint32_t maps;
};

/* Record a live allocation. An address range replaces any stale one it
 * overlaps (an allocation whose free cudatrace did not see); a handle, a
 * stale entry of the same handle. False if it could not be recorded (out
 * of memory; a VMM handle of 0). */
bool tracker_insert(enum tracker_space space, const struct tracker_entry *entry);

/* Remove the allocation that starts exactly at start; false if none. */
bool tracker_remove(enum tracker_space space, uint64_t start, struct tracker_entry *removed);

/* Remove one address range that starts inside [start, end); false if none. */
bool tracker_remove_within(uint64_t start, uint64_t end, struct tracker_entry *removed);

/* The address range that contains key, or the VMM handle key; false if
 * none. Of a range, what copies need: its start, size, kind, device and
 * the allocating call's domain and cbid (the rest 0, the stream
 * CT_STREAM_NONE: a lookup copies less); of a handle, everything. */
bool tracker_lookup(enum tracker_space space, uint64_t key, struct tracker_entry *found);

/*
 * Whether no address range meets the granule around ADDRESS of each size
 * class that holds ranges: then none meets [*LO, *HI), the smallest of
 * them, which holds ADDRESS (a miss of tracker_lookup's, for the
 * addresses around it: a loop over the slices of a pageable buffer).
 */
bool tracker_free_around(uint64_t address, uint64_t *lo, uint64_t *hi);

/* One past the last address of E's range (a size of 0 counts as 1). */
uint64_t tracker_range_end(const struct tracker_entry *e);

/*
 * How many times the address ranges changed (an insert, a removal):
 * tracker_lookup's answer for an address, got after this count was read,
 * stands while the count stays the same (handle-cache.h keeps them so).
 */
uint64_t tracker_changes(void);

/* What tracker_vmm_adjust did. */
enum tracker_vmm {
	TRACKER_VMM_UNKNOWN,  /* no such handle, or it has no reference to drop */
	TRACKER_VMM_ADJUSTED, /* counted; the memory stays */
	TRACKER_VMM_FREED,    /* no reference nor mapping left: removed, in *freed */
};

/* Add refs and maps (each +1, 0 or -1) to the counts of physical memory
 * handle. Dropping a reference needs one (a released handle is no
 * handle), dropping a mapping one of those; a count never wraps. When
 * both reach 0 the memory is freed: the entry leaves the map and is
 * copied into *freed (freed may be NULL when only adding). */
enum tracker_vmm tracker_vmm_adjust(uint64_t handle, int refs, int maps,
                                    struct tracker_entry *freed);

/* Remove every allocation that context owns, for its destruction: up to
 * max of them into out, each once. Returns how many; call again while it
 * returns max. */
size_t tracker_take_context(uint32_t context, struct tracker_entry *out, size_t max);

/* A moment's upper bound of the allocations in the map. */
size_t tracker_count(void);

/* The live set as of one moment, no update in between: up to max
 * allocations into out (address ranges, then handles), each once. Returns
 * how many the map held, which may exceed max (then out holds the first
 * max). */
size_t tracker_snapshot(struct tracker_entry *out, size_t max);

#endif /* CUDATRACE_TRACKER_H */
