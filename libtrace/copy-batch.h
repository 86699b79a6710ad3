/* SPDX-License-Identifier: MIT */
/*
 * copy-batch.h - the GPU times of copies whose memcpy event is in the
 * trace, gathered while one activity buffer is read and written as
 * gpu_memcpy_batch events (doc/events.md): one event for up to
 * CT_GPU_BATCH_MAX copies, instead of a gpu_memcpy_times each, so that a
 * copy's record costs its fields and not an event's header, contexts and
 * reservation.
 *
 * A batch belongs to the thread reading the buffer (it lives on its
 * stack): no lock. It holds copies that come one after another in the
 * buffer, of one context and device, whose start lies within 32 bits of
 * ns after its base (the first copy's start), and whose duration fits 32
 * bits; a copy that does not fit the batch has it written first, and a
 * copy that fits no batch is written alone after it. Before any other GPU
 * event, the caller writes the batch: the trace keeps the records in
 * CUPTI's order, whose disorder the reader's reorder window is sized by.
 * A batch of one copy is written as its gpu_memcpy_times, which is
 * smaller.
 *
 *	struct copy_batch batch = { 0 };
 *	for each record:
 *		a copy: copy_batch_add(&batch, ...), or else its whole event
 *		other: copy_batch_write(&batch), and its event
 *	copy_batch_write(&batch);
 */
#ifndef CUDATRACE_COPY_BATCH_H
#define CUDATRACE_COPY_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "contract/events.h"

struct copy_batch {
	uint16_t count;
	uint8_t device;
	uint32_t context;
	uint64_t base;
	uint32_t correlation_id[CT_GPU_BATCH_MAX];
	uint32_t start[CT_GPU_BATCH_MAX]; /* ns after base */
	uint32_t duration[CT_GPU_BATCH_MAX];
	uint8_t direction[CT_GPU_BATCH_MAX];
	uint8_t src_kind[CT_GPU_BATCH_MAX];
	uint8_t dst_kind[CT_GPU_BATCH_MAX];
};

/* What a copy's gpu_memcpy_times would say. */
struct copy_times {
	uint64_t start, end;
	uint32_t correlation_id, context;
	uint8_t direction, src_kind, dst_kind, device;
};

/*
 * Adds COPY to BATCH, written first when COPY does not fit it. A copy that
 * fits no batch (its duration, or its end before its start), or every
 * copy when no session enables gpu_memcpy_batch, is written alone after
 * the batch, as its gpu_memcpy_times. False when neither event is
 * enabled: the caller writes the copy's record whole.
 */
bool copy_batch_add(struct copy_batch *batch, const struct copy_times *copy);

/* Writes what BATCH holds, if anything (one copy as its
 * gpu_memcpy_times, when enabled), and empties it. */
void copy_batch_write(struct copy_batch *batch);

#endif /* CUDATRACE_COPY_BATCH_H */
