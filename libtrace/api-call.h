/* SPDX-License-Identifier: MIT */
/*
 * api-call.h - the traced call as the per-family handlers see it, and how
 * they bind to CUPTI callback ids.
 *
 * Semantic events come from the outermost traced call on a thread, at its
 * EXIT (doc/events.md, invariant 1); a release's at its ENTER. Its state
 * lives in thread-local storage from ENTER to EXIT: driver calls nested
 * inside it (when the driver reports them) may add detail, and a release
 * removes what it frees from the tracker and says so at ENTER, before
 * another thread can be given the same address, and takes it back at EXIT
 * if the call failed.
 */
#ifndef CUDATRACE_API_CALL_H
#define CUDATRACE_API_CALL_H

#include <stdbool.h>
#include <stdint.h>
#include <cupti.h>

#include "field-values.h"
#include "handle-cache.h"
#include "names.h"
#include "repeats.h"
#include "tracker.h"

/* Mappings a single call may unmap (cuMemUnmap over several of them),
 * each of which may free its physical memory. */
#define CALL_UNMAP_MAX 16
#define CALL_FREED_MAX (2 * CALL_UNMAP_MAX)

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
	const char *name;           /* static, from CUPTI */
	const char *symbol;         /* kernel name of a launch, from CUPTI */
	struct handle_cache *cache; /* the thread's, kept from call to call */
	struct repeats *repeats;    /* the thread's */
	struct op_site *site;       /* the thread's (call-stack.h) */
	struct names_memo *names;   /* the thread's (names.h) */
	struct ct_api_ref ref;      /* entry: always 0 here (call_record) */
	uint64_t entry;             /* ns of CLOCK_MONOTONIC at ENTER */
	bool recorded;              /* an event recorded the call (call_record) */
	int32_t result;             /* at EXIT */
	bool per_thread;            /* a _ptsz/_ptds variant */

	/* Launch configuration reported by a nested driver launch. */
	struct launch_config nested_launch;

	/* A release: what its ENTER took out of the tracker, and said freed
	 * (mem_free), to be put back (mem_free_failed) if the call fails. */
	struct release {
		uint64_t key;     /* address or handle freed; 0: NULL, nothing */
		uint32_t stream;  /* CUPTI stream id of a stream-ordered release */
		uint8_t space;    /* enum tracker_space */
		uint8_t kind;     /* enum ct_mem_kind the call implies */
		bool dropped_ref; /* cuMemRelease: the handle lost a reference */
		unsigned count;
		uint32_t emitted;  /* freed[i] got its mem_free: bit i */
		uint32_t unmapped; /* freed[i], a mapping, counted off its physical memory */
		struct tracker_entry freed[CALL_FREED_MAX];
	} release;
};

enum binding_flag {
	BIND_PER_THREAD = 1u << 0, /* default stream is per-thread */
	BIND_FLUSH = 1u << 1,      /* force an activity flush at ENTER */
	BIND_SYNC = 1u << 2,       /* collects SYNCHRONIZE callbacks */
	BIND_WAIT = 1u << 3,       /* waits for the device by design: api_entry */
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
/* A call and its per-thread default stream variant (_ptsz, _ptds), with
 * the same handlers: BIND_DRIVER_PT(cuMemcpy, ptds, ...) binds cuMemcpy and
 * cuMemcpy_ptds; BIND_RUNTIME_PT(cudaMemcpy, v3020, ptds_v7000, ...)
 * binds cudaMemcpy_v3020 and cudaMemcpy_ptds_v7000. */
#define BIND_DRIVER_PT(id, variant, flags, enter, exit) \
	BIND_DRIVER(id, flags, enter, exit), \
	BIND_DRIVER(id##_##variant, (flags) | BIND_PER_THREAD, enter, exit)
#define BIND_RUNTIME_PT(name, version, variant, flags, enter, exit) \
	BIND_RUNTIME(name##_##version, flags, enter, exit), \
	BIND_RUNTIME(name##_##variant, (flags) | BIND_PER_THREAD, enter, exit)
#define BIND_NVTX(id) \
	{ CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_##id, 0, NULL, NULL }
#define BIND_END { 0, 0, 0, NULL, NULL }
/* clang-format on */

/*
 * A family of callback ids, enabled as a set: what a handler file gives the
 * dispatcher (callbacks.c), which knows the handlers only through these.
 * Those with a wanted() predicate are switched off while no session
 * enables an event they lead to (callbacks_follow_sessions).
 */
struct api_family {
	const struct api_binding *bindings; /* ended by BIND_END (domain 0) */
	bool (*wanted)(void);               /* NULL: always on */
	/* A callback domain other than the driver and runtime APIs whose
	 * callbacks the family handles (0: none): switched with the family's
	 * ids, or on all the time. outer is the traced call active on the
	 * thread, or NULL. */
	CUpti_CallbackDomain domain;
	bool domain_switched;
	void (*on_domain)(CUpti_CallbackId cbid, const void *data, struct api_call *outer);
	/* Its calls' events may be repeats, kept in their thread's run
	 * (repeats.h): the run is not written at their ENTER. */
	bool repeats;
};

extern const struct api_family alloc_family;        /* alloc.c */
extern const struct api_family lifecycle_family;    /* resources.c: contexts, streams, modules */
extern const struct api_family capture_family;      /* capture.c: stream capture */
extern const struct api_family copy_family;         /* copy.c: copies and memsets */
extern const struct api_family launch_family;       /* launch.c */
extern const struct api_family graph_launch_family; /* graph-launch.c */
extern const struct api_family host_func_family;    /* host-func.c: API calls only */
extern const struct api_family sync_family;         /* sync.c */
extern const struct api_family nvtx_family;         /* nvtx.c: ranges, marks, names */
extern const struct api_family module_load_family;  /* module-load.c: refused module loads */

/* Helpers for the handlers (api-call.c). */

#define PTR(p) ((uint64_t)(uintptr_t)(p))

/* The parameters of the call's current callback (a *_params struct). */
static inline const void *call_params(const struct api_call *call)
{
	return call->data->functionParams;
}

/* Device of the call's context, or CT_DEVICE_NONE. Inline, as the cache
 * that answers it (handle-cache.h). */
static inline uint8_t call_device(const struct api_call *call)
{
	uint32_t device;

	if (!handle_cache_device(call->cache, call->data ? call->data->context : NULL, &device))
		return CT_DEVICE_NONE;
	return device8(device);
}
/* CUPTI id of the call's context, or 0. */
uint32_t call_context(const struct api_call *call);
/* CUPTI stream id of stream in the call's context (NULL: the default
 * stream of the call's variant), or CT_STREAM_NONE. */
uint32_t call_stream(const struct api_call *call, CUstream stream);
/* The kernel_id of the kernel named symbol (names_kernel_id). */
static inline uint64_t call_kernel_id(const struct api_call *call, const char *symbol)
{
	return handle_cache_kernel(call->cache, symbol);
}
/* Record the call's name (api_name) before an event refers to it. */
void call_note_name(const struct api_call *call);

/*
 * The api reference of the semantic event that records the call (doc/
 * events.md, "Traced calls"): with the call's entry time when the call is
 * at its EXIT, succeeded and has no recording event yet (the call is then
 * recorded: no api_call follows), else with entry 0, as every other event
 * of the call has it.
 */
struct ct_api_ref call_record(struct api_call *call);

/* Whether api_call or api_entry is recorded: every traced call is then
 * wanted, whatever it does. */
bool api_events_wanted(void);

static inline bool call_failed(const struct api_call *call)
{
	return call->result != 0;
}

#endif /* CUDATRACE_API_CALL_H */
