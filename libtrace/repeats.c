/* SPDX-License-Identifier: MIT */
/*
 * repeats.c - repeat events (see repeats.h).
 */
#include "api-call.h"
#include "clock.h"
#include "cudatrace-tp.h"
#include "repeats.h"
#include "state.h"

/* How long a whole event stands for its repeats, ns. */
#define REPEAT_FOR_NS 1000000000ULL
/* The longest call a repeat records: entry_low is read back from the
 * event's timestamp, taken a moment after this check, within 2^32 ns. */
#define REPEAT_CALL_MAX_NS (1ULL << 31)

/* When a session last started (CLOCK_MONOTONIC ns): slots written before hold nothing. */
static uint64_t announced_ns;

bool repeats_write(struct api_call *call, uint64_t shape, const struct ct_api_ref *api)
{
	struct repeats *r = call->repeats;
	unsigned slot = ct_repeat_slot(shape);
	struct ct_ev_repeat e;

	if (r->slots[slot].shape != shape || !api->entry || !config.compact)
		return false;
	if (api->entry - r->slots[slot].written_ns >= REPEAT_FOR_NS ||
	    r->slots[slot].written_ns < __atomic_load_n(&announced_ns, __ATOMIC_RELAXED))
		return false;
	if (clock_now_ns() - api->entry >= REPEAT_CALL_MAX_NS ||
	    !lttng_ust_tracepoint_enabled(cudatrace, repeat))
		return false;
	e = (struct ct_ev_repeat){
		.shape = shape,
		.correlation_id = api->correlation_id,
		.entry_low = (uint32_t)api->entry,
	};
	lttng_ust_do_tracepoint(cudatrace, repeat, &e);
	return true;
}

void repeats_written(struct api_call *call, uint64_t shape)
{
	struct repeats *r = call->repeats;
	unsigned slot = ct_repeat_slot(shape);

	r->slots[slot].shape = shape;
	r->slots[slot].written_ns = call->entry;
}

void repeats_announce_again(void)
{
	__atomic_store_n(&announced_ns, clock_now_ns(), __ATOMIC_RELAXED);
}
