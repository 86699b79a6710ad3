/* SPDX-License-Identifier: MIT */
/*
 * callbacks.c - the CUPTI callback dispatcher.
 *
 * Driver and runtime callbacks are enabled by id (never whole domains, so
 * that hot calls such as cuCtxGetCurrent stay untraced) from the bindings
 * of each family (alloc.c, copy.c, launch.c, sync.c, resources.c).
 *
 * Each thread keeps, in TLS, how deep it is in traced calls and the state
 * of the outermost one. Semantic events are emitted by the outermost call
 * at its EXIT, so there is exactly one per operation whether or not the
 * driver reports the calls a runtime call makes (doc/events.md). A
 * reentrancy flag drops any callback caused by cudatrace's own work.
 */
#include <string.h>
#include <cupti.h>

#include "activity.h"
#include "api-call.h"
#include "callbacks.h"
#include "config.h"
#include "cudatrace-tp.h"
#include "domains.h"
#include "log.h"
#include "names.h"
#include "tracer.h"

#define CBID_TABLE_SIZE 1024

struct thread_state {
	unsigned depth; /* traced driver/runtime calls in progress */
	bool busy;      /* inside cudatrace's own handler */
	struct api_call outer;
};

static __thread struct thread_state thread_state;

/* [domain - 1][cbid] -> binding; filled before any callback is enabled. */
static const struct api_binding *bindings[2][CBID_TABLE_SIZE];

static const struct api_binding *const families[] = {
	alloc_bindings, copy_bindings, launch_bindings, sync_bindings, lifecycle_bindings,
};

static const struct api_binding *binding_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	if ((domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API) ||
	    cbid >= CBID_TABLE_SIZE)
		return NULL;
	return bindings[domain - 1][cbid];
}

/* ------------------------------------------------------ handler helpers */

uint8_t call_device(const struct api_call *call)
{
	uint32_t device;

	if (cuptiGetDeviceId(call->data ? call->data->context : NULL, &device) != CUPTI_SUCCESS)
		return DEVICE_NONE;
	return device8(device);
}

uint32_t call_stream(const struct api_call *call, CUstream stream)
{
	uint32_t id;
	uint8_t per_thread = stream == NULL && call->per_thread;

	if (cuptiGetStreamIdEx(call->data ? call->data->context : NULL, stream, per_thread, &id) !=
	    CUPTI_SUCCESS)
		return STREAM_NONE;
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
	call->ref = (struct api_ref){
		.correlation_id = data->correlationId,
		.cbid = binding->cbid,
		.domain = binding->domain,
	};
	call->result = 0;
	call->per_thread = binding->flags & BIND_PER_THREAD;
	memset(&call->nested_launch, 0, sizeof(call->nested_launch));
	call->freed_count = 0;
	call->free_was_null = false;
}

static void api_enter(struct thread_state *ts, const struct api_binding *binding,
                      const CUpti_CallbackData *data)
{
	bool nested;

	tracer_info_emit_once();
	nested = ts->depth > 0;
	if (!nested)
		call_begin(&ts->outer, binding, data);
	ts->depth++;
	if (config.api && lttng_ust_tracepoint_enabled(cudatrace, api_entry)) {
		names_note_api(binding->domain, binding->cbid, data->functionName);
		lttng_ust_do_tracepoint(cudatrace, api_entry, binding->domain, binding->cbid,
		                        data->correlationId);
	}
	if (binding->on_enter)
		binding->on_enter(&ts->outer, data, nested);
	if (!nested && (binding->flags & BIND_FLUSH))
		activity_flush(true);
}

static void api_exit(struct thread_state *ts, const struct api_binding *binding,
                     const CUpti_CallbackData *data)
{
	int32_t result =
	    data->functionReturnValue ? *(const int32_t *)data->functionReturnValue : 0;

	if (ts->depth == 0) {
		log_debug("unmatched EXIT of %s", data->functionName);
		return;
	}
	ts->depth--;
	if (ts->depth == 0) {
		struct api_call *call = &ts->outer;

		if (call->binding != binding) {
			log_debug("unmatched EXIT of %s", data->functionName);
			return;
		}
		call->data = data;
		call->result = result;
		if (!call->symbol)
			call->symbol = data->symbolName;
		if (binding->on_exit)
			binding->on_exit(call);
	}
	if (config.api && lttng_ust_tracepoint_enabled(cudatrace, api_exit))
		lttng_ust_do_tracepoint(cudatrace, api_exit, binding->domain, binding->cbid,
		                        data->correlationId, result);
}

static void on_api(struct thread_state *ts, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                   const CUpti_CallbackData *data)
{
	const struct api_binding *binding = binding_of(domain, cbid);

	if (!binding || !data)
		return;
	if (data->callbackSite == CUPTI_API_ENTER)
		api_enter(ts, binding, data);
	else
		api_exit(ts, binding, data);
}

void CUPTIAPI callbacks_dispatch(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *cbdata)
{
	struct thread_state *ts = &thread_state;
	struct api_call *outer;

	if (!tracer_active() || ts->busy)
		return;
	ts->busy = true;
	outer = ts->depth > 0 ? &ts->outer : NULL;
	switch (domain) {
	case CUPTI_CB_DOMAIN_DRIVER_API:
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		on_api(ts, domain, cbid, cbdata);
		break;
	case CUPTI_CB_DOMAIN_RESOURCE:
		resource_callback(cbid, cbdata, outer);
		break;
	case CUPTI_CB_DOMAIN_SYNCHRONIZE:
		sync_callback(cbid, cbdata, outer);
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

static int enable_family(CUpti_SubscriberHandle subscriber, const struct api_binding *family)
{
	int enabled = 0;

	for (const struct api_binding *b = family; b->domain != 0; b++) {
		CUptiResult status;

		if (b->cbid >= CBID_TABLE_SIZE)
			continue;
		bindings[b->domain - 1][b->cbid] = b;
		status = cuptiEnableCallback(1, subscriber, b->domain, b->cbid);
		if (status != CUPTI_SUCCESS) {
			log_debug("cannot enable callback %u of domain %u (%d)", b->cbid, b->domain,
			          status);
			continue;
		}
		enabled++;
	}
	return enabled;
}

CUptiResult callbacks_enable(CUpti_SubscriberHandle subscriber)
{
	static const CUpti_CallbackDomain whole[] = {
		CUPTI_CB_DOMAIN_RESOURCE,
		CUPTI_CB_DOMAIN_SYNCHRONIZE,
		CUPTI_CB_DOMAIN_NVTX,
	};
	CUptiResult last = CUPTI_SUCCESS;
	int enabled = 0;

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		enabled += enable_family(subscriber, families[i]);
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		CUptiResult status = cuptiEnableDomain(1, subscriber, whole[i]);

		if (status == CUPTI_SUCCESS) {
			enabled++;
			continue;
		}
		log_debug("cannot enable callback domain %d (%d)", whole[i], status);
		last = status;
	}
	return enabled > 0 ? CUPTI_SUCCESS : last;
}
