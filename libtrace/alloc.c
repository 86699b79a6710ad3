/* SPDX-License-Identifier: MIT */
/*
 * alloc.c - every allocation path and its release: mem_alloc, mem_free and
 * mem_alloc_failed.
 *
 * Allocations are recorded at EXIT, when the address is known. Releases
 * take their range out of the tracker at ENTER, so that the size comes from
 * cudatrace's own map and no other thread can be given the same address
 * before the map forgets it; a release that fails puts the range back.
 */
#include <cupti.h>

#include "api-call.h"
#include "cudatrace-tp.h"
#include "nvml.h"

#define PTR(p) ((uint64_t)(uintptr_t)(p))

static bool kind_is_host(enum mem_kind kind)
{
	return kind == MEM_HOST_PINNED || kind == MEM_HOST_REGISTERED;
}

static void record_failure(struct api_call *call, enum mem_kind kind, uint64_t size, uint8_t device)
{
	struct nvml_sample_event sample = { 0 };
	bool have_sample = false;

	if (!kind_is_host(kind) && device != DEVICE_NONE)
		have_sample = nvml_read(device, NVML_ALLOC_FAILED, &sample);
	if (lttng_ust_tracepoint_enabled(cudatrace, mem_alloc_failed)) {
		struct alloc_failed_event e = {
			.size = size,
			.free = sample.free,
			.total = sample.total,
			.result = call->result,
			.device = device,
			.kind = (uint8_t)kind,
			.api = call->ref,
		};

		call_note_name(call);
		lttng_ust_do_tracepoint(cudatrace, mem_alloc_failed, &e);
	}
	if (have_sample && lttng_ust_tracepoint_enabled(cudatrace, nvml_sample))
		lttng_ust_do_tracepoint(cudatrace, nvml_sample, &sample);
}

static void emit_mem(struct api_call *call, bool alloc, const struct tracker_entry *entry,
                     const CUstream *stream)
{
	struct mem_event e = {
		.address = entry->start,
		.size = entry->size,
		.stream = stream ? call_stream(call, *stream) : STREAM_NONE,
		.device = entry->device,
		.kind = entry->kind,
		.api = call->ref,
	};

	/* A mapping is not memory of its own: vmm_physical carries it. */
	if (entry->kind != MEM_VMM_MAP)
		e.delta = alloc ? (int64_t)entry->size : -(int64_t)entry->size;
	call_note_name(call);
	if (alloc)
		lttng_ust_do_tracepoint(cudatrace, mem_alloc, &e);
	else
		lttng_ust_do_tracepoint(cudatrace, mem_free, &e);
}

/* The common end of every allocation. address is read by the caller only
 * when the call succeeded. */
static void record_alloc(struct api_call *call, enum tracker_space space, enum mem_kind kind,
                         uint64_t address, uint64_t size, uint8_t device, const CUstream *stream)
{
	struct tracker_entry entry = {
		.start = address,
		.size = size,
		.kind = (uint8_t)kind,
		.device = device,
	};

	if (call_failed(call)) {
		record_failure(call, kind, size, device);
		return;
	}
	tracker_insert(space, &entry);
	if (lttng_ust_tracepoint_enabled(cudatrace, mem_alloc))
		emit_mem(call, true, &entry, stream);
}

/* ENTER of a release: take the range out of the map now. */
static void take_range(struct api_call *call, enum tracker_space space, uint64_t key)
{
	call->freed_count = 0;
	call->free_was_null = key == 0;
	if (key != 0 && tracker_remove(space, key, &call->freed[0]))
		call->freed_count = 1;
}

/* EXIT of a release: report it, or undo take_range if it failed. */
static void record_free(struct api_call *call, enum tracker_space space, enum mem_kind hint,
                        uint64_t key, const CUstream *stream)
{
	struct tracker_entry unknown = {
		.start = key,
		.kind = (uint8_t)hint,
		.device = call_device(call),
	};

	if (call_failed(call)) {
		for (unsigned i = 0; i < call->freed_count; i++)
			tracker_insert(space, &call->freed[i]);
		return;
	}
	if (call->free_was_null || !lttng_ust_tracepoint_enabled(cudatrace, mem_free))
		return;
	if (call->freed_count == 0) {
		emit_mem(call, false, &unknown, stream);
		return;
	}
	for (unsigned i = 0; i < call->freed_count; i++)
		emit_mem(call, false, &call->freed[i], stream);
}

static const void *params(const struct api_call *call)
{
	return call->data->functionParams;
}

/* The pointer a successful allocation wrote, or 0. */
static uint64_t out_ptr(const struct api_call *call, void *const *where)
{
	return !call_failed(call) && where ? PTR(*where) : 0;
}

static uint64_t out_dptr(const struct api_call *call, const CUdeviceptr *where)
{
	return !call_failed(call) && where ? (uint64_t)*where : 0;
}

/* ------------------------------------------------------- device memory */

static void cuda_malloc_exit(struct api_call *call)
{
	const cudaMalloc_v3020_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_DEVICE, out_ptr(call, p->devPtr), p->size,
	             call_device(call), NULL);
}

static void cu_mem_alloc_exit(struct api_call *call)
{
	const cuMemAlloc_v2_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_DEVICE, out_dptr(call, p->dptr), p->bytesize,
	             call_device(call), NULL);
}

static void cuda_malloc_pitch_exit(struct api_call *call)
{
	const cudaMallocPitch_v3020_params *p = params(call);
	uint64_t pitch = !call_failed(call) && p->pitch ? *p->pitch : p->width;

	record_alloc(call, TRACKER_ADDRESSES, MEM_PITCH, out_ptr(call, p->devPtr),
	             pitch * p->height, call_device(call), NULL);
}

static void cu_mem_alloc_pitch_exit(struct api_call *call)
{
	const cuMemAllocPitch_v2_params *p = params(call);
	uint64_t pitch = !call_failed(call) && p->pPitch ? *p->pPitch : p->WidthInBytes;

	record_alloc(call, TRACKER_ADDRESSES, MEM_PITCH, out_dptr(call, p->dptr), pitch * p->Height,
	             call_device(call), NULL);
}

static void cuda_malloc_managed_exit(struct api_call *call)
{
	const cudaMallocManaged_v6000_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_MANAGED, out_ptr(call, p->devPtr), p->size,
	             call_device(call), NULL);
}

static void cu_mem_alloc_managed_exit(struct api_call *call)
{
	const cuMemAllocManaged_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_MANAGED, out_dptr(call, p->dptr), p->bytesize,
	             call_device(call), NULL);
}

static void cuda_free_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	if (!nested)
		take_range(call, TRACKER_ADDRESSES,
		           PTR(((const cudaFree_v3020_params *)data->functionParams)->devPtr));
}

static void cuda_free_exit(struct api_call *call)
{
	const cudaFree_v3020_params *p = params(call);

	record_free(call, TRACKER_ADDRESSES, MEM_DEVICE, PTR(p->devPtr), NULL);
}

static void cu_mem_free_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	if (!nested)
		take_range(call, TRACKER_ADDRESSES,
		           ((const cuMemFree_v2_params *)data->functionParams)->dptr);
}

static void cu_mem_free_exit(struct api_call *call)
{
	const cuMemFree_v2_params *p = params(call);

	record_free(call, TRACKER_ADDRESSES, MEM_DEVICE, p->dptr, NULL);
}

/* --------------------------------------------------------- host memory */

static void cuda_malloc_host_exit(struct api_call *call)
{
	const cudaMallocHost_v3020_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_HOST_PINNED, out_ptr(call, p->ptr), p->size,
	             call_device(call), NULL);
}

static void cuda_host_alloc_exit(struct api_call *call)
{
	const cudaHostAlloc_v3020_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_HOST_PINNED, out_ptr(call, p->pHost), p->size,
	             call_device(call), NULL);
}

static void cu_mem_alloc_host_exit(struct api_call *call)
{
	const cuMemAllocHost_v2_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_HOST_PINNED, out_ptr(call, p->pp), p->bytesize,
	             call_device(call), NULL);
}

static void cu_mem_host_alloc_exit(struct api_call *call)
{
	const cuMemHostAlloc_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_HOST_PINNED, out_ptr(call, p->pp), p->bytesize,
	             call_device(call), NULL);
}

static void cuda_free_host_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	if (!nested)
		take_range(call, TRACKER_ADDRESSES,
		           PTR(((const cudaFreeHost_v3020_params *)data->functionParams)->ptr));
}

static void cuda_free_host_exit(struct api_call *call)
{
	const cudaFreeHost_v3020_params *p = params(call);

	record_free(call, TRACKER_ADDRESSES, MEM_HOST_PINNED, PTR(p->ptr), NULL);
}

static void cu_mem_free_host_enter(struct api_call *call, const CUpti_CallbackData *data,
                                   bool nested)
{
	if (!nested)
		take_range(call, TRACKER_ADDRESSES,
		           PTR(((const cuMemFreeHost_params *)data->functionParams)->p));
}

static void cu_mem_free_host_exit(struct api_call *call)
{
	const cuMemFreeHost_params *p = params(call);

	record_free(call, TRACKER_ADDRESSES, MEM_HOST_PINNED, PTR(p->p), NULL);
}

static void cuda_host_register_exit(struct api_call *call)
{
	const cudaHostRegister_v4000_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_HOST_REGISTERED, PTR(p->ptr), p->size,
	             call_device(call), NULL);
}

/* cuMemHostRegister and cuMemHostRegister_v2 share this layout. */
static void cu_mem_host_register_exit(struct api_call *call)
{
	const cuMemHostRegister_v2_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_HOST_REGISTERED, PTR(p->p), p->bytesize,
	             call_device(call), NULL);
}

static void cuda_host_unregister_enter(struct api_call *call, const CUpti_CallbackData *data,
                                       bool nested)
{
	if (!nested)
		take_range(
		    call, TRACKER_ADDRESSES,
		    PTR(((const cudaHostUnregister_v4000_params *)data->functionParams)->ptr));
}

static void cuda_host_unregister_exit(struct api_call *call)
{
	const cudaHostUnregister_v4000_params *p = params(call);

	record_free(call, TRACKER_ADDRESSES, MEM_HOST_REGISTERED, PTR(p->ptr), NULL);
}

static void cu_mem_host_unregister_enter(struct api_call *call, const CUpti_CallbackData *data,
                                         bool nested)
{
	if (!nested)
		take_range(call, TRACKER_ADDRESSES,
		           PTR(((const cuMemHostUnregister_params *)data->functionParams)->p));
}

static void cu_mem_host_unregister_exit(struct api_call *call)
{
	const cuMemHostUnregister_params *p = params(call);

	record_free(call, TRACKER_ADDRESSES, MEM_HOST_REGISTERED, PTR(p->p), NULL);
}

/* ------------------------------------------------ stream-ordered memory */

/* The _ptsz variants share the layouts of their base calls. */
static void cuda_malloc_async_exit(struct api_call *call)
{
	const cudaMallocAsync_v11020_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_ASYNC, out_ptr(call, p->devPtr), p->size,
	             call_device(call), (const CUstream *)&p->hStream);
}

static void cuda_malloc_from_pool_async_exit(struct api_call *call)
{
	const cudaMallocFromPoolAsync_v11020_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_ASYNC, out_ptr(call, p->ptr), p->size,
	             call_device(call), (const CUstream *)&p->stream);
}

static void cu_mem_alloc_async_exit(struct api_call *call)
{
	const cuMemAllocAsync_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_ASYNC, out_dptr(call, p->dptr), p->bytesize,
	             call_device(call), &p->hStream);
}

static void cu_mem_alloc_from_pool_async_exit(struct api_call *call)
{
	const cuMemAllocFromPoolAsync_params *p = params(call);

	record_alloc(call, TRACKER_ADDRESSES, MEM_ASYNC, out_dptr(call, p->dptr), p->bytesize,
	             call_device(call), &p->hStream);
}

static void cuda_free_async_enter(struct api_call *call, const CUpti_CallbackData *data,
                                  bool nested)
{
	if (!nested)
		take_range(
		    call, TRACKER_ADDRESSES,
		    PTR(((const cudaFreeAsync_v11020_params *)data->functionParams)->devPtr));
}

static void cuda_free_async_exit(struct api_call *call)
{
	const cudaFreeAsync_v11020_params *p = params(call);

	record_free(call, TRACKER_ADDRESSES, MEM_ASYNC, PTR(p->devPtr),
	            (const CUstream *)&p->hStream);
}

static void cu_mem_free_async_enter(struct api_call *call, const CUpti_CallbackData *data,
                                    bool nested)
{
	if (!nested)
		take_range(call, TRACKER_ADDRESSES,
		           ((const cuMemFreeAsync_params *)data->functionParams)->dptr);
}

static void cu_mem_free_async_exit(struct api_call *call)
{
	const cuMemFreeAsync_params *p = params(call);

	record_free(call, TRACKER_ADDRESSES, MEM_ASYNC, p->dptr, &p->hStream);
}

/* ------------------------------------------------------------------ VMM */

static void cu_mem_create_exit(struct api_call *call)
{
	const cuMemCreate_params *p = params(call);
	uint8_t device = call_device(call);
	uint64_t handle = !call_failed(call) && p->handle ? (uint64_t)*p->handle : 0;

	if (p->prop && p->prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
		device = device8((uint32_t)p->prop->location.id);
	record_alloc(call, TRACKER_VMM_HANDLES, MEM_VMM_PHYSICAL, handle, p->size, device, NULL);
}

static void cu_mem_release_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	if (!nested)
		take_range(call, TRACKER_VMM_HANDLES,
		           ((const cuMemRelease_params *)data->functionParams)->handle);
}

static void cu_mem_release_exit(struct api_call *call)
{
	const cuMemRelease_params *p = params(call);

	record_free(call, TRACKER_VMM_HANDLES, MEM_VMM_PHYSICAL, p->handle, NULL);
}

static void cu_mem_map_exit(struct api_call *call)
{
	const cuMemMap_params *p = params(call);
	struct tracker_entry physical;
	uint8_t device = call_device(call);

	if (tracker_lookup(TRACKER_VMM_HANDLES, p->handle, &physical))
		device = physical.device;
	record_alloc(call, TRACKER_ADDRESSES, MEM_VMM_MAP, (uint64_t)p->ptr, p->size, device, NULL);
}

static void cu_mem_unmap_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	const cuMemUnmap_params *p = data->functionParams;
	uint64_t end = (uint64_t)p->ptr + p->size;

	if (nested)
		return;
	call->freed_count = 0;
	call->free_was_null = false;
	while (call->freed_count < CALL_FREED_MAX &&
	       tracker_remove_within((uint64_t)p->ptr, end, &call->freed[call->freed_count]))
		call->freed_count++;
}

static void cu_mem_unmap_exit(struct api_call *call)
{
	const cuMemUnmap_params *p = params(call);

	record_free(call, TRACKER_ADDRESSES, MEM_VMM_MAP, (uint64_t)p->ptr, NULL);
}

const struct api_binding alloc_bindings[] = {
	BIND_RUNTIME(cudaMalloc_v3020, 0, NULL, cuda_malloc_exit),
	BIND_DRIVER(cuMemAlloc_v2, 0, NULL, cu_mem_alloc_exit),
	BIND_RUNTIME(cudaMallocPitch_v3020, 0, NULL, cuda_malloc_pitch_exit),
	BIND_DRIVER(cuMemAllocPitch_v2, 0, NULL, cu_mem_alloc_pitch_exit),
	BIND_RUNTIME(cudaMallocManaged_v6000, 0, NULL, cuda_malloc_managed_exit),
	BIND_DRIVER(cuMemAllocManaged, 0, NULL, cu_mem_alloc_managed_exit),
	BIND_RUNTIME(cudaFree_v3020, 0, cuda_free_enter, cuda_free_exit),
	BIND_DRIVER(cuMemFree_v2, 0, cu_mem_free_enter, cu_mem_free_exit),

	BIND_RUNTIME(cudaMallocHost_v3020, 0, NULL, cuda_malloc_host_exit),
	BIND_RUNTIME(cudaHostAlloc_v3020, 0, NULL, cuda_host_alloc_exit),
	BIND_DRIVER(cuMemAllocHost_v2, 0, NULL, cu_mem_alloc_host_exit),
	BIND_DRIVER(cuMemHostAlloc, 0, NULL, cu_mem_host_alloc_exit),
	BIND_RUNTIME(cudaFreeHost_v3020, 0, cuda_free_host_enter, cuda_free_host_exit),
	BIND_DRIVER(cuMemFreeHost, 0, cu_mem_free_host_enter, cu_mem_free_host_exit),
	BIND_RUNTIME(cudaHostRegister_v4000, 0, NULL, cuda_host_register_exit),
	BIND_DRIVER(cuMemHostRegister, 0, NULL, cu_mem_host_register_exit),
	BIND_DRIVER(cuMemHostRegister_v2, 0, NULL, cu_mem_host_register_exit),
	BIND_RUNTIME(cudaHostUnregister_v4000, 0, cuda_host_unregister_enter,
	             cuda_host_unregister_exit),
	BIND_DRIVER(cuMemHostUnregister, 0, cu_mem_host_unregister_enter,
	            cu_mem_host_unregister_exit),

	BIND_RUNTIME(cudaMallocAsync_v11020, 0, NULL, cuda_malloc_async_exit),
	BIND_RUNTIME(cudaMallocAsync_ptsz_v11020, BIND_PER_THREAD, NULL, cuda_malloc_async_exit),
	BIND_RUNTIME(cudaMallocFromPoolAsync_v11020, 0, NULL, cuda_malloc_from_pool_async_exit),
	BIND_RUNTIME(cudaMallocFromPoolAsync_ptsz_v11020, BIND_PER_THREAD, NULL,
	             cuda_malloc_from_pool_async_exit),
	BIND_DRIVER(cuMemAllocAsync, 0, NULL, cu_mem_alloc_async_exit),
	BIND_DRIVER(cuMemAllocAsync_ptsz, BIND_PER_THREAD, NULL, cu_mem_alloc_async_exit),
	BIND_DRIVER(cuMemAllocFromPoolAsync, 0, NULL, cu_mem_alloc_from_pool_async_exit),
	BIND_DRIVER(cuMemAllocFromPoolAsync_ptsz, BIND_PER_THREAD, NULL,
	            cu_mem_alloc_from_pool_async_exit),
	BIND_RUNTIME(cudaFreeAsync_v11020, 0, cuda_free_async_enter, cuda_free_async_exit),
	BIND_RUNTIME(cudaFreeAsync_ptsz_v11020, BIND_PER_THREAD, cuda_free_async_enter,
	             cuda_free_async_exit),
	BIND_DRIVER(cuMemFreeAsync, 0, cu_mem_free_async_enter, cu_mem_free_async_exit),
	BIND_DRIVER(cuMemFreeAsync_ptsz, BIND_PER_THREAD, cu_mem_free_async_enter,
	            cu_mem_free_async_exit),

	BIND_DRIVER(cuMemCreate, 0, NULL, cu_mem_create_exit),
	BIND_DRIVER(cuMemRelease, 0, cu_mem_release_enter, cu_mem_release_exit),
	BIND_DRIVER(cuMemMap, 0, NULL, cu_mem_map_exit),
	BIND_DRIVER(cuMemUnmap, 0, cu_mem_unmap_enter, cu_mem_unmap_exit),
	BIND_END,
};
