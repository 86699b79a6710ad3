/* SPDX-License-Identifier: MIT */
/*
 * gpu-batch.h - the GPU records of kernels, copies and memsets whose
 * launch, memcpy or memset event is in the trace, gathered while one
 * activity buffer is read and written as gpu_batch events
 * (doc/events.md): one event for up to CT_GPU_BATCH_MAX records, instead
 * of a gpu_memcpy_times, gpu_kernel_times, gpu_kernel_shaped or
 * gpu_memset_times each, so that a record costs its
 * fields and not an event's header, contexts and reservation.
 *
 * A batch belongs to the thread reading the buffer (it lives on its
 * stack): no lock. It holds records that come one after another in the
 * buffer, of one context and device, whose start lies within 32 bits of
 * ns after its base (the first record's start), and whose duration fits
 * 32 bits; a record that does not fit the batch has it written first, and
 * one that fits no batch is written alone after it. Before any other GPU
 * event, the caller writes the batch: the trace keeps the records in
 * CUPTI's order, whose disorder the reader's reorder window is sized by.
 * A batch of one record is written as that record's own event, which is
 * smaller.
 *
 *	struct gpu_batch batch = { 0 };
 *	for each record:
 *		a recorded kernel, copy or memset: gpu_batch_add(&batch, ...), or
 *			else its whole event
 *		other: gpu_batch_write(&batch), and its event
 *	gpu_batch_write(&batch);
 */
#ifndef CUDATRACE_GPU_BATCH_H
#define CUDATRACE_GPU_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "contract/events.h"

/* What one record's own event would say (gpu_memcpy_times,
 * gpu_kernel_times, gpu_kernel_shaped or gpu_memset_times, by kind). */
struct gpu_record {
	enum ct_gpu_record kind;
	uint64_t start, end;
	uint32_t correlation_id, context;
	uint8_t device;
	union {
		struct {
			uint8_t direction, src_kind, dst_kind;
		} copy;
		struct {
			uint16_t static_shared_mem;
			uint8_t registers;
		} kernel;
		struct {
			uint32_t shape_id;
		} shaped;
	} u;
};

struct gpu_batch {
	uint16_t count;                   /* records */
	uint16_t copies, kernels, shaped; /* elements of each kind's columns */
	/* The first record as it was added: the batch's base (its start),
	 * context and device, and itself when it stays alone. */
	struct gpu_record first;
	uint8_t record[CT_GPU_BATCH_MAX];
	uint32_t correlation_id[CT_GPU_BATCH_MAX];
	uint32_t start[CT_GPU_BATCH_MAX]; /* ns after first.start */
	uint32_t duration[CT_GPU_BATCH_MAX];
	uint8_t direction[CT_GPU_BATCH_MAX];
	uint8_t src_kind[CT_GPU_BATCH_MAX];
	uint8_t dst_kind[CT_GPU_BATCH_MAX];
	uint16_t static_shared_mem[CT_GPU_BATCH_MAX];
	uint8_t registers[CT_GPU_BATCH_MAX];
	uint32_t shape_id[CT_GPU_BATCH_MAX];
};

/*
 * Adds RECORD to BATCH, written first when RECORD does not fit it. A
 * record that fits no batch (its duration, or its end before its start),
 * or every record when no session enables gpu_batch, is written alone
 * after the batch, as its own event. False when neither event is enabled:
 * the caller writes the record whole.
 */
bool gpu_batch_add(struct gpu_batch *batch, const struct gpu_record *record);

/* Writes what BATCH holds, if anything (one record as its own event, when
 * enabled), and empties it. */
void gpu_batch_write(struct gpu_batch *batch);

#endif /* CUDATRACE_GPU_BATCH_H */
