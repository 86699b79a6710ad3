/* SPDX-License-Identifier: MIT */
/*
 * events.h - the C view of cudatrace's event contract (events.def): the
 * enumerations, the event types and the payload of each event, shared by
 * the tracer, which fills a payload and hands it to its tracepoint, and by
 * the analyzers, which decode a trace's events into the same structs.
 *
 * Everything here but struct ct_api_ref and the flag and group constants
 * is generated from events.def by the preprocessor.
 */
#ifndef CUDATRACE_CONTRACT_EVENTS_H
#define CUDATRACE_CONTRACT_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <strings.h>

#include "mix64.h"

/* The LTTng-UST provider, and the prefix of its event names in a trace. */
#define CT_PROVIDER_NAME   "cudatrace"
#define CT_PROVIDER_PREFIX CT_PROVIDER_NAME ":"

/*
 * The channel `cudatrace record` writes the GPU group (gpu_*) in, apart
 * from the program's events; LTTng names its stream files after it, then
 * "_" and the CPU's number.
 */
#define CT_GPU_CHANNEL "cudatrace-gpu"

/*
 * The application context the tracer provides: $app.cudatrace:session is
 * the value of CUDATRACE_SESSION in the process, which its descendants
 * inherit. cudatrace record filters its session on it to record a process
 * tree from each process's first event.
 */
#define CT_APP_CONTEXT_PROVIDER "$app." CT_PROVIDER_NAME
#define CT_APP_CONTEXT_SESSION  CT_APP_CONTEXT_PROVIDER ":session"
#define CT_SESSION_ENV          "CUDATRACE_SESSION"

/*
 * $app.cudatrace_key:session, the same value as a number: ct_session_key
 * of the string (0 when CUDATRACE_SESSION is unset). cudatrace record
 * filters on it, since lttng-ust's filter compares a number in a few
 * instructions but a string a character at a time, on every event: about
 * 1,200 instructions an event for a session's name.
 */
#define CT_APP_CONTEXT_KEY_PROVIDER "$app." CT_PROVIDER_NAME "_key"
#define CT_APP_CONTEXT_SESSION_KEY  CT_APP_CONTEXT_KEY_PROVIDER ":session"

/* NAME's key: FNV-1a over its bytes, mixed, kept positive and non-zero
 * (a filter's literal is a positive decimal number). */
static inline int64_t ct_session_key(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return (int64_t)(ct_mix64(h) >> 2) | 1;
}

/* The most frames a call_stack event holds (CUDATRACE_STACK_DEPTH). */
#define CT_STACK_FRAMES_MAX 128

/* The most records a gpu_batch holds. Its event stays within a few KiB,
 * far below a sub-buffer: with every column counted at this length, as
 * cli/event-size.c counts them (a record has the columns of its kind
 * only), the largest event still fits the smallest sub-buffer record
 * takes (4 KiB). */
#define CT_GPU_BATCH_MAX 96

/* The most calls a repeat_run holds: a thread's repeats written as one
 * event, 64 of them in about 1,320 bytes (cli/event-size.c), below a
 * sub-buffer. The 750 instructions lttng-ust takes to reserve and commit
 * an event, and the writing of its fields, are shared by its calls. */
#define CT_REPEAT_RUN_MAX 64

/* The values a repeat_run's moved column holds for a call (its index,
 * base, src, dst, bytes), the moved calls a run holds at most (a run of
 * 48 moved calls and 16 others takes about 3,500 bytes with its
 * contexts, and fits the smallest sub-buffer record takes, 4 KiB), and
 * the column's length at most. */
#define CT_REPEAT_RUN_MOVED_VALUES 5
#define CT_REPEAT_RUN_MOVED_CALLS  48
#define CT_REPEAT_RUN_MOVED_MAX    (CT_REPEAT_RUN_MOVED_VALUES * CT_REPEAT_RUN_MOVED_CALLS)

/* The longest kernel name a kernel_name event holds, or CUDATRACE_MAX_STRING
 * when that is more. The name is written once per kernel and process, so
 * its length costs nothing per call, and C++ kernels' mangled names
 * (PyTorch's templates: 300 to 1,000 bytes) cut at CUDATRACE_MAX_STRING
 * could no longer be demangled. The event (cli/event-size.c) still fits
 * the smallest sub-buffer record takes, 4 KiB. */
#define CT_KERNEL_NAME_MAX 2048

/* Devices and streams that do not apply or are unknown. */
#define CT_DEVICE_NONE 255u
#define CT_STREAM_NONE UINT32_MAX

/* Flags of the mem_kind values (events.def). */
#define CT_MEM_FLAG_HOST   1u /* host memory: pinned or registered */
#define CT_MEM_FLAG_DEVICE 2u /* its bytes count as device memory */

/* The storage of each integer type of events.def. */
#define CT_CTYPE_U8  uint8_t
#define CT_CTYPE_U16 uint16_t
#define CT_CTYPE_U32 uint32_t
#define CT_CTYPE_U64 uint64_t
#define CT_CTYPE_I32 int32_t
#define CT_CTYPE_I64 int64_t
#define CT_CTYPE_X8  uint8_t
#define CT_CTYPE_X32 uint32_t
#define CT_CTYPE_X64 uint64_t

/* ------------------------------------------------------------ enumerations */

/* enum ct_<name> { CT_<IDENT> = value, ... } */
/* clang-format off */
#define CT_VALUE(ident, label, value, flags) CT_##ident = (value),
#define CT_ENUM(name, values) enum ct_##name { values };
/* clang-format on */
#include "events.def"

/* CT_ENUM_COUNT(name): one more than the largest value of enumeration name. */
#define CT_ENUM_COUNT(name)                  ct_enum_count_##name
#define CT_VALUE(ident, label, value, flags) [value] = 0,
#define CT_ENUM(name, values)                enum { CT_ENUM_COUNT(name) = sizeof((const char[]){ values }) };
#include "events.def"

/* ct_<name>_flags(v): the flags of value v of enumeration name, 0 if none. */
#define CT_VALUE(ident, label, value, flags) \
	case (value):                        \
		return (flags);
#define CT_ENUM(name, values)                                \
	static inline unsigned ct_##name##_flags(unsigned v) \
	{                                                    \
		switch (v) {                                 \
			values default : return 0;           \
		}                                            \
	}
#include "events.def"

/* Pinned or registered host memory. */
static inline bool ct_mem_kind_is_host(unsigned kind)
{
	return (ct_mem_kind_flags(kind) & CT_MEM_FLAG_HOST) != 0;
}

/* Memory whose bytes count as device memory (device, pitch, managed, async,
 * vmm_physical); a vmm_map is an address range, not bytes of its own. */
static inline bool ct_mem_kind_on_device(unsigned kind)
{
	return (ct_mem_kind_flags(kind) & CT_MEM_FLAG_DEVICE) != 0;
}

/* Whether RESULT, a traced call's return code, is a failure. Neither
 * success (0), a query's "not yet" (600: cudaErrorNotReady,
 * CUDA_ERROR_NOT_READY) nor the runtime unloading at exit (4:
 * cudaErrorCudartUnloading, CUDA_ERROR_DEINITIALIZED) is one. The tracer
 * notes the call site of exactly the failures the analyzers name. */
static inline bool ct_result_is_failure(int32_t result)
{
	return result != 0 && result != 600 && result != 4;
}

/* Whether RESULT, an allocation's failure, says the memory could not be had:
 * 2 in both enums (cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY).
 * Any other error failed the call for another reason: an argument, or a
 * sticky error of an earlier kernel that every later call returns. */
static inline bool ct_result_is_out_of_memory(int32_t result)
{
	return result == 2;
}

/* ------------------------------------------------------------ events */

/* The event types, in the order of events.def. */
enum ct_event_type {
	CT_EV_NONE = 0, /* not a cudatrace event */
#define CT_EVENT(ident, name, layout, group) CT_EV_##ident,
#include "events.def"
	CT_EV_COUNT
};

/* A set of event types: a bit for each (CT_EV_BIT). */
__extension__ typedef unsigned __int128 ct_ev_set;
#define CT_EV_BIT(type) ((ct_ev_set)1 << (type))
_Static_assert(CT_EV_COUNT <= 128, "event sets are 128-bit masks");

/* The groups of events.def. */
enum ct_event_group {
	CT_GROUP_API,      /* api_call, api_entry */
	CT_GROUP_CALL,     /* one semantic event per operation */
	CT_GROUP_GPU,      /* activity records */
	CT_GROUP_NVTX,     /* NVTX ranges and marks */
	CT_GROUP_NAME,     /* names recorded once */
	CT_GROUP_RESOURCE, /* contexts, streams, modules */
	CT_GROUP_STATE,    /* the live set, dumped */
	CT_GROUP_TRACER,   /* about the tracing itself */
	CT_GROUP_CELL,     /* the cells a notebook kernel runs */
	CT_GROUP_PYTHON,   /* what the Python probe says */
};

/* What an event keeps through the filters (CT_KEEP, events.def). */
enum ct_keep {
	CT_KEEP_BEFORE_WINDOW = 1u << 0, /* reaches the analyses before the time window, marked */
	CT_KEEP_ANY_RANGE = 1u << 1,     /* never dropped by the NVTX range filter */
};

/* A set of event groups. */
#define CT_GROUP_BIT(group) (UINT32_C(1) << (group))

/* ------------------------------------------------------------ activity kinds */

/* The activity kinds as bits of tracer_info's activity_kinds. */
enum ct_activity_bit {
#define CT_ACTIVITY(ident, name, bit) CT_ACT_##ident = 1u << (bit),
#include "events.def"
};

/* Every activity kind. */
#define CT_ACTIVITY(ident, name, bit) | CT_ACT_##ident
enum {
	CT_ACT_ALL = 0
#include "events.def"
};

/* The bit of the activity kind called NAME (ASCII case ignored), 0 if none. */
static inline uint32_t ct_activity_bit(const char *name)
{
#define CT_ACTIVITY(ident, name_, bit) \
	if (!strcasecmp(name, #name_)) \
		return CT_ACT_##ident;
#include "events.def"
	return 0;
}

/* ------------------------------------------------------------ payloads */

/* The call behind a semantic host event: the outermost traced call on its
 * thread, written as the fields api_domain, api_cbid, correlation_id and
 * (CT_API_REF) entry. */
struct ct_api_ref {
	uint8_t domain; /* enum ct_domain */
	uint16_t cbid;
	uint32_t correlation_id;
	uint64_t entry; /* ns of CLOCK_MONOTONIC when the event records the call, else 0 */
};

/* struct ct_ev_<layout>: the fields of its events, in their order. */
#define CT_FIELD(type, name, need)      CT_CTYPE_##type name;
#define CT_ENUM_FIELD(enum, name, need) uint8_t name;
#define CT_TEXT(name, need) \
	const char *name;   \
	uint16_t name##_len;
#define CT_STRING(name, need)             const char *name;
#define CT_ARRAY(type, name, count, need) CT_CTYPE_##type name[count];
#define CT_SEQ(type, name, max, need) \
	const CT_CTYPE_##type *name;  \
	uint16_t name##_count;
#define CT_MEMBER(ctype, member) ctype member;
#define CT_LAYOUT(name, fields) \
	struct ct_ev_##name {   \
		fields          \
	};
#include "events.def"

#endif /* CUDATRACE_CONTRACT_EVENTS_H */
