/* SPDX-License-Identifier: MIT */
/*
 * exit-gate.c - the traced calls of other threads kept out of CUDA while
 * the process exits (exit-gate.h).
 *
 * The threads that ever made a traced call are listed (thread-list.h),
 * and unlisted when they end; the drain reads their in_call. A forked
 * child keeps only the thread that forked: the others' entries are the
 * parent's.
 */
#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include "clock.h"
#include "exit-gate.h"
#include "thread-list.h"

bool exit_gate_closed;
static uint64_t closed_ns; /* written before exit_gate_closed */

static void unlist(void *data);

/* The threads' struct exit_gate_thread. */
static struct thread_list gated = THREAD_LIST_INIT(unlist);
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* The calling thread's entry, once listed; whether the gate lets it by. */
static __thread struct exit_gate_thread *mine;
static __thread bool exempt;

static void sleep_ns(long ns)
{
	struct timespec t = { 0, ns };

	nanosleep(&t, NULL);
}

static void unlist(void *data)
{
	thread_list_leave(&gated, data);
}

/* In a forked child, whose only thread is the one that forked. */
static void after_fork_child(void)
{
	thread_list_after_fork_child(&gated, mine);
}

static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

void exit_gate_list(struct exit_gate_thread *t)
{
	t->listed = -1;
	pthread_once(&fork_once, register_fork_handler);
	if (thread_list_join(&gated, t)) {
		t->listed = 1;
		mine = t;
	}
}

void exit_gate_wait(struct exit_gate_thread *t, int kind)
{
	uint64_t until;

	if (exempt)
		return;
	/* parked before CUDA does anything: no call under way */
	__atomic_store_n(&t->in_call, 0, __ATOMIC_RELEASE);
	until = __atomic_load_n(&closed_ns, __ATOMIC_ACQUIRE) + EXIT_GATE_PARK_MS * 1000000ULL;
	while (clock_now_ns() < until)
		sleep_ns(1000000);
	__atomic_store_n(&t->in_call, kind, __ATOMIC_SEQ_CST);
}

/* The listed threads but the caller with a traced call under way that
 * is not a wait for the device. */
static unsigned calls_under_way(void)
{
	unsigned n = 0;

	pthread_mutex_lock(&gated.lock);
	for (size_t i = 0; i < THREAD_LIST_MAX; i++) {
		struct exit_gate_thread *t = gated.entry[i];

		/* seq_cst: the other half of exit_gate_enter's Dekker */
		if (t && t != mine &&
		    __atomic_load_n(&t->in_call, __ATOMIC_SEQ_CST) == EXIT_GATE_CALL)
			n++;
	}
	pthread_mutex_unlock(&gated.lock);
	return n;
}

unsigned exit_gate_close(void)
{
	uint64_t until;
	unsigned busy;

	exempt = true;
	__atomic_store_n(&closed_ns, clock_now_ns(), __ATOMIC_RELEASE);
	__atomic_store_n(&exit_gate_closed, true, __ATOMIC_SEQ_CST);
	until = closed_ns + EXIT_GATE_DRAIN_MS * 1000000ULL;
	while ((busy = calls_under_way()) && clock_now_ns() < until)
		sleep_ns(100000);
	return busy;
}

void exit_gate_exempt_self(void)
{
	exempt = true;
}
