/* SPDX-License-Identifier: MIT */
/*
 * gpu-batch.c - kernels', copies' and memsets' GPU records as gpu_batch
 * events (see gpu-batch.h).
 */
#include "emit.h"
#include "gpu-batch.h"

/* Whether RECORD can join BATCH as it is: same context and device, a
 * start the batch's base reaches in 32 bits, and room. */
static bool fits(const struct gpu_batch *batch, const struct gpu_record *record)
{
	const struct gpu_record *first = &batch->first;

	return batch->count < CT_GPU_BATCH_MAX && record->context == first->context &&
	       record->device == first->device && record->start >= first->start &&
	       record->start - first->start <= UINT32_MAX;
}

static bool write_copy(const struct gpu_record *r)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy_times))
		return false;
	lttng_ust_do_tracepoint(cudatrace, gpu_memcpy_times,
	                        &(struct ct_ev_gpu_memcpy_times){
	                            .start = r->start,
	                            .end = r->end,
	                            .correlation_id = r->correlation_id,
	                            .context = r->context,
	                            .direction = r->u.copy.direction,
	                            .src_kind = r->u.copy.src_kind,
	                            .dst_kind = r->u.copy.dst_kind,
	                            .device = r->device,
	                        });
	return true;
}

static bool write_kernel(const struct gpu_record *r)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel_times))
		return false;
	lttng_ust_do_tracepoint(cudatrace, gpu_kernel_times,
	                        &(struct ct_ev_gpu_kernel_times){
	                            .start = r->start,
	                            .end = r->end,
	                            .correlation_id = r->correlation_id,
	                            .context = r->context,
	                            .static_shared_mem = r->u.kernel.static_shared_mem,
	                            .registers = r->u.kernel.registers,
	                        });
	return true;
}

static bool write_shaped(const struct gpu_record *r)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_kernel_shaped))
		return false;
	lttng_ust_do_tracepoint(cudatrace, gpu_kernel_shaped,
	                        &(struct ct_ev_gpu_kernel_shaped){
	                            .start = r->start,
	                            .end = r->end,
	                            .correlation_id = r->correlation_id,
	                            .context = r->context,
	                            .shape_id = r->u.shaped.shape_id,
	                        });
	return true;
}

static bool write_memset(const struct gpu_record *r)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_memset_times))
		return false;
	lttng_ust_do_tracepoint(cudatrace, gpu_memset_times,
	                        &(struct ct_ev_gpu_memset_times){
	                            .start = r->start,
	                            .end = r->end,
	                            .correlation_id = r->correlation_id,
	                            .context = r->context,
	                            .device = r->device,
	                        });
	return true;
}

/* RECORD alone, as its own event; false when no session enables it. */
static bool write_alone(const struct gpu_record *record)
{
	switch (record->kind) {
	case CT_GPU_RECORD_COPY:
		return write_copy(record);
	case CT_GPU_RECORD_KERNEL:
		return write_kernel(record);
	case CT_GPU_RECORD_KERNEL_SHAPED:
		return write_shaped(record);
	case CT_GPU_RECORD_MEMSET:
		return write_memset(record);
	}
	return false;
}

/* Whether RECORD can be in a batch at all: a duration of 32 bits, and a
 * session that records batches. */
static bool batchable(const struct gpu_record *record)
{
	return record->end >= record->start && record->end - record->start <= UINT32_MAX &&
	       lttng_ust_tracepoint_enabled(cudatrace, gpu_batch);
}

/* Appends the columns only RECORD's kind has. */
static void add_own_columns(struct gpu_batch *batch, const struct gpu_record *record)
{
	uint16_t i;

	switch (record->kind) {
	case CT_GPU_RECORD_COPY:
		i = batch->copies++;
		batch->direction[i] = record->u.copy.direction;
		batch->src_kind[i] = record->u.copy.src_kind;
		batch->dst_kind[i] = record->u.copy.dst_kind;
		break;
	case CT_GPU_RECORD_KERNEL:
		i = batch->kernels++;
		batch->static_shared_mem[i] = record->u.kernel.static_shared_mem;
		batch->registers[i] = record->u.kernel.registers;
		break;
	case CT_GPU_RECORD_KERNEL_SHAPED:
		i = batch->shaped++;
		batch->shape_id[i] = record->u.shaped.shape_id;
		break;
	case CT_GPU_RECORD_MEMSET: /* none: the memset event says the rest */
		break;
	}
}

bool gpu_batch_add(struct gpu_batch *batch, const struct gpu_record *record)
{
	uint16_t i;

	if (!batchable(record)) {
		gpu_batch_write(batch);
		return write_alone(record);
	}
	if (batch->count && !fits(batch, record))
		gpu_batch_write(batch);
	if (!batch->count)
		batch->first = *record;
	i = batch->count++;
	batch->record[i] = (uint8_t)record->kind;
	batch->correlation_id[i] = record->correlation_id;
	batch->start[i] = (uint32_t)(record->start - batch->first.start);
	batch->duration[i] = (uint32_t)(record->end - record->start);
	add_own_columns(batch, record);
	return true;
}

/* BATCH's columns as its event. */
static void write_batch(const struct gpu_batch *batch)
{
	uint16_t n = batch->count;

	EMIT(gpu_batch, &(struct ct_ev_gpu_batch){
	                    .base = batch->first.start,
	                    .context = batch->first.context,
	                    .device = batch->first.device,
	                    .record = batch->record,
	                    .record_count = n,
	                    .correlation_id = batch->correlation_id,
	                    .correlation_id_count = n,
	                    .start = batch->start,
	                    .start_count = n,
	                    .duration = batch->duration,
	                    .duration_count = n,
	                    .direction = batch->direction,
	                    .direction_count = batch->copies,
	                    .src_kind = batch->src_kind,
	                    .src_kind_count = batch->copies,
	                    .dst_kind = batch->dst_kind,
	                    .dst_kind_count = batch->copies,
	                    .static_shared_mem = batch->static_shared_mem,
	                    .static_shared_mem_count = batch->kernels,
	                    .registers = batch->registers,
	                    .registers_count = batch->kernels,
	                    .shape_id = batch->shape_id,
	                    .shape_id_count = batch->shaped,
	                });
}

void gpu_batch_write(struct gpu_batch *batch)
{
	if (!batch->count)
		return;
	/* a batch of one is written as its record's own event, which is
	 * smaller (38 bytes against 60 for a copy), when that is enabled */
	if (batch->count > 1 || !write_alone(&batch->first))
		write_batch(batch);
	batch->count = batch->copies = batch->kernels = batch->shaped = 0;
}
