/* SPDX-License-Identifier: MIT */
/*
 * alloc.c - every allocation path and its release: mem_alloc, mem_free,
 * mem_free_failed and mem_alloc_failed; and mem_reclaim, the memory a
 * context's destruction frees.
 *
 * Allocations are recorded at EXIT, when the address is known, in the
 * tracker first and then in the trace: an allocation the trace has is
 * always in the live set a statedump takes. Releases take what they free
 * out of the tracker at ENTER and emit its mem_free there, with the size
 * from cudatrace's own map, before the driver can give the same address to
 * another thread; a release that fails puts it back at EXIT, with a
 * mem_free_failed for each mem_free. So a reader never sees an address
 * allocated twice without a free between (doc/events.md, mem_free_failed).
 *
 * VMM physical memory (cuMemCreate) lives while a handle to it is not
 * released or a mapping of it is not unmapped (cuda.h, cuMemRelease): the
 * tracker counts both, and its mem_free comes from whichever cuMemRelease
 * or cuMemUnmap drops the last.
 *
 * A stream-ordered allocation or free on a capturing stream makes a graph
 * memory node: the allocation happens when a launch of the graph reaches
 * the node, unseen by the callbacks, and CUPTI has no record of it. Such
 * calls change nothing here and emit nothing (doc/events.md, "Stream
 * capture and graphs").
 */
#include <stddef.h>
#include <stdlib.h>
#include <cupti.h>

#include "alloc.h"
#include "api-call.h"
#include "call-stack.h"
#include "clock.h"
#include "capture.h"
#include "emit.h"
#include "contract/assert.h"
#include "log.h"
#include "host-sampler.h"
#include "nvml.h"
#include "recorded-ops.h"

enum mem_event {
	MEM_ALLOC,
	MEM_FREE,
	MEM_FREE_FAILED,
	MEM_RECLAIM,
};

/* The kinds a context owns and its destruction frees: cudaDeviceReset's
 * list (cuda_runtime_api.h:309-319), and registrations, undone with the
 * context. Stream-ordered memory belongs to its pool, VMM memory to its
 * handles. */
static bool owned_by_context(enum ct_mem_kind kind)
{
	switch (kind) {
	case CT_MEM_DEVICE:
	case CT_MEM_PITCH:
	case CT_MEM_MANAGED:
	case CT_MEM_HOST_PINNED:
	case CT_MEM_HOST_REGISTERED:
		return true;
	default:
		return false;
	}
}

static bool mem_event_enabled(enum mem_event which)
{
	switch (which) {
	case MEM_ALLOC:
		return lttng_ust_tracepoint_enabled(cudatrace, mem_alloc);
	case MEM_FREE:
		return lttng_ust_tracepoint_enabled(cudatrace, mem_free);
	case MEM_FREE_FAILED:
		return lttng_ust_tracepoint_enabled(cudatrace, mem_free_failed);
	case MEM_RECLAIM:
		return lttng_ust_tracepoint_enabled(cudatrace, mem_reclaim);
	}
	return false;
}

/* One mem_* event of entry, for the call api made from stack stack_id
 * (0: none); the caller has checked that it is enabled and named the
 * call. */
static void emit_mem(enum mem_event which, const struct tracker_entry *entry, uint32_t stream,
                     const struct ct_api_ref *api, uint64_t stack_id)
{
	struct ct_ev_mem e = {
		.address = entry->start,
		.size = entry->size,
		.stream = stream,
		.device = entry->device,
		.kind = entry->kind,
		.api = *api,
		.stack_id = stack_id,
	};
	bool adds = which == MEM_ALLOC || which == MEM_FREE_FAILED;

	/* A mapping is not memory of its own: vmm_physical carries it. */
	if (entry->kind != CT_MEM_VMM_MAP)
		e.delta = adds ? (int64_t)entry->size : -(int64_t)entry->size;
	switch (which) {
	case MEM_ALLOC:
		lttng_ust_do_tracepoint(cudatrace, mem_alloc, &e);
		break;
	case MEM_FREE:
		lttng_ust_do_tracepoint(cudatrace, mem_free, &e);
		break;
	case MEM_FREE_FAILED:
		lttng_ust_do_tracepoint(cudatrace, mem_free_failed, &e);
		break;
	case MEM_RECLAIM:
		lttng_ust_do_tracepoint(cudatrace, mem_reclaim, &e);
		break;
	}
	if (which == MEM_ALLOC || which == MEM_FREE)
		recorded_ops_note(api->correlation_id, RECORDED_MEMORY);
}

/* The same for a traced call: named first. False when not enabled. */
static bool emit_call_mem(struct api_call *call, enum mem_event which,
                          const struct tracker_entry *entry, uint32_t stream)
{
	struct ct_api_ref api;

	if (!mem_event_enabled(which))
		return false;
	/* An allocation records its call; the other mem_* events do not. */
	api = which == MEM_ALLOC ? call_record(call) : call->ref;
	call_note_name(call);
	emit_mem(which, entry, stream, &api, call_stack_id());
	return true;
}

static void record_failure(struct api_call *call, enum ct_mem_kind kind, uint64_t size,
                           uint8_t device)
{
	struct ct_ev_nvml_sample sample = { 0 };
	bool have_sample = false;

	if (!ct_mem_kind_is_host(kind) && device != CT_DEVICE_NONE)
		have_sample = nvml_read(device, CT_NVML_ALLOC_FAILED, &sample);
	if (lttng_ust_tracepoint_enabled(cudatrace, mem_alloc_failed)) {
		struct ct_ev_mem_alloc_failed e = {
			.size = size,
			.free = sample.free,
			.total = sample.total,
			.result = call->result,
			.device = device,
			.kind = (uint8_t)kind,
			.api = call->ref,
			.stack_id = call_stack_id(),
		};

		call_note_name(call);
		lttng_ust_do_tracepoint(cudatrace, mem_alloc_failed, &e);
	}
	if (have_sample) {
		EMIT(nvml_sample, &sample);
		nvml_list_processes(device);
	}
	/* Host memory too, read on the sampler's thread, not here. */
	host_sampler_kick();
}

/* The common end of every allocation. address is read by the caller only
 * when the call succeeded. handle: what a mapping maps; write_combined:
 * host memory allocated so (the copies of it are not sampled, copy.c). */
static void record_alloc_of(struct api_call *call, enum tracker_space space, enum ct_mem_kind kind,
                            uint64_t address, uint64_t size, uint8_t device, const CUstream *stream,
                            uint64_t handle, bool write_combined)
{
	struct tracker_entry entry = {
		.start = address,
		.size = size,
		.kind = (uint8_t)kind,
		.device = device,
		.write_combined = write_combined,
		.handle = handle,
		.refs = kind == CT_MEM_VMM_PHYSICAL, /* cuMemCreate's handle */
		.api = call->ref,
		.stream = CT_STREAM_NONE,
	};

	if (stream && capture_stream_is_capturing(call, *stream))
		return;
	if (call_failed(call)) {
		record_failure(call, kind, size, device);
		return;
	}
	entry.alloc_time = clock_now_ns();
	if (stream)
		entry.stream = call_stream(call, *stream);
	if (owned_by_context(kind))
		entry.context = call_context(call);
	if (!tracker_insert(space, &entry))
		log_debug("allocation at 0x%llx not tracked (out of memory)",
		          (unsigned long long)entry.start);
	emit_call_mem(call, MEM_ALLOC, &entry, entry.stream);
}

static void record_alloc(struct api_call *call, enum tracker_space space, enum ct_mem_kind kind,
                         uint64_t address, uint64_t size, uint8_t device, const CUstream *stream)
{
	record_alloc_of(call, space, kind, address, size, device, stream, 0, false);
}

/* ENTER of a release: keep what its EXIT needs... */
static struct release *release_begin(struct api_call *call, enum tracker_space space,
                                     enum ct_mem_kind kind, uint64_t key, const CUstream *stream)
{
	struct release *r = &call->release;

	r->key = key;
	r->stream = stream ? call_stream(call, *stream) : CT_STREAM_NONE;
	r->space = (uint8_t)space;
	r->kind = (uint8_t)kind;
	r->dropped_ref = false;
	r->count = 0;
	r->emitted = 0;
	r->unmapped = 0;
	return r;
}

/* ...and what it takes out of the tracker, freed now: its mem_free. */
static void release_freed(struct api_call *call, struct release *r,
                          const struct tracker_entry *freed)
{
	_Static_assert(CALL_FREED_MAX <= 32, "a bit of emitted and unmapped for each");
	if (!CT_CHECK(r->count < CALL_FREED_MAX))
		return;
	r->freed[r->count] = *freed;
	if (emit_call_mem(call, MEM_FREE, freed, r->stream))
		r->emitted |= UINT32_C(1) << r->count;
	r->count++;
}

static void release_enter(struct api_call *call, enum tracker_space space, enum ct_mem_kind kind,
                          uint64_t key, const CUstream *stream)
{
	struct release *r;
	struct tracker_entry freed;

	/* A free node: nothing is freed now (key 0: nothing at EXIT either). */
	if (stream && capture_stream_is_capturing(call, *stream))
		key = 0;
	r = release_begin(call, space, kind, key, stream);
	if (key != 0 && tracker_remove(space, key, &freed))
		release_freed(call, r, &freed);
}

/* The call failed: what its ENTER freed is live again, in the tracker
 * before the trace (as an allocation), last freed first; then the counts
 * of VMM memory it dropped. */
static void release_undo(struct api_call *call, const struct release *r)
{
	for (unsigned i = r->count; i-- > 0;) {
		const struct tracker_entry *e = &r->freed[i];
		enum tracker_space space =
		    e->kind == CT_MEM_VMM_PHYSICAL ? TRACKER_VMM_HANDLES : TRACKER_ADDRESSES;

		tracker_insert(space, e);
		if (r->emitted & UINT32_C(1) << i)
			emit_call_mem(call, MEM_FREE_FAILED, e, r->stream);
	}
	for (unsigned i = 0; i < r->count; i++) {
		if (r->unmapped & UINT32_C(1) << i)
			tracker_vmm_adjust(r->freed[i].handle, 0, +1, NULL);
	}
	if (r->dropped_ref)
		tracker_vmm_adjust(r->key, +1, 0, NULL);
}

/* EXIT of every release. Freeing what cudatrace never saw allocated gives
 * a mem_free of size 0, once the call has succeeded. */
static void release_exit(struct api_call *call)
{
	const struct release *r = &call->release;

	/* Entries beyond freed[] would be read from the next member. */
	if (!CT_CHECK(r->count <= CALL_FREED_MAX))
		return;
	if (call_failed(call)) {
		release_undo(call, r);
		return;
	}
	if (r->key != 0 && r->count == 0 && !r->dropped_ref) {
		struct tracker_entry unknown = {
			.start = r->key,
			.kind = r->kind,
			.device = call_device(call),
		};

		emit_call_mem(call, MEM_FREE, &unknown, r->stream);
	}
}

/* ------------------------------------------------- context destruction */

/* Reclaimed this many at a time: one pass over the map each. In an array
 * of the map's size up to RECLAIM_ARRAY_MAX, else on the stack. */
#define RECLAIM_ARRAY_MAX 65536
#define RECLAIM_BATCH     64

static void emit_reclaims(const struct tracker_entry *entries, size_t count,
                          const struct ct_api_ref *api)
{
	if (!mem_event_enabled(MEM_RECLAIM))
		return;
	for (size_t i = 0; i < count; i++)
		emit_mem(MEM_RECLAIM, &entries[i], entries[i].stream, api, 0);
}

void alloc_context_destroyed(uint32_t context, struct api_call *outer)
{
	struct tracker_entry batch[RECLAIM_BATCH], *array = NULL, *entries = batch;
	struct ct_api_ref api = { .domain = CT_DOMAIN_UNKNOWN };
	size_t max = tracker_count(), n;

	if (context == 0)
		return;
	if (outer) {
		api = outer->ref;
		if (mem_event_enabled(MEM_RECLAIM))
			call_note_name(outer);
	}
	if (max > RECLAIM_ARRAY_MAX)
		max = RECLAIM_ARRAY_MAX;
	if (max > RECLAIM_BATCH)
		array = malloc(max * sizeof(*array));
	if (array)
		entries = array;
	else
		max = RECLAIM_BATCH;
	do {
		n = tracker_take_context(context, entries, max);
		emit_reclaims(entries, n, &api);
	} while (n == max);
	free(array);
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
	const cudaMalloc_v3020_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_DEVICE, out_ptr(call, p->devPtr), p->size,
	             call_device(call), NULL);
}

static void cu_mem_alloc_exit(struct api_call *call)
{
	const cuMemAlloc_v2_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_DEVICE, out_dptr(call, p->dptr), p->bytesize,
	             call_device(call), NULL);
}

static void cuda_malloc_pitch_exit(struct api_call *call)
{
	const cudaMallocPitch_v3020_params *p = call_params(call);
	uint64_t pitch = !call_failed(call) && p->pitch ? *p->pitch : p->width;

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_PITCH, out_ptr(call, p->devPtr),
	             pitch * p->height, call_device(call), NULL);
}

static void cu_mem_alloc_pitch_exit(struct api_call *call)
{
	const cuMemAllocPitch_v2_params *p = call_params(call);
	uint64_t pitch = !call_failed(call) && p->pPitch ? *p->pPitch : p->WidthInBytes;

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_PITCH, out_dptr(call, p->dptr),
	             pitch * p->Height, call_device(call), NULL);
}

static void cuda_malloc_managed_exit(struct api_call *call)
{
	const cudaMallocManaged_v6000_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_MANAGED, out_ptr(call, p->devPtr), p->size,
	             call_device(call), NULL);
}

static void cu_mem_alloc_managed_exit(struct api_call *call)
{
	const cuMemAllocManaged_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_MANAGED, out_dptr(call, p->dptr), p->bytesize,
	             call_device(call), NULL);
}

static void cuda_free_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	const cudaFree_v3020_params *p = data->functionParams;

	if (!nested)
		release_enter(call, TRACKER_ADDRESSES, CT_MEM_DEVICE, PTR(p->devPtr), NULL);
}

static void cu_mem_free_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	const cuMemFree_v2_params *p = data->functionParams;

	if (!nested)
		release_enter(call, TRACKER_ADDRESSES, CT_MEM_DEVICE, p->dptr, NULL);
}

/* --------------------------------------------------------- host memory */

static void cuda_malloc_host_exit(struct api_call *call)
{
	const cudaMallocHost_v3020_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_HOST_PINNED, out_ptr(call, p->ptr), p->size,
	             call_device(call), NULL);
}

/*
 * Write-combined host memory is "slow to read from the CPU"
 * (cudaHostAlloc's documentation): the tracker says so, and an upload of
 * it is not sampled.
 */
static void cuda_host_alloc_exit(struct api_call *call)
{
	const cudaHostAlloc_v3020_params *p = call_params(call);

	record_alloc_of(call, TRACKER_ADDRESSES, CT_MEM_HOST_PINNED, out_ptr(call, p->pHost),
	                p->size, call_device(call), NULL, 0,
	                (p->flags & cudaHostAllocWriteCombined) != 0);
}

static void cu_mem_alloc_host_exit(struct api_call *call)
{
	const cuMemAllocHost_v2_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_HOST_PINNED, out_ptr(call, p->pp), p->bytesize,
	             call_device(call), NULL);
}

static void cu_mem_host_alloc_exit(struct api_call *call)
{
	const cuMemHostAlloc_params *p = call_params(call);

	record_alloc_of(call, TRACKER_ADDRESSES, CT_MEM_HOST_PINNED, out_ptr(call, p->pp),
	                p->bytesize, call_device(call), NULL, 0,
	                (p->Flags & CU_MEMHOSTALLOC_WRITECOMBINED) != 0);
}

static void cuda_free_host_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	const cudaFreeHost_v3020_params *p = data->functionParams;

	if (!nested)
		release_enter(call, TRACKER_ADDRESSES, CT_MEM_HOST_PINNED, PTR(p->ptr), NULL);
}

static void cu_mem_free_host_enter(struct api_call *call, const CUpti_CallbackData *data,
                                   bool nested)
{
	const cuMemFreeHost_params *p = data->functionParams;

	if (!nested)
		release_enter(call, TRACKER_ADDRESSES, CT_MEM_HOST_PINNED, PTR(p->p), NULL);
}

static void cuda_host_register_exit(struct api_call *call)
{
	const cudaHostRegister_v4000_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_HOST_REGISTERED, PTR(p->ptr), p->size,
	             call_device(call), NULL);
}

/* cuMemHostRegister and cuMemHostRegister_v2 share this layout. */
_Static_assert(offsetof(cuMemHostRegister_params, p) == offsetof(cuMemHostRegister_v2_params, p) &&
                   offsetof(cuMemHostRegister_params, bytesize) ==
                       offsetof(cuMemHostRegister_v2_params, bytesize),
               "cuMemHostRegister's parameters are laid out as _v2's");
static void cu_mem_host_register_exit(struct api_call *call)
{
	const cuMemHostRegister_v2_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_HOST_REGISTERED, PTR(p->p), p->bytesize,
	             call_device(call), NULL);
}

static void cuda_host_unregister_enter(struct api_call *call, const CUpti_CallbackData *data,
                                       bool nested)
{
	const cudaHostUnregister_v4000_params *p = data->functionParams;

	if (!nested)
		release_enter(call, TRACKER_ADDRESSES, CT_MEM_HOST_REGISTERED, PTR(p->ptr), NULL);
}

static void cu_mem_host_unregister_enter(struct api_call *call, const CUpti_CallbackData *data,
                                         bool nested)
{
	const cuMemHostUnregister_params *p = data->functionParams;

	if (!nested)
		release_enter(call, TRACKER_ADDRESSES, CT_MEM_HOST_REGISTERED, PTR(p->p), NULL);
}

/* ------------------------------------------------ stream-ordered memory */

/* The _ptsz variants share the layouts of their base calls. The runtime's
 * streams are read as the driver's. */
_Static_assert(sizeof(cudaStream_t) == sizeof(CUstream), "a cudaStream_t is a CUstream");
static void cuda_malloc_async_exit(struct api_call *call)
{
	const cudaMallocAsync_v11020_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_ASYNC, out_ptr(call, p->devPtr), p->size,
	             call_device(call), (const CUstream *)&p->hStream);
}

static void cuda_malloc_from_pool_async_exit(struct api_call *call)
{
	const cudaMallocFromPoolAsync_v11020_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_ASYNC, out_ptr(call, p->ptr), p->size,
	             call_device(call), (const CUstream *)&p->stream);
}

static void cu_mem_alloc_async_exit(struct api_call *call)
{
	const cuMemAllocAsync_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_ASYNC, out_dptr(call, p->dptr), p->bytesize,
	             call_device(call), &p->hStream);
}

static void cu_mem_alloc_from_pool_async_exit(struct api_call *call)
{
	const cuMemAllocFromPoolAsync_params *p = call_params(call);

	record_alloc(call, TRACKER_ADDRESSES, CT_MEM_ASYNC, out_dptr(call, p->dptr), p->bytesize,
	             call_device(call), &p->hStream);
}

static void cuda_free_async_enter(struct api_call *call, const CUpti_CallbackData *data,
                                  bool nested)
{
	const cudaFreeAsync_v11020_params *p = data->functionParams;

	if (!nested)
		release_enter(call, TRACKER_ADDRESSES, CT_MEM_ASYNC, PTR(p->devPtr),
		              (const CUstream *)&p->hStream);
}

static void cu_mem_free_async_enter(struct api_call *call, const CUpti_CallbackData *data,
                                    bool nested)
{
	const cuMemFreeAsync_params *p = data->functionParams;

	if (!nested)
		release_enter(call, TRACKER_ADDRESSES, CT_MEM_ASYNC, p->dptr, &p->hStream);
}

/* ------------------------------------------------------------------ VMM */

static void cu_mem_create_exit(struct api_call *call)
{
	const cuMemCreate_params *p = call_params(call);
	uint8_t device = call_device(call);
	uint64_t handle = !call_failed(call) && p->handle ? (uint64_t)*p->handle : 0;

	if (p->prop && p->prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
		device = device8((uint32_t)p->prop->location.id);
	record_alloc(call, TRACKER_VMM_HANDLES, CT_MEM_VMM_PHYSICAL, handle, p->size, device, NULL);
}

/* cuMemRelease: the handle loses a reference; its memory goes when it
 * was the last and nothing maps it. */
static void cu_mem_release_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	const cuMemRelease_params *p = data->functionParams;
	struct release *r;
	struct tracker_entry freed;

	if (nested)
		return;
	r = release_begin(call, TRACKER_VMM_HANDLES, CT_MEM_VMM_PHYSICAL, p->handle, NULL);
	switch (tracker_vmm_adjust(p->handle, -1, 0, &freed)) {
	case TRACKER_VMM_FREED:
		r->dropped_ref = true;
		release_freed(call, r, &freed);
		break;
	case TRACKER_VMM_ADJUSTED:
		r->dropped_ref = true;
		break;
	case TRACKER_VMM_UNKNOWN:
		break;
	}
}

/* cuMemRetainAllocationHandle: one more reference to release. */
static void cu_mem_retain_allocation_handle_exit(struct api_call *call)
{
	const cuMemRetainAllocationHandle_params *p = call_params(call);

	if (!call_failed(call) && p->handle)
		tracker_vmm_adjust((uint64_t)*p->handle, +1, 0, NULL);
}

static void cu_mem_map_exit(struct api_call *call)
{
	const cuMemMap_params *p = call_params(call);
	struct tracker_entry physical;
	uint8_t device = call_device(call);

	if (tracker_lookup(TRACKER_VMM_HANDLES, p->handle, &physical))
		device = physical.device;
	record_alloc_of(call, TRACKER_ADDRESSES, CT_MEM_VMM_MAP, (uint64_t)p->ptr, p->size, device,
	                NULL, p->handle, false);
	if (!call_failed(call))
		tracker_vmm_adjust(p->handle, 0, +1, NULL);
}

/* cuMemUnmap: every mapping in the range (up to CALL_UNMAP_MAX), and the
 * physical memory of those that were its last mapping of a released
 * handle. */
static void cu_mem_unmap_enter(struct api_call *call, const CUpti_CallbackData *data, bool nested)
{
	const cuMemUnmap_params *p = data->functionParams;
	uint64_t end = (uint64_t)p->ptr + p->size;
	struct tracker_entry mapping, physical;
	unsigned maps = 0;
	struct release *r;

	if (nested)
		return;
	r = release_begin(call, TRACKER_ADDRESSES, CT_MEM_VMM_MAP, (uint64_t)p->ptr, NULL);
	while (maps < CALL_UNMAP_MAX && tracker_remove_within((uint64_t)p->ptr, end, &mapping)) {
		unsigned at = r->count;

		maps++;
		release_freed(call, r, &mapping);
		if (mapping.kind != CT_MEM_VMM_MAP)
			continue;
		switch (tracker_vmm_adjust(mapping.handle, 0, -1, &physical)) {
		case TRACKER_VMM_FREED:
			r->unmapped |= UINT32_C(1) << at;
			release_freed(call, r, &physical);
			break;
		case TRACKER_VMM_ADJUSTED:
			r->unmapped |= UINT32_C(1) << at;
			break;
		case TRACKER_VMM_UNKNOWN:
			break;
		}
	}
}

static const struct api_binding alloc_bindings[] = {
	BIND_RUNTIME(cudaMalloc_v3020, 0, NULL, cuda_malloc_exit),
	BIND_DRIVER(cuMemAlloc_v2, 0, NULL, cu_mem_alloc_exit),
	BIND_RUNTIME(cudaMallocPitch_v3020, 0, NULL, cuda_malloc_pitch_exit),
	BIND_DRIVER(cuMemAllocPitch_v2, 0, NULL, cu_mem_alloc_pitch_exit),
	BIND_RUNTIME(cudaMallocManaged_v6000, 0, NULL, cuda_malloc_managed_exit),
	BIND_DRIVER(cuMemAllocManaged, 0, NULL, cu_mem_alloc_managed_exit),
	BIND_RUNTIME(cudaFree_v3020, 0, cuda_free_enter, release_exit),
	BIND_DRIVER(cuMemFree_v2, 0, cu_mem_free_enter, release_exit),

	BIND_RUNTIME(cudaMallocHost_v3020, 0, NULL, cuda_malloc_host_exit),
	BIND_RUNTIME(cudaHostAlloc_v3020, 0, NULL, cuda_host_alloc_exit),
	BIND_DRIVER(cuMemAllocHost_v2, 0, NULL, cu_mem_alloc_host_exit),
	BIND_DRIVER(cuMemHostAlloc, 0, NULL, cu_mem_host_alloc_exit),
	BIND_RUNTIME(cudaFreeHost_v3020, 0, cuda_free_host_enter, release_exit),
	BIND_DRIVER(cuMemFreeHost, 0, cu_mem_free_host_enter, release_exit),
	BIND_RUNTIME(cudaHostRegister_v4000, 0, NULL, cuda_host_register_exit),
	BIND_DRIVER(cuMemHostRegister, 0, NULL, cu_mem_host_register_exit),
	BIND_DRIVER(cuMemHostRegister_v2, 0, NULL, cu_mem_host_register_exit),
	BIND_RUNTIME(cudaHostUnregister_v4000, 0, cuda_host_unregister_enter, release_exit),
	BIND_DRIVER(cuMemHostUnregister, 0, cu_mem_host_unregister_enter, release_exit),

	BIND_RUNTIME_PT(cudaMallocAsync, v11020, ptsz_v11020, 0, NULL, cuda_malloc_async_exit),
	BIND_RUNTIME_PT(cudaMallocFromPoolAsync, v11020, ptsz_v11020, 0, NULL,
	                cuda_malloc_from_pool_async_exit),
	BIND_DRIVER_PT(cuMemAllocAsync, ptsz, 0, NULL, cu_mem_alloc_async_exit),
	BIND_DRIVER_PT(cuMemAllocFromPoolAsync, ptsz, 0, NULL, cu_mem_alloc_from_pool_async_exit),
	BIND_RUNTIME_PT(cudaFreeAsync, v11020, ptsz_v11020, 0, cuda_free_async_enter, release_exit),
	BIND_DRIVER_PT(cuMemFreeAsync, ptsz, 0, cu_mem_free_async_enter, release_exit),

	BIND_DRIVER(cuMemCreate, 0, NULL, cu_mem_create_exit),
	BIND_DRIVER(cuMemRelease, 0, cu_mem_release_enter, release_exit),
	BIND_DRIVER(cuMemRetainAllocationHandle, 0, NULL, cu_mem_retain_allocation_handle_exit),
	BIND_DRIVER(cuMemMap, 0, NULL, cu_mem_map_exit),
	BIND_DRIVER(cuMemUnmap, 0, cu_mem_unmap_enter, release_exit),
	BIND_END,
};

const struct api_family alloc_family = { .bindings = alloc_bindings };
