/* SPDX-License-Identifier: MIT */
/*
 * kernel-shapes.h - kernel_shape events: the GPU record of a kernel whose
 * launch_unconfigured was written names its stream and configuration
 * (grid, block, shared memory, registers: 25 bytes and 10 fields) by a
 * shape_id instead of repeating them (gpu_kernel_shaped, doc/events.md).
 * Called on CUPTI's buffer threads.
 *
 * A shape's id is the process's number for it, from 1, kept with it for
 * the process's life and never given to another: a reader that lost a
 * kernel_shape finds no shape for the id (the record is unmatched), never
 * another one. Its kernel_shape is written before the first record that
 * names it, again before the first record a second after it last was (a
 * shape LTTng discarded, or that a flight recorder's ring overwrote, then
 * costs at most a second of its runs, counted by the reader as unmatched
 * records), and again after a session starts (kernel_shapes_announce_again).
 */
#ifndef CUDATRACE_KERNEL_SHAPES_H
#define CUDATRACE_KERNEL_SHAPES_H

#include <stdint.h>

#include "cudatrace-tp.h"
#include "cupti-compat.h"

/* K's stream and configuration as the events write them (saturated to
 * their fields), shape_id left 0. */
void kernel_shape_of(const ct_kernel_record *k, struct ct_ev_kernel_shape *shape);

/*
 * The last shape one reader of records noted, and when its event was
 * written: a loop's kernels share their shape, and finding it here costs
 * a comparison of the record's own fields (as CUPTI wrote them) instead
 * of a conversion, a hash and a look in the table. Zeroed: none.
 */
struct kernel_shape_memo {
	uint32_t shape_id; /* 0: none */
	uint32_t stream;
	int32_t grid[3], block[3];
	int32_t static_shared_mem, dynamic_shared_mem;
	uint16_t registers;
	uint64_t written;
};

/*
 * The shape_id of K's stream and configuration, its kernel_shape written
 * first when the rules above say so; 0 when no session enables
 * kernel_shape, or the process has as many shapes as it keeps (the record
 * is then written whole). MEMO (or NULL) is the caller's, used by one
 * thread.
 */
uint32_t kernel_shapes_note(const ct_kernel_record *k, struct kernel_shape_memo *memo);

/* A session started: each shape is written again before the next record
 * that names it. */
void kernel_shapes_announce_again(void);

#endif /* CUDATRACE_KERNEL_SHAPES_H */
