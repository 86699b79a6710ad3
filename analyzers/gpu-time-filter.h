/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-filter.h - a babeltrace2 filter component class that turns the
 * GPU records of cudatrace traces (gpu_kernel, gpu_memcpy, gpu_memset)
 * into the GPU-time trace of gpu-time-schema.h: each operation a begin and
 * an end event at its GPU times, in a stream per process, device and CUDA
 * stream, put back in time order in bounded memory (gpu-reorder.h).
 *
 * Its one input port takes the muxed messages of the traces; its one
 * output port gives the GPU-time trace's, for sink.ctf.fs. Kernel names
 * come from the kernel_name events. A component is added with a struct
 * ct_gpu_time_stats as its initialize method data, which it fills: what
 * the GPU-time trace holds and what it could not (records CUPTI or LTTng
 * dropped, operations that came later than the reorder window).
 */
#ifndef CUDATRACE_ANALYZERS_GPU_TIME_FILTER_H
#define CUDATRACE_ANALYZERS_GPU_TIME_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

struct ct_gpu_time_stats {
	uint64_t operations; /* written, each a begin and an end event */
	uint64_t streams;    /* streams written */
	uint64_t late;       /* left out: later than the reorder window */
	uint64_t
	    untimed; /* left out: GPU times 0 (unknown), out of the clock's range, or ending before they start */
	uint64_t
	    unmatched; /* left out: GPU times whose call is not in the trace (compact-events.h) */
	uint64_t dropped_records;  /* activity_dropped: records CUPTI dropped */
	uint64_t discarded_events; /* events LTTng discarded */
	int64_t window_ns;         /* the reorder window reached */
	bool unknown_version; /* an event of a cudatrace this reader does not know stopped it */
};

/* A new filter component class named "gpu-time"; NULL: out of memory. */
bt_component_class_filter *ct_gpu_time_filter_class(void);

#endif
