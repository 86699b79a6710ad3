/* SPDX-License-Identifier: MIT */
/*
 * recorded-ops.c - the operations whose host event was written (see
 * recorded-ops.h).
 */
#include "recorded-ops.h"
#include "state.h"

/* A power of two: more calls than CUPTI holds records of at a time in
 * its usual buffers, so that a note is rarely overwritten before its
 * record comes. 256 KiB, untouched pages cost nothing. */
#define RECORDED_OPS_SLOTS (1u << 16)

/* 0: no note (CUPTI's correlation ids start at 1). */
static uint32_t slots[RECORDED_OPS_SLOTS];

void recorded_ops_note(uint32_t correlation_id)
{
	/* CUDATRACE_COMPACT=0: no note, every record whole */
	if (!config.compact)
		return;
	__atomic_store_n(&slots[correlation_id & (RECORDED_OPS_SLOTS - 1)], correlation_id,
	                 __ATOMIC_RELEASE);
}

bool recorded_ops_take(uint32_t correlation_id)
{
	uint32_t expected = correlation_id;

	if (correlation_id == 0)
		return false;
	return __atomic_compare_exchange_n(&slots[correlation_id & (RECORDED_OPS_SLOTS - 1)],
	                                   &expected, 0, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}
