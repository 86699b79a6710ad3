/* SPDX-License-Identifier: MIT */
/*
 * gpu-events.h - one activity record to its gpu_* (or device_info) event.
 */
#ifndef CUDATRACE_GPU_EVENTS_H
#define CUDATRACE_GPU_EVENTS_H

#include <stdbool.h>
#include <cupti.h>

#include "gpu-batch.h"
#include "handle-cache.h"
#include "kernel-shapes.h"

/* What the reading of one activity buffer keeps from record to record. */
struct gpu_events_reading {
	struct handle_cache cache;      /* kernel ids by name pointer */
	struct gpu_batch batch;         /* kernels' and copies' records not yet written */
	struct kernel_shape_memo shape; /* the last kernel's shape */
};

/* Emit the event of one record, if a session enables it, or keep it in
 * READING (zeroed before the buffer's first record) for a batch. */
void gpu_events_record(const CUpti_Activity *record, struct gpu_events_reading *reading);

/* The buffer is read: writes what READING still holds. */
void gpu_events_finish(struct gpu_events_reading *reading);

/* Whether the records of kind are wanted now: a session enables their
 * event (DEVICE records always are). */
bool gpu_events_wanted(CUpti_ActivityKind kind);

#endif /* CUDATRACE_GPU_EVENTS_H */
