/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-schema.c - the GPU-time trace's IR and events (see
 * gpu-time-schema.h). The payload of each event class is a list of field
 * ids from one table: the classes and the values that fill them come from
 * the same place.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gpu-time-schema.h"

enum field_type { T_U8, T_U16, T_U32, T_U64, T_I32, T_STRING };

enum field_id {
	F_DEVICE,
	F_CONTEXT,
	F_STREAM,
	F_CORRELATION_ID,
	F_NAME,
	F_DURATION,
	F_DIRECTION,
	F_BYTES,
	F_VALUE,
	F_GRID_X,
	F_GRID_Y,
	F_GRID_Z,
	F_BLOCK_X,
	F_BLOCK_Y,
	F_BLOCK_Z,
	F_NONE, /* ends a list */
};

static const struct {
	const char *name;
	enum field_type type;
} fields[] = {
	[F_DEVICE] = { "device", T_U8 },
	[F_CONTEXT] = { "context", T_U32 },
	[F_STREAM] = { "stream", T_U32 },
	[F_CORRELATION_ID] = { "correlation_id", T_U32 },
	[F_NAME] = { "name", T_STRING },
	[F_DURATION] = { "duration", T_U64 },
	[F_DIRECTION] = { "direction", T_STRING },
	[F_BYTES] = { "bytes", T_U64 },
	[F_VALUE] = { "value", T_U32 },
	[F_GRID_X] = { "grid_x", T_I32 },
	[F_GRID_Y] = { "grid_y", T_U16 },
	[F_GRID_Z] = { "grid_z", T_U16 },
	[F_BLOCK_X] = { "block_x", T_U16 },
	[F_BLOCK_Y] = { "block_y", T_U16 },
	[F_BLOCK_Z] = { "block_z", T_U16 },
};

#define FIELDS_MAX 16

/* Where every event of an operation says where it ran. */
#define COMMON F_DEVICE, F_CONTEXT, F_STREAM, F_CORRELATION_ID

static const struct {
	const char *begin_name, *end_name;
	enum field_id begin[FIELDS_MAX];
} kinds[CT_GPU_OP_KINDS] = {
	[CT_GPU_OP_KERNEL] = { "cudatrace_gpu:kernel_begin",
	                       "cudatrace_gpu:kernel_end",
	                       { COMMON, F_NAME, F_DURATION, F_GRID_X, F_GRID_Y, F_GRID_Z,
	                         F_BLOCK_X, F_BLOCK_Y, F_BLOCK_Z, F_NONE } },
	[CT_GPU_OP_MEMCPY] = { "cudatrace_gpu:memcpy_begin",
	                       "cudatrace_gpu:memcpy_end",
	                       { COMMON, F_NAME, F_DURATION, F_DIRECTION, F_BYTES, F_NONE } },
	[CT_GPU_OP_MEMSET] = { "cudatrace_gpu:memset_begin",
	                       "cudatrace_gpu:memset_end",
	                       { COMMON, F_NAME, F_DURATION, F_BYTES, F_VALUE, F_NONE } },
};

static const enum field_id end_fields[] = { COMMON, F_NONE };

/* ------------------------------------------------------------ classes */

static bt_field_class *field_class(bt_trace_class *tc, enum field_type type)
{
	static const uint64_t bits[] = { [T_U8] = 8, [T_U16] = 16, [T_U32] = 32, [T_U64] = 64 };
	bt_field_class *fc;

	switch (type) {
	case T_STRING:
		return bt_field_class_string_create(tc);
	case T_I32:
		fc = bt_field_class_integer_signed_create(tc);
		if (fc)
			bt_field_class_integer_set_field_value_range(fc, 32);
		return fc;
	default:
		fc = bt_field_class_integer_unsigned_create(tc);
		if (fc)
			bt_field_class_integer_set_field_value_range(fc, bits[type]);
		return fc;
	}
}

/* A structure of the fields IDS (up to F_NONE); NULL: out of memory. */
static bt_field_class *payload_class(bt_trace_class *tc, const enum field_id *ids)
{
	bt_field_class *st = bt_field_class_structure_create(tc);

	for (size_t i = 0; st && ids[i] != F_NONE; i++) {
		bt_field_class *member = field_class(tc, fields[ids[i]].type);

		if (!member ||
		    bt_field_class_structure_append_member(st, fields[ids[i]].name, member) !=
		        BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK) {
			bt_field_class_put_ref(member);
			bt_field_class_put_ref(st);
			return NULL;
		}
		bt_field_class_put_ref(member);
	}
	return st;
}

/* The common context: vpid and procname, as LTTng's contexts name them. */
static bt_field_class *context_class(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	bt_field_class *vpid = field_class(tc, T_I32);
	bt_field_class *procname = field_class(tc, T_STRING);
	int ok = st && vpid && procname &&
	         bt_field_class_structure_append_member(st, "vpid", vpid) ==
	             BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK &&
	         bt_field_class_structure_append_member(st, "procname", procname) ==
	             BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

	bt_field_class_put_ref(vpid);
	bt_field_class_put_ref(procname);
	if (!ok) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

static int event_class(struct ct_gpu_schema *s, const char *name, const enum field_id *ids,
                       bt_event_class **out)
{
	bt_field_class *payload = payload_class(s->trace_class, ids);
	bt_event_class *ec = payload ? bt_event_class_create(s->stream_class) : NULL;
	int ok = ec && bt_event_class_set_name(ec, name) == BT_EVENT_CLASS_SET_NAME_STATUS_OK &&
	         bt_event_class_set_payload_field_class(ec, payload) ==
	             BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK;

	bt_field_class_put_ref(payload);
	/* the stream class holds the event class */
	bt_event_class_put_ref(ec);
	*out = ec;
	return ok ? 0 : -1;
}

/* A clock class of the properties of INPUT: name, description, frequency, offset, origin, UUID. */
static bt_clock_class *copy_clock(bt_self_component *self, const struct ct_clock_desc *input)
{
	bt_clock_class *cc = bt_clock_class_create(self);

	if (!cc)
		return NULL;
	bt_clock_class_set_frequency(cc, input->frequency);
	bt_clock_class_set_offset(cc, input->offset_seconds, input->offset_cycles);
	bt_clock_class_set_precision(cc, input->precision);
	bt_clock_class_set_origin_is_unix_epoch(cc, input->origin_is_unix_epoch);
	if (input->has_uuid)
		bt_clock_class_set_uuid(cc, input->uuid);
	if ((input->name &&
	     bt_clock_class_set_name(cc, input->name) != BT_CLOCK_CLASS_SET_NAME_STATUS_OK) ||
	    (input->description && bt_clock_class_set_description(cc, input->description) !=
	                               BT_CLOCK_CLASS_SET_DESCRIPTION_STATUS_OK)) {
		bt_clock_class_put_ref(cc);
		return NULL;
	}
	return cc;
}

/* The environment of INPUT, then cudatrace_gpu_time = 1. */
static int copy_environment(bt_trace *trace, const struct ct_trace_desc *input)
{
	for (size_t i = 0; i < input->env_count; i++) {
		const struct ct_trace_env_entry *e = &input->env[i];
		bt_trace_set_environment_entry_status status =
		    e->string ? bt_trace_set_environment_entry_string(trace, e->name, e->string)
		              : bt_trace_set_environment_entry_integer(trace, e->name, e->integer);

		if (status != BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK)
			return -1;
	}
	return bt_trace_set_environment_entry_integer(trace, "cudatrace_gpu_time", 1) ==
	               BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK
	           ? 0
	           : -1;
}

int ct_gpu_schema_create(struct ct_gpu_schema *s, bt_self_component *self,
                         const struct ct_trace_desc *input, char *error, size_t len)
{
	bt_field_class *context = NULL;
	int ok;

	*s = (struct ct_gpu_schema){ 0 };
	snprintf(error, len, "out of memory");
	if (!input || !input->clock.frequency) {
		snprintf(error, len, "the trace's events have no clock");
		return -1;
	}
	s->frequency = input->clock.frequency;
	s->trace_class = bt_trace_class_create(self);
	s->clock_class = copy_clock(self, &input->clock);
	if (!s->trace_class || !s->clock_class)
		goto error;
	s->stream_class = bt_stream_class_create(s->trace_class);
	context = context_class(s->trace_class);
	if (!s->stream_class || !context)
		goto error;
	/* the trace class holds the stream class */
	bt_stream_class_put_ref(s->stream_class);
	ok = bt_stream_class_set_name(s->stream_class, "gpu") ==
	         BT_STREAM_CLASS_SET_NAME_STATUS_OK &&
	     bt_stream_class_set_default_clock_class(s->stream_class, s->clock_class) ==
	         BT_STREAM_CLASS_SET_DEFAULT_CLOCK_CLASS_STATUS_OK &&
	     bt_stream_class_set_event_common_context_field_class(s->stream_class, context) ==
	         BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK;
	bt_field_class_put_ref(context);
	if (!ok)
		goto error;
	/* after the clock: packets begin and end at a time */
	bt_stream_class_set_supports_packets(s->stream_class, BT_TRUE, BT_TRUE, BT_TRUE);
	for (int k = 0; k < CT_GPU_OP_KINDS; k++)
		if (event_class(s, kinds[k].begin_name, kinds[k].begin, &s->classes[k][1]) < 0 ||
		    event_class(s, kinds[k].end_name, end_fields, &s->classes[k][0]) < 0)
			goto error;
	s->trace = bt_trace_create(s->trace_class);
	if (!s->trace || copy_environment(s->trace, input) < 0)
		goto error;
	if (input->name && bt_trace_set_name(s->trace, input->name) != BT_TRACE_SET_NAME_STATUS_OK)
		goto error;
	return 0;
error:
	ct_gpu_schema_release(s);
	return -1;
}

void ct_gpu_schema_release(struct ct_gpu_schema *s)
{
	bt_trace_put_ref(s->trace);
	bt_clock_class_put_ref(s->clock_class);
	bt_trace_class_put_ref(s->trace_class);
	*s = (struct ct_gpu_schema){ 0 };
}

bt_stream *ct_gpu_schema_stream(struct ct_gpu_schema *s, const struct ct_gpu_op *op)
{
	bt_stream *stream = bt_stream_create(s->stream_class, s->trace);
	char name[80];

	if (!stream)
		return NULL;
	snprintf(name, sizeof(name), "pid%" PRId32 "-device%u-stream%" PRIu32, op->vpid,
	         (unsigned)op->device, op->stream);
	if (bt_stream_set_name(stream, name) != BT_STREAM_SET_NAME_STATUS_OK) {
		bt_stream_put_ref(stream);
		return NULL;
	}
	return stream;
}

uint64_t ct_gpu_schema_cycles(const struct ct_gpu_schema *s, int64_t ns)
{
	uint64_t u = ns < 0 ? 0 : (uint64_t)ns;
	uint64_t whole = u / 1000000000u, part = u % 1000000000u;

	if (s->frequency == 1000000000u)
		return u;
	if (whole && s->frequency > UINT64_MAX / whole)
		return UINT64_MAX;
	/* part * frequency / 1e9 cannot overflow for frequencies below 18 GHz */
	return whole * s->frequency + part * s->frequency / 1000000000u;
}

bool ct_gpu_schema_time_ok(const struct ct_gpu_schema *s, uint64_t ns)
{
	int64_t from_origin;

	if (!ns || ns > INT64_MAX)
		return false;
	if (bt_clock_class_cycles_to_ns_from_origin(
	        s->clock_class, ct_gpu_schema_cycles(s, (int64_t)ns), &from_origin) ==
	    BT_CLOCK_CLASS_CYCLES_TO_NS_FROM_ORIGIN_STATUS_OK)
		return true;
	/* the overflow is recorded as the thread's error: no API call may follow it */
	bt_current_thread_clear_error();
	return false;
}

/* ------------------------------------------------------------ events */

static uint64_t unsigned_value(const struct ct_gpu_op *op, enum field_id id)
{
	switch (id) {
	case F_DEVICE:
		return op->device;
	case F_CONTEXT:
		return op->context;
	case F_STREAM:
		return op->stream;
	case F_CORRELATION_ID:
		return op->correlation_id;
	case F_DURATION:
		return op->end > op->start ? (uint64_t)(op->end - op->start) : 0;
	case F_BYTES:
		return op->bytes;
	case F_VALUE:
		return op->value;
	case F_GRID_Y:
		return op->grid_y;
	case F_GRID_Z:
		return op->grid_z;
	case F_BLOCK_X:
		return op->block_x;
	case F_BLOCK_Y:
		return op->block_y;
	case F_BLOCK_Z:
		return op->block_z;
	default:
		return 0;
	}
}

static int fill(bt_field *payload, const struct ct_gpu_op *op, const enum field_id *ids)
{
	for (uint64_t i = 0; ids[i] != F_NONE; i++) {
		bt_field *f = bt_field_structure_borrow_member_field_by_index(payload, i);

		switch (fields[ids[i]].type) {
		case T_STRING:
			if (bt_field_string_set_value(f, ids[i] == F_NAME ? op->name
			                                                  : op->direction) !=
			    BT_FIELD_STRING_SET_VALUE_STATUS_OK)
				return -1;
			break;
		case T_I32:
			bt_field_integer_signed_set_value(f, op->grid_x);
			break;
		default:
			bt_field_integer_unsigned_set_value(f, unsigned_value(op, ids[i]));
			break;
		}
	}
	return 0;
}

bt_message *ct_gpu_schema_event(struct ct_gpu_schema *s, bt_self_message_iterator *self,
                                const struct ct_gpu_op *op, bool begin, bt_packet *packet)
{
	bt_message *msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
	    self, s->classes[op->kind][begin], packet,
	    ct_gpu_schema_cycles(s, begin ? op->start : op->end));
	bt_event *event;
	bt_field *context;

	if (!msg)
		return NULL;
	event = bt_message_event_borrow_event(msg);
	context = bt_event_borrow_common_context_field(event);
	bt_field_integer_signed_set_value(
	    bt_field_structure_borrow_member_field_by_index(context, 0), op->vpid);
	if (bt_field_string_set_value(bt_field_structure_borrow_member_field_by_index(context, 1),
	                              op->procname ? op->procname : "") !=
	        BT_FIELD_STRING_SET_VALUE_STATUS_OK ||
	    fill(bt_event_borrow_payload_field(event), op,
	         begin ? kinds[op->kind].begin : end_fields) < 0) {
		bt_message_put_ref(msg);
		return NULL;
	}
	return msg;
}
