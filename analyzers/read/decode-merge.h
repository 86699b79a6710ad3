/* SPDX-License-Identifier: MIT */
/*
 * decode-merge.h - the records of a pass (decode-thread.h) from several
 * decoding threads at once, merged in time order: the stream files are
 * split into groups (stream-groups.h), each group read by a graph of its
 * own (trace-graph.h) on a decoding thread of its own, and the reading
 * thread takes the records of all in order of their place in time
 * (ct_record's at_ns), ties to the group that comes first. A group's
 * records are in that order already (its graph's muxer, or a single
 * stream), so the merge is a choice among the groups' next records:
 * the analyses see one time-ordered sequence, as from a single graph.
 *
 * One group, one graph, as before: when there is one stream file, one
 * core, a live trace (whose streams come and go while it is read), or
 * when the views cannot be made (a warning).
 * Memory stays bounded: each group has CT_DECODE_BATCHES batches.
 *
 * What a single graph does, the merge does: a group whose run ends in an
 * error (data that cannot be decoded) ends the pass where it ends, the
 * other groups' later records unread, as babeltrace2's muxer stops when
 * one of its streams fails; a record that ends the pass (CT_RECORD_FATAL)
 * is the caller's to act on (ct_decode_merge_stop).
 *
 *	status = ct_decode_merge_create(traces, n, types, &m, err, len);
 *	while ((rec = ct_decode_merge_next(m))) {
 *		...; on a fatal error: ct_decode_merge_stop(m)
 *	}
 *	status = ct_decode_merge_join(m, err, len);
 *	ct_decode_merge_destroy(m);
 */
#ifndef CUDATRACE_ANALYZERS_DECODE_MERGE_H
#define CUDATRACE_ANALYZERS_DECODE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "decode-thread.h"
#include "trace-graph.h"

struct ct_decode_merge;

/*
 * Builds the groups' graphs over the COUNT TRACES (borrowed: they must
 * outlive the merge) and starts their decoding threads, which decode the
 * payloads of TYPES (CT_EV_BIT). A group that has no readable trace is
 * left out (a warning, trace-graph.h); when none is left, or on an error,
 * the reason is in ERROR (LEN bytes) and *MERGE is NULL.
 */
enum ct_trace_graph_status ct_decode_merge_create(const char *const *traces, size_t count,
                                                  ct_ev_set types, struct ct_decode_merge **merge,
                                                  char *error, size_t len);

/* The traces read, in whole or in part. */
size_t ct_decode_merge_traces(const struct ct_decode_merge *merge);

/* What the repaired copies leave out (trace-graph.h), all groups'; "" when nothing. */
const char *ct_decode_merge_damage(const struct ct_decode_merge *merge);

/*
 * The next record in time order, waiting for it; valid until the next
 * call. NULL at the end of the pass, or once stopped. Never a
 * CT_RECORD_HELD: each of the events such a record holds is made a
 * CT_RECORD_EVENT of its own here, on the reading thread, as the decoding
 * thread once made them.
 */
struct ct_record *ct_decode_merge_next(struct ct_decode_merge *merge);

/* The events of other providers the records taken so far passed over. */
uint64_t ct_decode_merge_foreign_events(const struct ct_decode_merge *merge);

/* Has every run stop at its next message (the reading thread met a fatal error). */
void ct_decode_merge_stop(struct ct_decode_merge *merge);

/*
 * Waits for every decoding thread's end: OK, or the status of the run
 * that ended the pass (ERROR holds its message).
 */
enum ct_trace_graph_status ct_decode_merge_join(struct ct_decode_merge *merge, char *error,
                                                size_t len);

/* Frees MERGE (joined), its graphs, then its views. NULL is fine. */
void ct_decode_merge_destroy(struct ct_decode_merge *merge);

#endif
