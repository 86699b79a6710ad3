/* SPDX-License-Identifier: MIT */
/*
 * callbacks.c - the CUPTI callback dispatcher.
 *
 * Driver and runtime callbacks are enabled by id (never whole domains, so
 * that hot calls such as cuCtxGetCurrent stay untraced) from the bindings
 * of each family (alloc.c, copy.c, launch.c, sync.c, resources.c).
 *
 * Each thread keeps, in TLS, the traced calls it is in (a short stack of
 * frames) and the state of the outermost one. Semantic events are emitted
 * by the outermost call at its EXIT, so there is exactly one per operation
 * whether or not the driver reports the calls a runtime call makes
 * (doc/events.md). A reentrancy flag drops any callback caused by
 * cudatrace's own work.
 *
 * The session watcher switches whole families of ids off and on
 * (callbacks_follow_sessions). A call whose family is switched off between
 * its ENTER and its EXIT never gets its EXIT: its frame is recognised as
 * stale and dropped before the thread's next traced call, and an EXIT
 * closes the innermost frame of its own binding, dropping any above it.
 */
#include <string.h>
#include <cupti.h>

#include "activity.h"
#include "api-call.h"
#include "callbacks.h"
#include "cudatrace-tp.h"
#include "domains.h"
#include "log.h"
#include "names.h"
#include "state.h"
#include "tracer.h"

#define CBID_TABLE_SIZE 1024
#define FRAMES_MAX      8

/*
 * The families of callback ids, each enabled as a set. Those with a
 * wanted() predicate are switched off while no session enables an event
 * they lead to (callbacks_follow_sessions); allocations and releases stay
 * on, so that the tracker knows every live allocation when a session
 * starts, and so do the calls that end contexts (rare, and they flush).
 */
struct family {
	const struct api_binding *bindings;
	bool (*wanted)(void);        /* NULL: always on */
	CUpti_CallbackDomain domain; /* a whole domain switched with it, or 0 */
};

static bool api_events_wanted(void)
{
	return config.api && (lttng_ust_tracepoint_enabled(cudatrace, api_entry) ||
	                      lttng_ust_tracepoint_enabled(cudatrace, api_exit));
}

static bool copies_wanted(void)
{
	return api_events_wanted() || lttng_ust_tracepoint_enabled(cudatrace, memcpy) ||
	       lttng_ust_tracepoint_enabled(cudatrace, memset);
}

static bool launches_wanted(void)
{
	return api_events_wanted() || lttng_ust_tracepoint_enabled(cudatrace, launch);
}

static bool syncs_wanted(void)
{
	return api_events_wanted() || lttng_ust_tracepoint_enabled(cudatrace, sync);
}

static const struct family families[] = {
	{ alloc_bindings, NULL, 0 },
	{ lifecycle_bindings, NULL, 0 },
	{ copy_bindings, copies_wanted, 0 },
	{ launch_bindings, launches_wanted, 0 },
	/* SYNCHRONIZE callbacks are folded into the sync calls around them:
	 * the two go together. */
	{ sync_bindings, syncs_wanted, CUPTI_CB_DOMAIN_SYNCHRONIZE },
	{ nvtx_event_bindings, nvtx_events_wanted, 0 },
};

#define FAMILY_COUNT (sizeof(families) / sizeof(families[0]))

/*
 * Whether each family is on, and how many times it was switched off. Set
 * by the session watcher only, read by every callback: on is stored before
 * the ids are enabled and cleared before they are disabled, and epoch is
 * counted up after, so that a call whose EXIT may be lost to a switch is
 * always recognised as such (frame_stale).
 */
static struct {
	bool on;
	unsigned epoch;
} switches[FAMILY_COUNT];

/* A traced call in progress on the thread. */
struct frame {
	const struct api_binding *binding;
	uint8_t family;
	unsigned epoch; /* of its family at ENTER; one less if it was off */
};

struct thread_state {
	unsigned depth; /* traced driver/runtime calls in progress */
	bool busy;      /* inside cudatrace's own handler */
	struct frame frames[FRAMES_MAX];
	struct api_call outer; /* frames[0]'s call */
};

static __thread struct thread_state thread_state;

/* [domain - 1][cbid] -> binding and family; filled before any callback is
 * enabled. */
struct dispatch {
	const struct api_binding *binding;
	uint8_t family;
};

static struct dispatch bindings[2][CBID_TABLE_SIZE];

static bool is_api_domain(unsigned domain)
{
	return domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API;
}

/* ------------------------------------------------------ handler helpers */

uint8_t call_device(const struct api_call *call)
{
	uint32_t device;

	if (cuptiGetDeviceId(call->data ? call->data->context : NULL, &device) != CUPTI_SUCCESS)
		return CT_DEVICE_NONE;
	return device8(device);
}

uint32_t call_stream(const struct api_call *call, CUstream stream)
{
	uint32_t id;
	uint8_t per_thread = stream == NULL && call->per_thread;

	if (cuptiGetStreamIdEx(call->data ? call->data->context : NULL, stream, per_thread, &id) !=
	    CUPTI_SUCCESS)
		return CT_STREAM_NONE;
	return id;
}

void call_note_name(const struct api_call *call)
{
	names_note_api(call->ref.domain, call->ref.cbid, call->name);
}

/* ----------------------------------------------------------- API domains */

static void call_begin(struct api_call *call, const struct api_binding *binding,
                       const CUpti_CallbackData *data)
{
	call->data = data;
	call->binding = binding;
	call->name = data->functionName;
	call->symbol = data->symbolName;
	call->ref = (struct ct_api_ref){
		.correlation_id = data->correlationId,
		.cbid = binding->cbid,
		.domain = binding->domain,
	};
	call->result = 0;
	call->per_thread = binding->flags & BIND_PER_THREAD;
	memset(&call->nested_launch, 0, sizeof(call->nested_launch));
	call->release.key = 0;
	call->release.count = 0;
}

/* A frame whose EXIT may have been lost: its family was switched off
 * since its ENTER (or while it entered). */
static bool frame_stale(const struct frame *frame)
{
	uint8_t f = frame->family;

	if (!families[f].wanted)
		return false;
	return !__atomic_load_n(&switches[f].on, __ATOMIC_SEQ_CST) ||
	       frame->epoch != __atomic_load_n(&switches[f].epoch, __ATOMIC_SEQ_CST);
}

/* Forget the calls from the first stale frame up: they have returned
 * unseen, and whatever the thread calls now is not nested in them. */
static void drop_stale(struct thread_state *ts)
{
	for (unsigned i = 0; i < ts->depth; i++) {
		if (frame_stale(&ts->frames[i])) {
			ts->depth = i;
			return;
		}
	}
}

static void push_frame(struct thread_state *ts, const struct api_binding *binding, uint8_t f)
{
	struct frame *frame = &ts->frames[ts->depth++];
	unsigned epoch = __atomic_load_n(&switches[f].epoch, __ATOMIC_SEQ_CST);

	frame->binding = binding;
	frame->family = f;
	frame->epoch = __atomic_load_n(&switches[f].on, __ATOMIC_SEQ_CST) ? epoch : epoch - 1;
}

static void api_enter(struct thread_state *ts, const struct api_binding *binding, uint8_t f,
                      const CUpti_CallbackData *data)
{
	bool nested;

	tracer_info_emit_once();
	drop_stale(ts);
	if (ts->depth == FRAMES_MAX) {
		log_debug("calls nested too deep: %s is not traced", data->functionName);
		return;
	}
	nested = ts->depth > 0;
	if (!nested)
		call_begin(&ts->outer, binding, data);
	push_frame(ts, binding, f);
	if (config.api && lttng_ust_tracepoint_enabled(cudatrace, api_entry)) {
		struct ct_ev_api_entry e = {
			.domain = binding->domain,
			.cbid = binding->cbid,
			.correlation_id = data->correlationId,
		};

		names_note_api(binding->domain, binding->cbid, data->functionName);
		lttng_ust_do_tracepoint(cudatrace, api_entry, &e);
	}
	if (binding->on_enter)
		binding->on_enter(&ts->outer, data, nested);
	if (!nested && (binding->flags & BIND_FLUSH))
		activity_flush(true);
}

/* The EXIT closes the innermost frame of its binding; frames above it
 * lost their EXIT (their family was switched off) and go with it. */
static void api_exit(struct thread_state *ts, const struct api_binding *binding,
                     const CUpti_CallbackData *data)
{
	int32_t result =
	    data->functionReturnValue ? *(const int32_t *)data->functionReturnValue : 0;
	unsigned i = ts->depth;

	while (i > 0 && ts->frames[i - 1].binding != binding)
		i--;
	if (i == 0) {
		log_debug("unmatched EXIT of %s", data->functionName);
		return;
	}
	ts->depth = i - 1;
	if (ts->depth == 0) {
		struct api_call *call = &ts->outer;

		call->data = data;
		call->result = result;
		if (!call->symbol)
			call->symbol = data->symbolName;
		if (binding->on_exit)
			binding->on_exit(call);
	}
	if (config.api && lttng_ust_tracepoint_enabled(cudatrace, api_exit)) {
		struct ct_ev_api_exit e = {
			.domain = binding->domain,
			.cbid = binding->cbid,
			.correlation_id = data->correlationId,
			.result = result,
		};

		lttng_ust_do_tracepoint(cudatrace, api_exit, &e);
	}
}

static void on_api(struct thread_state *ts, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                   const CUpti_CallbackData *data)
{
	const struct api_binding *binding;

	if (!is_api_domain(domain) || cbid >= CBID_TABLE_SIZE || !data)
		return;
	binding = bindings[domain - 1][cbid].binding;
	if (!binding)
		return;
	if (data->callbackSite == CUPTI_API_ENTER)
		api_enter(ts, binding, bindings[domain - 1][cbid].family, data);
	else
		api_exit(ts, binding, data);
}

/* The traced call the thread is in, for the other domains' callbacks. */
static struct api_call *current_call(struct thread_state *ts)
{
	drop_stale(ts);
	return ts->depth > 0 ? &ts->outer : NULL;
}

void CUPTIAPI callbacks_dispatch(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *cbdata)
{
	struct thread_state *ts = &thread_state;

	if (!tracer_active() || ts->busy)
		return;
	ts->busy = true;
	switch (domain) {
	case CUPTI_CB_DOMAIN_DRIVER_API:
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		on_api(ts, domain, cbid, cbdata);
		break;
	case CUPTI_CB_DOMAIN_RESOURCE:
		resource_callback(cbid, cbdata, current_call(ts));
		break;
	case CUPTI_CB_DOMAIN_SYNCHRONIZE:
		sync_callback(cbid, cbdata, current_call(ts));
		break;
	case CUPTI_CB_DOMAIN_NVTX:
		nvtx_callback(cbid, cbdata);
		break;
	default:
		break;
	}
	ts->busy = false;
}

/* ------------------------------------------------------------- enabling */

static int switch_family(uint8_t f, bool on)
{
	int switched = 0;

	for (const struct api_binding *b = families[f].bindings; b->domain != 0; b++) {
		CUptiResult status = cuptiEnableCallback(on, tracer.subscriber, b->domain, b->cbid);

		if (status != CUPTI_SUCCESS) {
			log_debug("cannot %s callback %u of domain %u (%d)",
			          on ? "enable" : "disable", b->cbid, b->domain, status);
			continue;
		}
		switched++;
	}
	if (families[f].domain != 0 &&
	    cuptiEnableDomain(on, tracer.subscriber, families[f].domain) != CUPTI_SUCCESS)
		log_debug("cannot %s callback domain %d", on ? "enable" : "disable",
		          families[f].domain);
	return switched;
}

CUptiResult callbacks_enable(void)
{
	/* SYNCHRONIZE goes with the sync family. */
	static const CUpti_CallbackDomain whole[] = {
		CUPTI_CB_DOMAIN_RESOURCE,
		CUPTI_CB_DOMAIN_NVTX,
	};
	CUptiResult last = CUPTI_SUCCESS;
	int enabled = 0;

	for (uint8_t f = 0; f < FAMILY_COUNT; f++) {
		for (const struct api_binding *b = families[f].bindings; b->domain != 0; b++) {
			if (is_api_domain(b->domain) && b->cbid < CBID_TABLE_SIZE)
				bindings[b->domain - 1][b->cbid] = (struct dispatch){ b, f };
		}
		switches[f].on = true;
	}
	for (uint8_t f = 0; f < FAMILY_COUNT; f++)
		enabled += switch_family(f, true);
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		CUptiResult status = cuptiEnableDomain(1, tracer.subscriber, whole[i]);

		if (status == CUPTI_SUCCESS) {
			enabled++;
			continue;
		}
		log_debug("cannot enable callback domain %d (%d)", whole[i], status);
		last = status;
	}
	return enabled > 0 ? CUPTI_SUCCESS : last;
}

void callbacks_follow_sessions(void)
{
	for (uint8_t f = 0; f < FAMILY_COUNT; f++) {
		bool on;

		if (!families[f].wanted)
			continue;
		on = families[f].wanted();
		if (on == __atomic_load_n(&switches[f].on, __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&switches[f].on, on, __ATOMIC_SEQ_CST);
		switch_family(f, on);
		if (!on)
			__atomic_add_fetch(&switches[f].epoch, 1, __ATOMIC_SEQ_CST);
	}
}
