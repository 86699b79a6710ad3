/* SPDX-License-Identifier: MIT */
/*
 * decode-thread.h - the babeltrace2 graph of a pass run on a thread of its
 * own, so that decoding and the analyses overlap on two cores. There each
 * message is taken as far as babeltrace2 is needed: the event's class
 * resolved (class-cache.h, event-decoder.h), its time, origin and payload
 * read, its strings copied; a loss becomes a record of its own. The
 * records reach the reading thread in batches, in the graph's order (the
 * muxer's time order, ties as it breaks them), each with its place in
 * time, by which the records of several such threads are merged
 * (decode-merge.h): the analyses see the sequence a single thread would. At most CT_DECODE_BATCHES batches
 * exist, so memory does not follow the trace's length, and the decoding
 * thread waits while the reading thread is behind.
 *
 *	dt = ct_decode_thread_create(cache, types);
 *	ct_trace_graph_create(..., ct_decode_thread_consume, dt, &graph, ...);
 *	ct_decode_thread_start(dt, graph, err, len);
 *	while ((batch = ct_decode_thread_next(dt))) {
 *		... batch->records[0 .. count) ...; on a fatal error: ct_decode_thread_stop(dt)
 *		ct_decode_thread_release(dt, batch);
 *	}
 *	status = ct_decode_thread_join(dt, err, len);
 *	ct_decode_thread_destroy(dt);
 */
#ifndef CUDATRACE_ANALYZERS_DECODE_THREAD_H
#define CUDATRACE_ANALYZERS_DECODE_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "class-cache.h"
#include "event-decoder.h"
#include "held-event.h"
#include "common/event.h"
#include "trace-graph.h"
#include "ust-statedump.h"

/*
 * Records a batch holds, and batches in flight. Each batch handed over
 * wakes the other thread; with three threads on two cores (two decoding,
 * one reading) those wakes and the stalls of a merge with little slack
 * cost more than the copying: 2048 records took the Perfetto export of the
 * GPU bench trace from 1.30 s to 1.19 s, for about 9 MB more at its peak,
 * whatever the trace's length (512 before; 1024, 4096 measured too).
 */
#define CT_DECODE_BATCH   2048
#define CT_DECODE_BATCHES 8
/*
 * Held events (held-event.h) a batch holds. A flush of a loop's GPU records
 * is tens of thousands of them at one place in time, merged after the
 * calls before it: while the reading thread takes those calls, the GPU
 * records' thread runs ahead as far as its batches hold, then waits. At
 * 48 bytes, the batches hold 128 Ki of them (6 MiB a decoding thread),
 * more than a flush of the copy loop's (bench/loop-bench.sh: 44 Ki); with
 * 2048 whole records a batch the decoding threads took turns. 8192 a
 * batch took 3 to 6 % longer on the loops' reports, 32768 no less time.
 */
#define CT_DECODE_BATCH_HELD 16384
/* Sequence elements (call stacks' frames) a batch holds: a batch that has
 * no room left for a whole sequence is handed over before it is full. */
#define CT_DECODE_BATCH_SEQ (32 * CT_STACK_FRAMES_MAX)

enum ct_record_kind {
	CT_RECORD_EVENT, /* one of ours: ev, origin, decoded */
	/*
	 * Events a batch-like event holds, those of held in the batch's held:
	 * ev's trace and origin are theirs, and each is an event of its own
	 * at the record's place. The reading thread never sees one: the merge
	 * makes each held event a CT_RECORD_EVENT (decode-merge.h).
	 */
	CT_RECORD_HELD,
	CT_RECORD_UST_STATEDUMP, /* lttng-ust's statedump, for the call stacks: statedump */
	CT_RECORD_LOSS,          /* LTTng lost events or packets: loss */
	CT_RECORD_STOPPED,       /* a stream ends in data that cannot be decoded */
	CT_RECORD_FATAL,         /* the trace cannot be read on: fatal */
};

/* What the decoding thread made of one message. */
struct ct_record {
	enum ct_record_kind kind;
	/*
	 * Its place in time, by which the records of several runs are merged
	 * (decode-merge.h): its time (an event's, a loss's beginning), or
	 * the record's before when it has none; never before it.
	 */
	int64_t at_ns;
	/* CT_RECORD_EVENT: the payload was decoded (else the event is only counted) */
	bool decoded;
	/*
	 * Where the event comes from. An origin that did not change is that of
	 * the previous record of the same group (decode-merge.c sets lane): the
	 * groups' records interleave in the merge.
	 */
	struct ct_event_origin origin;
	uint32_t lane;
	union {
		/* type, time_ns and payload; strings and sequences in the batch's */
		struct ct_event ev;
		struct ct_ust_statedump_record statedump; /* its strings in the batch's */
	};
	struct {
		uint32_t first, count; /* in the batch's held; count > 0 */
	} held;
	struct {
		int64_t time_ns; /* INT64_MIN when the stream does not say */
		uint64_t events, packets;
	} loss;
	struct {
		bool input; /* the trace's fault (else a reader's: out of memory) */
		const char *why;
	} fatal;
};

struct ct_batch {
	struct ct_record records[CT_DECODE_BATCH];
	size_t count;
	uint64_t foreign_events;           /* events of other providers, not recorded */
	GStringChunk *strings;             /* the records' strings */
	size_t seq_used;                   /* elements of seq the records hold */
	uint64_t seq[CT_DECODE_BATCH_SEQ]; /* the elements of the records' sequences */
	size_t held_used;                  /* of held */
	struct ct_held_event held[CT_DECODE_BATCH_HELD]; /* the CT_RECORD_HELD records' */
};

struct ct_decode_thread;

/* CACHE (borrowed) resolves classes; TYPES (CT_EV_BIT) are those whose payload is wanted. */
struct ct_decode_thread *ct_decode_thread_create(struct ct_class_cache *cache, ct_ev_set types);

/* The graph's sink (trace-graph.h): DATA is the decode thread. */
bt_graph_simple_sink_component_consume_func_status
ct_decode_thread_consume(bt_message_iterator *iterator, void *data);

/* Runs GRAPH (borrowed, until joined) on a new thread. 0, or -1 with why in ERROR. */
int ct_decode_thread_start(struct ct_decode_thread *dt, struct ct_trace_graph *graph, char *error,
                           size_t len);

/* The next batch, waiting for it; NULL when the run has ended. */
struct ct_batch *ct_decode_thread_next(struct ct_decode_thread *dt);

/* Hands BATCH back to be filled again. */
void ct_decode_thread_release(struct ct_decode_thread *dt, struct ct_batch *batch);

/* Has the run stop at its next message (the reading thread met a fatal error). */
void ct_decode_thread_stop(struct ct_decode_thread *dt);

/* Waits for the thread's end: the run's status (ERROR holds its message). */
enum ct_trace_graph_status ct_decode_thread_join(struct ct_decode_thread *dt, char *error,
                                                 size_t len);

/* Frees DT (joined, or never started). NULL is fine. */
void ct_decode_thread_destroy(struct ct_decode_thread *dt);

#endif
