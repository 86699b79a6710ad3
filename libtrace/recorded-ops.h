/* SPDX-License-Identifier: MIT */
/*
 * recorded-ops.h - the operations whose host event was written, by CUPTI
 * correlation id, so that their GPU record need only say what the host
 * event cannot (gpu_kernel_times, gpu_kernel_shaped, gpu_memcpy_times,
 * gpu_memset_times: doc/events.md), or nothing at all (a
 * synchronisation's gpu_sync, the gpu_memory of memory no pool holds):
 * the calling thread notes an operation, with what its event said, once
 * the event is in the trace; CUPTI's buffer thread takes
 * the note when the operation's record comes.
 *
 * Lock-free and of fixed size: one 64-bit slot per correlation id modulo
 * the table's size. A note overwritten by a call that many calls later,
 * or not yet visible to the buffer thread, only costs the full record.
 * A note is made after the host event is written, and a record that
 * takes it is written after that: in the trace, the host event comes
 * first.
 */
#ifndef CUDATRACE_RECORDED_OPS_H
#define CUDATRACE_RECORDED_OPS_H

#include <stdint.h>

/* What the host event of an operation said. */
enum recorded_op {
	RECORDED_NONE = 0,     /* no note: its record is written whole */
	RECORDED_WHOLE,        /* a launch with its configuration, a memcpy or a memset */
	RECORDED_UNCONFIGURED, /* a launch_unconfigured: its kernel and device only */
	RECORDED_SYNC,         /* a sync: the host wait, from its api_entry to its exit */
	RECORDED_MEMORY,       /* a mem_alloc or mem_free: what a pool's record adds, if any */
};

/* The host event of CORRELATION_ID's operation, which said WHAT, was
 * written (noted unless CUDATRACE_COMPACT=0). */
void recorded_ops_note(uint32_t correlation_id, enum recorded_op what);

/* What it said, RECORDED_NONE if no note is there. The note is taken: a
 * second record of the same id is told RECORDED_NONE. */
enum recorded_op recorded_ops_take(uint32_t correlation_id);

#endif /* CUDATRACE_RECORDED_OPS_H */
