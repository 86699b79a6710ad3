/* SPDX-License-Identifier: MIT */
/*
 * driver-pool.c - the stream-ordered allocator: cuMemAllocAsync,
 * cuMemFreeAsync, cuMemAllocFromPoolAsync and memory pools.
 *
 * A pool reserves segments from its device's heap in 2 MiB steps and
 * sub-allocates them in 512-byte units. A block freed on stream S is at once
 * reusable by S and, once the GPU has passed the free, by any stream. On a
 * synchronisation the pool gives back to the heap the whole free segments
 * that exceed its release threshold (driver_types.h:2066-2126;
 * cuda.h:13378-13468).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver-memory.h"

#define POOL_MAGIC 0x4c4f4f50u /* "POOL" */

/* A block freed on a stream whose free the GPU has not yet passed. */
struct pool_pending {
	uintptr_t base;
	size_t size;
	uint64_t stream_id;
	uint64_t ready_ns;
	struct pool_pending *next;
};

struct sim_pool {
	uint32_t magic;
	int device;
	bool is_default;
	bool destroyed; /* by cuMemPoolDestroy; freed with its last block */
	uint64_t release_threshold;
	int reuse_follow_event_dependencies;
	int reuse_allow_opportunistic;
	int reuse_allow_internal_dependencies;
	size_t max_size; /* 0: no limit but the heap's */
	uint64_t reserved, reserved_high;
	uint64_t used, used_high;
	size_t live;                       /* outstanding allocations */
	struct sim_range_tree segments;    /* heap blocks, malloc'd sim_range */
	struct sim_range_tree free_ranges; /* reusable by any stream */
	struct pool_pending *pending;
	CUmemAccess_flags access[SIM_MAX_DEVICES];
	struct sim_pool *next;
};

/* All under the memory lock. */
static struct sim_pool *pool_list;
static struct sim_pool *default_pools[SIM_MAX_DEVICES];
static struct sim_pool *current_pools[SIM_MAX_DEVICES];

/* What MEMORY_POOL and MEMORY2 records say about a pool. */
struct pool_state {
	int device;
	struct sim_pool_config config;
};

static size_t round_up(size_t value, size_t to)
{
	return (value + to - 1) / to * to;
}

/* ------------------------------------------------------------ pool objects */

static struct sim_pool *pool_new(int device, bool is_default, size_t max_size)
{
	struct sim_pool *pool = calloc(1, sizeof(*pool));

	if (!pool)
		return NULL;
	pool->magic = POOL_MAGIC;
	pool->device = device;
	pool->is_default = is_default;
	pool->max_size = max_size;
	/* cuda.h:4424-4446: the three reuse policies default to enabled */
	pool->reuse_follow_event_dependencies = 1;
	pool->reuse_allow_opportunistic = 1;
	pool->reuse_allow_internal_dependencies = 1;
	sim_range_tree_init(&pool->segments);
	sim_range_tree_init(&pool->free_ranges);
	/* by default the pool is accessible from its own device */
	pool->access[device] = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	pool->next = pool_list;
	pool_list = pool;
	return pool;
}

/* The pool behind a handle, or NULL for anything else (a destroyed pool
 * included): handles are checked against the list, never dereferenced. */
static struct sim_pool *pool_from_handle(CUmemoryPool handle)
{
	for (struct sim_pool *pool = pool_list; pool; pool = pool->next) {
		if ((CUmemoryPool)pool == handle)
			return pool->destroyed ? NULL : pool;
	}
	return NULL;
}

static struct sim_pool *default_pool(int device, bool *created)
{
	*created = false;
	if (!sim_device_valid(device))
		return NULL;
	if (!default_pools[device]) {
		default_pools[device] = pool_new(device, true, 0);
		*created = default_pools[device] != NULL;
	}
	return default_pools[device];
}

static struct sim_pool *current_pool(int device, bool *created)
{
	struct sim_pool *pool = default_pool(device, created);

	if (pool && current_pools[device])
		pool = current_pools[device];
	return pool;
}

static void pool_state_get(const struct sim_pool *pool, struct pool_state *state)
{
	const struct sim_range *first = sim_range_first(&pool->segments);

	state->device = pool->device;
	state->config.address = first ? first->base : 0;
	state->config.release_threshold = pool->release_threshold;
	state->config.size = pool->reserved;
	state->config.utilized = pool->used;
}

/* A MEMORY_POOL record (CUpti_ActivityMemoryPool3); without the lock. */
static void pool_activity(const struct pool_state *state,
                          CUpti_ActivityMemoryPoolOperationType operation, size_t min_bytes_to_keep)
{
	CUpti_ActivityMemoryPool3 record;

	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_MEMORY_POOL))
		return;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
	record.memoryPoolOperationType = operation;
	record.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
	record.correlationId = sim_current_correlation_id();
	record.processId = (uint32_t)getpid();
	record.deviceId = (uint32_t)state->device;
	record.minBytesToKeep = min_bytes_to_keep;
	record.address = state->config.address;
	record.size = state->config.size;
	record.releaseThreshold = state->config.release_threshold;
	record.timestamp = sim_now_ns();
	record.utilizedSize = state->config.utilized;
	sim_activity((const CUpti_Activity *)&record, record.timestamp);
}

/* ------------------------------------------------------------ sub-allocation */

/* Frees whose GPU time has passed become reusable by every stream. */
static void pool_promote(struct sim_pool *pool, uint64_t now)
{
	struct pool_pending **link = &pool->pending;

	while (*link) {
		struct pool_pending *pending = *link;
		if (pending->ready_ns > now) {
			link = &pending->next;
			continue;
		}
		*link = pending->next;
		(void)sim_free_ranges_put(&pool->free_ranges, pending->base, pending->size);
		free(pending);
	}
}

/* Stream order: a block freed on this very stream is reusable at once. */
static bool take_same_stream(struct sim_pool *pool, size_t size, uint64_t stream_id,
                             uintptr_t *addr)
{
	struct pool_pending **link, **best = NULL;

	for (link = &pool->pending; *link; link = &(*link)->next) {
		if ((*link)->stream_id != stream_id || (*link)->size < size)
			continue;
		if (!best || (*link)->base < (*best)->base)
			best = link;
	}
	if (!best)
		return false;
	*addr = (*best)->base;
	if ((*best)->size == size) {
		struct pool_pending *taken = *best;
		*best = taken->next;
		free(taken);
	} else {
		(*best)->base += size;
		(*best)->size -= size;
	}
	return true;
}

/* Reserve one more segment from the heap, large enough for size. */
static CUresult pool_grow(struct sim_pool *pool, size_t size)
{
	size_t segment_size = round_up(size, SIM_HEAP_GRANULARITY);
	struct sim_heap *heap = sim_device_heap(pool->device);
	struct sim_range *segment;
	struct sim_heap_block block;

	if (pool->max_size && pool->reserved + segment_size > pool->max_size)
		return CUDA_ERROR_OUT_OF_MEMORY;
	segment = calloc(1, sizeof(*segment));
	if (!heap || !segment || sim_heap_alloc_granules(heap, segment_size, &block) != 0) {
		free(segment);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (sim_free_ranges_put(&pool->free_ranges, block.base, block.reserved) != 0) {
		sim_heap_free(heap, block.base, NULL);
		free(segment);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	segment->base = block.base;
	segment->size = block.reserved;
	sim_range_insert(&pool->segments, segment);
	pool->reserved += block.reserved;
	if (pool->reserved > pool->reserved_high)
		pool->reserved_high = pool->reserved;
	return CUDA_SUCCESS;
}

static CUresult pool_take(struct sim_pool *pool, size_t size, uint64_t stream_id, uintptr_t *addr)
{
	CUresult status;

	pool_promote(pool, sim_now_ns());
	if (!take_same_stream(pool, size, stream_id, addr) &&
	    sim_free_ranges_take(&pool->free_ranges, size, addr) != 0) {
		status = pool_grow(pool, size);
		if (status != CUDA_SUCCESS)
			return status;
		if (sim_free_ranges_take(&pool->free_ranges, size, addr) != 0)
			return CUDA_ERROR_OUT_OF_MEMORY;
	}
	pool->used += size;
	if (pool->used > pool->used_high)
		pool->used_high = pool->used;
	pool->live++;
	return CUDA_SUCCESS;
}

/* Give whole free segments back to the heap while more than keep bytes
 * stay reserved; never memory that backs a live or pending block. */
static uint64_t pool_release(struct sim_pool *pool, uint64_t keep)
{
	struct sim_heap *heap = sim_device_heap(pool->device);
	struct sim_range *segment, *next;
	uint64_t released = 0;

	for (segment = sim_range_first(&pool->segments); segment && pool->reserved > keep;
	     segment = next) {
		next = sim_range_next(&pool->segments, segment->base);
		if (pool->reserved - segment->size < keep)
			continue;
		if (!sim_free_ranges_carve(&pool->free_ranges, segment->base, segment->size))
			continue;
		sim_range_remove(&pool->segments, segment);
		sim_heap_free(heap, segment->base, NULL);
		pool->reserved -= segment->size;
		released += segment->size;
		free(segment);
	}
	return released;
}

/* A destroyed pool goes once its last block is back. */
static void pool_free_if_done(struct sim_pool *pool)
{
	struct sim_pool **link;

	if (!pool->destroyed || pool->live)
		return;
	pool_promote(pool, UINT64_MAX);
	pool_release(pool, 0);
	sim_free_ranges_clear(&pool->free_ranges);
	for (link = &pool_list; *link; link = &(*link)->next) {
		if (*link == pool) {
			*link = pool->next;
			break;
		}
	}
	pool->magic = 0;
	free(pool);
}

static void pool_block_returned(struct sim_pool *pool, size_t size)
{
	pool->used -= size;
	pool->live--;
}

void sim_pool_free_now(struct sim_mem_record *rec, struct sim_pool_config *config)
{
	struct sim_pool *pool = rec->pool;
	struct pool_state state;

	(void)sim_free_ranges_put(&pool->free_ranges, rec->range.base, rec->reserved);
	pool_block_returned(pool, rec->reserved);
	pool_state_get(pool, &state);
	*config = state.config;
	pool_free_if_done(pool);
}

/*
 * Memory above the release threshold goes back to the OS at the next
 * synchronisation (cuda.h, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD). CUPTI
 * documents MEMORY_POOL records for "creation, destruction and trimming of
 * the memory pool" (cupti_activity.h:590-596), trimming being
 * cuMemPoolTrimTo; it documents no record for this implicit release, so
 * none is made here (the ledger's pool_release line says what happened):
 * a reader derives it from the threshold.
 */
void sim_pool_on_sync(int device)
{
	uint64_t now = sim_now_ns(), released = 0;

	sim_mem_lock();
	for (struct sim_pool *pool = pool_list; pool; pool = pool->next) {
		if (pool->device != device || pool->destroyed)
			continue;
		pool_promote(pool, now);
		/* cuda.h:4454-4460: above the threshold, memory goes back to
		 * the OS at the next synchronisation */
		released += pool_release(pool, pool->release_threshold);
	}
	if (released && sim_ledger_enabled())
		sim_ledger("op=pool_release dev=%d bytes=%" PRIu64, device, released);
	sim_mem_unlock();
}

/* ------------------------------------------------------------ allocation */

/* The stream of an async call; a stream needs a current context here. */
static CUresult resolve_stream(CUstream handle, struct sim_context **ctx,
                               struct sim_stream **stream)
{
	/* cuda.h:13330: CUDA_ERROR_INVALID_CONTEXT when there is none */
	CUresult status = sim_ctx_enter(ctx);

	if (status != CUDA_SUCCESS)
		return status;
	return sim_stream_resolve(*ctx, handle, stream);
}

/* In a capture, an allocation node in the pool's device (cuda.h: the
 * capture of stream-ordered allocation makes graph memory nodes). */
static CUresult capture_alloc(struct sim_stream *stream, size_t bytesize, CUmemoryPool pool_handle,
                              bool from_pool, CUdeviceptr *dptr)
{
	int device = sim_stream_device(stream);
	struct sim_pool *pool;

	if (from_pool) {
		sim_mem_lock();
		pool = pool_from_handle(pool_handle);
		if (pool)
			device = pool->device;
		sim_mem_unlock();
		if (!pool)
			return CUDA_ERROR_INVALID_VALUE;
	}
	return sim_graph_capture_alloc(stream, device, bytesize, dptr);
}

static CUresult alloc_async(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool_handle,
                            bool from_pool, CUstream handle)
{
	struct sim_mem_record *rec;
	struct sim_stream *stream;
	struct sim_context *ctx;
	struct pool_state state;
	struct sim_pool *pool;
	bool created = false;
	uintptr_t addr = 0;
	CUresult status = resolve_stream(handle, &ctx, &stream);
	size_t rounded;

	if (status != CUDA_SUCCESS)
		return status;
	if (!dptr || bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (sim_stream_capture_graph(stream))
		return capture_alloc(stream, bytesize, pool_handle, from_pool, dptr);
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rec->stream_id = sim_stream_get_id(stream);
	sim_mem_lock();
	pool = from_pool ? pool_from_handle(pool_handle)
	                 : current_pool(sim_stream_device(stream), &created);
	if (!pool) {
		status = CUDA_ERROR_INVALID_VALUE;
		goto error;
	}
	rounded =
	    bytesize > SIZE_MAX - SIM_HEAP_GRANULARITY ? 0 : round_up(bytesize, SIM_HEAP_ALIGNMENT);
	status =
	    rounded ? pool_take(pool, rounded, rec->stream_id, &addr) : CUDA_ERROR_OUT_OF_MEMORY;
	if (status != CUDA_SUCCESS) {
		sim_mem_ledger_alloc_failed("async", pool->device, bytesize, status);
		goto error;
	}
	rec->range.base = addr;
	rec->range.size = bytesize;
	rec->kind = SIM_MEM_ASYNC;
	rec->ledger_kind = "async";
	rec->device = pool->device;
	rec->ctx = ctx;
	rec->reserved = rounded;
	rec->pool = pool;
	sim_mem_table_insert(rec);
	sim_mem_ledger_alloc(rec, true);
	pool_state_get(pool, &state);
	sim_mem_unlock();
	if (created)
		pool_activity(&state, CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED, 0);
	sim_mem_activity(rec, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, true, &state.config);
	*dptr = addr;
	return CUDA_SUCCESS;
error:
	if (pool)
		pool_state_get(pool, &state);
	sim_mem_unlock();
	if (created)
		pool_activity(&state, CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED, 0);
	free(rec);
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	cuMemAllocAsync_params params = { dptr, bytesize, hStream };
	SIM_DRIVER_CALL(cuMemAllocAsync, params, alloc_async(dptr, bytesize, NULL, false, hStream));
}

SIM_EXPORT CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize,
                                                    CUmemoryPool pool, CUstream hStream)
{
	cuMemAllocFromPoolAsync_params params = { dptr, bytesize, pool, hStream };
	SIM_DRIVER_CALL(cuMemAllocFromPoolAsync, params,
	                alloc_async(dptr, bytesize, pool, true, hStream));
}

/* cuMemFreeAsync of memory that no pool holds: freed once the stream has
 * reached the free, as a synchronous free would be. */
static CUresult free_async_foreign(struct sim_mem_record *rec, uint64_t stream_tail)
{
	sim_mem_table_remove(rec);
	sim_mem_unlock();
	sim_wait_until(stream_tail);
	sim_mem_lock();
	sim_mem_ledger_free(rec, false);
	sim_heap_free(sim_device_heap(rec->device), rec->range.base, NULL);
	sim_mem_unlock();
	sim_mem_activity(rec, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, false, NULL);
	free(rec);
	return CUDA_SUCCESS;
}

static CUresult free_async(CUdeviceptr dptr, CUstream handle)
{
	struct pool_pending *pending = calloc(1, sizeof(*pending));
	struct sim_mem_record *rec;
	struct sim_stream *stream;
	struct sim_context *ctx;
	struct pool_state state;
	uint64_t stream_id, tail;
	CUresult status = resolve_stream(handle, &ctx, &stream);

	if (status != CUDA_SUCCESS)
		goto end;
	if (!pending) {
		status = CUDA_ERROR_OUT_OF_MEMORY;
		goto end;
	}
	if (dptr == 0)
		goto end; /* as cuMemFree(0): nothing to free */
	if (sim_stream_capture_graph(stream)) {
		status = sim_graph_capture_free(stream, dptr);
		goto end;
	}
	stream_id = sim_stream_get_id(stream);
	/* The free happens in stream order, after the work queued so far. */
	tail = sim_stream_tail(stream);
	sim_mem_lock();
	rec = sim_mem_table_find((uintptr_t)dptr);
	if (!rec || rec->range.base != dptr ||
	    (rec->kind != SIM_MEM_ASYNC && rec->kind != SIM_MEM_DEVICE &&
	     rec->kind != SIM_MEM_MANAGED && rec->kind != SIM_MEM_GRAPH)) {
		sim_mem_unlock();
		status = CUDA_ERROR_INVALID_VALUE;
		goto end;
	}
	if (rec->kind == SIM_MEM_GRAPH) {
		status = sim_graph_mem_free(rec, true, stream_id);
		sim_mem_unlock();
		goto end;
	}
	if (rec->kind != SIM_MEM_ASYNC) {
		status = free_async_foreign(rec, tail);
		goto end;
	}
	sim_mem_table_remove(rec);
	rec->stream_id = stream_id;
	sim_mem_ledger_free(rec, true);
	pending->base = rec->range.base;
	pending->size = rec->reserved;
	pending->stream_id = stream_id;
	pending->ready_ns = tail;
	pending->next = rec->pool->pending;
	rec->pool->pending = pending;
	pending = NULL;
	pool_block_returned(rec->pool, rec->reserved);
	pool_state_get(rec->pool, &state);
	pool_free_if_done(rec->pool);
	sim_mem_unlock();
	sim_mem_activity(rec, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, true, &state.config);
	free(rec);
end:
	free(pending);
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	cuMemFreeAsync_params params = { dptr, hStream };
	SIM_DRIVER_CALL(cuMemFreeAsync, params, free_async(dptr, hStream));
}

/* ------------------------------------------------------------ pools */

/* Take the memory lock and the live pool behind a handle; an unknown or
 * destroyed handle is CUDA_ERROR_INVALID_VALUE, with the lock given back. */
static CUresult pool_lock(CUmemoryPool handle, struct sim_pool **pool)
{
	sim_mem_lock();
	*pool = pool_from_handle(handle);
	if (!*pool) {
		sim_mem_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

static CUresult pool_create(CUmemoryPool *out, const CUmemPoolProps *props)
{
	CUresult status = sim_init_status();
	struct pool_state state;
	struct sim_pool *pool;

	if (status != CUDA_SUCCESS)
		return status;
	if (!out || !props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED)
		return CUDA_ERROR_INVALID_VALUE;
	/* host pools and exports other than a file descriptor: not here */
	if (props->location.type == CU_MEM_LOCATION_TYPE_HOST ||
	    props->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    !sim_device_valid(props->location.id))
		return CUDA_ERROR_INVALID_VALUE;
	if (props->handleTypes & ~(unsigned int)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED;
	sim_mem_lock();
	pool = pool_new(props->location.id, false, props->maxSize);
	if (pool)
		pool_state_get(pool, &state);
	sim_mem_unlock();
	if (!pool)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pool_activity(&state, CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED, 0);
	*out = (CUmemoryPool)pool;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
	cuMemPoolCreate_params params = { pool, poolProps };
	SIM_DRIVER_CALL(cuMemPoolCreate, params, pool_create(pool, poolProps));
}

static CUresult pool_destroy(CUmemoryPool handle)
{
	CUresult status = sim_init_status();
	struct pool_state state;
	struct sim_pool *pool;

	if (status == CUDA_SUCCESS)
		status = pool_lock(handle, &pool);
	if (status != CUDA_SUCCESS)
		return status;
	/* cuda.h:13570: a device's default pool cannot be destroyed */
	if (pool->is_default) {
		sim_mem_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* destroying the current pool makes the default one current */
	if (current_pools[pool->device] == pool)
		current_pools[pool->device] = NULL;
	pool_state_get(pool, &state);
	pool->destroyed = true;
	pool_free_if_done(pool);
	sim_mem_unlock();
	pool_activity(&state, CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED, 0);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool)
{
	cuMemPoolDestroy_params params = { pool };
	SIM_DRIVER_CALL(cuMemPoolDestroy, params, pool_destroy(pool));
}

static CUresult pool_trim_to(CUmemoryPool handle, size_t min_bytes_to_keep)
{
	CUresult status = sim_init_status();
	struct pool_state state;
	struct sim_pool *pool;
	uint64_t released;

	if (status == CUDA_SUCCESS)
		status = pool_lock(handle, &pool);
	if (status != CUDA_SUCCESS)
		return status;
	pool_promote(pool, sim_now_ns());
	released = pool_release(pool, min_bytes_to_keep);
	if (sim_ledger_enabled())
		sim_ledger("op=pool_trim dev=%d bytes=%" PRIu64, pool->device, released);
	pool_state_get(pool, &state);
	sim_mem_unlock();
	pool_activity(&state, CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED, min_bytes_to_keep);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
	cuMemPoolTrimTo_params params = { pool, minBytesToKeep };
	SIM_DRIVER_CALL(cuMemPoolTrimTo, params, pool_trim_to(pool, minBytesToKeep));
}

static CUresult set_reuse(int *field, const void *value)
{
	*field = *(const int *)value ? 1 : 0;
	return CUDA_SUCCESS;
}

/* cuda.h:4470-4490: high watermarks can only be reset, to zero; what they
 * then track starts again from the current value. */
static CUresult reset_high(uint64_t *high, uint64_t current, const void *value)
{
	if (*(const cuuint64_t *)value != 0)
		return CUDA_ERROR_INVALID_VALUE;
	*high = current;
	return CUDA_SUCCESS;
}

static CUresult pool_set_attribute(CUmemoryPool handle, CUmemPool_attribute attr, void *value)
{
	CUresult status = sim_init_status();
	struct sim_pool *pool;

	if (status == CUDA_SUCCESS && !value)
		status = CUDA_ERROR_INVALID_VALUE;
	if (status == CUDA_SUCCESS)
		status = pool_lock(handle, &pool);
	if (status != CUDA_SUCCESS)
		return status;
	switch (attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
		status = set_reuse(&pool->reuse_follow_event_dependencies, value);
		break;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
		status = set_reuse(&pool->reuse_allow_opportunistic, value);
		break;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		status = set_reuse(&pool->reuse_allow_internal_dependencies, value);
		break;
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
		pool->release_threshold = *(const cuuint64_t *)value;
		break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
		status = reset_high(&pool->reserved_high, pool->reserved, value);
		break;
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
		status = reset_high(&pool->used_high, pool->used, value);
		break;
	default:
		/* the *_CURRENT values are read-only */
		status = CUDA_ERROR_INVALID_VALUE;
		break;
	}
	sim_mem_unlock();
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
                                                  void *value)
{
	cuMemPoolSetAttribute_params params = { pool, attr, value };
	SIM_DRIVER_CALL(cuMemPoolSetAttribute, params, pool_set_attribute(pool, attr, value));
}

static CUresult pool_get_attribute(CUmemoryPool handle, CUmemPool_attribute attr, void *value)
{
	CUresult status = sim_init_status();
	struct sim_pool *pool;

	if (status == CUDA_SUCCESS && !value)
		status = CUDA_ERROR_INVALID_VALUE;
	if (status == CUDA_SUCCESS)
		status = pool_lock(handle, &pool);
	if (status != CUDA_SUCCESS)
		return status;
	switch (attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
		*(int *)value = pool->reuse_follow_event_dependencies;
		break;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
		*(int *)value = pool->reuse_allow_opportunistic;
		break;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		*(int *)value = pool->reuse_allow_internal_dependencies;
		break;
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
		*(cuuint64_t *)value = pool->release_threshold;
		break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
		*(cuuint64_t *)value = pool->reserved;
		break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
		*(cuuint64_t *)value = pool->reserved_high;
		break;
	case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
		*(cuuint64_t *)value = pool->used;
		break;
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
		*(cuuint64_t *)value = pool->used_high;
		break;
	default:
		status = CUDA_ERROR_INVALID_VALUE;
		break;
	}
	sim_mem_unlock();
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
                                                  void *value)
{
	cuMemPoolGetAttribute_params params = { pool, attr, value };
	SIM_DRIVER_CALL(cuMemPoolGetAttribute, params, pool_get_attribute(pool, attr, value));
}

static bool valid_access(const CUmemAccessDesc *desc)
{
	return desc->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
	       sim_device_valid(desc->location.id) && sim_access_flags_valid(desc->flags);
}

static CUresult pool_set_access(CUmemoryPool handle, const CUmemAccessDesc *map, size_t count)
{
	CUresult status = sim_init_status();
	struct sim_pool *pool;

	if (status != CUDA_SUCCESS)
		return status;
	if (count && !map)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < count; i++) {
		if (!valid_access(&map[i]))
			return CUDA_ERROR_INVALID_VALUE;
	}
	sim_mem_lock();
	pool = pool_from_handle(handle);
	for (size_t i = 0; pool && i < count; i++)
		pool->access[map[i].location.id] = map[i].flags;
	sim_mem_unlock();
	return pool ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map,
                                               size_t count)
{
	cuMemPoolSetAccess_params params = { pool, map, count };
	SIM_DRIVER_CALL(cuMemPoolSetAccess, params, pool_set_access(pool, map, count));
}

static CUresult pool_get_access(CUmemAccess_flags *flags, CUmemoryPool handle,
                                CUmemLocation *location)
{
	CUresult status = sim_init_status();
	struct sim_pool *pool;

	if (status != CUDA_SUCCESS)
		return status;
	if (!flags || !location || location->type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    !sim_device_valid(location->id))
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	pool = pool_from_handle(handle);
	if (pool)
		*flags = pool->access[location->id];
	sim_mem_unlock();
	return pool ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool,
                                               CUmemLocation *location)
{
	cuMemPoolGetAccess_params params = { flags, memPool, location };
	SIM_DRIVER_CALL(cuMemPoolGetAccess, params, pool_get_access(flags, memPool, location));
}

/* ------------------------------------------------------------ device pools */

static CUresult device_get_pool(CUmemoryPool *out, CUdevice dev, bool current)
{
	CUresult status = sim_init_status();
	struct pool_state state;
	struct sim_pool *pool;
	bool created = false;

	if (status != CUDA_SUCCESS)
		return status;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_device_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	sim_mem_lock();
	pool = current ? current_pool(dev, &created) : default_pool(dev, &created);
	if (pool)
		pool_state_get(pool, &state);
	sim_mem_unlock();
	if (!pool)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (created)
		pool_activity(&state, CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED, 0);
	*out = (CUmemoryPool)pool;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
	cuDeviceGetDefaultMemPool_params params = { pool_out, dev };
	SIM_DRIVER_CALL(cuDeviceGetDefaultMemPool, params, device_get_pool(pool_out, dev, false));
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
	cuDeviceGetMemPool_params params = { pool, dev };
	struct sim_api_call call;
	CUresult result;

	SIM_DRIVER_ENTER(call, cuDeviceGetMemPool, &params);
	result = device_get_pool(pool, dev, true);
	/* cuda.h:5622 lists only CUDA_ERROR_INVALID_VALUE */
	if (result == CUDA_ERROR_INVALID_DEVICE)
		result = CUDA_ERROR_INVALID_VALUE;
	sim_api_exit(&call, result);
	return result;
}

static CUresult device_set_pool(CUdevice dev, CUmemoryPool handle)
{
	CUresult status = sim_init_status();
	struct sim_pool *pool;

	if (status != CUDA_SUCCESS)
		return status;
	if (!sim_device_valid(dev))
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	pool = pool_from_handle(handle);
	/* cuda.h:5598: the pool must be local to the device */
	if (pool && pool->device == dev)
		current_pools[dev] = pool->is_default ? NULL : pool;
	sim_mem_unlock();
	return pool && pool->device == dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
	cuDeviceSetMemPool_params params = { dev, pool };
	SIM_DRIVER_CALL(cuDeviceSetMemPool, params, device_set_pool(dev, pool));
}

/*
 * cuMemGetMemPool / cuMemGetDefaultMemPool (cuda.h, CUDA 13): the pool of a
 * location and allocation type. Device pools of pinned (device) memory are
 * the device's current and default pools; host and managed pools are not
 * modelled and return CUDA_ERROR_NOT_SUPPORTED.
 */
static CUresult location_get_pool(CUmemoryPool *pool, const CUmemLocation *location,
                                  CUmemAllocationType type, bool current)
{
	CUresult status = sim_init_status();

	if (status != CUDA_SUCCESS)
		return status;
	if (!pool || !location)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_MEM_ALLOCATION_TYPE_PINNED && type != CU_MEM_ALLOCATION_TYPE_MANAGED)
		return CUDA_ERROR_INVALID_VALUE;
	if (location->type != CU_MEM_LOCATION_TYPE_DEVICE || type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return location->type == CU_MEM_LOCATION_TYPE_INVALID ? CUDA_ERROR_INVALID_VALUE
		                                                      : CUDA_ERROR_NOT_SUPPORTED;
	status = device_get_pool(pool, location->id, current);
	return status == CUDA_ERROR_INVALID_DEVICE ? CUDA_ERROR_INVALID_VALUE : status;
}

SIM_EXPORT CUresult CUDAAPI cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location,
                                            CUmemAllocationType type)
{
	cuMemGetMemPool_params params = { pool, location, type };
	SIM_DRIVER_CALL(cuMemGetMemPool, params, location_get_pool(pool, location, type, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location,
                                                   CUmemAllocationType type)
{
	cuMemGetDefaultMemPool_params params = { pool_out, location, type };
	SIM_DRIVER_CALL(cuMemGetDefaultMemPool, params,
	                location_get_pool(pool_out, location, type, false));
}
