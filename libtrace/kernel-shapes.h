/* SPDX-License-Identifier: MIT */
/*
 * kernel-shapes.h - kernel_shape events, once per configuration and
 * process: the GPU record of a kernel whose launch_unconfigured was
 * written names its configuration (grid, block, shared memory, registers:
 * 21 bytes and 9 fields) by a shape_id instead of repeating it
 * (gpu_kernel_shaped, doc/events.md). Called on CUPTI's buffer threads.
 */
#ifndef CUDATRACE_KERNEL_SHAPES_H
#define CUDATRACE_KERNEL_SHAPES_H

#include <stdint.h>
#include <cupti.h>

#include "cudatrace-tp.h"

/* K's configuration as the events write it (saturated to their fields),
 * shape_id left 0. */
void kernel_shape_of(const CUpti_ActivityKernel10 *k, struct ct_ev_kernel_shape *shape);

/*
 * The shape_id of K's configuration, its kernel_shape written first unless
 * it was already while enabled; 0 when no session enables kernel_shape
 * (the record is then written whole).
 */
uint64_t kernel_shapes_note(const CUpti_ActivityKernel10 *k);

/* Forget which shapes were written: each is written again before the next
 * record that names it (a session started). */
void kernel_shapes_announce_again(void);

/*
 * Called by the session watch (sessions.c): while a session enables
 * kernel_shape, every shape is written again a second after it last was.
 * A shape that LTTng discarded, or that a flight recorder's ring
 * overwrote, then costs at most a second of its runs (counted by the
 * reader as unmatched records), not every later one.
 */
void kernel_shapes_follow(void);

#endif /* CUDATRACE_KERNEL_SHAPES_H */
