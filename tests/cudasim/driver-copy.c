/* SPDX-License-Identifier: MIT */
/*
 * driver-copy.c - every memcpy and memset of the simulated driver: linear,
 * 2D, peer, synchronous and asynchronous. Their per-thread-stream twins
 * (_ptds, _ptsz) are generated (tools/gen-twins.sh): a synchronous copy
 * runs on sim_default_stream(), the thread's own in a _ptds twin's frame.
 *
 * Device memory is host-addressable in the simulator, so a copy moves the
 * real bytes with memmove when it is submitted; its GPU time comes from the
 * stream timeline (driver-stream.c): copy latency + bytes / bandwidth of its
 * direction. Whether the calling thread then waits for the GPU end follows
 * NVIDIA's "API synchronization behavior" page of the CUDA Runtime API
 * documentation.
 */
#include <inttypes.h>
#include <string.h>
#include "driver-internal.h"

/* Addresses below the kernel's default mmap_min_addr are never mapped: no
 * allocation or host buffer can live there. */
#define LOWEST_VALID_ADDRESS 0x10000u
/* CU_DEVICE_ATTRIBUTE_MAX_PITCH of current GPUs; cuMemcpy2D rejects larger
 * pitches (cuda.h, cuMemcpy2D). */
#define MAX_PITCH 2147483647u

/* ------------------------------------------------------------ pointers */

/* How strictly a pointer argument is checked. */
enum side_rule {
	SIDE_ANY,    /* host or device: unified addressing tells which */
	SIDE_DEVICE, /* a device pointer: must be memory the driver knows */
};

/* One side of a copy, or the target of a memset. */
struct copy_side {
	uintptr_t addr; /* first byte */
	enum sim_mem_kind kind;
	int device; /* -1: host memory */
	bool on_device;
};

static bool kind_is_pinned(enum sim_mem_kind kind)
{
	return kind == SIM_MEM_HOST_PINNED || kind == SIM_MEM_HOST_REGISTERED;
}

/* Bytes spanned by height rows of width bytes, pitch apart; false on
 * overflow. */
static bool span_of(size_t width, size_t height, size_t pitch, size_t *span)
{
	if (height <= 1) {
		*span = width;
		return true;
	}
	size_t rows_before_last = height - 1;
	if (pitch != 0 && rows_before_last > (SIZE_MAX - width) / pitch)
		return false;
	*span = rows_before_last * pitch + width;
	return true;
}

static CUresult resolve_side(uintptr_t addr, size_t span, enum side_rule rule,
                             struct copy_side *side)
{
	if (addr < LOWEST_VALID_ADDRESS || span > UINTPTR_MAX - addr)
		return CUDA_ERROR_INVALID_VALUE;
	side->addr = addr;
	struct sim_mem_region region;
	if (sim_mem_lookup(addr, span, &region)) {
		side->kind = region.kind;
		side->device = region.device;
		side->on_device = sim_mem_is_device_kind(region.kind);
		return CUDA_SUCCESS;
	}
	if (rule == SIDE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	/* Starting in a device allocation but running past its end. */
	if (sim_mem_lookup(addr, 1, &region) && sim_mem_is_device_kind(region.kind))
		return CUDA_ERROR_INVALID_VALUE;
	side->kind = SIM_MEM_PAGEABLE;
	side->device = -1;
	side->on_device = false;
	return CUDA_SUCCESS;
}

static CUpti_ActivityMemoryKind activity_memory_kind(enum sim_mem_kind kind)
{
	switch (kind) {
	case SIM_MEM_PAGEABLE:
		return CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	case SIM_MEM_HOST_PINNED:
	case SIM_MEM_HOST_REGISTERED:
		return CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	case SIM_MEM_MANAGED:
		return CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
	case SIM_MEM_DEVICE:
	case SIM_MEM_ASYNC:
	case SIM_MEM_VMM:
	case SIM_MEM_GRAPH:
		break;
	}
	return CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
}

/* GPU time of moving bytes at bandwidth bytes/s, after the fixed cost. */
static uint64_t transfer_ns(size_t bytes, double bandwidth)
{
	uint64_t latency = sim_config()->copy_latency_ns;
	if (!(bandwidth > 0))
		return latency;
	double ns = (double)bytes * 1e9 / bandwidth;
	if (ns >= (double)(UINT64_MAX - latency))
		return UINT64_MAX;
	return latency + (uint64_t)ns;
}

/* The work a stream got: where, when, on behalf of which call. */
struct gpu_work {
	struct sim_stream *stream;
	uint64_t stream_id;
	uint32_t ctx_id;
	int device;
	uint64_t start_ns;
	uint64_t end_ns;
	uint32_t correlation_id;
};

static void gpu_work_submit(struct gpu_work *work, uint64_t duration_ns)
{
	work->stream_id = sim_stream_get_id(work->stream);
	work->ctx_id = sim_stream_context_id(work->stream);
	work->device = sim_stream_device(work->stream);
	work->correlation_id = sim_current_correlation_id();
	sim_stream_submit(work->stream, duration_ns, &work->start_ns, &work->end_ns);
}

/* Fail with error, unless the driver or the current context has an error
 * of its own: those come first. */
static CUresult fail_in_context(CUresult error)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	return result != CUDA_SUCCESS ? result : error;
}

/* ------------------------------------------------------------ copies */

enum copy_direction { COPY_HTOD, COPY_DTOH, COPY_DTOD, COPY_HTOH, COPY_PTOP };

static const char *const direction_names[] = {
	[COPY_HTOD] = "HtoD", [COPY_DTOH] = "DtoH", [COPY_DTOD] = "DtoD",
	[COPY_HTOH] = "HtoH", [COPY_PTOP] = "PtoP",
};

static const CUpti_ActivityMemcpyKind direction_kinds[] = {
	[COPY_HTOD] = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
	[COPY_DTOH] = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH,
	[COPY_DTOD] = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD,
	[COPY_HTOH] = CUPTI_ACTIVITY_MEMCPY_KIND_HTOH,
	[COPY_PTOP] = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP,
};

/* What one copy call asks for. */
struct copy_request {
	uintptr_t dst;
	uintptr_t src;
	enum side_rule dst_rule;
	enum side_rule src_rule;
	size_t width;     /* bytes per row */
	size_t height;    /* rows; 1 for linear copies */
	size_t dst_pitch; /* ignored when height is 1 */
	size_t src_pitch;
	CUstream stream; /* CU_STREAM_LEGACY or CU_STREAM_PER_THREAD for sync calls */
	bool async;      /* an *Async entry point */
	/* cuMemcpyPeer*: the contexts the pointers must belong to, else NULL */
	CUcontext dst_context;
	CUcontext src_context;
};

/* What the copy turned out to be once its pointers are known. */
struct copy_plan {
	struct copy_side dst;
	struct copy_side src;
	size_t bytes;
	enum copy_direction direction;
	const char *host; /* ledger host=: "pageable", "pinned" or "none" */
	bool host_pageable;
	double bandwidth;
	uint32_t dst_ctx_id;
	uint32_t src_ctx_id;
};

static enum copy_direction classify(const struct copy_side *src, const struct copy_side *dst)
{
	if (src->on_device && dst->on_device)
		return src->device == dst->device ? COPY_DTOD : COPY_PTOP;
	if (src->on_device)
		return COPY_DTOH;
	return dst->on_device ? COPY_HTOD : COPY_HTOH;
}

static void plan_bandwidth(struct copy_plan *plan)
{
	const struct sim_config *config = sim_config();
	bool src_pinned = kind_is_pinned(plan->src.kind);
	bool dst_pinned = kind_is_pinned(plan->dst.kind);
	switch (plan->direction) {
	case COPY_HTOD:
		plan->host = src_pinned ? "pinned" : "pageable";
		plan->bandwidth = src_pinned ? config->bw_htod_pinned : config->bw_htod_pageable;
		break;
	case COPY_DTOH:
		plan->host = dst_pinned ? "pinned" : "pageable";
		plan->bandwidth = dst_pinned ? config->bw_dtoh_pinned : config->bw_dtoh_pageable;
		break;
	case COPY_HTOH:
		plan->host = src_pinned && dst_pinned ? "pinned" : "pageable";
		plan->bandwidth = config->bw_htoh;
		break;
	case COPY_DTOD:
		plan->host = "none";
		plan->bandwidth = config->bw_dtod;
		break;
	case COPY_PTOP:
		plan->host = "none";
		plan->bandwidth = config->bw_peer;
		break;
	}
}

/* cuMemcpyPeer: each pointer must be device memory of its context's device. */
static CUresult check_peer_side(CUcontext handle, const struct copy_side *side, uint32_t *ctx_id)
{
	struct sim_context *ctx = sim_ctx_from_handle(handle);
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!side->on_device || side->device != ctx->device)
		return CUDA_ERROR_INVALID_VALUE;
	*ctx_id = ctx->id;
	return CUDA_SUCCESS;
}

static CUresult plan_copy(const struct copy_request *req, struct copy_plan *plan)
{
	size_t dst_span, src_span;
	if (req->width > SIZE_MAX / req->height)
		return CUDA_ERROR_INVALID_VALUE;
	plan->bytes = req->width * req->height;
	if (!span_of(req->width, req->height, req->dst_pitch, &dst_span) ||
	    !span_of(req->width, req->height, req->src_pitch, &src_span))
		return CUDA_ERROR_INVALID_VALUE;
	CUresult result = resolve_side(req->dst, dst_span, req->dst_rule, &plan->dst);
	if (result != CUDA_SUCCESS)
		return result;
	result = resolve_side(req->src, src_span, req->src_rule, &plan->src);
	if (result != CUDA_SUCCESS)
		return result;
	plan->dst_ctx_id = 0;
	plan->src_ctx_id = 0;
	if (req->dst_context || req->src_context) {
		result = check_peer_side(req->dst_context, &plan->dst, &plan->dst_ctx_id);
		if (result != CUDA_SUCCESS)
			return result;
		result = check_peer_side(req->src_context, &plan->src, &plan->src_ctx_id);
		if (result != CUDA_SUCCESS)
			return result;
	}
	plan->direction = classify(&plan->src, &plan->dst);
	plan_bandwidth(plan);
	plan->host_pageable = strcmp(plan->host, "pageable") == 0;
	return CUDA_SUCCESS;
}

/*
 * Whether the calling thread waits for the copy's GPU end (API sync
 * behaviour): synchronous copies to or from the host wait, device to device
 * ones do not; asynchronous copies wait when their host side is pageable,
 * and host to host copies are synchronous either way. A synchronous copy
 * from pageable memory really returns once the data is staged; waiting for
 * the GPU end instead is the simpler model the README describes.
 */
static bool copy_blocks_host(const struct copy_request *req, const struct copy_plan *plan)
{
	switch (plan->direction) {
	case COPY_HTOH:
		return true;
	case COPY_HTOD:
	case COPY_DTOH:
		return !req->async || plan->host_pageable;
	case COPY_DTOD:
	case COPY_PTOP:
		break;
	}
	return false;
}

static void copy_bytes(const struct copy_request *req)
{
	for (size_t row = 0; row < req->height; row++) {
		size_t dst_offset = req->height > 1 ? row * req->dst_pitch : 0;
		size_t src_offset = req->height > 1 ? row * req->src_pitch : 0;
		memmove((void *)(req->dst + dst_offset), (const void *)(req->src + src_offset),
		        req->width);
	}
}

static uint32_t runtime_correlation_id(uint32_t correlation_id)
{
	uint32_t runtime_id = sim_current_runtime_correlation_id();
	return runtime_id ? runtime_id : correlation_id;
}

static void copy_ledger(const struct copy_request *req, const struct copy_plan *plan,
                        const struct gpu_work *work)
{
	char suffix[64];

	sim_ledger("op=memcpy dir=%s src=0x%" PRIxPTR " dst=0x%" PRIxPTR " bytes=%zu host=%s"
	           " sync=%d stream=%" PRIu64 " dev=%d src_dev=%d dst_dev=%d api=%s corr=%" PRIu32
	           " gpu_start=%" PRIu64 " gpu_end=%" PRIu64 "%s",
	           direction_names[plan->direction], plan->src.addr, plan->dst.addr, plan->bytes,
	           plan->host, req->async ? 0 : 1, work->stream_id, work->device, plan->src.device,
	           plan->dst.device, sim_current_api_name(), work->correlation_id, work->start_ns,
	           work->end_ns, sim_graph_ledger_suffix(suffix, sizeof(suffix)));
}

static void copy_record(const struct copy_request *req, const struct copy_plan *plan,
                        const struct gpu_work *work)
{
	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_MEMCPY))
		return;
	CUpti_ActivityMemcpy6 record;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	record.copyKind = (uint8_t)direction_kinds[plan->direction];
	record.srcKind = (uint8_t)activity_memory_kind(plan->src.kind);
	record.dstKind = (uint8_t)activity_memory_kind(plan->dst.kind);
	record.flags = req->async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
	record.bytes = plan->bytes;
	record.start = work->start_ns;
	record.end = work->end_ns;
	record.deviceId = (uint32_t)work->device;
	record.contextId = work->ctx_id;
	record.streamId = (uint32_t)work->stream_id;
	record.correlationId = work->correlation_id;
	record.runtimeCorrelationId = runtime_correlation_id(work->correlation_id);
	record.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
	record.copyCount = 1;
	sim_graph_replay_ids(&record.graphId, &record.graphNodeId);
	sim_activity((const CUpti_Activity *)&record, work->end_ns);
}

/* Peer copies are reported as MEMCPY2 (CUpti_ActivityMemcpyPtoP4). */
static void peer_record(const struct copy_request *req, const struct copy_plan *plan,
                        const struct gpu_work *work)
{
	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_MEMCPY2))
		return;
	CUpti_ActivityMemcpyPtoP4 record;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
	record.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
	record.srcKind = (uint8_t)activity_memory_kind(plan->src.kind);
	record.dstKind = (uint8_t)activity_memory_kind(plan->dst.kind);
	record.flags = req->async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
	record.bytes = plan->bytes;
	record.start = work->start_ns;
	record.end = work->end_ns;
	record.deviceId = (uint32_t)work->device;
	record.contextId = work->ctx_id;
	record.streamId = (uint32_t)work->stream_id;
	record.srcDeviceId = (uint32_t)plan->src.device;
	record.srcContextId = plan->src_ctx_id;
	record.dstDeviceId = (uint32_t)plan->dst.device;
	record.dstContextId = plan->dst_ctx_id;
	record.correlationId = work->correlation_id;
	record.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
	sim_activity((const CUpti_Activity *)&record, work->end_ns);
}

static CUresult copy_run(const struct copy_request *req)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	struct gpu_work work;
	result = sim_stream_resolve(ctx, req->stream, &work.stream);
	if (result != CUDA_SUCCESS)
		return result;
	/* Nothing to move: success, and no GPU work to report. */
	if (req->width == 0 || req->height == 0)
		return CUDA_SUCCESS;
	struct copy_plan plan;
	result = plan_copy(req, &plan);
	if (result != CUDA_SUCCESS)
		return result;
	if (sim_stream_capture_graph(work.stream)) {
		/* Captured: a memcpy node; synchronous copies cannot be. */
		if (!req->async)
			return sim_stream_capture_violation(work.stream);
		struct sim_graph_node node = { .kind = SIM_NODE_MEMCPY };
		node.u.copy.dst = req->dst;
		node.u.copy.src = req->src;
		node.u.copy.dst_rule = (int)req->dst_rule;
		node.u.copy.src_rule = (int)req->src_rule;
		node.u.copy.width = req->width;
		node.u.copy.height = req->height;
		node.u.copy.dst_pitch = req->dst_pitch;
		node.u.copy.src_pitch = req->src_pitch;
		return sim_graph_capture(work.stream, &node);
	}
	/* The bytes move first: the GPU work is submitted once the driver has
	 * taken the data, so that the host's memmove time, an artefact of the
	 * simulator, does not eat into the modelled GPU time. */
	copy_bytes(req);
	gpu_work_submit(&work, transfer_ns(plan.bytes, plan.bandwidth));
	/* Unified cuMemcpy between devices: the allocations' contexts are not
	 * known here; the copying context stands for the one on its device. */
	if (!req->dst_context && plan.dst.device == work.device)
		plan.dst_ctx_id = work.ctx_id;
	if (!req->src_context && plan.src.device == work.device)
		plan.src_ctx_id = work.ctx_id;
	copy_ledger(req, &plan, &work);
	if (plan.direction == COPY_PTOP)
		peer_record(req, &plan, &work);
	else
		copy_record(req, &plan, &work);
	if (copy_blocks_host(req, &plan))
		sim_wait_until(work.end_ns);
	return CUDA_SUCCESS;
}

static CUresult copy_linear(uintptr_t dst, enum side_rule dst_rule, uintptr_t src,
                            enum side_rule src_rule, size_t bytes, CUstream stream, bool async)
{
	struct copy_request req = {
		.dst = dst,
		.src = src,
		.dst_rule = dst_rule,
		.src_rule = src_rule,
		.width = bytes,
		.height = 1,
		.stream = stream,
		.async = async,
	};
	return copy_run(&req);
}

static CUresult copy_peer(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src,
                          CUcontext src_context, size_t bytes, CUstream stream, bool async)
{
	struct copy_request req = {
		.dst = (uintptr_t)dst,
		.src = (uintptr_t)src,
		.dst_rule = SIDE_DEVICE,
		.src_rule = SIDE_DEVICE,
		.width = bytes,
		.height = 1,
		.stream = stream,
		.async = async,
		.dst_context = dst_context,
		.src_context = src_context,
	};
	/* A NULL context is never valid here. */
	if (bytes && (!dst_context || !src_context))
		return fail_in_context(CUDA_ERROR_INVALID_CONTEXT);
	return copy_run(&req);
}

/* One end of a CUDA_MEMCPY2D: its start address and how it is checked. */
static CUresult parse_2d_side(CUmemorytype type, uintptr_t host, CUdeviceptr device, size_t x,
                              size_t y, size_t pitch, size_t width, size_t height, uintptr_t *start,
                              enum side_rule *rule)
{
	uintptr_t base;
	switch (type) {
	case CU_MEMORYTYPE_HOST:
		base = host;
		*rule = SIDE_ANY;
		break;
	case CU_MEMORYTYPE_DEVICE:
		base = (uintptr_t)device;
		*rule = SIDE_DEVICE;
		break;
	case CU_MEMORYTYPE_UNIFIED:
		base = (uintptr_t)device;
		*rule = SIDE_ANY;
		break;
	case CU_MEMORYTYPE_ARRAY:
		return CUDA_ERROR_NOT_SUPPORTED; /* no CUDA arrays here */
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* cuda.h: the pitch, where given, is at least WidthInBytes + XInBytes,
	 * and no larger than CU_DEVICE_ATTRIBUTE_MAX_PITCH. */
	if (pitch > MAX_PITCH || width > SIZE_MAX - x)
		return CUDA_ERROR_INVALID_VALUE;
	if ((pitch != 0 || height > 1) && pitch < width + x)
		return CUDA_ERROR_INVALID_VALUE;
	if (base == 0 || (pitch && y > SIZE_MAX / pitch) || y * pitch > SIZE_MAX - x)
		return CUDA_ERROR_INVALID_VALUE;
	size_t offset = y * pitch + x;
	if (offset > UINTPTR_MAX - base)
		return CUDA_ERROR_INVALID_VALUE;
	*start = base + offset;
	return CUDA_SUCCESS;
}

static CUresult copy_2d(const CUDA_MEMCPY2D *copy, CUstream stream, bool async)
{
	if (!copy)
		return fail_in_context(CUDA_ERROR_INVALID_VALUE);
	struct copy_request req = {
		.width = copy->WidthInBytes,
		.height = copy->Height,
		.dst_pitch = copy->dstPitch,
		.src_pitch = copy->srcPitch,
		.stream = stream,
		.async = async,
	};
	/* Nothing to move: no pointer needs to be valid. */
	if (req.width == 0 || req.height == 0)
		return copy_run(&req);
	CUresult result = parse_2d_side(
	    copy->dstMemoryType, (uintptr_t)copy->dstHost, copy->dstDevice, copy->dstXInBytes,
	    copy->dstY, copy->dstPitch, copy->WidthInBytes, copy->Height, &req.dst, &req.dst_rule);
	if (result == CUDA_SUCCESS)
		result =
		    parse_2d_side(copy->srcMemoryType, (uintptr_t)copy->srcHost, copy->srcDevice,
		                  copy->srcXInBytes, copy->srcY, copy->srcPitch, copy->WidthInBytes,
		                  copy->Height, &req.src, &req.src_rule);
	if (result != CUDA_SUCCESS)
		return fail_in_context(result);
	return copy_run(&req);
}

/* ------------------------------------------------------------ memsets */

/* What one memset call asks for. */
struct memset_request {
	uintptr_t dst;
	unsigned int value;
	size_t elem;   /* element size: 1, 2 or 4 bytes */
	size_t width;  /* elements per row */
	size_t height; /* rows; 1 for linear memsets */
	size_t pitch;  /* bytes between rows; ignored when height is 1 */
	CUstream stream;
	bool async;
};

static void fill_row(uintptr_t row, const struct memset_request *req)
{
	if (req->elem == 1) {
		memset((void *)row, (int)(req->value & 0xffu), req->width);
		return;
	}
	for (size_t i = 0; i < req->width; i++) {
		if (req->elem == 2) {
			uint16_t value = (uint16_t)req->value;
			memcpy((void *)(row + i * 2), &value, sizeof(value));
		} else {
			uint32_t value = req->value;
			memcpy((void *)(row + i * 4), &value, sizeof(value));
		}
	}
}

static void memset_ledger(const struct memset_request *req, size_t bytes,
                          const struct gpu_work *work)
{
	char suffix[64];

	sim_ledger("op=memset dev=%d dst=0x%" PRIxPTR " bytes=%zu value=%u elem=%zu sync=%d"
	           " stream=%" PRIu64 " api=%s corr=%" PRIu32 " gpu_start=%" PRIu64
	           " gpu_end=%" PRIu64 "%s",
	           work->device, req->dst, bytes, req->value, req->elem, req->async ? 0 : 1,
	           work->stream_id, sim_current_api_name(), work->correlation_id, work->start_ns,
	           work->end_ns, sim_graph_ledger_suffix(suffix, sizeof(suffix)));
}

static void memset_record(const struct memset_request *req, const struct copy_side *target,
                          size_t bytes, const struct gpu_work *work)
{
	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_MEMSET))
		return;
	CUpti_ActivityMemset4 record;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	record.value = req->value;
	record.bytes = bytes;
	record.start = work->start_ns;
	record.end = work->end_ns;
	record.deviceId = (uint32_t)work->device;
	record.contextId = work->ctx_id;
	record.streamId = (uint32_t)work->stream_id;
	record.correlationId = work->correlation_id;
	record.flags = req->async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : 0;
	record.memoryKind = (uint16_t)activity_memory_kind(target->kind);
	record.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
	sim_graph_replay_ids(&record.graphId, &record.graphNodeId);
	sim_activity((const CUpti_Activity *)&record, work->end_ns);
}

static CUresult memset_run(const struct memset_request *req)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	struct gpu_work work;
	result = sim_stream_resolve(ctx, req->stream, &work.stream);
	if (result != CUDA_SUCCESS)
		return result;
	if (req->width == 0 || req->height == 0)
		return CUDA_SUCCESS;
	/* Elements must be naturally aligned. */
	if (req->dst % req->elem != 0 || req->width > SIZE_MAX / req->elem)
		return CUDA_ERROR_INVALID_VALUE;
	size_t row_bytes = req->width * req->elem;
	if (req->height > 1 && req->pitch < row_bytes)
		return CUDA_ERROR_INVALID_VALUE;
	size_t span;
	if (row_bytes > SIZE_MAX / req->height ||
	    !span_of(row_bytes, req->height, req->pitch, &span))
		return CUDA_ERROR_INVALID_VALUE;
	size_t bytes = row_bytes * req->height;
	/* The target is device memory, or host memory mapped for the device. */
	struct copy_side target;
	result = resolve_side(req->dst, span, SIDE_DEVICE, &target);
	if (result != CUDA_SUCCESS)
		return result;
	if (sim_stream_capture_graph(work.stream)) {
		if (!req->async)
			return sim_stream_capture_violation(work.stream);
		struct sim_graph_node node = { .kind = SIM_NODE_MEMSET };
		node.u.memset.dst = req->dst;
		node.u.memset.value = req->value;
		node.u.memset.elem = req->elem;
		node.u.memset.width = req->width;
		node.u.memset.height = req->height;
		node.u.memset.pitch = req->pitch;
		return sim_graph_capture(work.stream, &node);
	}

	/* Filled before submission, as copies are (copy_run). */
	for (size_t row = 0; row < req->height; row++)
		fill_row(req->dst + (req->height > 1 ? row * req->pitch : 0), req);
	gpu_work_submit(&work, transfer_ns(bytes, sim_config()->bw_memset));
	memset_ledger(req, bytes, &work);
	memset_record(req, &target, bytes, &work);
	/* cudaMemset is asynchronous with respect to the host unless the
	 * target is pinned host memory or Unified Memory; *Async never waits. */
	if (!req->async && (target.kind == SIM_MEM_MANAGED || kind_is_pinned(target.kind)))
		sim_wait_until(work.end_ns);
	return CUDA_SUCCESS;
}

static CUresult memset_linear(CUdeviceptr dst, unsigned int value, size_t elem, size_t count,
                              CUstream stream, bool async)
{
	struct memset_request req = {
		.dst = (uintptr_t)dst,
		.value = value,
		.elem = elem,
		.width = count,
		.height = 1,
		.stream = stream,
		.async = async,
	};
	return memset_run(&req);
}

static CUresult memset_2d(CUdeviceptr dst, size_t pitch, unsigned int value, size_t elem,
                          size_t width, size_t height, CUstream stream, bool async)
{
	struct memset_request req = {
		.dst = (uintptr_t)dst,
		.value = value,
		.elem = elem,
		.width = width,
		.height = height,
		.pitch = pitch,
		.stream = stream,
		.async = async,
	};
	return memset_run(&req);
}

/* ------------------------------------------------------------ graph nodes */

/* Memcpy and memset nodes replay as the *Async calls they were captured
 * from, on the launch stream. */
HIDDEN CUresult sim_copy_node_run(const struct sim_graph_node *node, CUstream stream)
{
	struct copy_request req = {
		.dst = node->u.copy.dst,
		.src = node->u.copy.src,
		.dst_rule = (enum side_rule)node->u.copy.dst_rule,
		.src_rule = (enum side_rule)node->u.copy.src_rule,
		.width = node->u.copy.width,
		.height = node->u.copy.height,
		.dst_pitch = node->u.copy.dst_pitch,
		.src_pitch = node->u.copy.src_pitch,
		.stream = stream,
		.async = true,
	};
	return copy_run(&req);
}

HIDDEN CUresult sim_memset_node_run(const struct sim_graph_node *node, CUstream stream)
{
	struct memset_request req = {
		.dst = node->u.memset.dst,
		.value = node->u.memset.value,
		.elem = node->u.memset.elem,
		.width = node->u.memset.width,
		.height = node->u.memset.height,
		.pitch = node->u.memset.pitch,
		.stream = stream,
		.async = true,
	};
	return memset_run(&req);
}

/* ------------------------------------------------------------ entry points */

#define HOST_ADDR(ptr) ((uintptr_t)(ptr))

SIM_EXPORT CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
	cuMemcpy_params p = { dst, src, ByteCount };
	SIM_DRIVER_CALL(
	    cuMemcpy, p,
	    copy_linear(dst, SIDE_ANY, src, SIDE_ANY, ByteCount, sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                                          CUstream hStream)
{
	cuMemcpyAsync_params p = { dst, src, ByteCount, hStream };
	SIM_DRIVER_CALL(cuMemcpyAsync, p,
	                copy_linear(dst, SIDE_ANY, src, SIDE_ANY, ByteCount, hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost,
                                            size_t ByteCount)
{
	cuMemcpyHtoD_v2_params p = { dstDevice, srcHost, ByteCount };
	SIM_DRIVER_CALL(cuMemcpyHtoD_v2, p,
	                copy_linear(dstDevice, SIDE_DEVICE, HOST_ADDR(srcHost), SIDE_ANY, ByteCount,
	                            sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
	cuMemcpyDtoH_v2_params p = { dstHost, srcDevice, ByteCount };
	SIM_DRIVER_CALL(cuMemcpyDtoH_v2, p,
	                copy_linear(HOST_ADDR(dstHost), SIDE_ANY, srcDevice, SIDE_DEVICE, ByteCount,
	                            sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                            size_t ByteCount)
{
	cuMemcpyDtoD_v2_params p = { dstDevice, srcDevice, ByteCount };
	SIM_DRIVER_CALL(cuMemcpyDtoD_v2, p,
	                copy_linear(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount,
	                            sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost,
                                                 size_t ByteCount, CUstream hStream)
{
	cuMemcpyHtoDAsync_v2_params p = { dstDevice, srcHost, ByteCount, hStream };
	SIM_DRIVER_CALL(cuMemcpyHtoDAsync_v2, p,
	                copy_linear(dstDevice, SIDE_DEVICE, HOST_ADDR(srcHost), SIDE_ANY, ByteCount,
	                            hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice,
                                                 size_t ByteCount, CUstream hStream)
{
	cuMemcpyDtoHAsync_v2_params p = { dstHost, srcDevice, ByteCount, hStream };
	SIM_DRIVER_CALL(cuMemcpyDtoHAsync_v2, p,
	                copy_linear(HOST_ADDR(dstHost), SIDE_ANY, srcDevice, SIDE_DEVICE, ByteCount,
	                            hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                                 size_t ByteCount, CUstream hStream)
{
	cuMemcpyDtoDAsync_v2_params p = { dstDevice, srcDevice, ByteCount, hStream };
	SIM_DRIVER_CALL(
	    cuMemcpyDtoDAsync_v2, p,
	    copy_linear(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount, hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext,
                                         CUdeviceptr srcDevice, CUcontext srcContext,
                                         size_t ByteCount)
{
	cuMemcpyPeer_params p = { dstDevice, dstContext, srcDevice, srcContext, ByteCount };
	SIM_DRIVER_CALL(cuMemcpyPeer, p,
	                copy_peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount,
	                          sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
                                              CUdeviceptr srcDevice, CUcontext srcContext,
                                              size_t ByteCount, CUstream hStream)
{
	cuMemcpyPeerAsync_params p = { dstDevice,  dstContext, srcDevice,
		                       srcContext, ByteCount,  hStream };
	SIM_DRIVER_CALL(
	    cuMemcpyPeerAsync, p,
	    copy_peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy)
{
	cuMemcpy2D_v2_params p = { pCopy };
	SIM_DRIVER_CALL(cuMemcpy2D_v2, p, copy_2d(pCopy, sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy)
{
	cuMemcpy2DUnaligned_v2_params p = { pCopy };
	SIM_DRIVER_CALL(cuMemcpy2DUnaligned_v2, p, copy_2d(pCopy, sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
	cuMemcpy2DAsync_v2_params p = { pCopy, hStream };
	SIM_DRIVER_CALL(cuMemcpy2DAsync_v2, p, copy_2d(pCopy, hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
	cuMemsetD8_v2_params p = { dstDevice, uc, N };
	SIM_DRIVER_CALL(cuMemsetD8_v2, p,
	                memset_linear(dstDevice, uc, 1, N, sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
	cuMemsetD16_v2_params p = { dstDevice, us, N };
	SIM_DRIVER_CALL(cuMemsetD16_v2, p,
	                memset_linear(dstDevice, us, 2, N, sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
	cuMemsetD32_v2_params p = { dstDevice, ui, N };
	SIM_DRIVER_CALL(cuMemsetD32_v2, p,
	                memset_linear(dstDevice, ui, 4, N, sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch,
                                            unsigned char uc, size_t Width, size_t Height)
{
	cuMemsetD2D8_v2_params p = { dstDevice, dstPitch, uc, Width, Height };
	SIM_DRIVER_CALL(
	    cuMemsetD2D8_v2, p,
	    memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch,
                                             unsigned short us, size_t Width, size_t Height)
{
	cuMemsetD2D16_v2_params p = { dstDevice, dstPitch, us, Width, Height };
	SIM_DRIVER_CALL(
	    cuMemsetD2D16_v2, p,
	    memset_2d(dstDevice, dstPitch, us, 2, Width, Height, sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch,
                                             unsigned int ui, size_t Width, size_t Height)
{
	cuMemsetD2D32_v2_params p = { dstDevice, dstPitch, ui, Width, Height };
	SIM_DRIVER_CALL(
	    cuMemsetD2D32_v2, p,
	    memset_2d(dstDevice, dstPitch, ui, 4, Width, Height, sim_default_stream(), false));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                            CUstream hStream)
{
	cuMemsetD8Async_params p = { dstDevice, uc, N, hStream };
	SIM_DRIVER_CALL(cuMemsetD8Async, p, memset_linear(dstDevice, uc, 1, N, hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N,
                                             CUstream hStream)
{
	cuMemsetD16Async_params p = { dstDevice, us, N, hStream };
	SIM_DRIVER_CALL(cuMemsetD16Async, p, memset_linear(dstDevice, us, 2, N, hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                                             CUstream hStream)
{
	cuMemsetD32Async_params p = { dstDevice, ui, N, hStream };
	SIM_DRIVER_CALL(cuMemsetD32Async, p, memset_linear(dstDevice, ui, 4, N, hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch,
                                              unsigned char uc, size_t Width, size_t Height,
                                              CUstream hStream)
{
	cuMemsetD2D8Async_params p = { dstDevice, dstPitch, uc, Width, Height, hStream };
	SIM_DRIVER_CALL(cuMemsetD2D8Async, p,
	                memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch,
                                               unsigned short us, size_t Width, size_t Height,
                                               CUstream hStream)
{
	cuMemsetD2D16Async_params p = { dstDevice, dstPitch, us, Width, Height, hStream };
	SIM_DRIVER_CALL(cuMemsetD2D16Async, p,
	                memset_2d(dstDevice, dstPitch, us, 2, Width, Height, hStream, true));
}

SIM_EXPORT CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch,
                                               unsigned int ui, size_t Width, size_t Height,
                                               CUstream hStream)
{
	cuMemsetD2D32Async_params p = { dstDevice, dstPitch, ui, Width, Height, hStream };
	SIM_DRIVER_CALL(cuMemsetD2D32Async, p,
	                memset_2d(dstDevice, dstPitch, ui, 4, Width, Height, hStream, true));
}
