/* SPDX-License-Identifier: MIT */
/*
 * gpu-activity.h - when each device was busy, per process, computed once
 * in the pass for every analysis that uses it (analysis.h,
 * CT_SHARED_GPU_TIMELINE): the GPU records the pass delivers (kernels,
 * copies, memsets) feed one busy timeline per process and device
 * (gpu-timeline.h), kept in the process (ct_process.busy). The kernels
 * analysis reports them (busy and idle time, idle gaps, a busy series);
 * the transfers analysis probes them (how long a device sat idle while
 * the host waited for a copy).
 */
#ifndef CUDATRACE_ANALYZERS_GPU_ACTIVITY_H
#define CUDATRACE_ANALYZERS_GPU_ACTIVITY_H

#include <stddef.h>

#include "context.h"
#include "common/event.h"
#include "gpu-timeline.h"

/* The event types that feed the timelines: they must be decoded when an analysis uses them. */
#define CT_GPU_ACTIVITY_EVENTS \
	(CT_EV_BIT(CT_EV_GPU_KERNEL) | CT_EV_BIT(CT_EV_GPU_MEMCPY) | CT_EV_BIT(CT_EV_GPU_MEMSET))

/* The timeline of DEVICE in PROCESS, created on first use with a busy series of SERIES_POINTS buckets. */
struct ct_gpu_timeline *ct_gpu_activity_timeline(struct ct_process *process, unsigned device,
                                                 size_t series_points);

/* Adds the GPU work of EV (a kernel, copy or memset record) to its device's timeline. */
void ct_gpu_activity_update(const struct ct_event *ev, size_t series_points);

/* The trace ended: merges what every timeline still holds and answers every probe. */
void ct_gpu_activity_finish(struct ct_context *ctx);

#endif
