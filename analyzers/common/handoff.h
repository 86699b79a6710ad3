/* SPDX-License-Identifier: MIT */
/*
 * handoff.h - batches handed from a thread that fills them to one that
 * reads them, in order, and back: a fixed set of batches (the caller's),
 * so that memory does not follow how far the filling thread is ahead; it
 * waits for an empty batch while the reading thread is behind, and the
 * reading thread waits for a full one. A thread that waits is woken
 * once WAKE batches are there for it (or at the end), not at each one:
 * two threads that keep about the same pace would otherwise take turns
 * sleeping and waking at every batch, a context switch each. POSIX
 * primitives, which thread checkers know.
 *
 *	ct_handoff_init(&h, batches, n, wake);      (all empty)
 *	filling thread:  b = ct_handoff_take_empty(&h); ... ct_handoff_give_full(&h, b);
 *	                 ct_handoff_end(&h);       (no more)
 *	reading thread:  while ((b = ct_handoff_take_full(&h))) { ...; ct_handoff_give_empty(&h, b); }
 *	ct_handoff_release(&h);
 */
#ifndef CUDATRACE_ANALYZERS_HANDOFF_H
#define CUDATRACE_ANALYZERS_HANDOFF_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Batches at most. */
#define CT_HANDOFF_MAX 16

/* Batches in order, at most all of them. */
struct ct_handoff_queue {
	void *items[CT_HANDOFF_MAX];
	size_t head, count;
};

struct ct_handoff {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct ct_handoff_queue empty, full; /* under LOCK */
	size_t batches;
	size_t wake;  /* a waiting thread is woken once this many batches are there for it */
	size_t waits; /* under LOCK: times a thread found no batch for it, and slept */
	bool ended;   /* under LOCK: no batch will be given full any more */
};

/*
 * The COUNT BATCHES (at most CT_HANDOFF_MAX, the caller's), all empty. A
 * thread that finds no batch for it waits until WAKE are there (1 to
 * COUNT - 1, so that neither can wait while the other holds what it
 * needs, when each holds at most one), or the end: 1 when the filling
 * thread may pause between batches (a live trace), the reading thread
 * then woken at each.
 */
void ct_handoff_init(struct ct_handoff *h, void *const *batches, size_t count, size_t wake);
void ct_handoff_release(struct ct_handoff *h);

/* An empty batch, waiting for one; NULL once ended and none is left. */
void *ct_handoff_take_empty(struct ct_handoff *h);
void ct_handoff_give_full(struct ct_handoff *h, void *batch);

/* The next full batch, waiting for it; NULL once ended and none is left. */
void *ct_handoff_take_full(struct ct_handoff *h);
void ct_handoff_give_empty(struct ct_handoff *h, void *batch);

/* The filling thread gives no more full batches: the reading thread takes what is left, then NULL. */
void ct_handoff_end(struct ct_handoff *h);

#endif
