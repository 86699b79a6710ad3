/* SPDX-License-Identifier: MIT */
/*
 * gpu-batches.c - gpu_batch events as their records (see gpu-batches.h).
 */
#include "contract/assert.h"
#include "common/event-schema.h"
#include "gpu-batches.h"

/* The fields a batch reads outside its columns, after them in field_names. */
enum { FIELD_BASE = CT_GPU_BATCH_COLUMNS, FIELD_CONTEXT, FIELD_DEVICE, FIELDS };

/* The contract's name of each column, in enum ct_gpu_batch_column's order, then the others. */
static const char *const field_names[FIELDS] = {
	"record",   "correlation_id",    "start",     "duration", "direction", "src_kind",
	"dst_kind", "static_shared_mem", "registers", "shape_id", "base",      "context",
	"device",
};

/* The record kind whose records each column has an element for; -1: all. */
static const int column_kind[CT_GPU_BATCH_COLUMNS] = {
	-1,
	-1,
	-1,
	-1,
	CT_GPU_RECORD_COPY,
	CT_GPU_RECORD_COPY,
	CT_GPU_RECORD_COPY,
	CT_GPU_RECORD_KERNEL,
	CT_GPU_RECORD_KERNEL,
	CT_GPU_RECORD_KERNEL_SHAPED,
};

static uint64_t unsigned_member(const bt_field *payload, uint64_t index)
{
	return bt_field_integer_unsigned_get_value(
	    bt_field_structure_borrow_member_field_by_index_const(payload, index));
}

/* Column C is FIELD: each count is the shortest of its columns'. */
static void open_column(struct ct_gpu_batch *batch, int c, const bt_field *field)
{
	uint64_t length = bt_field_array_get_length(field);
	uint64_t *shortest =
	    column_kind[c] < 0 ? &batch->count : &batch->kind_length[column_kind[c]];

	batch->column[c] = field;
	if (length < *shortest)
		*shortest = length;
}

void ct_gpu_batch_open(struct ct_gpu_batch *batch, const struct ct_event_class_info *info,
                       const bt_event *event)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	static struct ct_field_places places;
	const int8_t *roles = ct_event_field_places(&places, CT_EV_GPU_BATCH, field_names, FIELDS);

	CT_ASSERT(info->type == CT_EV_GPU_BATCH);
	*batch = (struct ct_gpu_batch){ .count = UINT64_MAX, .wanted = info->batch_decode };
	for (int k = 0; k < CT_ENUM_COUNT(gpu_record); k++)
		batch->kind_length[k] = UINT64_MAX;
	/* every field is required: the class resolved only with all of them */
	for (uint8_t n = 0; n < info->field_count; n++) {
		switch (roles[n]) {
		case FIELD_BASE:
			batch->base = unsigned_member(payload, info->index[n]);
			break;
		case FIELD_CONTEXT:
			batch->context = (uint32_t)unsigned_member(payload, info->index[n]);
			break;
		case FIELD_DEVICE:
			batch->device = (uint8_t)unsigned_member(payload, info->index[n]);
			break;
		case -1:
			break;
		default:
			CT_ASSERT(info->read[n] == CT_READ_COLUMN);
			open_column(batch, roles[n],
			            bt_field_structure_borrow_member_field_by_index_const(
			                payload, info->index[n]));
			break;
		}
	}
	for (int c = 0; c < CT_GPU_BATCH_COLUMNS; c++)
		CT_ASSERT(batch->column[c]);
}

static uint64_t element(const struct ct_gpu_batch *batch, enum ct_gpu_batch_column c, uint64_t i)
{
	return bt_field_integer_unsigned_get_value(
	    bt_field_array_borrow_element_field_by_index_const(batch->column[c], i));
}

/* The event each record kind stands for. */
static const enum ct_event_type kind_event[CT_ENUM_COUNT(gpu_record)] = {
	[CT_GPU_RECORD_COPY] = CT_EV_GPU_MEMCPY_TIMES,
	[CT_GPU_RECORD_KERNEL] = CT_EV_GPU_KERNEL_TIMES,
	[CT_GPU_RECORD_KERNEL_SHAPED] = CT_EV_GPU_KERNEL_SHAPED,
	[CT_GPU_RECORD_MEMSET] = CT_EV_GPU_MEMSET_TIMES,
};

/* What every record has: its times, id and the batch's context. */
struct common {
	uint64_t start, end;
	uint32_t correlation_id, context;
};

/* Record C of kind K, the J-th of its kind, into H's payload. */
static void read_record(const struct ct_gpu_batch *batch, enum ct_gpu_record k, uint64_t j,
                        struct common c, struct ct_held_event *h)
{
	switch (k) {
	case CT_GPU_RECORD_COPY:
		h->u.gpu_memcpy_times = (struct ct_ev_gpu_memcpy_times){
			.start = c.start,
			.end = c.end,
			.correlation_id = c.correlation_id,
			.context = c.context,
			.direction = (uint8_t)element(batch, CT_GPU_BATCH_DIRECTION, j),
			.src_kind = (uint8_t)element(batch, CT_GPU_BATCH_SRC_KIND, j),
			.dst_kind = (uint8_t)element(batch, CT_GPU_BATCH_DST_KIND, j),
			.device = batch->device,
		};
		break;
	case CT_GPU_RECORD_KERNEL:
		h->u.gpu_kernel_times = (struct ct_ev_gpu_kernel_times){
			.start = c.start,
			.end = c.end,
			.correlation_id = c.correlation_id,
			.context = c.context,
			.static_shared_mem =
			    (uint16_t)element(batch, CT_GPU_BATCH_STATIC_SHARED_MEM, j),
			.registers = (uint8_t)element(batch, CT_GPU_BATCH_REGISTERS, j),
		};
		break;
	case CT_GPU_RECORD_KERNEL_SHAPED:
		h->u.gpu_kernel_shaped = (struct ct_ev_gpu_kernel_shaped){
			.start = c.start,
			.end = c.end,
			.correlation_id = c.correlation_id,
			.context = c.context,
			.shape_id = (uint32_t)element(batch, CT_GPU_BATCH_SHAPE_ID, j),
		};
		break;
	case CT_GPU_RECORD_MEMSET:
		h->u.gpu_memset_times = (struct ct_ev_gpu_memset_times){
			.start = c.start,
			.end = c.end,
			.correlation_id = c.correlation_id,
			.context = c.context,
			.device = batch->device,
		};
		break;
	}
}

bool ct_gpu_batch_next(struct ct_gpu_batch *batch, struct ct_held_event *h)
{
	while (batch->next < batch->count) {
		uint64_t i = batch->next++;
		uint64_t k = element(batch, CT_GPU_BATCH_RECORD, i);
		struct common c;
		uint64_t j;

		if (k >= CT_ENUM_COUNT(gpu_record))
			continue;
		if (batch->kind_read[k] >= batch->kind_length[k]) {
			batch->next = batch->count;
			return false;
		}
		j = batch->kind_read[k]++;
		if (!(batch->wanted & CT_EV_BIT(kind_event[k])))
			continue;
		/* unsigned: a damaged trace's times wrap, and the reader's
		 * checks of GPU times (an end before the start, beyond the
		 * clock) take them */
		c.start = batch->base + element(batch, CT_GPU_BATCH_START, i);
		c.end = c.start + element(batch, CT_GPU_BATCH_DURATION, i);
		c.correlation_id = (uint32_t)element(batch, CT_GPU_BATCH_CORRELATION_ID, i);
		c.context = batch->context;
		h->type = kind_event[k];
		read_record(batch, (enum ct_gpu_record)k, j, c, h);
		return true;
	}
	return false;
}
