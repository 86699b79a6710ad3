/* SPDX-License-Identifier: MIT */
/*
 * reader.c - the trace pass (see reader.h): a babeltrace2 graph of one
 * src.ctf.fs per trace directory, flt.utils.muxer and a simple sink whose
 * consume function decodes each cudatrace event into a struct ct_event,
 * updates the context, applies the filters and calls the analyses.
 *
 * Per event class, the first event resolves its type and the index of
 * every field the decoder reads (the class cache); later events of the
 * class only borrow fields by index. Types nobody wants are counted, not
 * decoded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "assert.h"
#include "config.h"
#include "discovery.h"
#include "event-schema.h"
#include "filters.h"
#include "log.h"
#include "reader.h"
#include "trace-graph.h"
#include "trace-section.h"

#define MAX_ANALYSES 16

/* Types the context or the reader itself needs decoded, whoever else wants them. */
#define ALWAYS_DECODED                                                                             \
	(CT_EV_BIT(CT_EV_API_NAME) | CT_EV_BIT(CT_EV_KERNEL_NAME) | CT_EV_BIT(CT_EV_NVTX_PUSH) |   \
	 CT_EV_BIT(CT_EV_NVTX_POP) | CT_EV_BIT(CT_EV_DEVICE_INFO) | CT_EV_BIT(CT_EV_NVML_SAMPLE) | \
	 CT_EV_BIT(CT_EV_TRACER_INFO) | CT_EV_BIT(CT_EV_ACTIVITY_DROPPED))

/* ------------------------------------------------------------ class cache */

enum field_read { READ_NONE, READ_UNSIGNED, READ_SIGNED, READ_STRING, READ_ARRAY };

/* What the first event of a class taught us. Owned by the reader's cache. */
struct class_entry {
	const bt_event_class *key; /* borrowed; NULL: empty slot */
	enum ct_event_type type;   /* CT_EV_NONE: not ours */
	bool decode;
	uint8_t field_count;
	uint64_t index[CT_FIELDS_MAX];
	uint8_t read[CT_FIELDS_MAX]; /* enum field_read */
	/* common context members, -1 if absent */
	int64_t vpid_index, vtid_index, procname_index;
	bool vpid_signed, vtid_signed;
	uint64_t frequency;   /* of the stream class's default clock, 0 if none */
	const char *hostname; /* from the trace's environment, borrowed from it */
};

struct instance {
	const struct ct_analysis_class *cls;
	void *state;
};

struct ct_reader {
	const struct ct_options *opts; /* borrowed */
	struct ct_context *ctx;        /* owned */
	struct ct_filter filter;
	bool filtering;
	struct instance instances[MAX_ANALYSES];
	size_t instance_count;
	/* dispatch[type]: the instances that want it, NULL-terminated */
	struct instance *dispatch[CT_EV_COUNT][MAX_ANALYSES + 1];
	uint64_t wanted;             /* union of the analyses' wants */
	struct class_entry *classes; /* owned hash table, class_capacity slots */
	size_t class_capacity;
	size_t class_count;
	/* the last process/thread seen, for the common case of runs of one thread */
	struct ct_process *last_process;
	const char *last_hostname;
	int64_t last_vpid;
	struct ct_thread *last_thread;
	int64_t last_vtid;
	int64_t last_time;
	uint64_t seq;
	bool started;
	bool no_vpid_warned;
	int fatal; /* set by the sink: stop the pass */
	enum ct_reader_status fatal_status;
	GPtrArray *paths; /* owned strings: the traces read */
	struct ct_reader_stats stats;
};

/* ------------------------------------------------------------ lifecycle */

struct ct_reader *ct_reader_create(const struct ct_options *opts)
{
	struct ct_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->opts = opts;
	r->ctx = ct_context_create();
	r->class_capacity = 64;
	r->classes = calloc(r->class_capacity, sizeof(*r->classes));
	r->paths = g_ptr_array_new_with_free_func(g_free);
	if (!r->ctx || !r->classes) {
		ct_reader_destroy(r);
		return NULL;
	}
	ct_filter_init(&r->filter, opts);
	r->filtering = !ct_filter_is_empty(&r->filter);
	r->stats.first_ns = INT64_MAX;
	r->stats.last_ns = INT64_MIN;
	return r;
}

void ct_reader_destroy(struct ct_reader *r)
{
	if (!r)
		return;
	for (size_t i = r->instance_count; i-- > 0;)
		r->instances[i].cls->destroy(r->instances[i].state);
	ct_context_destroy(r->ctx);
	free(r->classes);
	g_ptr_array_free(r->paths, TRUE);
	free(r);
}

/* Says in the stats why analysis CLS failed. */
static void analysis_failed(struct ct_reader *r, const struct ct_analysis_class *cls,
                            enum ct_analysis_status status)
{
	snprintf(r->stats.error, sizeof(r->stats.error), "%s analysis: %s", cls->name,
	         ct_analysis_status_text(status));
}

int ct_reader_add(struct ct_reader *r, const struct ct_analysis_class *cls)
{
	enum ct_analysis_status status;
	struct instance *in;

	if (r->instance_count == MAX_ANALYSES) {
		snprintf(r->stats.error, sizeof(r->stats.error), "too many analyses");
		return -1;
	}
	in = &r->instances[r->instance_count];
	in->cls = cls;
	in->state = NULL;
	status = cls->create(r->ctx, r->opts, &in->state);
	if (status != CT_ANALYSIS_OK) {
		analysis_failed(r, cls, status);
		cls->destroy(in->state);
		in->state = NULL;
		return -1;
	}
	r->instance_count++;
	for (unsigned t = 1; t < CT_EV_COUNT; t++) {
		size_t n = 0;

		if (!(cls->wants & CT_EV_BIT(t)))
			continue;
		while (r->dispatch[t][n])
			n++;
		CT_ASSERT(n < MAX_ANALYSES);
		r->dispatch[t][n] = in;
	}
	r->wanted |= cls->wants;
	return 0;
}

struct ct_context *ct_reader_context(struct ct_reader *r)
{
	return r->ctx;
}

const struct ct_reader_stats *ct_reader_stats(const struct ct_reader *r)
{
	return &r->stats;
}

/* ------------------------------------------------------------ delivery */

static void set_fatal(struct ct_reader *r, enum ct_reader_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_fatal(struct ct_reader *r, enum ct_reader_status status, const char *fmt, ...)
{
	va_list ap;

	if (r->fatal)
		return;
	r->fatal = 1;
	r->fatal_status = status;
	va_start(ap, fmt);
	vsnprintf(r->stats.error, sizeof(r->stats.error), fmt, ap);
	va_end(ap);
}

/* The major number of a version string ("0.1.0" -> 0), -1 if none. */
static long version_major(const char *version)
{
	char *end;
	long major;

	if (!version)
		return -1;
	major = strtol(version, &end, 10);
	return end == version ? -1 : major;
}

static void check_tracer_version(struct ct_reader *r, const struct ct_event *ev)
{
	long theirs = version_major(ev->u.tracer_info.version);
	long ours = version_major(PACKAGE_VERSION);

	if (theirs > ours)
		set_fatal(r, CT_READER_INPUT_ERROR,
		          "the trace was recorded by cudatrace %s, newer than this reader (%s): "
		          "its events may mean something else; use cudatrace %ld.x to read it",
		          ev->u.tracer_info.version, PACKAGE_VERSION, theirs);
}

int ct_reader_feed(struct ct_reader *r, struct ct_event *ev)
{
	enum ct_filter_verdict verdict = CT_FILTER_KEEP;
	int ret;

	CT_ASSERT_DBG(ev->type > CT_EV_NONE && ev->type < CT_EV_COUNT);
	CT_ASSERT_DBG(ev->process && ev->thread && ev->thread->process == ev->process);
	ev->seq = ++r->seq;
	if (!r->started) {
		r->started = true;
		ct_filter_start(&r->filter, ev->time_ns);
	}
	if (ev->time_ns < r->stats.first_ns)
		r->stats.first_ns = ev->time_ns;
	if (ev->time_ns > r->stats.last_ns)
		r->stats.last_ns = ev->time_ns;
	r->stats.events++;
	ret = ct_context_update(r->ctx, ev);
	if (ret < 0)
		return -1;
	if (ret > 0) {
		r->stats.unmatched_pops++;
		return 0;
	}
	if (ev->type == CT_EV_ACTIVITY_DROPPED)
		r->stats.dropped_records += ev->u.activity_dropped.count;
	else if (ev->type == CT_EV_TRACER_INFO)
		check_tracer_version(r, ev);
	if (r->filtering) {
		verdict = ct_filter_event(&r->filter, r->ctx, ev);
		if (verdict == CT_FILTER_DROP)
			return 0;
	}
	ev->before_window = verdict == CT_FILTER_BEFORE;
	r->stats.delivered++;
	for (struct instance *const *in = r->dispatch[ev->type]; *in; in++)
		(*in)->cls->event((*in)->state, ev);
	return 0;
}

/* ------------------------------------------------------------ class resolution */

static int64_t member_index(const bt_field_class *structure, const char *name)
{
	uint64_t count;

	if (!structure || bt_field_class_get_type(structure) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return -1;
	count = bt_field_class_structure_get_member_count(structure);
	for (uint64_t i = 0; i < count; i++) {
		const bt_field_class_structure_member *m =
		    bt_field_class_structure_borrow_member_by_index_const(structure, i);

		if (!strcmp(bt_field_class_structure_member_get_name(m), name))
			return (int64_t)i;
	}
	return -1;
}

static const bt_field_class *member_class(const bt_field_class *structure, uint64_t index)
{
	return bt_field_class_structure_member_borrow_field_class_const(
	    bt_field_class_structure_borrow_member_by_index_const(structure, index));
}

/* Index of a context member named NAME or _NAME; -1 if absent or not of the wanted kind. */
static int64_t context_member(const bt_field_class *context, const char *name, bool string,
                              bool *is_signed)
{
	char underscored[64];
	int64_t i = member_index(context, name);
	bt_field_class_type type;

	if (i < 0) {
		snprintf(underscored, sizeof(underscored), "_%s", name);
		i = member_index(context, underscored);
	}
	if (i < 0)
		return -1;
	type = bt_field_class_get_type(member_class(context, (uint64_t)i));
	if (string)
		return type == BT_FIELD_CLASS_TYPE_STRING ? i : -1;
	if (!bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_INTEGER))
		return -1;
	if (is_signed)
		*is_signed = bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
	return i;
}

/* The read mode of a payload member for SPEC, READ_NONE if the types disagree. */
static enum field_read read_mode(const bt_field_class *fc, const struct ct_field_spec *spec)
{
	bt_field_class_type type = bt_field_class_get_type(fc);

	if (spec->storage == CT_STORE_STRING || spec->storage == CT_STORE_TEXT)
		return type == BT_FIELD_CLASS_TYPE_STRING ? READ_STRING : READ_NONE;
	if (spec->storage == CT_STORE_ARRAY_X8)
		return type == BT_FIELD_CLASS_TYPE_STATIC_ARRAY &&
		               bt_field_class_array_static_get_length(fc) == spec->count &&
		               bt_field_class_type_is(
		                   bt_field_class_get_type(
		                       bt_field_class_array_borrow_element_field_class_const(fc)),
		                   BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)
		           ? READ_ARRAY
		           : READ_NONE;
	if (!bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_INTEGER))
		return READ_NONE;
	return bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ? READ_SIGNED
	                                                                        : READ_UNSIGNED;
}

static int resolve_payload(struct ct_reader *r, struct class_entry *e, const bt_event_class *ec,
                           const char *name)
{
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	const struct ct_field_spec *spec = ct_event_fields(e->type);
	uint8_t n = 0;

	for (; spec && spec->name; spec++, n++) {
		int64_t i = member_index(payload, spec->name);

		CT_ASSERT(n < CT_FIELDS_MAX);
		e->read[n] = READ_NONE;
		if (i >= 0) {
			e->index[n] = (uint64_t)i;
			e->read[n] = read_mode(member_class(payload, (uint64_t)i), spec);
		}
		if (e->read[n] == READ_NONE && !spec->optional) {
			set_fatal(r, CT_READER_INPUT_ERROR,
			          "event %s %s field '%s': the trace was recorded by a version of "
			          "cudatrace this reader does not know (see doc/events.md)",
			          name, i < 0 ? "has no" : "has an unexpected type for its",
			          spec->name);
			return -1;
		}
	}
	e->field_count = n;
	return 0;
}

static const char *trace_hostname(const bt_event *event)
{
	const bt_stream *stream = bt_event_borrow_stream_const(event);
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const bt_value *v =
	    bt_trace_borrow_environment_entry_value_by_name_const(trace, "hostname");

	if (v && bt_value_get_type(v) == BT_VALUE_TYPE_STRING)
		return bt_value_string_get(v);
	return "";
}

static void resolve_class(struct ct_reader *r, struct class_entry *e, const bt_event *event)
{
	const bt_event_class *ec = bt_event_borrow_class_const(event);
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *context =
	    bt_stream_class_borrow_event_common_context_field_class_const(sc);
	const char *name = bt_event_class_get_name(ec);

	e->key = ec;
	e->type = CT_EV_NONE;
	if (!name || strncmp(name, CT_PROVIDER_PREFIX, strlen(CT_PROVIDER_PREFIX)) != 0)
		return;
	e->type = ct_event_type_from_name(name + strlen(CT_PROVIDER_PREFIX));
	if (e->type == CT_EV_NONE)
		return; /* a cudatrace event newer than us: ignored, as a foreign one */
	e->vpid_index = context_member(context, "vpid", false, &e->vpid_signed);
	e->vtid_index = context_member(context, "vtid", false, &e->vtid_signed);
	e->procname_index = context_member(context, "procname", true, NULL);
	e->hostname = trace_hostname(event);
	if (bt_stream_class_borrow_default_clock_class_const(sc))
		e->frequency = bt_clock_class_get_frequency(
		    bt_stream_class_borrow_default_clock_class_const(sc));
	e->decode = ((r->wanted | ALWAYS_DECODED) & CT_EV_BIT(e->type)) != 0;
	if (resolve_payload(r, e, ec, name) < 0)
		e->type = CT_EV_NONE;
}

static size_t class_slot(const struct ct_reader *r, const bt_event_class *ec)
{
	size_t mask = r->class_capacity - 1;
	size_t i = ((uintptr_t)ec >> 4) * 2654435761u & mask;

	while (r->classes[i].key && r->classes[i].key != ec)
		i = (i + 1) & mask;
	return i;
}

static int class_table_grow(struct ct_reader *r)
{
	struct class_entry *old = r->classes;
	size_t old_capacity = r->class_capacity;

	r->classes = calloc(old_capacity * 2, sizeof(*r->classes));
	if (!r->classes) {
		r->classes = old;
		return -1;
	}
	r->class_capacity = old_capacity * 2;
	for (size_t i = 0; i < old_capacity; i++)
		if (old[i].key)
			r->classes[class_slot(r, old[i].key)] = old[i];
	free(old);
	return 0;
}

static struct class_entry *class_of(struct ct_reader *r, const bt_event *event)
{
	const bt_event_class *ec = bt_event_borrow_class_const(event);
	size_t i = class_slot(r, ec);

	if (r->classes[i].key)
		return &r->classes[i];
	if ((r->class_count + 1) * 2 > r->class_capacity) {
		if (class_table_grow(r) < 0)
			return NULL;
		i = class_slot(r, ec);
	}
	r->class_count++;
	resolve_class(r, &r->classes[i], event);
	return &r->classes[i];
}

/* ------------------------------------------------------------ decoding */

static void store(struct ct_event *ev, const struct ct_field_spec *spec, uint64_t v)
{
	char *at = (char *)ev + spec->offset;

	switch (spec->storage) {
	case CT_STORE_U8: {
		uint8_t x = (uint8_t)v;
		memcpy(at, &x, sizeof(x));
		break;
	}
	case CT_STORE_U16: {
		uint16_t x = (uint16_t)v;
		memcpy(at, &x, sizeof(x));
		break;
	}
	case CT_STORE_U32:
	case CT_STORE_I32: {
		uint32_t x = (uint32_t)v;
		memcpy(at, &x, sizeof(x));
		break;
	}
	case CT_STORE_U64:
	case CT_STORE_I64:
		memcpy(at, &v, sizeof(v));
		break;
	default:
		break;
	}
}

static void store_string(struct ct_event *ev, const struct ct_field_spec *spec, const char *s)
{
	memcpy((char *)ev + spec->offset, &s, sizeof(s));
	if (spec->storage == CT_STORE_TEXT) {
		size_t len = strlen(s);
		uint16_t len16 = len > UINT16_MAX ? UINT16_MAX : (uint16_t)len;

		memcpy((char *)ev + spec->len_offset, &len16, sizeof(len16));
	}
}

static void store_array(struct ct_event *ev, const struct ct_field_spec *spec, const bt_field *f)
{
	uint8_t *at = (uint8_t *)ev + spec->offset;

	for (uint8_t i = 0; i < spec->count; i++)
		at[i] = (uint8_t)bt_field_integer_unsigned_get_value(
		    bt_field_array_borrow_element_field_by_index_const(f, i));
}

static void decode_payload(const struct class_entry *e, const bt_event *event, struct ct_event *ev)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	const struct ct_field_spec *spec = ct_event_fields(e->type);

	for (uint8_t n = 0; n < e->field_count; n++) {
		const bt_field *f;

		if (e->read[n] == READ_NONE)
			continue;
		f = bt_field_structure_borrow_member_field_by_index_const(payload, e->index[n]);
		switch (e->read[n]) {
		case READ_UNSIGNED:
			store(ev, &spec[n], bt_field_integer_unsigned_get_value(f));
			break;
		case READ_SIGNED:
			store(ev, &spec[n], (uint64_t)bt_field_integer_signed_get_value(f));
			break;
		case READ_STRING:
			store_string(ev, &spec[n], bt_field_string_get_value(f));
			break;
		case READ_ARRAY:
			store_array(ev, &spec[n], f);
			break;
		default:
			break;
		}
	}
}

static int64_t context_int(const bt_field *context, int64_t index, bool is_signed)
{
	const bt_field *f;

	if (!context || index < 0)
		return 0;
	f = bt_field_structure_borrow_member_field_by_index_const(context, (uint64_t)index);
	return is_signed ? bt_field_integer_signed_get_value(f)
	                 : (int64_t)bt_field_integer_unsigned_get_value(f);
}

static struct ct_process *process_of(struct ct_reader *r, const struct class_entry *e,
                                     const bt_field *context)
{
	int64_t vpid = context_int(context, e->vpid_index, e->vpid_signed);
	struct ct_process *p;

	if (r->last_process && vpid == r->last_vpid && e->hostname == r->last_hostname)
		return r->last_process;
	if (e->vpid_index < 0 && !r->no_vpid_warned) {
		r->no_vpid_warned = true;
		ct_log_warning("the trace has no vpid context: all events are counted as one "
		               "process (record with cudatrace record, or add the vpid, vtid and "
		               "procname contexts)");
	}
	p = ct_context_process(r->ctx, e->hostname, vpid);
	if (!p)
		return NULL;
	if (!p->procname[0] && e->procname_index >= 0) {
		const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(
		    context, (uint64_t)e->procname_index);

		snprintf(p->procname, sizeof(p->procname), "%s", bt_field_string_get_value(f));
	}
	r->last_process = p;
	r->last_vpid = vpid;
	r->last_hostname = e->hostname;
	r->last_thread = NULL;
	return p;
}

static struct ct_thread *thread_of(struct ct_reader *r, const struct class_entry *e,
                                   const bt_field *context, struct ct_process *p)
{
	int64_t vtid = context_int(context, e->vtid_index, e->vtid_signed);

	if (r->last_thread && r->last_thread->process == p && vtid == r->last_vtid)
		return r->last_thread;
	r->last_thread = ct_context_thread(r->ctx, p, vtid);
	r->last_vtid = vtid;
	return r->last_thread;
}

/*
 * The event's time as the GPU fields count it: the clock's own value in ns
 * (CLOCK_MONOTONIC for LTTng), not ns from the clock's origin, which adds
 * the offset to the Unix epoch.
 */
static int64_t event_time(struct ct_reader *r, const struct class_entry *e, const bt_message *msg)
{
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	uint64_t cycles = bt_clock_snapshot_get_value(cs);
	uint64_t ns;

	CT_ASSERT_DBG(e->frequency != 0);
	if (e->frequency == UINT64_C(1000000000))
		ns = cycles;
	else
		ns = cycles / e->frequency * UINT64_C(1000000000) +
		     cycles % e->frequency * UINT64_C(1000000000) / e->frequency;
	if (ns > INT64_MAX)
		return r->last_time;
	r->last_time = (int64_t)ns;
	return r->last_time;
}

static void handle_event(struct ct_reader *r, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	struct class_entry *e = class_of(r, event);
	const bt_field *context;
	struct ct_event ev;

	if (!e) {
		set_fatal(r, CT_READER_ERROR, "out of memory");
		return;
	}
	if (e->type == CT_EV_NONE) {
		r->stats.foreign_events++;
		return;
	}
	context = bt_event_borrow_common_context_field_const(event);
	memset(&ev, 0, sizeof(ev));
	ev.type = e->type;
	ev.time_ns = e->frequency ? event_time(r, e, msg) : r->last_time;
	ev.process = process_of(r, e, context);
	if (!ev.process) {
		set_fatal(r, CT_READER_ERROR, "out of memory");
		return;
	}
	if (!e->decode) {
		/* counted for the process and the trace, not analysed */
		r->seq++;
		r->stats.events++;
		ev.process->events++;
		if (ev.time_ns < ev.process->first_ns)
			ev.process->first_ns = ev.time_ns;
		if (ev.time_ns > ev.process->last_ns)
			ev.process->last_ns = ev.time_ns;
		if (ev.time_ns < r->stats.first_ns)
			r->stats.first_ns = ev.time_ns;
		if (ev.time_ns > r->stats.last_ns)
			r->stats.last_ns = ev.time_ns;
		return;
	}
	ev.thread = thread_of(r, e, context, ev.process);
	if (!ev.thread) {
		set_fatal(r, CT_READER_ERROR, "out of memory");
		return;
	}
	decode_payload(e, event, &ev);
	if (ct_reader_feed(r, &ev) < 0)
		set_fatal(r, CT_READER_ERROR, "out of memory");
}

/* ------------------------------------------------------------ the sink */

static void handle_message(struct ct_reader *r, const bt_message *msg)
{
	uint64_t count;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		handle_event(r, msg);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		if (bt_message_discarded_events_get_count(msg, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			r->stats.discarded_events += count;
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		if (bt_message_discarded_packets_get_count(msg, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			r->stats.discarded_packets += count;
		break;
	default:
		break;
	}
}

static bt_graph_simple_sink_component_consume_func_status sink_consume(bt_message_iterator *it,
                                                                       void *data)
{
	struct ct_reader *r = data;
	bt_message_array_const msgs;
	uint64_t count = 0;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	/* every message is put, even after a fatal one */
	for (uint64_t i = 0; i < count; i++) {
		if (!r->fatal)
			handle_message(r, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return r->fatal ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR
	                : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* ------------------------------------------------------------ the pass */

/* The reader's status for a graph's. */
static enum ct_reader_status graph_failed(enum ct_trace_graph_status status)
{
	return status == CT_TRACE_GRAPH_INPUT_ERROR ? CT_READER_INPUT_ERROR : CT_READER_ERROR;
}

/* What a run that stopped in an error means, now that the events read are counted. */
static enum ct_reader_status run_failed(struct ct_reader *r, enum ct_trace_graph_status status,
                                        const char *why)
{
	if (r->fatal) {
		/* our own reason: babeltrace2's error only says the sink failed */
		return r->fatal_status;
	}
	if (status == CT_TRACE_GRAPH_MEMORY_ERROR) {
		set_fatal(r, CT_READER_ERROR, "out of memory");
		return CT_READER_ERROR;
	}
	if (r->stats.events == 0 && r->stats.foreign_events == 0) {
		set_fatal(r, CT_READER_INPUT_ERROR, "cannot read the trace: %s", why);
		return CT_READER_INPUT_ERROR;
	}
	/* events were read: a trace cut short, analysed up to its last good event */
	r->stats.truncated = true;
	snprintf(
	    r->stats.error, sizeof(r->stats.error),
	    "the trace ends in an unreadable packet (truncated or corrupt: %.380s); analysed up "
	    "to its last readable event",
	    why);
	return CT_READER_TRUNCATED;
}

/* Reads the traces in r->paths through one graph. */
static enum ct_reader_status run_pass(struct ct_reader *r)
{
	struct ct_trace_graph *graph;
	enum ct_trace_graph_status status;
	char why[512];

	status = ct_trace_graph_create((const char *const *)r->paths->pdata, r->paths->len,
	                               sink_consume, r, &graph, why, sizeof(why));
	if (status != CT_TRACE_GRAPH_OK) {
		set_fatal(r, graph_failed(status), "%s", why);
		return graph_failed(status);
	}
	r->stats.traces = ct_trace_graph_source_count(graph);
	if (ct_trace_graph_repair_note(graph)[0]) {
		r->stats.truncated = true;
		snprintf(r->stats.error, sizeof(r->stats.error), "%s",
		         ct_trace_graph_repair_note(graph));
	}
	status = ct_trace_graph_run(graph, why, sizeof(why));
	ct_trace_graph_destroy(graph);
	if (status != CT_TRACE_GRAPH_OK)
		return run_failed(r, status, why);
	return r->stats.truncated ? CT_READER_TRUNCATED : CT_READER_OK;
}

enum ct_reader_status ct_reader_read(struct ct_reader *r, const char *const *paths, size_t count)
{
	enum ct_reader_status status;
	char why[512];

	if (ct_discover_traces(paths, count, r->paths, why, sizeof(why)) != CT_DISCOVERY_OK) {
		set_fatal(r, CT_READER_INPUT_ERROR, "%s", why);
		return CT_READER_INPUT_ERROR;
	}
	status = run_pass(r);
	if ((status == CT_READER_OK || status == CT_READER_TRUNCATED) && r->stats.events == 0) {
		if (r->stats.foreign_events)
			set_fatal(r, CT_READER_INPUT_ERROR,
			          "the trace has no cudatrace events (%llu events of other "
			          "providers): was the program run under cudatrace record?",
			          (unsigned long long)r->stats.foreign_events);
		else
			set_fatal(r, CT_READER_INPUT_ERROR,
			          "the trace has no events: was the program run under cudatrace "
			          "record, and did it make CUDA calls?");
		return CT_READER_INPUT_ERROR;
	}
	return status;
}

/* ------------------------------------------------------------ finish and report */

int ct_reader_finish(struct ct_reader *r)
{
	int64_t end = r->stats.last_ns == INT64_MIN ? 0 : r->stats.last_ns;

	for (size_t i = 0; i < r->instance_count; i++) {
		const struct instance *in = &r->instances[i];
		enum ct_analysis_status status = in->cls->finish(in->state, end);

		if (status != CT_ANALYSIS_OK) {
			analysis_failed(r, in->cls, status);
			return -1;
		}
	}
	return 0;
}

int ct_reader_report(struct ct_reader *r, struct ct_doc *doc)
{
	ct_trace_section_write(doc, &r->stats, (const char *const *)r->paths->pdata, r->paths->len,
	                       r->ctx);
	for (size_t i = 0; i < r->instance_count; i++) {
		const struct instance *in = &r->instances[i];
		enum ct_analysis_status status = in->cls->report(in->state, doc);

		if (status != CT_ANALYSIS_OK) {
			analysis_failed(r, in->cls, status);
			return -1;
		}
	}
	if (ct_doc_error(doc)) {
		snprintf(r->stats.error, sizeof(r->stats.error), "cannot build the report: %s",
		         ct_doc_error(doc));
		return -1;
	}
	return 0;
}
