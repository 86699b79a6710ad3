/* SPDX-License-Identifier: MIT */
/*
 * call-stack.h - the calling thread's stack at an allocation, recorded
 * once per distinct stack (a call_stack event) and referred to by its id.
 */
#ifndef CUDATRACE_CALL_STACK_H
#define CUDATRACE_CALL_STACK_H

#include <stdint.h>

/*
 * The id of the calling thread's stack, its call_stack event emitted
 * first unless already done while enabled; 0 when stacks are off
 * (CUDATRACE_STACK_DEPTH=0, call_stack not enabled) or none could be
 * taken. Frames of libcudatrace itself are left out.
 */
uint64_t call_stack_id(void);

/* For a copy, memset or launch, when CUDATRACE_STACK_CALLS asks for their
 * stacks too: a call_site event that gives the stack of the call of
 * CORRELATION_ID, to be written just before its event. */
void call_stack_note_operation(uint32_t correlation_id);

/* Forget which stacks were emitted: each is emitted again before the next
 * event that refers to it (names_announce_again). */
void call_stack_announce_again(void);

#endif /* CUDATRACE_CALL_STACK_H */
