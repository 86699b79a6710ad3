/* SPDX-License-Identifier: MIT */
/*
 * tracker.h - cudatrace's own map of the live allocations of the process.
 *
 * CUDA's free calls do not say how much they free, and copies do not say
 * whether their host side is pinned or which device a pointer belongs to:
 * this map answers both. Two spaces: addresses (device, host, managed and
 * mapped ranges, with "which range contains this address" lookups) and VMM
 * physical allocation handles (exact lookups only).
 *
 * Every function is thread-safe. Lookups take no lock; inserts and
 * removals do bounded work under a short one.
 */
#ifndef CUDATRACE_TRACKER_H
#define CUDATRACE_TRACKER_H

#include <stdbool.h>
#include <stdint.h>

enum tracker_space {
	TRACKER_ADDRESSES,
	TRACKER_VMM_HANDLES,
};

struct tracker_entry {
	uint64_t start; /* address, or VMM handle */
	uint64_t size;  /* bytes */
	uint8_t kind;   /* enum ct_mem_kind */
	uint8_t device; /* CUDA device, or CT_DEVICE_NONE */
};

/* Record a live allocation. An address range replaces any stale one it
 * overlaps (an allocation whose free cudatrace did not see). False if it
 * could not be recorded (out of memory; a VMM handle of 0). */
bool tracker_insert(enum tracker_space space, const struct tracker_entry *entry);

/* Remove the allocation that starts exactly at start; false if none. */
bool tracker_remove(enum tracker_space space, uint64_t start, struct tracker_entry *removed);

/* Remove one address range that starts inside [start, end); false if none. */
bool tracker_remove_within(uint64_t start, uint64_t end, struct tracker_entry *removed);

/* The address range that contains key, or the VMM handle key; false if
 * none. */
bool tracker_lookup(enum tracker_space space, uint64_t key, struct tracker_entry *found);

#endif /* CUDATRACE_TRACKER_H */
