/* SPDX-License-Identifier: MIT */
/*
 * trace-graph.h - the babeltrace2 graph of a pass: one source per trace
 * (src.ctf.fs for a trace directory, src.ctf.lttng-live for a relay
 * daemon's URL, live.h), flt.utils.muxer to merge their streams in time
 * order (none for a single stream), and a simple sink whose consume
 * function is the caller's.
 *
 * Each trace directory is checked first (trace-check.h): babeltrace2 2.0
 * loops, aborts or exhausts memory on some damaged traces. A damaged one
 * is read from a repaired copy (trace-repair.h) or, when nothing of it
 * can be read, skipped with a warning (log.h); so is one babeltrace2
 * still refuses, which leaves the graph unusable: the graph is made again
 * without it. Only when no trace is left does building fail.
 *
 *	status = ct_trace_graph_create(traces, NULL, n, consume, data, &graph, err, len);
 *	status = ct_trace_graph_run(graph, err, len);
 *	ct_trace_graph_destroy(graph);
 */
#ifndef CUDATRACE_ANALYZERS_TRACE_GRAPH_H
#define CUDATRACE_ANALYZERS_TRACE_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include <babeltrace2/babeltrace.h>

enum ct_trace_graph_status {
	CT_TRACE_GRAPH_OK = 0,
	CT_TRACE_GRAPH_INPUT_ERROR,  /* no trace babeltrace2 can read */
	CT_TRACE_GRAPH_ERROR,        /* plugins missing, a graph babeltrace2 refuses or stops */
	CT_TRACE_GRAPH_MEMORY_ERROR, /* out of memory */
};

struct ct_trace_graph;

/*
 * Builds and connects the graph of the COUNT TRACES (borrowed, they must
 * outlive the graph), whose sink calls CONSUME with DATA. Warnings and
 * errors name trace I SHOWN[I] (a view's original, stream-groups.h), or
 * TRACES[I] when SHOWN is NULL; SHOWN too must outlive the graph. On an
 * error the message is in ERROR (LEN bytes) and *GRAPH is NULL.
 */
enum ct_trace_graph_status
ct_trace_graph_create(const char *const *traces, const char *const *shown, size_t count,
                      bt_graph_simple_sink_component_consume_func consume, void *data,
                      struct ct_trace_graph **graph, char *error, size_t len);

/*
 * Runs the graph to its end (waiting while a live source has nothing
 * new). On CT_TRACE_GRAPH_ERROR, ERROR holds babeltrace2's deepest cause,
 * which says little when the sink itself stopped the run.
 */
enum ct_trace_graph_status ct_trace_graph_run(struct ct_trace_graph *graph, char *error,
                                              size_t len);

/* Whether trace I is read (not skipped). */
bool ct_trace_graph_reads(const struct ct_trace_graph *graph, size_t i);

/* The traces read (those not skipped). */
size_t ct_trace_graph_source_count(const struct ct_trace_graph *graph);

/*
 * Whether a stream ended, during the run, in data its source could not
 * decode (behind the muxer, where that error is taken off the thread).
 */
bool ct_trace_graph_ended_in_error(const struct ct_trace_graph *graph);

/*
 * What the repaired copies leave out, for the report ("stream file 'F' of
 * 'T' ends in a partial packet ...", joined by "; "); "" when nothing.
 */
const char *ct_trace_graph_damage(const struct ct_trace_graph *graph);

/* Releases the graph, then removes the repaired copies. NULL is fine. */
void ct_trace_graph_destroy(struct ct_trace_graph *graph);

#endif
