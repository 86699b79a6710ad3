/* SPDX-License-Identifier: MIT */
/*
 * gpu-events.h - one activity record to its gpu_* (or device_info) event.
 */
#ifndef CUDATRACE_GPU_EVENTS_H
#define CUDATRACE_GPU_EVENTS_H

#include <stdbool.h>
#include <cupti.h>

#include "handle-cache.h"

/* Emit the event of one record, if a session enables it; cache is the
 * reading thread's (kernel ids by name pointer). */
void gpu_events_record(const CUpti_Activity *record, struct handle_cache *cache);

/* Whether the records of kind are wanted now: a session enables their
 * event (DEVICE records always are). */
bool gpu_events_wanted(CUpti_ActivityKind kind);

#endif /* CUDATRACE_GPU_EVENTS_H */
