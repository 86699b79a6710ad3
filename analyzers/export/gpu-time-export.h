/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-export.h - the GPU-time trace (gpu-time-schema.h), written as
 * the reader makes its pass: an exporter attached to the reader
 * (reader.h) takes the GPU records it hands over (gpu_kernel, gpu_memcpy,
 * gpu_memset: made whole from their compact forms, decoded in parallel)
 * and hands each operation, in batches, to a writing thread
 * (gpu-time-writer.h), which puts them back in time order in bounded
 * memory and writes them into a directory as CTF (ctf-writer.h):
 * each a begin and an end event at its GPU times, in a stream per
 * process, device and CUDA stream.
 *
 * It fills a struct ct_gpu_time_stats (gpu-time-writer.h) with what the
 * GPU-time trace holds and what it could not (operations later than the
 * reorder window, GPU times that cannot be timestamps); what the reading
 * lost (records CUPTI dropped, events LTTng discarded, records whose call
 * is not in the trace) is in the reader's stats, which export-ctf.h adds.
 *
 *	x = ct_gpu_time_create(dir, &stats, err, len);
 *	ct_reader_attach(r, &ct_gpu_time_export, x);   (the reader owns X)
 *	ct_reader_read(r, ...); ct_reader_finish(r);
 *	ct_gpu_time_close(x, err, len);                (the rest written: 0, or -1)
 *	ct_reader_destroy(r);
 */
#ifndef CUDATRACE_ANALYZERS_GPU_TIME_EXPORT_H
#define CUDATRACE_ANALYZERS_GPU_TIME_EXPORT_H

#include <stddef.h>

#include "analyses/analysis.h"
#include "gpu-time-writer.h"

/* The exporter, as the reader runs it; its state comes from ct_gpu_time_create. */
extern const struct ct_analysis_class ct_gpu_time_export;

struct ct_gpu_time;

/*
 * An exporter writing into directory DIR (made now when it does not
 * exist), filling what it writes into STATS (the caller's, which must
 * outlive it; read it once ct_gpu_time_close returned). NULL with the
 * reason in ERROR (LEN bytes).
 */
struct ct_gpu_time *ct_gpu_time_create(const char *dir, struct ct_gpu_time_stats *stats,
                                       char *error, size_t len);

/*
 * The input ended: the writer writes what it still holds and ends every
 * stream. 0, or -1 with the reason in ERROR (LEN bytes), also for a
 * failure while the reader ran (out of memory, a file could not be written,
 * the trace's events have no clock). Once, after ct_reader_finish.
 */
int ct_gpu_time_close(struct ct_gpu_time *x, char *error, size_t len);

#endif
