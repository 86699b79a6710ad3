/* SPDX-License-Identifier: MIT */
/*
 * filters.c - process, device, time window and NVTX range filters.
 *
 * What each filter lets through, so that the analyses stay consistent:
 * - process: every event of the other processes is dropped;
 * - device: events that name a device (a copy: either side) and name
 *   another one are dropped; events naming none are kept;
 * - which fields name a device or hold a GPU time, and which events are
 *   kept before the window or outside a range, is the contract's
 *   (contract/events.def: CT_DEVICE_FIELD, CT_GPU_TIME_FIELD, CT_KEEP):
 *   the code below is generated from it, so that a new event is filtered
 *   by what its fields are;
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

/*
 * For each layout of the contract, whether a payload E of it is kept by
 * the device filter: its CT_DEVICE_FIELDs (events.def) name no device, or
 * one of them is listed.
 */
#define CT_LAYOUT(name, fields)                                       \
	static int devices_kept_##name(const struct ct_options *opts, \
	                               const struct ct_ev_##name *e)  \
	{                                                             \
		int named = 0;                                        \
                                                                      \
		(void)opts;                                           \
		(void)e;                                              \
		fields return !named;                                 \
	}
#define CT_DEVICE_FIELD(type, name, need)         \
	if (e->name != CT_DEVICE_NONE) {          \
		if (device_listed(opts, e->name)) \
			return 1;                 \
		named = 1;                        \
	}
#define CT_GPU_TIME_FIELD(type, name, need)
#include "contract/events.def"

/* 1 if the event names no device or a listed one. */
static int device_kept(const struct ct_options *opts, const struct ct_event *ev)
{
	if (!opts->device_count)
		return 1;
	switch (ev->type) {
#define CT_EVENT(ident, name, layout, group) \
	case CT_EV_##ident:                  \
		return devices_kept_##layout(opts, &ev->u.layout);
#include "contract/events.def"
	default:
		return 1;
	}
}

/*
 * For each layout, the time the window applies to: its CT_GPU_TIME_FIELD
 * (GPU work, by its GPU start), else HOST_NS, the event's own time.
 */
#define CT_LAYOUT(name, fields)                                                          \
	static int64_t window_time_##name(const struct ct_ev_##name *e, int64_t host_ns) \
	{                                                                                \
		(void)e;                                                                 \
		fields return host_ns;                                                   \
	}
#define CT_DEVICE_FIELD(type, name, need)
#define CT_GPU_TIME_FIELD(type, name, need) return (int64_t)e->name;
#include "contract/events.def"

static int64_t window_time(const struct ct_event *ev)
{
	switch (ev->type) {
#define CT_EVENT(ident, name, layout, group) \
	case CT_EV_##ident:                  \
		return window_time_##layout(&ev->u.layout, ev->time_ns);
#include "contract/events.def"
	default:
		return ev->time_ns;
	}
}

/* What the event keeps through the filters (enum ct_keep; CT_KEEP, events.def). */
static unsigned keeps(enum ct_event_type type)
{
	switch (type) {
#define CT_KEEP(ident, flags) \
	case CT_EV_##ident:   \
		return flags;
#include "contract/events.def"
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
	if (opts->nvtx_range && !(keeps(ev->type) & CT_KEEP_ANY_RANGE) &&
	    !ct_path_contains(ctx, ev->site, opts->nvtx_range))
		return CT_FILTER_DROP;
	t = window_time(ev);
	if (t > filter->to_ns)
		return CT_FILTER_DROP;
	if (t < filter->from_ns) {
		return keeps(ev->type) & CT_KEEP_BEFORE_WINDOW ? CT_FILTER_BEFORE : CT_FILTER_DROP;
	}
	return CT_FILTER_KEEP;
}
