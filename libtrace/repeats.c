/* SPDX-License-Identifier: MIT */
/*
 * repeats.c - repeat events and the runs that hold them (see repeats.h).
 */
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "api-call.h"
#include "clock.h"
#include "cudatrace-tp.h"
#include "recorded-ops.h"
#include "repeats.h"
#include "state.h"
#include "thread-list.h"

/* How long a whole event stands for its repeats, ns; a run spans no more. */
#define REPEAT_FOR_NS 1000000000ULL
/* The longest call a repeat records: entry_low is read back from the
 * event's timestamp, taken a moment after this check, within 2^32 ns. */
#define REPEAT_CALL_MAX_NS (1ULL << 31)
/* How many times the exit looks again at a run its thread is adding to
 * (a few instructions' work) before it leaves it. */
#define RUN_TAKE_TRIES 10000

/* The loop's path: the helpers of repeats_write are inlined into each
 * writer (repeats_write, repeats_write_moved), as into one. */
#define LOOP_PATH static inline __attribute__((always_inline))

/* struct repeats.owner */
enum { RUN_FREE, RUN_BUSY, RUN_CLOSED };

/* When a session last started (CLOCK_MONOTONIC ns): slots written before hold nothing. */
static uint64_t announced_ns;

static void thread_ended(void *data);

/* The threads' runs the exit writes (struct repeats); a thread past
 * THREAD_LIST_MAX writes its repeats one by one. */
static struct thread_list runs = THREAD_LIST_INIT(thread_ended);

/* ------------------------------------------------------------- the run */

/* Writes RUN (of thread TID, 0: the writer) and notes its operations. */
static void run_write(struct repeat_run *run, uint32_t tid)
{
	uint32_t n = run->count, moved = run->moved_count;

	run->count = 0;
	run->moved_count = 0;
	if (n == 0 || !lttng_ust_tracepoint_enabled(cudatrace, repeat_run))
		return;
	lttng_ust_do_tracepoint(cudatrace, repeat_run,
	                        &(struct ct_ev_repeat_run){
	                            .base = run->base,
	                            .tid = tid,
	                            .shape = run->shape,
	                            .shape_count = (uint16_t)n,
	                            .correlation_id = run->correlation_id,
	                            .correlation_id_count = (uint16_t)n,
	                            .exit = run->exit,
	                            .exit_count = (uint16_t)n,
	                            .duration = run->duration,
	                            .duration_count = (uint16_t)n,
	                            .moved = run->moved,
	                            .moved_count = (uint16_t)(moved * CT_REPEAT_RUN_MOVED_VALUES),
	                        });
	for (uint32_t i = 0; i < n; i++) {
		if (run->note[i] != RECORDED_NONE)
			recorded_ops_note(run->correlation_id[i], (enum recorded_op)run->note[i]);
	}
}

/* The caller has R, if it was free. */
LOOP_PATH bool run_hold(struct repeats *r)
{
	int expected = RUN_FREE;

	return __atomic_compare_exchange_n(&r->owner, &expected, RUN_BUSY, false, __ATOMIC_ACQUIRE,
	                                   __ATOMIC_RELAXED);
}

/* Its thread has R, once the flush thread that may be writing it is done
 * (one event's time): false when the exit closed it. */
LOOP_PATH bool run_hold_own(struct repeats *r)
{
	for (unsigned tries = 0; tries < RUN_TAKE_TRIES; tries++) {
		if (run_hold(r))
			return true;
		if (__atomic_load_n(&r->owner, __ATOMIC_ACQUIRE) == RUN_CLOSED)
			return false;
		sched_yield();
	}
	return false;
}

static void run_release(struct repeats *r)
{
	__atomic_store_n(&r->owner, RUN_FREE, __ATOMIC_RELEASE);
}

void repeats_flush(struct repeats *r)
{
	/* listed is its thread's own; the run may be the flush thread's */
	if (r->listed <= 0 || !run_hold_own(r))
		return;
	run_write(&r->run, 0);
	run_release(r);
}

/* ------------------------------------------------------- the threads' list */

/* The thread ends: its run is written, and it leaves the list. */
static void thread_ended(void *data)
{
	struct repeats *r = data;

	thread_list_leave(&runs, r);
	repeats_flush(r);
}

/* R (the calling thread's) in the list, once: true if it is. */
LOOP_PATH bool run_listed(struct repeats *r)
{
	if (r->listed)
		return r->listed > 0;
	r->listed = -1;
	r->tid = (uint32_t)syscall(SYS_gettid);
	if (thread_list_join(&runs, r))
		r->listed = 1;
	return r->listed > 0;
}

void repeats_flush_others(void)
{
	uint32_t self = (uint32_t)syscall(SYS_gettid);

	pthread_mutex_lock(&runs.lock);
	for (size_t i = 0; i < THREAD_LIST_MAX; i++) {
		struct repeats *r = runs.entry[i];

		/* one its thread is adding to is written by it, or next time */
		if (!r || r->tid == self || !run_hold(r))
			continue;
		run_write(&r->run, r->tid);
		run_release(r);
	}
	pthread_mutex_unlock(&runs.lock);
}

void repeats_flush_all(void)
{
	uint32_t self = (uint32_t)syscall(SYS_gettid);

	pthread_mutex_lock(&runs.lock);
	for (size_t i = 0; i < THREAD_LIST_MAX; i++) {
		struct repeats *r = runs.entry[i];
		unsigned tries = 0;
		bool held;

		if (!r)
			continue;
		/* its thread adds a call: a few instructions, then it is free */
		while (!(held = run_hold(r)) &&
		       __atomic_load_n(&r->owner, __ATOMIC_ACQUIRE) == RUN_BUSY &&
		       tries++ < RUN_TAKE_TRIES)
			sched_yield();
		if (!held)
			continue; /* closed already, or its thread's still */
		run_write(&r->run, r->tid == self ? 0 : r->tid);
		__atomic_store_n(&r->owner, RUN_CLOSED, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&runs.lock);
}

/* ------------------------------------------------------------- repeats */

/* A repeat alone: a thread whose run is closed, or not listed. */
static void write_single(uint64_t shape, const struct ct_api_ref *api, enum recorded_op note)
{
	struct ct_ev_repeat e = {
		.shape = shape,
		.correlation_id = api->correlation_id,
		.entry_low = (uint32_t)api->entry,
	};

	lttng_ust_do_tracepoint(cudatrace, repeat, &e);
	if (note != RECORDED_NONE)
		recorded_ops_note(api->correlation_id, note);
}

/* A repeat_moved alone, as write_single. */
static void write_single_moved(const struct ct_ev_repeat_moved *e, enum recorded_op note)
{
	lttng_ust_do_tracepoint(cudatrace, repeat_moved, e);
	if (note != RECORDED_NONE)
		recorded_ops_note(e->correlation_id, note);
}

/* Adds the call of SHAPE and API, returned at EXIT, to R's run (held):
 * its index there. */
LOOP_PATH uint32_t run_add(struct repeats *r, uint64_t shape, const struct ct_api_ref *api,
                           uint64_t exit, enum recorded_op note)
{
	struct repeat_run *run = &r->run;
	uint32_t i;

	if (run->count > 0 && exit - run->base >= REPEAT_FOR_NS)
		run_write(run, 0);
	if (run->count == 0)
		run->base = exit;
	i = run->count++;
	run->shape[i] = shape;
	run->correlation_id[i] = api->correlation_id;
	run->exit[i] = (uint32_t)(exit - run->base);
	run->duration[i] = (uint32_t)(exit - api->entry);
	run->note[i] = (uint8_t)note;
	return i;
}

/* R's run is full: written. */
LOOP_PATH void run_added(struct repeats *r)
{
	if (r->run.count == CT_REPEAT_RUN_MAX)
		run_write(&r->run, 0);
}

/* Whether a slot of R's set of SHAPE holds it, from a whole event a call
 * entered less than a second before API's (and since the last session's
 * start), so that a repeat may name it. */
LOOP_PATH bool slot_names(const struct repeats *r, uint64_t shape, const struct ct_api_ref *api)
{
	unsigned set = ct_repeat_set_slot(shape);
	unsigned way = ct_repeat_way_holding(shape, r->slots[set].shape, r->slots[set + 1].shape);
	uint64_t written_ns;

	if (way == CT_REPEAT_WAYS || !api->entry || !config.compact)
		return false;
	written_ns = r->slots[set + way].written_ns;
	return api->entry - written_ns < REPEAT_FOR_NS &&
	       written_ns >= __atomic_load_n(&announced_ns, __ATOMIC_RELAXED);
}

/* The time the call of API returns, as a repeat records it; 0 when it
 * took too long for a repeat. */
LOOP_PATH uint64_t repeat_exit(const struct ct_api_ref *api)
{
	uint64_t now = clock_now_ns();

	return now - api->entry < REPEAT_CALL_MAX_NS ? now : 0;
}

/* The caller holds R's run, when its calls are kept in one. A call_site
 * event comes right before its call's event: no run then. */
LOOP_PATH bool run_taken(struct repeats *r)
{
	return lttng_ust_tracepoint_enabled(cudatrace, repeat_run) && !config.stack_calls &&
	       run_listed(r) && run_hold_own(r);
}

bool repeats_write(struct api_call *call, uint64_t shape, const struct ct_api_ref *api,
                   enum recorded_op note)
{
	struct repeats *r = call->repeats;
	uint64_t now;

	if (!slot_names(r, shape, api) || !(now = repeat_exit(api)))
		return false;
	if (run_taken(r)) {
		run_add(r, shape, api, now, note);
		run_added(r);
		run_release(r);
		return true;
	}
	if (!lttng_ust_tracepoint_enabled(cudatrace, repeat))
		return false;
	write_single(shape, api, note);
	return true;
}

bool repeats_write_moved(struct api_call *call, uint64_t base, const struct ct_moved *moved,
                         const struct ct_api_ref *api, enum recorded_op note)
{
	struct repeats *r = call->repeats;
	uint64_t now;

	if (!slot_names(r, base, api) || !(now = repeat_exit(api)))
		return false;
	if (run_taken(r)) {
		struct repeat_run *run = &r->run;
		uint64_t *values;
		uint32_t i;

		if (run->moved_count == CT_REPEAT_RUN_MOVED_CALLS)
			run_write(run, 0);
		/* shape 0 names no event: a reader that does not know moved
		 * calls counts them lost */
		i = run_add(r, 0, api, now, note);
		values = &run->moved[run->moved_count++ * CT_REPEAT_RUN_MOVED_VALUES];
		values[0] = i;
		values[1] = base;
		values[2] = moved->src;
		values[3] = moved->dst;
		values[4] = moved->bytes;
		run_added(r);
		run_release(r);
		return true;
	}
	if (!lttng_ust_tracepoint_enabled(cudatrace, repeat_moved))
		return false;
	write_single_moved(&(struct ct_ev_repeat_moved){ .base = base,
	                                                 .src = moved->src,
	                                                 .dst = moved->dst,
	                                                 .bytes = moved->bytes,
	                                                 .correlation_id = api->correlation_id,
	                                                 .entry_low = (uint32_t)api->entry },
	                   note);
	return true;
}

void repeats_written(struct api_call *call, uint64_t shape)
{
	struct repeats *r = call->repeats;
	unsigned set = ct_repeat_set_slot(shape);
	uint8_t *last = &r->last_way[set / CT_REPEAT_WAYS];

	*last = (uint8_t)ct_repeat_way(shape, r->slots[set].shape, r->slots[set + 1].shape, *last);
	r->slots[set + *last].shape = shape;
	r->slots[set + *last].written_ns = call->entry;
}

void repeats_announce_again(void)
{
	__atomic_store_n(&announced_ns, clock_now_ns(), __ATOMIC_RELAXED);
}
