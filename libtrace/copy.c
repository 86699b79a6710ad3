/* SPDX-License-Identifier: MIT */
/*
 * copy.c - copies and memsets: memcpy and memset events.
 *
 * The direction comes from the call (cudaMemcpyKind, or the driver entry
 * point's name); cudaMemcpyDefault and cuMemcpy resolve it from the
 * tracker, as unified addressing does. Whether the host side is pinned also
 * comes from the tracker's page-locked ranges. Nothing here changes the
 * tracker, so everything is skipped when the event is disabled. A copy or
 * memset on a capturing stream only adds a node to a graph: it is no
 * operation (capture.h). A copy or memset its thread recorded whole a
 * moment before is recorded by a repeat (repeats.h).
 */
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cupti.h>

#include "api-call.h"
#include "call-stack.h"
#include "capture.h"
#include "contract/mix64.h"
#include "cudatrace-tp.h"
#include "recorded-ops.h"
#include "state.h"

/* One side of a copy as the tracker sees it. */
struct side {
	bool on_device;
	bool pinned;
	bool device_memory;  /* the tracker holds it as device or managed memory */
	bool host_alloc;     /* ... as cudaHostAlloc's memory (not a registered range) */
	bool write_combined; /* ... as write-combined memory, slow for the CPU to read */
	uint8_t device;
};

static struct side lookup_side(const struct api_call *call, uint64_t address)
{
	const struct tracker_entry *entry = handle_cache_range(call->cache, address);
	struct side side = { .device = CT_DEVICE_NONE };

	if (!entry)
		return side;
	side.on_device = !ct_mem_kind_is_host(entry->kind);
	side.pinned = !side.on_device;
	side.device_memory = side.on_device;
	side.host_alloc = entry->kind == CT_MEM_HOST_PINNED;
	side.write_combined = entry->write_combined;
	if (side.on_device)
		side.device = entry->device;
	return side;
}

/* A side the call says is device memory, whatever the tracker knows. */
static struct side device_side(const struct api_call *call, uint64_t address)
{
	struct side side = lookup_side(call, address);

	if (!side.on_device) {
		side.on_device = true;
		side.pinned = false;
		side.device = call_device(call);
	}
	return side;
}

/* A side the call says is host memory. */
static struct side host_side(const struct api_call *call, uint64_t address)
{
	struct side side = lookup_side(call, address);

	if (side.on_device)
		side = (struct side){ .device = CT_DEVICE_NONE, .device_memory = true };
	return side;
}

enum copy_hint {
	HINT_HTOD,
	HINT_DTOH,
	HINT_DTOD,
	HINT_HTOH,
	HINT_POINTERS, /* cudaMemcpyDefault, cuMemcpy: from the addresses */
};

static enum copy_hint hint_of_kind(enum cudaMemcpyKind kind)
{
	switch (kind) {
	case cudaMemcpyHostToHost:
		return HINT_HTOH;
	case cudaMemcpyHostToDevice:
		return HINT_HTOD;
	case cudaMemcpyDeviceToHost:
		return HINT_DTOH;
	case cudaMemcpyDeviceToDevice:
		return HINT_DTOD;
	default:
		return HINT_POINTERS;
	}
}

/*
 * A copy or memset of no bytes (a count of 0, a 2D one of no width or no
 * height) is no operation: the call succeeds and CUDA does nothing, no GPU
 * work and no activity record. Its call stays in the trace (api_call);
 * an operation event would be a copy that never was, waiting for a GPU
 * record that never comes.
 */
static bool no_bytes(uint64_t bytes)
{
	return bytes == 0;
}

struct copy_desc {
	uint64_t dst;
	uint64_t src;
	uint64_t bytes;
	enum copy_hint hint;
	bool async;
	CUstream stream; /* NULL: the default stream of the call's variant */
};

static uint8_t direction_of(const struct side *src, const struct side *dst)
{
	if (src->on_device && dst->on_device)
		return src->device == dst->device ? CT_DIR_DTOD : CT_DIR_PTOP;
	if (src->on_device)
		return CT_DIR_DTOH;
	return dst->on_device ? CT_DIR_HTOD : CT_DIR_HTOH;
}

static uint8_t host_of(uint8_t direction, const struct side *src, const struct side *dst)
{
	switch (direction) {
	case CT_DIR_HTOD:
		return src->pinned ? CT_HOST_PINNED : CT_HOST_PAGEABLE;
	case CT_DIR_DTOH:
		return dst->pinned ? CT_HOST_PINNED : CT_HOST_PAGEABLE;
	case CT_DIR_HTOH:
		return src->pinned && dst->pinned ? CT_HOST_PINNED : CT_HOST_PAGEABLE;
	default:
		return CT_HOST_NONE;
	}
}

static void resolve_sides(const struct api_call *call, const struct copy_desc *d, struct side *src,
                          struct side *dst)
{
	switch (d->hint) {
	case HINT_HTOD:
		*src = host_side(call, d->src);
		*dst = device_side(call, d->dst);
		break;
	case HINT_DTOH:
		*src = device_side(call, d->src);
		*dst = host_side(call, d->dst);
		break;
	case HINT_DTOD:
		*src = device_side(call, d->src);
		*dst = device_side(call, d->dst);
		break;
	case HINT_HTOH:
		*src = host_side(call, d->src);
		*dst = host_side(call, d->dst);
		break;
	case HINT_POINTERS:
		*src = lookup_side(call, d->src);
		*dst = lookup_side(call, d->dst);
		break;
	}
}

/*
 * The uploads smaller than this whose host memory the tracker does not
 * know are not sampled: reading it takes a system call (sample_bytes),
 * which such a copy would pay for more than once over.
 */
#define SAMPLE_UNKNOWN_MIN_BYTES 4096u

/* The words an upload is sampled at (doc/events.md, memcpy). */
#define SAMPLE_WORDS 8

/*
 * Reads the sampled bytes of [src, src + bytes) into WORDS: all of them
 * when they fit (the rest 0), else SAMPLE_WORDS words spread evenly, the
 * first and the last included. cudaHostAlloc's memory is read directly:
 * the copy has just read it, and it is ordinary memory. Any other is read
 * through process_vm_readv(2), which fails where the process cannot read
 * instead of faulting: a copy that UVA ran from device memory the tracker
 * does not know, whatever kind the program gave, or a registered range of
 * I/O memory, must not kill the program or touch a device. False when it
 * cannot be read, or is not worth a system call.
 */
static bool sample_bytes(uint64_t src, uint64_t bytes, bool host_alloc,
                         uint64_t words[SAMPLE_WORDS])
{
	const size_t all = SAMPLE_WORDS * sizeof(uint64_t);
	struct iovec local = { words, all };
	struct iovec remote[SAMPLE_WORDS];
	uint64_t step;

	if (!host_alloc && bytes < SAMPLE_UNKNOWN_MIN_BYTES)
		return false;
	if (bytes <= all) {
		memset(words, 0, all);
		memcpy(words, (const void *)(uintptr_t)src, (size_t)bytes); /* host_alloc here */
		return true;
	}
	step = (bytes - sizeof(uint64_t)) / (SAMPLE_WORDS - 1);
	for (unsigned i = 0; i < SAMPLE_WORDS; i++) {
		uint64_t at = i == SAMPLE_WORDS - 1 ? bytes - sizeof(uint64_t) : step * i;

		if (host_alloc)
			memcpy(&words[i], (const void *)(uintptr_t)(src + at), sizeof(uint64_t));
		else
			remote[i] =
			    (struct iovec){ (void *)(uintptr_t)(src + at), sizeof(uint64_t) };
	}
	return host_alloc ||
	       process_vm_readv(getpid(), &local, 1, remote, SAMPLE_WORDS, 0) == (ssize_t)all;
}

/*
 * What an upload sent, sampled (the memcpy event's sample): a hash of its
 * host bytes at the call's return, as sample_bytes reads them, so that a
 * reader can tell a buffer uploaded again unchanged from one refilled in
 * between (a data loader's pinned staging buffer). 0 when not sampled: not
 * an upload, host memory the tracker holds as device memory (managed
 * memory read by the CPU would migrate) or as write-combined (uncached:
 * each word read would cost more than the call), or that cannot be read.
 */
static uint64_t upload_sample(const struct copy_desc *d, uint8_t direction, const struct side *src)
{
	uint64_t words[SAMPLE_WORDS], h = tracer.sample_key;

	if (direction != CT_DIR_HTOD || src->device_memory || src->write_combined ||
	    !sample_bytes(d->src, d->bytes, src->host_alloc, words))
		return 0;
	for (unsigned i = 0; i < SAMPLE_WORDS; i++)
		h = (h ^ words[i]) * UINT64_C(0x9e3779b97f4a7c15);
	h = ct_mix64(h);
	return h ? h : 1;
}

/* A copy; SAMPLED: its bytes are side by side, so an upload is sampled. */
static void emit_copy_of(struct api_call *call, const struct copy_desc *d, bool sampled)
{
	struct side src = { 0 }, dst = { 0 };
	struct ct_ev_memcpy e;

	if (call_failed(call) || no_bytes(d->bytes) ||
	    !lttng_ust_tracepoint_enabled(cudatrace, memcpy) ||
	    capture_stream_is_capturing(call, d->stream))
		return;
	resolve_sides(call, d, &src, &dst);
	e = (struct ct_ev_memcpy){
		.src = d->src,
		.dst = d->dst,
		.bytes = d->bytes,
		.stream = call_stream(call, d->stream),
		.direction = direction_of(&src, &dst),
		.sync = !d->async,
		.src_device = src.on_device ? src.device : (uint8_t)CT_DEVICE_NONE,
		.dst_device = dst.on_device ? dst.device : (uint8_t)CT_DEVICE_NONE,
		.api = call_record(call),
	};
	e.host = host_of(e.direction, &src, &dst);
	e.sample = sampled ? upload_sample(d, e.direction, &src) : 0;
	call_note_name(call);
	call_stack_note_operation(call, e.api.correlation_id);
	/* its bytes and stream need not be in its record (gpu_memcpy_times) */
	REPEAT_OR_WRITE(call, memcpy, &e, RECORDED_WHOLE);
}

static void emit_copy(struct api_call *call, const struct copy_desc *d)
{
	emit_copy_of(call, d, true);
}

/* A 2D copy, whose rows are a pitch apart: not sampled. */
static void emit_strided_copy(struct api_call *call, const struct copy_desc *d)
{
	emit_copy_of(call, d, false);
}

/* ------------------------------------------------------- runtime copies */

/* cudaMemcpy and cudaMemcpy_ptds share a layout; so do the Async pair. */
static void cuda_memcpy_exit(struct api_call *call)
{
	const cudaMemcpy_v3020_params *p = call_params(call);
	struct copy_desc d = { PTR(p->dst),           PTR(p->src), p->count,
		               hint_of_kind(p->kind), false,       NULL };

	emit_copy(call, &d);
}

static void cuda_memcpy_async_exit(struct api_call *call)
{
	const cudaMemcpyAsync_v3020_params *p = call_params(call);
	struct copy_desc d = { PTR(p->dst),           PTR(p->src), p->count,
		               hint_of_kind(p->kind), true,        (CUstream)p->stream };

	emit_copy(call, &d);
}

static void cuda_memcpy_2d_exit(struct api_call *call)
{
	const cudaMemcpy2D_v3020_params *p = call_params(call);
	struct copy_desc d = { PTR(p->dst),           PTR(p->src), (uint64_t)p->width * p->height,
		               hint_of_kind(p->kind), false,       NULL };

	emit_strided_copy(call, &d);
}

static void cuda_memcpy_2d_async_exit(struct api_call *call)
{
	const cudaMemcpy2DAsync_v3020_params *p = call_params(call);
	struct copy_desc d = { PTR(p->dst),           PTR(p->src), (uint64_t)p->width * p->height,
		               hint_of_kind(p->kind), true,        (CUstream)p->stream };

	emit_strided_copy(call, &d);
}

static void cuda_memcpy_peer_exit(struct api_call *call)
{
	const cudaMemcpyPeer_v4000_params *p = call_params(call);
	struct copy_desc d = { PTR(p->dst), PTR(p->src), p->count, HINT_DTOD, false, NULL };

	emit_copy(call, &d);
}

static void cuda_memcpy_peer_async_exit(struct api_call *call)
{
	const cudaMemcpyPeerAsync_v4000_params *p = call_params(call);
	struct copy_desc d = { PTR(p->dst), PTR(p->src), p->count,
		               HINT_DTOD,   true,        (CUstream)p->stream };

	emit_copy(call, &d);
}

/* The device address of a symbol needs a CUDA call, which a callback must
 * not make: the device side of symbol copies is recorded as 0. */
static void cuda_memcpy_to_symbol_exit(struct api_call *call)
{
	const cudaMemcpyToSymbol_v3020_params *p = call_params(call);
	struct copy_desc d = { 0, PTR(p->src), p->count, hint_of_kind(p->kind), false, NULL };

	emit_copy(call, &d);
}

static void cuda_memcpy_from_symbol_exit(struct api_call *call)
{
	const cudaMemcpyFromSymbol_v3020_params *p = call_params(call);
	struct copy_desc d = { PTR(p->dst), 0, p->count, hint_of_kind(p->kind), false, NULL };

	emit_copy(call, &d);
}

static void cuda_memcpy_to_symbol_async_exit(struct api_call *call)
{
	const cudaMemcpyToSymbolAsync_v3020_params *p = call_params(call);
	struct copy_desc d = { 0,    PTR(p->src),        p->count, hint_of_kind(p->kind),
		               true, (CUstream)p->stream };

	emit_copy(call, &d);
}

static void cuda_memcpy_from_symbol_async_exit(struct api_call *call)
{
	const cudaMemcpyFromSymbolAsync_v3020_params *p = call_params(call);
	struct copy_desc d = { PTR(p->dst),           0,    p->count,
		               hint_of_kind(p->kind), true, (CUstream)p->stream };

	emit_copy(call, &d);
}

/* -------------------------------------------------------- driver copies */

static void cu_memcpy_exit(struct api_call *call)
{
	const cuMemcpy_params *p = call_params(call);
	struct copy_desc d = { p->dst, p->src, p->ByteCount, HINT_POINTERS, false, NULL };

	emit_copy(call, &d);
}

static void cu_memcpy_async_exit(struct api_call *call)
{
	const cuMemcpyAsync_params *p = call_params(call);
	struct copy_desc d = { p->dst, p->src, p->ByteCount, HINT_POINTERS, true, p->hStream };

	emit_copy(call, &d);
}

static void cu_memcpy_htod_exit(struct api_call *call)
{
	const cuMemcpyHtoD_v2_params *p = call_params(call);
	struct copy_desc d = {
		p->dstDevice, PTR(p->srcHost), p->ByteCount, HINT_HTOD, false, NULL
	};

	emit_copy(call, &d);
}

static void cu_memcpy_htod_async_exit(struct api_call *call)
{
	const cuMemcpyHtoDAsync_v2_params *p = call_params(call);
	struct copy_desc d = { p->dstDevice, PTR(p->srcHost), p->ByteCount, HINT_HTOD,
		               true,         p->hStream };

	emit_copy(call, &d);
}

static void cu_memcpy_dtoh_exit(struct api_call *call)
{
	const cuMemcpyDtoH_v2_params *p = call_params(call);
	struct copy_desc d = {
		PTR(p->dstHost), p->srcDevice, p->ByteCount, HINT_DTOH, false, NULL
	};

	emit_copy(call, &d);
}

static void cu_memcpy_dtoh_async_exit(struct api_call *call)
{
	const cuMemcpyDtoHAsync_v2_params *p = call_params(call);
	struct copy_desc d = { PTR(p->dstHost), p->srcDevice, p->ByteCount,
		               HINT_DTOH,       true,         p->hStream };

	emit_copy(call, &d);
}

static void cu_memcpy_dtod_exit(struct api_call *call)
{
	const cuMemcpyDtoD_v2_params *p = call_params(call);
	struct copy_desc d = { p->dstDevice, p->srcDevice, p->ByteCount, HINT_DTOD, false, NULL };

	emit_copy(call, &d);
}

static void cu_memcpy_dtod_async_exit(struct api_call *call)
{
	const cuMemcpyDtoDAsync_v2_params *p = call_params(call);
	struct copy_desc d = {
		p->dstDevice, p->srcDevice, p->ByteCount, HINT_DTOD, true, p->hStream
	};

	emit_copy(call, &d);
}

static void cu_memcpy_peer_exit(struct api_call *call)
{
	const cuMemcpyPeer_params *p = call_params(call);
	struct copy_desc d = { p->dstDevice, p->srcDevice, p->ByteCount, HINT_DTOD, false, NULL };

	emit_copy(call, &d);
}

static void cu_memcpy_peer_async_exit(struct api_call *call)
{
	const cuMemcpyPeerAsync_params *p = call_params(call);
	struct copy_desc d = {
		p->dstDevice, p->srcDevice, p->ByteCount, HINT_DTOD, true, p->hStream
	};

	emit_copy(call, &d);
}

/* The first byte of one side of a CUDA_MEMCPY2D, and what it is. */
static uint64_t copy2d_address(CUmemorytype type, const void *host, CUdeviceptr device, size_t x,
                               size_t y, size_t pitch)
{
	uint64_t base = type == CU_MEMORYTYPE_HOST ? PTR(host) : (uint64_t)device;

	return base + (uint64_t)y * pitch + x;
}

static enum copy_hint copy2d_hint(const CUDA_MEMCPY2D *c)
{
	bool src_host = c->srcMemoryType == CU_MEMORYTYPE_HOST;
	bool dst_host = c->dstMemoryType == CU_MEMORYTYPE_HOST;

	if (c->srcMemoryType == CU_MEMORYTYPE_UNIFIED || c->dstMemoryType == CU_MEMORYTYPE_UNIFIED)
		return HINT_POINTERS;
	if (src_host)
		return dst_host ? HINT_HTOH : HINT_HTOD;
	return dst_host ? HINT_DTOH : HINT_DTOD;
}

static void emit_copy2d(struct api_call *call, const CUDA_MEMCPY2D *c, bool async, CUstream s)
{
	struct copy_desc d;

	if (!c)
		return;
	d = (struct copy_desc){
		.dst = copy2d_address(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes,
		                      c->dstY, c->dstPitch),
		.src = copy2d_address(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes,
		                      c->srcY, c->srcPitch),
		.bytes = (uint64_t)c->WidthInBytes * c->Height,
		.hint = copy2d_hint(c),
		.async = async,
		.stream = s,
	};
	emit_strided_copy(call, &d);
}

static void cu_memcpy_2d_exit(struct api_call *call)
{
	const cuMemcpy2D_v2_params *p = call_params(call);

	emit_copy2d(call, p->pCopy, false, NULL);
}

static void cu_memcpy_2d_async_exit(struct api_call *call)
{
	const cuMemcpy2DAsync_v2_params *p = call_params(call);

	emit_copy2d(call, p->pCopy, true, p->hStream);
}

/* -------------------------------------------------------------- memsets */

struct memset_desc {
	uint64_t address;
	uint64_t bytes;
	uint32_t value;
	uint8_t element_size;
	bool async;
	CUstream stream;
};

static void emit_memset(struct api_call *call, const struct memset_desc *d)
{
	const struct tracker_entry *entry;
	struct ct_ev_memset e;

	if (call_failed(call) || no_bytes(d->bytes) ||
	    !lttng_ust_tracepoint_enabled(cudatrace, memset) ||
	    capture_stream_is_capturing(call, d->stream))
		return;
	e = (struct ct_ev_memset){
		.address = d->address,
		.bytes = d->bytes,
		.value = d->value,
		.stream = call_stream(call, d->stream),
		.element_size = d->element_size,
		.sync = !d->async,
		.device = call_device(call),
		.api = call_record(call),
	};
	entry = handle_cache_range(call->cache, d->address);
	if (entry && !ct_mem_kind_is_host(entry->kind))
		e.device = entry->device;
	call_note_name(call);
	call_stack_note_operation(call, e.api.correlation_id);
	/* its bytes, value and stream need not be in its record (gpu_memset_times) */
	REPEAT_OR_WRITE(call, memset, &e, RECORDED_WHOLE);
}

/* The runtime converts the value to unsigned char. */
static void cuda_memset_exit(struct api_call *call)
{
	const cudaMemset_v3020_params *p = call_params(call);
	struct memset_desc d = {
		PTR(p->devPtr), p->count, (unsigned char)p->value, 1, false, NULL
	};

	emit_memset(call, &d);
}

static void cuda_memset_async_exit(struct api_call *call)
{
	const cudaMemsetAsync_v3020_params *p = call_params(call);
	struct memset_desc d = { PTR(p->devPtr), p->count,           (unsigned char)p->value, 1,
		                 true,           (CUstream)p->stream };

	emit_memset(call, &d);
}

static void cuda_memset_2d_exit(struct api_call *call)
{
	const cudaMemset2D_v3020_params *p = call_params(call);
	struct memset_desc d = { PTR(p->devPtr),
		                 (uint64_t)p->width * p->height,
		                 (unsigned char)p->value,
		                 1,
		                 false,
		                 NULL };

	emit_memset(call, &d);
}

static void cuda_memset_2d_async_exit(struct api_call *call)
{
	const cudaMemset2DAsync_v3020_params *p = call_params(call);
	struct memset_desc d = { PTR(p->devPtr),
		                 (uint64_t)p->width * p->height,
		                 (unsigned char)p->value,
		                 1,
		                 true,
		                 (CUstream)p->stream };

	emit_memset(call, &d);
}

static void cu_memset_d8_exit(struct api_call *call)
{
	const cuMemsetD8_v2_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, p->N, p->uc, 1, false, NULL };

	emit_memset(call, &d);
}

static void cu_memset_d16_exit(struct api_call *call)
{
	const cuMemsetD16_v2_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, (uint64_t)p->N * 2, p->us, 2, false, NULL };

	emit_memset(call, &d);
}

static void cu_memset_d32_exit(struct api_call *call)
{
	const cuMemsetD32_v2_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, (uint64_t)p->N * 4, p->ui, 4, false, NULL };

	emit_memset(call, &d);
}

static void cu_memset_d8_async_exit(struct api_call *call)
{
	const cuMemsetD8Async_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, p->N, p->uc, 1, true, p->hStream };

	emit_memset(call, &d);
}

static void cu_memset_d16_async_exit(struct api_call *call)
{
	const cuMemsetD16Async_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, (uint64_t)p->N * 2, p->us, 2, true, p->hStream };

	emit_memset(call, &d);
}

static void cu_memset_d32_async_exit(struct api_call *call)
{
	const cuMemsetD32Async_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, (uint64_t)p->N * 4, p->ui, 4, true, p->hStream };

	emit_memset(call, &d);
}

static void cu_memset_d2d8_exit(struct api_call *call)
{
	const cuMemsetD2D8_v2_params *p = call_params(call);
	struct memset_desc d = {
		p->dstDevice, (uint64_t)p->Width * p->Height, p->uc, 1, false, NULL
	};

	emit_memset(call, &d);
}

static void cu_memset_d2d16_exit(struct api_call *call)
{
	const cuMemsetD2D16_v2_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, (uint64_t)p->Width * 2 * p->Height, p->us, 2, false,
		                 NULL };

	emit_memset(call, &d);
}

static void cu_memset_d2d32_exit(struct api_call *call)
{
	const cuMemsetD2D32_v2_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, (uint64_t)p->Width * 4 * p->Height, p->ui, 4, false,
		                 NULL };

	emit_memset(call, &d);
}

static void cu_memset_d2d8_async_exit(struct api_call *call)
{
	const cuMemsetD2D8Async_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, (uint64_t)p->Width * p->Height, p->uc, 1, true,
		                 p->hStream };

	emit_memset(call, &d);
}

static void cu_memset_d2d16_async_exit(struct api_call *call)
{
	const cuMemsetD2D16Async_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, (uint64_t)p->Width * 2 * p->Height, p->us, 2, true,
		                 p->hStream };

	emit_memset(call, &d);
}

static void cu_memset_d2d32_async_exit(struct api_call *call)
{
	const cuMemsetD2D32Async_params *p = call_params(call);
	struct memset_desc d = { p->dstDevice, (uint64_t)p->Width * 4 * p->Height, p->ui, 4, true,
		                 p->hStream };

	emit_memset(call, &d);
}

static const struct api_binding copy_bindings[] = {
	BIND_RUNTIME_PT(cudaMemcpy, v3020, ptds_v7000, 0, NULL, cuda_memcpy_exit),
	BIND_RUNTIME_PT(cudaMemcpyAsync, v3020, ptsz_v7000, 0, NULL, cuda_memcpy_async_exit),
	BIND_RUNTIME_PT(cudaMemcpy2D, v3020, ptds_v7000, 0, NULL, cuda_memcpy_2d_exit),
	BIND_RUNTIME_PT(cudaMemcpy2DAsync, v3020, ptsz_v7000, 0, NULL, cuda_memcpy_2d_async_exit),
	BIND_RUNTIME(cudaMemcpyPeer_v4000, 0, NULL, cuda_memcpy_peer_exit),
	BIND_RUNTIME(cudaMemcpyPeerAsync_v4000, 0, NULL, cuda_memcpy_peer_async_exit),
	BIND_RUNTIME_PT(cudaMemcpyToSymbol, v3020, ptds_v7000, 0, NULL, cuda_memcpy_to_symbol_exit),
	BIND_RUNTIME_PT(cudaMemcpyFromSymbol, v3020, ptds_v7000, 0, NULL,
	                cuda_memcpy_from_symbol_exit),
	BIND_RUNTIME_PT(cudaMemcpyToSymbolAsync, v3020, ptsz_v7000, 0, NULL,
	                cuda_memcpy_to_symbol_async_exit),
	BIND_RUNTIME_PT(cudaMemcpyFromSymbolAsync, v3020, ptsz_v7000, 0, NULL,
	                cuda_memcpy_from_symbol_async_exit),

	BIND_DRIVER_PT(cuMemcpy, ptds, 0, NULL, cu_memcpy_exit),
	BIND_DRIVER_PT(cuMemcpyAsync, ptsz, 0, NULL, cu_memcpy_async_exit),
	BIND_DRIVER_PT(cuMemcpyHtoD_v2, ptds, 0, NULL, cu_memcpy_htod_exit),
	BIND_DRIVER_PT(cuMemcpyHtoDAsync_v2, ptsz, 0, NULL, cu_memcpy_htod_async_exit),
	BIND_DRIVER_PT(cuMemcpyDtoH_v2, ptds, 0, NULL, cu_memcpy_dtoh_exit),
	BIND_DRIVER_PT(cuMemcpyDtoHAsync_v2, ptsz, 0, NULL, cu_memcpy_dtoh_async_exit),
	BIND_DRIVER_PT(cuMemcpyDtoD_v2, ptds, 0, NULL, cu_memcpy_dtod_exit),
	BIND_DRIVER_PT(cuMemcpyDtoDAsync_v2, ptsz, 0, NULL, cu_memcpy_dtod_async_exit),
	BIND_DRIVER_PT(cuMemcpyPeer, ptds, 0, NULL, cu_memcpy_peer_exit),
	BIND_DRIVER_PT(cuMemcpyPeerAsync, ptsz, 0, NULL, cu_memcpy_peer_async_exit),
	BIND_DRIVER_PT(cuMemcpy2D_v2, ptds, 0, NULL, cu_memcpy_2d_exit),
	BIND_DRIVER_PT(cuMemcpy2DAsync_v2, ptsz, 0, NULL, cu_memcpy_2d_async_exit),

	BIND_RUNTIME_PT(cudaMemset, v3020, ptds_v7000, 0, NULL, cuda_memset_exit),
	BIND_RUNTIME_PT(cudaMemsetAsync, v3020, ptsz_v7000, 0, NULL, cuda_memset_async_exit),
	BIND_RUNTIME_PT(cudaMemset2D, v3020, ptds_v7000, 0, NULL, cuda_memset_2d_exit),
	BIND_RUNTIME_PT(cudaMemset2DAsync, v3020, ptsz_v7000, 0, NULL, cuda_memset_2d_async_exit),

	BIND_DRIVER_PT(cuMemsetD8_v2, ptds, 0, NULL, cu_memset_d8_exit),
	BIND_DRIVER_PT(cuMemsetD16_v2, ptds, 0, NULL, cu_memset_d16_exit),
	BIND_DRIVER_PT(cuMemsetD32_v2, ptds, 0, NULL, cu_memset_d32_exit),
	BIND_DRIVER_PT(cuMemsetD8Async, ptsz, 0, NULL, cu_memset_d8_async_exit),
	BIND_DRIVER_PT(cuMemsetD16Async, ptsz, 0, NULL, cu_memset_d16_async_exit),
	BIND_DRIVER_PT(cuMemsetD32Async, ptsz, 0, NULL, cu_memset_d32_async_exit),
	BIND_DRIVER_PT(cuMemsetD2D8_v2, ptds, 0, NULL, cu_memset_d2d8_exit),
	BIND_DRIVER_PT(cuMemsetD2D16_v2, ptds, 0, NULL, cu_memset_d2d16_exit),
	BIND_DRIVER_PT(cuMemsetD2D32_v2, ptds, 0, NULL, cu_memset_d2d32_exit),
	BIND_DRIVER_PT(cuMemsetD2D8Async, ptsz, 0, NULL, cu_memset_d2d8_async_exit),
	BIND_DRIVER_PT(cuMemsetD2D16Async, ptsz, 0, NULL, cu_memset_d2d16_async_exit),
	BIND_DRIVER_PT(cuMemsetD2D32Async, ptsz, 0, NULL, cu_memset_d2d32_async_exit),
	BIND_END,
};

static bool copies_wanted(void)
{
	return api_events_wanted() || lttng_ust_tracepoint_enabled(cudatrace, memcpy) ||
	       lttng_ust_tracepoint_enabled(cudatrace, memset);
}

const struct api_family copy_family = {
	.bindings = copy_bindings,
	.wanted = copies_wanted,
	.repeats = true,
};
