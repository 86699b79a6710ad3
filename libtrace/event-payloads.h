/* SPDX-License-Identifier: MIT */
/*
 * event-payloads.h - the arguments of cudatrace's host-side tracepoints.
 *
 * A tracepoint takes at most ten arguments, and the host events have more
 * fields than that, so each takes a pointer to one of these structs, filled
 * by the code that knows the operation. Field meanings: doc/events.md.
 */
#ifndef CUDATRACE_EVENT_PAYLOADS_H
#define CUDATRACE_EVENT_PAYLOADS_H

#include <stdint.h>

/* Devices and streams that do not apply or are unknown. */
#define DEVICE_NONE 255u
#define STREAM_NONE UINT32_MAX

/* Values of the tracepoint enums (cudatrace-tp.h). */
enum mem_kind {
	MEM_UNKNOWN = 0,
	MEM_DEVICE = 1,
	MEM_PITCH = 2,
	MEM_HOST_PINNED = 3,
	MEM_HOST_REGISTERED = 4,
	MEM_MANAGED = 5,
	MEM_ASYNC = 6,
	MEM_VMM_PHYSICAL = 7,
	MEM_VMM_MAP = 8,
};

enum copy_direction {
	DIR_UNKNOWN = 0,
	DIR_HTOD = 1,
	DIR_DTOH = 2,
	DIR_DTOD = 3,
	DIR_HTOH = 4,
	DIR_PTOP = 5,
};

enum host_mem {
	HOST_NONE = 0,
	HOST_PAGEABLE = 1,
	HOST_PINNED = 2,
};

enum sync_kind {
	SYNC_DEVICE = 1,
	SYNC_CONTEXT = 2,
	SYNC_STREAM = 3,
	SYNC_EVENT = 4,
};

enum nvml_reason {
	NVML_PERIODIC = 1,
	NVML_ALLOC_FAILED = 2,
};

enum tracer_error_kind {
	TRACER_ERROR_OTHER_SUBSCRIBER = 1,
	TRACER_ERROR_CUPTI_INIT = 2,
	TRACER_ERROR_ACTIVITY = 3,
	TRACER_ERROR_NVML = 4,
	TRACER_ERROR_CONFIG = 5,
};

/* The outermost traced call on the thread: what the program called. */
struct api_ref {
	uint32_t correlation_id;
	uint16_t cbid;
	uint8_t domain;
};

struct mem_event {
	uint64_t address;
	uint64_t size;
	int64_t delta;
	uint32_t stream;
	uint8_t device;
	uint8_t kind;
	struct api_ref api;
};

struct alloc_failed_event {
	uint64_t size;
	uint64_t free;
	uint64_t total;
	int32_t result;
	uint8_t device;
	uint8_t kind;
	struct api_ref api;
};

struct memcpy_event {
	uint64_t src;
	uint64_t dst;
	uint64_t bytes;
	uint32_t stream;
	uint8_t direction;
	uint8_t host;
	uint8_t sync;
	uint8_t src_device;
	uint8_t dst_device;
	struct api_ref api;
};

struct memset_event {
	uint64_t address;
	uint64_t bytes;
	uint32_t value;
	uint32_t stream;
	uint8_t element_size;
	uint8_t sync;
	uint8_t device;
	struct api_ref api;
};

struct launch_event {
	uint64_t kernel_id;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_mem;
	uint32_t stream;
	uint8_t config_known;
	uint8_t device;
	struct api_ref api;
};

struct sync_event {
	uint32_t stream;
	uint8_t what;
	uint8_t device;
	struct api_ref api;
};

struct gpu_memcpy_event {
	uint64_t start;
	uint64_t end;
	uint64_t bytes;
	uint32_t correlation_id;
	uint32_t runtime_correlation_id;
	uint32_t context;
	uint32_t stream;
	uint8_t direction;
	uint8_t src_kind;
	uint8_t dst_kind;
	uint8_t device;
	uint8_t src_device;
	uint8_t dst_device;
};

/* A CUPTI device id as the uint8 of the events. */
static inline uint8_t device8(uint32_t device)
{
	return device >= DEVICE_NONE ? (uint8_t)DEVICE_NONE : (uint8_t)device;
}

/* Values CUDA keeps under 65536 (or 256), as the narrow integers of the
 * events: saturated, should one ever not fit. */
static inline uint16_t u16_sat(uint64_t value)
{
	return value > UINT16_MAX ? UINT16_MAX : (uint16_t)value;
}

static inline uint8_t u8_sat(uint64_t value)
{
	return value > UINT8_MAX ? UINT8_MAX : (uint8_t)value;
}

struct tracer_info_event {
	const char *version;
	char procname[17]; /* /proc/self/comm: lets sessions skip that context */
	uint64_t buffer_size;
	uint32_t cupti_version;
	int32_t driver_version;
	uint32_t activity_kinds;
	uint32_t flush_period_ms;
	uint32_t nvml_period_ms;
	uint16_t max_string;
	uint8_t api;
};

struct nvml_sample_event {
	uint64_t free;
	uint64_t used;
	uint64_t total;
	uint8_t device;
	uint8_t reason;
};

#endif /* CUDATRACE_EVENT_PAYLOADS_H */
