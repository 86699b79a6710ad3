/* SPDX-License-Identifier: MIT */
/*
 * gpu-events.c - activity records to gpu_* events.
 *
 * Runs in CUPTI's buffer-completed callback: no CUDA call, no lock held
 * across CUPTI. Strings in records (kernel and device names) are only valid
 * while the record is processed: they are written into the event here.
 * Nothing is done for a record whose event no session enables, but the
 * DEVICE record's mapping to NVML.
 */
#include <cupti.h>

#include "emit.h"
#include "gpu-events.h"
#include "names.h"
#include "nvml.h"
#include "text.h"

static void on_kernel(const CUpti_ActivityKernel10 *k)
{
	uint64_t kernel_id;

	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel))
		return;
	kernel_id = names_kernel_id(k->name);
	names_note_kernel(kernel_id, k->name);
	lttng_ust_do_tracepoint(cudatrace, gpu_kernel, k, kernel_id);
}

static uint8_t direction_of_copy_kind(uint8_t copy_kind)
{
	switch (copy_kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
		return DIR_HTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
		return DIR_DTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
		return DIR_DTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return DIR_HTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return DIR_PTOP;
	default:
		return DIR_UNKNOWN;
	}
}

/* What MEMCPY and MEMCPY2 (peer-to-peer) records both hold: fields of the
 * same names, at different places. */
#define COPY_RECORD_EVENT(m)                                    \
	((struct gpu_memcpy_event){                             \
	    .start = (m)->start,                                \
	    .end = (m)->end,                                    \
	    .bytes = (m)->bytes,                                \
	    .correlation_id = (m)->correlationId,               \
	    .context = (m)->contextId,                          \
	    .stream = (m)->streamId,                            \
	    .direction = direction_of_copy_kind((m)->copyKind), \
	    .src_kind = (m)->srcKind,                           \
	    .dst_kind = (m)->dstKind,                           \
	    .device = device8((m)->deviceId),                   \
	    .src_device = DEVICE_NONE,                          \
	    .dst_device = DEVICE_NONE,                          \
	})

static void on_memcpy(const CUpti_ActivityMemcpy6 *m)
{
	struct gpu_memcpy_event e;

	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy))
		return;
	e = COPY_RECORD_EVENT(m);
	e.runtime_correlation_id = m->runtimeCorrelationId;
	lttng_ust_do_tracepoint(cudatrace, gpu_memcpy, &e);
}

static void on_peer_copy(const CUpti_ActivityMemcpyPtoP4 *m)
{
	struct gpu_memcpy_event e;

	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy))
		return;
	e = COPY_RECORD_EVENT(m);
	e.src_device = device8(m->srcDeviceId);
	e.dst_device = device8(m->dstDeviceId);
	lttng_ust_do_tracepoint(cudatrace, gpu_memcpy, &e);
}

/* Process and thread ids as they are; device, context and stream ids
 * packed, the outer one in the high half. */
static uint64_t overhead_object(const CUpti_ActivityOverhead3 *o)
{
	switch (o->objectKind) {
	case CUPTI_ACTIVITY_OBJECT_PROCESS:
		return o->objectId.pt.processId;
	case CUPTI_ACTIVITY_OBJECT_THREAD:
		return o->objectId.pt.threadId;
	case CUPTI_ACTIVITY_OBJECT_DEVICE:
		return o->objectId.dcs.deviceId;
	case CUPTI_ACTIVITY_OBJECT_CONTEXT:
		return (uint64_t)o->objectId.dcs.deviceId << 32 | o->objectId.dcs.contextId;
	case CUPTI_ACTIVITY_OBJECT_STREAM:
		return (uint64_t)o->objectId.dcs.contextId << 32 | o->objectId.dcs.streamId;
	default:
		return 0;
	}
}

static void on_device(const CUpti_ActivityDevice5 *d)
{
	nvml_map_device(device8(d->id), (const uint8_t *)d->uuid.bytes);
	EMIT(device_info, d, text_or_empty(d->name), text_length(d->name));
}

void gpu_events_record(const CUpti_Activity *record)
{
	const void *r = record;

	switch (record->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		on_kernel(r);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		on_memcpy(r);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		on_peer_copy(r);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		EMIT(gpu_memset, r);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		EMIT(gpu_memory, r);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
		EMIT(gpu_memory_pool, r);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		EMIT(gpu_sync, r);
		break;
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		EMIT(gpu_overhead, r, overhead_object(r));
		break;
	case CUPTI_ACTIVITY_KIND_DEVICE:
		on_device(r);
		break;
	default:
		break;
	}
}

bool gpu_events_wanted(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_memset);
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_memory);
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_memory_pool);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_sync);
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_overhead);
	default:
		/* DEVICE: one record a device, and NVML's device map needs it. */
		return true;
	}
}
