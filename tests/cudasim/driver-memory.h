/* SPDX-License-Identifier: MIT */
/*
 * driver-memory.h - what driver-memory.c, driver-pool.c and driver-vmm.c
 * share: the table of every allocation the driver knows (device, pitch,
 * managed, async, VMM mappings, pinned and registered host memory), its
 * lock, and the ledger and activity records of allocations.
 *
 * Lock order: the memory lock, then a heap's own lock (leaf). Nothing here
 * calls a profiler callback or a stream function while holding it.
 */
#ifndef CUDASIM_DRIVER_MEMORY_H
#define CUDASIM_DRIVER_MEMORY_H

#include "driver-allocator.h"
#include "driver-internal.h"

struct sim_pool;
struct sim_um;

/* One known allocation, in the address-ordered table. */
struct sim_mem_record {
	struct sim_range range; /* base, size = requested size */
	enum sim_mem_kind kind;
	const char *ledger_kind; /* "device", "pitch", ... (README.md) */
	int device;              /* owning device (-1: host memory with no context) */
	struct sim_context *ctx; /* allocating context, NULL if none */
	size_t reserved;         /* bytes it takes after rounding */
	unsigned int flags;      /* host alloc / register / managed flags */
	uint64_t buffer_id;      /* CU_POINTER_ATTRIBUTE_BUFFER_ID */
	struct sim_pool *pool;   /* async allocations */
	uint64_t stream_id;      /* async allocations */
	void *owner;             /* VMM mapping */
	struct sim_um *um;       /* managed: advice and residency (driver-managed.c) */
};

HIDDEN void sim_mem_lock(void);
HIDDEN void sim_mem_unlock(void);
/* The table; callers hold the memory lock. */
HIDDEN void sim_mem_table_insert(struct sim_mem_record *rec);
HIDDEN void sim_mem_table_remove(struct sim_mem_record *rec);
HIDDEN struct sim_mem_record *sim_mem_table_find(uintptr_t addr);
/* First record overlapping [addr, addr + size), or NULL. */
HIDDEN struct sim_mem_record *sim_mem_table_overlap(uintptr_t addr, size_t size);

/* cuMemGetInfo's free bytes of a device. */
HIDDEN uint64_t sim_mem_device_free(int device);
/* The host's page size (4096 if sysconf cannot tell). */
HIDDEN size_t sim_page_size(void);
/* One of the three CU_MEM_ACCESS_FLAGS_PROT_* values (pools and VMM). */
static inline bool sim_access_flags_valid(CUmemAccess_flags flags)
{
	return flags == CU_MEM_ACCESS_FLAGS_PROT_NONE || flags == CU_MEM_ACCESS_FLAGS_PROT_READ ||
	       flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
}

/* Ledger lines (README.md): call them with the memory lock held so that
 * the ledger shows a free before a reuse of the same address. stream_id is
 * printed when has_stream. */
HIDDEN void sim_mem_ledger_alloc(const struct sim_mem_record *rec, bool has_stream);
HIDDEN void sim_mem_ledger_free(const struct sim_mem_record *rec, bool has_stream);
HIDDEN void sim_mem_ledger_alloc_failed(const char *kind, int device, size_t size, CUresult error);

/* Pool state an async MEMORY2 record carries. */
struct sim_pool_config {
	uint64_t address;
	uint64_t release_threshold;
	uint64_t size;
	uint64_t utilized;
};

/* A MEMORY2 record (CUpti_ActivityMemory4) when that kind is enabled;
 * call without the memory lock. pool is NULL unless the operation is an
 * async one. */
HIDDEN void sim_mem_activity(const struct sim_mem_record *rec,
                             CUpti_ActivityMemoryOperationType operation, bool is_async,
                             const struct sim_pool_config *pool);

/* driver-pool.c: free an async allocation outside stream order (cuMemFree,
 * context teardown). The record has left the table; the memory lock is
 * held. Fills *config for the activity record. */
HIDDEN void sim_pool_free_now(struct sim_mem_record *rec, struct sim_pool_config *config);

/* driver-graph.c: cuMemFree / cuMemFreeAsync of a graph allocation (kind
 * SIM_MEM_GRAPH), the memory lock held: freed outside its graph, or
 * CUDA_ERROR_INVALID_VALUE when it is not live or its graph frees it. */
HIDDEN CUresult sim_graph_mem_free(struct sim_mem_record *rec, bool has_stream, uint64_t stream_id);

/* driver-vmm.c: with the memory lock held, whether [ptr, ptr + bytes)
 * lies in accessible mappings of the reservation that rec (a mapping's
 * record) belongs to; fills region with the reservation. */
HIDDEN bool sim_vmm_lookup(const struct sim_mem_record *rec, uintptr_t ptr, size_t bytes,
                           struct sim_mem_region *region);

#endif /* CUDASIM_DRIVER_MEMORY_H */
