/* SPDX-License-Identifier: MIT */
/*
 * gpu-events.h - one activity record to its gpu_* (or device_info) event.
 */
#ifndef CUDATRACE_GPU_EVENTS_H
#define CUDATRACE_GPU_EVENTS_H

#include <cupti.h>

void gpu_events_record(const CUpti_Activity *record);

#endif /* CUDATRACE_GPU_EVENTS_H */
