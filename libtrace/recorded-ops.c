/* SPDX-License-Identifier: MIT */
/*
 * recorded-ops.c - the operations whose host event was written (see
 * recorded-ops.h).
 */
#include <stdbool.h>

#include "recorded-ops.h"
#include "state.h"

/* A power of two: more calls than CUPTI holds records of at a time in
 * its usual buffers, so that a note is rarely overwritten before its
 * record comes. 512 KiB, untouched pages cost nothing. */
#define RECORDED_OPS_SLOTS (1u << 16)

/* A note: what the event said in the high 32 bits, the correlation id in
 * the low ones. 0: no note (CUPTI's correlation ids start at 1). */
static uint64_t slots[RECORDED_OPS_SLOTS];

void recorded_ops_note(uint32_t correlation_id, enum recorded_op what)
{
	/* CUDATRACE_COMPACT=0: no note, every record whole */
	if (!config.compact || correlation_id == 0)
		return;
	__atomic_store_n(&slots[correlation_id & (RECORDED_OPS_SLOTS - 1)],
	                 (uint64_t)what << 32 | correlation_id, __ATOMIC_RELEASE);
}

enum recorded_op recorded_ops_take(uint32_t correlation_id)
{
	uint64_t *slot = &slots[correlation_id & (RECORDED_OPS_SLOTS - 1)];
	uint64_t note = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (correlation_id == 0 || (uint32_t)note != correlation_id)
		return RECORDED_NONE;
	/* another record of the id, or a later call's note, may take the slot first */
	if (!__atomic_compare_exchange_n(slot, &note, 0, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return RECORDED_NONE;
	return (enum recorded_op)(note >> 32);
}
