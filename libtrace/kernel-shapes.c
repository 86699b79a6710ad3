/* SPDX-License-Identifier: MIT */
/*
 * kernel-shapes.c - kernel_shape events (see kernel-shapes.h).
 *
 * The shapes are kept in a table keyed by a hash of their fields, each
 * with its id and when its event was last written (CLOCK_MONOTONIC ns,
 * the clock of CUPTI's times: a record that started a second after it
 * writes it again). A record of a shape written recently reads the table
 * without a lock; one that must write its shape (new, a second old, or
 * older than a session's start) takes the table's lock, which only
 * CUPTI's buffer threads take, writes the event, and then marks it
 * written: a record that finds it written comes after its event.
 */
#include "clock.h"
#include "contract/mix64.h"
#include "cudatrace-tp.h"
#include "field-values.h"
#include "kernel-shapes.h"
#include "table.h"

/* Distinct streams and configurations a process runs kernels with: tens
 * to thousands. */
#define SHAPES_MAX 8192
/* How long a written shape counts as in the trace, ns. */
#define SHAPES_AGAIN_NS 1000000000ULL

/* Key: the hash of a shape's fields (shape_key); value: its id, and
 * when its event was last written (0: never). */
enum { SHAPE_ID, SHAPE_WRITTEN, SHAPE_WORDS };
static struct table shapes = TABLE_INIT(SHAPE_WORDS, SHAPES_MAX);
/* The last id given; under the table's lock. */
static uint32_t last_id;
/* When a session last started (CLOCK_MONOTONIC ns): shapes written before are written again. */
static uint64_t announced_ns;

/* The hash of a shape's fields, packed in four words (every field
 * whole), never 0 (a table's empty key). */
static uint64_t shape_key(const struct ct_ev_kernel_shape *s)
{
	uint64_t grid =
	    (uint64_t)(uint32_t)s->grid_x | (uint64_t)s->grid_y << 32 | (uint64_t)s->grid_z << 48;
	uint64_t block = (uint64_t)s->block_x | (uint64_t)s->block_y << 16 |
	                 (uint64_t)s->block_z << 32 | (uint64_t)s->static_shared_mem << 48;
	uint64_t rest = (uint64_t)s->dynamic_shared_mem | (uint64_t)s->registers << 32;
	uint64_t h = ct_mix64(grid ^ ct_mix64(block ^ ct_mix64(rest ^ ct_mix64(s->stream))));

	return h ? h : 1;
}

void kernel_shape_of(const ct_kernel_record *k, struct ct_ev_kernel_shape *shape)
{
	*shape = (struct ct_ev_kernel_shape){
		.stream = k->streamId,
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

/* A shape written at WRITTEN still stands for a record that starts at
 * START (or before it: records come late, and out of order). */
static bool still_written(uint64_t written, uint64_t start)
{
	return written && (int64_t)(start - written) < (int64_t)SHAPES_AGAIN_NS &&
	       written >= __atomic_load_n(&announced_ns, __ATOMIC_RELAXED);
}

/* Under the lock: the id of shape E (KEY), its event written unless it
 * still stands for a record starting at START; 0 when the table is full.
 * *WRITTEN: when its event was last written. */
static uint32_t write_shape(struct ct_ev_kernel_shape *e, uint64_t key, uint64_t start,
                            uint64_t *written)
{
	uint64_t value[SHAPE_WORDS];

	if (!table_find(&shapes, key, NULL, NULL, value)) {
		if (last_id == UINT32_MAX)
			return 0;
		value[SHAPE_ID] = last_id + 1;
		value[SHAPE_WRITTEN] = 0;
		if (!table_add(&shapes, key, value))
			return 0;
		last_id++;
	}
	e->shape_id = (uint32_t)value[SHAPE_ID];
	*written = value[SHAPE_WRITTEN];
	if (still_written(value[SHAPE_WRITTEN], start))
		return e->shape_id;
	lttng_ust_do_tracepoint(cudatrace, kernel_shape, e);
	value[SHAPE_WRITTEN] = clock_now_ns();
	table_replace(&shapes, key, NULL, NULL, value);
	*written = value[SHAPE_WRITTEN];
	return e->shape_id;
}

/* Whether MEMO holds K's shape: the same fields, as CUPTI wrote them. */
static bool memo_holds(const struct kernel_shape_memo *memo, const ct_kernel_record *k)
{
	return memo->shape_id != 0 && memo->stream == k->streamId && memo->grid[0] == k->gridX &&
	       memo->grid[1] == k->gridY && memo->grid[2] == k->gridZ &&
	       memo->block[0] == k->blockX && memo->block[1] == k->blockY &&
	       memo->block[2] == k->blockZ && memo->static_shared_mem == k->staticSharedMemory &&
	       memo->dynamic_shared_mem == k->dynamicSharedMemory &&
	       memo->registers == k->registersPerThread;
}

static void memo_keep(struct kernel_shape_memo *memo, const ct_kernel_record *k, uint32_t id,
                      uint64_t written)
{
	*memo = (struct kernel_shape_memo){
		.shape_id = id,
		.stream = k->streamId,
		.grid = { k->gridX, k->gridY, k->gridZ },
		.block = { k->blockX, k->blockY, k->blockZ },
		.static_shared_mem = k->staticSharedMemory,
		.dynamic_shared_mem = k->dynamicSharedMemory,
		.registers = k->registersPerThread,
		.written = written,
	};
}

/* K's shape id from the table, its event written when the rules say so,
 * and MEMO (or NULL) filled. Kept out of kernel_shapes_note: a loop's
 * record finds its shape in the memo, and pays neither this call nor the
 * registers it saves. */
static __attribute__((noinline)) uint32_t note_in_table(const ct_kernel_record *k,
                                                        struct kernel_shape_memo *memo)
{
	struct ct_ev_kernel_shape e;
	uint64_t value[SHAPE_WORDS];
	uint64_t key;
	uint64_t written = 0;
	uint32_t id;

	kernel_shape_of(k, &e);
	key = shape_key(&e);
	if (table_read(&shapes, key, NULL, NULL, value) &&
	    still_written(value[SHAPE_WRITTEN], k->start)) {
		id = (uint32_t)value[SHAPE_ID];
		written = value[SHAPE_WRITTEN];
	} else {
		table_lock(&shapes);
		id = write_shape(&e, key, k->start, &written);
		table_unlock(&shapes);
	}
	if (memo && id)
		memo_keep(memo, k, id, written);
	return id;
}

uint32_t kernel_shapes_note(const ct_kernel_record *k, struct kernel_shape_memo *memo)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, kernel_shape))
		return 0;
	if (memo && memo_holds(memo, k) && still_written(memo->written, k->start))
		return memo->shape_id;
	return note_in_table(k, memo);
}

void kernel_shapes_announce_again(void)
{
	__atomic_store_n(&announced_ns, clock_now_ns(), __ATOMIC_RELAXED);
}
