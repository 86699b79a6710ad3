/* SPDX-License-Identifier: MIT */
/*
 * kernel-shapes.c - kernel_shape events (see kernel-shapes.h).
 *
 * As names.c does for kernel names: a shape counts as written only if its
 * event was enabled when emitted, the shapes written are claimed in a set,
 * and when the set is full shapes are written again rather than lost.
 * Unlike a name, a shape must be in the trace before the first record
 * that names it, or the reader cannot complete the record: so a shape is
 * claimed only after its event is written, under a lock that writers of a
 * new shape take (a record of a shape already written takes none). Only
 * CUPTI's buffer threads take it, never a thread of the program.
 */
#include <pthread.h>

#include "clock.h"
#include "contract/mix64.h"
#include "cudatrace-tp.h"
#include "field-values.h"
#include "kernel-shapes.h"
#include "table.h"

/* Distinct configurations a process runs kernels with: tens to thousands. */
#define SHAPE_SLOTS  8192
#define SHAPE_PROBES 32

TABLE_FIXED(shapes_written, SHAPE_SLOTS);
static pthread_mutex_t shapes_lock = PTHREAD_MUTEX_INITIALIZER;

/* The shape's id: a hash of its fields, packed in three words (every
 * field whole), never 0 (a claim's empty key). */
static uint64_t shape_id(const struct ct_ev_kernel_shape *s)
{
	uint64_t grid =
	    (uint64_t)(uint32_t)s->grid_x | (uint64_t)s->grid_y << 32 | (uint64_t)s->grid_z << 48;
	uint64_t block = (uint64_t)s->block_x | (uint64_t)s->block_y << 16 |
	                 (uint64_t)s->block_z << 32 | (uint64_t)s->static_shared_mem << 48;
	uint64_t rest = (uint64_t)s->dynamic_shared_mem | (uint64_t)s->registers << 32;
	uint64_t h = ct_mix64(grid ^ ct_mix64(block ^ ct_mix64(rest ^ 0x6b65726e656c73ULL)));

	return h ? h : 1;
}

void kernel_shape_of(const CUpti_ActivityKernel10 *k, struct ct_ev_kernel_shape *shape)
{
	*shape = (struct ct_ev_kernel_shape){
		.grid_x = k->gridX,
		.grid_y = u16_sat((uint32_t)k->gridY),
		.grid_z = u16_sat((uint32_t)k->gridZ),
		.block_x = u16_sat((uint32_t)k->blockX),
		.block_y = u16_sat((uint32_t)k->blockY),
		.block_z = u16_sat((uint32_t)k->blockZ),
		.static_shared_mem = u16_sat(k->staticSharedMemory),
		.dynamic_shared_mem = (uint32_t)k->dynamicSharedMemory,
		.registers = u8_sat(k->registersPerThread),
	};
}

uint64_t kernel_shapes_note(const CUpti_ActivityKernel10 *k)
{
	struct ct_ev_kernel_shape e;

	if (!lttng_ust_tracepoint_enabled(cudatrace, kernel_shape))
		return 0;
	kernel_shape_of(k, &e);
	e.shape_id = shape_id(&e);
	/* a shape is claimed only once its event is written: one seen is out */
	if (table_contains(&shapes_written, e.shape_id, SHAPE_PROBES))
		return e.shape_id;
	pthread_mutex_lock(&shapes_lock);
	if (!table_contains(&shapes_written, e.shape_id, SHAPE_PROBES)) {
		lttng_ust_do_tracepoint(cudatrace, kernel_shape, &e);
		table_claim(&shapes_written, e.shape_id, SHAPE_PROBES);
	}
	pthread_mutex_unlock(&shapes_lock);
	return e.shape_id;
}

void kernel_shapes_announce_again(void)
{
	table_clear(&shapes_written);
}

/* How long a written shape counts as in the trace. */
#define SHAPES_AGAIN_NS 1000000000ULL

/* When the shapes were last forgotten (CLOCK_MONOTONIC ns); the watch's thread's. */
static uint64_t forgotten_at;

void kernel_shapes_follow(void)
{
	uint64_t ns;

	if (!lttng_ust_tracepoint_enabled(cudatrace, kernel_shape))
		return;
	ns = clock_now_ns();
	if (ns - forgotten_at < SHAPES_AGAIN_NS)
		return;
	forgotten_at = ns;
	kernel_shapes_announce_again();
}
