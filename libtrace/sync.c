/* SPDX-License-Identifier: MIT */
/*
 * sync.c - synchronisation: sync events.
 *
 * One sync event per synchronising call, at its EXIT. The SYNCHRONIZE
 * callbacks CUPTI delivers inside such a call are folded into it; those
 * that arrive outside one are recorded on their own. CUPTI's record of a
 * synchronisation whose call wrote its sync event is not written
 * (recorded-ops.h): the call's api_entry and sync already say when the
 * host waited, and for what.
 */
#include <stddef.h>
#include <cupti.h>

#include "api-call.h"
#include "cupti-compat.h"
#include "cudatrace-tp.h"
#include "recorded-ops.h"

static void emit_sync(struct api_call *call, enum ct_sync_kind what, uint32_t stream)
{
	struct ct_ev_sync e = {
		.stream = stream,
		.what = (uint8_t)what,
		.device = call_device(call),
		.api = call_record(call),
	};

	call_note_name(call);
	lttng_ust_do_tracepoint(cudatrace, sync, &e);
	recorded_ops_note(e.api.correlation_id, RECORDED_SYNC);
}

static bool sync_wanted(const struct api_call *call)
{
	return !call_failed(call) && lttng_ust_tracepoint_enabled(cudatrace, sync);
}

static void device_sync_exit(struct api_call *call)
{
	if (sync_wanted(call))
		emit_sync(call, CT_SYNC_DEVICE, CT_STREAM_NONE);
}

static void context_sync_exit(struct api_call *call)
{
	if (sync_wanted(call))
		emit_sync(call, CT_SYNC_CONTEXT, CT_STREAM_NONE);
}

static void event_sync_exit(struct api_call *call)
{
	if (sync_wanted(call))
		emit_sync(call, CT_SYNC_EVENT, CT_STREAM_NONE);
}

/* cudaStreamSynchronize, cuStreamSynchronize and their _ptsz variants all
 * take the stream first. */
_Static_assert(offsetof(cudaStreamSynchronize_v3020_params, stream) == 0 &&
                   offsetof(cudaStreamSynchronize_ptsz_v7000_params, stream) == 0 &&
                   offsetof(cuStreamSynchronize_params, hStream) == 0 &&
                   offsetof(cuStreamSynchronize_ptsz_params, hStream) == 0 &&
                   sizeof(cudaStream_t) == sizeof(CUstream),
               "the stream comes first in every stream synchronisation");
static void stream_sync_exit(struct api_call *call)
{
	const cuStreamSynchronize_params *p = call_params(call);

	if (sync_wanted(call))
		emit_sync(call, CT_SYNC_STREAM, call_stream(call, p->hStream));
}

/* A SYNCHRONIZE callback: folded into the synchronising call around it,
 * if any. */
static void sync_callback(CUpti_CallbackId cbid, const void *cbdata, struct api_call *outer)
{
	const CUpti_SynchronizeData *data = cbdata;
	bool stream = cbid == CUPTI_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED;
	uint32_t id = CT_STREAM_NONE, device = CT_DEVICE_NONE;
	struct ct_ev_sync e;

	/* The synchronising call around it records the sync at its EXIT. */
	if (outer && outer->binding && (outer->binding->flags & BIND_SYNC))
		return;
	if (!lttng_ust_tracepoint_enabled(cudatrace, sync))
		return;
	if (stream && cuptiGetStreamIdEx(data->context, data->stream, 0, &id) != CUPTI_SUCCESS)
		id = CT_STREAM_NONE;
	if (cuptiGetDeviceId(data->context, &device) != CUPTI_SUCCESS)
		device = CT_DEVICE_NONE;
	e = (struct ct_ev_sync){
		.stream = id,
		.what = stream ? CT_SYNC_STREAM : CT_SYNC_CONTEXT,
		.device = device8(device),
		.api = { .domain = CUPTI_CB_DOMAIN_SYNCHRONIZE },
	};
	if (outer) {
		e.api = outer->ref;
		call_note_name(outer);
	}
	lttng_ust_do_tracepoint(cudatrace, sync, &e);
}

/* Waits for the device, by design: their api_entry is recorded. */
#define SYNC (BIND_SYNC | BIND_WAIT)

static const struct api_binding sync_bindings[] = {
	BIND_RUNTIME(cudaDeviceSynchronize_v3020, SYNC, NULL, device_sync_exit),
	BIND_RUNTIME_PT(cudaStreamSynchronize, v3020, ptsz_v7000, SYNC, NULL, stream_sync_exit),
	BIND_RUNTIME(cudaEventSynchronize_v3020, SYNC, NULL, event_sync_exit),
	BIND_DRIVER(cuCtxSynchronize, SYNC, NULL, context_sync_exit),
#if CT_CUPTI_HAS_CTX_SYNCHRONIZE_V2
	BIND_DRIVER(cuCtxSynchronize_v2, SYNC, NULL, context_sync_exit),
#endif
	BIND_DRIVER_PT(cuStreamSynchronize, ptsz, SYNC, NULL, stream_sync_exit),
	BIND_DRIVER(cuEventSynchronize, SYNC, NULL, event_sync_exit),
	BIND_END,
};

static bool syncs_wanted(void)
{
	return api_events_wanted() || lttng_ust_tracepoint_enabled(cudatrace, sync);
}

/* SYNCHRONIZE callbacks are folded into the sync calls around them: the
 * two go together. */
const struct api_family sync_family = {
	.bindings = sync_bindings,
	.wanted = syncs_wanted,
	.domain = CUPTI_CB_DOMAIN_SYNCHRONIZE,
	.domain_switched = true,
	.on_domain = sync_callback,
};
