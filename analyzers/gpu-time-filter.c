/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-filter.c - the "gpu-time" filter component class (see
 * gpu-time-filter.h).
 *
 * Each call of the iterator's next method pulls messages from upstream
 * until some GPU-time messages are ready: GPU records become operations
 * in the reorder queue, kernel_name events name kernels, the drops and
 * discards are counted, the rest is let go. What the queue releases
 * becomes messages in a queue of its own, OUT_BATCH at a time (a stream's
 * beginning and a packet's beginning before its first event; a packet
 * ends every PACKET_EVENTS events, at its last event's time, so that every
 * message out is in time order). When upstream ends, the reorder queue is
 * flushed and every packet and stream ended, at the last time out.
 */
#include <stdarg.h>
#include <string.h>

#include <glib.h>

#include "class-cache.h"
#include "compact-events.h"
#include "contract/mix64.h"
#include "context.h"
#include "gpu-batches.h"
#include "event-decoder.h"
#include "gpu-reorder.h"
#include "gpu-time-filter.h"
#include "gpu-time-schema.h"

/* Events per packet: packets small enough for readers to seek in. */
#define PACKET_EVENTS 1024u
/* Messages made ready at a time, at most (and a point's few more). */
#define OUT_BATCH 256u

/* The event types the GPU-time trace is made of or needs; and, to read
 * them, the compact events that stand for some (compact-events.h). */
#define MADE_OF                                                                                    \
	(CT_EV_BIT(CT_EV_GPU_KERNEL) | CT_EV_BIT(CT_EV_GPU_MEMCPY) | CT_EV_BIT(CT_EV_GPU_MEMSET) | \
	 CT_EV_BIT(CT_EV_KERNEL_NAME) | CT_EV_BIT(CT_EV_ACTIVITY_DROPPED))
#define DECODED (MADE_OF | ct_compact_events_needed(MADE_OF))

/* The component's data. */
struct component {
	bt_self_component_filter *self;
	struct ct_gpu_time_stats *stats; /* the caller's */
};

/* One stream of the GPU-time trace: a process, a device, a CUDA stream. */
struct out_stream {
	struct ct_process *process; /* borrowed from the context */
	uint8_t device;
	uint32_t stream;
	bt_stream *bt;     /* owned; NULL until its first event leaves */
	bt_packet *packet; /* owned; NULL between packets */
	uint64_t in_packet;
};

/* An operation in the reorder queue: its two points share it, and its end frees it. */
struct pending {
	struct ct_gpu_op op;
	struct out_stream *out; /* borrowed */
};

struct iter {
	bt_self_message_iterator *self;
	bt_message_iterator *upstream; /* owned */
	struct ct_gpu_time_stats *stats;
	struct ct_context *ctx;            /* owned: processes by vpid */
	struct ct_class_cache *cache;      /* owned */
	struct ct_compact_events *compact; /* owned: kernels' times made whole */
	struct ct_decoder decoder;
	struct ct_origins origins;
	GHashTable *names;  /* struct key (a kernel, a copy's direction) -> name; owned */
	GPtrArray *retired; /* names replaced while operations may borrow them; owned */
	GHashTable *by_key; /* struct key (a stream) -> struct out_stream, borrowed */
	GPtrArray *streams; /* struct out_stream, owned, in order of creation */
	struct ct_gpu_reorder reorder;
	struct ct_gpu_schema schema;
	bool has_schema;
	GQueue *out; /* bt_message, owned: ready to go */
	bool upstream_ended;
	bool closed; /* every packet and stream ended */
	int64_t last_ns;
};

/* ------------------------------------------------------------ keys */

/*
 * What the tables are keyed by: a kernel of a process, a copy direction,
 * a stream of a process. Looked up for every GPU record, so a few words
 * hashed rather than a string formatted and hashed.
 */
enum key_kind { KEY_KERNEL, KEY_COPY, KEY_STREAM };

struct key {
	const struct ct_process *process;
	uint64_t id; /* kernel_id, direction, or device << 32 | stream */
	enum key_kind kind;
};

static guint key_hash(gconstpointer data)
{
	const struct key *k = data;

	return (guint)ct_mix64(ct_mix64((uint64_t)(uintptr_t)k->process ^ k->kind) ^ k->id);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const struct key *x = a, *y = b;

	return x->process == y->process && x->id == y->id && x->kind == y->kind;
}

static struct key *key_copy(const struct key *k)
{
	return g_memdup2(k, sizeof(*k));
}

/* ------------------------------------------------------------ streams */

static void out_stream_free(gpointer data)
{
	struct out_stream *s = data;

	bt_packet_put_ref(s->packet);
	bt_stream_put_ref(s->bt);
	g_free(s);
}

static struct out_stream *out_stream_of(struct iter *it, struct ct_process *process, uint8_t device,
                                        uint32_t stream)
{
	struct key key = { process, (uint64_t)device << 32 | stream, KEY_STREAM };
	struct out_stream *s = g_hash_table_lookup(it->by_key, &key);

	if (s)
		return s;
	s = g_new0(struct out_stream, 1);
	s->process = process;
	s->device = device;
	s->stream = stream;
	g_ptr_array_add(it->streams, s);
	g_hash_table_insert(it->by_key, key_copy(&key), s);
	return s;
}

/* ------------------------------------------------------------ output */

static int queue(struct iter *it, bt_message *msg)
{
	if (!msg)
		return -1;
	g_queue_push_tail(it->out, msg);
	return 0;
}

static int packet_end(struct iter *it, struct out_stream *s)
{
	int status =
	    queue(it, bt_message_packet_end_create_with_default_clock_snapshot(
	                  it->self, s->packet, ct_gpu_schema_cycles(&it->schema, it->last_ns)));

	bt_packet_put_ref(s->packet);
	s->packet = NULL;
	s->in_packet = 0;
	return status;
}

/* The stream and packet of S, begun at TIME when they are not. */
static int stream_ready(struct iter *it, struct out_stream *s, const struct ct_gpu_op *op,
                        int64_t time)
{
	if (!s->bt) {
		s->bt = ct_gpu_schema_stream(&it->schema, op);
		if (!s->bt || queue(it, bt_message_stream_beginning_create(it->self, s->bt)) < 0)
			return -1;
		it->stats->streams++;
	}
	if (!s->packet) {
		s->packet = bt_packet_create(s->bt);
		if (!s->packet ||
		    queue(it, bt_message_packet_beginning_create_with_default_clock_snapshot(
		                  it->self, s->packet, ct_gpu_schema_cycles(&it->schema, time))) <
		        0)
			return -1;
	}
	return 0;
}

/* The event of POINT, in its stream's packet. */
static int emit(struct iter *it, const struct ct_gpu_point *point)
{
	struct pending *p = point->op;
	struct out_stream *s = p->out;
	int status;

	it->last_ns = point->time;
	if (stream_ready(it, s, &p->op, point->time) < 0 ||
	    queue(it, ct_gpu_schema_event(&it->schema, it->self, &p->op, point->begin, s->packet)) <
	        0)
		status = -1;
	else if (++s->in_packet >= PACKET_EVENTS)
		status = packet_end(it, s);
	else
		status = 0;
	if (!point->begin) {
		it->stats->operations++;
		g_free(p);
	}
	return status;
}

/*
 * What the reorder queue lets go (anything, with FLUSH), until OUT_BATCH
 * messages wait: the rest stays in the queue, whose size is bounded, and
 * leaves at the next call.
 */
static int drain(struct iter *it, bool flush)
{
	struct ct_gpu_point point;

	while (g_queue_get_length(it->out) < OUT_BATCH &&
	       ct_gpu_reorder_next(&it->reorder, flush, &point))
		if (emit(it, &point) < 0)
			return -1;
	return 0;
}

/* Upstream ended: every packet and stream ends at the last time out. */
static int close_streams(struct iter *it)
{
	for (guint i = 0; i < it->streams->len; i++) {
		struct out_stream *s = g_ptr_array_index(it->streams, i);

		if (!s->bt)
			continue;
		if (s->packet && packet_end(it, s) < 0)
			return -1;
		if (queue(it, bt_message_stream_end_create(it->self, s->bt)) < 0)
			return -1;
	}
	it->closed = true;
	return 0;
}

/* ------------------------------------------------------------ input */

/*
 * The name of KEY in the names table, made by FMT when it has none yet.
 * Names live as long as the iterator: operations borrow them, so that an
 * operation held for reordering costs no string of its own.
 */
static const char *name_of(struct iter *it, const struct key *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static const char *name_of(struct iter *it, const struct key *key, const char *fmt, ...)
{
	char *name = g_hash_table_lookup(it->names, key);
	va_list ap;

	if (name)
		return name;
	va_start(ap, fmt);
	name = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_hash_table_insert(it->names, key_copy(key), name);
	return name;
}

static const char *kernel_name(struct iter *it, struct ct_process *process, uint64_t kernel_id)
{
	struct key key = { process, kernel_id, KEY_KERNEL };

	return name_of(it, &key, "kernel 0x%llx", (unsigned long long)kernel_id);
}

/*
 * A kernel_name event. A kernel named "kernel 0x..." before its name came
 * keeps that string alive for the operations that borrow it.
 */
static void name_kernel(struct iter *it, struct ct_process *process, const struct ct_event *ev)
{
	struct key key = { process, ev->u.kernel_name.kernel_id, KEY_KERNEL };
	gpointer old_key, old_name;

	if (g_hash_table_steal_extended(it->names, &key, &old_key, &old_name)) {
		g_free(old_key);
		g_ptr_array_add(it->retired, old_name);
	}
	g_hash_table_insert(it->names, key_copy(&key),
	                    g_strndup(ev->u.kernel_name.name ? ev->u.kernel_name.name : "",
	                              ev->u.kernel_name.name_len));
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
static void describe(struct iter *it, struct ct_process *process, const struct ct_event *ev,
                     struct pending *p)
{
	struct ct_gpu_op *op = &p->op;

	op->vpid = (int32_t)process->pid;
	op->procname = process->procname;
	switch (ev->type) {
	case CT_EV_GPU_KERNEL:
		op->kind = CT_GPU_OP_KERNEL;
		WHERE_AND_WHEN(op, ev->u.gpu_kernel);
		op->name = kernel_name(it, process, ev->u.gpu_kernel.kernel_id);
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
		op->name = name_of(it, &(struct key){ NULL, ev->u.gpu_memcpy.direction, KEY_COPY },
		                   "memcpy %s", op->direction);
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
	p->out = out_stream_of(it, process, op->device, op->stream);
}

/* The schema, made from the trace and clock of the first GPU record, MSG. */
static int schema_ready(struct iter *it, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const bt_stream *stream = bt_event_borrow_stream_const(event);
	char why[256];

	if (it->has_schema)
		return 0;
	if (ct_gpu_schema_create(&it->schema, bt_self_message_iterator_borrow_component(it->self),
	                         bt_stream_borrow_trace_const(stream),
	                         bt_stream_class_borrow_default_clock_class_const(
	                             bt_stream_borrow_class_const(stream)),
	                         why, sizeof(why)) < 0) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self, "%s", why);
		return -1;
	}
	it->has_schema = true;
	return 0;
}

static const struct ct_event_class_info *class_info(struct iter *it, const bt_event *event)
{
	struct ct_event_class_info *info;
	char why[256];

	switch (ct_class_cache_lookup(it->cache, event, DECODED, &info, why, sizeof(why))) {
	case CT_CLASS_CACHE_MEMORY_ERROR:
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self,
		                                                           "out of memory");
		return NULL;
	case CT_CLASS_CACHE_UNKNOWN:
		it->stats->unknown_version = true;
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self, "%s", why);
		return NULL;
	default:
		return info;
	}
}

/* EV, of PROCESS, decoded from MSG's event. */
static int take_decoded(struct iter *it, const bt_message *msg, struct ct_process *process,
                        struct ct_event *ev)
{
	struct pending *p;

	ev->process = process;
	if (!ct_compact_events_take(it->compact, ev)) {
		it->stats->unmatched = ct_compact_events_unmatched(it->compact);
		return 0;
	}
	if (!(CT_EV_BIT(ev->type) & MADE_OF))
		return 0;
	if (ev->type == CT_EV_KERNEL_NAME) {
		name_kernel(it, process, ev);
		return 0;
	}
	if (ev->type == CT_EV_ACTIVITY_DROPPED) {
		it->stats->dropped_records += ev->u.activity_dropped.count;
		return 0;
	}
	if (schema_ready(it, msg) < 0)
		return -1;
	p = g_new0(struct pending, 1);
	describe(it, process, ev, p);
	/* an end before the start is no time either */
	if (!ct_gpu_schema_time_ok(&it->schema, (uint64_t)p->op.start) ||
	    !ct_gpu_schema_time_ok(&it->schema, (uint64_t)p->op.end) || p->op.end < p->op.start) {
		it->stats->untimed++;
	} else if (ct_gpu_reorder_add(&it->reorder, p->op.start, p->op.end, p)) {
		return 0;
	}
	g_free(p);
	return 0;
}

static int take_event(struct iter *it, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const struct ct_event_class_info *info = class_info(it, event);
	struct ct_event ev = { 0 };
	struct ct_event_origin origin = { 0 };
	struct ct_process *process;
	struct ct_gpu_batch batch;

	if (!info)
		return -1;
	if (info->type == CT_EV_NONE || !info->decode)
		return 0;
	/* a repeat is made whole from its thread's slots and its time (compact-events.h) */
	ct_decoder_origin(&it->decoder, info, bt_event_borrow_common_context_field_const(event),
	                  true, NULL, &origin);
	process = ct_origins_process(&it->origins, &origin);
	if (info->type != CT_EV_GPU_BATCH) {
		ev.type = info->type;
		ev.time_ns = ct_decoder_time(&it->decoder, info, msg);
		ev.thread = ct_origins_thread(&it->origins, &origin, process);
		ct_decoder_payload(info, event, &ev, NULL, NULL, 0);
		return take_decoded(it, msg, process, &ev);
	}
	/* a batch: the kernels and copies it holds, one by one */
	ct_gpu_batch_open(&batch, info, event);
	/* each from zero: take_decoded changes it */
	for (ev = (struct ct_event){ 0 }; ct_gpu_batch_next(&batch, &ev);
	     ev = (struct ct_event){ 0 })
		if (take_decoded(it, msg, process, &ev) < 0)
			return -1;
	return 0;
}

static int take(struct iter *it, const bt_message *msg)
{
	uint64_t count;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return take_event(it, msg);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		if (bt_message_discarded_events_get_count(msg, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			it->stats->discarded_events += count;
		return 0;
	default:
		return 0;
	}
}

/* Pulls from upstream until messages are ready, or nothing more will be. */
static bt_message_iterator_class_next_method_status pull(struct iter *it)
{
	for (;;) {
		bt_message_array_const msgs;
		uint64_t n = 0;
		int failed = 0;

		if (drain(it, it->upstream_ended) < 0)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
		if (!g_queue_is_empty(it->out) || it->closed)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
		if (it->upstream_ended) {
			/* the queue is empty: flushing took everything */
			if (close_streams(it) < 0)
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
			continue;
		}
		switch (bt_message_iterator_next(it->upstream, &msgs, &n)) {
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
			it->upstream_ended = true;
			continue;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
		default:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
		for (uint64_t i = 0; i < n; i++) {
			if (!failed && take(it, msgs[i]) < 0)
				failed = 1;
			bt_message_put_ref(msgs[i]);
		}
		if (failed)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
}

static bt_message_iterator_class_next_method_status next(bt_self_message_iterator *self,
                                                         bt_message_array_const msgs,
                                                         uint64_t capacity, uint64_t *count)
{
	struct iter *it = bt_self_message_iterator_get_data(self);
	bt_message_iterator_class_next_method_status status = pull(it);

	it->stats->late = it->reorder.late;
	it->stats->window_ns = it->reorder.window_ns;
	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
		return status;
	*count = 0;
	while (*count < capacity && !g_queue_is_empty(it->out))
		msgs[(*count)++] = g_queue_pop_head(it->out);
	return *count ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK
	              : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}

/* ------------------------------------------------------------ lifecycle */

static void free_pending(struct iter *it)
{
	struct ct_gpu_point point;

	/* what the queue still holds: each operation once, at its end */
	while (ct_gpu_reorder_next(&it->reorder, true, &point)) {
		struct pending *p = point.op;

		if (!point.begin) {
			g_free(p);
		}
	}
}

static void iter_finalize(bt_self_message_iterator *self)
{
	struct iter *it = bt_self_message_iterator_get_data(self);

	if (!it)
		return;
	free_pending(it);
	ct_gpu_reorder_release(&it->reorder);
	while (!g_queue_is_empty(it->out))
		bt_message_put_ref(g_queue_pop_head(it->out));
	g_queue_free(it->out);
	g_ptr_array_free(it->streams, TRUE);
	g_hash_table_destroy(it->by_key);
	g_hash_table_destroy(it->names);
	g_ptr_array_free(it->retired, TRUE);
	if (it->has_schema)
		ct_gpu_schema_release(&it->schema);
	ct_class_cache_destroy(it->cache);
	ct_compact_events_destroy(it->compact);
	ct_context_destroy(it->ctx);
	bt_message_iterator_put_ref(it->upstream);
	g_free(it);
}

static bt_message_iterator_class_initialize_method_status
iter_initialize(bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
                bt_self_component_port_output *port)
{
	struct component *comp =
	    bt_self_component_get_data(bt_self_message_iterator_borrow_component(self));
	struct iter *it = g_new0(struct iter, 1);

	(void)config;
	(void)port;
	it->self = self;
	it->stats = comp->stats;
	it->ctx = ct_context_create();
	it->cache = ct_class_cache_create();
	it->compact = ct_compact_events_create();
	ct_decoder_init(&it->decoder);
	ct_origins_init(&it->origins, it->ctx);
	it->names = g_hash_table_new_full(key_hash, key_equal, g_free, g_free);
	it->retired = g_ptr_array_new_with_free_func(g_free);
	it->by_key = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
	it->streams = g_ptr_array_new_with_free_func(out_stream_free);
	it->out = g_queue_new();
	ct_gpu_reorder_init(&it->reorder, 0);
	bt_self_message_iterator_set_data(self, it);
	if (bt_message_iterator_create_from_message_iterator(
	        self, bt_self_component_filter_borrow_input_port_by_index(comp->self, 0),
	        &it->upstream) != BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
		iter_finalize(self);
		bt_self_message_iterator_set_data(self, NULL);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_component_class_initialize_method_status
initialize(bt_self_component_filter *self, bt_self_component_filter_configuration *config,
           const bt_value *params, void *data)
{
	struct component *comp = g_new0(struct component, 1);

	(void)config;
	(void)params;
	comp->self = self;
	comp->stats = data;
	bt_self_component_set_data(bt_self_component_filter_as_self_component(self), comp);
	if (bt_self_component_filter_add_input_port(self, "in", NULL, NULL) !=
	        BT_SELF_COMPONENT_ADD_PORT_STATUS_OK ||
	    bt_self_component_filter_add_output_port(self, "out", NULL, NULL) !=
	        BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void finalize(bt_self_component_filter *self)
{
	g_free(bt_self_component_get_data(bt_self_component_filter_as_self_component(self)));
}

bt_component_class_filter *ct_gpu_time_filter_class(void)
{
	bt_message_iterator_class *iter_cls = bt_message_iterator_class_create(next);
	bt_component_class_filter *cls = NULL;

	if (!iter_cls)
		return NULL;
	if (bt_message_iterator_class_set_initialize_method(iter_cls, iter_initialize) ==
	        BT_MESSAGE_ITERATOR_CLASS_SET_METHOD_STATUS_OK &&
	    bt_message_iterator_class_set_finalize_method(iter_cls, iter_finalize) ==
	        BT_MESSAGE_ITERATOR_CLASS_SET_METHOD_STATUS_OK)
		cls = bt_component_class_filter_create("gpu-time", iter_cls);
	bt_message_iterator_class_put_ref(iter_cls);
	if (cls && (bt_component_class_filter_set_initialize_method(cls, initialize) !=
	                BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
	            bt_component_class_filter_set_finalize_method(cls, finalize) !=
	                BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK)) {
		bt_component_class_filter_put_ref(cls);
		cls = NULL;
	}
	return cls;
}
