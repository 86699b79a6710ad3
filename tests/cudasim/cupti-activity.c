/* SPDX-License-Identifier: MIT */
/*
 * cupti-activity.c - the activity API (cupti_activity.h) short of buffers:
 * which kinds and which API cbids are enabled, the intake of records from
 * the driver (CUDASIM_CUPTI_DROP_EVERY, clock conversion, string copies),
 * cuptiActivityGetNextRecord, the dropped-record count and the attributes.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cupti-internal.h"

static pthread_mutex_t activity_lock = PTHREAD_MUTEX_INITIALIZER;

/* One byte per kind; DRIVER and RUNTIME are per cbid instead. */
static uint8_t kind_enabled[CUPTI_ACTIVITY_KIND_COUNT];

/* Room for either domain's cbids. */
#define API_CBID_ROOM                                                           \
	((int)CUPTI_DRIVER_TRACE_CBID_SIZE > (int)CUPTI_RUNTIME_TRACE_CBID_SIZE \
	     ? (int)CUPTI_DRIVER_TRACE_CBID_SIZE                                \
	     : (int)CUPTI_RUNTIME_TRACE_CBID_SIZE)

struct api_filter {
	uint8_t enabled[API_CBID_ROOM];
	size_t count; /* cbids of this domain */
	unsigned on;  /* how many are enabled */
};

static struct api_filter driver_api = { .count = CUPTI_DRIVER_TRACE_CBID_SIZE };
static struct api_filter runtime_api = { .count = CUPTI_RUNTIME_TRACE_CBID_SIZE };

/* cuptiActivityConfigureUnifiedMemoryCounter's settings, per counter kind. */
static uint8_t um_counter_on[CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_COUNT];

static size_t dropped_records;
static uint64_t offered_records;

/* ------------------------------------------------------------ kinds */

/* Removed in CUDA 13.0: "Enabling it will return the error code
 * CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED" (cupti_activity.h). */
static bool legacy_kind(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_EVENT:
	case CUPTI_ACTIVITY_KIND_METRIC:
	case CUPTI_ACTIVITY_KIND_SOURCE_LOCATOR:
	case CUPTI_ACTIVITY_KIND_GLOBAL_ACCESS:
	case CUPTI_ACTIVITY_KIND_BRANCH:
	case CUPTI_ACTIVITY_KIND_EVENT_INSTANCE:
	case CUPTI_ACTIVITY_KIND_METRIC_INSTANCE:
	case CUPTI_ACTIVITY_KIND_INSTRUCTION_EXECUTION:
	case CUPTI_ACTIVITY_KIND_SHARED_ACCESS:
	case CUPTI_ACTIVITY_KIND_PC_SAMPLING:
	case CUPTI_ACTIVITY_KIND_PC_SAMPLING_RECORD_INFO:
	case CUPTI_ACTIVITY_KIND_INSTRUCTION_CORRELATION:
	case CUPTI_ACTIVITY_KIND_INSTANTANEOUS_EVENT:
	case CUPTI_ACTIVITY_KIND_INSTANTANEOUS_EVENT_INSTANCE:
	case CUPTI_ACTIVITY_KIND_INSTANTANEOUS_METRIC:
	case CUPTI_ACTIVITY_KIND_INSTANTANEOUS_METRIC_INSTANCE:
		return true;
	default:
		return false;
	}
}

/* "This activity cannot be directly enabled or disabled" (cupti_activity.h). */
static bool indirect_kind(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_CDP_KERNEL:
	case CUPTI_ACTIVITY_KIND_MODULE:
	case CUPTI_ACTIVITY_KIND_DEVICE_ATTRIBUTE:
	case CUPTI_ACTIVITY_KIND_DEVICE_GRAPH_TRACE:
		return true;
	default:
		return false;
	}
}

static bool valid_kind(CUpti_ActivityKind kind)
{
	return kind > CUPTI_ACTIVITY_KIND_INVALID && kind < CUPTI_ACTIVITY_KIND_COUNT;
}

static CUptiResult check_enable(CUpti_ActivityKind kind)
{
	if (!valid_kind(kind))
		return CUPTI_ERROR_INVALID_KIND;
	if (legacy_kind(kind))
		return CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED;
	if (indirect_kind(kind))
		return CUPTI_ERROR_NOT_COMPATIBLE;
	return CUPTI_SUCCESS;
}

static struct api_filter *api_filter(CUpti_ActivityKind kind)
{
	if (kind == CUPTI_ACTIVITY_KIND_DRIVER)
		return &driver_api;
	if (kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		return &runtime_api;
	return NULL;
}

/* Caller holds activity_lock. */
static void set_api(struct api_filter *filter, size_t cbid, bool on)
{
	if (filter->enabled[cbid] == on)
		return;
	__atomic_store_n(&filter->enabled[cbid], on, __ATOMIC_RELAXED);
	if (on)
		__atomic_add_fetch(&filter->on, 1, __ATOMIC_RELAXED);
	else
		__atomic_sub_fetch(&filter->on, 1, __ATOMIC_RELAXED);
}

/* Caller holds activity_lock. The kind overrides earlier per-cbid choices
 * ("Activity kind CUPTI_ACTIVITY_KIND_DRIVER overrides the settings done
 * by this API if it is called after the API", cupti_activity.h). */
static void set_kind(CUpti_ActivityKind kind, bool on)
{
	struct api_filter *filter = api_filter(kind);

	__atomic_store_n(&kind_enabled[kind], on, __ATOMIC_RELAXED);
	if (!filter)
		return;
	for (size_t cbid = 0; cbid < filter->count; cbid++)
		set_api(filter, cbid, on);
}

int cupti_activity_enabled(CUpti_ActivityKind kind)
{
	struct api_filter *filter;

	if (!valid_kind(kind))
		return 0;
	filter = api_filter(kind);
	if (filter)
		return __atomic_load_n(&filter->on, __ATOMIC_RELAXED) != 0;
	return __atomic_load_n(&kind_enabled[kind], __ATOMIC_RELAXED);
}

static CUptiResult enable_kind(CUpti_ActivityKind kind)
{
	CUptiResult result = check_enable(kind);

	if (result != CUPTI_SUCCESS)
		return result;
	result = cupti_profiler_attach();
	if (result != CUPTI_SUCCESS)
		return result;
	pthread_mutex_lock(&activity_lock);
	set_kind(kind, true);
	pthread_mutex_unlock(&activity_lock);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	return cupti_status(enable_kind(kind));
}

/* The simulated driver cannot replay the devices, contexts and streams that
 * exist already, so this is cuptiActivityEnable ("For other activities, the
 * behavior is similar to the API cuptiActivityEnable"). */
SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableAndDump(CUpti_ActivityKind kind)
{
	return cupti_status(enable_kind(kind));
}

/*
 * "Set the configuration before enabling the corresponding activity kind
 * CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER" (cupti_activity.h): which
 * Unified Memory counters the records of that kind report. The scope and
 * device are deprecated since CUDA 7.0 and ignored; an unknown kind or a
 * NULL config is CUPTI_ERROR_INVALID_PARAMETER.
 */
SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityConfigureUnifiedMemoryCounter(
    CUpti_ActivityUnifiedMemoryCounterConfig *config, uint32_t count)
{
	if (!config || count == 0)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	for (uint32_t i = 0; i < count; i++)
		if (config[i].kind <= CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_UNKNOWN ||
		    config[i].kind >= CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_COUNT ||
		    config[i].scope >= CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_COUNT)
			return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	pthread_mutex_lock(&activity_lock);
	for (uint32_t i = 0; i < count; i++)
		__atomic_store_n(&um_counter_on[config[i].kind], config[i].enable != 0,
		                 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&activity_lock);
	return CUPTI_SUCCESS;
}

int cupti_um_counter_enabled(CUpti_ActivityUnifiedMemoryCounterKind kind)
{
	if (kind <= CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_UNKNOWN ||
	    kind >= CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_COUNT)
		return 0;
	return __atomic_load_n(&um_counter_on[kind], __ATOMIC_RELAXED);
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
	if (!valid_kind(kind))
		return cupti_status(CUPTI_ERROR_INVALID_KIND);
	pthread_mutex_lock(&activity_lock);
	set_kind(kind, false);
	pthread_mutex_unlock(&activity_lock);
	return CUPTI_SUCCESS;
}

/* Per-context settings are accepted; records keep following the global
 * ones (every buffer is global since CUDA 6.0 in any case). */
SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableContext(CUcontext context,
                                                           CUpti_ActivityKind kind)
{
	CUptiResult result = check_enable(kind);

	if (result == CUPTI_SUCCESS)
		result = cupti_profiler_attach();
	return cupti_status(result);
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityDisableContext(CUcontext context,
                                                            CUpti_ActivityKind kind)
{
	if (!valid_kind(kind))
		return cupti_status(CUPTI_ERROR_INVALID_KIND);
	return CUPTI_SUCCESS;
}

static CUptiResult enable_api(struct api_filter *filter, CUpti_CallbackId cbid, uint8_t enable)
{
	CUptiResult result;

	if (cbid >= filter->count)
		return CUPTI_ERROR_INVALID_PARAMETER;
	result = cupti_profiler_attach();
	if (result != CUPTI_SUCCESS)
		return result;
	pthread_mutex_lock(&activity_lock);
	set_api(filter, cbid, enable != 0);
	pthread_mutex_unlock(&activity_lock);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable)
{
	return cupti_status(enable_api(&driver_api, cbid, enable));
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable)
{
	return cupti_status(enable_api(&runtime_api, cbid, enable));
}

/* ------------------------------------------------------------ intake */

static pthread_once_t drop_every_once = PTHREAD_ONCE_INIT;
static uint64_t drop_every_value;

static void read_drop_every(void)
{
	const char *text = getenv("CUDASIM_CUPTI_DROP_EVERY");
	char *end;
	unsigned long long value;

	if (!text || !*text)
		return;
	value = strtoull(text, &end, 10);
	if (*end == '\0')
		drop_every_value = value;
}

/* CUDASIM_CUPTI_DROP_EVERY, read once: 0 keeps every record. */
static uint64_t drop_every(void)
{
	pthread_once(&drop_every_once, read_drop_every);
	return drop_every_value;
}

static bool wanted(const CUpti_Activity *record)
{
	struct api_filter *filter = api_filter(record->kind);
	CUpti_CallbackId cbid;

	if (!valid_kind(record->kind))
		return false;
	if (!filter)
		return __atomic_load_n(&kind_enabled[record->kind], __ATOMIC_RELAXED);
	cbid = ((const CUpti_ActivityAPI *)record)->cbid;
	return cbid < filter->count && __atomic_load_n(&filter->enabled[cbid], __ATOMIC_RELAXED);
}

/* Every Nth record offered is lost, counted, and written to the ledger. */
static bool drop_for_test(void)
{
	uint64_t every = drop_every();
	const struct cupti_driver *driver;

	if (every == 0)
		return false;
	if (__atomic_add_fetch(&offered_records, 1, __ATOMIC_RELAXED) % every != 0)
		return false;
	cupti_activity_count_dropped(1);
	driver = cupti_driver();
	if (driver)
		driver->ledger("op=cupti_drop count=1");
	return true;
}

void cupti_activity_offer(const CUpti_Activity *record, uint64_t complete_ns)
{
	if (!record || !wanted(record) || drop_for_test())
		return;
	if (record->kind == CUPTI_ACTIVITY_KIND_DRIVER ||
	    record->kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		cupti_external_emit(((const CUpti_ActivityAPI *)record)->correlationId);
	cupti_activity_emit(record, complete_ns);
}

static void convert_timestamps(uint8_t *record, const struct cupti_record_layout *layout,
                               int64_t offset)
{
	for (unsigned i = 0; i < layout->timestamp_count; i++) {
		uint64_t ns;

		memcpy(&ns, record + layout->timestamps[i], sizeof(ns));
		/* 0 is CUPTI_TIMESTAMP_UNKNOWN and stays so */
		if (ns != 0)
			ns += (uint64_t)offset;
		memcpy(record + layout->timestamps[i], &ns, sizeof(ns));
	}
}

static void copy_strings(uint8_t *record, const struct cupti_record_layout *layout)
{
	for (unsigned i = 0; i < layout->string_count; i++) {
		const char *text;

		memcpy(&text, record + layout->strings[i], sizeof(text));
		text = cupti_intern(text);
		memcpy(record + layout->strings[i], &text, sizeof(text));
	}
}

/* The only non-string pointer a kernel record carries to memory of the
 * caller's: copied too, so that it outlives the call. */
static void copy_access_policy(uint8_t *record, CUpti_ActivityKind kind)
{
	sim_kernel_record *kernel = (sim_kernel_record *)record;

	if (kind != CUPTI_ACTIVITY_KIND_KERNEL && kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
		return;
	if (kernel->pAccessPolicyWindow)
		kernel->pAccessPolicyWindow = (CUaccessPolicyWindow *)cupti_intern_bytes(
		    kernel->pAccessPolicyWindow, sizeof(*kernel->pAccessPolicyWindow));
}

void cupti_activity_emit(const CUpti_Activity *record, uint64_t complete_ns)
{
	const struct cupti_record_layout *layout = cupti_record_layout(record->kind);
	uint64_t staging[CUPTI_RECORD_MAX_SIZE / sizeof(uint64_t)];
	uint8_t *copy = (uint8_t *)staging;
	int64_t offset = cupti_clock_offset();

	if (!layout || layout->size > sizeof(staging)) {
		cupti_activity_count_dropped(1);
		return;
	}
	memcpy(copy, record, layout->size);
	convert_timestamps(copy, layout, offset);
	copy_strings(copy, layout);
	copy_access_policy(copy, record->kind);
	if (layout->thread_id) {
		uint32_t tid = cupti_thread_id();

		memcpy(copy + layout->thread_id, &tid, sizeof(tid));
	}
	if (!cupti_buffers_append(copy, layout->size, complete_ns, offset))
		cupti_activity_count_dropped(1);
}

void cupti_activity_count_dropped(size_t count)
{
	__atomic_add_fetch(&dropped_records, count, __ATOMIC_RELAXED);
}

/* "The dropped count maintained for the queue is reset to zero when this
 * function is called"; every buffer is global, so context is ignored. */
SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context,
                                                                  uint32_t streamId,
                                                                  size_t *dropped)
{
	if (!dropped)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	*dropped = __atomic_exchange_n(&dropped_records, 0, __ATOMIC_RELAXED);
	return CUPTI_SUCCESS;
}

/* ------------------------------------------------------------ reading */

/*
 * Records start at the first 8-byte boundary of the buffer and follow each
 * other, each as long as its kind's struct. As the 13.0 library does: the
 * end of the valid bytes, or a record cut by it, is MAX_LIMIT_REACHED; a
 * kind it does not know (or no room for a kind) is INVALID_KIND.
 */
SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer,
                                                           size_t validBufferSizeBytes,
                                                           CUpti_Activity **record)
{
	const struct cupti_record_layout *layout;
	uintptr_t start, end, next;
	uint32_t kind;

	if (!buffer || !record)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	start = ((uintptr_t)buffer + 7) & ~(uintptr_t)7;
	if (validBufferSizeBytes > UINTPTR_MAX - (uintptr_t)buffer)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	end = (uintptr_t)buffer + validBufferSizeBytes;
	next = start;
	if (*record) {
		uintptr_t previous = (uintptr_t)*record;

		if (previous < start || previous + sizeof(kind) > end)
			return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
		layout = cupti_record_layout((*record)->kind);
		if (!layout)
			return cupti_status(CUPTI_ERROR_INVALID_KIND);
		next = previous + layout->size;
	}
	if (next >= end)
		return cupti_status(CUPTI_ERROR_MAX_LIMIT_REACHED);
	if (end - next < sizeof(kind))
		return cupti_status(CUPTI_ERROR_INVALID_KIND);
	memcpy(&kind, (const void *)next, sizeof(kind));
	layout = cupti_record_layout(kind);
	if (!layout)
		return cupti_status(CUPTI_ERROR_INVALID_KIND);
	if (layout->size > end - next)
		return cupti_status(CUPTI_ERROR_MAX_LIMIT_REACHED);
	*record = (CUpti_Activity *)next;
	return CUPTI_SUCCESS;
}

/* ------------------------------------------------------------ attributes */

struct attribute {
	size_t size;    /* sizeof the value: size_t or uint8_t */
	uint64_t value; /* current value */
	uint64_t initial;
};

/* Defaults from cupti_activity.h. Remembered, never acted on, except
 * ZEROED_OUT_ACTIVITY_BUFFER. */
static struct attribute attributes[] = {
	[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE] = { sizeof(size_t), 3200000, 3200000 },
	[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_CDP] = { sizeof(size_t), 8388608, 8388608 },
	[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT] = { sizeof(size_t), 250, 250 },
	[CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_SIZE] = { sizeof(size_t), 25000, 25000 },
	[CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_LIMIT] = { sizeof(size_t), 250, 250 },
	[CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER] = { sizeof(uint8_t), 0, 0 },
	[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE] = { sizeof(size_t), 3, 3 },
	[CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_PRE_ALLOCATE_VALUE] = { sizeof(size_t), 3, 3 },
	[CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED] = { sizeof(uint8_t), 0, 0 },
	[CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER] = { sizeof(uint8_t), 1, 1 },
	[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_DEVICE_GRAPHS] = { sizeof(size_t), 16777216,
	                                                           16777216 },
};

static CUptiResult find_attribute(CUpti_ActivityAttribute attr, size_t *valueSize, void *value,
                                  struct attribute **found)
{
	if (!valueSize || !value || (unsigned)attr >= sizeof(attributes) / sizeof(attributes[0]))
		return CUPTI_ERROR_INVALID_PARAMETER;
	*found = &attributes[attr];
	if (*valueSize < (*found)->size)
		return CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT;
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivitySetAttribute(CUpti_ActivityAttribute attr,
                                                          size_t *valueSize, void *value)
{
	struct attribute *attribute;
	CUptiResult result = find_attribute(attr, valueSize, value, &attribute);
	size_t wide;
	uint8_t narrow;

	if (result != CUPTI_SUCCESS)
		return cupti_status(result);
	pthread_mutex_lock(&activity_lock);
	if (attribute->size == sizeof(size_t)) {
		memcpy(&wide, value, sizeof(wide));
		attribute->value = wide;
	} else {
		memcpy(&narrow, value, sizeof(narrow));
		attribute->value = narrow;
	}
	pthread_mutex_unlock(&activity_lock);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityGetAttribute(CUpti_ActivityAttribute attr,
                                                          size_t *valueSize, void *value)
{
	struct attribute *attribute;
	CUptiResult result = find_attribute(attr, valueSize, value, &attribute);
	size_t wide;
	uint8_t narrow;

	if (result != CUPTI_SUCCESS)
		return cupti_status(result);
	pthread_mutex_lock(&activity_lock);
	wide = (size_t)attribute->value;
	narrow = (uint8_t)attribute->value;
	pthread_mutex_unlock(&activity_lock);
	if (attribute->size == sizeof(size_t))
		memcpy(value, &wide, sizeof(wide));
	else
		memcpy(value, &narrow, sizeof(narrow));
	*valueSize = attribute->size;
	return CUPTI_SUCCESS;
}

/* ZEROED_OUT_ACTIVITY_BUFFER 0 (the default): "CUPTI will initialize the
 * user buffer ... to zero before filling it". */
bool cupti_activity_zeroes_buffers(void)
{
	bool zero;

	pthread_mutex_lock(&activity_lock);
	zero = attributes[CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER].value == 0;
	pthread_mutex_unlock(&activity_lock);
	return zero;
}

void cupti_activity_finalize(void)
{
	pthread_mutex_lock(&activity_lock);
	for (int kind = 0; kind < CUPTI_ACTIVITY_KIND_COUNT; kind++)
		set_kind((CUpti_ActivityKind)kind, false);
	for (size_t attr = 0; attr < sizeof(attributes) / sizeof(attributes[0]); attr++)
		attributes[attr].value = attributes[attr].initial;
	pthread_mutex_unlock(&activity_lock);
}

/* ------------------------------------------------------------ settings */

/* Collection switches the simulated driver has nothing to act on: the
 * records it makes do not change with them. Accepted and ignored. */
SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableLatencyTimestamps(uint8_t enable)
{
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableLaunchAttributes(uint8_t enable)
{
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableAllocationSource(uint8_t enable)
{
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableAllSyncRecords(uint8_t enable)
{
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableDeviceGraph(uint8_t enable)
{
	return CUPTI_SUCCESS;
}

#if SIM_CUPTI_MAJOR >= 13
/* New in CUPTI 13.0. */
SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableCudaEventDeviceTimestamps(uint8_t enable)
{
	return CUPTI_SUCCESS;
}
#endif

/* CUDA 13's CUPTI supports Turing (7.5) and later, CUDA 12's Maxwell (5.0)
 * and later (the oldest compute capability of each toolkit, its release
 * notes); the simulated device is a 9.0. */
SIM_EXPORT CUptiResult CUPTIAPI cuptiComputeCapabilitySupported(int major, int minor, int *support)
{
	if (!support)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	*support = major * 10 + minor >= (SIM_CUPTI_MAJOR >= 13 ? 75 : 50);
	return CUPTI_SUCCESS;
}
