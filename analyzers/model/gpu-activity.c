/* SPDX-License-Identifier: MIT */
/*
 * gpu-activity.c - the busy timelines of every process and device (see
 * gpu-activity.h).
 */
#include "gpu-activity.h"

struct ct_gpu_timeline *ct_gpu_activity_timeline(struct ct_process *process, unsigned device,
                                                 size_t series_points)
{
	struct ct_gpu_timeline **busy = &process->busy[device & 0xff];

	if (!*busy)
		*busy = ct_gpu_timeline_new(series_points);
	return *busy;
}

/* The device and interval of a GPU record; false for other events. */
static bool gpu_work(const struct ct_event *ev, unsigned *device, uint64_t *start, uint64_t *end)
{
	switch (ev->type) {
	case CT_EV_GPU_KERNEL:
		*device = ev->u.gpu_kernel.device;
		*start = ev->u.gpu_kernel.start;
		*end = ev->u.gpu_kernel.end;
		return true;
	case CT_EV_GPU_MEMCPY:
		*device = ev->u.gpu_memcpy.device;
		*start = ev->u.gpu_memcpy.start;
		*end = ev->u.gpu_memcpy.end;
		return true;
	case CT_EV_GPU_MEMSET:
		*device = ev->u.gpu_memset.device;
		*start = ev->u.gpu_memset.start;
		*end = ev->u.gpu_memset.end;
		return true;
	default:
		return false;
	}
}

void ct_gpu_activity_update(const struct ct_event *ev, size_t series_points)
{
	uint64_t start, end;
	unsigned device;

	if (gpu_work(ev, &device, &start, &end))
		ct_gpu_timeline_add(ct_gpu_activity_timeline(ev->process, device, series_points),
		                    (int64_t)start, (int64_t)end);
}

void ct_gpu_activity_finish(struct ct_context *ctx)
{
	for (size_t p = 0; p < ct_context_process_count(ctx); p++) {
		struct ct_process *process = ct_context_process_at(ctx, p);

		for (unsigned d = 0; d < 256; d++)
			if (process->busy[d])
				ct_gpu_timeline_finish(process->busy[d]);
	}
}
