/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-writer.h - the writing half of the GPU-time export, on a
 * thread of its own: it takes GPU operations in batches from the thread
 * that reads the trace (gpu-time-export.h), puts them back in time order
 * in bounded memory (gpu-reorder.h) and writes them (ctf-writer.h), each
 * a begin and an end event at its GPU times, in a stream per process,
 * device and CUDA stream (gpu-time-schema.h). So the writing (events
 * serialised, packets written) runs beside the reading rather than after
 * it on the same thread.
 *
 * The operations are plain data: every string they point to lives as
 * long as the writer, and nothing of the reading thread's context is
 * touched here. The CTF writer is the writing thread's alone, from its
 * start to its end.
 *
 *	w = ct_gpu_time_writer_create(dir, &stats, err, len);
 *	ct_gpu_time_writer_set_trace(w, desc);       (before the first operation)
 *	b = ct_gpu_time_writer_batch(w); ... b->ops[b->count++] = op ...; ct_gpu_time_writer_give(w, b);
 *	ct_gpu_time_writer_close(w, err, len);       (the rest written: 0, or -1)
 *	ct_gpu_time_writer_destroy(w);
 */
#ifndef CUDATRACE_ANALYZERS_GPU_TIME_WRITER_H
#define CUDATRACE_ANALYZERS_GPU_TIME_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu-time-schema.h"
#include "read/trace-desc.h"

/* What the GPU-time trace holds, and what it could not (the export's warnings). */
struct ct_gpu_time_stats {
	uint64_t operations; /* written, each a begin and an end event */
	uint64_t streams;    /* streams written (a CUDA stream's lanes each count) */
	uint64_t late;       /* left out: no lane of their stream could put them in order */
	uint64_t
	    untimed; /* left out: GPU times 0 (unknown), out of the clock's range, or ending before they start */
	uint64_t
	    unmatched; /* left out: GPU times whose call is not in the trace (compact-events.h) */
	uint64_t dropped_records;  /* activity_dropped: records CUPTI dropped */
	uint64_t discarded_events; /* events LTTng discarded */
	int64_t window_ns;         /* the widest reorder window a lane reached */
	bool truncated;            /* a trace was cut short: written up to its last event */
};

/* One GPU operation handed over: what the trace shows of it, and where it goes. */
struct ct_gpu_time_op {
	struct ct_gpu_op op; /* its strings live as long as the writer */
	/* Its stream: a process (an opaque key, never read here), a device, a CUDA stream. */
	const void *process;
};

/* Operations a batch holds, and batches in flight. */
#define CT_GPU_TIME_BATCH   1024
#define CT_GPU_TIME_BATCHES 8
/* Batches a waiting thread is woken for (handoff.h): the writer keeps pace
 * with the reading thread, and woken at each batch the two took turns to
 * sleep, a context switch or two a batch. */
#define CT_GPU_TIME_WAKE 4

struct ct_gpu_time_batch {
	size_t count;
	struct ct_gpu_time_op ops[CT_GPU_TIME_BATCH];
};

struct ct_gpu_time_writer;

/*
 * A writer into directory DIR (made now when it does not exist), its
 * thread started, filling the figures of what it writes into STATS (the
 * caller's: operations, streams, late, untimed, window_ns), which it
 * writes until ct_gpu_time_writer_close returns. NULL with the reason in
 * ERROR (LEN bytes).
 */
struct ct_gpu_time_writer *ct_gpu_time_writer_create(const char *dir,
                                                     struct ct_gpu_time_stats *stats, char *error,
                                                     size_t len);

/*
 * The trace the operations come from (NULL: unknown), whose clock and
 * environment the GPU-time trace keeps: copied. Once, before the first
 * batch that holds an operation is given.
 */
void ct_gpu_time_writer_set_trace(struct ct_gpu_time_writer *w, const struct ct_trace_desc *trace);

/* An empty batch to fill, waiting while the writer is behind. */
struct ct_gpu_time_batch *ct_gpu_time_writer_batch(struct ct_gpu_time_writer *w);
/* BATCH, filled, to be written. */
void ct_gpu_time_writer_give(struct ct_gpu_time_writer *w, struct ct_gpu_time_batch *batch);

/* Whether the writer failed: what is given now is not written. */
bool ct_gpu_time_writer_failed(struct ct_gpu_time_writer *w);

/*
 * No more operations: writes what the queue still holds and every
 * stream's last packet, waits for the thread. 0, or -1 with the reason
 * in ERROR (LEN bytes): a file could not be written, the trace's events
 * have no clock.
 */
int ct_gpu_time_writer_close(struct ct_gpu_time_writer *w, char *error, size_t len);

/*
 * Frees W. When it was not closed (the export failed, its directory to be
 * removed), the thread first writes what it was given, as at a close.
 * NULL is fine.
 */
void ct_gpu_time_writer_destroy(struct ct_gpu_time_writer *w);

#endif
