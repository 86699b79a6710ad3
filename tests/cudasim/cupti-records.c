/* SPDX-License-Identifier: MIT */
/*
 * cupti-records.c - the activity record layouts (cupti_activity.h) of the
 * CUPTI built (cupti-internal.h):
 * for each kind, the struct that holds it, its timestamp fields (converted
 * to the output clock), its string fields (copied into CUPTI-owned storage)
 * and its thread id field (filled as cuptiSetThreadIdType says).
 * cuptiActivityGetNextRecord walks buffers with the same sizes.
 */
#include <stddef.h>
#include "cupti-internal.h"

#define AT(type, field) ((uint16_t)offsetof(type, field))

/* A record kind: its struct, then up to five timestamps and two strings. */
#define LAYOUT(type, n_ts, n_str, ...)                                                    \
	{                                                                                 \
		.size = sizeof(type), .timestamp_count = (n_ts), .string_count = (n_str), \
		__VA_ARGS__                                                               \
	}
#define TIMESTAMPS(...) .timestamps = { __VA_ARGS__ }
#define STRINGS(...)    .strings = { __VA_ARGS__ }

/* The kinds that share a struct: KERNEL and CONCURRENT_KERNEL; DRIVER,
 * RUNTIME and INTERNAL_LAUNCH_API. */
#define KERNEL_LAYOUT                                                                      \
	LAYOUT(sim_kernel_record, 5, 1,                                                    \
	       TIMESTAMPS(AT(sim_kernel_record, start), AT(sim_kernel_record, end),        \
	                  AT(sim_kernel_record, completed), AT(sim_kernel_record, queued), \
	                  AT(sim_kernel_record, submitted)),                               \
	       STRINGS(AT(sim_kernel_record, name)))
#define API_LAYOUT                                                                   \
	LAYOUT(CUpti_ActivityAPI, 2, 0,                                              \
	       TIMESTAMPS(AT(CUpti_ActivityAPI, start), AT(CUpti_ActivityAPI, end)), \
	       .thread_id = AT(CUpti_ActivityAPI, threadId))

#if SIM_CUPTI_MAJOR >= 13
/* CUPTI 12's kernel and memory pool records (cupti_activity_deprecated.h)
 * are the start of CUPTI 13's: CUPTI 12 keeps that much of the CUDA 13
 * record the driver hands over (cupti-internal.h). */
#define SAME_START(old, new, last)                                               \
	_Static_assert(offsetof(old, last) == offsetof(new, last) &&             \
	                   sizeof(((old *)0)->last) == sizeof(((new *)0)->last), \
	               #old " is the start of " #new)
SAME_START(CUpti_ActivityKernel9, CUpti_ActivityKernel10, pAccessPolicyWindow);
SAME_START(CUpti_ActivityKernel9, CUpti_ActivityKernel10, maxActiveClusters);
SAME_START(CUpti_ActivityMemoryPool2, CUpti_ActivityMemoryPool3, utilizedSize);
SAME_START(CUpti_ActivityMarkerData, CUpti_ActivityMarkerData2, category);
_Static_assert(sizeof(CUpti_ActivityKernel9) <= sizeof(CUpti_ActivityKernel10), "kernel record");
_Static_assert(sizeof(CUpti_ActivityMemoryPool2) <= sizeof(CUpti_ActivityMemoryPool3),
               "memory pool record");
#endif

/* Every struct CUPTI writes is 8-byte aligned and a multiple of 8 long, so
 * records follow each other in a buffer with no padding between them. */
_Static_assert(sizeof(sim_kernel_record) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivityMemcpy6) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivityMemcpyPtoP4) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivityMemset4) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivityMemory4) % 8 == 0, "record size");
_Static_assert(sizeof(sim_memory_pool_record) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivityAPI) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivitySynchronization2) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivityOverhead3) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivityDevice5) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivityContext3) % 8 == 0, "record size");
_Static_assert(sizeof(CUpti_ActivityMarker2) % 8 == 0, "record size");
/* cupti_activity_emit stages a record on the stack. */
_Static_assert(sizeof(sim_kernel_record) <= CUPTI_RECORD_MAX_SIZE, "staging size");
_Static_assert(sizeof(CUpti_ActivityDevice5) <= CUPTI_RECORD_MAX_SIZE, "staging size");

static const struct cupti_record_layout layouts[] = {
	[CUPTI_ACTIVITY_KIND_MEMCPY] =
	    LAYOUT(CUpti_ActivityMemcpy6, 2, 0,
	           TIMESTAMPS(AT(CUpti_ActivityMemcpy6, start), AT(CUpti_ActivityMemcpy6, end))),
	[CUPTI_ACTIVITY_KIND_MEMSET] =
	    LAYOUT(CUpti_ActivityMemset4, 2, 0,
	           TIMESTAMPS(AT(CUpti_ActivityMemset4, start), AT(CUpti_ActivityMemset4, end))),
	[CUPTI_ACTIVITY_KIND_KERNEL] = KERNEL_LAYOUT,
	[CUPTI_ACTIVITY_KIND_DRIVER] = API_LAYOUT,
	[CUPTI_ACTIVITY_KIND_RUNTIME] = API_LAYOUT,
	[CUPTI_ACTIVITY_KIND_DEVICE] =
	    LAYOUT(CUpti_ActivityDevice5, 0, 1, STRINGS(AT(CUpti_ActivityDevice5, name))),
	[CUPTI_ACTIVITY_KIND_CONTEXT] = LAYOUT(CUpti_ActivityContext3, 0, 0, ),
	[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] = KERNEL_LAYOUT,
	[CUPTI_ACTIVITY_KIND_NAME] =
	    LAYOUT(CUpti_ActivityName, 0, 1, STRINGS(AT(CUpti_ActivityName, name))),
	[CUPTI_ACTIVITY_KIND_MARKER] =
	    LAYOUT(CUpti_ActivityMarker2, 1, 2, TIMESTAMPS(AT(CUpti_ActivityMarker2, timestamp)),
	           STRINGS(AT(CUpti_ActivityMarker2, name), AT(CUpti_ActivityMarker2, domain))),
	[CUPTI_ACTIVITY_KIND_MARKER_DATA] = LAYOUT(sim_marker_data_record, 0, 0, ),
	[CUPTI_ACTIVITY_KIND_OVERHEAD] = LAYOUT(
	    CUpti_ActivityOverhead3, 2, 0,
	    TIMESTAMPS(AT(CUpti_ActivityOverhead3, start), AT(CUpti_ActivityOverhead3, end))),
	[CUPTI_ACTIVITY_KIND_CDP_KERNEL] = LAYOUT(
	    CUpti_ActivityCdpKernel, 5, 1,
	    TIMESTAMPS(AT(CUpti_ActivityCdpKernel, start), AT(CUpti_ActivityCdpKernel, end),
	               AT(CUpti_ActivityCdpKernel, queued), AT(CUpti_ActivityCdpKernel, submitted),
	               AT(CUpti_ActivityCdpKernel, completed)),
	    STRINGS(AT(CUpti_ActivityCdpKernel, name))),
	[CUPTI_ACTIVITY_KIND_PREEMPTION] = LAYOUT(
	    CUpti_ActivityPreemption, 1, 0, TIMESTAMPS(AT(CUpti_ActivityPreemption, timestamp))),
	[CUPTI_ACTIVITY_KIND_ENVIRONMENT] = LAYOUT(
	    CUpti_ActivityEnvironment, 1, 0, TIMESTAMPS(AT(CUpti_ActivityEnvironment, timestamp))),
	[CUPTI_ACTIVITY_KIND_MEMCPY2] = LAYOUT(
	    CUpti_ActivityMemcpyPtoP4, 2, 0,
	    TIMESTAMPS(AT(CUpti_ActivityMemcpyPtoP4, start), AT(CUpti_ActivityMemcpyPtoP4, end))),
	[CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER] =
	    LAYOUT(CUpti_ActivityUnifiedMemoryCounter3, 2, 0,
	           TIMESTAMPS(AT(CUpti_ActivityUnifiedMemoryCounter3, start),
	                      AT(CUpti_ActivityUnifiedMemoryCounter3, end))),
	[CUPTI_ACTIVITY_KIND_FUNCTION] =
	    LAYOUT(CUpti_ActivityFunction, 0, 1, STRINGS(AT(CUpti_ActivityFunction, name))),
	[CUPTI_ACTIVITY_KIND_MODULE] = LAYOUT(CUpti_ActivityModule, 0, 0, ),
	[CUPTI_ACTIVITY_KIND_DEVICE_ATTRIBUTE] = LAYOUT(CUpti_ActivityDeviceAttribute, 0, 0, ),
	[CUPTI_ACTIVITY_KIND_OPENACC_DATA] = LAYOUT(
	    CUpti_ActivityOpenAccData, 2, 2,
	    TIMESTAMPS(AT(CUpti_ActivityOpenAccData, start), AT(CUpti_ActivityOpenAccData, end)),
	    STRINGS(AT(CUpti_ActivityOpenAccData, srcFile),
	            AT(CUpti_ActivityOpenAccData, funcName))),
	[CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH] =
	    LAYOUT(CUpti_ActivityOpenAccLaunch, 2, 2,
	           TIMESTAMPS(AT(CUpti_ActivityOpenAccLaunch, start),
	                      AT(CUpti_ActivityOpenAccLaunch, end)),
	           STRINGS(AT(CUpti_ActivityOpenAccLaunch, srcFile),
	                   AT(CUpti_ActivityOpenAccLaunch, funcName))),
	[CUPTI_ACTIVITY_KIND_OPENACC_OTHER] = LAYOUT(
	    CUpti_ActivityOpenAccOther, 2, 2,
	    TIMESTAMPS(AT(CUpti_ActivityOpenAccOther, start), AT(CUpti_ActivityOpenAccOther, end)),
	    STRINGS(AT(CUpti_ActivityOpenAccOther, srcFile),
	            AT(CUpti_ActivityOpenAccOther, funcName))),
	[CUPTI_ACTIVITY_KIND_CUDA_EVENT] =
	    LAYOUT(CUpti_ActivityCudaEvent2, 1, 0,
	           TIMESTAMPS(AT(CUpti_ActivityCudaEvent2, deviceTimestamp))),
	[CUPTI_ACTIVITY_KIND_STREAM] = LAYOUT(CUpti_ActivityStream, 0, 0, ),
	[CUPTI_ACTIVITY_KIND_SYNCHRONIZATION] =
	    LAYOUT(CUpti_ActivitySynchronization2, 2, 0,
	           TIMESTAMPS(AT(CUpti_ActivitySynchronization2, start),
	                      AT(CUpti_ActivitySynchronization2, end))),
	[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION] =
	    LAYOUT(CUpti_ActivityExternalCorrelation, 0, 0, ),
	[CUPTI_ACTIVITY_KIND_NVLINK] = LAYOUT(CUpti_ActivityNvLink4, 0, 0, ),
	[CUPTI_ACTIVITY_KIND_MEMORY] =
	    LAYOUT(CUpti_ActivityMemory, 2, 1,
	           TIMESTAMPS(AT(CUpti_ActivityMemory, start), AT(CUpti_ActivityMemory, end)),
	           STRINGS(AT(CUpti_ActivityMemory, name))),
	[CUPTI_ACTIVITY_KIND_PCIE] = LAYOUT(CUpti_ActivityPcie, 0, 0, ),
	[CUPTI_ACTIVITY_KIND_OPENMP] =
	    LAYOUT(CUpti_ActivityOpenMp, 2, 0,
	           TIMESTAMPS(AT(CUpti_ActivityOpenMp, start), AT(CUpti_ActivityOpenMp, end))),
	[CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API] = API_LAYOUT,
	[CUPTI_ACTIVITY_KIND_MEMORY2] =
	    LAYOUT(CUpti_ActivityMemory4, 1, 2, TIMESTAMPS(AT(CUpti_ActivityMemory4, timestamp)),
	           STRINGS(AT(CUpti_ActivityMemory4, name), AT(CUpti_ActivityMemory4, source))),
	[CUPTI_ACTIVITY_KIND_MEMORY_POOL] =
	    LAYOUT(sim_memory_pool_record, 1, 0, TIMESTAMPS(AT(sim_memory_pool_record, timestamp))),
	[CUPTI_ACTIVITY_KIND_GRAPH_TRACE] = LAYOUT(
	    CUpti_ActivityGraphTrace2, 2, 0,
	    TIMESTAMPS(AT(CUpti_ActivityGraphTrace2, start), AT(CUpti_ActivityGraphTrace2, end))),
	[CUPTI_ACTIVITY_KIND_JIT] =
	    LAYOUT(CUpti_ActivityJit2, 2, 1,
	           TIMESTAMPS(AT(CUpti_ActivityJit2, start), AT(CUpti_ActivityJit2, end)),
	           STRINGS(AT(CUpti_ActivityJit2, cachePath))),
	[CUPTI_ACTIVITY_KIND_DEVICE_GRAPH_TRACE] =
	    LAYOUT(CUpti_ActivityDeviceGraphTrace, 2, 0,
	           TIMESTAMPS(AT(CUpti_ActivityDeviceGraphTrace, start),
	                      AT(CUpti_ActivityDeviceGraphTrace, end))),
	[CUPTI_ACTIVITY_KIND_MEM_DECOMPRESS] =
	    LAYOUT(CUpti_ActivityMemDecompress, 2, 0,
	           TIMESTAMPS(AT(CUpti_ActivityMemDecompress, start),
	                      AT(CUpti_ActivityMemDecompress, end))),
	[CUPTI_ACTIVITY_KIND_CONFIDENTIAL_COMPUTE_ROTATION] =
	    LAYOUT(CUpti_ActivityConfidentialComputeRotation, 1, 0,
	           TIMESTAMPS(AT(CUpti_ActivityConfidentialComputeRotation, timestamp))),
};

const struct cupti_record_layout *cupti_record_layout(uint32_t kind)
{
	if (kind >= sizeof(layouts) / sizeof(layouts[0]) || layouts[kind].size == 0)
		return NULL;
	return &layouts[kind];
}

/* Computed once; a race computes the same value twice. */
size_t cupti_record_min_size(void)
{
	static size_t cached;
	size_t smallest = __atomic_load_n(&cached, __ATOMIC_RELAXED);

	if (smallest)
		return smallest;
	smallest = SIZE_MAX;
	for (size_t kind = 0; kind < sizeof(layouts) / sizeof(layouts[0]); kind++)
		if (layouts[kind].size && layouts[kind].size < smallest)
			smallest = layouts[kind].size;
	__atomic_store_n(&cached, smallest, __ATOMIC_RELAXED);
	return smallest;
}
