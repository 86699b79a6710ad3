/* SPDX-License-Identifier: MIT */
/*
 * gpu-batches.h - a gpu_batch event (doc/events.md) read as the records
 * it holds, one at a time, each as the gpu_memcpy_times, gpu_kernel_times,
 * gpu_kernel_shaped or gpu_memset_times it stands for: everything after
 * the decoding sees a record an operation, as in a trace without
 * batches. The batch's columns are read by index, as the event decoder
 * resolved them (event-decoder.h: CT_READ_COLUMN).
 *
 *	ct_gpu_batch_open(&batch, info, event);
 *	while (ct_gpu_batch_next(&batch, &held))
 *		...
 */
#ifndef CUDATRACE_ANALYZERS_GPU_BATCHES_H
#define CUDATRACE_ANALYZERS_GPU_BATCHES_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "event-decoder.h"
#include "held-event.h"

enum ct_gpu_batch_column {
	/* one element a record */
	CT_GPU_BATCH_RECORD,
	CT_GPU_BATCH_CORRELATION_ID,
	CT_GPU_BATCH_START,
	CT_GPU_BATCH_DURATION,
	/* one element a copy */
	CT_GPU_BATCH_DIRECTION,
	CT_GPU_BATCH_SRC_KIND,
	CT_GPU_BATCH_DST_KIND,
	/* one element a kernel */
	CT_GPU_BATCH_STATIC_SHARED_MEM,
	CT_GPU_BATCH_REGISTERS,
	/* one element a shaped kernel */
	CT_GPU_BATCH_SHAPE_ID,
	CT_GPU_BATCH_COLUMNS,
};

struct ct_gpu_batch {
	uint64_t base;
	uint32_t context;
	uint8_t device;
	/* The records: the shortest of the record-wide columns (the tracer
	 * writes them alike; a damaged event's extra elements are not read). */
	uint64_t count;
	uint64_t next;    /* the record ct_gpu_batch_next reads */
	ct_ev_set wanted; /* the event types of the records read (CT_EV_BIT) */
	/* Of each record kind (enum ct_gpu_record): the elements its columns
	 * have (the shortest), and those read. */
	uint64_t kind_length[CT_ENUM_COUNT(gpu_record)];
	uint64_t kind_read[CT_ENUM_COUNT(gpu_record)];
	const bt_field *column[CT_GPU_BATCH_COLUMNS]; /* borrowed from the event */
};

/* Opens EVENT, a gpu_batch whose class INFO resolved. */
void ct_gpu_batch_open(struct ct_gpu_batch *batch, const struct ct_event_class_info *info,
                       const bt_event *event);

/*
 * The next record as the event it stands for, into H: its type and
 * payload; its time is the caller's (the batch's). False after the last
 * record, or at one whose columns are short (a damaged event: the rest is
 * not read). A record of a kind this reader does not know is skipped, and
 * so is one whose event the class's reader does not decode (its
 * batch_decode): its host event may not be decoded either.
 */
bool ct_gpu_batch_next(struct ct_gpu_batch *batch, struct ct_held_event *h);

#endif
