/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-export.h - the GPU-time trace (gpu-time-schema.h), written as
 * the reader makes its pass: an exporter attached to the reader
 * (reader.h) takes the GPU records it hands over (gpu_kernel, gpu_memcpy,
 * gpu_memset: made whole from their compact forms, decoded in parallel)
 * and makes each operation a begin and an end event at its GPU times, in
 * a stream per process, device and CUDA stream, put back in time order in
 * bounded memory (gpu-reorder.h), which babeltrace2's sink.ctf.fs writes
 * into a directory (ctf-writer.h) as the queue lets them go.
 *
 * It fills a struct ct_gpu_time_stats with what the GPU-time trace holds
 * and what it could not (operations later than the reorder window, GPU
 * times that cannot be timestamps); what the reading lost (records CUPTI
 * dropped, events LTTng discarded, records whose call is not in the
 * trace) is in the reader's stats, which export-ctf.h adds.
 *
 *	x = ct_gpu_time_create(dir, &stats, err, len);
 *	ct_reader_attach(r, &ct_gpu_time_export, x);   (the reader owns X)
 *	ct_reader_read(r, ...); ct_reader_finish(r);
 *	ct_gpu_time_close(x, err, len);                (the rest written: 0, or -1)
 *	ct_reader_destroy(r);                          (the metadata written)
 */
#ifndef CUDATRACE_ANALYZERS_GPU_TIME_EXPORT_H
#define CUDATRACE_ANALYZERS_GPU_TIME_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

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
	bool truncated;            /* a trace was cut short: written up to its last event */
};

/* The exporter, as the reader runs it; its state comes from ct_gpu_time_create. */
extern const struct ct_analysis_class ct_gpu_time_export;

struct ct_gpu_time;

/*
 * An exporter writing into directory DIR (made now when it does not
 * exist), filling what it writes into STATS (the caller's, which must
 * outlive it). NULL with the reason in ERROR (LEN bytes).
 */
struct ct_gpu_time *ct_gpu_time_create(const char *dir, struct ct_gpu_time_stats *stats,
                                       char *error, size_t len);

/*
 * The input ended: writes what the reorder queue still holds and ends
 * every stream. 0, or -1 with the reason in ERROR (LEN bytes), also for
 * a failure while the reader ran (out of memory, the sink could not
 * write, the trace's events have no clock). Once, after ct_reader_finish.
 */
int ct_gpu_time_close(struct ct_gpu_time *x, char *error, size_t len);

#endif
