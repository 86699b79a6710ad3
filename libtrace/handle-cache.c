/* SPDX-License-Identifier: MIT */
/*
 * handle-cache.c - stream ids, kernel ids and allocations remembered per
 * thread (handle-cache.h).
 */
#include <string.h>

#include "contract/events.h"
#include "handle-cache.h"
#include "names.h"

/* Stream, context and module ends so far. Bumped before CUDA can hand the
 * handle out again; read with acquire, so a thread that was given the new
 * handle sees the bump. */
unsigned handle_cache_ends;

void handle_cache_forget(void)
{
	__atomic_add_fetch(&handle_cache_ends, 1, __ATOMIC_RELEASE);
}

/* Empty the cache if a handle ended since it was filled. */
static void revalidate(struct handle_cache *cache)
{
	unsigned now = __atomic_load_n(&handle_cache_ends, __ATOMIC_ACQUIRE);

	if (cache->epoch == now)
		return;
	memset(cache, 0, sizeof(*cache));
	cache->epoch = now;
}

uint32_t handle_cache_stream(struct handle_cache *cache, CUcontext context, CUstream stream,
                             bool per_thread)
{
	unsigned slot;
	uint32_t id;

	revalidate(cache);
	for (unsigned i = 0; i < HANDLE_CACHE_STREAMS; i++) {
		if (cache->streams[i].context == context && context &&
		    cache->streams[i].stream == stream &&
		    cache->streams[i].per_thread == per_thread)
			return cache->streams[i].id;
	}
	if (cuptiGetStreamIdEx(context, stream, per_thread, &id) != CUPTI_SUCCESS)
		return CT_STREAM_NONE;
	if (!context)
		return id;
	slot = cache->next_stream++ % HANDLE_CACHE_STREAMS;
	cache->streams[slot].context = context;
	cache->streams[slot].stream = stream;
	cache->streams[slot].per_thread = per_thread;
	cache->streams[slot].id = id;
	return id;
}

/* The inline lookup found no answer: the cache, once emptied if stale,
 * cannot hold one either. */
bool handle_cache_device_miss(struct handle_cache *cache, CUcontext context, uint32_t *device)
{
	revalidate(cache);
	if (cuptiGetDeviceId(context, device) != CUPTI_SUCCESS)
		return false;
	/* A context's device is fixed for its life; its handle's reuse
	 * empties the cache (handle_cache_forget). */
	if (context) {
		cache->device_context = context;
		cache->device = *device;
	}
	return true;
}

/* As handle_cache_device_miss: the name is not in the cache. */
uint64_t handle_cache_kernel_miss(struct handle_cache *cache, const char *name)
{
	unsigned slot;
	uint64_t id;

	if (!name)
		return 0;
	revalidate(cache);
	id = names_kernel_id(name);
	slot = cache->next_kernel++ % HANDLE_CACHE_KERNELS;
	cache->kernels[slot].name = name;
	cache->kernels[slot].id = id;
	return id;
}

const struct tracker_entry *handle_cache_range(struct handle_cache *cache, uint64_t address)
{
	/* read before the lookup: a change after it makes the answer stale */
	uint64_t changes = tracker_changes();
	unsigned slot;

	if (cache->changes != changes) {
		memset(cache->ranges, 0, sizeof(cache->ranges));
		cache->changes = changes;
	}
	for (unsigned i = 0; i < HANDLE_CACHE_RANGES; i++) {
		if (cache->ranges[i].lo <= address && address < cache->ranges[i].hi)
			return cache->ranges[i].found ? &cache->ranges[i].entry : NULL;
	}
	slot = cache->next_range++ % HANDLE_CACHE_RANGES;
	cache->ranges[slot].found =
	    tracker_lookup(TRACKER_ADDRESSES, address, &cache->ranges[slot].entry);
	if (cache->ranges[slot].found) {
		cache->ranges[slot].lo = cache->ranges[slot].entry.start;
		cache->ranges[slot].hi = tracker_range_end(&cache->ranges[slot].entry);
		return &cache->ranges[slot].entry;
	}
	if (!tracker_free_around(address, &cache->ranges[slot].lo, &cache->ranges[slot].hi)) {
		cache->ranges[slot].lo = address;
		cache->ranges[slot].hi = address + 1;
	}
	return NULL;
}
