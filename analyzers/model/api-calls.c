/* SPDX-License-Identifier: MIT */
/*
 * api-calls.c - the traced API calls (see api-calls.h): read from the
 * event that records each, and the open waits of each thread in a GArray
 * of struct ct_open_call, innermost last.
 */
#include <glib.h>

#include "api-calls.h"
#include "contract/assert.h"

static void push(struct ct_thread *thread, const struct ct_open_call *call)
{
	if (!thread->calls)
		thread->calls = g_array_sized_new(FALSE, FALSE, sizeof(struct ct_open_call), 8);
	if (thread->calls->len == CT_API_CALLS_MAX) {
		/* the oldest call has almost surely lost its end */
		g_array_remove_index(thread->calls, 0);
	}
	g_array_append_val(thread->calls, *call);
	CT_ASSERT_DBG(thread->calls->len <= CT_API_CALLS_MAX);
}

/* Closes the open call with CORRELATION_ID, if any, and the calls opened in it that never closed. */
static void close_call(struct ct_thread *thread, uint32_t correlation_id)
{
	if (!thread->calls)
		return;
	for (guint i = thread->calls->len; i-- > 0;) {
		if (g_array_index(thread->calls, struct ct_open_call, i).call.correlation_id ==
		    correlation_id) {
			g_array_set_size(thread->calls, i);
			return;
		}
	}
}

/*
 * The call API with RESULT, entered at ENTRY (ns of CLOCK_MONOTONIC, the
 * trace clock of LTTng, as the gpu_* times) and recorded by EV. An entry
 * no trace can mean (after the event, beyond 2^63 - 1) reads as the
 * event's own time: a call of no length rather than a false one.
 */
static bool record(const struct ct_event *ev, uint8_t domain, uint16_t cbid,
                   uint32_t correlation_id, int32_t result, uint64_t entry,
                   struct ct_api_call *call)
{
	*call = (struct ct_api_call){
		.correlation_id = correlation_id,
		.domain = domain,
		.cbid = cbid,
		.result = result,
		.entry_ns = entry > (uint64_t)ev->time_ns ? ev->time_ns : (int64_t)entry,
		.exit_ns = ev->time_ns,
	};
	return true;
}

/* A semantic event: it records its call when its entry is not 0. */
static bool record_ref(const struct ct_event *ev, const struct ct_api_ref *api,
                       struct ct_api_call *call)
{
	return api->entry != 0 &&
	       record(ev, api->domain, api->cbid, api->correlation_id, 0, api->entry, call);
}

/* The call EV records, from its fields alone, in *CALL; false when EV records none. */
static bool call_of(const struct ct_event *ev, struct ct_api_call *call)
{
	switch (ev->type) {
	case CT_EV_API_CALL:
		return record(ev, ev->u.api_call.domain, ev->u.api_call.cbid,
		              ev->u.api_call.correlation_id, ev->u.api_call.result,
		              ev->u.api_call.entry, call);
	case CT_EV_MEMCPY:
		return record_ref(ev, &ev->u.memcpy.api, call);
	case CT_EV_MEMSET:
		return record_ref(ev, &ev->u.memset.api, call);
	case CT_EV_LAUNCH:
		return record_ref(ev, &ev->u.launch.api, call);
	case CT_EV_GRAPH_LAUNCH:
		return record_ref(ev, &ev->u.graph_launch.api, call);
	case CT_EV_MEM_ALLOC:
		return record_ref(ev, &ev->u.mem.api, call);
	case CT_EV_SYNC:
		return record_ref(ev, &ev->u.sync.api, call);
	default:
		return false;
	}
}

void ct_api_calls_update(struct ct_event *ev)
{
	if (ev->type == CT_EV_API_ENTRY) {
		struct ct_open_call call = {
			.call = { .correlation_id = ev->u.api_entry.correlation_id,
			          .domain = ev->u.api_entry.domain,
			          .cbid = ev->u.api_entry.cbid,
			          .entry_ns = ev->time_ns },
			.path = ev->site,
			.stack_id = ev->thread->op_stack_id,
		};

		ev->has_call = false;
		push(ev->thread, &call);
		return;
	}
	ev->has_call = call_of(ev, &ev->call);
	if (ev->has_call)
		close_call(ev->thread, ev->call.correlation_id);
}

const struct ct_open_call *ct_api_calls_open(const struct ct_thread *thread, size_t *count)
{
	*count = thread->calls ? thread->calls->len : 0;
	return thread->calls ? &g_array_index(thread->calls, struct ct_open_call, 0) : NULL;
}
