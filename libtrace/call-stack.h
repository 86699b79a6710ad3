/* SPDX-License-Identifier: MIT */
/*
 * call-stack.h - the calling thread's stack at an allocation, recorded
 * once per distinct stack (a call_stack event) and referred to by its id.
 */
#ifndef CUDATRACE_CALL_STACK_H
#define CUDATRACE_CALL_STACK_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The id of the calling thread's stack, its call_stack event emitted
 * first unless already done while enabled; 0 when stacks are off
 * (CUDATRACE_STACK_DEPTH=0, call_stack not enabled) or none could be
 * taken. Frames of libcudatrace itself are left out.
 */
uint64_t call_stack_id(void);

/* Stacks a thread remembers by their Python frames (a power of two). */
#define OP_SITE_KNOWN 256

/* The stack a thread's copies, memsets and launches were last said to
 * come from (a call_site), the Python frames it was taken at, and the
 * stacks of the frames it met lately: a loop's lines come back at every
 * step, and an unwinding costs thousands of instructions. Zeroed: none
 * said, none known. */
struct op_site {
	uint64_t python_key; /* python_frames_key(); 0: none */
	uint64_t stack_id;   /* 0: none, or "not known from here" */
	unsigned generation; /* of call_stack_announce_again */
	struct op_site_known {
		uint64_t python_key;
		uint64_t stack_id;
	} known[OP_SITE_KNOWN]; /* by python_key % OP_SITE_KNOWN */
};

struct api_call;

/*
 * Before the event of a copy, memset or launch of CALL (correlation id
 * CORRELATION_ID): a call_site event when the call comes from another
 * stack than its thread's last one, after the thread's repeats are
 * written. With CUDATRACE_STACK_CALLS=1 every call has one. Otherwise
 * only calls made from Python are placed, by their Python frames: a loop
 * on one line costs a look at its frames, and a stack only when the line
 * changes to one its thread has not met lately; calls from native code
 * alone are not placed (no call_site).
 */
void call_stack_site_note(struct api_call *call, uint32_t correlation_id);

/* Set by call_stack_site_note once it knows that no call of the process
 * will have a call_site: no CUDATRACE_STACK_CALLS, and no Python. */
extern bool call_stack_sites_off;

/* call_stack_site_note, inline: a program without Python pays a load at
 * each of a loop's calls. */
static inline void call_stack_note_operation(struct api_call *call, uint32_t correlation_id)
{
	if (!__atomic_load_n(&call_stack_sites_off, __ATOMIC_RELAXED))
		call_stack_site_note(call, correlation_id);
}

/* Forget which stacks were emitted: each is emitted again before the next
 * event that refers to it (names_announce_again). */
void call_stack_announce_again(void);

#endif /* CUDATRACE_CALL_STACK_H */
