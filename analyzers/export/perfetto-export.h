/* SPDX-License-Identifier: MIT */
/*
 * perfetto-export.h - the trace as a Perfetto trace (perfetto-writer.h),
 * written while the reader makes its pass (`cudatrace export --format
 * perfetto`):
 *
 *   - a process track per traced process, a thread track per thread: API
 *     calls and NVTX push/pop ranges as slices, NVTX marks and the host
 *     side of each kernel launch, copy and memset as instants (at their
 *     call's entry); NVTX
 *     start/end ranges as slices on a track of their own per range; the
 *     cells a notebook kernel ran as slices on a track of their own;
 *   - a track per device, with a child track per stream (of each process):
 *     kernels, copies and memsets as slices at their GPU times;
 *   - a flow from the host instant of each launch, copy and memset to its
 *     GPU slice, by correlation id: begun before the GPU work starts, as
 *     trace_processor needs to draw it (host_work);
 *   - counter tracks, per process and device: live bytes of the device
 *     kinds and of each kind, from the accounting the report uses
 *     (accounting.h); the reserved bytes of each memory pool;
 *   - failed allocations as instants on their process's track, named with
 *     the fragmentation analysis's verdict (ct_perfetto_failures);
 *   - what was lost, as instants: the activity records CUPTI dropped on
 *     their process's track, the events LTTng discarded on a track of
 *     their own.
 *
 * Every packet is written when its event is read: state grows with the
 * tracks and the live allocations, never with the trace's length.
 *
 *	p = ct_perfetto_create(ct_reader_context(r), &opts, out);
 *	ct_reader_attach(r, &ct_perfetto_export, p);   (the reader owns P)
 *	ct_reader_add(r, &ct_fragmentation_analysis);
 *	ct_reader_read(r, ...); ct_reader_finish(r);
 *	ct_perfetto_failures(p, ct_reader_result(r, &ct_fragmentation_analysis));
 *	ct_perfetto_close(p);                          (0, or -1: errno)
 */
#ifndef CUDATRACE_ANALYZERS_PERFETTO_EXPORT_H
#define CUDATRACE_ANALYZERS_PERFETTO_EXPORT_H

#include <stdio.h>

#include "analyses/analysis.h"
#include "model/context.h"
#include "analyses/fragmentation.h"
#include "common/options.h"

/* The exporter, as the reader runs it; its state comes from ct_perfetto_create. */
extern const struct ct_analysis_class ct_perfetto_export;

struct ct_perfetto;

/*
 * An exporter writing to OUT (borrowed), with the context CTX and options
 * OPTS of the reader it will be attached to: it subscribes to that
 * reader's accounting of allocations (ct_context_accounting).
 */
struct ct_perfetto *ct_perfetto_create(struct ct_context *ctx, const struct ct_options *opts,
                                       FILE *out);
/* Writes the failed allocations of FRAG (NULL: none) as instants with their verdict. */
void ct_perfetto_failures(struct ct_perfetto *p, const struct ct_fragmentation_result *frag);
/* Flushes what was written: 0, or -1 when a write failed (errno). Once, before the reader's end. */
int ct_perfetto_close(struct ct_perfetto *p);

#endif
