/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-schema.c - the GPU-time trace's metadata and events (see
 * gpu-time-schema.h). The payload of each event class is a list of field
 * ids from one table: the classes and the values that fill them come from
 * the same place.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

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

/* ------------------------------------------------------------ metadata */

/* The event class id of KIND's begin (BEGIN) or end. */
static uint64_t class_id(enum ct_gpu_op_kind kind, bool begin)
{
	return (uint64_t)kind * 2u + (begin ? 0u : 1u);
}

/* TSDL of a field of TYPE named NAME (with LTTng's leading underscore: "stream" is a keyword). */
static void field_tsdl(GString *m, enum field_type type, const char *name)
{
	static const unsigned bits[] = { [T_U8] = 8, [T_U16] = 16, [T_U32] = 32, [T_U64] = 64 };

	switch (type) {
	case T_STRING:
		g_string_append_printf(m, "\t\tstring { encoding = UTF8; } _%s;\n", name);
		break;
	case T_I32:
		g_string_append_printf(
		    m, "\t\tinteger { size = 32; align = 8; signed = true; } _%s;\n", name);
		break;
	default:
		g_string_append_printf(m, "\t\tinteger { size = %u; align = 8; } _%s;\n",
		                       bits[type], name);
		break;
	}
}

static void event_tsdl(GString *m, const char *name, uint64_t id, const enum field_id *ids)
{
	g_string_append_printf(m,
	                       "event {\n\tname = \"%s\";\n\tstream_id = 0;\n\tid = %" PRIu64
	                       ";\n\tfields := struct {\n",
	                       name, id);
	for (size_t i = 0; ids[i] != F_NONE; i++)
		field_tsdl(m, fields[ids[i]].type, fields[ids[i]].name);
	g_string_append(m, "\t} align(8);\n};\n\n");
}

/* S as a TSDL string literal: quotes, backslashes and control characters escaped. */
static void string_tsdl(GString *m, const char *s)
{
	g_string_append_c(m, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			g_string_append_printf(m, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			g_string_append_printf(m, "\\%03o", *p);
		else
			g_string_append_c(m, (char)*p);
	}
	g_string_append_c(m, '"');
}

/* NAME as a TSDL identifier: what is not a letter, a digit or '_' becomes '_'. */
static char *identifier(const char *name)
{
	char *id = g_strdup(name && *name ? name : "monotonic");

	for (char *p = id; *p; p++)
		if (!g_ascii_isalnum(*p) && *p != '_')
			*p = '_';
	if (g_ascii_isdigit(*id)) {
		char *prefixed = g_strconcat("_", id, NULL);

		g_free(id);
		id = prefixed;
	}
	return id;
}

/* The environment of INPUT, then cudatrace_gpu_time = 1; then the clock, named CLOCK. */
static void declarations_tsdl(GString *m, const struct ct_trace_desc *input, const char *clock)
{
	const struct ct_clock_desc *c = &input->clock;

	g_string_append(m, "env {\n");
	for (size_t i = 0; i < input->env_count; i++) {
		const struct ct_trace_env_entry *e = &input->env[i];

		/* an export of an export: said once */
		if (!strcmp(e->name, "cudatrace_gpu_time"))
			continue;
		g_string_append_printf(m, "\t%s = ", e->name);
		if (e->string)
			string_tsdl(m, e->string);
		else
			g_string_append_printf(m, "%" PRId64, e->integer);
		g_string_append(m, ";\n");
	}
	g_string_append(m, "\tcudatrace_gpu_time = 1;\n};\n\n");
	g_string_append_printf(m, "clock {\n\tname = %s;\n", clock);
	if (c->description) {
		g_string_append(m, "\tdescription = ");
		string_tsdl(m, c->description);
		g_string_append(m, ";\n");
	}
	g_string_append_printf(m,
	                       "\tfreq = %" PRIu64 ";\n\tprecision = %" PRIu64
	                       ";\n\toffset_s = %" PRId64 ";\n\toffset = %" PRIu64
	                       ";\n\tabsolute = %s;\n",
	                       c->frequency, c->precision, c->offset_seconds, c->offset_cycles,
	                       c->origin_is_unix_epoch ? "true" : "false");
	if (c->has_uuid) {
		char uuid[CT_CTF_UUID_TEXT];

		ct_ctf_uuid_text(c->uuid, uuid);
		g_string_append_printf(m, "\tuuid = \"%s\";\n", uuid);
	}
	g_string_append(m, "};\n\n");
}

/* CYCLES of the clock in ns, into *NS; false: beyond what an int64_t holds. */
static bool cycles_ns(const struct ct_gpu_schema *s, uint64_t cycles, int64_t *ns)
{
	unsigned __int128 v = s->frequency == 1000000000u
	                          ? cycles
	                          : (unsigned __int128)cycles * 1000000000u / s->frequency;

	if (v > INT64_MAX)
		return false;
	*ns = (int64_t)v;
	return true;
}

/* The clock's offset in ns, into S->offset_ns; false: beyond what an int64_t holds. */
static bool offset_ns(struct ct_gpu_schema *s)
{
	int64_t seconds_ns, cycles;

	return !__builtin_mul_overflow(s->offset_seconds, (int64_t)1000000000, &seconds_ns) &&
	       cycles_ns(s, s->offset_cycles, &cycles) &&
	       !__builtin_add_overflow(seconds_ns, cycles, &s->offset_ns);
}

int ct_gpu_schema_create(struct ct_gpu_schema *s, const struct ct_trace_desc *input, char *error,
                         size_t len)
{
	*s = (struct ct_gpu_schema){ 0 };
	if (!input || !input->clock.frequency) {
		snprintf(error, len, "the trace's events have no clock");
		return -1;
	}
	s->input = input;
	s->frequency = input->clock.frequency;
	s->offset_seconds = input->clock.offset_seconds;
	s->offset_cycles = input->clock.offset_cycles;
	s->offset_ok = offset_ns(s);
	return 0;
}

int ct_gpu_schema_write_metadata(const struct ct_gpu_schema *s, struct ct_ctf_writer *w,
                                 char *error, size_t len)
{
	GString *declarations = g_string_new(NULL), *events = g_string_new(NULL);
	char *clock = identifier(s->input->clock.name);
	int status;

	declarations_tsdl(declarations, s->input, clock);
	for (int k = 0; k < CT_GPU_OP_KINDS; k++) {
		event_tsdl(events, kinds[k].begin_name, class_id(k, true), kinds[k].begin);
		event_tsdl(events, kinds[k].end_name, class_id(k, false), end_fields);
	}
	status = ct_ctf_writer_metadata(w, clock,
	                                "struct {\n"
	                                "\t\tinteger { size = 32; align = 8; signed = true; } "
	                                "_vpid;\n"
	                                "\t\tstring { encoding = UTF8; } _procname;\n"
	                                "\t}",
	                                declarations->str, events->str, error, len);
	g_string_free(declarations, TRUE);
	g_string_free(events, TRUE);
	g_free(clock);
	return status;
}

void ct_gpu_schema_stream_name(const struct ct_gpu_op *op, char *name, size_t len)
{
	snprintf(name, len, "pid%" PRId32 "-device%u-stream%" PRIu32, op->vpid,
	         (unsigned)op->device, op->stream);
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
	int64_t value_ns, sum;

	/* as readers convert a timestamp: the offset, then the value's cycles */
	return ns && ns <= INT64_MAX && s->offset_ok &&
	       cycles_ns(s, ct_gpu_schema_cycles(s, (int64_t)ns), &value_ns) &&
	       !__builtin_add_overflow(s->offset_ns, value_ns, &sum);
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

/* The bytes of a payload's integers at most: FIELDS_MAX of 64 bits. */
#define INTEGERS_MAX (FIELDS_MAX * 8u)

static uint8_t *fill(uint8_t *p, const struct ct_gpu_op *op, const enum field_id *ids,
                     size_t name_size, size_t direction_size)
{
	for (size_t i = 0; ids[i] != F_NONE; i++) {
		enum field_id id = ids[i];

		switch (fields[id].type) {
		case T_STRING:
			p = id == F_NAME ? ct_ctf_string(p, op->name, name_size)
			                 : ct_ctf_string(p, op->direction, direction_size);
			break;
		case T_I32:
			p = ct_ctf_u32(p, (uint32_t)op->grid_x);
			break;
		case T_U8:
			p = ct_ctf_u8(p, (uint8_t)unsigned_value(op, id));
			break;
		case T_U16:
			p = ct_ctf_u16(p, (uint16_t)unsigned_value(op, id));
			break;
		case T_U32:
			p = ct_ctf_u32(p, (uint32_t)unsigned_value(op, id));
			break;
		case T_U64:
			p = ct_ctf_u64(p, unsigned_value(op, id));
			break;
		}
	}
	return p;
}

int ct_gpu_schema_event(const struct ct_gpu_schema *s, struct ct_ctf_writer *w,
                        struct ct_ctf_stream *stream, const struct ct_gpu_op *op, bool begin)
{
	/* an end has no string of its own */
	size_t procname_size = ct_ctf_string_size(op->procname);
	size_t name_size = begin ? ct_ctf_string_size(op->name) : 0;
	size_t direction_size =
	    begin && op->kind == CT_GPU_OP_MEMCPY ? ct_ctf_string_size(op->direction) : 0;
	uint8_t *p = ct_ctf_stream_event(
	    stream, class_id(op->kind, begin), ct_gpu_schema_cycles(s, begin ? op->start : op->end),
	    4 + procname_size + name_size + direction_size + INTEGERS_MAX);

	p = ct_ctf_u32(p, (uint32_t)op->vpid);
	p = ct_ctf_string(p, op->procname, procname_size);
	p = fill(p, op, begin ? kinds[op->kind].begin : end_fields, name_size, direction_size);
	return ct_ctf_stream_event_done(w, stream, p);
}
