/* SPDX-License-Identifier: MIT */
/*
 * callbacks.c - the CUPTI callback dispatcher.
 *
 * Driver and runtime callbacks are enabled by id (never whole domains, so
 * that hot calls such as cuCtxGetCurrent stay untraced) from the bindings
 * of each family (alloc.c, capture.c, copy.c, launch.c, graph-launch.c,
 * host-func.c, sync.c, resources.c).
 *
 * Each thread keeps, in TLS, the traced calls it is in (a short stack of
 * frames) and the state of the outermost one. Semantic events are emitted
 * by the outermost call at its EXIT, so there is exactly one per operation
 * whether or not the driver reports the calls a runtime call makes
 * (doc/events.md). Each traced call is recorded once, at its EXIT: by the
 * semantic event that carries its entry time (call_record), or else by an
 * api_call; a call that waits for the device also has its api_entry. A
 * reentrancy flag drops any callback caused by cudatrace's own work.
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
#include "clock.h"
#include "exit-gate.h"
#include "call-stack.h"
#include "callbacks.h"
#include "cudatrace-tp.h"
#include "contract/assert.h"
#include "contract/events.h"
#include "log.h"
#include "names.h"
#include "state.h"
#include "tracer.h"

#define CBID_TABLE_SIZE 1024
#define FRAMES_MAX      8

/*
 * The families, in the order their ids are enabled. Allocations and
 * releases stay on, so that the tracker knows every live allocation when a
 * session starts, and so do the calls that end contexts (rare, and they
 * flush) and those that begin, join and end stream captures (capture.c),
 * before the work that asks whether its stream is capturing.
 */
static const struct api_family *const families[] = {
	&alloc_family,        &lifecycle_family, &capture_family, &copy_family, &launch_family,
	&graph_launch_family, &host_func_family, &sync_family,    &nvtx_family, &module_load_family,
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
	uint64_t entry; /* ns of CLOCK_MONOTONIC at ENTER */
};

struct thread_state {
	unsigned depth; /* traced driver/runtime calls in progress */
	bool busy;      /* inside cudatrace's own handler */
	struct exit_gate_thread gate;
	struct frame frames[FRAMES_MAX];
	struct api_call outer; /* frames[0]'s call */
	struct handle_cache cache;
	struct repeats repeats;
	struct op_site site;
	struct names_memo names;
};

/*
 * Global-dynamic TLS, as the module is dlopened by CUDA: each access to it
 * is a call to __tls_get_addr. The initial-exec model lttng-ust uses
 * would make it a load, but a dlopened library's initial-exec TLS must fit
 * in the surplus of static TLS glibc reserves at start-up, shared by every
 * such library the process loads (lttng-ust's among them): with this
 * state (about 40 KiB: 33 of them the repeats' slots and their last
 * ways, 4 the stacks of its Python lines; 2.5 without)
 * initial-exec, the dlopen fails ("cannot allocate
 * memory in static TLS block") and the program runs untraced; even a
 * pointer would make loading the tracer depend on what else the program
 * loaded first. So each callback reaches the thread's state once
 * (thread_state_get) and passes the pointer on. Counted with callgrind
 * (tools/bench-callgrind, a copy and a launch a round): cudatrace's own
 * code made 4.5 calls to __tls_get_addr a callback (GCC recomputes a TLS
 * address after each call rather than keep it), 1 now; lttng-ust makes
 * about 9 more for each event it writes.
 */
static __thread struct thread_state thread_state;

/* The thread's state, once per callback: the empty asm hides where the
 * pointer comes from, so that GCC keeps it instead of recomputing it. */
static struct thread_state *thread_state_get(void)
{
	struct thread_state *ts = &thread_state;

	__asm__("" : "+r"(ts));
	return ts;
}

/* [domain - 1][cbid] -> binding and family; filled before any callback is
 * enabled. */
struct dispatch {
	const struct api_binding *binding;
	uint8_t family;
};

static struct dispatch bindings[2][CBID_TABLE_SIZE];

/* The handler of each other callback domain; filled with bindings. */
static void (*domain_handlers[CUPTI_CB_DOMAIN_SIZE])(CUpti_CallbackId cbid, const void *data,
                                                     struct api_call *outer);

static bool is_api_domain(unsigned domain)
{
	return domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API;
}

/* ----------------------------------------------------------- API domains */

static void call_begin(struct api_call *call, struct thread_state *ts,
                       const struct api_binding *binding, const CUpti_CallbackData *data,
                       uint64_t entry)
{
	call->data = data;
	call->cache = &ts->cache;
	call->repeats = &ts->repeats;
	call->site = &ts->site;
	call->names = &ts->names;
	call->binding = binding;
	call->name = data->functionName;
	call->symbol = data->symbolName;
	call->ref = (struct ct_api_ref){
		.correlation_id = data->correlationId,
		.cbid = binding->cbid,
		.domain = binding->domain,
	};
	call->entry = entry;
	call->recorded = false;
	call->result = 0;
	call->per_thread = binding->flags & BIND_PER_THREAD;
	/* what a nested launch tells: config_set fills the rest with known */
	call->nested_launch.known = false;
	call->nested_launch.symbol = NULL;
	call->release.key = 0;
	call->release.count = 0;
	call->release.dropped_ref = false;
}

/* A frame whose EXIT may have been lost: its family was switched off
 * since its ENTER (or while it entered). */
static bool frame_stale(const struct frame *frame)
{
	uint8_t f = frame->family;

	if (!families[f]->wanted)
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

static void push_frame(struct thread_state *ts, const struct api_binding *binding, uint8_t f,
                       uint64_t entry)
{
	struct frame *frame;
	unsigned epoch = __atomic_load_n(&switches[f].epoch, __ATOMIC_SEQ_CST);

	CT_ASSERT_DBG(ts->depth < FRAMES_MAX && f < FAMILY_COUNT);
	frame = &ts->frames[ts->depth++];

	frame->binding = binding;
	frame->family = f;
	frame->entry = entry;
	frame->epoch = __atomic_load_n(&switches[f].on, __ATOMIC_SEQ_CST) ? epoch : epoch - 1;
}

static void api_enter(struct thread_state *ts, const struct api_binding *binding, uint8_t f,
                      const CUpti_CallbackData *data)
{
	uint64_t entry;
	bool nested;

	if (ts->depth > 0)
		drop_stale(ts);
	nested = ts->depth > 0;
	/* before CUDA does anything: the process may be exiting */
	if (!nested)
		exit_gate_enter(&ts->gate,
		                binding->flags & BIND_WAIT ? EXIT_GATE_WAIT : EXIT_GATE_CALL);
	entry = clock_now_ns();
	tracer_info_emit_once();
	/* what the thread kept goes first: this call may write events */
	if (!families[f]->repeats || (binding->flags & BIND_WAIT))
		repeats_flush(&ts->repeats);
	if (ts->depth == FRAMES_MAX) {
		log_debug("calls nested too deep: %s is not traced", data->functionName);
		return;
	}
	if (!nested)
		call_begin(&ts->outer, ts, binding, data, entry);
	push_frame(ts, binding, f, entry);
	/* A wait is seen while it waits: a process that dies or hangs in it
	 * is still known to be inside it (doc/events.md, api_entry). */
	if ((binding->flags & BIND_WAIT) && config.api &&
	    lttng_ust_tracepoint_enabled(cudatrace, api_entry)) {
		struct ct_ev_api_entry e = {
			.domain = binding->domain,
			.cbid = binding->cbid,
			.correlation_id = data->correlationId,
		};

		/* where it waits from, for a process that never returns from it */
		call_stack_note_operation(&ts->outer, data->correlationId);
		names_note_api(&ts->names, binding->domain, binding->cbid, data->functionName);
		lttng_ust_do_tracepoint(cudatrace, api_entry, &e);
	}
	if (binding->on_enter)
		binding->on_enter(&ts->outer, data, nested);
	if (!nested && (binding->flags & BIND_FLUSH))
		activity_flush(true);
}

/* The result is read as the int32 the events record; a CUresult and a
 * cudaError_t share the values ct_result_is_failure() knows. */
_Static_assert(sizeof(CUresult) == sizeof(int32_t), "a CUresult is an int32");
_Static_assert(sizeof(cudaError_t) == sizeof(int32_t), "a cudaError_t is an int32");

/* The EXIT closes the innermost frame of its binding; frames above it
 * lost their EXIT (their family was switched off) and go with it. */
static void api_exit(struct thread_state *ts, const struct api_binding *binding,
                     const CUpti_CallbackData *data)
{
	int32_t result =
	    data->functionReturnValue ? *(const int32_t *)data->functionReturnValue : 0;
	unsigned i = ts->depth;
	bool recorded = false;
	uint64_t entry;

	while (i > 0 && ts->frames[i - 1].binding != binding)
		i--;
	if (i == 0) {
		log_debug("unmatched EXIT of %s", data->functionName);
		if (ts->depth == 0)
			exit_gate_leave(&ts->gate);
		return;
	}
	ts->depth = i - 1;
	entry = ts->frames[ts->depth].entry;
	/* The outer call's state is only valid for the frame that began it. */
	CT_ASSERT_DBG(ts->depth > 0 || ts->outer.binding == binding);
	if (ts->depth == 0) {
		struct api_call *call = &ts->outer;

		call->data = data;
		call->result = result;
		if (!call->symbol)
			call->symbol = data->symbolName;
		if (binding->on_exit)
			binding->on_exit(call);
		recorded = call->recorded;
	}
	/* Recorded once: by its semantic event, or else here. */
	if (!recorded && config.api && lttng_ust_tracepoint_enabled(cudatrace, api_call)) {
		struct ct_ev_api_call e = {
			.domain = binding->domain,
			.cbid = binding->cbid,
			.correlation_id = data->correlationId,
			.result = result,
			.entry = entry,
		};

		repeats_flush(&ts->repeats);
		/* where a call failed is where to look: its site, as an operation's */
		if (ts->depth == 0 && ct_result_is_failure(result))
			call_stack_note_operation(&ts->outer, data->correlationId);
		names_note_api(&ts->names, binding->domain, binding->cbid, data->functionName);
		lttng_ust_do_tracepoint(cudatrace, api_call, &e);
	}
	/* after its events: the drain at exit waits for them */
	if (ts->depth == 0)
		exit_gate_leave(&ts->gate);
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
	struct thread_state *ts;

	if (!tracer_active())
		return;
	ts = thread_state_get();
	if (ts->busy)
		return;
	ts->busy = true;
	if (is_api_domain(domain)) {
		on_api(ts, domain, cbid, cbdata);
	} else if ((unsigned)domain < CUPTI_CB_DOMAIN_SIZE && domain_handlers[domain]) {
		repeats_flush(&ts->repeats);
		domain_handlers[domain](cbid, cbdata, current_call(ts));
	}
	ts->busy = false;
}

void callbacks_flush_thread(void)
{
	struct thread_state *ts = thread_state_get();

	if (!ts->busy)
		repeats_flush(&ts->repeats);
}

/* ------------------------------------------------------------- enabling */

static int switch_family(uint8_t f, bool on)
{
	const struct api_family *family = families[f];
	int switched = 0;

	for (const struct api_binding *b = family->bindings; b->domain != 0; b++) {
		CUptiResult status = cuptiEnableCallback(on, tracer.subscriber, b->domain, b->cbid);

		if (status != CUPTI_SUCCESS) {
			log_debug("cannot %s callback %u of domain %u (%d)",
			          on ? "enable" : "disable", b->cbid, b->domain, status);
			continue;
		}
		switched++;
	}
	if (family->domain != 0 && family->domain_switched &&
	    cuptiEnableDomain(on, tracer.subscriber, family->domain) != CUPTI_SUCCESS)
		log_debug("cannot %s callback domain %d", on ? "enable" : "disable",
		          family->domain);
	return switched;
}

/* Fill the dispatch tables from the families' bindings. */
static void bind_families(void)
{
	for (uint8_t f = 0; f < FAMILY_COUNT; f++) {
		const struct api_family *family = families[f];

		for (const struct api_binding *b = family->bindings; b->domain != 0; b++) {
			if (is_api_domain(b->domain) && b->cbid < CBID_TABLE_SIZE)
				bindings[b->domain - 1][b->cbid] = (struct dispatch){ b, f };
		}
		if (family->domain != 0 && (unsigned)family->domain < CUPTI_CB_DOMAIN_SIZE)
			domain_handlers[family->domain] = family->on_domain;
		switches[f].on = true;
	}
}

CUptiResult callbacks_enable(void)
{
	CUptiResult last = CUPTI_SUCCESS;
	int enabled = 0;

	bind_families();
	for (uint8_t f = 0; f < FAMILY_COUNT; f++)
		enabled += switch_family(f, true);
	/* Domains on all the time (RESOURCE, NVTX), once every family's ids
	 * are. */
	for (uint8_t f = 0; f < FAMILY_COUNT; f++) {
		CUpti_CallbackDomain domain = families[f]->domain;
		CUptiResult status;

		if (domain == 0 || families[f]->domain_switched)
			continue;
		status = cuptiEnableDomain(1, tracer.subscriber, domain);
		if (status == CUPTI_SUCCESS) {
			enabled++;
			continue;
		}
		log_debug("cannot enable callback domain %d (%d)", domain, status);
		last = status;
	}
	return enabled > 0 ? CUPTI_SUCCESS : last;
}

void callbacks_follow_sessions(void)
{
	for (uint8_t f = 0; f < FAMILY_COUNT; f++) {
		bool on;

		if (!families[f]->wanted)
			continue;
		on = families[f]->wanted();
		if (on == __atomic_load_n(&switches[f].on, __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&switches[f].on, on, __ATOMIC_SEQ_CST);
		switch_family(f, on);
		if (!on)
			__atomic_add_fetch(&switches[f].epoch, 1, __ATOMIC_SEQ_CST);
	}
}
