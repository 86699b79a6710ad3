/* SPDX-License-Identifier: MIT */
/*
 * recorded-ops.h - the operations whose host event was written, by CUPTI
 * correlation id, so that their GPU record need only say what the host
 * event cannot (gpu_kernel_times, doc/events.md): the calling thread
 * notes a launch once its event is in the trace; CUPTI's buffer thread
 * takes the note when the kernel's record comes.
 *
 * Lock-free and of fixed size: one 32-bit slot per correlation id modulo
 * the table's size. A note overwritten by a call that many calls later,
 * or not yet visible to the buffer thread, only costs the full record.
 * A note is made after the host event is written, and a record that
 * takes it is written after that: in the trace, the host event comes
 * first.
 */
#ifndef CUDATRACE_RECORDED_OPS_H
#define CUDATRACE_RECORDED_OPS_H

#include <stdbool.h>
#include <stdint.h>

/* The host event of CORRELATION_ID's operation was written (noted unless
 * CUDATRACE_COMPACT=0). */
void recorded_ops_note(uint32_t correlation_id);

/* Was it? The note is taken: a second record of the same id is told no. */
bool recorded_ops_take(uint32_t correlation_id);

#endif /* CUDATRACE_RECORDED_OPS_H */
