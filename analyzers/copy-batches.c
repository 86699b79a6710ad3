/* SPDX-License-Identifier: MIT */
/*
 * copy-batches.c - gpu_memcpy_batch events as their records (see
 * copy-batches.h).
 */
#include <string.h>

#include "assert.h"
#include "copy-batches.h"
#include "event-schema.h"

/* The contract's name of each column, in enum ct_copy_batch_column's order. */
static const char *const column_names[CT_COPY_BATCH_COLUMNS] = {
	"correlation_id", "start", "duration", "direction", "src_kind", "dst_kind",
};

static uint64_t unsigned_member(const bt_field *payload, uint64_t index)
{
	return bt_field_integer_unsigned_get_value(
	    bt_field_structure_borrow_member_field_by_index_const(payload, index));
}

void ct_copy_batch_open(struct ct_copy_batch *batch, const struct ct_event_class_info *info,
                        const bt_event *event)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	const struct ct_field_spec *spec = ct_event_fields(CT_EV_GPU_MEMCPY_BATCH);

	CT_ASSERT(info->type == CT_EV_GPU_MEMCPY_BATCH);
	*batch = (struct ct_copy_batch){ .count = UINT64_MAX };
	/* every field is required: the class resolved only with all of them */
	for (uint8_t n = 0; n < info->field_count; n++) {
		if (!strcmp(spec[n].name, "base")) {
			batch->base = unsigned_member(payload, info->index[n]);
		} else if (!strcmp(spec[n].name, "context")) {
			batch->context = (uint32_t)unsigned_member(payload, info->index[n]);
		} else if (!strcmp(spec[n].name, "device")) {
			batch->device = (uint8_t)unsigned_member(payload, info->index[n]);
		} else {
			for (int c = 0; c < CT_COPY_BATCH_COLUMNS; c++) {
				const bt_field *f;

				if (strcmp(spec[n].name, column_names[c]))
					continue;
				CT_ASSERT(info->read[n] == CT_READ_COLUMN);
				f = bt_field_structure_borrow_member_field_by_index_const(
				    payload, info->index[n]);
				batch->column[c] = f;
				if (bt_field_array_get_length(f) < batch->count)
					batch->count = bt_field_array_get_length(f);
			}
		}
	}
	for (int c = 0; c < CT_COPY_BATCH_COLUMNS; c++)
		CT_ASSERT(batch->column[c]);
}

static uint64_t element(const struct ct_copy_batch *batch, enum ct_copy_batch_column c, uint64_t i)
{
	return bt_field_integer_unsigned_get_value(
	    bt_field_array_borrow_element_field_by_index_const(batch->column[c], i));
}

void ct_copy_batch_record(const struct ct_copy_batch *batch, uint64_t i, struct ct_event *ev)
{
	struct ct_ev_gpu_memcpy_times *t = &ev->u.gpu_memcpy_times;

	CT_ASSERT(i < batch->count);
	ev->type = CT_EV_GPU_MEMCPY_TIMES;
	/* unsigned: a damaged trace's times wrap, and the reader's checks of
	 * GPU times (an end before the start, beyond the clock) take them */
	t->start = batch->base + element(batch, CT_COPY_BATCH_START, i);
	t->end = t->start + element(batch, CT_COPY_BATCH_DURATION, i);
	t->correlation_id = (uint32_t)element(batch, CT_COPY_BATCH_CORRELATION_ID, i);
	t->context = batch->context;
	t->device = batch->device;
	t->direction = (uint8_t)element(batch, CT_COPY_BATCH_DIRECTION, i);
	t->src_kind = (uint8_t)element(batch, CT_COPY_BATCH_SRC_KIND, i);
	t->dst_kind = (uint8_t)element(batch, CT_COPY_BATCH_DST_KIND, i);
}
