/* SPDX-License-Identifier: MIT */
/*
 * event-decoder.c - event classes resolved against the event contract,
 * events decoded by index (see event-decoder.h).
 */
#include <stdio.h>
#include <string.h>

#include "contract/assert.h"
#include "event-decoder.h"
#include "common/log.h"

/* ------------------------------------------------------------ resolution */

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

/* The read mode of a payload member for SPEC, CT_READ_NONE if the types disagree. */
static enum ct_field_read read_mode(const bt_field_class *fc, const struct ct_field_spec *spec)
{
	bt_field_class_type type = bt_field_class_get_type(fc);

	if (spec->storage == CT_STORE_STRING || spec->storage == CT_STORE_TEXT)
		return type == BT_FIELD_CLASS_TYPE_STRING ? CT_READ_STRING : CT_READ_NONE;
	if (spec->storage == CT_STORE_ARRAY_X8)
		return type == BT_FIELD_CLASS_TYPE_STATIC_ARRAY &&
		               bt_field_class_array_static_get_length(fc) == spec->count &&
		               bt_field_class_type_is(
		                   bt_field_class_get_type(
		                       bt_field_class_array_borrow_element_field_class_const(fc)),
		                   BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)
		           ? CT_READ_ARRAY
		           : CT_READ_NONE;
	if (spec->storage == CT_STORE_SEQ_X64 || spec->storage == CT_STORE_SEQ_U64 ||
	    spec->storage == CT_STORE_SEQ_U32 || spec->storage == CT_STORE_SEQ_U16 ||
	    spec->storage == CT_STORE_SEQ_U8) {
		if (!bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY) ||
		    !bt_field_class_type_is(
		        bt_field_class_get_type(
		            bt_field_class_array_borrow_element_field_class_const(fc)),
		        BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			return CT_READ_NONE;
		return spec->storage == CT_STORE_SEQ_X64 ? CT_READ_SEQ : CT_READ_COLUMN;
	}
	if (!bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_INTEGER))
		return CT_READ_NONE;
	return bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ? CT_READ_SIGNED
	                                                                        : CT_READ_UNSIGNED;
}

/* The member that holds the length of a text field (LTTng's _NAME_length
 * before a sequence), -1 if none. */
static int64_t text_length_index(const bt_field_class *payload, const struct ct_field_spec *spec)
{
	char name[80];
	int64_t i;

	if (spec->storage != CT_STORE_TEXT)
		return -1;
	snprintf(name, sizeof(name), "_%s_length", spec->name);
	i = member_index(payload, name);
	if (i < 0 ||
	    !bt_field_class_type_is(bt_field_class_get_type(member_class(payload, (uint64_t)i)),
	                            BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return -1;
	return i;
}

static int resolve_payload(struct ct_event_class_info *info, const bt_event_class *ec,
                           const char *name, char *error, size_t len)
{
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	const struct ct_field_spec *spec = ct_event_fields(info->type);
	uint8_t n = 0;

	info->seq_fields = 0;
	for (; spec && spec->name; spec++, n++) {
		int64_t i = member_index(payload, spec->name);

		CT_ASSERT(n < CT_FIELDS_MAX);
		info->read[n] = CT_READ_NONE;
		info->length_index[n] = text_length_index(payload, spec);
		if (i >= 0) {
			info->index[n] = (uint64_t)i;
			info->read[n] = read_mode(member_class(payload, (uint64_t)i), spec);
		}
		if (info->read[n] == CT_READ_SEQ)
			info->seq_fields++;
		if (info->read[n] == CT_READ_NONE && !spec->optional) {
			snprintf(error, len,
			         "event %s %s field '%s': the trace was recorded by a version of "
			         "cudatrace this reader does not know (see doc/events.md)",
			         name, i < 0 ? "has no" : "has an unexpected type for its",
			         spec->name);
			return -1;
		}
	}
	info->field_count = n;
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

int ct_event_class_resolve(struct ct_event_class_info *info, const bt_event *event,
                           ct_ev_set decoded, char *error, size_t len)
{
	const bt_event_class *ec = bt_event_borrow_class_const(event);
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *context =
	    bt_stream_class_borrow_event_common_context_field_class_const(sc);
	const char *name = bt_event_class_get_name(ec);

	info->trace_class = bt_stream_class_borrow_trace_class_const(sc);
	info->type = CT_EV_NONE;
	info->ust_statedump = ct_ust_statedump_kind(name);
	info->vpid_index = context_member(context, "vpid", false, &info->vpid_signed);
	info->vtid_index = context_member(context, "vtid", false, &info->vtid_signed);
	info->procname_index = context_member(context, "procname", true, NULL);
	info->hostname = trace_hostname(event);
	if (!name || strncmp(name, CT_PROVIDER_PREFIX, strlen(CT_PROVIDER_PREFIX)) != 0)
		return 0;
	info->type = ct_event_type_from_name(name + strlen(CT_PROVIDER_PREFIX));
	if (info->type == CT_EV_NONE)
		return 0; /* a cudatrace event newer than us: ignored, as a foreign one */
	if (bt_stream_class_borrow_default_clock_class_const(sc))
		info->frequency = bt_clock_class_get_frequency(
		    bt_stream_class_borrow_default_clock_class_const(sc));
	info->decode = (decoded & CT_EV_BIT(info->type)) != 0;
	info->batch_decode =
	    decoded & (CT_EV_BIT(CT_EV_GPU_MEMCPY_TIMES) | CT_EV_BIT(CT_EV_GPU_KERNEL_TIMES) |
	               CT_EV_BIT(CT_EV_GPU_KERNEL_SHAPED) | CT_EV_BIT(CT_EV_GPU_MEMSET_TIMES));
	if (resolve_payload(info, ec, name, error, len) < 0) {
		info->type = CT_EV_NONE;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ decoding */

/*
 * The value of string field F. babeltrace2 2.0 empties a string field by
 * setting its length to 0 and leaves its buffer as it was, so an empty
 * string would read as the previous event's value: its length says it is
 * empty. For a string with no length member of its own (a text array such
 * as the procname context, a null-terminated string).
 */
static const char *field_string(const bt_field *f)
{
	return bt_field_string_get_length(f) ? bt_field_string_get_value(f) : "";
}

void ct_decoder_init(struct ct_decoder *d)
{
	*d = (struct ct_decoder){ .last_time = 0 };
}

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

/*
 * S is copied into STRINGS when given: the event then outlives
 * babeltrace2's message, which its decoding thread puts.
 */
static void store_string(struct ct_event *ev, const struct ct_field_spec *spec, const char *s,
                         GStringChunk *strings)
{
	size_t len = strlen(s);

	if (strings)
		s = g_string_chunk_insert_len(strings, s, (gssize)len);
	memcpy((char *)ev + spec->offset, &s, sizeof(s));
	if (spec->storage == CT_STORE_TEXT) {
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

/*
 * A sequence's elements, at most CT_STACK_FRAMES_MAX of them, copied into
 * SEQ (babeltrace2 keeps them as fields, not as one array). Returns the
 * elements used; without room, the sequence is left empty.
 */
static size_t store_seq(struct ct_event *ev, const struct ct_field_spec *spec, const bt_field *f,
                        uint64_t *seq, size_t room)
{
	uint64_t n = bt_field_array_get_length(f);
	const uint64_t *at = seq;
	uint16_t count;

	if (n > CT_STACK_FRAMES_MAX)
		n = CT_STACK_FRAMES_MAX;
	if (!seq || n > room)
		n = 0;
	for (uint64_t i = 0; i < n; i++)
		seq[i] = bt_field_integer_unsigned_get_value(
		    bt_field_array_borrow_element_field_by_index_const(f, i));
	count = (uint16_t)n;
	if (!n)
		at = NULL;
	memcpy((char *)ev + spec->offset, &at, sizeof(at));
	memcpy((char *)ev + spec->len_offset, &count, sizeof(count));
	return (size_t)n;
}

/*
 * The value of string member F. Babeltrace 2.0.4 leaves the previous
 * value of a string field in place when the text sequence it decodes is
 * empty: the length member says so.
 */
static const char *text_value(const struct ct_event_class_info *info, uint8_t n,
                              const bt_field *payload, const bt_field *f)
{
	const bt_field *length;

	if (info->length_index[n] < 0)
		return field_string(f);
	length = bt_field_structure_borrow_member_field_by_index_const(
	    payload, (uint64_t)info->length_index[n]);
	return bt_field_integer_unsigned_get_value(length) ? bt_field_string_get_value(f) : "";
}

/*
 * Values no trace can mean, read as unknown. A GPU time (ns on
 * CLOCK_MONOTONIC) beyond 2^63 - 1 is not one: it reads as 0, which CUPTI
 * writes when it could not time the work, so that the analyses can take
 * GPU times as int64_t.
 */
static void gpu_time(uint64_t *ns)
{
	if (*ns > (uint64_t)INT64_MAX)
		*ns = 0;
}

static void unknown_values(struct ct_event *ev)
{
	switch (ev->type) {
	case CT_EV_GPU_KERNEL:
		gpu_time(&ev->u.gpu_kernel.start);
		gpu_time(&ev->u.gpu_kernel.end);
		break;
	case CT_EV_GPU_MEMCPY:
		gpu_time(&ev->u.gpu_memcpy.start);
		gpu_time(&ev->u.gpu_memcpy.end);
		break;
	case CT_EV_GPU_MEMSET:
		gpu_time(&ev->u.gpu_memset.start);
		gpu_time(&ev->u.gpu_memset.end);
		break;
	case CT_EV_GPU_SYNC:
		gpu_time(&ev->u.gpu_sync.start);
		gpu_time(&ev->u.gpu_sync.end);
		break;
	case CT_EV_GPU_OVERHEAD:
		gpu_time(&ev->u.gpu_overhead.start);
		gpu_time(&ev->u.gpu_overhead.end);
		break;
	case CT_EV_GPU_MEMORY:
		gpu_time(&ev->u.gpu_memory.timestamp);
		break;
	case CT_EV_GPU_MEMORY_POOL:
		gpu_time(&ev->u.gpu_memory_pool.timestamp);
		break;
	/* NVML readings that contradict each other read as none (0, as when unknown) */
	case CT_EV_NVML_SAMPLE:
		if (ev->u.nvml_sample.free > ev->u.nvml_sample.total ||
		    ev->u.nvml_sample.used > ev->u.nvml_sample.total) {
			ev->u.nvml_sample.free = 0;
			ev->u.nvml_sample.used = 0;
			ev->u.nvml_sample.total = 0;
		}
		break;
	case CT_EV_MEM_ALLOC_FAILED:
		if (ev->u.mem_alloc_failed.free > ev->u.mem_alloc_failed.total) {
			ev->u.mem_alloc_failed.free = 0;
			ev->u.mem_alloc_failed.total = 0;
		}
		break;
	default:
		break;
	}
}

size_t ct_decoder_payload(const struct ct_event_class_info *info, const bt_event *event,
                          struct ct_event *ev, GStringChunk *strings, uint64_t *seq, size_t room)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	const struct ct_field_spec *spec = ct_event_fields(info->type);
	size_t used = 0;

	for (uint8_t n = 0; n < info->field_count; n++) {
		const bt_field *f;

		if (info->read[n] == CT_READ_NONE)
			continue;
		f = bt_field_structure_borrow_member_field_by_index_const(payload, info->index[n]);
		switch (info->read[n]) {
		case CT_READ_UNSIGNED:
			store(ev, &spec[n], bt_field_integer_unsigned_get_value(f));
			break;
		case CT_READ_SIGNED:
			store(ev, &spec[n], (uint64_t)bt_field_integer_signed_get_value(f));
			break;
		case CT_READ_STRING:
			store_string(ev, &spec[n], text_value(info, n, payload, f), strings);
			break;
		case CT_READ_ARRAY:
			store_array(ev, &spec[n], f);
			break;
		case CT_READ_SEQ:
			used += store_seq(ev, &spec[n], f, seq ? seq + used : NULL, room - used);
			break;
		default:
			break;
		}
	}
	unknown_values(ev);
	return used;
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

/* A copy of S in STRINGS, or S itself without STRINGS; NULL stays NULL. */
static const char *copy(GStringChunk *strings, const char *s)
{
	return s && strings ? g_string_chunk_insert(strings, s) : s;
}

void ct_decoder_origin(struct ct_decoder *d, const struct ct_event_class_info *info,
                       const bt_field *context, bool with_thread, GStringChunk *strings,
                       struct ct_event_origin *origin)
{
	int64_t vpid = ct_decoder_vpid(info, context);

	origin->vtid = with_thread ? context_int(context, info->vtid_index, info->vtid_signed) : 0;
	origin->changed =
	    !d->has_origin || vpid != d->last_vpid || info->hostname != d->last_hostname;
	if (!origin->changed)
		return;
	origin->no_vpid = info->vpid_index < 0;
	origin->vpid = vpid;
	origin->hostname = copy(strings, info->hostname);
	origin->procname =
	    info->procname_index >= 0
	        ? copy(strings, field_string(bt_field_structure_borrow_member_field_by_index_const(
	                            context, (uint64_t)info->procname_index)))
	        : NULL;
	d->has_origin = true;
	d->last_vpid = vpid;
	d->last_hostname = info->hostname;
}

void ct_origins_init(struct ct_origins *o, struct ct_context *ctx)
{
	*o = (struct ct_origins){ .ctx = ctx, .last_process = g_ptr_array_new() };
}

void ct_origins_clear(struct ct_origins *o)
{
	if (o->last_process)
		g_ptr_array_free(o->last_process, TRUE);
	o->last_process = NULL;
}

struct ct_process *ct_origins_process(struct ct_origins *o, const struct ct_event_origin *origin,
                                      uint32_t lane)
{
	struct ct_process *p;

	if (lane < o->last_process->len && g_ptr_array_index(o->last_process, lane) &&
	    !origin->changed)
		return g_ptr_array_index(o->last_process, lane);
	if (origin->no_vpid && !o->no_vpid_warned) {
		o->no_vpid_warned = true;
		ct_log_warning("the trace has no vpid context: all events are counted as one "
		               "process (record with cudatrace record, or add the vpid, vtid and "
		               "procname contexts)");
	}
	p = ct_context_process(o->ctx, origin->hostname, origin->vpid);
	ct_process_name(p, origin->procname, false);
	if (lane >= o->last_process->len)
		g_ptr_array_set_size(o->last_process, (guint)lane + 1);
	g_ptr_array_index(o->last_process, lane) = p;
	o->last_thread = NULL;
	return p;
}

struct ct_thread *ct_origins_thread(struct ct_origins *o, const struct ct_event_origin *origin,
                                    struct ct_process *p)
{
	if (o->last_thread && o->last_thread->process == p && origin->vtid == o->last_vtid)
		return o->last_thread;
	o->last_thread = ct_context_thread(o->ctx, p, origin->vtid);
	o->last_vtid = origin->vtid;
	return o->last_thread;
}

int64_t ct_decoder_vpid(const struct ct_event_class_info *info, const bt_field *context)
{
	return context_int(context, info->vpid_index, info->vpid_signed);
}

int64_t ct_clock_ns(uint64_t cycles, uint64_t frequency)
{
	unsigned __int128 ns;

	if (!frequency)
		return INT64_MIN;
	/* LTTng's clock counts ns: no 128-bit division for every event */
	if (frequency == UINT64_C(1000000000))
		return cycles > (uint64_t)INT64_MAX ? INT64_MIN : (int64_t)cycles;
	/* 128 bits: any clock value at any frequency, without overflow */
	ns = (unsigned __int128)cycles * UINT64_C(1000000000) / frequency;
	return ns > INT64_MAX ? INT64_MIN : (int64_t)ns;
}

int64_t ct_decoder_time(struct ct_decoder *d, const struct ct_event_class_info *info,
                        const bt_message *msg)
{
	int64_t ns;

	if (!info->frequency)
		return d->last_time;
	ns = ct_clock_ns(
	    bt_clock_snapshot_get_value(bt_message_event_borrow_default_clock_snapshot_const(msg)),
	    info->frequency);
	if (ns != INT64_MIN)
		d->last_time = ns;
	return d->last_time;
}
