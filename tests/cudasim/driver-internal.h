/* SPDX-License-Identifier: MIT */
/*
 * driver-internal.h - what the files of the simulated driver (libcuda.so.1)
 * share. Not installed, not exported.
 *
 *   driver-api.c        API call frames, correlation ids, profiler hooks
 *   driver-init.c       cuInit, injection, versions, errors, cuGetProcAddress
 *   driver-config.c     the CUDASIM_* environment, read once
 *   driver-device.c     devices and their attributes
 *   driver-context.c    primary and created contexts, the current context
 *   driver-stream.c     streams, events and the per-stream GPU timeline
 *   driver-copy.c       memcpy and memset, every variant
 *   driver-module.c     modules, functions, cuLaunchKernel
 *   driver-ledger.c     the ground-truth ledger
 *   driver-allocator.c  the device heap: ranges, alignment, granularity
 *   driver-memory.c     cuMemAlloc/Free, pitch, host, register, managed,
 *                       cuMemGetInfo, pointer attributes
 *   driver-pool.c       cuMemAllocAsync/FreeAsync and memory pools
 *   driver-vmm.c        cuMemCreate/Map/Unmap/Release/AddressReserve/...
 */
#ifndef CUDASIM_DRIVER_INTERNAL_H
#define CUDASIM_DRIVER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include "sim-hooks.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* ------------------------------------------------------------ config */

struct sim_config {
	int device_count;            /* CUDASIM_DEVICES, default 1 */
	uint64_t device_memory;      /* CUDASIM_DEVICE_MEMORY, default 4 GiB */
	uint64_t context_memory;     /* CUDASIM_CONTEXT_MEMORY, default 300 MiB */
	uint64_t other_process_memory[64]; /* CUDASIM_OTHER_PROCESSES, per device */
	double bw_htod_pinned, bw_htod_pageable;  /* bytes per second */
	double bw_dtoh_pinned, bw_dtoh_pageable;
	double bw_dtod, bw_peer, bw_htoh, bw_memset;
	uint64_t copy_latency_ns;    /* fixed cost of every copy/memset */
	uint64_t kernel_ns;          /* GPU duration of every kernel */
	uint64_t launch_latency_ns;  /* API return to kernel start */
	bool nested_driver_callbacks; /* CUDASIM_NESTED_DRIVER_CALLBACKS */
	bool no_device;              /* CUDASIM_NO_DEVICE: cuInit says 100 */
};

/* Parsed on first use, immutable afterwards. */
HIDDEN const struct sim_config *sim_config(void);
/* "4G", "300M", "4096" -> bytes; false on junk. */
HIDDEN bool sim_parse_size(const char *text, uint64_t *bytes);

/* ------------------------------------------------------------ init */

/* CUDA_SUCCESS once cuInit succeeded, CUDA_ERROR_NOT_INITIALIZED before,
 * or cuInit's failure. Every entry point but the exempt ones checks it. */
HIDDEN CUresult sim_init_status(void);

/* ------------------------------------------------------------ devices */

struct sim_device;
HIDDEN struct sim_device *sim_device_get(int ordinal); /* NULL if invalid */
HIDDEN int sim_device_ordinal(const struct sim_device *dev);
HIDDEN uint64_t sim_device_total_memory(const struct sim_device *dev);

/* ------------------------------------------------------------ contexts */

struct sim_context {
	uint32_t id;               /* cuptiGetContextId */
	int device;                /* ordinal */
	bool primary;
	bool destroyed;
	unsigned flags;
	struct sim_stream *legacy; /* the NULL / CU_STREAM_LEGACY stream */
	/* owned by driver-context.c; other members private to it */
};

/* The calling thread's current context, or NULL. */
HIDDEN struct sim_context *sim_ctx_current(void);
/* Current context, or an error: CUDA_ERROR_INVALID_CONTEXT when none. */
HIDDEN CUresult sim_ctx_require(struct sim_context **ctx);
HIDDEN struct sim_context *sim_ctx_from_handle(CUcontext handle); /* NULL if invalid */

/* ------------------------------------------------------------ streams */

struct sim_stream;
/*
 * Resolve a CUstream handle as the driver does: NULL and CU_STREAM_LEGACY
 * name the context's legacy stream, CU_STREAM_PER_THREAD the calling
 * thread's per-thread stream, anything else must be a live created stream
 * (CUDA_ERROR_INVALID_HANDLE otherwise; destroyed streams included).
 */
HIDDEN CUresult sim_stream_resolve(struct sim_context *ctx, CUstream handle,
				   struct sim_stream **stream);
HIDDEN uint64_t sim_stream_get_id(const struct sim_stream *stream);

/*
 * Put one piece of GPU work of duration_ns on the stream's timeline,
 * submitted now, honouring the legacy-stream rules. Returns its GPU start
 * and end (CLOCK_MONOTONIC ns).
 */
HIDDEN void sim_stream_submit(struct sim_stream *stream, uint64_t duration_ns, uint64_t *start_ns,
			      uint64_t *end_ns);
/* Block the calling thread until CLOCK_MONOTONIC reaches t. */
HIDDEN void sim_wait_until(uint64_t t_ns);
/* When all work queued so far on the stream ends. */
HIDDEN uint64_t sim_stream_tail(const struct sim_stream *stream);
/* When all work queued so far on every stream of the device ends. */
HIDDEN uint64_t sim_device_tail(int device);

/* ------------------------------------------------------------ memory */

/* What a pointer is, as the driver sees it. */
enum sim_mem_kind {
	SIM_MEM_PAGEABLE = 0,   /* unknown to the driver: ordinary host memory */
	SIM_MEM_DEVICE,         /* cuMemAlloc, pitch */
	SIM_MEM_ASYNC,          /* cuMemAllocAsync / pools */
	SIM_MEM_MANAGED,        /* cuMemAllocManaged */
	SIM_MEM_VMM,            /* a mapped VMM range */
	SIM_MEM_HOST_PINNED,    /* cuMemAllocHost / cuMemHostAlloc */
	SIM_MEM_HOST_REGISTERED /* cuMemHostRegister */
};

struct sim_mem_region {
	enum sim_mem_kind kind;
	int device;     /* owning device; -1 for host memory */
	uintptr_t base; /* start of the allocation holding the pointer */
	size_t size;    /* its requested size */
};

/*
 * Find the allocation that holds [ptr, ptr + bytes). Returns true and fills
 * region when the whole range lies inside one known allocation; false for
 * memory the driver does not know (pageable host memory), with
 * region->kind = SIM_MEM_PAGEABLE. Thread-safe.
 */
HIDDEN bool sim_mem_lookup(uintptr_t ptr, size_t bytes, struct sim_mem_region *region);
/* true if the range is device-side memory (device, async, managed, vmm). */
HIDDEN bool sim_mem_is_device_kind(enum sim_mem_kind kind);
/* Release everything a context owns (cuCtxDestroy, primary reset):
 * device, pitch, managed and pool memory of its device that it allocated. */
HIDDEN void sim_mem_context_destroyed(struct sim_context *ctx);
/* Take / give back the context's own memory (CUDASIM_CONTEXT_MEMORY) from
 * the device heap; CUDA_ERROR_OUT_OF_MEMORY when it does not fit. */
HIDDEN CUresult sim_mem_context_reserve(struct sim_context *ctx);
HIDDEN void sim_mem_context_unreserve(struct sim_context *ctx);
/*
 * A stream, event, context or device synchronisation just completed on the
 * device (driver-stream.c calls it after waiting): memory pools release what
 * exceeds their release threshold, and frees made with cuMemFreeAsync whose
 * GPU time has passed become reusable (driver-pool.c).
 */
HIDDEN void sim_pool_on_sync(int device);

/* ------------------------------------------------------------ events */

/* Resource and synchronize domain callbacks (driver-api.c). */
HIDDEN void sim_resource_callback(CUpti_CallbackId cbid, CUcontext ctx, CUstream stream);
HIDDEN void sim_sync_callback(CUpti_CallbackId cbid, CUcontext ctx, CUstream stream);
/* Deliver an activity record if its kind is enabled (driver-api.c). */
HIDDEN bool sim_activity_enabled(CUpti_ActivityKind kind);
HIDDEN void sim_activity(const CUpti_Activity *record, uint64_t complete_ns);

/*
 * The usual shape of a driver entry point:
 *
 *	CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
 *	{
 *		cuMemFree_v2_params p = { dptr };
 *		struct sim_api_call call;
 *		sim_api_enter(&call, CUPTI_CB_DOMAIN_DRIVER_API,
 *			      CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", &p, NULL);
 *		CUresult r = mem_free(dptr);
 *		sim_api_exit(&call, r);
 *		return r;
 *	}
 */
#define SIM_DRIVER_ENTER(call, fn, params)                                                  \
	sim_api_enter(&(call), CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##fn, #fn, \
		      (params), NULL)

#endif /* CUDASIM_DRIVER_INTERNAL_H */
