/* SPDX-License-Identifier: MIT */
/*
 * event.h - a cudatrace event as the analyses see it: decoded once by the
 * reader into a plain struct, with its process, thread and NVTX range path
 * already resolved. Fields and units are those of doc/events.md.
 *
 * Lifetime: an event and every string it points to are valid only during
 * the call that hands it to an analysis; copy what must outlive it.
 */
#ifndef CUDATRACE_ANALYZERS_EVENT_H
#define CUDATRACE_ANALYZERS_EVENT_H

#include <stdbool.h>
#include <stdint.h>

/* The event types of provider `cudatrace`; the order is that of doc/events.md. */
enum ct_event_type {
	CT_EV_NONE = 0, /* not a cudatrace event: never delivered */
	CT_EV_API_ENTRY,
	CT_EV_API_EXIT,
	CT_EV_API_NAME,
	CT_EV_MEM_ALLOC,
	CT_EV_MEM_FREE,
	CT_EV_MEM_ALLOC_FAILED,
	CT_EV_MEMCPY,
	CT_EV_MEMSET,
	CT_EV_LAUNCH,
	CT_EV_KERNEL_NAME,
	CT_EV_SYNC,
	CT_EV_CONTEXT_CREATE,
	CT_EV_CONTEXT_DESTROY,
	CT_EV_STREAM_CREATE,
	CT_EV_STREAM_DESTROY,
	CT_EV_MODULE_LOAD,
	CT_EV_GPU_KERNEL,
	CT_EV_GPU_MEMCPY,
	CT_EV_GPU_MEMSET,
	CT_EV_GPU_MEMORY,
	CT_EV_GPU_MEMORY_POOL,
	CT_EV_GPU_SYNC,
	CT_EV_GPU_OVERHEAD,
	CT_EV_ACTIVITY_DROPPED,
	CT_EV_DEVICE_INFO,
	CT_EV_TRACER_INFO,
	CT_EV_TRACER_ERROR,
	CT_EV_NVML_SAMPLE,
	CT_EV_NVTX_PUSH,
	CT_EV_NVTX_POP,
	CT_EV_NVTX_RANGE_START,
	CT_EV_NVTX_RANGE_END,
	CT_EV_NVTX_MARK,
	CT_EV_NVTX_DOMAIN_CREATE,
	CT_EV_COUNT
};

/* A set of event types, for an analysis to say what it wants. */
#define CT_EV_BIT(type) (UINT64_C(1) << (type))

/* Enumerations of doc/events.md ("Enumerations"). */
enum ct_domain {
	CT_DOMAIN_DRIVER = 1,
	CT_DOMAIN_RUNTIME = 2,
	CT_DOMAIN_RESOURCE = 3,
	CT_DOMAIN_SYNCHRONIZE = 4,
	CT_DOMAIN_NVTX = 5,
};

enum ct_mem_kind {
	CT_MEM_UNKNOWN = 0,
	CT_MEM_DEVICE = 1,
	CT_MEM_PITCH = 2,
	CT_MEM_HOST_PINNED = 3,
	CT_MEM_HOST_REGISTERED = 4,
	CT_MEM_MANAGED = 5,
	CT_MEM_ASYNC = 6,
	CT_MEM_VMM_PHYSICAL = 7,
	CT_MEM_VMM_MAP = 8,
	CT_MEM_KIND_COUNT
};

enum ct_direction {
	CT_DIR_UNKNOWN = 0,
	CT_DIR_HTOD = 1,
	CT_DIR_DTOH = 2,
	CT_DIR_DTOD = 3,
	CT_DIR_HTOH = 4,
	CT_DIR_PTOP = 5,
	CT_DIR_COUNT
};

enum ct_host_mem { CT_HOST_NONE = 0, CT_HOST_PAGEABLE = 1, CT_HOST_PINNED = 2, CT_HOST_MEM_COUNT };

#define CT_DEVICE_NONE 255u
#define CT_STREAM_NONE UINT32_MAX

/* The call behind a semantic event: the outermost traced call on its thread. */
struct ct_api_ref {
	uint8_t domain; /* enum ct_domain */
	uint16_t cbid;
	uint32_t correlation_id;
};

/* api_entry, api_exit, api_name */
struct ct_ev_api {
	uint8_t domain;
	uint16_t cbid;
	uint32_t correlation_id;
	int32_t result;   /* api_exit only */
	const char *name; /* api_name only */
};

/* mem_alloc, mem_free */
struct ct_ev_mem {
	uint8_t device;
	uint8_t kind; /* enum ct_mem_kind */
	uint64_t address;
	uint64_t size;
	int64_t delta;
	uint32_t stream;
	struct ct_api_ref api;
};

/* mem_alloc_failed */
struct ct_ev_mem_failed {
	uint8_t device;
	uint8_t kind;
	uint64_t size;
	int32_t result;
	uint64_t free;  /* NVML, 0 if unknown */
	uint64_t total; /* NVML, 0 if unknown */
	struct ct_api_ref api;
};

/* memcpy */
struct ct_ev_memcpy {
	uint8_t direction; /* enum ct_direction */
	uint64_t src;
	uint64_t dst;
	uint64_t bytes;
	uint8_t host; /* enum ct_host_mem */
	uint8_t sync;
	uint32_t stream;
	uint8_t src_device;
	uint8_t dst_device;
	struct ct_api_ref api;
};

/* memset */
struct ct_ev_memset {
	uint8_t device;
	uint64_t address;
	uint64_t bytes;
	uint32_t value;
	uint8_t element_size;
	uint8_t sync;
	uint32_t stream;
	struct ct_api_ref api;
};

/* launch */
struct ct_ev_launch {
	uint64_t kernel_id;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_mem;
	uint8_t config_known;
	uint32_t stream;
	uint8_t device;
	struct ct_api_ref api;
};

/* kernel_name */
struct ct_ev_kernel_name {
	uint64_t kernel_id;
	const char *name;
};

/* sync */
struct ct_ev_sync {
	uint8_t what;
	uint32_t stream;
	uint8_t device;
	struct ct_api_ref api;
};

/* context_create/destroy, stream_create/destroy, module_load */
struct ct_ev_resource {
	uint32_t context;
	uint32_t stream;
	uint8_t device;
	uint8_t primary;
	uint32_t module;
	uint64_t cubin_size;
};

/* gpu_kernel */
struct ct_ev_gpu_kernel {
	uint64_t start;
	uint64_t end;
	uint32_t correlation_id;
	uint64_t kernel_id;
	uint8_t device;
	uint32_t context;
	uint32_t stream;
	int32_t grid[3];
	int32_t block[3];
	uint32_t static_shared_mem;
	uint32_t dynamic_shared_mem;
	uint16_t registers;
};

/* gpu_memcpy */
struct ct_ev_gpu_memcpy {
	uint64_t start;
	uint64_t end;
	uint32_t correlation_id;
	uint32_t runtime_correlation_id;
	uint8_t direction;
	uint8_t src_kind;
	uint8_t dst_kind;
	uint64_t bytes;
	uint8_t device;
	uint8_t src_device;
	uint8_t dst_device;
	uint32_t context;
	uint32_t stream;
};

/* gpu_memset */
struct ct_ev_gpu_memset {
	uint64_t start;
	uint64_t end;
	uint32_t correlation_id;
	uint64_t bytes;
	uint32_t value;
	uint8_t memory_kind;
	uint8_t device;
	uint32_t context;
	uint32_t stream;
};

/* gpu_memory (MEMORY2) */
struct ct_ev_gpu_memory {
	uint64_t timestamp;
	uint8_t operation; /* 1 allocation, 2 release */
	uint8_t memory_kind;
	uint64_t address;
	uint64_t bytes;
	uint32_t correlation_id;
	uint8_t device;
	uint32_t context;
	uint32_t stream;
	uint8_t is_async;
	uint8_t pool_type;
	uint64_t pool_address;
	uint64_t pool_release_threshold;
	uint64_t pool_size;
	uint64_t pool_utilized;
};

/* gpu_memory_pool */
struct ct_ev_gpu_memory_pool {
	uint64_t timestamp;
	uint8_t operation; /* 1 created, 2 destroyed, 3 trimmed */
	uint8_t pool_type;
	uint64_t address;
	uint64_t size;
	uint64_t release_threshold;
	uint64_t utilized;
	uint8_t device;
	uint32_t correlation_id;
};

/* gpu_sync */
struct ct_ev_gpu_sync {
	uint64_t start;
	uint64_t end;
	uint8_t type;
	uint32_t correlation_id;
	uint32_t context;
	uint32_t stream;
	uint32_t event;
};

/* gpu_overhead */
struct ct_ev_gpu_overhead {
	uint64_t start;
	uint64_t end;
	uint32_t overhead_kind;
	uint8_t object_kind;
	uint64_t object_id;
	uint32_t correlation_id;
};

/* activity_dropped */
struct ct_ev_dropped {
	uint64_t count;
};

/* device_info */
struct ct_ev_device_info {
	uint8_t device;
	const char *name;
	uint64_t global_memory;
	uint64_t memory_bandwidth; /* bytes/s */
	uint8_t cc_major;
	uint8_t cc_minor;
	uint16_t multiprocessors;
};

/* tracer_info */
struct ct_ev_tracer_info {
	const char *version;
	const char *procname; /* NULL from tracers that do not write it */
	uint32_t cupti_version;
	int32_t driver_version;
	uint8_t api;
	uint32_t activity_kinds;
	uint64_t buffer_size;
	uint32_t flush_period_ms;
	uint16_t max_string;
	uint32_t nvml_period_ms;
};

/* tracer_error */
struct ct_ev_tracer_error {
	uint8_t kind;
	int32_t code;
	const char *message;
};

/* nvml_sample */
struct ct_ev_nvml {
	uint8_t device;
	uint8_t reason; /* 1 periodic, 2 alloc_failed */
	uint64_t free;
	uint64_t used;
	uint64_t total;
};

/*
 * nvtx_push, nvtx_pop, nvtx_range_start, nvtx_range_end, nvtx_mark,
 * nvtx_domain_create. The reader keeps the per-thread push/pop stacks (see
 * context.h) before the event is delivered, and fills in:
 *   path:  push: the path the push opened; pop: the path it closed;
 *   depth: push/pop: index in the thread's stack of the frame opened/closed.
 * A pop that matches no push is counted and not delivered.
 */
struct ct_ev_nvtx {
	uint64_t domain;
	uint64_t range_id;
	const char *message; /* push, range_start, mark; name for domain_create */
	uint32_t path;
	uint32_t depth;
};

struct ct_process;
struct ct_thread;

/* One decoded event. */
struct ct_event {
	enum ct_event_type type;
	/* Event time on the trace clock, ns from its origin (CLOCK_MONOTONIC for LTTng). */
	int64_t time_ns;
	/* Position of the event in the pass, from 1: orders events that share a time. */
	uint64_t seq;
	/* The emitting process and thread; owned by the context, never NULL. */
	struct ct_process *process;
	struct ct_thread *thread;
	/* The thread's NVTX push/pop range path at the event (context.h); 0: none. */
	uint32_t site;
	/*
	 * Set when a time window is given and the event is before it: only
	 * mem_alloc/mem_free are delivered then, so that live bytes at the
	 * window's start are right; analyses must not count them otherwise.
	 */
	bool before_window;
	union {
		struct ct_ev_api api;
		struct ct_ev_mem mem;
		struct ct_ev_mem_failed failed;
		struct ct_ev_memcpy memcpy;
		struct ct_ev_memset memset;
		struct ct_ev_launch launch;
		struct ct_ev_kernel_name kernel_name;
		struct ct_ev_sync sync;
		struct ct_ev_resource resource;
		struct ct_ev_gpu_kernel gpu_kernel;
		struct ct_ev_gpu_memcpy gpu_memcpy;
		struct ct_ev_gpu_memset gpu_memset;
		struct ct_ev_gpu_memory gpu_memory;
		struct ct_ev_gpu_memory_pool gpu_memory_pool;
		struct ct_ev_gpu_sync gpu_sync;
		struct ct_ev_gpu_overhead gpu_overhead;
		struct ct_ev_dropped dropped;
		struct ct_ev_device_info device_info;
		struct ct_ev_tracer_info tracer_info;
		struct ct_ev_tracer_error tracer_error;
		struct ct_ev_nvml nvml;
		struct ct_ev_nvtx nvtx;
	} u;
};

/* "mem_alloc" for CT_EV_MEM_ALLOC; NULL out of range. */
const char *ct_event_type_name(enum ct_event_type type);
/* The event type called NAME (without "cudatrace:"), CT_EV_NONE if none. */
enum ct_event_type ct_event_type_from_name(const char *name);
/* "device", "host_pinned", ...; "unknown" out of range. */
const char *ct_mem_kind_name(unsigned kind);
/* Kinds whose bytes are device memory (device, pitch, managed, async, vmm_physical). */
bool ct_mem_kind_on_device(unsigned kind);
/* "HtoD", ...; "unknown" out of range. */
const char *ct_direction_name(unsigned direction);
/* "none", "pageable", "pinned"; "unknown" out of range. */
const char *ct_host_mem_name(unsigned host);

#endif
