/* SPDX-License-Identifier: MIT */
/*
 * call-stack.c - the open API calls of a thread (see call-stack.h).
 */
#include <string.h>

#include "call-stack.h"

void ct_call_stack_push(struct ct_call_stack *stack, const struct ct_call *call)
{
	if (stack->depth == CT_CALL_STACK_MAX) {
		/* the oldest frame has almost surely lost its exit */
		memmove(&stack->calls[0], &stack->calls[1],
		        (CT_CALL_STACK_MAX - 1) * sizeof(*stack->calls));
		stack->depth--;
		stack->forgotten++;
	}
	stack->calls[stack->depth++] = *call;
}

static int32_t index_of(const struct ct_call_stack *stack, uint32_t correlation_id)
{
	for (uint32_t i = stack->depth; i-- > 0;)
		if (stack->calls[i].correlation_id == correlation_id)
			return (int32_t)i;
	return -1;
}

const struct ct_call *ct_call_stack_find(const struct ct_call_stack *stack, uint32_t correlation_id)
{
	int32_t i = index_of(stack, correlation_id);

	return i < 0 ? NULL : &stack->calls[i];
}

bool ct_call_stack_pop(struct ct_call_stack *stack, uint32_t correlation_id, struct ct_call *call)
{
	int32_t i = index_of(stack, correlation_id);

	if (i < 0)
		return false;
	*call = stack->calls[i];
	stack->forgotten += stack->depth - (uint32_t)i - 1;
	stack->depth = (uint32_t)i;
	return true;
}
