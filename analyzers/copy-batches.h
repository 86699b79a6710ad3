/* SPDX-License-Identifier: MIT */
/*
 * copy-batches.h - a gpu_memcpy_batch event (doc/events.md) read as the
 * gpu_memcpy_times records it holds, one at a time, so that everything
 * after the decoding sees a record a copy, as in a trace without batches.
 * The batch's columns are read by index, as the event decoder resolved
 * them (event-decoder.h: CT_READ_COLUMN).
 *
 *	ct_copy_batch_open(&batch, info, event);
 *	for (uint64_t i = 0; i < batch.count; i++)
 *		ct_copy_batch_record(&batch, i, &ev);
 */
#ifndef CUDATRACE_ANALYZERS_COPY_BATCHES_H
#define CUDATRACE_ANALYZERS_COPY_BATCHES_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "event-decoder.h"
#include "event.h"

enum ct_copy_batch_column {
	CT_COPY_BATCH_CORRELATION_ID,
	CT_COPY_BATCH_START,
	CT_COPY_BATCH_DURATION,
	CT_COPY_BATCH_DIRECTION,
	CT_COPY_BATCH_SRC_KIND,
	CT_COPY_BATCH_DST_KIND,
	CT_COPY_BATCH_COLUMNS,
};

struct ct_copy_batch {
	uint64_t base;
	uint32_t context;
	uint8_t device;
	/* The records: the shortest column's length (the tracer writes them
	 * alike; a damaged event's extra elements are not read). */
	uint64_t count;
	const bt_field *column[CT_COPY_BATCH_COLUMNS]; /* borrowed from the event */
};

/* Opens EVENT, a gpu_memcpy_batch whose class INFO resolved. */
void ct_copy_batch_open(struct ct_copy_batch *batch, const struct ct_event_class_info *info,
                        const bt_event *event);

/* Record I (< count) as the gpu_memcpy_times it stands for, into EV: its
 * type and payload; EV's other members are left as they are. */
void ct_copy_batch_record(const struct ct_copy_batch *batch, uint64_t i, struct ct_event *ev);

#endif
