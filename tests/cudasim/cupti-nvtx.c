/* SPDX-License-Identifier: MIT */
/*
 * cupti-nvtx.c - NVTX through CUPTI. NVTX v3 is header-only: each module
 * that uses it loads the injection library and calls its
 * InitializeInjectionNvtx2 with NVTX's export-table getter (nvtxInit.h).
 * cuptiNvtxInitialize2 fills that module's CORE and CORE2 function slots
 * (nvtxTypes.h) with the functions below, which behave as NVTX functions
 * (push levels, range ids, handles; nvToolsExt.h), fire the NVTX-domain
 * callback with CUpti_NvtxData (cupti_callbacks.h), and make MARKER
 * records when that kind is enabled. Every module calls in: each call
 * works, and all modules share one state.
 */
#define NVTX_NO_IMPL /* declarations and types only: this is a tool */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <generated_nvtx_meta.h>
#include "cupti-internal.h"

/* The handles NVTX hands out are pointers to these, never freed: a handle
 * may be used after nvtxDomainDestroy by a careless program. */
struct nvtxDomainRegistration_st {
	const char *name; /* CUPTI-owned */
};

struct nvtxStringRegistration_st {
	const char *string; /* CUPTI-owned */
};

/* Every handle given out, so that a bad one is recognised instead of read:
 * open addressing over pointers, at most half full. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static const void **handles;
static size_t handle_capacity; /* a power of two, or 0 */
static size_t handle_count;
static uint64_t last_id; /* range ids and marker ids, shared */

static size_t handle_slot(const void *handle, size_t capacity)
{
	uint64_t hash = (uint64_t)(uintptr_t)handle * 0x9e3779b97f4a7c15u;

	return (size_t)(hash >> 20) & (capacity - 1);
}

static void place(const void **slots, size_t capacity, const void *handle)
{
	size_t i = handle_slot(handle, capacity);

	while (slots[i] && slots[i] != handle)
		i = (i + 1) & (capacity - 1);
	slots[i] = handle;
}

/* Caller holds registry_lock. */
static bool grow_handles(void)
{
	size_t capacity = handle_capacity ? handle_capacity * 2 : 64;
	const void **slots = calloc(capacity, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t i = 0; i < handle_capacity; i++)
		if (handles[i])
			place(slots, capacity, handles[i]);
	free(handles);
	handles = slots;
	handle_capacity = capacity;
	return true;
}

static bool remember_handle(const void *handle)
{
	bool ok = true;

	pthread_mutex_lock(&registry_lock);
	if ((handle_count + 1) * 2 > handle_capacity)
		ok = grow_handles();
	if (ok) {
		place(handles, handle_capacity, handle);
		handle_count++;
	}
	pthread_mutex_unlock(&registry_lock);
	return ok;
}

static bool known_handle(const void *handle)
{
	bool found = false;

	if (!handle)
		return false;
	pthread_mutex_lock(&registry_lock);
	for (size_t i = handle_capacity ? handle_slot(handle, handle_capacity) : 0;
	     handle_capacity && handles[i]; i = (i + 1) & (handle_capacity - 1)) {
		if (handles[i] == handle) {
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return found;
}

/* ------------------------------------------------------------ ranges */

/* Push/pop ranges of one domain on one thread: their marker ids. */
struct range_stack {
	nvtxDomainHandle_t domain; /* NULL: the default domain */
	uint32_t *ids;
	size_t depth, capacity;
};

struct thread_ranges {
	struct range_stack *stacks;
	size_t count, capacity;
};

static __thread struct thread_ranges *thread_ranges;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t ranges_key;

static void free_ranges(void *value)
{
	struct thread_ranges *ranges = value;

	for (size_t i = 0; i < ranges->count; i++)
		free(ranges->stacks[i].ids);
	free(ranges->stacks);
	free(ranges);
}

static void make_key(void)
{
	pthread_key_create(&ranges_key, free_ranges);
}

/* The calling thread's stack for a domain, made on first use; NULL when out
 * of memory. */
static struct range_stack *range_stack(nvtxDomainHandle_t domain)
{
	struct thread_ranges *ranges = thread_ranges;

	if (!ranges) {
		ranges = calloc(1, sizeof(*ranges));
		if (!ranges)
			return NULL;
		pthread_once(&key_once, make_key);
		pthread_setspecific(ranges_key, ranges);
		thread_ranges = ranges;
	}
	for (size_t i = 0; i < ranges->count; i++)
		if (ranges->stacks[i].domain == domain)
			return &ranges->stacks[i];
	if (ranges->count == ranges->capacity) {
		size_t capacity = ranges->capacity ? ranges->capacity * 2 : 4;
		struct range_stack *grown = realloc(ranges->stacks, capacity * sizeof(*grown));

		if (!grown)
			return NULL;
		ranges->stacks = grown;
		ranges->capacity = capacity;
	}
	ranges->stacks[ranges->count] = (struct range_stack){ .domain = domain };
	return &ranges->stacks[ranges->count++];
}

/* The 0-based level of the new range, or a negative value on error
 * (nvToolsExt.h). */
static int push_range(nvtxDomainHandle_t domain, uint32_t id)
{
	struct range_stack *stack = range_stack(domain);

	if (!stack)
		return -1;
	if (stack->depth == stack->capacity) {
		size_t capacity = stack->capacity ? stack->capacity * 2 : 16;
		uint32_t *ids = realloc(stack->ids, capacity * sizeof(*ids));

		if (!ids)
			return -1;
		stack->ids = ids;
		stack->capacity = capacity;
	}
	stack->ids[stack->depth] = id;
	return (int)stack->depth++;
}

/* "The level of the range being ended", negative when none is open. */
static int pop_range(nvtxDomainHandle_t domain, uint32_t *id)
{
	struct range_stack *stack = range_stack(domain);

	if (!stack || stack->depth == 0)
		return -1;
	stack->depth--;
	*id = stack->ids[stack->depth];
	return (int)stack->depth;
}

static uint64_t next_id(void)
{
	return __atomic_add_fetch(&last_id, 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ strings */

/* UTF-8 of a wide string, CUPTI-owned (truncated past 1 KiB). */
static const char *narrow(const wchar_t *wide)
{
	char text[1024];
	size_t used = 0;

	if (!wide)
		return NULL;
	for (; *wide && used + 4 < sizeof(text); wide++) {
		uint32_t c = (uint32_t)*wide;

		if (c < 0x80) {
			text[used++] = (char)c;
		} else if (c < 0x800) {
			text[used++] = (char)(0xc0 | (c >> 6));
			text[used++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			text[used++] = (char)(0xe0 | (c >> 12));
			text[used++] = (char)(0x80 | ((c >> 6) & 0x3f));
			text[used++] = (char)(0x80 | (c & 0x3f));
		} else {
			text[used++] = (char)(0xf0 | ((c >> 18) & 0x07));
			text[used++] = (char)(0x80 | ((c >> 12) & 0x3f));
			text[used++] = (char)(0x80 | ((c >> 6) & 0x3f));
			text[used++] = (char)(0x80 | (c & 0x3f));
		}
	}
	text[used] = '\0';
	return cupti_intern(text);
}

/* The message of an event, CUPTI-owned, or NULL. */
static const char *event_message(const nvtxEventAttributes_t *attributes)
{
	if (!attributes)
		return NULL;
	switch (attributes->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		return cupti_intern(attributes->message.ascii);
	case NVTX_MESSAGE_TYPE_UNICODE:
		return narrow(attributes->message.unicode);
	case NVTX_MESSAGE_TYPE_REGISTERED:
		if (!known_handle(attributes->message.registered))
			return NULL;
		return attributes->message.registered->string;
	default:
		return NULL;
	}
}

static const char *domain_name(nvtxDomainHandle_t domain)
{
	return known_handle(domain) ? domain->name : NULL;
}

/* ------------------------------------------------------------ reporting */

static void report(CUpti_CallbackId cbid, const char *function, const void *params,
                   const void *result)
{
	CUpti_NvtxData data = {
		.functionName = function,
		.functionParams = params,
		.functionReturnValue = result,
	};

	if (cupti_callback_enabled(CUPTI_CB_DOMAIN_NVTX, cbid))
		cupti_callback_deliver(CUPTI_CB_DOMAIN_NVTX, cbid, &data);
}

/* One CUpti_ActivityMarker2: "name ... will be NULL for an end marker",
 * "domain ... will be NULL for default domain" (cupti_activity.h). */
static void marker(CUpti_ActivityFlag flags, uint32_t id, const char *name,
                   nvtxDomainHandle_t domain)
{
	CUpti_ActivityMarker2 record;
	uint64_t now;

	if (!cupti_activity_enabled(CUPTI_ACTIVITY_KIND_MARKER))
		return;
	now = cupti_monotonic_ns();
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_MARKER;
	record.flags = flags;
	record.timestamp = now;
	record.id = id;
	record.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	record.objectId.pt.processId = (uint32_t)getpid();
	record.objectId.pt.threadId = cupti_thread_id();
	record.name = flags == CUPTI_ACTIVITY_FLAG_MARKER_END ? NULL : name;
	record.domain = domain_name(domain);
	cupti_activity_emit((const CUpti_Activity *)&record, now);
}

static void mark(nvtxDomainHandle_t domain, const char *message)
{
	marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, (uint32_t)next_id(), message, domain);
}

static nvtxRangeId_t start_range(nvtxDomainHandle_t domain, const char *message)
{
	nvtxRangeId_t id = next_id();

	marker(CUPTI_ACTIVITY_FLAG_MARKER_START, (uint32_t)id, message, domain);
	return id;
}

static void end_range(nvtxDomainHandle_t domain, nvtxRangeId_t id)
{
	marker(CUPTI_ACTIVITY_FLAG_MARKER_END, (uint32_t)id, NULL, domain);
}

static int push(nvtxDomainHandle_t domain, const char *message)
{
	uint32_t id = (uint32_t)next_id();
	int level = push_range(domain, id);

	if (level >= 0)
		marker(CUPTI_ACTIVITY_FLAG_MARKER_START, id, message, domain);
	return level;
}

static int pop(nvtxDomainHandle_t domain)
{
	uint32_t id = 0;
	int level = pop_range(domain, &id);

	if (level >= 0)
		marker(CUPTI_ACTIVITY_FLAG_MARKER_END, id, NULL, domain);
	return level;
}

/* ------------------------------------------------------------ CORE */

static void NVTX_API mark_ex(const nvtxEventAttributes_t *eventAttrib)
{
	nvtxMarkEx_params params = { eventAttrib };

	mark(NULL, event_message(eventAttrib));
	report(CUPTI_CBID_NVTX_nvtxMarkEx, "nvtxMarkEx", &params, NULL);
}

static void NVTX_API mark_a(const char *message)
{
	nvtxMarkA_params params = { message };

	mark(NULL, cupti_intern(message));
	report(CUPTI_CBID_NVTX_nvtxMarkA, "nvtxMarkA", &params, NULL);
}

static void NVTX_API mark_w(const wchar_t *message)
{
	nvtxMarkW_params params = { message };

	mark(NULL, narrow(message));
	report(CUPTI_CBID_NVTX_nvtxMarkW, "nvtxMarkW", &params, NULL);
}

static nvtxRangeId_t NVTX_API range_start_ex(const nvtxEventAttributes_t *eventAttrib)
{
	nvtxRangeStartEx_params params = { eventAttrib };
	nvtxRangeId_t id = start_range(NULL, event_message(eventAttrib));

	report(CUPTI_CBID_NVTX_nvtxRangeStartEx, "nvtxRangeStartEx", &params, &id);
	return id;
}

static nvtxRangeId_t NVTX_API range_start_a(const char *message)
{
	nvtxRangeStartA_params params = { message };
	nvtxRangeId_t id = start_range(NULL, cupti_intern(message));

	report(CUPTI_CBID_NVTX_nvtxRangeStartA, "nvtxRangeStartA", &params, &id);
	return id;
}

static nvtxRangeId_t NVTX_API range_start_w(const wchar_t *message)
{
	nvtxRangeStartW_params params = { message };
	nvtxRangeId_t id = start_range(NULL, narrow(message));

	report(CUPTI_CBID_NVTX_nvtxRangeStartW, "nvtxRangeStartW", &params, &id);
	return id;
}

static void NVTX_API range_end(nvtxRangeId_t id)
{
	nvtxRangeEnd_params params = { id };

	end_range(NULL, id);
	report(CUPTI_CBID_NVTX_nvtxRangeEnd, "nvtxRangeEnd", &params, NULL);
}

static int NVTX_API range_push_ex(const nvtxEventAttributes_t *eventAttrib)
{
	nvtxRangePushEx_params params = { eventAttrib };
	int level = push(NULL, event_message(eventAttrib));

	report(CUPTI_CBID_NVTX_nvtxRangePushEx, "nvtxRangePushEx", &params, &level);
	return level;
}

static int NVTX_API range_push_a(const char *message)
{
	nvtxRangePushA_params params = { message };
	int level = push(NULL, cupti_intern(message));

	report(CUPTI_CBID_NVTX_nvtxRangePushA, "nvtxRangePushA", &params, &level);
	return level;
}

static int NVTX_API range_push_w(const wchar_t *message)
{
	nvtxRangePushW_params params = { message };
	int level = push(NULL, narrow(message));

	report(CUPTI_CBID_NVTX_nvtxRangePushW, "nvtxRangePushW", &params, &level);
	return level;
}

static int NVTX_API range_pop(void)
{
	nvtxRangePop_params params = { NULL };
	int level = pop(NULL);

	report(CUPTI_CBID_NVTX_nvtxRangePop, "nvtxRangePop", &params, &level);
	return level;
}

/* ------------------------------------------------------------ CORE2 */

static void NVTX_API domain_mark_ex(nvtxDomainHandle_t domain,
                                    const nvtxEventAttributes_t *eventAttrib)
{
	nvtxDomainMarkEx_params params = { domain, { eventAttrib } };

	mark(domain, event_message(eventAttrib));
	report(CUPTI_CBID_NVTX_nvtxDomainMarkEx, "nvtxDomainMarkEx", &params, NULL);
}

static nvtxRangeId_t NVTX_API domain_range_start_ex(nvtxDomainHandle_t domain,
                                                    const nvtxEventAttributes_t *eventAttrib)
{
	nvtxDomainRangeStartEx_params params = { domain, { eventAttrib } };
	nvtxRangeId_t id = start_range(domain, event_message(eventAttrib));

	report(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, "nvtxDomainRangeStartEx", &params, &id);
	return id;
}

static void NVTX_API domain_range_end(nvtxDomainHandle_t domain, nvtxRangeId_t id)
{
	nvtxDomainRangeEnd_params params = { domain, { id } };

	end_range(domain, id);
	report(CUPTI_CBID_NVTX_nvtxDomainRangeEnd, "nvtxDomainRangeEnd", &params, NULL);
}

static int NVTX_API domain_range_push_ex(nvtxDomainHandle_t domain,
                                         const nvtxEventAttributes_t *eventAttrib)
{
	nvtxDomainRangePushEx_params params = { domain, { eventAttrib } };
	int level = push(domain, event_message(eventAttrib));

	report(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, "nvtxDomainRangePushEx", &params, &level);
	return level;
}

static int NVTX_API domain_range_pop(nvtxDomainHandle_t domain)
{
	nvtxDomainRangePop_params params = { domain };
	int level = pop(domain);

	report(CUPTI_CBID_NVTX_nvtxDomainRangePop, "nvtxDomainRangePop", &params, &level);
	return level;
}

/* A new handle per call ("A handle representing the registered string"). */
static nvtxStringHandle_t register_string(const char *text)
{
	struct nvtxStringRegistration_st *handle = calloc(1, sizeof(*handle));

	if (!handle)
		return NULL;
	handle->string = text;
	if (!remember_handle(handle)) {
		free(handle);
		return NULL;
	}
	return handle;
}

static nvtxStringHandle_t NVTX_API domain_register_string_a(nvtxDomainHandle_t domain,
                                                            const char *string)
{
	nvtxDomainRegisterStringA_params params = { domain, string };
	nvtxStringHandle_t handle = string ? register_string(cupti_intern(string)) : NULL;

	report(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, "nvtxDomainRegisterStringA", &params,
	       &handle);
	return handle;
}

/* generated_nvtx_meta.h declares this one's string as const char *. */
static nvtxStringHandle_t NVTX_API domain_register_string_w(nvtxDomainHandle_t domain,
                                                            const wchar_t *string)
{
	nvtxDomainRegisterStringW_params params = { domain, (const char *)string };
	nvtxStringHandle_t handle = string ? register_string(narrow(string)) : NULL;

	report(CUPTI_CBID_NVTX_nvtxDomainRegisterStringW, "nvtxDomainRegisterStringW", &params,
	       &handle);
	return handle;
}

static nvtxDomainHandle_t create_domain(const char *name)
{
	struct nvtxDomainRegistration_st *handle = calloc(1, sizeof(*handle));

	if (!handle)
		return NULL;
	handle->name = name;
	if (!remember_handle(handle)) {
		free(handle);
		return NULL;
	}
	return handle;
}

static nvtxDomainHandle_t NVTX_API domain_create_a(const char *name)
{
	nvtxDomainCreateA_params params = { name };
	nvtxDomainHandle_t handle = create_domain(cupti_intern(name));

	report(CUPTI_CBID_NVTX_nvtxDomainCreateA, "nvtxDomainCreateA", &params, &handle);
	return handle;
}

/* generated_nvtx_meta.h has no struct for it: the same shape, wide. */
struct domain_create_w_params {
	const wchar_t *name;
};

static nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t *name)
{
	struct domain_create_w_params params = { name };
	nvtxDomainHandle_t handle = create_domain(narrow(name));

	report(CUPTI_CBID_NVTX_nvtxDomainCreateW, "nvtxDomainCreateW", &params, &handle);
	return handle;
}

static void NVTX_API domain_destroy(nvtxDomainHandle_t domain)
{
	nvtxDomainDestroy_params params = { domain };

	report(CUPTI_CBID_NVTX_nvtxDomainDestroy, "nvtxDomainDestroy", &params, NULL);
}

/* ------------------------------------------------------------ injection */

struct slot {
	unsigned id;
	NvtxFunctionPointer function;
};

#define SLOT(id, function)                          \
	{                                           \
		id, (NvtxFunctionPointer)(function) \
	}

static const struct slot core_slots[] = {
	SLOT(NVTX_CBID_CORE_MarkEx, mark_ex),
	SLOT(NVTX_CBID_CORE_MarkA, mark_a),
	SLOT(NVTX_CBID_CORE_MarkW, mark_w),
	SLOT(NVTX_CBID_CORE_RangeStartEx, range_start_ex),
	SLOT(NVTX_CBID_CORE_RangeStartA, range_start_a),
	SLOT(NVTX_CBID_CORE_RangeStartW, range_start_w),
	SLOT(NVTX_CBID_CORE_RangeEnd, range_end),
	SLOT(NVTX_CBID_CORE_RangePushEx, range_push_ex),
	SLOT(NVTX_CBID_CORE_RangePushA, range_push_a),
	SLOT(NVTX_CBID_CORE_RangePushW, range_push_w),
	SLOT(NVTX_CBID_CORE_RangePop, range_pop),
};

static const struct slot core2_slots[] = {
	SLOT(NVTX_CBID_CORE2_DomainMarkEx, domain_mark_ex),
	SLOT(NVTX_CBID_CORE2_DomainRangeStartEx, domain_range_start_ex),
	SLOT(NVTX_CBID_CORE2_DomainRangeEnd, domain_range_end),
	SLOT(NVTX_CBID_CORE2_DomainRangePushEx, domain_range_push_ex),
	SLOT(NVTX_CBID_CORE2_DomainRangePop, domain_range_pop),
	SLOT(NVTX_CBID_CORE2_DomainRegisterStringA, domain_register_string_a),
	SLOT(NVTX_CBID_CORE2_DomainRegisterStringW, domain_register_string_w),
	SLOT(NVTX_CBID_CORE2_DomainCreateA, domain_create_a),
	SLOT(NVTX_CBID_CORE2_DomainCreateW, domain_create_w),
	SLOT(NVTX_CBID_CORE2_DomainDestroy, domain_destroy),
};

/* "*out_size = number of slots - 1", slot 0 unused; a tool writes
 * *table[id] (nvtxImpl.h, nvtxEtiGetModuleFunctionTable). */
static bool fill_module(const NvtxExportTableCallbacks *callbacks, NvtxCallbackModule module,
                        const struct slot *slots, size_t slot_count)
{
	NvtxFunctionTable table = NULL;
	unsigned int size = 0;

	if (!callbacks->GetModuleFunctionTable(module, &table, &size) || !table)
		return false;
	for (size_t i = 0; i < slot_count; i++)
		if (slots[i].id <= size && table[slots[i].id])
			*table[slots[i].id] = slots[i].function;
	return true;
}

static void announce_version(NvtxGetExportTableFunc_t get_export_table)
{
	const NvtxExportTableVersionInfo *info = get_export_table(NVTX_ETID_VERSIONINFO);

	if (info &&
	    info->struct_size >= offsetof(NvtxExportTableVersionInfo, SetInjectionNvtxVersion) +
	                             sizeof(info->SetInjectionNvtxVersion) &&
	    info->SetInjectionNvtxVersion)
		info->SetInjectionNvtxVersion(NVTX_VERSION);
}

static CUptiResult initialize(void *pfnGetExportTable)
{
	NvtxGetExportTableFunc_t get_export_table;
	const NvtxExportTableCallbacks *callbacks;

	if (!pfnGetExportTable)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*(void **)&get_export_table = pfnGetExportTable;
	callbacks = get_export_table(NVTX_ETID_CALLBACKS);
	if (!callbacks ||
	    callbacks->struct_size < offsetof(NvtxExportTableCallbacks, GetModuleFunctionTable) +
	                                 sizeof(callbacks->GetModuleFunctionTable) ||
	    !callbacks->GetModuleFunctionTable)
		return CUPTI_ERROR_NOT_COMPATIBLE;
	announce_version(get_export_table);
	if (!fill_module(callbacks, NVTX_CB_MODULE_CORE, core_slots,
	                 sizeof(core_slots) / sizeof(core_slots[0])))
		return CUPTI_ERROR_NOT_COMPATIBLE;
	/* NVTX before v2 has no CORE2: the core functions still work. */
	fill_module(callbacks, NVTX_CB_MODULE_CORE2, core2_slots,
	            sizeof(core2_slots) / sizeof(core2_slots[0]));
	return CUPTI_SUCCESS;
}

/* Exported by the real libcupti.so.13 (nm -D) but declared in no header;
 * the CUPTI manual, "NVTX", tells tools to forward to it. */
SIM_EXPORT CUptiResult CUPTIAPI cuptiNvtxInitialize2(void *pfnGetExportTable);
SIM_EXPORT CUptiResult CUPTIAPI cuptiNvtxInitialize(void *pfnGetExportTable);
SIM_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable);
SIM_EXPORT int InitializeInjectionNvtx(NvtxGetExportTableFunc_t getExportTable);

SIM_EXPORT CUptiResult CUPTIAPI cuptiNvtxInitialize2(void *pfnGetExportTable)
{
	return cupti_status(initialize(pfnGetExportTable));
}

/* The v1 entry point takes the same export-table getter (as tools that
 * forward it to InitializeInjectionNvtx2 assume). */
SIM_EXPORT CUptiResult CUPTIAPI cuptiNvtxInitialize(void *pfnGetExportTable)
{
	return cupti_status(initialize(pfnGetExportTable));
}

/* NVTX_INJECTION64_PATH may name libcupti itself: non-zero is success. */
SIM_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable)
{
	void *getter;

	*(NvtxGetExportTableFunc_t *)&getter = getExportTable;
	return cuptiNvtxInitialize2(getter) == CUPTI_SUCCESS;
}

SIM_EXPORT int InitializeInjectionNvtx(NvtxGetExportTableFunc_t getExportTable)
{
	void *getter;

	*(NvtxGetExportTableFunc_t *)&getter = getExportTable;
	return cuptiNvtxInitialize(getter) == CUPTI_SUCCESS;
}
