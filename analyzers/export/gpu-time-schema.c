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

/*
 * The fields an event may have: X(ID, name, type, value), VALUE being
 * what an operation OP puts in it (a string's with its size in SIZES).
 */
#define GPU_FIELDS(X)                                                                           \
	X(DEVICE, "device", U8, op->device)                                                     \
	X(CONTEXT, "context", U32, op->context)                                                 \
	X(STREAM, "stream", U32, op->stream)                                                    \
	X(CORRELATION_ID, "correlation_id", U32, op->correlation_id)                            \
	X(NAME, "name", STRING, op->name, sizes->name)                                          \
	X(DURATION, "duration", U64, op->end > op->start ? (uint64_t)(op->end - op->start) : 0) \
	X(DIRECTION, "direction", STRING, op->direction, sizes->direction)                      \
	X(BYTES, "bytes", U64, op->bytes)                                                       \
	X(VALUE, "value", U32, op->value)                                                       \
	X(GRID_X, "grid_x", I32, op->grid_x)                                                    \
	X(GRID_Y, "grid_y", U16, op->grid_y)                                                    \
	X(GRID_Z, "grid_z", U16, op->grid_z)                                                    \
	X(BLOCK_X, "block_x", U16, op->block_x)                                                 \
	X(BLOCK_Y, "block_y", U16, op->block_y)                                                 \
	X(BLOCK_Z, "block_z", U16, op->block_z)

/*
 * The payload of each event class, F(ID) for each of its fields in order:
 * the metadata's classes (kinds) and the functions that fill them
 * (fill_*) are both made from these lists.
 */
#define COMMON_FIELDS(F) F(DEVICE) F(CONTEXT) F(STREAM) F(CORRELATION_ID)
#define KERNEL_BEGIN_FIELDS(F) \
	COMMON_FIELDS(F)       \
	F(NAME) F(DURATION) F(GRID_X) F(GRID_Y) F(GRID_Z) F(BLOCK_X) F(BLOCK_Y) F(BLOCK_Z)
#define MEMCPY_BEGIN_FIELDS(F) COMMON_FIELDS(F) F(NAME) F(DURATION) F(DIRECTION) F(BYTES)
#define MEMSET_BEGIN_FIELDS(F) COMMON_FIELDS(F) F(NAME) F(DURATION) F(BYTES) F(VALUE)
#define END_FIELDS(F)          COMMON_FIELDS(F)

#define FIELD_ID(ID, ...) F_##ID,
enum field_id {
	GPU_FIELDS(FIELD_ID) F_NONE, /* ends a list */
};
#undef FIELD_ID

#define FIELD_ENTRY(ID, name, type, ...) [F_##ID] = { name, T_##type },
static const struct {
	const char *name;
	enum field_type type;
} fields[] = { GPU_FIELDS(FIELD_ENTRY) };
#undef FIELD_ENTRY

#define FIELDS_MAX 16
#define LISTED(ID) F_##ID,

static const struct {
	const char *begin_name, *end_name;
	enum field_id begin[FIELDS_MAX];
} kinds[CT_GPU_OP_KINDS] = {
	[CT_GPU_OP_KERNEL] = { "cudatrace_gpu:kernel_begin",
	                       "cudatrace_gpu:kernel_end",
	                       { KERNEL_BEGIN_FIELDS(LISTED) F_NONE } },
	[CT_GPU_OP_MEMCPY] = { "cudatrace_gpu:memcpy_begin",
	                       "cudatrace_gpu:memcpy_end",
	                       { MEMCPY_BEGIN_FIELDS(LISTED) F_NONE } },
	[CT_GPU_OP_MEMSET] = { "cudatrace_gpu:memset_begin",
	                       "cudatrace_gpu:memset_end",
	                       { MEMSET_BEGIN_FIELDS(LISTED) F_NONE } },
};

static const enum field_id end_fields[] = { END_FIELDS(LISTED) F_NONE };
#undef LISTED

/* ------------------------------------------------------------ metadata */

/* The event class id of KIND's begin (BEGIN) or end. */
static uint16_t class_id(enum ct_gpu_op_kind kind, bool begin)
{
	return (uint16_t)(kind * 2u + (begin ? 0u : 1u));
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
	uint64_t whole, part;

	/* LTTng's clock: no division for each timestamp */
	if (s->frequency == 1000000000u)
		return u;
	whole = u / 1000000000u;
	part = u % 1000000000u;
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

/* The sizes of an event's strings (ct_ctf_string_size), 0 for those it has not. */
struct string_sizes {
	size_t name, direction;
};

/* The bytes of a payload's integers at most: FIELDS_MAX of 64 bits. */
#define INTEGERS_MAX (FIELDS_MAX * 8u)

/* A field's value at P, by its type; returns the byte after it. */
#define PUT_U8(p, v)           ct_ctf_u8(p, (uint8_t)(v))
#define PUT_U16(p, v)          ct_ctf_u16(p, (uint16_t)(v))
#define PUT_U32(p, v)          ct_ctf_u32(p, (uint32_t)(v))
#define PUT_U64(p, v)          ct_ctf_u64(p, (uint64_t)(v))
#define PUT_I32(p, v)          ct_ctf_u32(p, (uint32_t)(v))
#define PUT_STRING(p, v, size) ct_ctf_string(p, v, size)

/* put_<ID>(p, op, sizes): the field ID of OP at P. */
#define FIELD_PUT(ID, name, type, ...)                                          \
	static inline uint8_t *put_##ID(uint8_t *p, const struct ct_gpu_op *op, \
	                                const struct string_sizes *sizes)       \
	{                                                                       \
		(void)op;                                                       \
		(void)sizes;                                                    \
		return PUT_##type(p, __VA_ARGS__);                              \
	}
GPU_FIELDS(FIELD_PUT)
#undef FIELD_PUT

/*
 * fill_<list>(p, op, sizes): the payload of an event class, field after
 * field, at P; returns the byte after it. Written out for each class, as
 * its list says, rather than a loop over the list that asked each field's
 * type and value: that loop was half the writing thread's instructions.
 */
#define PUT(ID) p = put_##ID(p, op, sizes);
#define FILL(list)                                                          \
	static uint8_t *fill_##list(uint8_t *p, const struct ct_gpu_op *op, \
	                            const struct string_sizes *sizes)       \
	{                                                                   \
		list##_FIELDS(PUT) return p;                                \
	}
FILL(KERNEL_BEGIN)
FILL(MEMCPY_BEGIN)
FILL(MEMSET_BEGIN)
FILL(END)
#undef FILL
#undef PUT

/* The fill of OP's begin (BEGIN) or end event. */
static uint8_t *fill(uint8_t *p, const struct ct_gpu_op *op, bool begin,
                     const struct string_sizes *sizes)
{
	if (!begin)
		return fill_END(p, op, sizes);
	switch (op->kind) {
	case CT_GPU_OP_KERNEL:
		return fill_KERNEL_BEGIN(p, op, sizes);
	case CT_GPU_OP_MEMCPY:
		return fill_MEMCPY_BEGIN(p, op, sizes);
	default:
		return fill_MEMSET_BEGIN(p, op, sizes);
	}
}

int ct_gpu_schema_event(const struct ct_gpu_schema *s, struct ct_ctf_writer *w,
                        struct ct_ctf_stream *stream, const struct ct_gpu_op *op, bool begin)
{
	/* an end has no string of its own */
	size_t procname_size = ct_ctf_string_size(op->procname);
	struct string_sizes sizes = {
		.name = begin ? ct_ctf_string_size(op->name) : 0,
		.direction =
		    begin && op->kind == CT_GPU_OP_MEMCPY ? ct_ctf_string_size(op->direction) : 0,
	};
	uint8_t *p = ct_ctf_stream_event(
	    stream, class_id(op->kind, begin), ct_gpu_schema_cycles(s, begin ? op->start : op->end),
	    4 + procname_size + sizes.name + sizes.direction + INTEGERS_MAX);

	p = ct_ctf_u32(p, (uint32_t)op->vpid);
	p = ct_ctf_string(p, op->procname, procname_size);
	p = fill(p, op, begin, &sizes);
	return ct_ctf_stream_event_done(w, stream, p);
}
