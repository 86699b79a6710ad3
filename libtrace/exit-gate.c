/* SPDX-License-Identifier: MIT */
/*
 * exit-gate.c - the traced calls of other threads kept out of CUDA while
 * the process exits (exit-gate.h).
 *
 * The threads that ever made a traced call are listed, as repeats.c lists
 * them, and unlisted when they end; the drain reads their in_call. A
 * forked child keeps only the thread that forked: the others' entries
 * are the parent's.
 */
#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include "clock.h"
#include "exit-gate.h"

#define GATE_THREADS_MAX 4096

bool exit_gate_closed;
static uint64_t closed_ns; /* written before exit_gate_closed */

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct exit_gate_thread *listed[GATE_THREADS_MAX]; /* under list_lock */
static pthread_key_t thread_end;
static pthread_once_t list_once = PTHREAD_ONCE_INIT;
static bool list_made;

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
	pthread_mutex_lock(&list_lock);
	for (size_t i = 0; i < GATE_THREADS_MAX; i++) {
		if (listed[i] == data) {
			listed[i] = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&list_lock);
}

/* In a forked child, whose only thread is the one that forked. */
static void after_fork_child(void)
{
	pthread_mutex_init(&list_lock, NULL);
	for (size_t i = 0; i < GATE_THREADS_MAX; i++)
		if (listed[i] != mine)
			listed[i] = NULL;
}

static void make_list(void)
{
	list_made = pthread_key_create(&thread_end, unlist) == 0 &&
	            pthread_atfork(NULL, NULL, after_fork_child) == 0;
}

void exit_gate_list(struct exit_gate_thread *t)
{
	size_t i;

	t->listed = -1;
	if (pthread_once(&list_once, make_list) != 0 || !list_made ||
	    pthread_setspecific(thread_end, t) != 0)
		return;
	pthread_mutex_lock(&list_lock);
	for (i = 0; i < GATE_THREADS_MAX && listed[i]; i++)
		;
	if (i < GATE_THREADS_MAX) {
		listed[i] = t;
		t->listed = 1;
		mine = t;
	}
	pthread_mutex_unlock(&list_lock);
	if (t->listed < 0)
		pthread_setspecific(thread_end, NULL);
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

	pthread_mutex_lock(&list_lock);
	for (size_t i = 0; i < GATE_THREADS_MAX; i++)
		/* seq_cst: the other half of exit_gate_enter's Dekker */
		if (listed[i] && listed[i] != mine &&
		    __atomic_load_n(&listed[i]->in_call, __ATOMIC_SEQ_CST) == EXIT_GATE_CALL)
			n++;
	pthread_mutex_unlock(&list_lock);
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
