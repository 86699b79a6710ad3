/* SPDX-License-Identifier: MIT */
/*
 * resources.c - context, stream and module lifecycle: context_create,
 * context_destroy, stream_create, stream_destroy and module_load, from
 * CUPTI's RESOURCE domain, and the memory a context's destruction frees
 * (mem_reclaim, alloc.c); and the calls that end contexts, whose ENTER
 * forces an activity flush (the dispatcher does it, see BIND_FLUSH) so that
 * their GPU records are not lost with the context, and whose binding names
 * them in the mem_reclaim events of its memory. Every resource
 * callback also looks for shared objects loaded since the last look
 * (loaded-objects.c): a module load often follows a library's.
 */
#include <cupti.h>

#include "alloc.h"
#include "api-call.h"
#include "device-code.h"
#include "emit.h"
#include "handle-cache.h"
#include "loaded-objects.h"
#include "text.h"

#define MODULE_CODES_TEXT 512

static bool is_ctx_create(const struct api_call *outer)
{
	if (!outer || outer->ref.domain != CUPTI_CB_DOMAIN_DRIVER_API)
		return false;
	switch (outer->ref.cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuCtxCreate:
	case CUPTI_DRIVER_TRACE_CBID_cuCtxCreate_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuCtxCreate_v3:
	case CUPTI_DRIVER_TRACE_CBID_cuCtxCreate_v4:
		return true;
	default:
		return false;
	}
}

static bool is_ctx_destroy(const struct api_call *outer)
{
	return outer && outer->ref.domain == CUPTI_CB_DOMAIN_DRIVER_API &&
	       (outer->ref.cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy ||
	        outer->ref.cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2);
}

static uint32_t context_id(CUcontext context)
{
	uint32_t id = 0;

	if (cuptiGetContextId(context, &id) != CUPTI_SUCCESS)
		return 0;
	return id;
}

static uint8_t context_device(CUcontext context)
{
	uint32_t device = CT_DEVICE_NONE;

	if (cuptiGetDeviceId(context, &device) != CUPTI_SUCCESS)
		return CT_DEVICE_NONE;
	return device8(device);
}

static uint32_t stream_id(CUcontext context, CUstream stream)
{
	uint32_t id = CT_STREAM_NONE;

	if (cuptiGetStreamIdEx(context, stream, 0, &id) != CUPTI_SUCCESS)
		return CT_STREAM_NONE;
	return id;
}

static void on_context(CUpti_CallbackId cbid, const CUpti_ResourceData *data,
                       struct api_call *outer)
{
	uint32_t id = context_id(data->context);
	uint8_t device = context_device(data->context);

	if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
		EMIT(context_create, &(struct ct_ev_context){ .context = id,
		                                              .device = device,
		                                              .primary = !is_ctx_create(outer) });
		return;
	}
	EMIT(context_destroy, &(struct ct_ev_context){ .context = id,
	                                               .device = device,
	                                               .primary = !is_ctx_destroy(outer) });
	/* Starting: the memory is still there, and cannot be given out
	 * again before its mem_reclaim. */
	alloc_context_destroyed(id, outer);
}

static void on_stream(CUpti_CallbackId cbid, const CUpti_ResourceData *data)
{
	uint32_t ctx = context_id(data->context);
	uint32_t id = stream_id(data->context, data->resourceHandle.stream);
	uint8_t device = context_device(data->context);

	if (cbid == CUPTI_CBID_RESOURCE_STREAM_CREATED)
		EMIT(stream_create,
		     &(struct ct_ev_stream){ .context = ctx, .stream = id, .device = device });
	else
		EMIT(stream_destroy,
		     &(struct ct_ev_stream){ .context = ctx, .stream = id, .device = device });
}

/*
 * The module's image is read for the architectures of its fat binary
 * (device-code.c: headers only, within cubinSize), cut after a whole
 * name as library_load's list is.
 */
static void on_module(const CUpti_ResourceData *data)
{
	const CUpti_ModuleResourceData *module = data->resourceDescriptor;
	char codes[MODULE_CODES_TEXT];

	if (!module)
		return;
	device_code_of_image(module->pCubin, module->cubinSize, codes, sizeof(codes));
	text_bound_list(codes);
	EMIT(module_load, &(struct ct_ev_module_load){
	                      .context = context_id(data->context),
	                      .module = module->moduleId,
	                      .cubin_size = (uint64_t)module->cubinSize,
	                      .device = context_device(data->context),
	                      .device_code = codes,
	                      .device_code_len = text_length(codes),
	                  });
}

/* A RESOURCE callback: contexts, streams, modules. */
static void resource_callback(CUpti_CallbackId cbid, const void *cbdata, struct api_call *outer)
{
	const CUpti_ResourceData *data = cbdata;

	if (!data)
		return;
	loaded_objects_scan();
	/* Before the handle (or, of a module, its kernels' names) can be
	 * given out again: the caches of what handles map to forget. */
	if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING ||
	    cbid == CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING ||
	    cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING)
		handle_cache_forget();
	switch (cbid) {
	case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
	case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
		on_context(cbid, data, outer);
		break;
	case CUPTI_CBID_RESOURCE_STREAM_CREATED:
	case CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING:
		on_stream(cbid, data);
		break;
	case CUPTI_CBID_RESOURCE_MODULE_LOADED:
		on_module(data);
		break;
	default:
		break;
	}
}

#define FLUSH BIND_FLUSH

static const struct api_binding lifecycle_bindings[] = {
	BIND_RUNTIME(cudaDeviceReset_v3020, FLUSH, NULL, NULL),
	BIND_RUNTIME(cudaProfilerStop_v4000, FLUSH, NULL, NULL),
	BIND_DRIVER(cuCtxDestroy, FLUSH, NULL, NULL),
	BIND_DRIVER(cuCtxDestroy_v2, FLUSH, NULL, NULL),
	BIND_DRIVER(cuDevicePrimaryCtxReset, FLUSH, NULL, NULL),
	BIND_DRIVER(cuDevicePrimaryCtxReset_v2, FLUSH, NULL, NULL),
	BIND_DRIVER(cuDevicePrimaryCtxRelease, FLUSH, NULL, NULL),
	BIND_DRIVER(cuDevicePrimaryCtxRelease_v2, FLUSH, NULL, NULL),
	BIND_DRIVER(cuProfilerStop, FLUSH, NULL, NULL),
	BIND_DRIVER(cuCtxCreate, 0, NULL, NULL),
	BIND_DRIVER(cuCtxCreate_v2, 0, NULL, NULL),
	BIND_DRIVER(cuCtxCreate_v3, 0, NULL, NULL),
	BIND_DRIVER(cuCtxCreate_v4, 0, NULL, NULL),
	BIND_END,
};

const struct api_family lifecycle_family = {
	.bindings = lifecycle_bindings,
	.domain = CUPTI_CB_DOMAIN_RESOURCE,
	.on_domain = resource_callback,
};
