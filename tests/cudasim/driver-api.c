/* SPDX-License-Identifier: MIT */
/*
 * driver-api.c - API call frames and the profiler hooks: the one place
 * that decides which calls are reported, hands out correlation ids, and
 * delivers CUPTI callbacks and activity records (sim-hooks.h).
 *
 * Programs call these on every API call, so the path with no profiler
 * attached and no ledger is a few loads and stores on thread-local data.
 * No lock is held while a profiler callback runs: a callback may call back
 * into the driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "driver-internal.h"

static const struct sim_profiler *profiler;
/* Process-wide, from 1: one id per top-level API call (CUPTI activity
 * traces of real runs, e.g. in pytorch/pytorch#99615). */
static uint32_t next_correlation_id = 1;

/* The calls in progress on this thread, innermost first via ->outer. */
static __thread struct sim_api_call *thread_innermost;
static __thread struct sim_api_call *thread_outermost;
/* Runtime-domain frames on this thread's stack, reported or not. */
static __thread unsigned int thread_runtime_frames;
/* The twin announced on this thread whose frame has not opened yet. */
static __thread struct sim_api_twin *thread_twin;

static const struct sim_profiler *profiler_get(void)
{
	return __atomic_load_n(&profiler, __ATOMIC_ACQUIRE);
}

SIM_EXPORT int sim_profiler_attach(const struct sim_profiler *attached)
{
	__atomic_store_n(&profiler, attached, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Whether a call entering now is reported. Driver calls a runtime call
 * makes are not, as observed on real drivers (CUPTI activity
 * traces and nsys API summaries of runtime programs show none: pytorch#99615),
 * unless CUDASIM_NESTED_DRIVER_CALLBACKS=1. A runtime call made inside
 * another runtime call is never reported: it is the runtime's own
 * plumbing, and reporting it would duplicate the user's call.
 */
static bool call_is_reported(CUpti_CallbackDomain domain)
{
	if (thread_runtime_frames == 0)
		return true;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		return false;
	return sim_config()->nested_driver_callbacks;
}

static void frame_push(struct sim_api_call *call)
{
	call->outer = thread_innermost;
	thread_innermost = call;
	if (!thread_outermost)
		thread_outermost = call;
	if (call->domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		thread_runtime_frames++;
}

static void frame_pop(struct sim_api_call *call)
{
	/* Frames end in LIFO order; a frame left open by a longjmp out of a
	 * callback is dropped with the one that encloses it. */
	thread_innermost = call->outer;
	if (thread_outermost == call)
		thread_outermost = NULL;
	if (call->domain == CUPTI_CB_DOMAIN_RUNTIME_API && thread_runtime_frames > 0)
		thread_runtime_frames--;
}

static void frame_context(CUpti_CallbackData *data)
{
	struct sim_context *ctx = sim_ctx_current();

	data->context = ctx ? sim_ctx_handle(ctx) : NULL;
	data->contextUid = ctx ? ctx->id : 0;
}

static void deliver_api_callback(const struct sim_profiler *p, struct sim_api_call *call)
{
	/* Id 0 is INVALID in both domains: a call CUPTI has no id for. */
	if (call->cbid != 0 && p->callback_enabled(call->domain, call->cbid))
		p->callback(call->domain, call->cbid, &call->data);
}

SIM_EXPORT void sim_api_twin_begin(struct sim_api_twin *twin)
{
	twin->taken = 0;
	thread_twin = twin;
}

SIM_EXPORT void sim_api_twin_end(struct sim_api_twin *twin)
{
	if (thread_twin == twin)
		thread_twin = NULL;
	if (twin->taken)
		return;
	fprintf(stderr, "cudasim: %s: %s opened no call frame\n", twin->name, twin->legacy);
	abort();
}

/* The announced twin, taken by the frame its legacy function opens. */
static struct sim_api_twin *twin_take(CUpti_CallbackDomain domain, const char *name)
{
	struct sim_api_twin *twin = thread_twin;

	if (!twin || twin->domain != domain || strcmp(twin->legacy, name) != 0)
		return NULL;
	thread_twin = NULL;
	twin->taken = 1;
	return twin;
}

SIM_EXPORT int sim_api_per_thread(void)
{
	return thread_innermost && thread_innermost->per_thread;
}

SIM_EXPORT void sim_api_enter(struct sim_api_call *call, CUpti_CallbackDomain domain,
                              CUpti_CallbackId cbid, const char *name, void *params,
                              const char *symbol)
{
	const struct sim_profiler *p = profiler_get();
	struct sim_api_twin *twin = thread_twin ? twin_take(domain, name) : NULL;

	if (twin) {
		cbid = twin->cbid;
		name = twin->name;
		params = twin->params;
	}
	call->per_thread = twin != NULL;
	call->domain = domain;
	call->cbid = cbid;
	call->name = name;
	call->reported = call_is_reported(domain);
	call->start_ns = 0;
	call->correlation_data = 0;
	/* functionName stays NULL unless the profiler saw the ENTER: EXIT is
	 * then reported only for calls whose ENTER was. */
	call->data.functionName = NULL;
	call->data.correlationId = 0;
	frame_push(call);
	if (!call->reported)
		return;
	/* Ids only when someone can see them: the profiler or the ledger. */
	if (p || sim_ledger_enabled())
		call->data.correlationId =
		    __atomic_fetch_add(&next_correlation_id, 1, __ATOMIC_RELAXED);
	if (!p)
		return;
	call->start_ns = sim_now_ns();
	call->data.callbackSite = CUPTI_API_ENTER;
	call->data.functionName = name;
	call->data.functionParams = params;
	call->data.functionReturnValue = NULL;
	call->data.symbolName = symbol;
	call->data.correlationData = &call->correlation_data;
	frame_context(&call->data);
	deliver_api_callback(p, call);
}

static void api_activity(const struct sim_profiler *p, const struct sim_api_call *call, int result)
{
	CUpti_ActivityKind kind = call->domain == CUPTI_CB_DOMAIN_RUNTIME_API
	                              ? CUPTI_ACTIVITY_KIND_RUNTIME
	                              : CUPTI_ACTIVITY_KIND_DRIVER;
	CUpti_ActivityAPI record;

	if (call->cbid == 0 || !p->activity_enabled(kind))
		return;
	memset(&record, 0, sizeof(record));
	record.kind = kind;
	record.cbid = call->cbid;
	record.start = call->start_ns;
	record.end = sim_now_ns();
	record.processId = (uint32_t)getpid();
	record.threadId = (uint32_t)gettid();
	record.correlationId = call->data.correlationId;
	record.returnValue = (uint32_t)result;
	p->activity((const CUpti_Activity *)&record, record.end);
}

static void api_exit(struct sim_api_call *call, int result, const char *result_name)
{
	const struct sim_profiler *p = profiler_get();

	if (call->reported && p && call->data.functionName) {
		call->data.callbackSite = CUPTI_API_EXIT;
		call->data.functionReturnValue = &result;
		frame_context(&call->data);
		deliver_api_callback(p, call);
		api_activity(p, call, result);
	}
	if (call->reported && result != 0 && sim_ledger_enabled())
		sim_ledger("op=error api=%s result=%s", sim_current_api_name(),
		           result_name ? result_name : "unknown");
	frame_pop(call);
}

SIM_EXPORT void sim_api_exit(struct sim_api_call *call, int result)
{
	/* Not cuGetErrorName: that is itself a reported entry point. */
	api_exit(call, result, result != 0 ? sim_result_name((CUresult)result) : NULL);
}

SIM_EXPORT void sim_api_exit_named(struct sim_api_call *call, int result, const char *result_name)
{
	api_exit(call, result, result_name);
}

SIM_EXPORT uint32_t sim_current_correlation_id(void)
{
	return thread_outermost ? thread_outermost->data.correlationId : 0;
}

SIM_EXPORT uint32_t sim_current_runtime_correlation_id(void)
{
	for (const struct sim_api_call *call = thread_innermost; call; call = call->outer)
		if (call->domain == CUPTI_CB_DOMAIN_RUNTIME_API && call->reported)
			return call->data.correlationId;
	return 0;
}

SIM_EXPORT const char *sim_current_api_name(void)
{
	return thread_outermost ? thread_outermost->name : "-";
}

/* A RESOURCE domain callback: stream callbacks name the stream, module
 * callbacks point resourceDescriptor at the CUpti_ModuleResourceData. */
static void resource_callback(CUpti_CallbackId cbid, CUcontext ctx, CUstream stream,
                              const CUpti_ModuleResourceData *module)
{
	const struct sim_profiler *p = profiler_get();
	CUpti_ResourceData data;

	if (!p || !p->callback_enabled(CUPTI_CB_DOMAIN_RESOURCE, cbid))
		return;
	memset(&data, 0, sizeof(data));
	data.context = ctx;
	data.resourceHandle.stream = stream;
	/* cupti_callbacks.h: CUPTI does not write through the descriptor. */
	data.resourceDescriptor = (void *)module;
	p->callback(CUPTI_CB_DOMAIN_RESOURCE, cbid, &data);
}

HIDDEN void sim_resource_callback(CUpti_CallbackId cbid, CUcontext ctx, CUstream stream)
{
	resource_callback(cbid, ctx, stream, NULL);
}

HIDDEN void sim_resource_module_callback(CUpti_CallbackId cbid, CUcontext ctx,
                                         const CUpti_ModuleResourceData *module)
{
	resource_callback(cbid, ctx, NULL, module);
}

HIDDEN void sim_sync_callback(CUpti_CallbackId cbid, CUcontext ctx, CUstream stream)
{
	const struct sim_profiler *p = profiler_get();
	CUpti_SynchronizeData data;

	if (!p || !p->callback_enabled(CUPTI_CB_DOMAIN_SYNCHRONIZE, cbid))
		return;
	data.context = ctx;
	data.stream = stream;
	p->callback(CUPTI_CB_DOMAIN_SYNCHRONIZE, cbid, &data);
}

HIDDEN bool sim_activity_enabled(CUpti_ActivityKind kind)
{
	const struct sim_profiler *p = profiler_get();

	return p && p->activity_enabled(kind);
}

HIDDEN void sim_activity(const CUpti_Activity *record, uint64_t complete_ns)
{
	const struct sim_profiler *p = profiler_get();

	if (p && p->activity_enabled(record->kind))
		p->activity(record, complete_ns);
}

HIDDEN void sim_um_counter_activity(const CUpti_Activity *record,
                                    CUpti_ActivityUnifiedMemoryCounterKind counter,
                                    uint64_t complete_ns)
{
	const struct sim_profiler *p = profiler_get();

	if (p && p->activity_enabled(record->kind) && p->um_counter_enabled &&
	    p->um_counter_enabled(counter))
		p->activity(record, complete_ns);
}

HIDDEN CUresult sim_stub_call(CUpti_CallbackId cbid, const char *name, void *params)
{
	struct sim_api_call call;
	CUresult r;

	sim_api_enter(&call, CUPTI_CB_DOMAIN_DRIVER_API, cbid, name, params, NULL);
	r = sim_init_status();
	if (r == CUDA_SUCCESS)
		r = CUDA_ERROR_NOT_SUPPORTED;
	sim_api_exit(&call, r);
	return r;
}
