/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-export.c - the GPU-time export (see gpu-time-export.h).
 *
 * Each GPU record the reader hands over becomes an operation in the
 * reorder queue. Every RUN_EVERY operations the writer's graph runs:
 * sink.ctf.fs asks for messages (next), and gets what the queue lets go,
 * made into messages (a stream's beginning and a packet's beginning
 * before its first event; a packet ends every PACKET_EVENTS events, at
 * its last event's time, so that every message is in time order), until
 * the queue lets nothing go for now. When the input has ended
 * (ct_gpu_time_close), the queue is flushed, every packet and stream
 * ended at the last time out, and the graph runs to its end.
 *
 * The reader cannot be told to stop by an analysis: after a failure, the
 * exporter takes nothing more and says why at its close.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "context.h"
#include "contract/mix64.h"
#include "ctf-writer.h"
#include "gpu-reorder.h"
#include "gpu-time-export.h"
#include "gpu-time-schema.h"

/* Events per packet: packets small enough for readers to seek in. */
#define PACKET_EVENTS 1024u
/*
 * Operations taken between two runs of the writer's graph: each run costs
 * a call down to this file and back when the queue lets nothing go, and
 * the queue holds this many more operations at most.
 */
#define RUN_EVERY 256u
/* Messages one point makes at most: stream and packet beginnings, its event, a packet end. */
#define POINT_MESSAGES 4u

/* One stream of the GPU-time trace: a process, a device, a CUDA stream. */
struct out_stream {
	struct ct_process *process; /* borrowed from the context */
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
	struct ct_gpu_op op;
	struct out_stream *out;     /* borrowed */
	struct ct_process *process; /* borrowed: a kernel's name is looked up in it */
	uint64_t kernel_id;
	struct pending *next_spare;
};

/* The messages the sink could not take yet: a point makes several at once. */
struct carried {
	bt_message *msgs[POINT_MESSAGES]; /* owned, in order from HEAD */
	size_t head, count;
};

struct ct_gpu_time {
	struct ct_gpu_time_stats *stats; /* the caller's */
	struct ct_ctf_writer *writer;    /* owned */
	GHashTable *by_key;              /* struct key (a stream) -> struct out_stream, borrowed */
	GPtrArray *streams;              /* struct out_stream, owned, in order of creation */
	struct out_stream *last_stream;  /* the last one looked up: records come in runs */
	/*
	 * Operations no longer held, owned, for the next ones: an operation
	 * costs no allocation once the queue has held as many.
	 */
	struct pending *spares;
	/* "memcpy HtoD" ... by direction, made on first use; owned, borrowed by operations */
	char *copy_names[256];
	struct ct_gpu_reorder reorder;
	struct ct_gpu_schema schema;
	bool has_schema;
	struct carried carried;
	unsigned taken; /* operations taken since the graph last ran */
	bool input_ended;
	guint closing; /* with INPUT_ENDED: the streams ended so far */
	int64_t last_ns;
	bool failed;
	char why[512]; /* why it failed */
	char name[64]; /* a kernel's name, when the trace does not say it */
};

/* ------------------------------------------------------------ streams */

/*
 * What streams are keyed by: a process and a device's CUDA stream.
 * Looked up for every GPU record, so a few words hashed rather than a
 * string formatted and hashed.
 */
struct key {
	const struct ct_process *process;
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

static struct out_stream *out_stream_of(struct ct_gpu_time *x, struct ct_process *process,
                                        uint8_t device, uint32_t stream)
{
	struct key key = { process, (uint64_t)device << 32 | stream };
	struct out_stream *s = x->last_stream;

	if (s && s->process == process && s->device == device && s->stream == stream)
		return s;
	s = g_hash_table_lookup(x->by_key, &key);
	x->last_stream = s;
	if (s)
		return s;
	s = x->last_stream = g_new0(struct out_stream, 1);
	s->process = process;
	s->device = device;
	s->stream = stream;
	g_ptr_array_add(x->streams, s);
	g_hash_table_insert(x->by_key, g_memdup2(&key, sizeof(key)), s);
	return s;
}

/* ------------------------------------------------------------ operations */

/* A zeroed operation, a spare when there is one. */
static struct pending *pending_new(struct ct_gpu_time *x)
{
	struct pending *p = x->spares;

	if (!p)
		return g_new0(struct pending, 1);
	x->spares = p->next_spare;
	memset(p, 0, sizeof(*p));
	return p;
}

static void pending_free(struct ct_gpu_time *x, struct pending *p)
{
	p->next_spare = x->spares;
	x->spares = p;
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
static int put(struct ct_gpu_time *x, struct out *out, bt_message *msg)
{
	struct carried *c = &x->carried;

	if (!msg)
		return -1;
	if (*out->count < out->capacity && !c->count)
		out->msgs[(*out->count)++] = msg;
	else
		c->msgs[(c->head + c->count++) % POINT_MESSAGES] = msg;
	return 0;
}

/* What was carried, to the sink first. */
static void put_carried(struct ct_gpu_time *x, struct out *out)
{
	struct carried *c = &x->carried;

	while (c->count && *out->count < out->capacity) {
		out->msgs[(*out->count)++] = c->msgs[c->head];
		c->head = (c->head + 1) % POINT_MESSAGES;
		c->count--;
	}
}

static int packet_end(struct ct_gpu_time *x, struct out *out, struct out_stream *s)
{
	int status = put(x, out,
	                 bt_message_packet_end_create_with_default_clock_snapshot(
	                     out->self, s->packet, ct_gpu_schema_cycles(&x->schema, x->last_ns)));

	bt_packet_put_ref(s->packet);
	s->packet = NULL;
	s->in_packet = 0;
	return status;
}

/* The stream and packet of S, begun at TIME when they are not. */
static int stream_ready(struct ct_gpu_time *x, struct out *out, struct out_stream *s,
                        const struct ct_gpu_op *op, int64_t time)
{
	if (!s->bt) {
		s->bt = ct_gpu_schema_stream(&x->schema, op);
		if (!s->bt || put(x, out, bt_message_stream_beginning_create(out->self, s->bt)) < 0)
			return -1;
		x->stats->streams++;
	}
	if (!s->packet) {
		s->packet = bt_packet_create(s->bt);
		if (!s->packet ||
		    put(x, out,
		        bt_message_packet_beginning_create_with_default_clock_snapshot(
		            out->self, s->packet, ct_gpu_schema_cycles(&x->schema, time))) < 0)
			return -1;
	}
	return 0;
}

/*
 * A kernel's name, as the trace says it when its begin leaves (its
 * kernel_name event comes with its first launch, well before its GPU
 * record): the context's, valid until the next event is read.
 */
static const char *kernel_name(struct ct_gpu_time *x, const struct pending *p)
{
	const char *name = ct_context_kernel_name(p->process, p->kernel_id);

	if (name)
		return name;
	snprintf(x->name, sizeof(x->name), "kernel 0x%" PRIx64, p->kernel_id);
	return x->name;
}

/* The event of POINT, in its stream's packet. */
static int emit(struct ct_gpu_time *x, struct out *out, const struct ct_gpu_point *point)
{
	struct pending *p = point->op;
	struct out_stream *s = p->out;
	int status;

	x->last_ns = point->time;
	if (point->begin && p->op.kind == CT_GPU_OP_KERNEL)
		p->op.name = kernel_name(x, p);
	if (stream_ready(x, out, s, &p->op, point->time) < 0 ||
	    put(x, out,
	        ct_gpu_schema_event(&x->schema, out->self, &p->op, point->begin, s->packet)) < 0)
		status = -1;
	else if (++s->in_packet >= PACKET_EVENTS)
		status = packet_end(x, out, s);
	else
		status = 0;
	if (!point->begin) {
		x->stats->operations++;
		pending_free(x, p);
	}
	return status;
}

/* The input ended, the queue is empty: the next stream ends at the last time out. */
static int close_stream(struct ct_gpu_time *x, struct out *out)
{
	struct out_stream *s = g_ptr_array_index(x->streams, x->closing++);

	if (!s->bt)
		return 0;
	if (s->packet && packet_end(x, out, s) < 0)
		return -1;
	return put(x, out, bt_message_stream_end_create(out->self, s->bt));
}

/*
 * The writer's NEXT (ctf-writer.h): what the reorder queue lets go
 * (anything, once the input ended), then the streams' ends, as messages,
 * until the sink's array is full; the rest stays in the queue, whose size
 * is bounded, and leaves at the next call.
 */
static bt_message_iterator_class_next_method_status next(void *data, bt_self_message_iterator *self,
                                                         bt_message_array_const msgs,
                                                         uint64_t capacity, uint64_t *count)
{
	struct ct_gpu_time *x = data;
	struct out out = { self, msgs, capacity, count };
	struct ct_gpu_point point;
	int status = 0;

	*count = 0;
	put_carried(x, &out);
	while (status == 0 && *count < capacity) {
		if (ct_gpu_reorder_next(&x->reorder, x->input_ended, &point))
			status = emit(x, &out, &point);
		else if (x->input_ended && x->closing < x->streams->len)
			status = close_stream(x, &out);
		else
			break;
	}
	if (status < 0)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	if (*count)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	return x->input_ended ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END
	                      : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
}

/* The sink takes what the queue lets go now; a failure ends the export. */
static void run(struct ct_gpu_time *x)
{
	x->taken = 0;
	if (ct_ctf_writer_run(x->writer, x->why, sizeof(x->why)) < 0)
		x->failed = true;
}

/* ------------------------------------------------------------ input */

/* "memcpy DIRECTION", made once per direction. */
static const char *copy_name(struct ct_gpu_time *x, uint8_t direction)
{
	if (!x->copy_names[direction])
		x->copy_names[direction] =
		    g_strdup_printf("memcpy %s", ct_direction_label(direction));
	return x->copy_names[direction];
}

/* What every GPU record says of its operation: its GPU times, call, device, context, stream. */
#define WHERE_AND_WHEN(op, rec)                              \
	do {                                                 \
		(op)->start = (int64_t)(rec).start;          \
		(op)->end = (int64_t)(rec).end;              \
		(op)->correlation_id = (rec).correlation_id; \
		(op)->device = (rec).device;                 \
		(op)->context = (rec).context;               \
		(op)->stream = (rec).stream;                 \
	} while (0)

/* The operation of a GPU record EV, in P. */
static void describe(struct ct_gpu_time *x, const struct ct_event *ev, struct pending *p)
{
	struct ct_gpu_op *op = &p->op;

	p->process = ev->process;
	op->vpid = (int32_t)ev->process->pid;
	op->procname = ev->process->procname;
	switch (ev->type) {
	case CT_EV_GPU_KERNEL:
		op->kind = CT_GPU_OP_KERNEL;
		WHERE_AND_WHEN(op, ev->u.gpu_kernel);
		p->kernel_id = ev->u.gpu_kernel.kernel_id;
		op->grid_x = ev->u.gpu_kernel.grid_x;
		op->grid_y = ev->u.gpu_kernel.grid_y;
		op->grid_z = ev->u.gpu_kernel.grid_z;
		op->block_x = ev->u.gpu_kernel.block_x;
		op->block_y = ev->u.gpu_kernel.block_y;
		op->block_z = ev->u.gpu_kernel.block_z;
		break;
	case CT_EV_GPU_MEMCPY:
		op->kind = CT_GPU_OP_MEMCPY;
		WHERE_AND_WHEN(op, ev->u.gpu_memcpy);
		op->direction = ct_direction_label(ev->u.gpu_memcpy.direction);
		op->name = copy_name(x, ev->u.gpu_memcpy.direction);
		op->bytes = ev->u.gpu_memcpy.bytes;
		break;
	default:
		op->kind = CT_GPU_OP_MEMSET;
		WHERE_AND_WHEN(op, ev->u.gpu_memset);
		op->name = "memset";
		op->bytes = ev->u.gpu_memset.bytes;
		op->value = ev->u.gpu_memset.value;
		break;
	}
	p->out = out_stream_of(x, ev->process, op->device, op->stream);
}

/* The schema, made from the trace of the first GPU record, EV. */
static int schema_ready(struct ct_gpu_time *x, const struct ct_event *ev)
{
	if (x->has_schema)
		return 0;
	if (ct_gpu_schema_create(&x->schema, ct_ctf_writer_component(x->writer), ev->trace, x->why,
	                         sizeof(x->why)) < 0)
		return -1;
	x->has_schema = true;
	return 0;
}

static void gpu_time_event(void *state, const struct ct_event *ev)
{
	struct ct_gpu_time *x = state;
	struct pending *p;

	if (x->failed)
		return;
	if (schema_ready(x, ev) < 0) {
		x->failed = true;
		return;
	}
	p = pending_new(x);
	describe(x, ev, p);
	/* an end before the start is no time either */
	if (!ct_gpu_schema_time_ok(&x->schema, (uint64_t)p->op.start) ||
	    !ct_gpu_schema_time_ok(&x->schema, (uint64_t)p->op.end) || p->op.end < p->op.start) {
		x->stats->untimed++;
		pending_free(x, p);
		return;
	}
	if (!ct_gpu_reorder_add(&x->reorder, p->op.start, p->op.end, p)) {
		pending_free(x, p);
		return;
	}
	if (++x->taken == RUN_EVERY)
		run(x);
}

/* ------------------------------------------------------------ lifecycle */

struct ct_gpu_time *ct_gpu_time_create(const char *dir, struct ct_gpu_time_stats *stats,
                                       char *error, size_t len)
{
	struct ct_gpu_time *x = g_new0(struct ct_gpu_time, 1);

	x->stats = stats;
	x->by_key = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
	x->streams = g_ptr_array_new_with_free_func(out_stream_free);
	ct_gpu_reorder_init(&x->reorder, 0);
	x->writer = ct_ctf_writer_create(dir, next, x, error, len);
	if (!x->writer) {
		ct_gpu_time_export.destroy(x);
		return NULL;
	}
	return x;
}

int ct_gpu_time_close(struct ct_gpu_time *x, char *error, size_t len)
{
	x->input_ended = true;
	if (!x->failed)
		run(x);
	x->stats->late = x->reorder.late;
	x->stats->window_ns = x->reorder.window_ns;
	if (x->failed) {
		snprintf(error, len, "%s", x->why);
		return -1;
	}
	return 0;
}

static enum ct_analysis_status gpu_time_finish(void *state, int64_t end_ns)
{
	(void)state;
	(void)end_ns;
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status gpu_time_result(void *state, const void **result)
{
	struct ct_gpu_time *x = state;

	*result = x->stats;
	return CT_ANALYSIS_OK;
}

/* What the queue still holds (each operation once, at its end), then the spares. */
static void free_pending(struct ct_gpu_time *x)
{
	struct ct_gpu_point point;

	while (ct_gpu_reorder_next(&x->reorder, true, &point))
		if (!point.begin)
			pending_free(x, point.op);
	while (x->spares) {
		struct pending *p = x->spares;

		x->spares = p->next_spare;
		g_free(p);
	}
}

static void gpu_time_destroy(void *state)
{
	struct ct_gpu_time *x = state;

	if (!x)
		return;
	free_pending(x);
	ct_gpu_reorder_release(&x->reorder);
	for (size_t i = 0; i < x->carried.count; i++)
		bt_message_put_ref(x->carried.msgs[(x->carried.head + i) % POINT_MESSAGES]);
	g_ptr_array_free(x->streams, TRUE);
	g_hash_table_destroy(x->by_key);
	for (size_t i = 0; i < G_N_ELEMENTS(x->copy_names); i++)
		g_free(x->copy_names[i]);
	if (x->has_schema)
		ct_gpu_schema_release(&x->schema);
	/* last: the sink ends the trace it writes, and writes its metadata */
	ct_ctf_writer_destroy(x->writer);
	g_free(x);
}

const struct ct_analysis_class ct_gpu_time_export = {
	.name = "gpu-time",
	.wants =
	    CT_EV_BIT(CT_EV_GPU_KERNEL) | CT_EV_BIT(CT_EV_GPU_MEMCPY) | CT_EV_BIT(CT_EV_GPU_MEMSET),
	.event = gpu_time_event,
	.finish = gpu_time_finish,
	.result = gpu_time_result,
	.destroy = gpu_time_destroy,
};
