/* SPDX-License-Identifier: MIT */
/*
 * test-kernel-shapes.c - kernel shapes (libtrace/kernel-shapes.c): a
 * stream and configuration's kernel_shape is emitted before the first
 * record that names it while its event is enabled, with the record's
 * fields as gpu_kernel writes them and the id the record is told; the
 * same shape keeps its id, and is not emitted again within a second of
 * the records' times, nor for an older record; another stream or
 * configuration (any one field) has another id, never one given before,
 * and its own event; none is emitted, and 0 returned, while the event is
 * disabled; after kernel_shapes_announce_again, or for a record a second
 * later, a shape is emitted once more with its id; threads racing on one
 * shape emit it once, each told its id only once it is written. The
 * events are seen through probes of the test's (libtrace-test.h).
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

#include "clock.h"
#include "cudatrace-tp.h"
#include "kernel-shapes.h"
#include "libtrace-test.h"

static unsigned shape_events;
static struct ct_ev_kernel_shape last;
/* The ids emitted, in order (the race test's). */
static uint32_t emitted[64];

static void on_kernel_shape(void *data, const struct ct_ev_kernel_shape *e)
{
	unsigned n = __atomic_fetch_add(&shape_events, 1, __ATOMIC_RELAXED);

	(void)data;
	if (n < 64)
		__atomic_store_n(&emitted[n], e->shape_id, __ATOMIC_RELEASE);
	last = *e;
}

/* Each test sees every shape written anew: the shapes and their ids stay. */
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

/* A record of a kernel that started now, on stream 7. */
static ct_kernel_record record(uint32_t grid_x, int32_t registers)
{
	ct_kernel_record k;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = clock_now_ns();
	k.end = k.start + 1000;
	k.streamId = 7;
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
	ct_kernel_record k = record(64, 40);
	uint32_t id;

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	id = kernel_shapes_note(&k, NULL);
	assert_int_not_equal(id, 0);
	assert_int_equal(shape_events, 1);
	assert_int_equal(last.shape_id, id);
	assert_int_equal(last.stream, 7);
	assert_int_equal(last.grid_x, 64);
	assert_int_equal(last.grid_y, 2);
	assert_int_equal(last.grid_z, 65535);
	assert_int_equal(last.block_x, 256);
	assert_int_equal(last.block_y, 1);
	assert_int_equal(last.block_z, 1);
	assert_int_equal(last.static_shared_mem, 512);
	assert_int_equal(last.dynamic_shared_mem, 1024);
	assert_int_equal(last.registers, 40);
	assert_int_equal(kernel_shapes_note(&k, NULL), id);
	assert_int_equal(kernel_shapes_note(&k, NULL), id);
	assert_int_equal(shape_events, 1);
}

static void test_another_shape(void **state)
{
	ct_kernel_record a = record(64, 40), b = record(64, 41), c = record(65, 40);
	ct_kernel_record d = record(64, 40);
	uint32_t ia, ib, ic, id;

	(void)state;
	d.streamId = 8;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	ia = kernel_shapes_note(&a, NULL);
	ib = kernel_shapes_note(&b, NULL);
	ic = kernel_shapes_note(&c, NULL);
	id = kernel_shapes_note(&d, NULL);
	assert_true(ia != ib && ia != ic && ia != id && ib != ic && ib != id && ic != id);
	assert_int_equal(shape_events, 4);
	assert_int_equal(last.stream, 8);
	/* each keeps its id */
	assert_int_equal(kernel_shapes_note(&b, NULL), ib);
	assert_int_equal(kernel_shapes_note(&a, NULL), ia);
	assert_int_equal(shape_events, 4);
}

static void test_ids_never_given_again(void **state)
{
	ct_kernel_record k = record(1, 1);
	uint32_t first, id, highest = 0;

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	first = kernel_shapes_note(&k, NULL);
	/* new shapes get ids above every earlier one, the earlier shapes theirs */
	for (uint32_t x = 2; x < 50; x++) {
		k = record(x, 1);
		id = kernel_shapes_note(&k, NULL);
		assert_true(id > first && id > highest);
		highest = id;
	}
	k = record(1, 1);
	assert_int_equal(kernel_shapes_note(&k, NULL), first);
}

static void test_disabled(void **state)
{
	ct_kernel_record k = record(8, 16);

	(void)state;
	assert_int_equal(kernel_shapes_note(&k, NULL), 0);
	assert_int_equal(shape_events, 0);
	/* not counted as written: a session that starts gets it */
	TP_ENABLE(kernel_shape, on_kernel_shape);
	assert_int_not_equal(kernel_shapes_note(&k, NULL), 0);
	assert_int_equal(shape_events, 1);
}

static void test_announce_again(void **state)
{
	ct_kernel_record k = record(8, 16);
	uint32_t id;

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	id = kernel_shapes_note(&k, NULL);
	kernel_shapes_announce_again();
	assert_int_equal(kernel_shapes_note(&k, NULL), id);
	assert_int_equal(kernel_shapes_note(&k, NULL), id);
	assert_int_equal(shape_events, 2);
	assert_int_equal(last.shape_id, id);
}

static void test_a_second_later(void **state)
{
	ct_kernel_record k = record(8, 16), early = k;
	uint32_t id;

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	id = kernel_shapes_note(&k, NULL);
	/* a record that started before it, or within the second: not again */
	early.start -= 5000000000ULL;
	assert_int_equal(kernel_shapes_note(&early, NULL), id);
	k.start += 999000000ULL;
	assert_int_equal(kernel_shapes_note(&k, NULL), id);
	assert_int_equal(shape_events, 1);
	/* a record that started a second after it was written: again, its id kept */
	k.start += 2000000ULL;
	assert_int_equal(kernel_shapes_note(&k, NULL), id);
	assert_int_equal(shape_events, 2);
	assert_int_equal(last.shape_id, id);
}

/* A reader's memo of its last shape answers as the table does: the same
 * id, written again a second later and after a session starts, and
 * another shape its own id. */
static void test_memo(void **state)
{
	struct kernel_shape_memo memo = { 0 };
	ct_kernel_record k = record(9, 16), other = record(10, 16);
	uint32_t id, other_id;

	(void)state;
	TP_ENABLE(kernel_shape, on_kernel_shape);
	id = kernel_shapes_note(&k, &memo);
	assert_int_not_equal(id, 0);
	assert_int_equal(kernel_shapes_note(&k, &memo), id);
	assert_int_equal(kernel_shapes_note(&k, NULL), id);
	assert_int_equal(shape_events, 1);
	other_id = kernel_shapes_note(&other, &memo);
	assert_int_not_equal(other_id, id);
	assert_int_equal(kernel_shapes_note(&k, &memo), id);
	assert_int_equal(shape_events, 2);
	/* a second after it was written: again, through the memo too */
	k.start += 1001000000ULL;
	assert_int_equal(kernel_shapes_note(&k, &memo), id);
	assert_int_equal(shape_events, 3);
	k.start = clock_now_ns();
	assert_int_equal(kernel_shapes_note(&k, &memo), id);
	assert_int_equal(shape_events, 3);
	/* a session starts: again */
	kernel_shapes_announce_again();
	k.start = clock_now_ns();
	assert_int_equal(kernel_shapes_note(&k, &memo), id);
	assert_int_equal(shape_events, 4);
	assert_int_equal(last.shape_id, id);
	/* disabled: 0, the memo notwithstanding */
	TP_DISABLE(kernel_shape);
	assert_int_equal(kernel_shapes_note(&k, &memo), 0);
}

/* Threads noting one shape at once: one event, and none is told the id
 * before the event is out. */
#define RACERS 4

static unsigned told_early;

static void *racer(void *arg)
{
	ct_kernel_record k = record(4096, 32);
	uint32_t id = kernel_shapes_note(&k, NULL);

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
		cmocka_unit_test_setup(test_another_shape, fresh),
		cmocka_unit_test_setup(test_ids_never_given_again, fresh),
		cmocka_unit_test_setup(test_disabled, fresh),
		cmocka_unit_test_setup(test_announce_again, fresh),
		cmocka_unit_test_setup(test_a_second_later, fresh),
		cmocka_unit_test_setup(test_memo, fresh),
		cmocka_unit_test_setup(test_race, fresh),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
