/* SPDX-License-Identifier: MIT */
/*
 * api-calls.h - the API calls open on each thread, paired once in the
 * pass for every analysis that uses them (analysis.h, CT_SHARED_API_CALLS):
 * an api_entry opens a call on its thread, the api_exit with the same
 * correlation id closes it, and the events in between that belong to the
 * call (a memcpy, a launch: they come at the call's exit, before its
 * api_exit) find it open. The event carries the call (ct_event.call), so
 * an analysis knows when the call began and how long it lasted.
 *
 * Calls nest (a runtime call around its driver calls, when the driver
 * reports them). An api_exit closes the innermost open call with its
 * correlation id; calls opened above it whose exit never came (a lost
 * event) are dropped with it. The depth is capped: when a trace loses
 * exits, the oldest calls are forgotten, so memory stays bounded.
 */
#ifndef CUDATRACE_ANALYZERS_API_CALLS_H
#define CUDATRACE_ANALYZERS_API_CALLS_H

#include "context.h"
#include "event.h"

/* Open calls kept per thread. */
#define CT_API_CALLS_MAX 32

/*
 * The event types the pairing needs decoded when an analysis uses it; a
 * memcpy or launch gets its call only when an analysis wants it.
 */
#define CT_API_CALLS_EVENTS (CT_EV_BIT(CT_EV_API_ENTRY) | CT_EV_BIT(CT_EV_API_EXIT))

/* Opens or closes a call of EV's thread, or fills in EV->call; other events are left as they are. */
void ct_api_calls_update(struct ct_event *ev);

/* The calls still open on THREAD, outermost first, COUNT of them; valid until its next event. */
const struct ct_api_call *ct_api_calls_open(const struct ct_thread *thread, size_t *count);

#endif
