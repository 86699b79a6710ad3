/* SPDX-License-Identifier: MIT */
/*
 * copy-batch.c - copies' GPU times as gpu_memcpy_batch events (see
 * copy-batch.h).
 */
#include "copy-batch.h"
#include "emit.h"

/* Whether COPY can join BATCH as it is: same context and device, a
 * start the batch's base reaches in 32 bits, and room. */
static bool fits(const struct copy_batch *batch, const struct copy_times *copy)
{
	return batch->count < CT_GPU_BATCH_MAX && copy->context == batch->context &&
	       copy->device == batch->device && copy->start >= batch->base &&
	       copy->start - batch->base <= UINT32_MAX;
}

bool copy_batch_add(struct copy_batch *batch, const struct copy_times *copy)
{
	uint16_t i;

	if (copy->end < copy->start || copy->end - copy->start > UINT32_MAX ||
	    !lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy_batch))
		return false;
	if (batch->count && !fits(batch, copy))
		copy_batch_write(batch);
	if (!batch->count) {
		batch->base = copy->start;
		batch->context = copy->context;
		batch->device = copy->device;
	}
	i = batch->count++;
	batch->correlation_id[i] = copy->correlation_id;
	batch->start[i] = (uint32_t)(copy->start - batch->base);
	batch->duration[i] = (uint32_t)(copy->end - copy->start);
	batch->direction[i] = copy->direction;
	batch->src_kind[i] = copy->src_kind;
	batch->dst_kind[i] = copy->dst_kind;
	return true;
}

/* A batch of one: its gpu_memcpy_times (38 bytes, a batch of one 50). */
static void write_alone(const struct copy_batch *batch)
{
	EMIT(gpu_memcpy_times, &(struct ct_ev_gpu_memcpy_times){
	                           .start = batch->base + batch->start[0],
	                           .end = batch->base + batch->start[0] + batch->duration[0],
	                           .correlation_id = batch->correlation_id[0],
	                           .context = batch->context,
	                           .direction = batch->direction[0],
	                           .src_kind = batch->src_kind[0],
	                           .dst_kind = batch->dst_kind[0],
	                           .device = batch->device,
	                       });
}

void copy_batch_write(struct copy_batch *batch)
{
	uint16_t n = batch->count;

	if (!n)
		return;
	batch->count = 0;
	if (n == 1 && lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy_times)) {
		write_alone(batch);
		return;
	}
	EMIT(gpu_memcpy_batch, &(struct ct_ev_gpu_memcpy_batch){
	                           .base = batch->base,
	                           .context = batch->context,
	                           .device = batch->device,
	                           .correlation_id = batch->correlation_id,
	                           .correlation_id_count = n,
	                           .start = batch->start,
	                           .start_count = n,
	                           .duration = batch->duration,
	                           .duration_count = n,
	                           .direction = batch->direction,
	                           .direction_count = n,
	                           .src_kind = batch->src_kind,
	                           .src_kind_count = n,
	                           .dst_kind = batch->dst_kind,
	                           .dst_kind_count = n,
	                       });
}
