/* SPDX-License-Identifier: MIT */
/*
 * compact-events.c - the tracer's compact events made whole (see
 * compact-events.h).
 */
#include <glib.h>

#include "compact-events.h"
#include "context.h"
#include "corr-map.h"
#include "saturate.h"

/* A launch whose kernel's record is to come. */
struct waiting_launch {
	struct ct_corr_entry head;
	struct ct_ev_launch launch;
};

struct ct_compact_events {
	/* by ct_process.index: its struct ct_corr_map of struct waiting_launch; owned */
	GPtrArray *processes;
	uint64_t unmatched;
};

/* The array's free function; it is called on the NULL of a process with no launch too. */
static void map_free(gpointer map)
{
	if (!map)
		return;
	ct_corr_map_release(map);
	g_free(map);
}

struct ct_compact_events *ct_compact_events_create(void)
{
	struct ct_compact_events *ce = g_new0(struct ct_compact_events, 1);

	ce->processes = g_ptr_array_new_with_free_func(map_free);
	return ce;
}

void ct_compact_events_destroy(struct ct_compact_events *ce)
{
	if (!ce)
		return;
	g_ptr_array_free(ce->processes, TRUE);
	g_free(ce);
}

/* PROCESS's launches waiting for their records; created when CREATE. */
static struct ct_corr_map *launches_of(struct ct_compact_events *ce, const struct ct_process *process,
                                       bool create)
{
	struct ct_corr_map *map;

	if (process->index >= ce->processes->len) {
		if (!create)
			return NULL;
		g_ptr_array_set_size(ce->processes, (guint)process->index + 1);
	}
	map = g_ptr_array_index(ce->processes, process->index);
	if (!map && create) {
		map = g_new0(struct ct_corr_map, 1);
		ct_corr_map_init(map, sizeof(struct waiting_launch));
		g_ptr_array_index(ce->processes, process->index) = map;
	}
	return map;
}

/* A launch with its configuration: its record will be a gpu_kernel_times. */
static void keep_launch(struct ct_compact_events *ce, const struct ct_event *ev)
{
	const struct ct_ev_launch *l = &ev->u.launch;
	struct waiting_launch *w;

	if (!l->config_known)
		return;
	w = ct_corr_map_insert(launches_of(ce, ev->process, true), l->api.correlation_id);
	w->launch = *l;
}

/* A full record: its launch waits no more. */
static void forget_launch(struct ct_compact_events *ce, const struct ct_event *ev)
{
	struct ct_corr_map *map = launches_of(ce, ev->process, false);
	struct waiting_launch *w;

	if (map && (w = ct_corr_map_find(map, ev->u.gpu_kernel.correlation_id)))
		ct_corr_map_remove(map, w);
}

/* A gpu_kernel_times made the gpu_kernel it stands for; false if its launch is unknown. */
static bool complete_record(struct ct_compact_events *ce, struct ct_event *ev)
{
	const struct ct_ev_gpu_kernel_times times = ev->u.gpu_kernel_times;
	struct ct_corr_map *map = launches_of(ce, ev->process, false);
	struct waiting_launch *w = map ? ct_corr_map_find(map, times.correlation_id) : NULL;

	const struct ct_ev_launch *l;

	if (!w) {
		ce->unmatched = ct_sat_add_u64(ce->unmatched, 1);
		return false;
	}
	l = &w->launch;
	ev->type = CT_EV_GPU_KERNEL;
	ev->u.gpu_kernel = (struct ct_ev_gpu_kernel){
		.start = times.start,
		.end = times.end,
		.correlation_id = times.correlation_id,
		.kernel_id = l->kernel_id,
		.device = l->device,
		.context = times.context,
		.stream = l->stream,
		.grid_x = l->grid_x > INT32_MAX ? INT32_MAX : (int32_t)l->grid_x,
		.grid_y = l->grid_y,
		.grid_z = l->grid_z,
		.block_x = l->block_x,
		.block_y = l->block_y,
		.block_z = l->block_z,
		.static_shared_mem = times.static_shared_mem,
		.dynamic_shared_mem = l->shared_mem,
		.registers = times.registers,
	};
	ct_corr_map_remove(map, w);
	return true;
}

/* A launch_unconfigured made the launch it stands for. */
static void widen_launch(struct ct_event *ev)
{
	const struct ct_ev_launch_unconfigured l = ev->u.launch_unconfigured;

	ev->type = CT_EV_LAUNCH;
	ev->u.launch = (struct ct_ev_launch){
		.kernel_id = l.kernel_id,
		.config_known = 0,
		.stream = CT_STREAM_NONE,
		.device = l.device,
		.api = l.api,
		.stack_id = l.stack_id,
	};
}

uint64_t ct_compact_events_needed(uint64_t types)
{
	uint64_t more = 0;

	if (types & CT_EV_BIT(CT_EV_LAUNCH))
		more |= CT_EV_BIT(CT_EV_LAUNCH_UNCONFIGURED);
	/* a kernel's times need its launch */
	if (types & CT_EV_BIT(CT_EV_GPU_KERNEL))
		more |= CT_EV_BIT(CT_EV_GPU_KERNEL_TIMES) | CT_EV_BIT(CT_EV_LAUNCH);
	return more;
}

bool ct_compact_events_take(struct ct_compact_events *ce, struct ct_event *ev)
{
	switch (ev->type) {
	case CT_EV_LAUNCH_UNCONFIGURED:
		widen_launch(ev);
		return true;
	case CT_EV_LAUNCH:
		keep_launch(ce, ev);
		return true;
	case CT_EV_GPU_KERNEL:
		forget_launch(ce, ev);
		return true;
	case CT_EV_GPU_KERNEL_TIMES:
		return complete_record(ce, ev);
	default:
		return true;
	}
}

uint64_t ct_compact_events_unmatched(const struct ct_compact_events *ce)
{
	return ce->unmatched;
}
