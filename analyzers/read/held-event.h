/* SPDX-License-Identifier: MIT */
/*
 * held-event.h - one of the events a batch-like event holds (a gpu_batch's
 * records, a repeat_run's repeats: gpu-batches.h, repeat-runs.h), as the
 * decoding thread hands it over: its type, time and payload, and nothing
 * else. The reading thread makes each a whole event (decode-merge.c), so a
 * loop's calls and GPU records cross between the threads at a fraction of
 * an event's size: a batch holds a whole flush of GPU records, and the
 * decoding threads are not held back by the other's burst.
 */
#ifndef CUDATRACE_ANALYZERS_HELD_EVENT_H
#define CUDATRACE_ANALYZERS_HELD_EVENT_H

#include <stdint.h>

#include "common/event.h"

struct ct_held_event {
	enum ct_event_type type; /* one of those of the union */
	int64_t time_ns;         /* the event's time on the trace clock */
	union {
		struct ct_ev_gpu_memcpy_times gpu_memcpy_times;
		struct ct_ev_gpu_kernel_times gpu_kernel_times;
		struct ct_ev_gpu_kernel_shaped gpu_kernel_shaped;
		struct ct_ev_gpu_memset_times gpu_memset_times;
		struct ct_ev_repeat repeat;
		struct ct_ev_repeat_moved repeat_moved;
	} u;
};

#endif
