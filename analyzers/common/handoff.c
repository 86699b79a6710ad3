/* SPDX-License-Identifier: MIT */
/*
 * handoff.c - batches handed between two threads and back (see
 * handoff.h).
 */
#include "contract/assert.h"
#include "handoff.h"

void ct_handoff_init(struct ct_handoff *h, void *const *batches, size_t count, size_t wake)
{
	CT_ASSERT(count <= CT_HANDOFF_MAX);
	CT_ASSERT(wake >= 1 && (wake == 1 || wake < count));
	*h = (struct ct_handoff){ .batches = count, .wake = wake };
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->changed, NULL);
	for (size_t i = 0; i < count; i++)
		h->empty.items[i] = batches[i];
	h->empty.count = count;
}

void ct_handoff_release(struct ct_handoff *h)
{
	pthread_cond_destroy(&h->changed);
	pthread_mutex_destroy(&h->lock);
}

static void push(struct ct_handoff *h, struct ct_handoff_queue *q, void *batch)
{
	pthread_mutex_lock(&h->lock);
	CT_ASSERT(q->count < h->batches);
	q->items[(q->head + q->count++) % h->batches] = batch;
	/* a thread waiting for Q waits for WAKE batches (pop) */
	if (q->count >= h->wake)
		pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
}

/*
 * The first batch of Q; when it has none, waits until it has WAKE, or
 * the handoff ended. NULL when Q is empty and the handoff ended.
 */
static void *pop(struct ct_handoff *h, struct ct_handoff_queue *q)
{
	void *b = NULL;

	pthread_mutex_lock(&h->lock);
	if (!q->count && !h->ended) {
		h->waits++;
		while (q->count < h->wake && !h->ended)
			pthread_cond_wait(&h->changed, &h->lock);
	}
	if (q->count) {
		b = q->items[q->head];
		q->head = (q->head + 1) % h->batches;
		q->count--;
	}
	pthread_mutex_unlock(&h->lock);
	return b;
}

void *ct_handoff_take_empty(struct ct_handoff *h)
{
	return pop(h, &h->empty);
}

void ct_handoff_give_full(struct ct_handoff *h, void *batch)
{
	push(h, &h->full, batch);
}

void *ct_handoff_take_full(struct ct_handoff *h)
{
	return pop(h, &h->full);
}

void ct_handoff_give_empty(struct ct_handoff *h, void *batch)
{
	push(h, &h->empty, batch);
}

void ct_handoff_end(struct ct_handoff *h)
{
	pthread_mutex_lock(&h->lock);
	h->ended = true;
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
}
