/* SPDX-License-Identifier: MIT */
/*
 * api-call.c - what the per-family handlers share (api-call.h): the device,
 * stream and name of the traced call.
 */
#include <cupti.h>

#include "api-call.h"
#include "cudatrace-tp.h"
#include "names.h"
#include "state.h"

uint32_t call_context(const struct api_call *call)
{
	uint32_t id;

	if (!call->data || !call->data->context ||
	    cuptiGetContextId(call->data->context, &id) != CUPTI_SUCCESS)
		return 0;
	return id;
}

uint32_t call_stream(const struct api_call *call, CUstream stream)
{
	return handle_cache_stream(call->cache, call->data ? call->data->context : NULL, stream,
	                           stream == NULL && call->per_thread);
}

void call_note_name(const struct api_call *call)
{
	names_note_api(call->names, call->ref.domain, call->ref.cbid, call->name);
}

struct ct_api_ref call_record(struct api_call *call)
{
	struct ct_api_ref ref = call->ref;

	if (!call->recorded && !call_failed(call) && call->data &&
	    call->data->callbackSite == CUPTI_API_EXIT) {
		ref.entry = call->entry;
		call->recorded = true;
	}
	return ref;
}

bool api_events_wanted(void)
{
	return config.api && (lttng_ust_tracepoint_enabled(cudatrace, api_call) ||
	                      lttng_ust_tracepoint_enabled(cudatrace, api_entry));
}
