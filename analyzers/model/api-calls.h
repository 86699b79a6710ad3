/* SPDX-License-Identifier: MIT */
/*
 * api-calls.h - the traced API calls, read once in the pass for every
 * analysis that uses them (analysis.h, CT_SHARED_API_CALLS).
 *
 * Each traced call is recorded by one event at its exit (doc/events.md,
 * "Traced calls"): its semantic event (a memcpy, a launch, ...) when that
 * event's entry field is not 0, else an api_call. That event carries the
 * call (ct_event.call): when it began, when it returned, its result.
 *
 * A call that waits for the device by design (the sync family) also has
 * an api_entry, so that a wait the process never returned from is seen:
 * it opens the call on its thread, and the event recording the call (same
 * correlation id) closes it, with the calls opened in it whose end never
 * came (a lost event). The depth is capped: when a trace loses events, the
 * oldest open calls are forgotten, so memory stays bounded.
 */
#ifndef CUDATRACE_ANALYZERS_API_CALLS_H
#define CUDATRACE_ANALYZERS_API_CALLS_H

#include "context.h"
#include "common/event.h"

/* Open calls kept per thread. */
#define CT_API_CALLS_MAX 32

/* A wait its api_entry opened, and where its thread was then. */
struct ct_open_call {
	struct ct_api_call call; /* exit_ns 0, result unknown */
	uint32_t path;           /* the thread's NVTX range path at its entry */
	uint64_t stack_id;       /* the thread's op_stack_id then: its call_site, if any */
};

/* The event types that record or open a call: decoded when an analysis uses the calls. */
#define CT_API_CALLS_EVENTS                                                                  \
	(CT_EV_BIT(CT_EV_API_ENTRY) | CT_EV_BIT(CT_EV_API_CALL) | CT_EV_BIT(CT_EV_MEMCPY) |  \
	 CT_EV_BIT(CT_EV_MEMSET) | CT_EV_BIT(CT_EV_LAUNCH) | CT_EV_BIT(CT_EV_GRAPH_LAUNCH) | \
	 CT_EV_BIT(CT_EV_MEM_ALLOC) | CT_EV_BIT(CT_EV_SYNC))

/* Opens a wait on EV's thread (api_entry), or fills in EV->call when EV records a call. */
void ct_api_calls_update(struct ct_event *ev);

/* The waits still open on THREAD, outermost first, COUNT of them; valid until its next event. */
const struct ct_open_call *ct_api_calls_open(const struct ct_thread *thread, size_t *count);

#endif
