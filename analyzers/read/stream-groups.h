/* SPDX-License-Identifier: MIT */
/*
 * stream-groups.h - the stream files of a pass's traces split into groups
 * that are decoded in parallel (decode-merge.h), each group a set of
 * views (trace-view.h): per trace with files in the group, a temporary
 * directory holding the trace's metadata, its index directory and only
 * the group's stream files, as symbolic links. Each view has the whole
 * metadata, so babeltrace2 reads it as the trace it is a part of (its
 * environment, its clock); a stream's events are all in its file, so no
 * group needs another's.
 *
 * Files go to groups the largest first, ties by trace and name, each where
 * it adds least to the work of the busiest group over time: the packets'
 * times and sizes in the traces' indexes say when each file's bytes were
 * written, so that files written at the same time are decoded apart
 * (the one that holds all the rest back is the busiest then). Without
 * indexes, and among equals, a file goes to the group with the fewest
 * bytes so far. The same traces give the same groups.
 *
 *	n = ct_stream_groups_wanted();
 *	groups = ct_stream_groups_create(traces, count, n, why, len);
 *	for (g = 0; g < ct_stream_groups_count(groups); g++)
 *		... ct_stream_groups_views(groups, g), _shown(), _view_count() ...
 *	ct_stream_groups_destroy(groups);
 */
#ifndef CUDATRACE_ANALYZERS_STREAM_GROUPS_H
#define CUDATRACE_ANALYZERS_STREAM_GROUPS_H

#include <stddef.h>
#include <stdint.h>

struct ct_stream_groups;

/* Groups chosen by the traces' size (ct_stream_groups_create). */
#define CT_STREAM_GROUPS_AUTO 0

/*
 * A group's share of the stream files' bytes, from which another group is
 * made when the groups are chosen by size: a group costs a graph, for
 * which babeltrace2 parses the metadata and makes its classes (some 20 M
 * instructions for the tracer's metadata, as much as decoding a quarter
 * of a MiB of its events), and a thread; on a smaller trace that is more
 * than decoding its share apart saves.
 */
#define CT_STREAM_GROUP_BYTES (UINT64_C(1) << 20)

/*
 * How many groups to decode in parallel: the environment variable
 * CUDATRACE_DECODE_GROUPS when it is a number from 1 on (a warning, and
 * it is ignored, otherwise), else CT_STREAM_GROUPS_AUTO.
 */
size_t ct_stream_groups_wanted(void);

/*
 * The stream files of the COUNT TRACES (trace directories, borrowed:
 * they must outlive the groups) in at most WANTED groups, at most one per
 * stream file; CT_STREAM_GROUPS_AUTO: one per CT_STREAM_GROUP_BYTES of
 * the files (rounded up), at most one more than the cores this process
 * may run on. With one group, or a live URL among the traces, there is
 * one group of the traces themselves and no view: that never fails. NULL,
 * with why in WHY (LEN bytes), when a view cannot be made.
 */
struct ct_stream_groups *ct_stream_groups_create(const char *const *traces, size_t count,
                                                 size_t wanted, char *why, size_t len);

size_t ct_stream_groups_count(const struct ct_stream_groups *groups);

/* The directories group G reads (views, or the traces themselves), and how many. */
const char *const *ct_stream_groups_views(const struct ct_stream_groups *groups, size_t g);
size_t ct_stream_groups_view_count(const struct ct_stream_groups *groups, size_t g);

/* For each of them, the trace it is a view of (to name it in messages). */
const char *const *ct_stream_groups_shown(const struct ct_stream_groups *groups, size_t g);

/* The index among the traces of the trace view V of group G shows. */
size_t ct_stream_groups_trace_of(const struct ct_stream_groups *groups, size_t g, size_t v);

/* Removes the views. NULL is fine. */
void ct_stream_groups_destroy(struct ct_stream_groups *groups);

#endif
