/* SPDX-License-Identifier: MIT */
/*
 * compact-events.h - the events the tracer writes in a compact form, made
 * whole before anything reads them (doc/events.md), so that the analyses
 * and the exports only ever see the full ones:
 *
 *   - launch_unconfigured, a launch whose configuration the callback did
 *     not give, becomes a launch with config_known 0 and no stream;
 *   - gpu_kernel_times, the record of a kernel whose launch was written
 *     with its configuration, becomes its gpu_kernel: it holds what only
 *     CUPTI knows (times, context, registers, static shared memory), and
 *     the kernel, grid, block, dynamic shared memory, stream and device
 *     are those of the launch of the same correlation id in the same
 *     process, kept here until the record comes;
 *   - gpu_kernel_shaped, the record of a kernel whose launch_unconfigured
 *     was written, becomes its gpu_kernel: times and context from the
 *     record, kernel and device from the launch, stream, grid, block,
 *     shared memory and registers from the kernel_shape of the process
 *     that the record names (kept here, at most 65536 a process);
 *   - gpu_memcpy_times, the record of a copy whose memcpy was written,
 *     becomes its gpu_memcpy the same way: times, context, direction,
 *     memory kinds and device from the record, bytes and stream from the
 *     memcpy;
 *   - gpu_memset_times, the record of a memset whose memset was written,
 *     becomes its gpu_memset: times, context and device from the record,
 *     bytes, value and stream from the memset (its memory kind unknown).
 *
 * A gpu_batch holds records of the last four kinds; the decoding reads
 * it as those records, one by one (gpu-batches.h).
 *
 * A repeat becomes the event it stands for, a memcpy, memset, launch or
 * launch_unconfigured: its thread's last whole event of its shape, kept
 * in the thread's slots as the tracer keeps them (contract/shape.h), with
 * the repeat's correlation id and entry. The slots hold CT_REPEAT_SLOTS
 * events a thread, never more. A repeat whose event is not in its set
 * (lost: LTTng discarded it, a flight recorder overwrote it, the session
 * began after it; or the trace has no vtid to tell threads apart) is
 * counted apart, and its operation is not analysed.
 *
 * The tracer writes those records only after their host event and their
 * shape, so a host event or a shape that is not in the trace was lost
 * (LTTng discarded it, the session began after it, a flight recorder
 * overwrote it): such records are counted and not analysed. What waits for a record is bounded as corr-map.h says,
 * never by the trace's length.
 */
#ifndef CUDATRACE_ANALYZERS_COMPACT_EVENTS_H
#define CUDATRACE_ANALYZERS_COMPACT_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/event.h"

/*
 * The event types to decode, beside TYPES (CT_EV_BIT), so that the full
 * types among TYPES can be made whole.
 */
ct_ev_set ct_compact_events_needed(ct_ev_set types);

struct ct_compact_events;

struct ct_compact_events *ct_compact_events_create(void);
void ct_compact_events_destroy(struct ct_compact_events *ce);

/*
 * Takes EV (its process and thread set, its time read): a compact event
 * is made the full one it stands for. False when EV is a compact record
 * whose host event or shape is not in the trace, or a repeat whose event
 * is not: it is counted, and must not be read further.
 */
bool ct_compact_events_take(struct ct_compact_events *ce, struct ct_event *ev);

/*
 * EV, the launch, memcpy or memset ct_compact_events_take took last, is
 * given to the analyses: its GPU record, whole or compact, is joined to
 * it (ct_event.joined), with the entry of a launch's call when the reader
 * read it (api-calls.h), and a copy's or memset's note, which EV points
 * to now. The reader tells once EV has passed the filters; the record of
 * an operation it withheld is not joined.
 */
void ct_compact_events_delivered(struct ct_compact_events *ce, struct ct_event *ev);

/* The compact records whose host event or shape was not in the trace. */
uint64_t ct_compact_events_unmatched(const struct ct_compact_events *ce);

/* The repeats whose event was not in their thread's slot. */
uint64_t ct_compact_events_unresolved(const struct ct_compact_events *ce);

#endif
