/* SPDX-License-Identifier: MIT */
/*
 * driver-memory.c - device, pitch and managed allocations, pinned and
 * registered host memory, cuMemGetInfo and pointer attributes; the table of
 * every allocation the driver knows, the per-device heaps, and the ledger
 * and MEMORY2 records of allocations (README.md, "Memory model").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "driver-memory.h"

static pthread_mutex_t mem_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct sim_range_tree mem_table = { NULL, 0, 2463534242u };
static uint64_t next_buffer_id = 1;

static pthread_mutex_t heaps_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct sim_heap *heaps[SIM_MAX_DEVICES];

/* The memory each context takes when created (CUDASIM_CONTEXT_MEMORY). */
struct ctx_reservation {
	struct sim_context *ctx;
	int device;
	uintptr_t base;
	struct ctx_reservation *next;
};
static struct ctx_reservation *ctx_reservations;

/* ------------------------------------------------------------ table */

void sim_mem_lock(void)
{
	pthread_mutex_lock(&mem_mutex);
}

void sim_mem_unlock(void)
{
	pthread_mutex_unlock(&mem_mutex);
}

void sim_mem_table_insert(struct sim_mem_record *rec)
{
	rec->buffer_id = next_buffer_id++;
	sim_range_insert(&mem_table, &rec->range);
}

void sim_mem_table_remove(struct sim_mem_record *rec)
{
	sim_range_remove(&mem_table, &rec->range);
}

struct sim_mem_record *sim_mem_table_find(uintptr_t addr)
{
	struct sim_range *range = sim_range_find(&mem_table, addr);

	return range ? container_of(range, struct sim_mem_record, range) : NULL;
}

struct sim_mem_record *sim_mem_table_overlap(uintptr_t addr, size_t size)
{
	struct sim_range *range = sim_range_find(&mem_table, addr);

	if (!range) {
		range = sim_range_next(&mem_table, addr);
		if (range && range->base - addr >= size)
			range = NULL;
	}
	return range ? container_of(range, struct sim_mem_record, range) : NULL;
}

/* ------------------------------------------------------------ heaps */

static uint64_t device_total(int device)
{
	return sim_config()->device_memory;
}

static uint64_t other_processes(int device)
{
	return device >= 0 && device < SIM_MAX_DEVICES ? sim_config()->other_process_memory[device]
	                                               : 0;
}

struct sim_heap *sim_device_heap(int ordinal)
{
	struct sim_heap *heap;
	char name[32];
	uint64_t size;

	if (!sim_device_valid(ordinal))
		return NULL;
	pthread_mutex_lock(&heaps_mutex);
	heap = heaps[ordinal];
	if (!heap) {
		/* Other processes' memory is not ours to allocate. */
		size = device_total(ordinal);
		size = size > other_processes(ordinal) ? size - other_processes(ordinal) : 0;
		snprintf(name, sizeof(name), "cudasim-dev%d", ordinal);
		if (sim_heap_create(size, name, &heap) != 0)
			heap = NULL;
		heaps[ordinal] = heap;
	}
	pthread_mutex_unlock(&heaps_mutex);
	return heap;
}

static bool overlaps_any_heap(uintptr_t addr, size_t size)
{
	bool overlap = false;

	pthread_mutex_lock(&heaps_mutex);
	for (int i = 0; i < SIM_MAX_DEVICES && !overlap; i++)
		overlap = heaps[i] && sim_heap_overlaps(heaps[i], addr, size);
	pthread_mutex_unlock(&heaps_mutex);
	return overlap;
}

uint64_t sim_mem_device_free(int device)
{
	struct sim_heap *heap = sim_device_heap(device);
	uint64_t total = device_total(device);
	uint64_t taken = (heap ? sim_heap_reserved(heap) : 0) + other_processes(device);

	return taken < total ? total - taken : 0;
}

/* For NVML: what this process holds on a device, without creating a heap
 * just to answer. */
SIM_EXPORT int sim_device_memory_usage(int ordinal, uint64_t *used, uint64_t *total)
{
	struct sim_heap *heap;

	if (!sim_device_valid(ordinal) || !used || !total)
		return -1;
	pthread_mutex_lock(&heaps_mutex);
	heap = heaps[ordinal];
	*used = heap ? sim_heap_reserved(heap) : 0;
	pthread_mutex_unlock(&heaps_mutex);
	*total = device_total(ordinal);
	return 0;
}

/* ------------------------------------------------------------ records */

void sim_mem_ledger_alloc(const struct sim_mem_record *rec, bool has_stream)
{
	char stream[32] = "";
	char graph[64];

	if (!sim_ledger_enabled())
		return;
	if (has_stream)
		snprintf(stream, sizeof(stream), " stream=%" PRIu64, rec->stream_id);
	sim_ledger("op=alloc kind=%s dev=%d addr=0x%" PRIxPTR " size=%zu reserved=%zu api=%s "
	           "corr=%" PRIu32 "%s%s",
	           rec->ledger_kind, rec->device, rec->range.base, rec->range.size, rec->reserved,
	           sim_current_api_name(), sim_current_correlation_id(), stream,
	           sim_graph_ledger_suffix(graph, sizeof(graph)));
}

void sim_mem_ledger_free(const struct sim_mem_record *rec, bool has_stream)
{
	char stream[32] = "";
	char graph[64];

	if (!sim_ledger_enabled())
		return;
	if (has_stream)
		snprintf(stream, sizeof(stream), " stream=%" PRIu64, rec->stream_id);
	sim_ledger(
	    "op=free kind=%s dev=%d addr=0x%" PRIxPTR " size=%zu api=%s corr=%" PRIu32 "%s%s",
	    rec->ledger_kind, rec->device, rec->range.base, rec->range.size, sim_current_api_name(),
	    sim_current_correlation_id(), stream, sim_graph_ledger_suffix(graph, sizeof(graph)));
}

void sim_mem_ledger_alloc_failed(const char *kind, int device, size_t size, CUresult error)
{
	struct sim_heap *heap;

	if (!sim_ledger_enabled())
		return;
	heap = sim_device_heap(device);
	sim_ledger("op=alloc_failed kind=%s dev=%d size=%zu error=%s free=%" PRIu64
	           " total=%" PRIu64 " largest_free=%" PRIu64 " api=%s corr=%" PRIu32,
	           kind, device, size, sim_result_name(error), sim_mem_device_free(device),
	           device_total(device), heap ? sim_heap_largest_free(heap) : 0,
	           sim_current_api_name(), sim_current_correlation_id());
}

static CUpti_ActivityMemoryKind activity_kind(enum sim_mem_kind kind)
{
	switch (kind) {
	case SIM_MEM_HOST_PINNED:
	case SIM_MEM_HOST_REGISTERED:
		return CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	case SIM_MEM_MANAGED:
		return CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
	case SIM_MEM_PAGEABLE:
		return CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	default:
		return CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	}
}

void sim_mem_activity(const struct sim_mem_record *rec, CUpti_ActivityMemoryOperationType operation,
                      bool is_async, const struct sim_pool_config *pool)
{
	CUpti_ActivityMemory4 record;

	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_MEMORY2))
		return;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	record.memoryOperationType = operation;
	record.memoryKind = activity_kind(rec->kind);
	record.correlationId = sim_current_correlation_id();
	record.address = rec->range.base;
	record.bytes = rec->range.size;
	record.timestamp = sim_now_ns();
	record.processId = (uint32_t)getpid();
	record.deviceId = rec->device < 0 ? 0 : (uint32_t)rec->device;
	record.contextId = rec->ctx ? rec->ctx->id : CUPTI_INVALID_CONTEXT_ID;
	/* cupti_activity.h: streamId is CUPTI_INVALID_STREAM_ID unless async */
	record.streamId = is_async ? (uint32_t)rec->stream_id : CUPTI_INVALID_STREAM_ID;
	record.isAsync = is_async;
	if (pool) {
		record.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
		record.memoryPoolConfig.address = pool->address;
		record.memoryPoolConfig.releaseThreshold = pool->release_threshold;
		record.memoryPoolConfig.pool.size = pool->size;
		record.memoryPoolConfig.utilizedSize = pool->utilized;
	}
	sim_activity((const CUpti_Activity *)&record, record.timestamp);
}

/* ------------------------------------------------------------ lookup */

bool sim_mem_is_device_kind(enum sim_mem_kind kind)
{
	return kind == SIM_MEM_DEVICE || kind == SIM_MEM_ASYNC || kind == SIM_MEM_MANAGED ||
	       kind == SIM_MEM_VMM || kind == SIM_MEM_GRAPH;
}

static bool is_host_kind(enum sim_mem_kind kind)
{
	return kind == SIM_MEM_HOST_PINNED || kind == SIM_MEM_HOST_REGISTERED;
}

bool sim_mem_lookup(uintptr_t ptr, size_t bytes, struct sim_mem_region *region)
{
	struct sim_mem_record *rec;
	bool inside = false;

	region->kind = SIM_MEM_PAGEABLE;
	region->device = -1;
	region->base = ptr;
	region->size = bytes;
	sim_mem_lock();
	rec = sim_mem_table_find(ptr);
	if (rec && rec->kind == SIM_MEM_VMM) {
		inside = sim_vmm_lookup(rec, ptr, bytes, region);
	} else if (rec && bytes <= rec->range.size - (ptr - rec->range.base)) {
		region->kind = rec->kind;
		region->device = is_host_kind(rec->kind) ? -1 : rec->device;
		region->base = rec->range.base;
		region->size = rec->range.size;
		inside = true;
	}
	sim_mem_unlock();
	if (!inside) {
		region->kind = SIM_MEM_PAGEABLE;
		region->device = -1;
		region->base = ptr;
		region->size = bytes;
	}
	return inside;
}

/* ------------------------------------------------------------ contexts */

CUresult sim_mem_context_reserve(struct sim_context *ctx)
{
	uint64_t bytes = sim_config()->context_memory;
	struct ctx_reservation *entry;
	struct sim_heap_block block;
	struct sim_heap *heap;

	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	if (bytes == 0)
		return CUDA_SUCCESS;
	heap = sim_device_heap(ctx->device);
	entry = calloc(1, sizeof(*entry));
	if (!heap || !entry || sim_heap_alloc_granules(heap, bytes, &block) != 0) {
		free(entry);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	entry->ctx = ctx;
	entry->device = ctx->device;
	entry->base = block.base;
	sim_mem_lock();
	entry->next = ctx_reservations;
	ctx_reservations = entry;
	sim_mem_unlock();
	return CUDA_SUCCESS;
}

void sim_mem_context_unreserve(struct sim_context *ctx)
{
	struct ctx_reservation **link, *entry = NULL;

	sim_mem_lock();
	for (link = &ctx_reservations; *link; link = &(*link)->next) {
		if ((*link)->ctx == ctx) {
			entry = *link;
			*link = entry->next;
			break;
		}
	}
	sim_mem_unlock();
	if (!entry)
		return;
	sim_heap_free(sim_device_heap(entry->device), entry->base, NULL);
	free(entry);
}

/* Give back a record's memory; the record has left the table. */
static void release_memory(struct sim_mem_record *rec)
{
	switch (rec->kind) {
	case SIM_MEM_DEVICE:
	case SIM_MEM_MANAGED:
		sim_heap_free(sim_device_heap(rec->device), rec->range.base, NULL);
		break;
	case SIM_MEM_HOST_PINNED:
		munmap((void *)rec->range.base, rec->reserved);
		break;
	default:
		break;
	}
}

/* The kinds a context owns and its destruction frees. cudaDeviceReset's
 * documentation (cuda_runtime_api.h:309-319) lists cudaMalloc,
 * cudaMallocHost, cudaMallocManaged and cudaMallocPitch memory, and not
 * cudaMallocAsync memory. Registrations are undone with the context. */
static bool owned_by_context(const struct sim_mem_record *rec, const struct sim_context *ctx)
{
	if (rec->ctx != ctx)
		return false;
	return rec->kind == SIM_MEM_DEVICE || rec->kind == SIM_MEM_MANAGED ||
	       rec->kind == SIM_MEM_HOST_PINNED || rec->kind == SIM_MEM_HOST_REGISTERED;
}

void sim_mem_context_destroyed(struct sim_context *ctx)
{
	struct sim_mem_record **owned = NULL, **grown;
	size_t count = 0, capacity = 0;
	struct sim_range *range;

	sim_mem_lock();
	for (range = sim_range_first(&mem_table); range;
	     range = sim_range_next(&mem_table, range->base)) {
		struct sim_mem_record *rec = container_of(range, struct sim_mem_record, range);
		if (!owned_by_context(rec, ctx))
			continue;
		if (count == capacity) {
			capacity = capacity ? capacity * 2 : 16;
			grown = realloc(owned, capacity * sizeof(*owned));
			if (!grown)
				break; /* what is not collected stays allocated */
			owned = grown;
		}
		owned[count++] = rec;
	}
	for (size_t i = 0; i < count; i++) {
		sim_mem_table_remove(owned[i]);
		sim_mem_ledger_free(owned[i], false);
		release_memory(owned[i]);
	}
	sim_mem_unlock();
	for (size_t i = 0; i < count; i++) {
		if (owned[i]->kind != SIM_MEM_HOST_REGISTERED)
			sim_mem_activity(owned[i], CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE,
			                 false, NULL);
		free(owned[i]->um);
		free(owned[i]);
	}
	free(owned);
}

/* ------------------------------------------------------------ device memory */

static CUresult heap_allocate(struct sim_context *ctx, size_t size, enum sim_mem_kind kind,
                              const char *ledger_kind, unsigned int flags, CUdeviceptr *dptr)
{
	struct sim_heap *heap = sim_device_heap(ctx->device);
	struct sim_mem_record *rec = calloc(1, sizeof(*rec));
	struct sim_heap_block block;

	sim_mem_lock();
	if (!heap || !rec || sim_heap_alloc(heap, size, &block) != 0) {
		sim_mem_ledger_alloc_failed(ledger_kind, ctx->device, size,
		                            CUDA_ERROR_OUT_OF_MEMORY);
		sim_mem_unlock();
		free(rec);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	rec->range.base = block.base;
	rec->range.size = size;
	rec->kind = kind;
	rec->ledger_kind = ledger_kind;
	rec->device = ctx->device;
	rec->ctx = ctx;
	rec->reserved = block.reserved;
	rec->flags = flags;
	sim_mem_table_insert(rec);
	sim_mem_ledger_alloc(rec, false);
	sim_mem_unlock();
	sim_mem_activity(rec, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, false, NULL);
	*dptr = block.base;
	return CUDA_SUCCESS;
}

static CUresult mem_alloc(CUdeviceptr *dptr, size_t bytesize)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);

	if (status != CUDA_SUCCESS)
		return status;
	/* cuda.h:8582: "If bytesize is 0, cuMemAlloc() returns
	 * CUDA_ERROR_INVALID_VALUE". */
	if (!dptr || bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	return heap_allocate(ctx, bytesize, SIM_MEM_DEVICE, "device", 0, dptr);
}

SIM_EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	cuMemAlloc_v2_params params = { dptr, bytesize };
	SIM_DRIVER_CALL(cuMemAlloc_v2, params, mem_alloc(dptr, bytesize));
}

static CUresult mem_alloc_pitch(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
                                unsigned int element_size)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);
	size_t row;

	if (status != CUDA_SUCCESS)
		return status;
	if (!dptr || !pitch || width == 0 || height == 0)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h:8628: ElementSizeBytes may be 4, 8 or 16 */
	if (element_size != 4 && element_size != 8 && element_size != 16)
		return CUDA_ERROR_INVALID_VALUE;
	if (width > SIZE_MAX - SIM_HEAP_ALIGNMENT)
		return CUDA_ERROR_OUT_OF_MEMORY;
	/* Rows start on textureAlignment (512), as cuMemcpy2D expects. */
	row = (width + SIM_HEAP_ALIGNMENT - 1) / SIM_HEAP_ALIGNMENT * SIM_HEAP_ALIGNMENT;
	if (height > SIZE_MAX / row)
		return CUDA_ERROR_OUT_OF_MEMORY;
	status = heap_allocate(ctx, row * height, SIM_MEM_DEVICE, "pitch", 0, dptr);
	if (status == CUDA_SUCCESS)
		*pitch = row;
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch,
                                               size_t WidthInBytes, size_t Height,
                                               unsigned int ElementSizeBytes)
{
	cuMemAllocPitch_v2_params params = { dptr, pPitch, WidthInBytes, Height, ElementSizeBytes };
	SIM_DRIVER_CALL(cuMemAllocPitch_v2, params,
	                mem_alloc_pitch(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes));
}

static CUresult mem_alloc_managed(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);

	if (status != CUDA_SUCCESS)
		return status;
	/* cuda.h:9002: flags must be one of CU_MEM_ATTACH_GLOBAL or _HOST */
	if (!dptr || bytesize == 0 ||
	    (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
		return CUDA_ERROR_INVALID_VALUE;
	return heap_allocate(ctx, bytesize, SIM_MEM_MANAGED, "managed", flags, dptr);
}

SIM_EXPORT CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize,
                                              unsigned int flags)
{
	cuMemAllocManaged_params params = { dptr, bytesize, flags };
	SIM_DRIVER_CALL(cuMemAllocManaged, params, mem_alloc_managed(dptr, bytesize, flags));
}

/*
 * Free a record found in the table, the memory lock held, once the device
 * has finished its work. It leaves the table first, so that a second free
 * of the same pointer from another thread fails while this one waits.
 */
static CUresult free_after_device(struct sim_mem_record *rec)
{
	sim_mem_table_remove(rec);
	sim_mem_unlock();
	sim_wait_until(sim_device_tail(rec->device));
	sim_mem_lock();
	sim_mem_ledger_free(rec, false);
	release_memory(rec);
	sim_mem_unlock();
	sim_mem_activity(rec, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, false, NULL);
	free(rec->um);
	free(rec);
	return CUDA_SUCCESS;
}

static CUresult free_async_pointer(struct sim_mem_record *rec)
{
	struct sim_pool_config config;

	/* cuda.h:8684: no implicit synchronization for cuMemAllocAsync
	 * pointers; the caller vouches that their accesses are done. */
	sim_mem_table_remove(rec);
	sim_mem_ledger_free(rec, false);
	sim_pool_free_now(rec, &config);
	sim_mem_unlock();
	sim_mem_activity(rec, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, false, &config);
	free(rec);
	return CUDA_SUCCESS;
}

static CUresult mem_free(CUdeviceptr dptr)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);
	struct sim_mem_record *rec;

	if (status != CUDA_SUCCESS)
		return status;
	if (dptr == 0)
		return CUDA_SUCCESS; /* cudaFree(0) and cuMemFree(0) are no-ops */
	sim_mem_lock();
	rec = sim_mem_table_find((uintptr_t)dptr);
	if (!rec || rec->range.base != dptr ||
	    (rec->kind != SIM_MEM_DEVICE && rec->kind != SIM_MEM_MANAGED &&
	     rec->kind != SIM_MEM_ASYNC && rec->kind != SIM_MEM_GRAPH)) {
		/* never allocated, freed already, or not cuMemFree's */
		sim_mem_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (rec->kind == SIM_MEM_GRAPH) {
		/* A graph's, left unfreed by it (cuda.h, cuGraphAddMemAllocNode). */
		status = sim_graph_mem_free(rec, false, 0);
		sim_mem_unlock();
		return status;
	}
	if (rec->kind == SIM_MEM_ASYNC)
		return free_async_pointer(rec);
	/* "may perform implicit synchronization": a device-wide one in
	 * practice (cuda_runtime_api.h:4723-4728; NVIDIA's answer in
	 * cupy#3777) */
	return free_after_device(rec);
}

SIM_EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	cuMemFree_v2_params params = { dptr };
	SIM_DRIVER_CALL(cuMemFree_v2, params, mem_free(dptr));
}

static CUresult mem_get_info(size_t *free_bytes, size_t *total_bytes)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);

	if (status != CUDA_SUCCESS)
		return status;
	if (!free_bytes || !total_bytes)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h:8536-8539: free as the OS sees it (other processes count),
	 * total the memory available to the context */
	*free_bytes = sim_mem_device_free(ctx->device);
	*total_bytes = device_total(ctx->device);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemGetInfo_v2(size_t *free, size_t *total)
{
	cuMemGetInfo_v2_params params = { free, total };
	SIM_DRIVER_CALL(cuMemGetInfo_v2, params, mem_get_info(free, total));
}

static CUresult mem_get_address_range(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);
	struct sim_mem_record *rec;

	if (status != CUDA_SUCCESS)
		return status;
	sim_mem_lock();
	rec = sim_mem_table_find((uintptr_t)dptr);
	if (!rec || rec->kind == SIM_MEM_HOST_REGISTERED) {
		sim_mem_unlock();
		return CUDA_ERROR_NOT_FOUND;
	}
	/* both outputs are optional (cuda.h:8715) */
	if (pbase)
		*pbase = rec->range.base;
	if (psize)
		*psize = rec->range.size;
	sim_mem_unlock();
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize,
                                                    CUdeviceptr dptr)
{
	cuMemGetAddressRange_v2_params params = { pbase, psize, dptr };
	SIM_DRIVER_CALL(cuMemGetAddressRange_v2, params, mem_get_address_range(pbase, psize, dptr));
}

/* ------------------------------------------------------------ pinned host */

size_t sim_page_size(void)
{
	long size = sysconf(_SC_PAGESIZE);

	return size > 0 ? (size_t)size : 4096;
}

static CUresult host_alloc(void **pp, size_t bytesize, unsigned int flags)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);
	struct sim_mem_record *rec;
	size_t span;
	void *mem;

	if (status != CUDA_SUCCESS)
		return status;
	if (!pp || (flags & ~(unsigned int)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
	                                    CU_MEMHOSTALLOC_WRITECOMBINED)))
		return CUDA_ERROR_INVALID_VALUE;
	if (bytesize == 0) {
		/* success, nothing allocated, as measured on real drivers
		 * (lupine#850) */
		*pp = NULL;
		return CUDA_SUCCESS;
	}
	rec = calloc(1, sizeof(*rec));
	span = bytesize > SIZE_MAX - sim_page_size()
	           ? 0
	           : (bytesize + sim_page_size() - 1) / sim_page_size() * sim_page_size();
	mem = span ? mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
	           : MAP_FAILED;
	if (!rec || mem == MAP_FAILED) {
		if (mem != MAP_FAILED)
			munmap(mem, span);
		free(rec);
		sim_mem_lock();
		sim_mem_ledger_alloc_failed("host_pinned", ctx->device, bytesize,
		                            CUDA_ERROR_OUT_OF_MEMORY);
		sim_mem_unlock();
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	rec->range.base = (uintptr_t)mem;
	rec->range.size = bytesize;
	rec->kind = SIM_MEM_HOST_PINNED;
	rec->ledger_kind = "host_pinned";
	rec->device = ctx->device;
	rec->ctx = ctx;
	rec->reserved = span;
	rec->flags = flags;
	sim_mem_lock();
	sim_mem_table_insert(rec);
	sim_mem_ledger_alloc(rec, false);
	sim_mem_unlock();
	sim_mem_activity(rec, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, false, NULL);
	*pp = mem;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
	cuMemHostAlloc_params params = { pp, bytesize, Flags };
	SIM_DRIVER_CALL(cuMemHostAlloc, params, host_alloc(pp, bytesize, Flags));
}

SIM_EXPORT CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	cuMemAllocHost_v2_params params = { pp, bytesize };
	SIM_DRIVER_CALL(cuMemAllocHost_v2, params, host_alloc(pp, bytesize, 0));
}

static CUresult free_host(void *p)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);
	struct sim_mem_record *rec;

	if (status != CUDA_SUCCESS)
		return status;
	if (!p)
		return CUDA_SUCCESS; /* measured: cuMemFreeHost(NULL) = 0 */
	sim_mem_lock();
	rec = sim_mem_table_find((uintptr_t)p);
	if (!rec || rec->range.base != (uintptr_t)p || rec->kind != SIM_MEM_HOST_PINNED) {
		sim_mem_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* Async copies may still read it: let the device finish first. */
	return free_after_device(rec);
}

SIM_EXPORT CUresult CUDAAPI cuMemFreeHost(void *p)
{
	cuMemFreeHost_params params = { p };
	SIM_DRIVER_CALL(cuMemFreeHost, params, free_host(p));
}

static CUresult host_get_device_pointer(CUdeviceptr *pdptr, void *p, unsigned int flags)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);
	struct sim_mem_record *rec;

	if (status != CUDA_SUCCESS)
		return status;
	/* cuda.h:8938: Flags must be 0 */
	if (!pdptr || !p || flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	rec = sim_mem_table_find((uintptr_t)p);
	status = rec && is_host_kind(rec->kind) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	sim_mem_unlock();
	/* Unified addressing: the device sees the memory at the host address. */
	if (status == CUDA_SUCCESS)
		*pdptr = (CUdeviceptr)(uintptr_t)p;
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p,
                                                         unsigned int Flags)
{
	cuMemHostGetDevicePointer_v2_params params = { pdptr, p, Flags };
	SIM_DRIVER_CALL(cuMemHostGetDevicePointer_v2, params,
	                host_get_device_pointer(pdptr, p, Flags));
}

static CUresult host_get_flags(unsigned int *flags, void *p)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);
	struct sim_mem_record *rec;

	if (status != CUDA_SUCCESS)
		return status;
	if (!flags || !p)
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	rec = sim_mem_table_find((uintptr_t)p);
	/* cuda.h:8966: only cuMemAllocHost / cuMemHostAlloc memory */
	status = rec && rec->kind == SIM_MEM_HOST_PINNED ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	/* Under unified addressing every pinned allocation is mapped, and
	 * the driver reports DEVICEMAP, as measured on real drivers
	 * (lupine#437, ucx#3988). */
	if (status == CUDA_SUCCESS)
		*flags = rec->flags | CU_MEMHOSTALLOC_DEVICEMAP;
	sim_mem_unlock();
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
	cuMemHostGetFlags_params params = { pFlags, p };
	SIM_DRIVER_CALL(cuMemHostGetFlags, params, host_get_flags(pFlags, p));
}

/* ------------------------------------------------------------ registered host */

/* The pages of [p, p + size) must be mapped: msync fails with ENOMEM on
 * a hole. */
static bool host_range_mapped(uintptr_t p, size_t size)
{
	uintptr_t start = p / sim_page_size() * sim_page_size();

	return msync((void *)start, p + size - start, MS_ASYNC) == 0;
}

static CUresult host_register(void *p, size_t bytesize, unsigned int flags)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);
	unsigned int known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
	                     CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
	uintptr_t addr = (uintptr_t)p;
	struct sim_mem_record *rec, *overlap;

	if (status != CUDA_SUCCESS)
		return status;
	if (!p || bytesize == 0 || (flags & ~known) || bytesize > UINTPTR_MAX - addr)
		return CUDA_ERROR_INVALID_VALUE;
	if (overlaps_any_heap(addr, bytesize) || !host_range_mapped(addr, bytesize))
		return CUDA_ERROR_INVALID_VALUE;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return CUDA_ERROR_OUT_OF_MEMORY;
	sim_mem_lock();
	overlap = sim_mem_table_overlap(addr, bytesize);
	if (overlap) {
		/* Any byte already registered or pinned: 712 (driver_types.h:849) */
		status = is_host_kind(overlap->kind) ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
		                                     : CUDA_ERROR_INVALID_VALUE;
		sim_mem_unlock();
		free(rec);
		return status;
	}
	rec->range.base = addr;
	rec->range.size = bytesize;
	rec->kind = SIM_MEM_HOST_REGISTERED;
	rec->ledger_kind = "host_registered";
	rec->device = ctx->device;
	rec->ctx = ctx;
	rec->reserved =
	    (addr + bytesize + sim_page_size() - 1) / sim_page_size() * sim_page_size() -
	    addr / sim_page_size() * sim_page_size();
	rec->flags = flags;
	sim_mem_table_insert(rec);
	sim_mem_ledger_alloc(rec, false);
	sim_mem_unlock();
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
	cuMemHostRegister_v2_params params = { p, bytesize, Flags };
	SIM_DRIVER_CALL(cuMemHostRegister_v2, params, host_register(p, bytesize, Flags));
}

static CUresult host_unregister(void *p)
{
	struct sim_context *ctx;
	CUresult status = sim_ctx_enter(&ctx);
	struct sim_mem_record *rec;

	if (status != CUDA_SUCCESS)
		return status;
	if (!p)
		return CUDA_ERROR_INVALID_VALUE; /* measured: cuMemHostUnregister(NULL) = 1 */
	sim_mem_lock();
	rec = sim_mem_table_find((uintptr_t)p);
	if (rec && rec->kind == SIM_MEM_HOST_PINNED) {
		/* a cuMemHostAlloc pointer gives 1, as measured (lupine#878) */
		sim_mem_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!rec || rec->kind != SIM_MEM_HOST_REGISTERED || rec->range.base != (uintptr_t)p) {
		/* cuda.h:9552: the base address given to cuMemHostRegister */
		sim_mem_unlock();
		return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
	}
	sim_mem_table_remove(rec);
	sim_mem_ledger_free(rec, false);
	sim_mem_unlock();
	free(rec);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemHostUnregister(void *p)
{
	cuMemHostUnregister_params params = { p };
	SIM_DRIVER_CALL(cuMemHostUnregister, params, host_unregister(p));
}

/* ------------------------------------------------------------ pointer attributes */

/* What the attributes of one pointer are computed from. */
struct pointer_info {
	bool known;
	struct sim_mem_record rec;  /* a copy, valid when known */
	struct sim_mem_region area; /* the allocation or VMM reservation */
};

static void pointer_info_get(uintptr_t ptr, struct pointer_info *info)
{
	struct sim_mem_record *rec;

	memset(info, 0, sizeof(*info));
	sim_mem_lock();
	rec = sim_mem_table_find(ptr);
	if (rec) {
		info->known = true;
		info->rec = *rec;
		info->area.base = rec->range.base;
		info->area.size = rec->range.size;
		if (rec->kind == SIM_MEM_VMM)
			(void)sim_vmm_lookup(rec, ptr, 0, &info->area);
	}
	sim_mem_unlock();
}

#define PUT(type, value) (*(type *)data = (type)(value))

/* An attribute of a pointer the driver knows. */
static CUresult attribute_known(const struct pointer_info *info, CUpointer_attribute attribute,
                                void *data, uintptr_t ptr)
{
	const struct sim_mem_record *rec = &info->rec;
	bool host = is_host_kind(rec->kind);

	switch (attribute) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		PUT(CUcontext, rec->ctx ? sim_ctx_handle(rec->ctx) : NULL);
		break;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		PUT(unsigned int, host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		PUT(CUdeviceptr, ptr);
		break;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		/* device memory has no host address on a real GPU */
		if (!host && rec->kind != SIM_MEM_MANAGED)
			return CUDA_ERROR_INVALID_VALUE;
		PUT(void *, ptr);
		break;
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
		PUT(unsigned int, 0);
		break;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
	case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
		PUT(unsigned long long, rec->buffer_id);
		break;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		PUT(unsigned int, rec->kind == SIM_MEM_MANAGED);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		PUT(int, rec->device);
		break;
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
		PUT(unsigned int, rec->kind == SIM_MEM_DEVICE);
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		PUT(CUdeviceptr, info->area.base);
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		PUT(size_t, info->area.size);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPED:
		PUT(unsigned int, 1);
		break;
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
		PUT(unsigned long long, 0);
		break;
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		PUT(int, CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE);
		break;
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		PUT(CUmemoryPool, rec->kind == SIM_MEM_ASYNC ? (CUmemoryPool)rec->pool : NULL);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
		PUT(size_t, rec->range.size);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
		PUT(void *, rec->range.base);
		break;
	case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/* cuPointerGetAttributes' "default NULL values" for memory the driver does
 * not know (cuda.h:14875): type 0 (unregistered), no device, the host
 * address as given. */
static CUresult attribute_unknown(CUpointer_attribute attribute, void *data, uintptr_t ptr)
{
	switch (attribute) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		PUT(CUcontext, NULL);
		break;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
	case CU_POINTER_ATTRIBUTE_MAPPED:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
		PUT(unsigned int, 0);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		PUT(CUdeviceptr, 0);
		break;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		PUT(void *, ptr);
		break;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
	case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
		PUT(unsigned long long, 0);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		PUT(int, CU_DEVICE_INVALID);
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
		PUT(size_t, 0);
		break;
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		PUT(int, CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE);
		break;
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		PUT(CUmemoryPool, NULL);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
		PUT(void *, NULL);
		break;
	case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
		break; /* nothing to say, nothing written */
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

#undef PUT

static CUresult pointer_get_attribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
	CUresult status = sim_init_status();
	struct pointer_info info;

	if (status != CUDA_SUCCESS)
		return status;
	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h:14207: DEVICE_POINTER needs a current context */
	if (attribute == CU_POINTER_ATTRIBUTE_DEVICE_POINTER && !sim_ctx_current())
		return CUDA_ERROR_INVALID_CONTEXT;
	pointer_info_get((uintptr_t)ptr, &info);
	/* cuda.h:14191: memory not allocated, mapped or registered by a
	 * context gives CUDA_ERROR_INVALID_VALUE */
	if (!info.known)
		return CUDA_ERROR_INVALID_VALUE;
	return attribute_known(&info, attribute, data, (uintptr_t)ptr);
}

SIM_EXPORT CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                                                  CUdeviceptr ptr)
{
	cuPointerGetAttribute_params params = { data, attribute, ptr };
	SIM_DRIVER_CALL(cuPointerGetAttribute, params, pointer_get_attribute(data, attribute, ptr));
}

static CUresult pointer_get_attributes(unsigned int count, CUpointer_attribute *attributes,
                                       void **data, CUdeviceptr ptr)
{
	CUresult status = sim_init_status();
	struct pointer_info info;

	if (status != CUDA_SUCCESS)
		return status;
	if (count == 0 || !attributes || !data)
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned int i = 0; i < count; i++) {
		if (!data[i])
			return CUDA_ERROR_INVALID_VALUE;
	}
	pointer_info_get((uintptr_t)ptr, &info);
	for (unsigned int i = 0; i < count; i++) {
		/* cuda.h:14875: no error for a pointer the driver does not know */
		if (info.known)
			status = attribute_known(&info, attributes[i], data[i], (uintptr_t)ptr);
		else
			status = attribute_unknown(attributes[i], data[i], (uintptr_t)ptr);
		if (status == CUDA_ERROR_NOT_SUPPORTED)
			status = CUDA_SUCCESS; /* P2P tokens: left as they are */
		if (status != CUDA_SUCCESS)
			return status;
	}
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes,
                                                   CUpointer_attribute *attributes, void **data,
                                                   CUdeviceptr ptr)
{
	cuPointerGetAttributes_params params = { numAttributes, attributes, data, ptr };
	SIM_DRIVER_CALL(cuPointerGetAttributes, params,
	                pointer_get_attributes(numAttributes, attributes, data, ptr));
}
