/* SPDX-License-Identifier: MIT */
/*
 * test-kernel-shapes.c - kernel shapes written once (libtrace/kernel-shapes.c):
 * a configuration's kernel_shape is emitted once while its event is
 * enabled, with the record's fields as gpu_kernel writes them and the id
 * the record is told; another configuration (any one field) has another
 * id and its own event; none is emitted, and 0 returned, while the event
 * is disabled; after kernel_shapes_announce_again a shape is emitted once
 * more, and kernel_shapes_follow does so at most once a second; threads
 * racing on one shape emit it once, each told its id only once it is
 * written. The events are seen through probes of the test's
 * (libtrace-test.h).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cupti.h>

#include "cudatrace-tp.h"
#include "kernel-shapes.h"
#include "libtrace-test.h"

static unsigned shape_events;
static struct ct_ev_kernel_shape last;
/* The ids emitted, in order (the race test's). */
static uint64_t emitted[64];

static void on_kernel_shape(void *data, const struct ct_ev_kernel_shape *e)
{
	unsigned n = __atomic_fetch_add(&shape_events, 1, __ATOMIC_RELAXED);

	(void)data;
	if (n < 64)
		__atomic_store_n(&emitted[n], e->shape_id, __ATOMIC_RELEASE);
	last = *e;
}

static int fresh(void **state)
{
	(void)state;
	TP_DISABLE(kernel_shape);
	kernel_shapes_announce_again();
	shape_events = 0;
	memset(&last, 0, sizeof(last));
	memset(emitted, 0, sizeof(emitted));
	return 0;
}

static CUpti_ActivityKernel10 record(uint32_t grid_x, int32_t registers)
{
	CUpti_ActivityKernel10 k;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.gridX = (int32_t)grid_x;
	k.gridY = 2;
	k.gridZ = 70000; /* saturated to 65535, as gpu_kernel writes it */
	k.blockX = 256;
	k.blockY = 1;
	k.blockZ = 1;
	k.staticSharedMemory = 512;
	k.dynamicSharedMemory = 1024;
	k.registersPerThread = (uint16_t)registers;
	return k;
}

static void test_once_with_its_fields(void **state)
{
	CUpti_ActivityKernel10 k = record(64, 40);
	uint64_t id;

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	id = kernel_shapes_note(&k);
	assert_int_not_equal(id, 0);
	assert_int_equal(shape_events, 1);
	assert_int_equal(last.shape_id, id);
	assert_int_equal(last.grid_x, 64);
	assert_int_equal(last.grid_y, 2);
	assert_int_equal(last.grid_z, 65535);
	assert_int_equal(last.block_x, 256);
	assert_int_equal(last.block_y, 1);
	assert_int_equal(last.block_z, 1);
	assert_int_equal(last.static_shared_mem, 512);
	assert_int_equal(last.dynamic_shared_mem, 1024);
	assert_int_equal(last.registers, 40);
	assert_int_equal(kernel_shapes_note(&k), id);
	assert_int_equal(kernel_shapes_note(&k), id);
	assert_int_equal(shape_events, 1);
}

static void test_another_configuration(void **state)
{
	CUpti_ActivityKernel10 a = record(64, 40), b = record(64, 41), c = record(65, 40);
	uint64_t ia, ib, ic;

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	ia = kernel_shapes_note(&a);
	ib = kernel_shapes_note(&b);
	ic = kernel_shapes_note(&c);
	assert_true(ia != ib && ia != ic && ib != ic);
	assert_int_equal(shape_events, 3);
}

static void test_disabled(void **state)
{
	CUpti_ActivityKernel10 k = record(8, 16);

	(void)state;
	assert_int_equal(kernel_shapes_note(&k), 0);
	assert_int_equal(shape_events, 0);
	/* not counted as written: a session that starts gets it */
	TP_ENABLE(kernel_shape, on_kernel_shape);
	assert_int_not_equal(kernel_shapes_note(&k), 0);
	assert_int_equal(shape_events, 1);
}

static void test_announce_again(void **state)
{
	CUpti_ActivityKernel10 k = record(8, 16);

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	kernel_shapes_note(&k);
	kernel_shapes_announce_again();
	kernel_shapes_note(&k);
	kernel_shapes_note(&k);
	assert_int_equal(shape_events, 2);
}

static void test_follow_once_a_second(void **state)
{
	CUpti_ActivityKernel10 k = record(8, 16);

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	kernel_shapes_note(&k);
	/* the first follow forgets the shapes: a second has passed since start-up */
	kernel_shapes_follow();
	kernel_shapes_note(&k);
	assert_int_equal(shape_events, 2);
	/* not again within the second */
	kernel_shapes_follow();
	kernel_shapes_note(&k);
	assert_int_equal(shape_events, 2);
}

/* Threads noting one shape at once: one event, and none is told the id
 * before the event is out. */
#define RACERS 4

static unsigned told_early;

static void *racer(void *arg)
{
	CUpti_ActivityKernel10 k = record(4096, 32);
	uint64_t id = kernel_shapes_note(&k);

	(void)arg;
	if (__atomic_load_n(&emitted[0], __ATOMIC_ACQUIRE) != id)
		__atomic_add_fetch(&told_early, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void test_race(void **state)
{
	pthread_t threads[RACERS];

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	told_early = 0;
	for (int i = 0; i < RACERS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, racer, NULL), 0);
	for (int i = 0; i < RACERS; i++)
		assert_int_equal(pthread_join(threads[i], NULL), 0);
	assert_int_equal(shape_events, 1);
	assert_int_equal(told_early, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_once_with_its_fields, fresh),
		cmocka_unit_test_setup(test_another_configuration, fresh),
		cmocka_unit_test_setup(test_disabled, fresh),
		cmocka_unit_test_setup(test_announce_again, fresh),
		cmocka_unit_test_setup(test_follow_once_a_second, fresh),
		cmocka_unit_test_setup(test_race, fresh),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
