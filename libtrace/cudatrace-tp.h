/* SPDX-License-Identifier: MIT */
/*
 * cudatrace-tp.h - the LTTng-UST tracepoint provider `cudatrace`.
 *
 * Every event and field is documented in doc/events.md. The frequent events
 * come first, so that they get the smallest event ids. Fields use the
 * narrowest integer that holds every value CUDA allows (grid y and z and
 * block dimensions fit 16 bits, registers per thread 8, static shared
 * memory 48 KiB), and strings are text sequences whose length the caller
 * has already capped.
 *
 * All the tracepoint call sites are in libcudatrace.so itself, so the
 * tracepoint and provider symbols are hidden (the lttng-ust-cyg-profile
 * pattern): a program that has its own provider never clashes with ours.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER cudatrace

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./cudatrace-tp.h"

#ifndef LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#define LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#endif
#ifndef LTTNG_UST_TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#define LTTNG_UST_TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#endif

#if !defined(CUDATRACE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CUDATRACE_TP_H

#include <stdint.h>
#include <cupti.h>
#include <lttng/tracepoint.h>

#include "event-payloads.h"

/* The tracepoint macros have their own layout, one field per line. */
/* clang-format off */

/* ------------------------------------------------------------ enumerations */

LTTNG_UST_TRACEPOINT_ENUM(cudatrace, domain,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("unknown", 0)
		lttng_ust_field_enum_value("driver", 1)
		lttng_ust_field_enum_value("runtime", 2)
		lttng_ust_field_enum_value("resource", 3)
		lttng_ust_field_enum_value("synchronize", 4)
		lttng_ust_field_enum_value("nvtx", 5)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(cudatrace, mem_kind,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("unknown", MEM_UNKNOWN)
		lttng_ust_field_enum_value("device", MEM_DEVICE)
		lttng_ust_field_enum_value("pitch", MEM_PITCH)
		lttng_ust_field_enum_value("host_pinned", MEM_HOST_PINNED)
		lttng_ust_field_enum_value("host_registered", MEM_HOST_REGISTERED)
		lttng_ust_field_enum_value("managed", MEM_MANAGED)
		lttng_ust_field_enum_value("async", MEM_ASYNC)
		lttng_ust_field_enum_value("vmm_physical", MEM_VMM_PHYSICAL)
		lttng_ust_field_enum_value("vmm_map", MEM_VMM_MAP)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(cudatrace, direction,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("unknown", DIR_UNKNOWN)
		lttng_ust_field_enum_value("HtoD", DIR_HTOD)
		lttng_ust_field_enum_value("DtoH", DIR_DTOH)
		lttng_ust_field_enum_value("DtoD", DIR_DTOD)
		lttng_ust_field_enum_value("HtoH", DIR_HTOH)
		lttng_ust_field_enum_value("PtoP", DIR_PTOP)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(cudatrace, host_mem,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("none", HOST_NONE)
		lttng_ust_field_enum_value("pageable", HOST_PAGEABLE)
		lttng_ust_field_enum_value("pinned", HOST_PINNED)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(cudatrace, sync_kind,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("device", SYNC_DEVICE)
		lttng_ust_field_enum_value("context", SYNC_CONTEXT)
		lttng_ust_field_enum_value("stream", SYNC_STREAM)
		lttng_ust_field_enum_value("event", SYNC_EVENT)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(cudatrace, nvml_reason,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("periodic", NVML_PERIODIC)
		lttng_ust_field_enum_value("alloc_failed", NVML_ALLOC_FAILED)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(cudatrace, tracer_error_kind,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("other_subscriber", TRACER_ERROR_OTHER_SUBSCRIBER)
		lttng_ust_field_enum_value("cupti_init", TRACER_ERROR_CUPTI_INIT)
		lttng_ust_field_enum_value("activity", TRACER_ERROR_ACTIVITY)
		lttng_ust_field_enum_value("nvml", TRACER_ERROR_NVML)
		lttng_ust_field_enum_value("config", TRACER_ERROR_CONFIG)
	)
)

/* The fields every semantic host event ends with. */
#define CUDATRACE_API_FIELDS(ref)							\
	lttng_ust_field_enum(cudatrace, domain, uint8_t, api_domain, (ref).domain)	\
	lttng_ust_field_integer(uint16_t, api_cbid, (ref).cbid)				\
	lttng_ust_field_integer(uint32_t, correlation_id, (ref).correlation_id)

/* ----------------------------------------------------- frequent host events */

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, api_entry,
	LTTNG_UST_TP_ARGS(uint8_t, domain, uint16_t, cbid, uint32_t, correlation_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(cudatrace, domain, uint8_t, domain, domain)
		lttng_ust_field_integer(uint16_t, cbid, cbid)
		lttng_ust_field_integer(uint32_t, correlation_id, correlation_id)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, api_exit,
	LTTNG_UST_TP_ARGS(uint8_t, domain, uint16_t, cbid, uint32_t, correlation_id,
			  int32_t, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(cudatrace, domain, uint8_t, domain, domain)
		lttng_ust_field_integer(uint16_t, cbid, cbid)
		lttng_ust_field_integer(uint32_t, correlation_id, correlation_id)
		lttng_ust_field_integer(int32_t, result, result)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, memcpy,
	LTTNG_UST_TP_ARGS(const struct memcpy_event *, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(cudatrace, direction, uint8_t, direction, e->direction)
		lttng_ust_field_integer_hex(uint64_t, src, e->src)
		lttng_ust_field_integer_hex(uint64_t, dst, e->dst)
		lttng_ust_field_integer(uint64_t, bytes, e->bytes)
		lttng_ust_field_enum(cudatrace, host_mem, uint8_t, host, e->host)
		lttng_ust_field_integer(uint8_t, sync, e->sync)
		lttng_ust_field_integer(uint32_t, stream, e->stream)
		lttng_ust_field_integer(uint8_t, src_device, e->src_device)
		lttng_ust_field_integer(uint8_t, dst_device, e->dst_device)
		CUDATRACE_API_FIELDS(e->api)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, launch,
	LTTNG_UST_TP_ARGS(const struct launch_event *, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, kernel_id, e->kernel_id)
		lttng_ust_field_integer(uint32_t, grid_x, e->grid[0])
		lttng_ust_field_integer(uint16_t, grid_y, u16_sat(e->grid[1]))
		lttng_ust_field_integer(uint16_t, grid_z, u16_sat(e->grid[2]))
		lttng_ust_field_integer(uint16_t, block_x, u16_sat(e->block[0]))
		lttng_ust_field_integer(uint16_t, block_y, u16_sat(e->block[1]))
		lttng_ust_field_integer(uint16_t, block_z, u16_sat(e->block[2]))
		lttng_ust_field_integer(uint32_t, shared_mem, e->shared_mem)
		lttng_ust_field_integer(uint8_t, config_known, e->config_known)
		lttng_ust_field_integer(uint32_t, stream, e->stream)
		lttng_ust_field_integer(uint8_t, device, e->device)
		CUDATRACE_API_FIELDS(e->api)
	)
)

/* ---------------------------------------------------- frequent GPU events */

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, gpu_kernel,
	LTTNG_UST_TP_ARGS(const CUpti_ActivityKernel10 *, k, uint64_t, kernel_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, start, k->start)
		lttng_ust_field_integer(uint64_t, end, k->end)
		lttng_ust_field_integer(uint32_t, correlation_id, k->correlationId)
		lttng_ust_field_integer_hex(uint64_t, kernel_id, kernel_id)
		lttng_ust_field_integer(uint8_t, device, device8(k->deviceId))
		lttng_ust_field_integer(uint32_t, context, k->contextId)
		lttng_ust_field_integer(uint32_t, stream, k->streamId)
		lttng_ust_field_integer(int32_t, grid_x, k->gridX)
		lttng_ust_field_integer(uint16_t, grid_y, u16_sat((uint32_t)k->gridY))
		lttng_ust_field_integer(uint16_t, grid_z, u16_sat((uint32_t)k->gridZ))
		lttng_ust_field_integer(uint16_t, block_x, u16_sat((uint32_t)k->blockX))
		lttng_ust_field_integer(uint16_t, block_y, u16_sat((uint32_t)k->blockY))
		lttng_ust_field_integer(uint16_t, block_z, u16_sat((uint32_t)k->blockZ))
		lttng_ust_field_integer(uint16_t, static_shared_mem, u16_sat(k->staticSharedMemory))
		lttng_ust_field_integer(uint32_t, dynamic_shared_mem, (uint32_t)k->dynamicSharedMemory)
		lttng_ust_field_integer(uint8_t, registers, u8_sat(k->registersPerThread))
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, gpu_memcpy,
	LTTNG_UST_TP_ARGS(const struct gpu_memcpy_event *, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, start, e->start)
		lttng_ust_field_integer(uint64_t, end, e->end)
		lttng_ust_field_integer(uint32_t, correlation_id, e->correlation_id)
		lttng_ust_field_integer(uint32_t, runtime_correlation_id, e->runtime_correlation_id)
		lttng_ust_field_enum(cudatrace, direction, uint8_t, direction, e->direction)
		lttng_ust_field_integer(uint8_t, src_kind, e->src_kind)
		lttng_ust_field_integer(uint8_t, dst_kind, e->dst_kind)
		lttng_ust_field_integer(uint64_t, bytes, e->bytes)
		lttng_ust_field_integer(uint8_t, device, e->device)
		lttng_ust_field_integer(uint8_t, src_device, e->src_device)
		lttng_ust_field_integer(uint8_t, dst_device, e->dst_device)
		lttng_ust_field_integer(uint32_t, context, e->context)
		lttng_ust_field_integer(uint32_t, stream, e->stream)
	)
)

/* ------------------------------------------------------------ other host */

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, memset,
	LTTNG_UST_TP_ARGS(const struct memset_event *, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, device, e->device)
		lttng_ust_field_integer_hex(uint64_t, address, e->address)
		lttng_ust_field_integer(uint64_t, bytes, e->bytes)
		lttng_ust_field_integer_hex(uint32_t, value, e->value)
		lttng_ust_field_integer(uint8_t, element_size, e->element_size)
		lttng_ust_field_integer(uint8_t, sync, e->sync)
		lttng_ust_field_integer(uint32_t, stream, e->stream)
		CUDATRACE_API_FIELDS(e->api)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, gpu_memset,
	LTTNG_UST_TP_ARGS(const CUpti_ActivityMemset4 *, m),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, start, m->start)
		lttng_ust_field_integer(uint64_t, end, m->end)
		lttng_ust_field_integer(uint32_t, correlation_id, m->correlationId)
		lttng_ust_field_integer(uint64_t, bytes, m->bytes)
		lttng_ust_field_integer_hex(uint32_t, value, m->value)
		lttng_ust_field_integer(uint8_t, memory_kind, (uint8_t)m->memoryKind)
		lttng_ust_field_integer(uint8_t, device, device8(m->deviceId))
		lttng_ust_field_integer(uint32_t, context, m->contextId)
		lttng_ust_field_integer(uint32_t, stream, m->streamId)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(cudatrace, mem_event_class,
	LTTNG_UST_TP_ARGS(const struct mem_event *, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, device, e->device)
		lttng_ust_field_enum(cudatrace, mem_kind, uint8_t, kind, e->kind)
		lttng_ust_field_integer_hex(uint64_t, address, e->address)
		lttng_ust_field_integer(uint64_t, size, e->size)
		lttng_ust_field_integer(int64_t, delta, e->delta)
		lttng_ust_field_integer(uint32_t, stream, e->stream)
		CUDATRACE_API_FIELDS(e->api)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cudatrace, mem_event_class, cudatrace, mem_alloc,
	LTTNG_UST_TP_ARGS(const struct mem_event *, e))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cudatrace, mem_event_class, cudatrace, mem_free,
	LTTNG_UST_TP_ARGS(const struct mem_event *, e))

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, sync,
	LTTNG_UST_TP_ARGS(const struct sync_event *, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(cudatrace, sync_kind, uint8_t, what, e->what)
		lttng_ust_field_integer(uint32_t, stream, e->stream)
		lttng_ust_field_integer(uint8_t, device, e->device)
		CUDATRACE_API_FIELDS(e->api)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, gpu_sync,
	LTTNG_UST_TP_ARGS(const CUpti_ActivitySynchronization2 *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, start, s->start)
		lttng_ust_field_integer(uint64_t, end, s->end)
		lttng_ust_field_integer(uint8_t, type, (uint8_t)s->type)
		lttng_ust_field_integer(uint32_t, correlation_id, s->correlationId)
		lttng_ust_field_integer(uint32_t, context, s->contextId)
		lttng_ust_field_integer(uint32_t, stream, s->streamId)
		lttng_ust_field_integer(uint32_t, event, s->cudaEventId)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, gpu_memory,
	LTTNG_UST_TP_ARGS(const CUpti_ActivityMemory4 *, m),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, timestamp, m->timestamp)
		lttng_ust_field_integer(uint8_t, operation, (uint8_t)m->memoryOperationType)
		lttng_ust_field_integer(uint8_t, memory_kind, (uint8_t)m->memoryKind)
		lttng_ust_field_integer_hex(uint64_t, address, m->address)
		lttng_ust_field_integer(uint64_t, bytes, m->bytes)
		lttng_ust_field_integer(uint32_t, correlation_id, m->correlationId)
		lttng_ust_field_integer(uint8_t, device, device8(m->deviceId))
		lttng_ust_field_integer(uint32_t, context, m->contextId)
		lttng_ust_field_integer(uint32_t, stream, m->streamId)
		lttng_ust_field_integer(uint8_t, is_async, (uint8_t)m->isAsync)
		lttng_ust_field_integer(uint8_t, pool_type, (uint8_t)m->memoryPoolConfig.memoryPoolType)
		lttng_ust_field_integer_hex(uint64_t, pool_address, m->memoryPoolConfig.address)
		lttng_ust_field_integer(uint64_t, pool_release_threshold,
					m->memoryPoolConfig.releaseThreshold)
		lttng_ust_field_integer(uint64_t, pool_size, m->memoryPoolConfig.pool.size)
		lttng_ust_field_integer(uint64_t, pool_utilized, m->memoryPoolConfig.utilizedSize)
	)
)

/* ------------------------------------------------------------------- NVTX */

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, nvtx_push,
	LTTNG_UST_TP_ARGS(uint64_t, domain, const char *, message, uint16_t, length),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, domain, domain)
		lttng_ust_field_sequence_text(char, message, message, uint16_t, length)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, nvtx_pop,
	LTTNG_UST_TP_ARGS(uint64_t, domain),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, domain, domain)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, nvtx_range_start,
	LTTNG_UST_TP_ARGS(uint64_t, domain, uint64_t, range_id, const char *, message,
			  uint16_t, length),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, domain, domain)
		lttng_ust_field_integer(uint64_t, range_id, range_id)
		lttng_ust_field_sequence_text(char, message, message, uint16_t, length)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, nvtx_range_end,
	LTTNG_UST_TP_ARGS(uint64_t, domain, uint64_t, range_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, domain, domain)
		lttng_ust_field_integer(uint64_t, range_id, range_id)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, nvtx_mark,
	LTTNG_UST_TP_ARGS(uint64_t, domain, const char *, message, uint16_t, length),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, domain, domain)
		lttng_ust_field_sequence_text(char, message, message, uint16_t, length)
	)
)

/* ------------------------------------------------------- names, once each */

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, api_name,
	LTTNG_UST_TP_ARGS(uint8_t, domain, uint16_t, cbid, const char *, name, uint16_t, length),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(cudatrace, domain, uint8_t, domain, domain)
		lttng_ust_field_integer(uint16_t, cbid, cbid)
		lttng_ust_field_sequence_text(char, name, name, uint16_t, length)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, kernel_name,
	LTTNG_UST_TP_ARGS(uint64_t, kernel_id, const char *, name, uint16_t, length),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, kernel_id, kernel_id)
		lttng_ust_field_sequence_text(char, name, name, uint16_t, length)
	)
)

/* ----------------------------------------------------------- rarer events */

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, mem_alloc_failed,
	LTTNG_UST_TP_ARGS(const struct alloc_failed_event *, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, device, e->device)
		lttng_ust_field_enum(cudatrace, mem_kind, uint8_t, kind, e->kind)
		lttng_ust_field_integer(uint64_t, size, e->size)
		lttng_ust_field_integer(int32_t, result, e->result)
		lttng_ust_field_integer(uint64_t, free, e->free)
		lttng_ust_field_integer(uint64_t, total, e->total)
		CUDATRACE_API_FIELDS(e->api)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, nvml_sample,
	LTTNG_UST_TP_ARGS(const struct nvml_sample_event *, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, device, e->device)
		lttng_ust_field_enum(cudatrace, nvml_reason, uint8_t, reason, e->reason)
		lttng_ust_field_integer(uint64_t, free, e->free)
		lttng_ust_field_integer(uint64_t, used, e->used)
		lttng_ust_field_integer(uint64_t, total, e->total)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, activity_dropped,
	LTTNG_UST_TP_ARGS(uint64_t, count),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, count, count)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, gpu_memory_pool,
	LTTNG_UST_TP_ARGS(const CUpti_ActivityMemoryPool3 *, p),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, timestamp, p->timestamp)
		lttng_ust_field_integer(uint8_t, operation, (uint8_t)p->memoryPoolOperationType)
		lttng_ust_field_integer(uint8_t, pool_type, (uint8_t)p->memoryPoolType)
		lttng_ust_field_integer_hex(uint64_t, address, p->address)
		lttng_ust_field_integer(uint64_t, size, p->size)
		lttng_ust_field_integer(uint64_t, release_threshold, p->releaseThreshold)
		lttng_ust_field_integer(uint64_t, utilized, p->utilizedSize)
		lttng_ust_field_integer(uint8_t, device, device8(p->deviceId))
		lttng_ust_field_integer(uint32_t, correlation_id, p->correlationId)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, gpu_overhead,
	LTTNG_UST_TP_ARGS(const CUpti_ActivityOverhead3 *, o, uint64_t, object_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, start, o->start)
		lttng_ust_field_integer(uint64_t, end, o->end)
		lttng_ust_field_integer(uint32_t, overhead_kind, (uint32_t)o->overheadKind)
		lttng_ust_field_integer(uint8_t, object_kind, (uint8_t)o->objectKind)
		lttng_ust_field_integer(uint64_t, object_id, object_id)
		lttng_ust_field_integer(uint32_t, correlation_id, o->correlationId)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(cudatrace, context_class,
	LTTNG_UST_TP_ARGS(uint32_t, context, uint8_t, device, uint8_t, primary),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, context, context)
		lttng_ust_field_integer(uint8_t, device, device)
		lttng_ust_field_integer(uint8_t, primary, primary)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cudatrace, context_class, cudatrace, context_create,
	LTTNG_UST_TP_ARGS(uint32_t, context, uint8_t, device, uint8_t, primary))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cudatrace, context_class, cudatrace, context_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, context, uint8_t, device, uint8_t, primary))

LTTNG_UST_TRACEPOINT_EVENT_CLASS(cudatrace, stream_class,
	LTTNG_UST_TP_ARGS(uint32_t, context, uint32_t, stream, uint8_t, device),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, context, context)
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer(uint8_t, device, device)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cudatrace, stream_class, cudatrace, stream_create,
	LTTNG_UST_TP_ARGS(uint32_t, context, uint32_t, stream, uint8_t, device))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cudatrace, stream_class, cudatrace, stream_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, context, uint32_t, stream, uint8_t, device))

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, module_load,
	LTTNG_UST_TP_ARGS(uint32_t, context, uint32_t, module, uint64_t, cubin_size),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, context, context)
		lttng_ust_field_integer(uint32_t, module, module)
		lttng_ust_field_integer(uint64_t, cubin_size, cubin_size)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, device_info,
	LTTNG_UST_TP_ARGS(const CUpti_ActivityDevice5 *, d, const char *, name, uint16_t, length),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, device, d->id > 254 ? 255 : (uint8_t)d->id)
		lttng_ust_field_sequence_text(char, name, name, uint16_t, length)
		lttng_ust_field_integer(uint64_t, global_memory, d->globalMemorySize)
		lttng_ust_field_integer(uint64_t, memory_bandwidth, d->globalMemoryBandwidth * 1000)
		lttng_ust_field_integer(uint8_t, cc_major, (uint8_t)d->computeCapabilityMajor)
		lttng_ust_field_integer(uint8_t, cc_minor, (uint8_t)d->computeCapabilityMinor)
		lttng_ust_field_integer(uint16_t, multiprocessors, (uint16_t)d->numMultiprocessors)
		lttng_ust_field_array_hex(uint8_t, uuid, (const uint8_t *)d->uuid.bytes, 16)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, tracer_info,
	LTTNG_UST_TP_ARGS(const struct tracer_info_event *, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(version, e->version)
		lttng_ust_field_string(procname, e->procname)
		lttng_ust_field_integer(uint32_t, cupti_version, e->cupti_version)
		lttng_ust_field_integer(int32_t, driver_version, e->driver_version)
		lttng_ust_field_integer(uint8_t, api, e->api)
		lttng_ust_field_integer_hex(uint32_t, activity_kinds, e->activity_kinds)
		lttng_ust_field_integer(uint64_t, buffer_size, e->buffer_size)
		lttng_ust_field_integer(uint32_t, flush_period_ms, e->flush_period_ms)
		lttng_ust_field_integer(uint16_t, max_string, e->max_string)
		lttng_ust_field_integer(uint32_t, nvml_period_ms, e->nvml_period_ms)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, tracer_error,
	LTTNG_UST_TP_ARGS(uint8_t, kind, int32_t, code, const char *, message, uint16_t, length),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(cudatrace, tracer_error_kind, uint8_t, kind, kind)
		lttng_ust_field_integer(int32_t, code, code)
		lttng_ust_field_sequence_text(char, message, message, uint16_t, length)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(cudatrace, nvtx_domain_create,
	LTTNG_UST_TP_ARGS(uint64_t, domain, const char *, name, uint16_t, length),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, domain, domain)
		lttng_ust_field_sequence_text(char, name, name, uint16_t, length)
	)
)

/* clang-format on */

#endif /* CUDATRACE_TP_H */

#include <lttng/tracepoint-event.h>
