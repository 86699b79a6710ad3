/* SPDX-License-Identifier: MIT */
/*
 * filters.c - process, device, time window and NVTX range filters.
 *
 * What each filter lets through, so that the analyses stay consistent:
 * - process: every event of the other processes is dropped;
 * - device: events that name a device (a copy: either side) and name
 *   another one are dropped; events naming none are kept;
 * - time window: host events by their own time, GPU events by their GPU
 *   start time; allocations, frees, reclaims, failed frees, statedumps and
 *   context lifecycles before the window still reach the analyses, marked,
 *   so that live bytes at the window's start are right and what they know
 *   of allocations made before the trace holds;
 * - NVTX range: host events of a thread that is not inside a push/pop range
 *   of that message are dropped, except frees, reclaims and failed frees
 *   (one of an allocation that was dropped is ignored by the analyses,
 *   which know its address is not theirs), names, device and tracer
 *   information, and GPU events (which have no thread: the analyses join
 *   them to the host events kept).
 */
#include <string.h>

#include "filters.h"

void ct_options_init(struct ct_options *opts)
{
	*opts = (struct ct_options){
		.max_rows = 20,
		.series_points = 512,
	};
}

void ct_filter_init(struct ct_filter *filter, const struct ct_options *opts)
{
	*filter = (struct ct_filter){
		.opts = opts,
		.from_ns = INT64_MIN,
		.to_ns = INT64_MAX,
	};
	if (!opts->from_relative && opts->has_from)
		filter->from_ns = opts->from_ns;
	if (!opts->to_relative && opts->has_to)
		filter->to_ns = opts->to_ns;
	filter->window_resolved =
	    !(opts->has_from && opts->from_relative) && !(opts->has_to && opts->to_relative);
}

/* FIRST_NS + OFFSET_NS (>= 0), INT64_MAX when beyond the clock. */
static int64_t after(int64_t first_ns, int64_t offset_ns)
{
	return first_ns > 0 && offset_ns > INT64_MAX - first_ns ? INT64_MAX : first_ns + offset_ns;
}

int ct_filter_start(struct ct_filter *filter, int64_t first_ns)
{
	const struct ct_options *opts = filter->opts;

	if (filter->window_resolved)
		return 0;
	if (opts->has_from && opts->from_relative)
		filter->from_ns = after(first_ns, opts->from_ns);
	if (opts->has_to && opts->to_relative)
		filter->to_ns = after(first_ns, opts->to_ns);
	filter->window_resolved = true;
	return filter->from_ns > filter->to_ns ? -1 : 0;
}

int ct_filter_is_empty(const struct ct_filter *filter)
{
	const struct ct_options *opts = filter->opts;

	return !opts->pid_count && !opts->procname_count && !opts->device_count &&
	       !opts->has_from && !opts->has_to && !opts->nvtx_range;
}

static int process_kept(const struct ct_options *opts, struct ct_process *process)
{
	if (!opts->pid_count && !opts->procname_count)
		return 1;
	if (!process->filter_state) {
		int kept = 0;

		for (size_t i = 0; i < opts->pid_count && !kept; i++)
			kept = process->pid == opts->pids[i];
		for (size_t i = 0; i < opts->procname_count && !kept; i++)
			kept = !strcmp(process->procname, opts->procnames[i]);
		process->filter_state = kept ? 1 : 2;
	}
	return process->filter_state == 1;
}

static int device_listed(const struct ct_options *opts, unsigned device)
{
	for (size_t i = 0; i < opts->device_count; i++)
		if (opts->devices[i] == device)
			return 1;
	return 0;
}

/* 1 if the event names no device or a listed one. */
static int device_kept(const struct ct_options *opts, const struct ct_event *ev)
{
	unsigned device;

	if (!opts->device_count)
		return 1;
	switch (ev->type) {
	case CT_EV_MEM_ALLOC:
	case CT_EV_MEM_FREE:
	case CT_EV_MEM_RECLAIM:
	case CT_EV_MEM_FREE_FAILED:
		device = ev->u.mem.device;
		break;
	case CT_EV_MEM_ALLOC_FAILED:
		device = ev->u.mem_alloc_failed.device;
		break;
	case CT_EV_MEM_LIVE:
		device = ev->u.mem_live.device;
		break;
	case CT_EV_MEMCPY:
		return device_listed(opts, ev->u.memcpy.src_device) ||
		       device_listed(opts, ev->u.memcpy.dst_device);
	case CT_EV_MEMSET:
		device = ev->u.memset.device;
		break;
	case CT_EV_LAUNCH:
		device = ev->u.launch.device;
		break;
	case CT_EV_GRAPH_LAUNCH:
		device = ev->u.graph_launch.device;
		break;
	case CT_EV_SYNC:
		device = ev->u.sync.device;
		break;
	case CT_EV_CONTEXT_CREATE:
	case CT_EV_CONTEXT_DESTROY:
		device = ev->u.context.device;
		break;
	case CT_EV_STREAM_CREATE:
	case CT_EV_STREAM_DESTROY:
		device = ev->u.stream.device;
		break;
	case CT_EV_GPU_KERNEL:
		device = ev->u.gpu_kernel.device;
		break;
	case CT_EV_GPU_MEMCPY:
		device = ev->u.gpu_memcpy.device;
		break;
	case CT_EV_GPU_MEMSET:
		device = ev->u.gpu_memset.device;
		break;
	case CT_EV_GPU_MEMORY:
		device = ev->u.gpu_memory.device;
		break;
	case CT_EV_GPU_MEMORY_POOL:
		device = ev->u.gpu_memory_pool.device;
		break;
	case CT_EV_DEVICE_INFO:
		device = ev->u.device_info.device;
		break;
	case CT_EV_NVML_SAMPLE:
		device = ev->u.nvml_sample.device;
		break;
	default:
		return 1;
	}
	return device == CT_DEVICE_NONE || device_listed(opts, device);
}

/* The time the window applies to: GPU work by its GPU start, else the event's time. */
static int64_t window_time(const struct ct_event *ev)
{
	switch (ev->type) {
	case CT_EV_GPU_KERNEL:
		return (int64_t)ev->u.gpu_kernel.start;
	case CT_EV_GPU_MEMCPY:
		return (int64_t)ev->u.gpu_memcpy.start;
	case CT_EV_GPU_MEMSET:
		return (int64_t)ev->u.gpu_memset.start;
	case CT_EV_GPU_MEMORY:
		return (int64_t)ev->u.gpu_memory.timestamp;
	case CT_EV_GPU_MEMORY_POOL:
		return (int64_t)ev->u.gpu_memory_pool.timestamp;
	case CT_EV_GPU_SYNC:
		return (int64_t)ev->u.gpu_sync.start;
	case CT_EV_GPU_OVERHEAD:
		return (int64_t)ev->u.gpu_overhead.start;
	default:
		return ev->time_ns;
	}
}

/* Events the NVTX range filter never drops (see the top of this file). */
static int range_exempt(enum ct_event_type type)
{
	switch (type) {
	case CT_EV_MEM_FREE:
	case CT_EV_MEM_RECLAIM:
	case CT_EV_MEM_FREE_FAILED:
	case CT_EV_API_NAME:
	case CT_EV_KERNEL_NAME:
	case CT_EV_CALL_STACK:
	case CT_EV_DEVICE_INFO:
	case CT_EV_TRACER_INFO:
	case CT_EV_TRACER_ERROR:
	case CT_EV_NVML_SAMPLE:
	case CT_EV_ACTIVITY_DROPPED:
	case CT_EV_NVTX_PUSH:
	case CT_EV_NVTX_POP:
	case CT_EV_NVTX_DOMAIN_CREATE:
	case CT_EV_GPU_KERNEL:
	case CT_EV_GPU_MEMCPY:
	case CT_EV_GPU_MEMSET:
	case CT_EV_GPU_MEMORY:
	case CT_EV_GPU_MEMORY_POOL:
	case CT_EV_GPU_SYNC:
	case CT_EV_GPU_OVERHEAD:
		return 1;
	default:
		return 0;
	}
}

/* Events that still reach the analyses before the window: what live bytes at its start need. */
static int before_window_kept(enum ct_event_type type)
{
	switch (type) {
	case CT_EV_MEM_ALLOC:
	case CT_EV_MEM_FREE:
	case CT_EV_MEM_RECLAIM:
	case CT_EV_MEM_FREE_FAILED:
	case CT_EV_STATEDUMP_BEGIN:
	case CT_EV_MEM_LIVE:
	case CT_EV_STATEDUMP_END:
	case CT_EV_CONTEXT_CREATE:
	case CT_EV_CONTEXT_DESTROY:
		return 1;
	default:
		return 0;
	}
}

enum ct_filter_verdict ct_filter_event(struct ct_filter *filter, const struct ct_context *ctx,
                                       const struct ct_event *ev)
{
	const struct ct_options *opts = filter->opts;
	int64_t t;

	if (!process_kept(opts, ev->process) || !device_kept(opts, ev))
		return CT_FILTER_DROP;
	if (opts->nvtx_range && !range_exempt(ev->type) &&
	    !ct_path_contains(ctx, ev->site, opts->nvtx_range))
		return CT_FILTER_DROP;
	t = window_time(ev);
	if (t > filter->to_ns)
		return CT_FILTER_DROP;
	if (t < filter->from_ns) {
		return before_window_kept(ev->type) ? CT_FILTER_BEFORE : CT_FILTER_DROP;
	}
	return CT_FILTER_KEEP;
}
