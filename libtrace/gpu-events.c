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
#include <stddef.h>
#include <string.h>

#include <cupti.h>

#include "cupti-compat.h"
#include "emit.h"
#include "gpu-batch.h"
#include "gpu-events.h"
#include "handle-cache.h"
#include "kernel-shapes.h"
#include "names.h"
#include "nvml.h"
#include "recorded-ops.h"
#include "text.h"

/* A kernel whose launch event is in the trace with its configuration:
 * what the launch did not say. */
static bool on_configured_kernel(const ct_kernel_record *k, struct gpu_batch *batch)
{
	struct gpu_record r = {
		.kind = CT_GPU_RECORD_KERNEL,
		.start = k->start,
		.end = k->end,
		.correlation_id = k->correlationId,
		.context = k->contextId,
		.device = device8(k->deviceId),
		.u.kernel = { .static_shared_mem = u16_sat(k->staticSharedMemory),
		              .registers = u8_sat(k->registersPerThread) },
	};

	return gpu_batch_add(batch, &r);
}

/* A kernel whose launch_unconfigured is in the trace: its times, its
 * stream and configuration by its shape (kernel-shapes.h). */
static bool on_unconfigured_kernel(const ct_kernel_record *k, struct gpu_events_reading *reading)
{
	struct gpu_record r = {
		.kind = CT_GPU_RECORD_KERNEL_SHAPED,
		.start = k->start,
		.end = k->end,
		.correlation_id = k->correlationId,
		.context = k->contextId,
		.device = device8(k->deviceId),
	};

	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_batch) &&
	    !lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel_shaped))
		return false;
	if (!(r.u.shaped.shape_id = kernel_shapes_note(k, &reading->shape)))
		return false;
	return gpu_batch_add(&reading->batch, &r);
}

/* A kernel whose launch event is in the trace: what the launch did not say. */
static bool on_recorded_kernel(const ct_kernel_record *k, struct gpu_events_reading *reading)
{
	switch (recorded_ops_take(k->correlationId)) {
	case RECORDED_WHOLE:
		return on_configured_kernel(k, &reading->batch);
	case RECORDED_UNCONFIGURED:
		return on_unconfigured_kernel(k, reading);
	default:
		return false;
	}
}

static void on_kernel(const ct_kernel_record *k, struct gpu_events_reading *reading)
{
	struct handle_cache *cache = &reading->cache;
	struct ct_ev_kernel_shape shape;
	struct ct_ev_gpu_kernel e;

	if (on_recorded_kernel(k, reading))
		return;
	gpu_batch_write(&reading->batch);
	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel))
		return;
	kernel_shape_of(k, &shape);
	e = (struct ct_ev_gpu_kernel){
		.start = k->start,
		.end = k->end,
		.correlation_id = k->correlationId,
		.kernel_id = handle_cache_kernel(cache, k->name),
		.device = device8(k->deviceId),
		.context = k->contextId,
		.stream = k->streamId,
		.grid_x = shape.grid_x,
		.grid_y = shape.grid_y,
		.grid_z = shape.grid_z,
		.block_x = shape.block_x,
		.block_y = shape.block_y,
		.block_z = shape.block_z,
		.static_shared_mem = shape.static_shared_mem,
		.dynamic_shared_mem = shape.dynamic_shared_mem,
		.registers = shape.registers,
	};
	names_note_kernel(NULL, e.kernel_id, k->name);
	lttng_ust_do_tracepoint(cudatrace, gpu_kernel, &e);
}

static uint8_t direction_of_copy_kind(uint8_t copy_kind)
{
	switch (copy_kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
		return CT_DIR_HTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
		return CT_DIR_DTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
		return CT_DIR_DTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return CT_DIR_HTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return CT_DIR_PTOP;
	default:
		return CT_DIR_UNKNOWN;
	}
}

/* What MEMCPY and MEMCPY2 (peer-to-peer) records both hold: fields of the
 * same names, at different places. */
#define COPY_RECORD_EVENT(m)                                    \
	((struct ct_ev_gpu_memcpy){                             \
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
	    .src_device = CT_DEVICE_NONE,                       \
	    .dst_device = CT_DEVICE_NONE,                       \
	})

/*
 * A copy whose memcpy event is in the trace: what the memcpy did not say.
 * The memcpy has the id of the outermost call: a runtime call's copy is
 * known by CUPTI's runtimeCorrelationId, a driver call's by its
 * correlationId.
 */
static bool on_recorded_copy(const CUpti_ActivityMemcpy6 *m, struct gpu_batch *batch)
{
	struct gpu_record r = {
		.kind = CT_GPU_RECORD_COPY,
		.start = m->start,
		.end = m->end,
		.context = m->contextId,
		.device = device8(m->deviceId),
		.u.copy = { .direction = direction_of_copy_kind(m->copyKind),
		            .src_kind = m->srcKind,
		            .dst_kind = m->dstKind },
	};

	if (recorded_ops_take(m->correlationId) == RECORDED_WHOLE)
		r.correlation_id = m->correlationId;
	else if (recorded_ops_take(m->runtimeCorrelationId) == RECORDED_WHOLE)
		r.correlation_id = m->runtimeCorrelationId;
	else
		return false;
	return gpu_batch_add(batch, &r);
}

static void on_memcpy(const CUpti_ActivityMemcpy6 *m, struct gpu_batch *batch)
{
	struct ct_ev_gpu_memcpy e;

	if (on_recorded_copy(m, batch))
		return;
	gpu_batch_write(batch);
	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy))
		return;
	e = COPY_RECORD_EVENT(m);
	e.runtime_correlation_id = m->runtimeCorrelationId;
	lttng_ust_do_tracepoint(cudatrace, gpu_memcpy, &e);
}

static void on_peer_copy(const CUpti_ActivityMemcpyPtoP4 *m)
{
	struct ct_ev_gpu_memcpy e;

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

/* A memset whose memset event is in the trace: its times, context and device. */
static bool on_recorded_memset(const CUpti_ActivityMemset4 *m, struct gpu_batch *batch)
{
	struct gpu_record r = {
		.kind = CT_GPU_RECORD_MEMSET,
		.start = m->start,
		.end = m->end,
		.correlation_id = m->correlationId,
		.context = m->contextId,
		.device = device8(m->deviceId),
	};

	if (recorded_ops_take(m->correlationId) != RECORDED_WHOLE)
		return false;
	return gpu_batch_add(batch, &r);
}

static void on_memset(const CUpti_ActivityMemset4 *m, struct gpu_batch *batch)
{
	if (on_recorded_memset(m, batch))
		return;
	gpu_batch_write(batch);
	EMIT(gpu_memset, &(struct ct_ev_gpu_memset){
	                     .start = m->start,
	                     .end = m->end,
	                     .correlation_id = m->correlationId,
	                     .bytes = m->bytes,
	                     .value = m->value,
	                     .memory_kind = (uint8_t)m->memoryKind,
	                     .device = device8(m->deviceId),
	                     .context = m->contextId,
	                     .stream = m->streamId,
	                 });
}

/* The record of an allocation or a free whose mem_alloc or mem_free is in
 * the trace says no more, unless the memory is a pool's (its figures). */
static void on_memory(const CUpti_ActivityMemory4 *m, struct gpu_batch *batch)
{
	if (m->memoryPoolConfig.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID &&
	    recorded_ops_take(m->correlationId) == RECORDED_MEMORY)
		return;
	gpu_batch_write(batch);
	EMIT(gpu_memory, &(struct ct_ev_gpu_memory){
	                     .timestamp = m->timestamp,
	                     .operation = (uint8_t)m->memoryOperationType,
	                     .memory_kind = (uint8_t)m->memoryKind,
	                     .address = m->address,
	                     .bytes = m->bytes,
	                     .correlation_id = m->correlationId,
	                     .device = device8(m->deviceId),
	                     .context = m->contextId,
	                     .stream = m->streamId,
	                     .is_async = (uint8_t)m->isAsync,
	                     .pool_type = (uint8_t)m->memoryPoolConfig.memoryPoolType,
	                     .pool_address = m->memoryPoolConfig.address,
	                     .pool_release_threshold = m->memoryPoolConfig.releaseThreshold,
	                     .pool_size = m->memoryPoolConfig.pool.size,
	                     .pool_utilized = m->memoryPoolConfig.utilizedSize,
	                 });
}

static void on_memory_pool(const ct_memory_pool_record *p)
{
	EMIT(gpu_memory_pool, &(struct ct_ev_gpu_memory_pool){
	                          .timestamp = p->timestamp,
	                          .operation = (uint8_t)p->memoryPoolOperationType,
	                          .pool_type = (uint8_t)p->memoryPoolType,
	                          .address = p->address,
	                          .size = p->size,
	                          .release_threshold = p->releaseThreshold,
	                          .utilized = p->utilizedSize,
	                          .device = device8(p->deviceId),
	                          .correlation_id = p->correlationId,
	                      });
}

/* A synchronisation whose sync event is in the trace says no more in its
 * record: its host wait is that call's, from its api_entry to its sync. */
static void on_sync(const CUpti_ActivitySynchronization2 *s, struct gpu_batch *batch)
{
	if (recorded_ops_take(s->correlationId) == RECORDED_SYNC)
		return;
	gpu_batch_write(batch);
	EMIT(gpu_sync, &(struct ct_ev_gpu_sync){
	                   .start = s->start,
	                   .end = s->end,
	                   .type = (uint8_t)s->type,
	                   .correlation_id = s->correlationId,
	                   .context = s->contextId,
	                   .stream = s->streamId,
	                   .event = s->cudaEventId,
	               });
}

static void on_overhead(const CUpti_ActivityOverhead3 *o)
{
	EMIT(gpu_overhead, &(struct ct_ev_gpu_overhead){
	                       .start = o->start,
	                       .end = o->end,
	                       .overhead_kind = (uint32_t)o->overheadKind,
	                       .object_kind = (uint8_t)o->objectKind,
	                       .object_id = overhead_object(o),
	                       .correlation_id = o->correlationId,
	                   });
}

static void on_device(const CUpti_ActivityDevice5 *d)
{
	struct ct_ev_device_info e;

	nvml_map_device(device8(d->id), (const uint8_t *)d->uuid.bytes);
	if (!lttng_ust_tracepoint_enabled(cudatrace, device_info))
		return;
	e = (struct ct_ev_device_info){
		.device = device8(d->id),
		.name = text_or_empty(d->name),
		.name_len = text_length(d->name),
		.global_memory = d->globalMemorySize,
		/* CUPTI gives KB/s */
		.memory_bandwidth = d->globalMemoryBandwidth * 1000,
		.cc_major = (uint8_t)d->computeCapabilityMajor,
		.cc_minor = (uint8_t)d->computeCapabilityMinor,
		.multiprocessors = (uint16_t)d->numMultiprocessors,
	};
	_Static_assert(sizeof(e.uuid) == sizeof(d->uuid.bytes), "a CUuuid is 16 bytes");
	memcpy(e.uuid, d->uuid.bytes, sizeof(e.uuid));
	lttng_ust_do_tracepoint(cudatrace, device_info, &e);
}

/* Each record is read in place as the struct of its kind, found through
 * CUpti_Activity's kind: that comes first in all of them, and none needs
 * more alignment than the 8 bytes CUPTI keeps records to. */
#define RECORD_LAYOUT(type)                                                           \
	_Static_assert(offsetof(type, kind) == offsetof(CUpti_Activity, kind) &&      \
	                   sizeof(((type *)0)->kind) == sizeof(CUpti_ActivityKind) && \
	                   _Alignof(type) <= 8,                                       \
	               #type " begins with its kind")
RECORD_LAYOUT(ct_kernel_record);
RECORD_LAYOUT(CUpti_ActivityMemcpy6);
RECORD_LAYOUT(CUpti_ActivityMemcpyPtoP4);
RECORD_LAYOUT(CUpti_ActivityMemset4);
RECORD_LAYOUT(CUpti_ActivityMemory4);
RECORD_LAYOUT(ct_memory_pool_record);
RECORD_LAYOUT(CUpti_ActivitySynchronization2);
RECORD_LAYOUT(CUpti_ActivityOverhead3);
RECORD_LAYOUT(CUpti_ActivityDevice5);

/* Whether the record of KIND writes the batch itself: it may join the
 * batch (a kernel, a copy, a memset) or go unwritten (a synchronisation,
 * memory no pool holds), and writes it only before an event of its own. */
static bool writes_batch_itself(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_MEMCPY:
	case CUPTI_ACTIVITY_KIND_MEMSET:
	case CUPTI_ACTIVITY_KIND_MEMORY2:
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return true;
	default:
		return false;
	}
}

void gpu_events_record(const CUpti_Activity *record, struct gpu_events_reading *reading)
{
	const void *r = record;

	/* the batched records before this one first, in CUPTI's order */
	if (!writes_batch_itself(record->kind))
		gpu_batch_write(&reading->batch);

	switch (record->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		on_kernel(r, reading);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		on_memcpy(r, &reading->batch);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		on_peer_copy(r);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		on_memset(r, &reading->batch);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		on_memory(r, &reading->batch);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
		on_memory_pool(r);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		on_sync(r, &reading->batch);
		break;
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		on_overhead(r);
		break;
	case CUPTI_ACTIVITY_KIND_DEVICE:
		on_device(r);
		break;
	default:
		break;
	}
}

void gpu_events_finish(struct gpu_events_reading *reading)
{
	gpu_batch_write(&reading->batch);
}

bool gpu_events_wanted(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		/* any form of the record (gpu_kernel_times, gpu_kernel_shaped,
		 * gpu_batch: doc/events.md) */
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel) ||
		       lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel_times) ||
		       lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel_shaped) ||
		       lttng_ust_tracepoint_enabled(cudatrace, gpu_batch);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy) ||
		       lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy_times) ||
		       lttng_ust_tracepoint_enabled(cudatrace, gpu_batch);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return lttng_ust_tracepoint_enabled(cudatrace, gpu_memset) ||
		       lttng_ust_tracepoint_enabled(cudatrace, gpu_memset_times) ||
		       lttng_ust_tracepoint_enabled(cudatrace, gpu_batch);
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
