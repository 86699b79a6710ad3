/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-writer.c - the writing thread of the GPU-time export (see
 * gpu-time-writer.h).
 *
 * For each batch handed over, every operation goes into the reorder
 * queue (a copy of its own, since the batch goes back to be filled
 * again), then the graph runs: sink.ctf.fs asks for messages (next) and
 * gets what the queue lets go, made into messages (a stream's beginning
 * and a packet's beginning before its first event; a packet ends every
 * PACKET_EVENTS events, at its last event's time, so that every message
 * is in time order), until the queue lets nothing go for now. Once the
 * reading thread has no more, the queue is flushed, every packet and
 * stream ended at the last time out, and the graph runs to its end.
 */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "contract/mix64.h"
#include "ctf-writer.h"
#include "gpu-reorder.h"
#include "gpu-time-writer.h"
#include "common/handoff.h"

/* Events per packet: packets small enough for readers to seek in. */
#define PACKET_EVENTS 1024u
/* Messages one point makes at most: stream and packet beginnings, its event, a packet end. */
#define POINT_MESSAGES 4u

/* One stream of the GPU-time trace: a process, a device, a CUDA stream. */
struct out_stream {
	const void *process;
	uint8_t device;
	uint32_t stream;
	bt_stream *bt;     /* owned; NULL until its first event leaves */
	bt_packet *packet; /* owned; NULL between packets */
	uint64_t in_packet;
};

/*
 * An operation in the reorder queue: its two points share it, and its end
 * gives it back to the spares.
 */
struct pending {
	struct ct_gpu_time_op op;
	struct out_stream *out; /* borrowed */
	struct pending *next_spare;
};

/* The messages the sink could not take yet: a point makes several at once. */
struct carried {
	bt_message *msgs[POINT_MESSAGES]; /* owned, in order from HEAD */
	size_t head, count;
};

struct ct_gpu_time_writer {
	struct ct_gpu_time_stats *stats;                        /* the caller's */
	struct ct_ctf_writer *writer;                           /* owned */
	struct ct_gpu_time_batch *batches[CT_GPU_TIME_BATCHES]; /* owned */
	struct ct_handoff handoff;
	GThread *thread;
	gint failed;                 /* atomic: the writing failed */
	struct ct_trace_desc *trace; /* owned: the trace the operations come from */
	/* The writing thread's, until it ends. */
	GHashTable *by_key;             /* struct key (a stream) -> struct out_stream, borrowed */
	GPtrArray *streams;             /* struct out_stream, owned, in order of creation */
	struct out_stream *last_stream; /* the last one looked up: records come in runs */
	/* Operations no longer held, owned, for the next ones: as many as the queue has held. */
	struct pending *spares;
	struct ct_gpu_reorder reorder;
	struct ct_gpu_schema schema;
	bool has_schema;
	struct carried carried;
	bool input_ended;
	guint closing; /* with INPUT_ENDED: the streams ended so far */
	int64_t last_ns;
	char why[512]; /* why it failed */
};

/* ------------------------------------------------------------ streams */

/*
 * What streams are keyed by: a process and a device's CUDA stream.
 * Looked up for every operation, so a few words hashed rather than a
 * string formatted and hashed.
 */
struct key {
	const void *process;
	uint64_t id; /* device << 32 | stream */
};

static guint key_hash(gconstpointer data)
{
	const struct key *k = data;

	return (guint)ct_mix64(ct_mix64((uint64_t)(uintptr_t)k->process) ^ k->id);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const struct key *x = a, *y = b;

	return x->process == y->process && x->id == y->id;
}

static void out_stream_free(gpointer data)
{
	struct out_stream *s = data;

	bt_packet_put_ref(s->packet);
	bt_stream_put_ref(s->bt);
	g_free(s);
}

static struct out_stream *out_stream_of(struct ct_gpu_time_writer *w, const void *process,
                                        uint8_t device, uint32_t stream)
{
	struct key key = { process, (uint64_t)device << 32 | stream };
	struct out_stream *s = w->last_stream;

	if (s && s->process == process && s->device == device && s->stream == stream)
		return s;
	s = g_hash_table_lookup(w->by_key, &key);
	w->last_stream = s;
	if (s)
		return s;
	s = w->last_stream = g_new0(struct out_stream, 1);
	s->process = process;
	s->device = device;
	s->stream = stream;
	g_ptr_array_add(w->streams, s);
	g_hash_table_insert(w->by_key, g_memdup2(&key, sizeof(key)), s);
	return s;
}

/* ------------------------------------------------------------ operations */

/* A copy of OP in the queue's memory, a spare when there is one. */
static struct pending *pending_new(struct ct_gpu_time_writer *w, const struct ct_gpu_time_op *op)
{
	struct pending *p = w->spares;

	if (p)
		w->spares = p->next_spare;
	else
		p = g_new(struct pending, 1);
	p->op = *op;
	p->op.op.procname = p->op.procname;
	p->out = out_stream_of(w, op->process, op->op.device, op->op.stream);
	return p;
}

static void pending_free(struct ct_gpu_time_writer *w, struct pending *p)
{
	p->next_spare = w->spares;
	w->spares = p;
}

/* ------------------------------------------------------------ output */

/* What the writer gives the sink in one call: MSGS, CAPACITY of them, COUNT given. */
struct out {
	bt_self_message_iterator *self;
	bt_message_array_const msgs;
	uint64_t capacity;
	uint64_t *count;
};

/* MSG to the sink, or carried to the next call when this one is full; -1: no message. */
static int put(struct ct_gpu_time_writer *w, struct out *out, bt_message *msg)
{
	struct carried *c = &w->carried;

	if (!msg)
		return -1;
	if (*out->count < out->capacity && !c->count)
		out->msgs[(*out->count)++] = msg;
	else
		c->msgs[(c->head + c->count++) % POINT_MESSAGES] = msg;
	return 0;
}

/* What was carried, to the sink first. */
static void put_carried(struct ct_gpu_time_writer *w, struct out *out)
{
	struct carried *c = &w->carried;

	while (c->count && *out->count < out->capacity) {
		out->msgs[(*out->count)++] = c->msgs[c->head];
		c->head = (c->head + 1) % POINT_MESSAGES;
		c->count--;
	}
}

static int packet_end(struct ct_gpu_time_writer *w, struct out *out, struct out_stream *s)
{
	int status = put(w, out,
	                 bt_message_packet_end_create_with_default_clock_snapshot(
	                     out->self, s->packet, ct_gpu_schema_cycles(&w->schema, w->last_ns)));

	bt_packet_put_ref(s->packet);
	s->packet = NULL;
	s->in_packet = 0;
	return status;
}

/* The stream and packet of S, begun at TIME when they are not. */
static int stream_ready(struct ct_gpu_time_writer *w, struct out *out, struct out_stream *s,
                        const struct ct_gpu_op *op, int64_t time)
{
	if (!s->bt) {
		s->bt = ct_gpu_schema_stream(&w->schema, op);
		if (!s->bt || put(w, out, bt_message_stream_beginning_create(out->self, s->bt)) < 0)
			return -1;
		w->stats->streams++;
	}
	if (!s->packet) {
		s->packet = bt_packet_create(s->bt);
		if (!s->packet ||
		    put(w, out,
		        bt_message_packet_beginning_create_with_default_clock_snapshot(
		            out->self, s->packet, ct_gpu_schema_cycles(&w->schema, time))) < 0)
			return -1;
	}
	return 0;
}

/* The event of POINT, in its stream's packet. */
static int emit(struct ct_gpu_time_writer *w, struct out *out, const struct ct_gpu_point *point)
{
	struct pending *p = point->op;
	struct out_stream *s = p->out;
	int status;

	w->last_ns = point->time;
	if (stream_ready(w, out, s, &p->op.op, point->time) < 0 ||
	    put(w, out,
	        ct_gpu_schema_event(&w->schema, out->self, &p->op.op, point->begin, s->packet)) < 0)
		status = -1;
	else if (++s->in_packet >= PACKET_EVENTS)
		status = packet_end(w, out, s);
	else
		status = 0;
	if (!point->begin) {
		w->stats->operations++;
		pending_free(w, p);
	}
	return status;
}

/* The input ended, the queue is empty: the next stream ends at the last time out. */
static int close_stream(struct ct_gpu_time_writer *w, struct out *out)
{
	struct out_stream *s = g_ptr_array_index(w->streams, w->closing++);

	if (!s->bt)
		return 0;
	if (s->packet && packet_end(w, out, s) < 0)
		return -1;
	return put(w, out, bt_message_stream_end_create(out->self, s->bt));
}

/*
 * The CTF writer's NEXT (ctf-writer.h): what the reorder queue lets go
 * (anything, once the input ended), then the streams' ends, as messages,
 * until the sink's array is full; the rest stays in the queue, whose size
 * is bounded, and leaves at the next call.
 */
static bt_message_iterator_class_next_method_status next(void *data, bt_self_message_iterator *self,
                                                         bt_message_array_const msgs,
                                                         uint64_t capacity, uint64_t *count)
{
	struct ct_gpu_time_writer *w = data;
	struct out out = { self, msgs, capacity, count };
	struct ct_gpu_point point;
	int status = 0;

	*count = 0;
	put_carried(w, &out);
	while (status == 0 && *count < capacity) {
		if (ct_gpu_reorder_next(&w->reorder, w->input_ended, &point))
			status = emit(w, &out, &point);
		else if (w->input_ended && w->closing < w->streams->len)
			status = close_stream(w, &out);
		else
			break;
	}
	if (status < 0)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	if (*count)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	return w->input_ended ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END
	                      : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
}

/* ------------------------------------------------------------ the writing thread */

static void fail(struct ct_gpu_time_writer *w)
{
	g_atomic_int_set(&w->failed, 1);
}

/* The schema, made from the trace the operations come from, at the first. */
static int schema_ready(struct ct_gpu_time_writer *w)
{
	if (w->has_schema)
		return 0;
	if (ct_gpu_schema_create(&w->schema, ct_ctf_writer_component(w->writer), w->trace, w->why,
	                         sizeof(w->why)) < 0)
		return -1;
	w->has_schema = true;
	return 0;
}

/* OP into the reorder queue, unless its times cannot be timestamps or it comes too late. */
static void take(struct ct_gpu_time_writer *w, const struct ct_gpu_time_op *op)
{
	struct pending *p;

	/* an end before the start is no time either */
	if (!ct_gpu_schema_time_ok(&w->schema, (uint64_t)op->op.start) ||
	    !ct_gpu_schema_time_ok(&w->schema, (uint64_t)op->op.end) || op->op.end < op->op.start) {
		w->stats->untimed++;
		return;
	}
	p = pending_new(w, op);
	if (!ct_gpu_reorder_add(&w->reorder, p->op.op.start, p->op.op.end, p))
		pending_free(w, p);
}

/* BATCH's operations into the queue, then the sink takes what the queue lets go. */
static void write_batch(struct ct_gpu_time_writer *w, const struct ct_gpu_time_batch *batch)
{
	if (!batch->count)
		return;
	if (schema_ready(w) < 0) {
		fail(w);
		return;
	}
	for (size_t i = 0; i < batch->count; i++)
		take(w, &batch->ops[i]);
	if (ct_ctf_writer_run(w->writer, w->why, sizeof(w->why)) < 0)
		fail(w);
}

static gpointer run(gpointer data)
{
	struct ct_gpu_time_writer *w = data;
	struct ct_gpu_time_batch *b;

	while ((b = ct_handoff_take_full(&w->handoff))) {
		if (!g_atomic_int_get(&w->failed))
			write_batch(w, b);
		ct_handoff_give_empty(&w->handoff, b);
	}
	/* the input ended: the rest leaves, and the streams end */
	w->input_ended = true;
	if (!g_atomic_int_get(&w->failed) &&
	    ct_ctf_writer_run(w->writer, w->why, sizeof(w->why)) < 0)
		fail(w);
	w->stats->late = w->reorder.late;
	w->stats->window_ns = w->reorder.window_ns;
	return NULL;
}

/* ------------------------------------------------------------ the reading thread */

struct ct_gpu_time_writer *
ct_gpu_time_writer_create(const char *dir, struct ct_gpu_time_stats *stats, char *error, size_t len)
{
	struct ct_gpu_time_writer *w = g_new0(struct ct_gpu_time_writer, 1);
	GError *gerror = NULL;

	w->stats = stats;
	w->by_key = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
	w->streams = g_ptr_array_new_with_free_func(out_stream_free);
	ct_gpu_reorder_init(&w->reorder, 0);
	for (size_t i = 0; i < CT_GPU_TIME_BATCHES; i++)
		w->batches[i] = g_new0(struct ct_gpu_time_batch, 1);
	ct_handoff_init(&w->handoff, (void *const *)w->batches, CT_GPU_TIME_BATCHES);
	/* made here, run there: the thread starts after the graph is whole */
	w->writer = ct_ctf_writer_create(dir, next, w, error, len);
	if (!w->writer) {
		ct_gpu_time_writer_destroy(w);
		return NULL;
	}
	w->thread = g_thread_try_new("cudatrace-write", run, w, &gerror);
	if (!w->thread) {
		snprintf(error, len, "cannot start the writing thread: %s",
		         gerror ? gerror->message : "unknown error");
		g_clear_error(&gerror);
		ct_gpu_time_writer_destroy(w);
		return NULL;
	}
	return w;
}

void ct_gpu_time_writer_set_trace(struct ct_gpu_time_writer *w, const struct ct_trace_desc *trace)
{
	w->trace = trace ? ct_trace_desc_copy(trace) : NULL;
}

struct ct_gpu_time_batch *ct_gpu_time_writer_batch(struct ct_gpu_time_writer *w)
{
	struct ct_gpu_time_batch *b = ct_handoff_take_empty(&w->handoff);

	b->count = 0;
	return b;
}

void ct_gpu_time_writer_give(struct ct_gpu_time_writer *w, struct ct_gpu_time_batch *batch)
{
	ct_handoff_give_full(&w->handoff, batch);
}

bool ct_gpu_time_writer_failed(struct ct_gpu_time_writer *w)
{
	return g_atomic_int_get(&w->failed) != 0;
}

/* No more batches: the thread writes (unless abandoned) what is left, and ends. */
static void join(struct ct_gpu_time_writer *w)
{
	if (!w->thread)
		return;
	ct_handoff_end(&w->handoff);
	g_thread_join(w->thread);
	w->thread = NULL;
}

int ct_gpu_time_writer_close(struct ct_gpu_time_writer *w, char *error, size_t len)
{
	join(w);
	if (g_atomic_int_get(&w->failed)) {
		snprintf(error, len, "%s", w->why);
		return -1;
	}
	return 0;
}

/* What the queue still holds (each operation once, at its end), then the spares. */
static void free_pending(struct ct_gpu_time_writer *w)
{
	struct ct_gpu_point point;

	while (ct_gpu_reorder_next(&w->reorder, true, &point))
		if (!point.begin)
			pending_free(w, point.op);
	while (w->spares) {
		struct pending *p = w->spares;

		w->spares = p->next_spare;
		g_free(p);
	}
}

void ct_gpu_time_writer_destroy(struct ct_gpu_time_writer *w)
{
	if (!w)
		return;
	/*
	 * Not closed (the export failed): the thread still writes what it
	 * was given and ends every stream, the directory being removed
	 * after. sink.ctf.fs (babeltrace2 2.0) finalized with a stream still
	 * open reads the environment of a trace it has freed.
	 */
	join(w);
	free_pending(w);
	ct_gpu_reorder_release(&w->reorder);
	for (size_t i = 0; i < w->carried.count; i++)
		bt_message_put_ref(w->carried.msgs[(w->carried.head + i) % POINT_MESSAGES]);
	g_ptr_array_free(w->streams, TRUE);
	g_hash_table_destroy(w->by_key);
	if (w->has_schema)
		ct_gpu_schema_release(&w->schema);
	/* last: the sink ends the trace it writes, and writes its metadata */
	ct_ctf_writer_destroy(w->writer);
	ct_handoff_release(&w->handoff);
	for (size_t i = 0; i < CT_GPU_TIME_BATCHES; i++)
		g_free(w->batches[i]);
	ct_trace_desc_destroy(w->trace);
	g_free(w);
}
