/* SPDX-License-Identifier: MIT */
/*
 * test-handoff.c - batches handed between two threads and back
 * (analyzers/common/handoff.h): every batch reaches the reading thread,
 * in order, whatever the pace of each side; a thread that found no batch
 * sleeps until WAKE are there, so that it sleeps at most once for each
 * WAKE batches it takes; the end wakes a reading thread that waits for
 * more than is left, which then takes the rest and NULL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>
#include <glib.h>

#include "common/handoff.h"

#define BATCHES 8
#define ROUNDS  1000

struct batch {
	size_t seq; /* the round it was filled in */
};

struct run {
	struct ct_handoff handoff;
	struct batch batches[BATCHES];
	bool slow_reader; /* the reading thread works longer on a batch than the filling one */
	size_t taken;     /* the reading thread's: batches taken, each in the order given */
};

/*
 * Some work, that the compiler cannot drop: tens of microseconds, longer
 * than a sleeping thread takes to wake, so that the other side would
 * sleep at every batch if it were woken at every batch.
 */
static void work(void)
{
	volatile unsigned sink = 0;

	for (unsigned i = 0; i < 50000; i++)
		sink += i;
}

static gpointer reader(gpointer data)
{
	struct run *r = data;
	struct batch *b;

	while ((b = ct_handoff_take_full(&r->handoff))) {
		/* not cmocka's asserts: they are the main thread's */
		if (b->seq != r->taken)
			return GSIZE_TO_POINTER(1);
		r->taken++;
		if (r->slow_reader)
			work();
		ct_handoff_give_empty(&r->handoff, b);
	}
	return NULL;
}

/* ROUNDS batches through a handoff that wakes for WAKE; the times a thread slept. */
static size_t run_rounds(size_t wake, bool slow_reader)
{
	struct run r = { .slow_reader = slow_reader };
	void *batches[BATCHES];
	GThread *thread;
	size_t waits;

	for (size_t i = 0; i < BATCHES; i++)
		batches[i] = &r.batches[i];
	ct_handoff_init(&r.handoff, batches, BATCHES, wake);
	thread = g_thread_new("reader", reader, &r);
	for (size_t i = 0; i < ROUNDS; i++) {
		struct batch *b = ct_handoff_take_empty(&r.handoff);

		assert_non_null(b);
		b->seq = i;
		if (!slow_reader)
			work();
		ct_handoff_give_full(&r.handoff, b);
	}
	ct_handoff_end(&r.handoff);
	assert_null(g_thread_join(thread));
	assert_int_equal(r.taken, ROUNDS);
	waits = r.handoff.waits;
	ct_handoff_release(&r.handoff);
	return waits;
}

/* Whichever side is slower, the other sleeps at most once for WAKE batches. */
static void test_sleeps_once_for_wake_batches(void **unused)
{
	(void)unused;
	static const size_t wakes[] = { 1, 2, 4, BATCHES - 1 };

	for (size_t i = 0; i < G_N_ELEMENTS(wakes); i++) {
		size_t wake = wakes[i];
		/* each side: once at the start, and once for each WAKE batches it took */
		size_t most = 2 * (ROUNDS / wake + 1);

		assert_in_range(run_rounds(wake, false), 0, most);
		assert_in_range(run_rounds(wake, true), 0, most);
	}
}

static gpointer take_two(gpointer data)
{
	struct ct_handoff *h = data;
	void *first = ct_handoff_take_full(h);
	void *second = ct_handoff_take_full(h);

	return first && !second ? first : NULL;
}

/* The end wakes a reader waiting for more batches than were given: it takes the one, then NULL. */
static void test_end_wakes_the_reader(void **unused)
{
	struct batch batches[BATCHES];
	void *ptrs[BATCHES];
	struct ct_handoff h;
	GThread *thread;
	void *b;

	(void)unused;
	for (size_t i = 0; i < BATCHES; i++)
		ptrs[i] = &batches[i];
	ct_handoff_init(&h, ptrs, BATCHES, BATCHES - 1);
	thread = g_thread_new("reader", take_two, &h);
	b = ct_handoff_take_empty(&h);
	ct_handoff_give_full(&h, b);
	ct_handoff_end(&h);
	assert_ptr_equal(g_thread_join(thread), b);
	ct_handoff_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sleeps_once_for_wake_batches),
		cmocka_unit_test(test_end_wakes_the_reader),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
