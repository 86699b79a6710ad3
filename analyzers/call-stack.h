/* SPDX-License-Identifier: MIT */
/*
 * call-stack.h - the API calls open on one thread: pushed at api_entry,
 * popped at api_exit, so that an analysis can tell when the call behind an
 * event (a memcpy, a launch) began and how long it lasted.
 *
 * Calls nest (a runtime call around its driver calls, when the driver
 * reports them). An api_exit closes the innermost open call with its
 * correlation id; calls opened above it whose exit never came (a lost
 * event) are dropped with it. The depth is capped: when a trace loses
 * exits the oldest frames are forgotten, so memory stays bounded.
 */
#ifndef CUDATRACE_ANALYZERS_CALL_STACK_H
#define CUDATRACE_ANALYZERS_CALL_STACK_H

#include <stdbool.h>
#include <stdint.h>

/* Open calls kept per thread. */
#define CT_CALL_STACK_MAX 32

struct ct_call {
	uint32_t correlation_id;
	uint8_t domain;
	uint16_t cbid;
	int64_t entry_ns;
};

struct ct_call_stack {
	struct ct_call calls[CT_CALL_STACK_MAX];
	uint32_t depth;
	uint64_t forgotten; /* frames dropped: the cap was reached or an exit was lost */
};

void ct_call_stack_push(struct ct_call_stack *stack, const struct ct_call *call);

/*
 * The open call with CORRELATION_ID, innermost first; NULL if none. The
 * pointer is valid until the next push or pop.
 */
const struct ct_call *ct_call_stack_find(const struct ct_call_stack *stack,
                                         uint32_t correlation_id);

/*
 * Closes the call with CORRELATION_ID and copies it into *CALL. Returns
 * false (and changes nothing) when no open call has that id.
 */
bool ct_call_stack_pop(struct ct_call_stack *stack, uint32_t correlation_id, struct ct_call *call);

#endif
