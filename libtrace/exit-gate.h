/* SPDX-License-Identifier: MIT */
/*
 * exit-gate.h - the traced calls of other threads kept out of CUDA while
 * the process exits, so that the trace and the driver agree on what was
 * done.
 *
 * exit() ends the other threads wherever they are: one inside cudaMalloc
 * may have been given its memory and die before its call returns, so the
 * driver did an allocation the trace never sees; one inside cudaFree was
 * counted freed at its ENTER (api-call.h) and may die before the driver
 * frees. So the first exiting thread closes the gate before its flush:
 * the calls under way on other threads are let end (EXIT_GATE_DRAIN_MS at
 * most; not the waits for the device, which change no memory and may
 * last), and a thread that begins a traced call after the gate closed
 * waits at its ENTER, before CUDA does anything, until the process is
 * gone (EXIT_GATE_PARK_MS at most: an exit that needs such a thread, an
 * atexit handler that joins it, is delayed by that much and no more; the
 * call then goes on, and is traced). Calls still under way when the drain
 * gives up are said (a tracer_error of kind exit_calls).
 *
 * The fast path is two stores and a load a call, on the thread's own
 * cache line and a flag written once.
 */
#ifndef CUDATRACE_EXIT_GATE_H
#define CUDATRACE_EXIT_GATE_H

#include <stdbool.h>
#include <stdint.h>

#define EXIT_GATE_DRAIN_MS 200
#define EXIT_GATE_PARK_MS  200

/* A thread's part in the gate; zeroed in thread-local storage. */
struct exit_gate_thread {
	int in_call; /* a traced call under way (atomic): EXIT_GATE_CALL, EXIT_GATE_WAIT; 0 none */
	int8_t listed; /* 0 not yet, 1 in the list the drain reads, -1 never (full) */
};

/* What a call under way is: the drain lets ordinary calls end; a wait
 * for the device (a synchronize) changes no memory, and may last. */
#define EXIT_GATE_CALL 1
#define EXIT_GATE_WAIT 2

extern bool exit_gate_closed;

void exit_gate_list(struct exit_gate_thread *t);
void exit_gate_wait(struct exit_gate_thread *t, int kind);

/* At the ENTER of a thread's outermost traced call, KIND (EXIT_GATE_CALL
 * or EXIT_GATE_WAIT). */
static inline void exit_gate_enter(struct exit_gate_thread *t, int kind)
{
	if (__builtin_expect(t->listed == 0, 0))
		exit_gate_list(t);
	/* Dekker with exit_gate_close: either this thread sees the gate
	 * closed, or the drain sees the call under way */
	__atomic_store_n(&t->in_call, kind, __ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&exit_gate_closed, __ATOMIC_SEQ_CST), 0))
		exit_gate_wait(t, kind);
}

/* At the EXIT of that call. */
static inline void exit_gate_leave(struct exit_gate_thread *t)
{
	__atomic_store_n(&t->in_call, 0, __ATOMIC_RELEASE);
}

/*
 * The first exiting thread, before its flush: closes the gate and waits
 * for the calls under way on the other threads, EXIT_GATE_DRAIN_MS at
 * most. Returns how many were still under way then (0: all ended).
 */
unsigned exit_gate_close(void);

/* A thread that runs exit()'s handlers after the first (shutdown.c): its
 * calls go through the gate. */
void exit_gate_exempt_self(void);

#endif /* CUDATRACE_EXIT_GATE_H */
