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

/* COPY alone, as its gpu_memcpy_times; false when no session enables it. */
static bool write_times(const struct copy_times *copy)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy_times))
		return false;
	lttng_ust_do_tracepoint(cudatrace, gpu_memcpy_times,
	                        &(struct ct_ev_gpu_memcpy_times){
	                            .start = copy->start,
	                            .end = copy->end,
	                            .correlation_id = copy->correlation_id,
	                            .context = copy->context,
	                            .direction = copy->direction,
	                            .src_kind = copy->src_kind,
	                            .dst_kind = copy->dst_kind,
	                            .device = copy->device,
	                        });
	return true;
}

/* Whether COPY can be in a batch at all: a duration of 32 bits, and a
 * session that records batches. */
static bool batchable(const struct copy_times *copy)
{
	return copy->end >= copy->start && copy->end - copy->start <= UINT32_MAX &&
	       lttng_ust_tracepoint_enabled(cudatrace, gpu_memcpy_batch);
}

bool copy_batch_add(struct copy_batch *batch, const struct copy_times *copy)
{
	uint16_t i;

	if (!batchable(copy)) {
		copy_batch_write(batch);
		return write_times(copy);
	}
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

/* The copy in slot I of BATCH, as copy_batch_add was given it. */
static struct copy_times copy_at(const struct copy_batch *batch, uint16_t i)
{
	uint64_t start = batch->base + batch->start[i];

	return (struct copy_times){
		.start = start,
		.end = start + batch->duration[i],
		.correlation_id = batch->correlation_id[i],
		.context = batch->context,
		.direction = batch->direction[i],
		.src_kind = batch->src_kind[i],
		.dst_kind = batch->dst_kind[i],
		.device = batch->device,
	};
}

void copy_batch_write(struct copy_batch *batch)
{
	uint16_t n = batch->count;

	if (!n)
		return;
	batch->count = 0;
	/* a batch of one: its gpu_memcpy_times is smaller (38 bytes against 50) */
	if (n == 1) {
		struct copy_times copy = copy_at(batch, 0);

		if (write_times(&copy))
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
