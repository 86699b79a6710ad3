/* SPDX-License-Identifier: MIT */
/*
 * driver-internal.h - what the files of the simulated driver (libcuda.so.1)
 * share. Not installed, not exported.
 *
 *   driver-api.c        API call frames, correlation ids, profiler hooks
 *   driver-init.c       cuInit, injection, versions, errors, cuGetProcAddress
 *   driver-config.c     the CUDASIM_* environment, read once (its parsing:
 *                       sim-env.c, shared with libnvidia-ml.so.1)
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
 *   driver-graph.c      stream capture, graphs, their launch
 *   driver-occupancy.c  cuOccupancy*, NVIDIA's occupancy calculator
 *   driver-managed.c    managed memory advice, prefetch, range attributes
 */
#ifndef CUDASIM_DRIVER_INTERNAL_H
#define CUDASIM_DRIVER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include "sim-env.h"
#include "sim-hooks.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* ------------------------------------------------------------ config */

struct sim_config {
	int device_count;        /* CUDASIM_DEVICES, default 1 */
	uint64_t device_memory;  /* CUDASIM_DEVICE_MEMORY, default 4 GiB */
	uint64_t context_memory; /* CUDASIM_CONTEXT_MEMORY, default 300 MiB */
	uint64_t other_process_memory[SIM_MAX_DEVICES]; /* CUDASIM_OTHER_PROCESSES, per device */
	double bw_htod_pinned, bw_htod_pageable;        /* bytes per second */
	double bw_dtoh_pinned, bw_dtoh_pageable;
	double bw_dtod, bw_peer, bw_htoh, bw_memset;
	uint64_t copy_latency_ns;     /* fixed cost of every copy/memset */
	uint64_t kernel_ns;           /* GPU duration of every kernel */
	uint64_t launch_latency_ns;   /* API return to kernel start */
	bool nested_driver_callbacks; /* CUDASIM_NESTED_DRIVER_CALLBACKS */
	bool no_device;               /* CUDASIM_NO_DEVICE: cuInit says 100 */
	bool reuse_stream_handles;    /* CUDASIM_REUSE_STREAM_HANDLES */
	uint64_t kernel_fault;        /* CUDASIM_KERNEL_FAULT: the Nth launch faults; 0: none */
	int driver_version;           /* CUDASIM_DRIVER_VERSION, default 13000 */
	int cc_major, cc_minor;       /* CUDASIM_COMPUTE_CAPABILITY, default 9.0 */
	/* CUDASIM_OTHER_PROCESSES entry by entry, as NVML lists them */
	int other_process_count;
	struct sim_other_process other_processes[SIM_MAX_DEVICES];
};

/* Parsed on first use, immutable afterwards. */
HIDDEN const struct sim_config *sim_config(void);
/* The devices' compute capability as nvcc names architectures: 80 for 8.0. */
HIDDEN int sim_device_sm(void);

/* ------------------------------------------------------------ init */

/* CUDA_SUCCESS once cuInit succeeded, CUDA_ERROR_NOT_INITIALIZED before,
 * or cuInit's failure. Every entry point but the exempt ones checks it. */
HIDDEN CUresult sim_init_status(void);
/*
 * cuGetProcAddress's table (generated at build time by gen-proc-versions.sh
 * from cudaTypedefs.h and cudaProfilerTypedefs.h, sorted by name): every
 * driver function with the CUDA versions its ABI versions appeared in,
 * ascending and 0-terminated (exported as <name>, <name>_v2, ...), and the
 * version its per-thread default stream variant appeared in (0: none).
 */
#define SIM_PROC_VERSIONS 4
struct sim_proc_versions {
	const char *name;
	int versions[SIM_PROC_VERSIONS];
	int per_thread;
};
extern HIDDEN const struct sim_proc_versions sim_proc_table[];
extern HIDDEN const size_t sim_proc_table_count;

/* "CUDA_ERROR_INVALID_VALUE" for CUDA_ERROR_INVALID_VALUE; NULL if unknown.
 * What cuGetErrorName returns, without an API call frame. */
HIDDEN const char *sim_result_name(CUresult result);

/* ------------------------------------------------------------ device code */

/*
 * The device code of a module (driver-arch.c): each cubin or PTX of a fat
 * binary, or the one of a plain cubin or PTX image, by architecture.
 */
struct sim_code {
	bool ptx;     /* PTX (compute_XY), else a cubin (sm_XY) */
	int sm;       /* XY: 80 for sm_80 / compute_80 */
	char variant; /* 'a' arch-specific, 'f' family-specific, 0 */
	int isa;      /* PTX ISA version x 10 (90 for 9.0); 0 when unknown */
};
#define SIM_MAX_CODES 32
struct sim_codes {
	size_t count;
	struct sim_code codes[SIM_MAX_CODES];
	int chosen; /* index of the code the device runs; -1 none */
};

HIDDEN void sim_code_add(struct sim_codes *codes, bool ptx, int sm, char variant, int isa);
/* Pick the code the device runs (sets chosen): CUDA_SUCCESS,
 * CUDA_ERROR_NO_BINARY_FOR_GPU when none can run, or
 * CUDA_ERROR_UNSUPPORTED_PTX_VERSION when the PTX chosen needs a newer
 * driver than CUDASIM_DRIVER_VERSION. */
HIDDEN CUresult sim_code_choose(struct sim_codes *codes);
/* The CUDA version that introduced a PTX ISA version (x 10): 13000 for 90. */
HIDDEN int sim_ptx_isa_cuda_version(int isa);
/* "sm_90,compute_80" ("-" for none); the chosen one ("-" for none). */
HIDDEN const char *sim_codes_describe(const struct sim_codes *codes, char *buf, size_t size);
HIDDEN const char *sim_code_chosen(const struct sim_codes *codes, char *buf, size_t size);
/* The module_load_failed ledger line of an image refused with result. */
HIDDEN void sim_codes_ledger_failure(const struct sim_codes *codes, CUresult result);

/* ------------------------------------------------------------ devices */

struct sim_device;
HIDDEN struct sim_device *sim_device_get(int ordinal); /* NULL if invalid */
/* Whether ordinal names a simulated device. */
static inline bool sim_device_valid(int ordinal)
{
	return sim_device_get(ordinal) != NULL;
}
/* An initialised driver and a valid device: sim_init_status(), then
 * CUDA_ERROR_INVALID_DEVICE unless dev names a simulated device. */
HIDDEN CUresult sim_device_check(CUdevice dev);
HIDDEN int sim_device_ordinal(const struct sim_device *dev);
HIDDEN uint64_t sim_device_total_memory(const struct sim_device *dev);
/* Largest block and grid a launch may use (CU_DEVICE_ATTRIBUTE_MAX_*). */
#define SIM_MAX_THREADS_PER_BLOCK      1024
#define SIM_MAX_SHARED_PER_BLOCK       49152  /* without opt-in */
#define SIM_MAX_SHARED_PER_BLOCK_OPTIN 232448 /* cuFuncSetAttribute ceiling */
#define SIM_MULTIPROCESSOR_COUNT       132
/* cuDeviceGetAttribute's value (0 for an out-of-range attribute). */
HIDDEN int sim_device_attribute(int ordinal, CUdevice_attribute attrib);
/* The device's UUID: bytes c5 d1 51 3a 7e 5f 4c 75 9e 0d 5a 1e, then the
 * ordinal as 4 big-endian bytes (NVML computes the same). */
HIDDEN void sim_device_uuid(int ordinal, CUuuid *uuid);
/* The CUPTI DEVICE record of the device, once, when its first context is
 * created while that activity kind is enabled. */
HIDDEN void sim_device_announce(int ordinal);

/* ------------------------------------------------------------ contexts */

/*
 * A context. The CUcontext handle is the address of this struct. Structs
 * are never freed (a destroyed context keeps destroyed = true), so a stale
 * handle or pointer is always safe to look at. A primary context keeps its
 * struct, and so its handle, across release/reset and re-activation; each
 * activation gets a new id, as a newly created context would.
 */
struct sim_context {
	uint32_t id; /* cuptiGetContextId; process-wide from 1 */
	int device;  /* ordinal */
	bool primary;
	bool destroyed; /* destroyed, or an inactive primary */
	unsigned flags;
	struct sim_stream *legacy; /* the NULL / CU_STREAM_LEGACY stream */
	void *streams;             /* driver-stream.c's own state, NULL at creation */
	/* owned by driver-context.c; the members below are private to it */
	unsigned int primary_retains; /* cuDevicePrimaryCtxRetain count */
	bool dying;                   /* cuCtxDestroy has claimed it */
	size_t limits[CU_LIMIT_MAX];
	/* A kernel that calls malloc/free, or printf, was launched in it
	 * (driver-module.c sets them; cuCtxSetLimit reads them). */
	bool heap_launched, printf_launched;
	/* A kernel of it made an illegal memory access (CUDASIM_KERNEL_FAULT):
	 * the context is unusable from then on (driver-module.c sets it). */
	bool faulted;
	CUfunc_cache cache_config;
	size_t peer_count;
	struct sim_context *peers[64]; /* cuCtxEnablePeerAccess targets */
};

static inline CUcontext sim_ctx_handle(struct sim_context *ctx)
{
	return (CUcontext)ctx;
}

/* The calling thread's current context, or NULL (also when the current
 * context was destroyed: use sim_ctx_require to tell that apart). */
HIDDEN struct sim_context *sim_ctx_current(void);
/* Current context, or an error: CUDA_ERROR_INVALID_CONTEXT when none,
 * CUDA_ERROR_CONTEXT_IS_DESTROYED when it was destroyed,
 * CUDA_ERROR_ILLEGAL_ADDRESS (sticky) once a kernel of it faulted. */
HIDDEN CUresult sim_ctx_require(struct sim_context **ctx);
/* How most calls begin: sim_init_status(), then sim_ctx_require. */
HIDDEN CUresult sim_ctx_enter(struct sim_context **ctx);
/* A live context, or NULL for NULL, unknown or destroyed handles. */
HIDDEN struct sim_context *sim_ctx_from_handle(CUcontext handle);
/* Whether ctx enabled peer access to memory of peer_device. */
HIDDEN bool sim_ctx_peer_enabled(struct sim_context *ctx, int peer_device);

/* ------------------------------------------------------------ streams */

struct sim_stream;
/*
 * Resolve a CUstream handle as the driver does: NULL and CU_STREAM_LEGACY
 * name the context's legacy stream, CU_STREAM_PER_THREAD the calling
 * thread's per-thread stream, anything else must be a live created stream
 * (CUDA_ERROR_INVALID_HANDLE otherwise; destroyed streams included).
 * Stream structs are recycled, never freed: a pointer is safe to use for
 * the rest of the call, but keep the id (sim_stream_get_id) beyond it.
 */
HIDDEN CUresult sim_stream_resolve(struct sim_context *ctx, CUstream handle,
                                   struct sim_stream **stream);
HIDDEN uint64_t sim_stream_get_id(const struct sim_stream *stream);
/* The context id (cuptiGetContextId) and device ordinal of a stream. */
HIDDEN uint32_t sim_stream_context_id(const struct sim_stream *stream);
HIDDEN int sim_stream_device(const struct sim_stream *stream);
/* The _ptsz/_ptds twins (sim-hooks.h, sim_api_twin) read the NULL stream
 * as the per-thread one: they pass sim_stream_per_thread_default(handle). */
static inline CUstream sim_stream_per_thread_default(CUstream handle)
{
	return handle ? handle : CU_STREAM_PER_THREAD;
}
/* The stream of a call that takes none (cuMemcpy, cuMemsetD8): the legacy
 * default stream, or the thread's own in a _ptds twin's frame. */
static inline CUstream sim_default_stream(void)
{
	return sim_api_per_thread() ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
}
/* cuCtxGetStreamPriorityRange: lower numbers are higher priorities. */
#define SIM_STREAM_PRIORITY_LEAST    0
#define SIM_STREAM_PRIORITY_GREATEST (-5)

/* Context creation makes the legacy stream (sets ctx->legacy and
 * ctx->streams); destruction (after CONTEXT_DESTROY_STARTING) releases
 * every stream and event of the context and clears both. */
HIDDEN CUresult sim_stream_create_legacy(struct sim_context *ctx, struct sim_stream **stream);
HIDDEN void sim_stream_destroy_all(struct sim_context *ctx);

/*
 * Put one piece of GPU work of duration_ns on the stream's timeline,
 * submitted now, honouring the legacy-stream rules. Returns its GPU start
 * and end (CLOCK_MONOTONIC ns).
 */
HIDDEN void sim_stream_submit(struct sim_stream *stream, uint64_t duration_ns, uint64_t *start_ns,
                              uint64_t *end_ns);
/* As sim_stream_submit, but the work cannot start before earliest_ns (a
 * kernel starts CUDASIM_LAUNCH_LATENCY_NS after its launch call). */
HIDDEN void sim_stream_submit_at(struct sim_stream *stream, uint64_t earliest_ns,
                                 uint64_t duration_ns, uint64_t *start_ns, uint64_t *end_ns);
/* Block the calling thread until CLOCK_MONOTONIC reaches t. */
HIDDEN void sim_wait_until(uint64_t t_ns);
/* When all work queued so far on the stream ends. */
HIDDEN uint64_t sim_stream_tail(const struct sim_stream *stream);
/* When all work queued so far on every stream of the device ends. */
HIDDEN uint64_t sim_device_tail(int device);

/* ------------------------------------------------------------ graphs */

/*
 * A node of a CUDA graph (driver-graph.c): what stream capture recorded, or
 * what cuGraphAdd*Node described. Launching the graph replays its nodes on
 * the launch stream, in the order they were added (a topological order),
 * through the same code as the calls they stand for.
 */
struct sim_graph;
enum sim_node_kind {
	SIM_NODE_EMPTY,
	SIM_NODE_KERNEL,
	SIM_NODE_MEMCPY,
	SIM_NODE_MEMSET,
	SIM_NODE_HOST,
	SIM_NODE_MEM_ALLOC,
	SIM_NODE_MEM_FREE
};
struct sim_graph_alloc;
struct sim_graph_node {
	struct sim_graph *graph;
	uint64_t id; /* graphNodeId of the records, process-wide from 1 */
	enum sim_node_kind kind;
	union {
		struct {
			CUfunction function;
			unsigned int grid[3], block[3], shared_bytes;
		} kernel;
		struct {
			uintptr_t dst, src;
			int dst_rule, src_rule; /* driver-copy.c's side rules */
			size_t width, height, dst_pitch, src_pitch;
		} copy;
		struct {
			uintptr_t dst;
			unsigned int value;
			size_t elem, width, height, pitch;
		} memset;
		struct {
			CUhostFn fn;
			void *user_data;
		} host;
		struct {
			struct sim_graph_alloc *alloc; /* what the node allocates or frees */
			CUmemPoolProps props;          /* alloc: as given */
			CUmemAccessDesc *access;       /* alloc: a copy, owned by the node */
			size_t access_count;
		} mem;
	} u;
};

/*
 * The graph a stream is capturing into, or NULL. Work submitted to a
 * capturing stream becomes a node (sim_graph_capture) instead of running.
 */
HIDDEN struct sim_graph *sim_stream_capture_graph(struct sim_stream *stream);
/* Add a node (copied) to the graph the stream captures into. */
HIDDEN CUresult sim_graph_capture(struct sim_stream *stream, const struct sim_graph_node *node);
/* A synchronous call met a capturing stream: the capture is invalidated
 * and the call fails (cuda.h, cuStreamBeginCapture). */
HIDDEN CUresult sim_stream_capture_violation(struct sim_stream *stream);
/* The graph and node being replayed on this thread (0, 0 outside). */
HIDDEN void sim_graph_replay_ids(uint32_t *graph_id, uint64_t *node_id);
/* The ledger's suffix for work of a replayed node: " graph=G node=N" or "". */
HIDDEN const char *sim_graph_ledger_suffix(char *buf, size_t size);
/* Replay one node on a stream (driver-copy.c, driver-module.c,
 * driver-stream.c); the caller set the replay ids. */
HIDDEN CUresult sim_copy_node_run(const struct sim_graph_node *node, CUstream stream);
HIDDEN CUresult sim_memset_node_run(const struct sim_graph_node *node, CUstream stream);
HIDDEN CUresult sim_kernel_node_run(const struct sim_graph_node *node, CUstream stream);
HIDDEN CUresult sim_host_node_run(const struct sim_graph_node *node, CUstream stream);
/* Stream capture state, kept by driver-stream.c for driver-graph.c. */
HIDDEN CUresult sim_stream_capture_begin(struct sim_context *ctx, CUstream handle,
                                         struct sim_graph *graph, int mode);
HIDDEN CUresult sim_stream_capture_end(struct sim_context *ctx, CUstream handle,
                                       struct sim_graph **graph, bool *invalidated);
HIDDEN CUresult sim_stream_capture_status(struct sim_context *ctx, CUstream handle,
                                          struct sim_graph **graph, bool *invalidated);
/*
 * Graph memory (driver-graph.c): cuMemAllocAsync / cuMemAllocFromPoolAsync
 * and cuMemFreeAsync on a capturing stream make an allocation node and a
 * free node of the capture (CUDA C++ Programming Guide, "Graph Memory
 * Nodes": "Stream Capture"); device is where the allocation resides.
 */
HIDDEN CUresult sim_graph_capture_alloc(struct sim_stream *stream, int device, size_t size,
                                        CUdeviceptr *dptr);
HIDDEN CUresult sim_graph_capture_free(struct sim_stream *stream, CUdeviceptr dptr);

/* Every stream capturing into graph stops (cuStreamEndCapture). */
HIDDEN void sim_stream_capture_release(struct sim_graph *graph);
HIDDEN uint64_t sim_graph_capture_id(const struct sim_graph *graph);

/* ------------------------------------------------------------ modules */

/* What the occupancy calculator (driver-occupancy.c) needs of a function. */
struct sim_function_usage {
	int max_threads;        /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
	int num_regs;           /* CU_FUNC_ATTRIBUTE_NUM_REGS */
	int static_shared;      /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
	int max_dynamic_shared; /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
	int carveout;           /* CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT */
	CUfunc_cache cache_config;
	int required_cluster[3]; /* 0 when none */
	bool non_portable_cluster;
};
/* CUDA_ERROR_INVALID_HANDLE unless f is a function of a loaded module (a
 * CUkernel cast to CUfunction is one). */
HIDDEN CUresult sim_function_usage(CUfunction f, struct sim_function_usage *usage);

/* Context teardown unloads the modules loaded in it (driver-module.c). */
HIDDEN void sim_module_context_destroyed(struct sim_context *ctx);

/* ------------------------------------------------------------ memory */

/* What a pointer is, as the driver sees it. */
enum sim_mem_kind {
	SIM_MEM_PAGEABLE = 0,    /* unknown to the driver: ordinary host memory */
	SIM_MEM_DEVICE,          /* cuMemAlloc, pitch */
	SIM_MEM_ASYNC,           /* cuMemAllocAsync / pools */
	SIM_MEM_MANAGED,         /* cuMemAllocManaged */
	SIM_MEM_VMM,             /* a mapped VMM range */
	SIM_MEM_HOST_PINNED,     /* cuMemAllocHost / cuMemHostAlloc */
	SIM_MEM_HOST_REGISTERED, /* cuMemHostRegister */
	SIM_MEM_GRAPH            /* a graph memory node's (driver-graph.c) */
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
 * region->kind = SIM_MEM_PAGEABLE. Thread-safe. A VMM range counts only
 * where it is mapped and cuMemSetAccess gave access (before that the pages
 * are PROT_NONE); adjacent mappings of one reservation read as one range,
 * and region then describes the whole reservation.
 */
HIDDEN bool sim_mem_lookup(uintptr_t ptr, size_t bytes, struct sim_mem_region *region);
/* true if the range is device-side memory (device, async, managed, vmm). */
HIDDEN bool sim_mem_is_device_kind(enum sim_mem_kind kind);
/* Release everything a context owns (cuCtxDestroy, primary reset): the
 * device, pitch, managed and pinned host memory it allocated and its host
 * registrations. Not cuMemAllocAsync memory, which outlives a reset
 * (cuda_runtime_api.h:317). */
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
/* The heap of a device (driver-allocator.h), created on first use with the
 * device's memory less other processes'; NULL for a bad ordinal. */
struct sim_heap;
HIDDEN struct sim_heap *sim_device_heap(int ordinal);

/*
 * The whole of a function the simulator does not implement (the generated
 * stubs of tools/gen-stubs.sh): a reported call with its callback id and
 * params, returning CUDA_ERROR_NOT_INITIALIZED before cuInit and
 * CUDA_ERROR_NOT_SUPPORTED after, with the ledger's error line. A cbid of
 * CUPTI_DRIVER_TRACE_CBID_INVALID (a name CUPTI has no id for) delivers no
 * callback and no DRIVER record.
 */
HIDDEN CUresult sim_stub_call(CUpti_CallbackId cbid, const char *name, void *params);

/* ------------------------------------------------------------ events */

/* Resource and synchronize domain callbacks (driver-api.c). */
HIDDEN void sim_resource_callback(CUpti_CallbackId cbid, CUcontext ctx, CUstream stream);
/* MODULE_LOADED / MODULE_UNLOAD_STARTING: resourceDescriptor points to
 * the CUpti_ModuleResourceData. */
HIDDEN void sim_resource_module_callback(CUpti_CallbackId cbid, CUcontext ctx,
                                         const CUpti_ModuleResourceData *module);
HIDDEN void sim_sync_callback(CUpti_CallbackId cbid, CUcontext ctx, CUstream stream);
/* Deliver an activity record if its kind is enabled (driver-api.c). */
HIDDEN bool sim_activity_enabled(CUpti_ActivityKind kind);
HIDDEN void sim_activity(const CUpti_Activity *record, uint64_t complete_ns);
/* A UNIFIED_MEMORY_COUNTER record, delivered when that kind is enabled and
 * its counter kind configured (cuptiActivityConfigureUnifiedMemoryCounter). */
HIDDEN void sim_um_counter_activity(const CUpti_Activity *record,
                                    CUpti_ActivityUnifiedMemoryCounterKind counter,
                                    uint64_t complete_ns);

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
#define SIM_DRIVER_ENTER(call, fn, params)                                                    \
	sim_api_enter(&(call), CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##fn, #fn, \
	              (params), NULL)

/*
 * The whole of an entry point whose work is one expression: open the
 * frame, evaluate body (a CUresult), close the frame and return it.
 *
 *	SIM_EXPORT CUresult CUDAAPI cuStreamQuery(CUstream hStream)
 *	{
 *		cuStreamQuery_params p = { hStream };
 *		SIM_DRIVER_CALL(cuStreamQuery, p, stream_query(hStream));
 *	}
 */
#define SIM_DRIVER_CALL(fn, params, body)               \
	do {                                            \
		struct sim_api_call call_;              \
		SIM_DRIVER_ENTER(call_, fn, &(params)); \
		CUresult result_ = (body);              \
		sim_api_exit(&call_, (int)result_);     \
		return result_;                         \
	} while (0)

#endif /* CUDASIM_DRIVER_INTERNAL_H */
