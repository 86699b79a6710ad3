/* SPDX-License-Identifier: MIT */
/*
 * handle-cache.h - what cudatrace derives from a CUDA handle on the hot
 * path, remembered: the CUPTI stream id of a CUstream (cuptiGetStreamIdEx
 * on every copy and launch), the device of a context (cuptiGetDeviceId on
 * every launch and allocation), the kernel_id of a kernel's name (a hash
 * of the whole name at every launch and every kernel record), and the
 * allocation a copy's address lies in (two lookups of the tracker at
 * every copy, memset and their pointers).
 *
 * A cache belongs to one thread (the traced call's, or the one reading an
 * activity buffer): no lock, no atomic but one load. A stream's id never
 * changes while the stream lives, and a kernel's name pointer is CUPTI's
 * (or the registering module's) while the module lives, but a handle or a
 * pointer may be given out again once its stream, context or module is
 * gone. So every cache checks a process-wide count of such ends
 * (handle_cache_forget, from the RESOURCE callbacks, which CUDA makes
 * before the handle can be reused) and empties itself when it changed.
 * The allocations are kept while the tracker's ranges do not change
 * (tracker_changes), and so is an address found in none, with the
 * addresses around it no range meets.
 */
#ifndef CUDATRACE_HANDLE_CACHE_H
#define CUDATRACE_HANDLE_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <cupti.h>

#include "tracker.h"

/* A few streams and kernels per thread: a training step's loop uses a
 * handful of each; a miss costs only the lookup it saves. */
#define HANDLE_CACHE_STREAMS 4
#define HANDLE_CACHE_KERNELS 8
#define HANDLE_CACHE_RANGES  4

struct handle_cache {
	unsigned epoch;                    /* handle_cache_forget's count it was filled under */
	unsigned next_stream, next_kernel; /* the slot replaced next */
	CUcontext device_context;          /* NULL: no device remembered */
	uint32_t device;                   /* device_context's, as CUPTI numbers it */
	struct {
		CUcontext context; /* NULL: the slot is empty */
		CUstream stream;
		bool per_thread;
		uint32_t id;
	} streams[HANDLE_CACHE_STREAMS];
	struct {
		const char *name; /* NULL: the slot is empty */
		uint64_t id;
	} kernels[HANDLE_CACHE_KERNELS];
	uint64_t changes; /* tracker_changes when the ranges were found */
	unsigned next_range;
	struct {
		uint64_t lo, hi; /* the addresses it answers for, [lo, hi); hi 0: empty */
		bool found;      /* an allocation, or none (the addresses around the one
		                  * asked that no range meets: tracker_free_around) */
		struct tracker_entry entry;
	} ranges[HANDLE_CACHE_RANGES];
};

/* CUPTI's id of stream in context (NULL: the context's default stream,
 * per-thread or legacy), or CT_STREAM_NONE. A NULL context (the current
 * one) is not cached. */
uint32_t handle_cache_stream(struct handle_cache *cache, CUcontext context, CUstream stream,
                             bool per_thread);

/* Stream, context and module ends so far (handle_cache_forget);
 * handle-cache.c's, read by the inline lookups below. */
extern unsigned handle_cache_ends;

/* Whether CACHE was filled since the last end: else it holds nothing. */
static inline bool handle_cache_current(const struct handle_cache *cache)
{
	return cache->epoch == __atomic_load_n(&handle_cache_ends, __ATOMIC_ACQUIRE);
}

/* What handle_cache_device and handle_cache_kernel do when the cache does
 * not answer (no search again): CUPTI asked, or the name hashed, and the
 * answer kept. */
bool handle_cache_device_miss(struct handle_cache *cache, CUcontext context, uint32_t *device);
uint64_t handle_cache_kernel_miss(struct handle_cache *cache, const char *name);

/* CUPTI's device of CONTEXT (cuptiGetDeviceId; NULL: the current
 * context, not cached); false when CUPTI does not know it. Inline: a
 * loop's call finds its context's device with a comparison. */
static inline bool handle_cache_device(struct handle_cache *cache, CUcontext context,
                                       uint32_t *device)
{
	if (context && cache->device_context == context && handle_cache_current(cache)) {
		*device = cache->device;
		return true;
	}
	return handle_cache_device_miss(cache, context, device);
}

/* names_kernel_id(name), cached by the name's address. */
static inline uint64_t handle_cache_kernel(struct handle_cache *cache, const char *name)
{
	if (name && handle_cache_current(cache)) {
		for (unsigned i = 0; i < HANDLE_CACHE_KERNELS; i++) {
			if (cache->kernels[i].name == name)
				return cache->kernels[i].id;
		}
	}
	return handle_cache_kernel_miss(cache, name);
}

/* The allocation ADDRESS is in, as tracker_lookup(TRACKER_ADDRESSES)
 * finds it, cached by its range; NULL: none. The entry is the cache's,
 * valid until its next use: its callers read a field or two of it, not a
 * copy of all (a copy loop asks twice a call). */
const struct tracker_entry *handle_cache_range(struct handle_cache *cache, uint64_t address);

/* A stream, context or module is about to go: every cache empties itself
 * before its next use. */
void handle_cache_forget(void);

#endif /* CUDATRACE_HANDLE_CACHE_H */
