/* SPDX-License-Identifier: MIT */
/*
 * ust-statedump.c - lttng-ust's statedump events read (see
 * ust-statedump.h). Field names are those of lttng-ust 2.13's
 * lttng-ust-statedump-provider.h.
 */
#include <string.h>

#include "ust-statedump.h"

enum ct_ust_statedump ct_ust_statedump_kind(const char *name)
{
	if (!name)
		return CT_UST_STATEDUMP_NONE;
	if (!strcmp(name, "lttng_ust_statedump:bin_info"))
		return CT_UST_STATEDUMP_BIN_INFO;
	if (!strcmp(name, "lttng_ust_statedump:build_id"))
		return CT_UST_STATEDUMP_BUILD_ID;
	if (!strcmp(name, "lttng_ust_statedump:procname"))
		return CT_UST_STATEDUMP_PROCNAME;
	return CT_UST_STATEDUMP_NONE;
}

/* Payload member NAME of type TYPE (a kind bt_field_class_type_is accepts), or NULL. */
static const bt_field *member(const bt_field *payload, const char *name, bt_field_class_type type)
{
	const bt_field *f = bt_field_structure_borrow_member_field_by_name_const(payload, name);

	return f && bt_field_class_type_is(bt_field_get_class_type(f), type) ? f : NULL;
}

static bool read_bin_info(const bt_field *payload, GStringChunk *strings,
                          struct ct_ust_statedump_record *rec)
{
	const bt_field *baddr = member(payload, "baddr", BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER);
	const bt_field *memsz = member(payload, "memsz", BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER);
	const bt_field *path = member(payload, "path", BT_FIELD_CLASS_TYPE_STRING);

	if (!baddr || !memsz || !path)
		return false;
	rec->baddr = bt_field_integer_unsigned_get_value(baddr);
	rec->memsz = bt_field_integer_unsigned_get_value(memsz);
	rec->path = g_string_chunk_insert(
	    strings, bt_field_string_get_length(path) ? bt_field_string_get_value(path) : "");
	return true;
}

static bool read_procname(const bt_field *payload, GStringChunk *strings,
                          struct ct_ust_statedump_record *rec)
{
	const bt_field *name = member(payload, "procname", BT_FIELD_CLASS_TYPE_STRING);

	if (!name || !bt_field_string_get_length(name))
		return false;
	rec->procname = g_string_chunk_insert(strings, bt_field_string_get_value(name));
	return true;
}

static bool read_build_id(const bt_field *payload, struct ct_ust_statedump_record *rec)
{
	const bt_field *baddr = member(payload, "baddr", BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER);
	const bt_field *id = member(payload, "build_id", BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY);
	uint64_t n;

	if (!baddr || !id)
		return false;
	n = bt_field_array_get_length(id);
	if (n == 0 || n > CT_UST_BUILD_ID_MAX)
		return false;
	for (uint64_t i = 0; i < n; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(id, i);

		if (!bt_field_class_type_is(bt_field_get_class_type(e),
		                            BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			return false;
		rec->build_id[i] = (uint8_t)bt_field_integer_unsigned_get_value(e);
	}
	rec->baddr = bt_field_integer_unsigned_get_value(baddr);
	rec->build_id_len = (uint8_t)n;
	return true;
}

bool ct_ust_statedump_decode(enum ct_ust_statedump kind, const bt_event *event,
                             GStringChunk *strings, struct ct_ust_statedump_record *rec)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(event);

	rec->kind = kind;
	if (!payload || bt_field_get_class_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return false;
	if (kind == CT_UST_STATEDUMP_BIN_INFO)
		return read_bin_info(payload, strings, rec);
	if (kind == CT_UST_STATEDUMP_BUILD_ID)
		return read_build_id(payload, rec);
	if (kind == CT_UST_STATEDUMP_PROCNAME)
		return read_procname(payload, strings, rec);
	return false;
}

void ct_ust_statedump_apply(const struct ct_ust_statedump_record *rec, struct ct_context *ctx)
{
	struct ct_call_stacks *cs = ct_context_call_stacks(ctx);
	struct ct_process *p = ct_context_statedump_process(ctx, rec->hostname, rec->pid);

	if (rec->kind == CT_UST_STATEDUMP_BIN_INFO)
		ct_call_stacks_add_object(cs, p, rec->baddr, rec->memsz, rec->path);
	else if (rec->kind == CT_UST_STATEDUMP_BUILD_ID)
		ct_call_stacks_set_build_id(cs, p, rec->baddr, rec->build_id, rec->build_id_len);
	else if (rec->kind == CT_UST_STATEDUMP_PROCNAME)
		ct_process_name(p, rec->procname, true);
}
