/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-writer.c - the writing thread of the GPU-time export (see
 * gpu-time-writer.h).
 *
 * For each batch handed over, every operation goes into the reorder
 * queue of its stream's lane (a copy of its own, since the batch goes
 * back to be filled again), then what the queues of the lanes it gave
 * operations let go is serialised into their packets (ctf-writer.h writes
 * a packet once it is full).
 * Once the reading thread has no more, the queues are flushed and every
 * lane's last packet written.
 *
 * Only the events of one CTF stream must be in time order, so each CUDA
 * stream is put in order apart. A CUDA stream runs its operations one
 * after the other, and CUPTI hands their records over in that order:
 * its queue holds a point only until an operation that starts after it
 * comes (a window that grows with the disorder it sees, gpu-reorder.h),
 * and the points it holds are those of the last batch or two, still in
 * the cache.
 * One global queue had to hold every operation for as long as the
 * slowest stream's records could lag behind the others' (50 ms, 65,536
 * kernels of a launch loop), and read each again once it had left the
 * cache. An operation that starts before what its lane already wrote
 * (kernels a graph runs at once on one stream; two contexts' streams of
 * one number) goes into the stream's next lane, a CTF stream of its own
 * whose events have the same fields: none is left out while there is a
 * lane to take it.
 */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "contract/mix64.h"
#include "ctf-writer.h"
#include "gpu-reorder.h"
#include "gpu-time-writer.h"
#include "common/handoff.h"
#include "common/spares.h"

/* Lanes a CUDA stream's operations may take; an operation no lane can put in order is left out. */
#define LANES_MAX 4

/* A CTF stream of the GPU-time trace, and the queue that puts its operations in order. */
struct lane {
	struct ct_gpu_reorder reorder;
	struct ct_ctf_stream *ctf; /* the writer's; NULL until its first event leaves */
	unsigned index;            /* in its stream's lanes */
	bool touched;              /* given an operation of the batch being taken */
};

/* A process, a device, a CUDA stream: its lanes. */
struct out_stream {
	const void *process;
	uint8_t device;
	uint32_t stream;
	struct lane *lanes[LANES_MAX]; /* borrowed from the writer's; NULL until needed */
};

/*
 * An operation in a lane's queue: its two points share it, and its end
 * gives it back to the spares (whose link overwrites its first bytes: a
 * spare's operation is written again whole when it is taken).
 */
struct pending {
	struct ct_gpu_time_op op;
	struct lane *lane; /* borrowed: the one that holds it */
};

struct ct_gpu_time_writer {
	struct ct_gpu_time_stats *stats;                        /* the caller's */
	struct ct_ctf_writer *writer;                           /* owned */
	char *dir;                                              /* owned */
	struct ct_gpu_time_batch *batches[CT_GPU_TIME_BATCHES]; /* owned */
	struct ct_handoff handoff;
	GThread *thread;
	gint failed;                 /* atomic: the writing failed */
	struct ct_trace_desc *trace; /* owned: the trace the operations come from */
	/* The writing thread's, until it ends. */
	GHashTable *by_key;             /* struct key (a stream) -> struct out_stream, borrowed */
	GPtrArray *streams;             /* struct out_stream, owned, in order of creation */
	GPtrArray *lanes;               /* struct lane, owned, of every stream */
	struct out_stream *last_stream; /* the last one looked up: records come in runs */
	/*
	 * Operations no longer held, owned, for the next ones: as many as the
	 * lanes have held at once. Taken again first in, first out
	 * (spares.h): operations leave in time order and come in about in it.
	 */
	struct ct_spares spares;
	size_t held; /* operations the lanes hold: CT_GPU_OPS_HELD_MAX at most, and a batch */
	GPtrArray *touched; /* struct lane (borrowed) given operations of the batch being taken */
	uint64_t late;      /* operations no lane could put in order */
	struct ct_gpu_schema schema;
	bool has_schema;
	char why[1024]; /* why it failed */
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

static void lane_free(gpointer data)
{
	struct lane *l = data;

	ct_gpu_reorder_release(&l->reorder);
	g_free(l);
}

/* Lane I of W's lanes. */
static struct lane *lane_at(const struct ct_gpu_time_writer *w, guint i)
{
	return g_ptr_array_index(w->lanes, i);
}

/*
 * The first lane of S that can put an operation starting at START in
 * order, made when it is needed; NULL when none can.
 */
static struct lane *lane_for(struct ct_gpu_time_writer *w, struct out_stream *s, int64_t start)
{
	for (unsigned i = 0; i < LANES_MAX; i++) {
		struct lane *l = s->lanes[i];

		if (!l) {
			l = s->lanes[i] = g_new0(struct lane, 1);
			/* no smallest window: a stream's records come in its order */
			ct_gpu_reorder_init(&l->reorder, 0, 0);
			l->index = i;
			g_ptr_array_add(w->lanes, l);
			return l;
		}
		if (ct_gpu_reorder_fits(&l->reorder, start))
			return l;
	}
	return NULL;
}

/* A copy of OP in the queue's memory, a spare when there is one. */
static struct pending *pending_new(struct ct_gpu_time_writer *w, const struct ct_gpu_time_op *op)
{
	struct pending *p = ct_spares_take(&w->spares);

	if (!p)
		p = g_new(struct pending, 1);
	p->op = *op;
	return p;
}

static void pending_free(struct ct_gpu_time_writer *w, struct pending *p)
{
	ct_spares_put(&w->spares, p);
}

/* ------------------------------------------------------------ output */

static void fail(struct ct_gpu_time_writer *w)
{
	g_atomic_int_set(&w->failed, 1);
}

/* Why the writer could not write, in W->why: WHAT, the CTF writer's reason. */
static void write_failed(struct ct_gpu_time_writer *w, const char *what)
{
	snprintf(w->why, sizeof(w->why), "cannot write the GPU-time trace into '%s' (%s)", w->dir,
	         what);
	fail(w);
}

/* The CTF stream of lane L, whose operation OP is the first to leave it. */
static struct ct_ctf_stream *lane_ctf(struct ct_gpu_time_writer *w, struct lane *l,
                                      const struct ct_gpu_op *op)
{
	char name[96];
	size_t len;

	if (l->ctf)
		return l->ctf;
	ct_gpu_schema_stream_name(op, name, sizeof(name));
	len = strlen(name);
	if (l->index)
		snprintf(name + len, sizeof(name) - len, "-lane%u", l->index + 1);
	l->ctf = ct_ctf_writer_stream(w->writer, name);
	w->stats->streams++;
	return l->ctf;
}

/* The event of POINT, in its lane's stream (begun at its first event). */
static void emit(struct ct_gpu_time_writer *w, const struct ct_gpu_point *point)
{
	struct pending *p = point->op;
	int status = ct_gpu_schema_event(&w->schema, w->writer, lane_ctf(w, p->lane, &p->op.op),
	                                 &p->op.op, point->begin);

	if (!point->begin) {
		w->stats->operations++;
		w->held--;
		pending_free(w, p);
	}
	if (status < 0)
		write_failed(w, ct_ctf_writer_failure(w->writer));
}

/*
 * What lane L's queue lets go written: all it holds when FLUSH (the
 * input ended), and while the lanes hold more operations than their bound.
 */
static void drain(struct ct_gpu_time_writer *w, struct lane *l, bool flush)
{
	struct ct_gpu_point point;

	while (!g_atomic_int_get(&w->failed) &&
	       ct_gpu_reorder_next(&l->reorder, flush || w->held > CT_GPU_OPS_HELD_MAX, &point))
		emit(w, &point);
}

/* ------------------------------------------------------------ the writing thread */

/* The schema, made from the trace the operations come from, at the first. */
static int schema_ready(struct ct_gpu_time_writer *w)
{
	char why[512];

	if (w->has_schema)
		return 0;
	if (ct_gpu_schema_create(&w->schema, w->trace, w->why, sizeof(w->why)) < 0)
		return -1;
	if (ct_gpu_schema_write_metadata(&w->schema, w->writer, why, sizeof(why)) < 0) {
		write_failed(w, why);
		return -1;
	}
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
	p->lane = lane_for(w, out_stream_of(w, op->process, op->op.device, op->op.stream),
	                   p->op.op.start);
	if (!p->lane) {
		w->late++;
		pending_free(w, p);
		return;
	}
	ct_gpu_reorder_add(&p->lane->reorder, p->op.op.start, p->op.op.end, p);
	w->held++;
	if (!p->lane->touched) {
		p->lane->touched = true;
		g_ptr_array_add(w->touched, p->lane);
	}
}

/*
 * BATCH's operations into their lanes' queues, then what the lanes given
 * some let go is written: a batch's points, a thousand at most, are still
 * in the cache, and a lane is drained once a batch rather than once an
 * operation. Beyond the bound, those lanes' earliest points leave: they
 * hold the batch's operations.
 */
static void write_batch(struct ct_gpu_time_writer *w, const struct ct_gpu_time_batch *batch)
{
	if (!batch->count)
		return;
	if (schema_ready(w) < 0) {
		fail(w);
		return;
	}
	for (size_t i = 0; i < batch->count && !g_atomic_int_get(&w->failed); i++)
		take(w, &batch->ops[i]);
	for (guint i = 0; i < w->touched->len; i++) {
		struct lane *l = g_ptr_array_index(w->touched, i);

		l->touched = false;
		drain(w, l, false);
	}
	g_ptr_array_set_size(w->touched, 0);
}

/* The widest reorder window a lane reached. */
static int64_t widest_window(const struct ct_gpu_time_writer *w)
{
	int64_t widest = 0;

	for (guint i = 0; i < w->lanes->len; i++)
		if (lane_at(w, i)->reorder.window_ns > widest)
			widest = lane_at(w, i)->reorder.window_ns;
	return widest;
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
	/* the input ended: the rest leaves, and every stream's last packet */
	for (guint i = 0; i < w->lanes->len; i++)
		drain(w, lane_at(w, i), true);
	if (!g_atomic_int_get(&w->failed)) {
		char why[512];

		if (ct_ctf_writer_close(w->writer, why, sizeof(why)) < 0)
			write_failed(w, why);
	}
	w->stats->late = w->late;
	w->stats->window_ns = widest_window(w);
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
	w->streams = g_ptr_array_new_with_free_func(g_free);
	w->lanes = g_ptr_array_new_with_free_func(lane_free);
	w->touched = g_ptr_array_new();
	for (size_t i = 0; i < CT_GPU_TIME_BATCHES; i++)
		w->batches[i] = g_new0(struct ct_gpu_time_batch, 1);
	ct_handoff_init(&w->handoff, (void *const *)w->batches, CT_GPU_TIME_BATCHES,
	                CT_GPU_TIME_WAKE);
	w->dir = g_strdup(dir);
	w->writer = ct_ctf_writer_create(dir, error, len);
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

/* What the lanes still hold (each operation once, at its end), then the spares. */
static void free_pending(struct ct_gpu_time_writer *w)
{
	struct ct_gpu_point point;
	struct pending *p;

	for (guint i = 0; i < w->lanes->len; i++)
		while (ct_gpu_reorder_next(&lane_at(w, i)->reorder, true, &point))
			if (!point.begin)
				pending_free(w, point.op);
	while ((p = ct_spares_take(&w->spares)))
		g_free(p);
}

void ct_gpu_time_writer_destroy(struct ct_gpu_time_writer *w)
{
	if (!w)
		return;
	/* not closed (the export failed): the thread still writes what it was given */
	join(w);
	free_pending(w);
	g_ptr_array_free(w->touched, TRUE);
	g_ptr_array_free(w->lanes, TRUE);
	g_ptr_array_free(w->streams, TRUE);
	g_hash_table_destroy(w->by_key);
	ct_ctf_writer_destroy(w->writer);
	g_free(w->dir);
	ct_handoff_release(&w->handoff);
	for (size_t i = 0; i < CT_GPU_TIME_BATCHES; i++)
		g_free(w->batches[i]);
	ct_trace_desc_destroy(w->trace);
	g_free(w);
}
