/* SPDX-License-Identifier: MIT */
/*
 * decode-thread.c - the graph run on a decoding thread, its messages
 * handed over as records in batches (see decode-thread.h).
 *
 * Every babeltrace2 object is touched by the decoding thread only, from
 * the start of the run to its end: babeltrace2 is not thread-safe, and
 * its current error is per thread. What the reading thread gets is plain
 * data: values, strings copied into the batch, and the descriptions of
 * the traces (trace-desc.h), which the class cache keeps as long as the
 * graph.
 */
#include <stdio.h>
#include <string.h>

#include "decode-thread.h"
#include "gpu-batches.h"
#include "repeat-runs.h"
#include "common/handoff.h"

struct ct_decode_thread {
	struct ct_class_cache *cache; /* borrowed */
	ct_ev_set types;
	struct ct_decoder decoder;
	int64_t last_ns; /* the place in time of the last record (ct_record's at_ns) */
	struct ct_batch *batches[CT_DECODE_BATCHES]; /* owned */
	/* The batches to fill and filled: ended once the run is over. */
	struct ct_handoff handoff;
	struct ct_batch *filling;     /* the decoding thread's, or NULL */
	struct ct_trace_graph *graph; /* borrowed */
	GThread *thread;
	gint stop;  /* atomic: the reading thread wants the run stopped */
	bool fatal; /* the decoding thread met an error that ends the pass */
	bool ended; /* the reading thread saw the run over */
	enum ct_trace_graph_status status;
	char error[512];
};

struct ct_decode_thread *ct_decode_thread_create(struct ct_class_cache *cache, ct_ev_set types)
{
	struct ct_decode_thread *dt = g_new0(struct ct_decode_thread, 1);

	dt->cache = cache;
	dt->types = types;
	ct_decoder_init(&dt->decoder);
	dt->last_ns = INT64_MIN;
	for (size_t i = 0; i < CT_DECODE_BATCHES; i++) {
		dt->batches[i] = g_new0(struct ct_batch, 1);
		dt->batches[i]->strings = g_string_chunk_new(4096);
	}
	/* a live trace's decoder may wait for events with a batch given: read at once */
	ct_handoff_init(&dt->handoff, (void *const *)dt->batches, CT_DECODE_BATCHES, 1);
	return dt;
}

void ct_decode_thread_destroy(struct ct_decode_thread *dt)
{
	if (!dt)
		return;
	ct_handoff_release(&dt->handoff);
	for (size_t i = 0; i < CT_DECODE_BATCHES; i++) {
		g_string_chunk_free(dt->batches[i]->strings);
		g_free(dt->batches[i]);
	}
	g_free(dt);
}

/* ------------------------------------------------------------ the decoding thread */

/* Hands the batch being filled to the reading thread, if it holds anything. */
static void flush(struct ct_decode_thread *dt)
{
	struct ct_batch *b = dt->filling;

	if (!b || (!b->count && !b->foreign_events))
		return;
	ct_handoff_give_full(&dt->handoff, b);
	dt->filling = NULL;
}

/*
 * The batch being filled, with room for a record, SEQ_ROOM sequence
 * elements and HELD_ROOM held events: an empty one, waiting for it when all
 * are in use.
 */
static struct ct_batch *filling(struct ct_decode_thread *dt, size_t seq_room, size_t held_room)
{
	struct ct_batch *b = dt->filling;

	if (b && (b->count == CT_DECODE_BATCH || b->seq_used > CT_DECODE_BATCH_SEQ - seq_room ||
	          b->held_used > CT_DECODE_BATCH_HELD - held_room)) {
		flush(dt);
		b = NULL;
	}
	if (!b) {
		/* never NULL: the run is not over while it runs */
		b = ct_handoff_take_empty(&dt->handoff);
		b->count = 0;
		b->foreign_events = 0;
		b->seq_used = 0;
		b->held_used = 0;
		g_string_chunk_clear(b->strings);
		dt->filling = b;
	}
	return b;
}

/*
 * A new record of KIND, in the batch being filled (*BATCH, when not NULL,
 * for its strings), one with room for SEQ_ROOM sequence elements.
 */
static struct ct_record *new_record(struct ct_decode_thread *dt, enum ct_record_kind kind,
                                    size_t seq_room, struct ct_batch **batch)
{
	struct ct_batch *b = filling(dt, seq_room, 0);
	struct ct_record *rec = &b->records[b->count++];

	rec->kind = kind;
	rec->at_ns = dt->last_ns;
	if (batch)
		*batch = b;
	return rec;
}

/*
 * The place in time of a record at TIME_NS (INT64_MIN: unknown): never
 * before the previous record's, so that the records of a run are in
 * order of place, as decode-merge.h merges them.
 */
static int64_t place(struct ct_decode_thread *dt, int64_t time_ns)
{
	if (time_ns > dt->last_ns)
		dt->last_ns = time_ns;
	return dt->last_ns;
}

/* The pass cannot go on, for WHY; the messages after this one are not read. */
static void fatal(struct ct_decode_thread *dt, bool input, const char *why)
{
	struct ct_batch *b;
	struct ct_record *rec = new_record(dt, CT_RECORD_FATAL, 0, &b);

	rec->fatal.input = input;
	rec->fatal.why = g_string_chunk_insert(b->strings, why);
	dt->fatal = true;
}

/* The resolved class of EVENT, resolved now if it is the first of its class; NULL on error. */
static const struct ct_event_class_info *class_of(struct ct_decode_thread *dt,
                                                  const bt_event *event)
{
	struct ct_event_class_info *info;
	char why[512];

	switch (ct_class_cache_lookup(dt->cache, event, dt->types, &info, why, sizeof(why))) {
	case CT_CLASS_CACHE_MEMORY_ERROR:
		bt_current_thread_clear_error();
		fatal(dt, false, "out of memory");
		return NULL;
	case CT_CLASS_CACHE_UNKNOWN:
		fatal(dt, true, why);
		return NULL;
	default:
		return info;
	}
}

/*
 * One of lttng-ust's statedump events: counted as foreign, and also handed
 * to the reading thread, which names call stacks with it. It carries no
 * cudatrace context, only the vpid lttng-ust's own context adds: its
 * process is (hostname, vpid), whatever the events around it.
 */
static void decode_ust_statedump(struct ct_decode_thread *dt,
                                 const struct ct_event_class_info *info, const bt_message *msg,
                                 const bt_event *event)
{
	struct ct_batch *b;
	struct ct_record *rec = new_record(dt, CT_RECORD_UST_STATEDUMP, 0, &b);
	struct ct_ust_statedump_record *sd = &rec->statedump;

	memset(sd, 0, sizeof(*sd));
	if (!ct_ust_statedump_decode(info->ust_statedump, event, b->strings, sd)) {
		b->count--; /* skipped: a member is missing */
		return;
	}
	sd->hostname =
	    info->hostname ? g_string_chunk_insert_const(b->strings, info->hostname) : NULL;
	sd->pid = ct_decoder_vpid(info, bt_event_borrow_common_context_field_const(event));
	rec->at_ns = place(dt, ct_decoder_time(&dt->decoder, info, msg));
}

/*
 * The events a batch-like event holds, as they are read: the CT_RECORD_HELD
 * record that takes them, in the batch being filled, and the origin they
 * share. A batch that has no room for the next one is handed over, and a
 * record in the next batch takes the rest.
 */
struct held_reading {
	const struct ct_event_class_info *info;
	const bt_event *event;
	int64_t at_ns;                 /* the event's place in time */
	int64_t vtid;                  /* the events' thread, when not 0 (a repeat_run's tid) */
	struct ct_batch *batch;        /* rec's; NULL before the first event */
	struct ct_record *rec;         /* in batch */
	struct ct_event_origin origin; /* the first record's, unchanged for the next */
};

/*
 * Where the next held event is read into: room in the batch being
 * filled, the next record's batch when it has none. Nothing is counted
 * until held_keep.
 */
static struct ct_held_event *held_next(struct ct_decode_thread *dt, struct held_reading *hr)
{
	struct ct_batch *b = hr->batch;

	if (!b || b != dt->filling || b->held_used == CT_DECODE_BATCH_HELD) {
		b = filling(dt, 0, 1);
		if (b != hr->batch)
			hr->rec = NULL;
	}
	return &b->held[b->held_used];
}

/*
 * Keeps the held event just read (held_next), in a new record when the
 * batch has none of this event's yet. The first record reads the origin
 * from the event's context; those in the next batches have it again,
 * unchanged. Read only now: the decoder notes every origin it reads as
 * the last one.
 */
static void held_keep(struct ct_decode_thread *dt, struct held_reading *hr)
{
	struct ct_batch *b = dt->filling;
	struct ct_record *rec = hr->rec;

	if (!rec) {
		rec = &b->records[b->count++];
		rec->kind = CT_RECORD_HELD;
		rec->decoded = true;
		rec->at_ns = place(dt, hr->at_ns);
		rec->ev.trace = hr->info->trace;
		rec->held.first = (uint32_t)b->held_used;
		rec->held.count = 0;
		if (!hr->batch) {
			ct_decoder_origin(&dt->decoder, hr->info,
			                  bt_event_borrow_common_context_field_const(hr->event),
			                  true, b->strings, &rec->origin);
			if (hr->vtid)
				rec->origin.vtid = hr->vtid;
			hr->origin = rec->origin;
			/* the same origin again: nothing changed, no string to copy */
			hr->origin.changed = false;
			hr->origin.hostname = hr->origin.procname = NULL;
		} else {
			rec->origin = hr->origin;
		}
		hr->batch = b;
		hr->rec = rec;
	}
	b->held_used++;
	rec->held.count++;
}

/*
 * A gpu_batch: a held event for each kernel, copy and memset it holds,
 * the gpu_memcpy_times, gpu_kernel_times, gpu_kernel_shaped or
 * gpu_memset_times it stands for at the batch's time, as if the tracer had written them one by one.
 */
static void decode_gpu_batch(struct ct_decode_thread *dt, const struct ct_event_class_info *info,
                             const bt_message *msg, const bt_event *event)
{
	int64_t time = ct_decoder_time(&dt->decoder, info, msg);
	struct held_reading hr = { .info = info, .event = event, .at_ns = time };
	struct ct_gpu_batch batch;
	struct ct_held_event *h;

	ct_gpu_batch_open(&batch, info, event);
	while (ct_gpu_batch_next(&batch, (h = held_next(dt, &hr)))) {
		h->time_ns = time;
		held_keep(dt, &hr);
	}
}

/*
 * A repeat_run as the repeats it holds, each at its call's return and of
 * its thread (the run's tid, when another thread wrote it at the exit):
 * earlier than the run, placed where the run is (place).
 */
static void decode_repeat_run(struct ct_decode_thread *dt, const struct ct_event_class_info *info,
                              const bt_message *msg, const bt_event *event)
{
	struct held_reading hr = { .info = info, .event = event };
	struct ct_repeat_run run;

	hr.at_ns = ct_decoder_time(&dt->decoder, info, msg);
	ct_repeat_run_open(&run, info, event);
	hr.vtid = run.tid;
	while (ct_repeat_run_next(&run, held_next(dt, &hr)))
		held_keep(dt, &hr);
}

static void decode_event(struct ct_decode_thread *dt, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const struct ct_event_class_info *info = class_of(dt, event);
	struct ct_record *rec;
	struct ct_batch *b;

	size_t seq_room;

	if (!info)
		return;
	if (info->type == CT_EV_NONE) {
		filling(dt, 0, 0)->foreign_events++;
		if (info->ust_statedump)
			decode_ust_statedump(dt, info, msg, event);
		return;
	}
	if (info->type == CT_EV_GPU_BATCH && info->decode) {
		decode_gpu_batch(dt, info, msg, event);
		return;
	}
	if (info->type == CT_EV_REPEAT_RUN && info->decode) {
		decode_repeat_run(dt, info, msg, event);
		return;
	}
	seq_room = info->decode ? (size_t)info->seq_fields * CT_STACK_FRAMES_MAX : 0;
	rec = new_record(dt, CT_RECORD_EVENT, seq_room, &b);
	rec->decoded = info->decode;
	memset(&rec->ev, 0, sizeof(rec->ev));
	rec->ev.type = info->type;
	rec->ev.trace = info->trace;
	rec->ev.time_ns = ct_decoder_time(&dt->decoder, info, msg);
	rec->at_ns = place(dt, rec->ev.time_ns);
	ct_decoder_origin(&dt->decoder, info, bt_event_borrow_common_context_field_const(event),
	                  info->decode, b->strings, &rec->origin);
	if (info->decode)
		b->seq_used +=
		    ct_decoder_payload(info, event, &rec->ev, b->strings, b->seq + b->seq_used,
		                       CT_DECODE_BATCH_SEQ - b->seq_used);
}

/* CS in ns on the trace clock, as event times are (ct_decoder_time); INT64_MIN if unknown. */
static int64_t snapshot_ns(const bt_clock_snapshot *cs)
{
	return ct_clock_ns(
	    bt_clock_snapshot_get_value(cs),
	    bt_clock_class_get_frequency(bt_clock_snapshot_borrow_clock_class_const(cs)));
}

/* When the loss MSG reports began; INT64_MIN when its stream gives no time. */
static int64_t loss_time(const bt_message *msg, bool events)
{
	const bt_stream *stream = events ? bt_message_discarded_events_borrow_stream_const(msg)
	                                 : bt_message_discarded_packets_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);

	if (events && bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
		return snapshot_ns(
		    bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg));
	if (!events && bt_stream_class_discarded_packets_have_default_clock_snapshots(sc))
		return snapshot_ns(
		    bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
		        msg));
	return INT64_MIN;
}

static void loss(struct ct_decode_thread *dt, const bt_message *msg, bool events)
{
	uint64_t count;
	bt_property_availability known = events
	                                     ? bt_message_discarded_events_get_count(msg, &count)
	                                     : bt_message_discarded_packets_get_count(msg, &count);
	struct ct_record *rec;

	if (known != BT_PROPERTY_AVAILABILITY_AVAILABLE)
		return;
	rec = new_record(dt, CT_RECORD_LOSS, 0, NULL);
	rec->loss.time_ns = loss_time(msg, events);
	rec->at_ns = place(dt, rec->loss.time_ns);
	rec->loss.events = events ? count : 0;
	rec->loss.packets = events ? 0 : count;
}

static void decode_message(struct ct_decode_thread *dt, const bt_message *msg)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		decode_event(dt, msg);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		loss(dt, msg, true);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		loss(dt, msg, false);
		break;
	default:
		break;
	}
}

/*
 * src.ctf.fs gives the events decoded before a packet that cannot be
 * decoded (a partial or corrupt one) with its error recorded for the
 * thread, where no API function may be called: the error is taken, and
 * the reading thread told where in the sequence it happened.
 */
static void decoding_stopped(struct ct_decode_thread *dt)
{
	const bt_error *error = bt_current_thread_take_error();

	if (!error)
		return;
	bt_error_release(error);
	new_record(dt, CT_RECORD_STOPPED, 0, NULL);
}

bt_graph_simple_sink_component_consume_func_status ct_decode_thread_consume(bt_message_iterator *it,
                                                                            void *data)
{
	struct ct_decode_thread *dt = data;
	bt_message_array_const msgs;
	uint64_t count = 0;

	if (g_atomic_int_get(&dt->stop))
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		decoding_stopped(dt);
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		/* a live source has nothing new yet: what was read is not held back */
		flush(dt);
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	/* every message is put, even after a fatal one */
	for (uint64_t i = 0; i < count; i++) {
		if (!dt->fatal)
			decode_message(dt, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return dt->fatal ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR
	                 : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static gpointer run(gpointer data)
{
	struct ct_decode_thread *dt = data;

	dt->status = ct_trace_graph_run(dt->graph, dt->error, sizeof(dt->error));
	/* a stream that ended in data that cannot be decoded, as decoding_stopped says */
	if (ct_trace_graph_ended_in_error(dt->graph))
		new_record(dt, CT_RECORD_STOPPED, 0, NULL);
	flush(dt);
	ct_handoff_end(&dt->handoff);
	return NULL;
}

/* ------------------------------------------------------------ the reading thread */

int ct_decode_thread_start(struct ct_decode_thread *dt, struct ct_trace_graph *graph, char *error,
                           size_t len)
{
	GError *gerror = NULL;

	dt->graph = graph;
	dt->thread = g_thread_try_new("cudatrace-decode", run, dt, &gerror);
	if (!dt->thread) {
		snprintf(error, len, "cannot start the decoding thread: %s",
		         gerror ? gerror->message : "unknown error");
		g_clear_error(&gerror);
		return -1;
	}
	return 0;
}

struct ct_batch *ct_decode_thread_next(struct ct_decode_thread *dt)
{
	struct ct_batch *b;

	if (dt->ended || !dt->thread)
		return NULL;
	b = ct_handoff_take_full(&dt->handoff);
	dt->ended = !b;
	return b;
}

void ct_decode_thread_release(struct ct_decode_thread *dt, struct ct_batch *batch)
{
	ct_handoff_give_empty(&dt->handoff, batch);
}

void ct_decode_thread_stop(struct ct_decode_thread *dt)
{
	g_atomic_int_set(&dt->stop, 1);
}

enum ct_trace_graph_status ct_decode_thread_join(struct ct_decode_thread *dt, char *error,
                                                 size_t len)
{
	struct ct_batch *b;

	if (!dt->thread)
		return CT_TRACE_GRAPH_OK;
	/* a decoding thread waiting for an empty batch must get one to see the stop */
	if (!dt->ended)
		ct_decode_thread_stop(dt);
	while ((b = ct_decode_thread_next(dt)))
		ct_decode_thread_release(dt, b);
	g_thread_join(dt->thread);
	dt->thread = NULL;
	snprintf(error, len, "%s", dt->error);
	return dt->status;
}
