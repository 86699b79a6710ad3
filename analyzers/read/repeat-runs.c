/* SPDX-License-Identifier: MIT */
/*
 * repeat-runs.c - repeat_run events as their repeats (see repeat-runs.h).
 */
#include "contract/assert.h"
#include "common/event-schema.h"
#include "common/saturate.h"
#include "repeat-runs.h"

/* The fields a run reads outside its columns, after them in field_names. */
enum { FIELD_MOVED = CT_REPEAT_RUN_COLUMNS, FIELD_BASE, FIELD_TID, FIELDS };

/* The contract's name of each column, in enum ct_repeat_run_column's order, then the others. */
static const char *const field_names[FIELDS] = {
	"shape", "correlation_id", "exit", "duration", "moved", "base", "tid",
};

static uint64_t unsigned_member(const bt_field *payload, uint64_t index)
{
	return bt_field_integer_unsigned_get_value(
	    bt_field_structure_borrow_member_field_by_index_const(payload, index));
}

static uint64_t array_element(const bt_field *array, uint64_t i)
{
	return bt_field_integer_unsigned_get_value(
	    bt_field_array_borrow_element_field_by_index_const(array, i));
}

static uint64_t element(const struct ct_repeat_run *run, int c, uint64_t i)
{
	return array_element(run->column[c], i);
}

/* Value V (0: the index, 1: base, 2: src, 3: dst, 4: bytes) of moved call J. */
static uint64_t moved_value(const struct ct_repeat_run *run, uint64_t j, unsigned v)
{
	return array_element(run->moved, j * CT_REPEAT_RUN_MOVED_VALUES + v);
}

void ct_repeat_run_open(struct ct_repeat_run *run, const struct ct_event_class_info *info,
                        const bt_event *event)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	static struct ct_field_places places;
	const int8_t *roles = ct_event_field_places(&places, CT_EV_REPEAT_RUN, field_names, FIELDS);

	CT_ASSERT(info->type == CT_EV_REPEAT_RUN);
	*run = (struct ct_repeat_run){ .count = UINT64_MAX };
	/* every field but moved is required: the class resolved only with
	 * all of them */
	for (uint8_t n = 0; n < info->field_count; n++) {
		const bt_field *field;

		if (roles[n] < 0 || info->read[n] == CT_READ_NONE)
			continue;
		switch (roles[n]) {
		case FIELD_BASE:
			run->base = unsigned_member(payload, info->index[n]);
			break;
		case FIELD_TID:
			run->tid = (uint32_t)unsigned_member(payload, info->index[n]);
			break;
		case FIELD_MOVED:
			CT_ASSERT(info->read[n] == CT_READ_COLUMN);
			run->moved = bt_field_structure_borrow_member_field_by_index_const(
			    payload, info->index[n]);
			/* a damaged run's last, partial call is not read */
			run->moved_count =
			    bt_field_array_get_length(run->moved) / CT_REPEAT_RUN_MOVED_VALUES;
			break;
		default:
			CT_ASSERT(info->read[n] == CT_READ_COLUMN);
			field = bt_field_structure_borrow_member_field_by_index_const(
			    payload, info->index[n]);
			run->column[roles[n]] = field;
			if (bt_field_array_get_length(field) < run->count)
				run->count = bt_field_array_get_length(field);
			break;
		}
	}
	for (int c = 0; c < CT_REPEAT_RUN_COLUMNS; c++)
		CT_ASSERT(run->column[c]);
}

/* Whether the run's call I is the next moved one: its values then read
 * into H's repeat_moved. */
static bool next_moved(struct ct_repeat_run *run, uint64_t i, struct ct_held_event *h)
{
	uint64_t j = run->moved_next;

	/* a damaged run's indices out of order: those behind are passed */
	while (j < run->moved_count && moved_value(run, j, 0) < i)
		j++;
	run->moved_next = j;
	if (j >= run->moved_count || moved_value(run, j, 0) != i)
		return false;
	h->u.repeat_moved.base = moved_value(run, j, 1);
	h->u.repeat_moved.src = moved_value(run, j, 2);
	h->u.repeat_moved.dst = moved_value(run, j, 3);
	h->u.repeat_moved.bytes = moved_value(run, j, 4);
	run->moved_next = j + 1;
	return true;
}

bool ct_repeat_run_next(struct ct_repeat_run *run, struct ct_held_event *h)
{
	uint64_t exit, shape;
	uint32_t correlation_id, entry_low;

	if (run->next >= run->count)
		return false;
	exit = ct_sat_add_u64(run->base, element(run, CT_REPEAT_RUN_EXIT, run->next));
	shape = element(run, CT_REPEAT_RUN_SHAPE, run->next);
	correlation_id = (uint32_t)element(run, CT_REPEAT_RUN_CORRELATION_ID, run->next);
	/* the low bits of its entry, as a repeat of its own would say */
	entry_low = (uint32_t)(exit - element(run, CT_REPEAT_RUN_DURATION, run->next));
	if (next_moved(run, run->next, h)) {
		/* its shape is 0, which names no event */
		h->type = CT_EV_REPEAT_MOVED;
		h->u.repeat_moved.correlation_id = correlation_id;
		h->u.repeat_moved.entry_low = entry_low;
	} else {
		h->type = CT_EV_REPEAT;
		h->u.repeat = (struct ct_ev_repeat){ .shape = shape,
			                             .correlation_id = correlation_id,
			                             .entry_low = entry_low };
	}
	h->time_ns = ct_sat_i64(exit);
	run->next++;
	return true;
}
