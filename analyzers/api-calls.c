/* SPDX-License-Identifier: MIT */
/*
 * api-calls.c - the open API calls of each thread (see api-calls.h), in a
 * GArray of struct ct_api_call per thread, innermost last.
 */
#include <glib.h>

#include "api-calls.h"
#include "assert.h"

static void push(struct ct_thread *thread, const struct ct_api_call *call)
{
	if (!thread->calls)
		thread->calls = g_array_sized_new(FALSE, FALSE, sizeof(struct ct_api_call), 8);
	if (thread->calls->len == CT_API_CALLS_MAX) {
		/* the oldest call has almost surely lost its exit */
		g_array_remove_index(thread->calls, 0);
	}
	g_array_append_val(thread->calls, *call);
	CT_ASSERT_DBG(thread->calls->len <= CT_API_CALLS_MAX);
}

/* The index of the innermost open call with CORRELATION_ID, -1 if none. */
static gint index_of(const struct ct_thread *thread, uint32_t correlation_id)
{
	if (!thread->calls)
		return -1;
	for (guint i = thread->calls->len; i-- > 0;)
		if (g_array_index(thread->calls, struct ct_api_call, i).correlation_id ==
		    correlation_id)
			return (gint)i;
	return -1;
}

/* Copies the open call with CORRELATION_ID into *CALL; false if there is none. */
static bool find(const struct ct_thread *thread, uint32_t correlation_id, struct ct_api_call *call)
{
	gint i = index_of(thread, correlation_id);

	if (i < 0)
		return false;
	*call = g_array_index(thread->calls, struct ct_api_call, i);
	return true;
}

/* Closes the call with CORRELATION_ID, and the calls opened in it that never closed. */
static bool pop(struct ct_thread *thread, uint32_t correlation_id, struct ct_api_call *call)
{
	gint i = index_of(thread, correlation_id);

	if (i < 0)
		return false;
	*call = g_array_index(thread->calls, struct ct_api_call, i);
	g_array_set_size(thread->calls, (guint)i);
	return true;
}

void ct_api_calls_update(struct ct_event *ev)
{
	switch (ev->type) {
	case CT_EV_API_ENTRY: {
		struct ct_api_call call = {
			.correlation_id = ev->u.api_entry.correlation_id,
			.domain = ev->u.api_entry.domain,
			.cbid = ev->u.api_entry.cbid,
			.entry_ns = ev->time_ns,
		};

		push(ev->thread, &call);
		break;
	}
	case CT_EV_API_EXIT:
		ev->has_call = pop(ev->thread, ev->u.api_exit.correlation_id, &ev->call);
		break;
	case CT_EV_MEMCPY:
		ev->has_call = find(ev->thread, ev->u.memcpy.api.correlation_id, &ev->call);
		break;
	case CT_EV_LAUNCH:
		ev->has_call = find(ev->thread, ev->u.launch.api.correlation_id, &ev->call);
		break;
	default:
		break;
	}
}

const struct ct_api_call *ct_api_calls_open(const struct ct_thread *thread, size_t *count)
{
	*count = thread->calls ? thread->calls->len : 0;
	return thread->calls ? &g_array_index(thread->calls, struct ct_api_call, 0) : NULL;
}
