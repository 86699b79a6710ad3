/* SPDX-License-Identifier: MIT */
/*
 * test-gpu-reorder.c - GPU operations put back in time order
 * (analyzers/export/gpu-reorder.h): operations of several streams, each stream
 * in order, delivered in shuffled buffers, come out as begin and end
 * points in time order; the queue never holds more operations than its
 * bound, and with no smallest window a stream's operations leave as the
 * next comes; an operation that starts before what already left is refused
 * and counted; ties between one operation's end and the next one's begin;
 * points that come in order and out of it, at equal times, of operations
 * of no duration, leave in exactly the order of time, rank and arrival.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "export/gpu-reorder.h"

/* The window the queue is given: longer than the operations here. */
#define WINDOW_NS 50000000

#define STREAMS    4
#define PER_STREAM 500
#define BUFFER     37

struct op {
	int64_t start, end;
	int begun, ended;
};

/*
 * Operations back to back on STREAMS streams, each stream's in order;
 * delivered stream by stream in buffers of BUFFER, the buffers of the
 * streams interleaved, as CUPTI's per-stream records come.
 */
static void test_shuffled_buffers_come_out_in_order(void **unused)
{
	static struct op ops[STREAMS][PER_STREAM];
	struct ct_gpu_reorder q;
	struct ct_gpu_point point;
	int64_t last = INT64_MIN;
	size_t points = 0, next[STREAMS] = { 0 };

	(void)unused;
	srand(7);
	for (int s = 0; s < STREAMS; s++) {
		int64_t t = 1000000 + s * 333;

		for (int i = 0; i < PER_STREAM; i++) {
			ops[s][i].start = t;
			ops[s][i].end = t + 1000 + rand() % 5000;
			t = ops[s][i].end + rand() % 3000;
		}
	}
	ct_gpu_reorder_init(&q, 0, WINDOW_NS);
	for (int left = STREAMS * PER_STREAM; left > 0;) {
		/* the buffer of a random stream that still has operations */
		int s = rand() % STREAMS;

		if (next[s] == PER_STREAM)
			continue;
		for (int k = 0; k < BUFFER && next[s] < PER_STREAM; k++, left--) {
			struct op *op = &ops[s][next[s]++];

			assert_true(ct_gpu_reorder_add(&q, op->start, op->end, op));
		}
		while (ct_gpu_reorder_next(&q, false, &point)) {
			struct op *op = point.op;

			assert_true(point.time >= last);
			last = point.time;
			assert_int_equal(point.time, point.begin ? op->start : op->end);
			if (point.begin)
				op->begun++;
			else
				op->ended++;
			points++;
		}
	}
	while (ct_gpu_reorder_next(&q, true, &point)) {
		struct op *op = point.op;

		assert_true(point.time >= last);
		last = point.time;
		if (point.begin)
			op->begun++;
		else
			op->ended++;
		points++;
	}
	assert_int_equal(points, 2 * STREAMS * PER_STREAM);
	assert_int_equal(q.late, 0);
	for (int s = 0; s < STREAMS; s++)
		for (int i = 0; i < PER_STREAM; i++) {
			assert_int_equal(ops[s][i].begun, 1);
			assert_int_equal(ops[s][i].ended, 1);
		}
	ct_gpu_reorder_release(&q);
}

/* Never more than the bound held, however wide the window grew. */
static void test_bound_holds(void **unused)
{
	struct ct_gpu_reorder q;
	struct ct_gpu_point point;
	static struct op ops[1002];
	int64_t last = INT64_MIN;
	size_t points = 0;

	(void)unused;
	ct_gpu_reorder_init(&q, 8, WINDOW_NS);
	/* 1000 s of disorder: a window no later start gets past */
	assert_true(ct_gpu_reorder_add(&q, 1000000000000, 1000000000500, &ops[1000]));
	assert_true(ct_gpu_reorder_add(&q, 0, 500, &ops[1001]));
	assert_true(q.window_ns >= 1000000000000);
	for (int i = 0; i < 1000; i++) {
		ops[i].start = 1000 + 1000 * (int64_t)i;
		ops[i].end = ops[i].start + 500;
		assert_true(ct_gpu_reorder_add(&q, ops[i].start, ops[i].end, &ops[i]));
		while (ct_gpu_reorder_next(&q, false, &point)) {
			assert_true(point.time >= last);
			last = point.time;
			points++;
		}
		assert_true(q.ops <= 8);
	}
	while (ct_gpu_reorder_next(&q, true, &point))
		points++;
	assert_int_equal(points, 2 * 1002);
	assert_int_equal(q.late, 0);
	ct_gpu_reorder_release(&q);
}

/*
 * With no smallest window, a stream's operations, back to back, leave as
 * the next comes: the queue holds two at most, and each point leaves once.
 */
static void test_no_window_holds_little(void **unused)
{
	static struct op ops[1000];
	struct ct_gpu_reorder q;
	struct ct_gpu_point point;
	int64_t last = INT64_MIN;
	size_t points = 0;

	(void)unused;
	ct_gpu_reorder_init(&q, 0, 0);
	for (int i = 0; i < 1000; i++) {
		ops[i].start = 1000 * (int64_t)i + (i % 3 ? 0 : 100);
		ops[i].end = 1000 * (int64_t)(i + 1);
		assert_true(ct_gpu_reorder_add(&q, ops[i].start, ops[i].end, &ops[i]));
		while (ct_gpu_reorder_next(&q, false, &point)) {
			assert_true(point.time >= last);
			last = point.time;
			points++;
		}
		assert_true(q.ops <= 2);
	}
	while (ct_gpu_reorder_next(&q, true, &point))
		points++;
	assert_int_equal(points, 2 * 1000);
	assert_int_equal(q.window_ns, 0);
	ct_gpu_reorder_release(&q);
}

/* An operation that starts before a point that left is refused and counted. */
static void test_late_operation_refused(void **unused)
{
	struct ct_gpu_reorder q;
	struct ct_gpu_point point;
	struct op a = { 0 }, b = { 0 }, late = { 0 };

	(void)unused;
	ct_gpu_reorder_init(&q, 0, WINDOW_NS);
	assert_true(ct_gpu_reorder_add(&q, 1000, 2000, &a));
	/* 100 ms later: a leaves, the window being 50 ms */
	assert_true(ct_gpu_reorder_add(&q, 100000000, 100001000, &b));
	assert_true(ct_gpu_reorder_next(&q, false, &point));
	assert_ptr_equal(point.op, &a);
	assert_true(ct_gpu_reorder_next(&q, false, &point));
	assert_ptr_equal(point.op, &a);
	assert_false(ct_gpu_reorder_next(&q, false, &point));
	assert_false(ct_gpu_reorder_add(&q, 1500, 1800, &late));
	assert_int_equal(q.late, 1);
	ct_gpu_reorder_release(&q);
}

/* One operation ends as the next begins; one of no duration begins, then ends. */
static void test_ties(void **unused)
{
	struct ct_gpu_reorder q;
	struct ct_gpu_point point;
	struct op a = { 0 }, b = { 0 }, c = { 0 };
	const struct {
		struct op *op;
		int begin;
		int64_t time;
	} want[] = { { &a, 1, 0 },  { &a, 0, 10 }, { &b, 1, 10 },
		     { &b, 0, 20 }, { &c, 1, 20 }, { &c, 0, 20 } };

	(void)unused;
	ct_gpu_reorder_init(&q, 0, WINDOW_NS);
	assert_true(ct_gpu_reorder_add(&q, 20, 20, &c));
	assert_true(ct_gpu_reorder_add(&q, 10, 20, &b));
	assert_true(ct_gpu_reorder_add(&q, 0, 10, &a));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_true(ct_gpu_reorder_next(&q, true, &point));
		assert_ptr_equal(point.op, want[i].op);
		assert_int_equal(point.begin, want[i].begin);
		assert_int_equal(point.time, want[i].time);
	}
	assert_false(ct_gpu_reorder_next(&q, true, &point));
	ct_gpu_reorder_release(&q);
}

/* A point as the order defines it: time, then rank, then the operation's arrival. */
struct ref {
	int64_t time;
	int rank; /* 0 end, 1 begin, 2 end of no duration */
	size_t arrival;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->arrival < y->arrival ? -1 : x->arrival > y->arrival;
}

#define MIXED 6000

/*
 * Operations that mostly follow one another (a stream's, some back to
 * back, some of no duration), among others anywhere in time, many at the
 * same times: every point leaves once, in the order of a sort.
 */
static void test_order_in_and_out_of_runs(void **unused)
{
	static struct ref want[2 * MIXED];
	static int64_t starts[MIXED], ends[MIXED];
	struct ct_gpu_reorder q;
	struct ct_gpu_point point;
	int64_t t = 1000000;
	size_t n = 0;

	(void)unused;
	srand(11);
	ct_gpu_reorder_init(&q, 0, WINDOW_NS);
	for (size_t i = 0; i < MIXED; i++) {
		if (rand() % 10 < 7) {
			starts[i] = t + (rand() % 3 ? 0 : rand() % 100);
			ends[i] = starts[i] + (rand() % 4 ? rand() % 50 : 0);
			t = ends[i];
		} else {
			starts[i] = 1000000 + rand() % 200000;
			ends[i] = starts[i] + rand() % 3000 * (rand() % 2);
		}
		want[n++] = (struct ref){ starts[i], 1, i };
		want[n++] = (struct ref){ ends[i], ends[i] == starts[i] ? 2 : 0, i };
		assert_true(ct_gpu_reorder_add(&q, starts[i], ends[i], &starts[i]));
	}
	qsort(want, n, sizeof(want[0]), ref_cmp);
	for (size_t k = 0; k < n; k++) {
		size_t i;

		assert_true(ct_gpu_reorder_next(&q, true, &point));
		i = (size_t)((int64_t *)point.op - starts);
		assert_int_equal(i, want[k].arrival);
		assert_int_equal(point.begin, want[k].rank == 1);
		assert_int_equal(point.time, want[k].time);
	}
	assert_false(ct_gpu_reorder_next(&q, true, &point));
	assert_int_equal(q.ops, 0);
	ct_gpu_reorder_release(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shuffled_buffers_come_out_in_order),
		cmocka_unit_test(test_bound_holds),
		cmocka_unit_test(test_late_operation_refused),
		cmocka_unit_test(test_no_window_holds_little),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_order_in_and_out_of_runs),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
