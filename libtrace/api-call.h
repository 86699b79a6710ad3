/* SPDX-License-Identifier: MIT */
/*
 * api-call.h - the traced call as the per-family handlers see it, and how
 * they bind to CUPTI callback ids.
 *
 * Semantic events come from the outermost traced call on a thread, at its
 * EXIT (doc/events.md, invariant 1). Its state lives in thread-local storage
 * from ENTER to EXIT: driver calls nested inside it (when the driver reports
 * them) may add detail, and a free removes its range from the tracker at
 * ENTER, before another thread can be given the same address.
 */
#ifndef CUDATRACE_API_CALL_H
#define CUDATRACE_API_CALL_H

#include <stdbool.h>
#include <stdint.h>
#include <cupti.h>

#include "event-payloads.h"
#include "tracker.h"

/* Ranges a single call may free (cuMemUnmap over several mappings). */
#define CALL_FREED_MAX 16

struct launch_config {
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_mem;
	CUstream stream;
	const char *symbol; /* kernel name CUPTI gave the launch, or NULL */
	bool known;
};

struct api_call {
	const CUpti_CallbackData *data; /* the current callback's data */
	const struct api_binding *binding;
	const char *name;   /* static, from CUPTI */
	const char *symbol; /* kernel name of a launch, from CUPTI */
	struct api_ref ref;
	int32_t result;  /* at EXIT */
	bool per_thread; /* a _ptsz/_ptds variant */

	/* Launch configuration reported by a nested driver launch. */
	struct launch_config nested_launch;

	/* Ranges removed from the tracker at ENTER; re-inserted if the call
	 * fails, reported at EXIT if it succeeds. */
	unsigned freed_count;
	struct tracker_entry freed[CALL_FREED_MAX];
	bool free_was_null;
};

enum binding_flag {
	BIND_PER_THREAD = 1u << 0, /* default stream is per-thread */
	BIND_FLUSH = 1u << 1,      /* force an activity flush at ENTER */
	BIND_SYNC = 1u << 2,       /* collects SYNCHRONIZE callbacks */
};

struct api_binding {
	uint8_t domain;
	uint16_t cbid;
	uint8_t flags;
	/* At ENTER; nested is true when an outer traced call is active (then
	 * call is that outer call). May be NULL. */
	void (*on_enter)(struct api_call *call, const CUpti_CallbackData *data, bool nested);
	/* At EXIT of the outermost call. May be NULL. */
	void (*on_exit)(struct api_call *call);
};

/* clang-format off */
#define BIND_DRIVER(id, flags, enter, exit) \
	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##id, (flags), (enter), (exit) }
#define BIND_RUNTIME(id, flags, enter, exit) \
	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##id, (flags), (enter), (exit) }
#define BIND_END { 0, 0, 0, NULL, NULL }
/* clang-format on */

/* The bindings of each family, each ended by BIND_END (domain 0). */
extern const struct api_binding alloc_bindings[];
extern const struct api_binding copy_bindings[];
extern const struct api_binding launch_bindings[];
extern const struct api_binding sync_bindings[];
extern const struct api_binding lifecycle_bindings[];

/* Helpers for the handlers (callbacks.c). */

/* Device of the call's context, or DEVICE_NONE. */
uint8_t call_device(const struct api_call *call);
/* CUPTI stream id of stream in the call's context (NULL: the default
 * stream of the call's variant), or STREAM_NONE. */
uint32_t call_stream(const struct api_call *call, CUstream stream);
/* Record the call's name (api_name) before an event refers to it. */
void call_note_name(const struct api_call *call);

static inline bool call_failed(const struct api_call *call)
{
	return call->result != 0;
}

#endif /* CUDATRACE_API_CALL_H */
