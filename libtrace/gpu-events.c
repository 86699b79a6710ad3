/* SPDX-License-Identifier: MIT */
/*
 * gpu-events.c - activity records to gpu_* events, one function per kind.
 *
 * Runs in CUPTI's buffer-completed callback: no CUDA call, no lock held
 * across CUPTI. Strings in records (kernel and device names) are only valid
 * while the record is processed: they are written into the event here.
 */
#include <cupti.h>

#include "cudatrace-tp.h"
#include "gpu-events.h"
#include "names.h"
#include "nvml.h"
#include "text.h"

static void on_kernel(const CUpti_ActivityKernel10 *k)
{
	uint64_t kernel_id = names_kernel_id(k->name);

	names_note_kernel(kernel_id, k->name);
	if (lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel))
		lttng_ust_do_tracepoint(cudatrace, gpu_kernel, k, kernel_id, device8(k->deviceId));
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

static void on_memcpy(const CUpti_ActivityMemcpy6 *m)
{
	struct gpu_memcpy_event e;

	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy))
		return;
	e = (struct gpu_memcpy_event){
		.start = m->start,
		.end = m->end,
		.bytes = m->bytes,
		.correlation_id = m->correlationId,
		.runtime_correlation_id = m->runtimeCorrelationId,
		.context = m->contextId,
		.stream = m->streamId,
		.direction = direction_of_copy_kind(m->copyKind),
		.src_kind = m->srcKind,
		.dst_kind = m->dstKind,
		.device = device8(m->deviceId),
		.src_device = DEVICE_NONE,
		.dst_device = DEVICE_NONE,
	};
	lttng_ust_do_tracepoint(cudatrace, gpu_memcpy, &e);
}

static void on_peer_copy(const CUpti_ActivityMemcpyPtoP4 *m)
{
	struct gpu_memcpy_event e;

	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy))
		return;
	e = (struct gpu_memcpy_event){
		.start = m->start,
		.end = m->end,
		.bytes = m->bytes,
		.correlation_id = m->correlationId,
		.context = m->contextId,
		.stream = m->streamId,
		.direction = direction_of_copy_kind(m->copyKind),
		.src_kind = m->srcKind,
		.dst_kind = m->dstKind,
		.device = device8(m->deviceId),
		.src_device = device8(m->srcDeviceId),
		.dst_device = device8(m->dstDeviceId),
	};
	lttng_ust_do_tracepoint(cudatrace, gpu_memcpy, &e);
}

static void on_memset(const CUpti_ActivityMemset4 *m)
{
	if (lttng_ust_tracepoint_enabled(cudatrace, gpu_memset))
		lttng_ust_do_tracepoint(cudatrace, gpu_memset, m, device8(m->deviceId));
}

static void on_memory(const CUpti_ActivityMemory4 *m)
{
	if (lttng_ust_tracepoint_enabled(cudatrace, gpu_memory))
		lttng_ust_do_tracepoint(cudatrace, gpu_memory, m, device8(m->deviceId));
}

static void on_memory_pool(const CUpti_ActivityMemoryPool3 *p)
{
	if (lttng_ust_tracepoint_enabled(cudatrace, gpu_memory_pool))
		lttng_ust_do_tracepoint(cudatrace, gpu_memory_pool, p, device8(p->deviceId));
}

static void on_sync(const CUpti_ActivitySynchronization2 *s)
{
	if (lttng_ust_tracepoint_enabled(cudatrace, gpu_sync))
		lttng_ust_do_tracepoint(cudatrace, gpu_sync, s);
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

static void on_overhead(const CUpti_ActivityOverhead3 *o)
{
	if (lttng_ust_tracepoint_enabled(cudatrace, gpu_overhead))
		lttng_ust_do_tracepoint(cudatrace, gpu_overhead, o, overhead_object(o));
}

static void on_device(const CUpti_ActivityDevice5 *d)
{
	nvml_map_device(device8(d->id), (const uint8_t *)d->uuid.bytes);
	if (lttng_ust_tracepoint_enabled(cudatrace, device_info))
		lttng_ust_do_tracepoint(cudatrace, device_info, d, text_or_empty(d->name),
		                        text_length(d->name));
}

void gpu_events_record(const CUpti_Activity *record)
{
	switch (record->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		on_kernel((const CUpti_ActivityKernel10 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		on_memcpy((const CUpti_ActivityMemcpy6 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		on_peer_copy((const CUpti_ActivityMemcpyPtoP4 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		on_memset((const CUpti_ActivityMemset4 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		on_memory((const CUpti_ActivityMemory4 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
		on_memory_pool((const CUpti_ActivityMemoryPool3 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		on_sync((const CUpti_ActivitySynchronization2 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		on_overhead((const CUpti_ActivityOverhead3 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_DEVICE:
		on_device((const CUpti_ActivityDevice5 *)record);
		break;
	default:
		break;
	}
}
