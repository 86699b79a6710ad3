/* SPDX-License-Identifier: MIT */
/*
 * test-handle-cache.c - stream ids, devices and kernel ids remembered per thread
 * (libtrace/handle-cache.c): a stream's id is asked of CUPTI once while
 * the stream lives, and again once any stream, context or module ends (a
 * handle given out again maps to a new id); the default streams of two
 * contexts, and the per-thread and legacy ones, are told apart; a failed
 * lookup and the current context (NULL) are never remembered; more
 * streams than slots still give each its own id. A context's device is
 * asked once while the context lives, again once something ends, never
 * kept for the current context (NULL) or a failed lookup, and a second
 * context has its own. A kernel's id is
 * names_kernel_id of its name, computed once per name pointer until
 * something ends. CUPTI's stream lookup is this test's, counting calls.
 * An address's allocation is the tracker's (libtrace/tracker.c) as it is
 * now: a range freed, replaced or added after an answer was kept is seen
 * at the next lookup, whichever call changed it, and an address found in
 * no allocation is found in one once one is added there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <cupti.h>

#include "contract/events.h"
#include "handle-cache.h"
#include "names.h"
#include "tracker.h"

static unsigned lookups;
static unsigned generation; /* bumped when the test "reuses" a handle */
static bool failing;

/* CUPTI's answer: a function of the handles and of the handle's life. */
static uint32_t expected(CUcontext context, CUstream stream, uint8_t per_thread)
{
	return (uint32_t)((uintptr_t)context * 7 + (uintptr_t)stream * 3 + per_thread +
	                  generation * 1000);
}

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t per_thread,
                                        uint32_t *id)
{
	lookups++;
	if (failing)
		return CUPTI_ERROR_INVALID_STREAM;
	*id = expected(context, stream, per_thread);
	return CUPTI_SUCCESS;
}

static unsigned device_lookups;

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *device)
{
	device_lookups++;
	if (failing)
		return CUPTI_ERROR_INVALID_CONTEXT;
	*device = (uint32_t)((uintptr_t)context % 8 + generation * 10);
	return CUPTI_SUCCESS;
}

#define CTX(n)    ((CUcontext)(uintptr_t)(n))
#define STREAM(n) ((CUstream)(uintptr_t)(n))

static int reset(void **state)
{
	(void)state;
	lookups = 0;
	device_lookups = 0;
	generation = 0;
	failing = false;
	handle_cache_forget(); /* no test sees another's entries */
	return 0;
}

static void test_stream_asked_once(void **state)
{
	struct handle_cache cache = { 0 };

	(void)state;
	for (int i = 0; i < 100; i++)
		assert_int_equal(handle_cache_stream(&cache, CTX(1), STREAM(16), false),
		                 expected(CTX(1), STREAM(16), 0));
	assert_int_equal(lookups, 1);
}

static void test_streams_told_apart(void **state)
{
	struct handle_cache cache = { 0 };

	(void)state;
	for (int round = 0; round < 3; round++) {
		assert_int_equal(handle_cache_stream(&cache, CTX(1), NULL, false),
		                 expected(CTX(1), NULL, 0));
		assert_int_equal(handle_cache_stream(&cache, CTX(1), NULL, true),
		                 expected(CTX(1), NULL, 1));
		assert_int_equal(handle_cache_stream(&cache, CTX(2), NULL, false),
		                 expected(CTX(2), NULL, 0));
		assert_int_equal(handle_cache_stream(&cache, CTX(2), STREAM(16), false),
		                 expected(CTX(2), STREAM(16), 0));
	}
	assert_int_equal(lookups, 4);
}

static void test_end_forgets(void **state)
{
	struct handle_cache cache = { 0 };

	(void)state;
	assert_int_equal(handle_cache_stream(&cache, CTX(1), STREAM(16), false),
	                 expected(CTX(1), STREAM(16), 0));
	/* The stream is destroyed, and its handle given to a new stream. */
	handle_cache_forget();
	generation++;
	assert_int_equal(handle_cache_stream(&cache, CTX(1), STREAM(16), false),
	                 expected(CTX(1), STREAM(16), 0));
	assert_int_equal(lookups, 2);
}

static void test_not_remembered(void **state)
{
	struct handle_cache cache = { 0 };

	(void)state;
	failing = true;
	assert_int_equal(handle_cache_stream(&cache, CTX(1), STREAM(16), false), CT_STREAM_NONE);
	failing = false;
	assert_int_equal(handle_cache_stream(&cache, CTX(1), STREAM(16), false),
	                 expected(CTX(1), STREAM(16), 0));
	assert_int_equal(lookups, 2);
	/* The current context may be another one at the next call. */
	handle_cache_stream(&cache, NULL, STREAM(32), false);
	handle_cache_stream(&cache, NULL, STREAM(32), false);
	assert_int_equal(lookups, 4);
}

static void test_more_streams_than_slots(void **state)
{
	struct handle_cache cache = { 0 };

	(void)state;
	for (int round = 0; round < 3; round++) {
		for (uintptr_t s = 1; s <= 3 * HANDLE_CACHE_STREAMS; s++)
			assert_int_equal(handle_cache_stream(&cache, CTX(1), STREAM(s), false),
			                 expected(CTX(1), STREAM(s), 0));
	}
}

static void test_devices(void **state)
{
	struct handle_cache cache = { 0 };
	uint32_t device = 99;

	(void)state;
	for (int i = 0; i < 10; i++) {
		assert_true(handle_cache_device(&cache, CTX(3), &device));
		assert_int_equal(device, 3);
	}
	assert_int_equal(device_lookups, 1);
	/* another context: its own device, asked */
	assert_true(handle_cache_device(&cache, CTX(5), &device));
	assert_int_equal(device, 5);
	assert_int_equal(device_lookups, 2);
	/* the current context: asked each time */
	assert_true(handle_cache_device(&cache, NULL, &device));
	assert_true(handle_cache_device(&cache, NULL, &device));
	assert_int_equal(device_lookups, 4);
	/* a context ends; its handle may be another's: asked again */
	generation = 1;
	handle_cache_forget();
	assert_true(handle_cache_device(&cache, CTX(5), &device));
	assert_int_equal(device, 15);
	assert_int_equal(device_lookups, 5);
	/* a failed lookup is not kept */
	handle_cache_forget();
	failing = true;
	assert_false(handle_cache_device(&cache, CTX(6), &device));
	failing = false;
	assert_true(handle_cache_device(&cache, CTX(6), &device));
	assert_int_equal(device, 16);
	assert_int_equal(device_lookups, 7);
}

static void test_kernel_ids(void **state)
{
	struct handle_cache cache = { 0 };
	char name[] = "_Z6kernelPf";
	uint64_t id = names_kernel_id(name);

	(void)state;
	assert_int_equal(handle_cache_kernel(&cache, NULL), 0);
	assert_int_equal(handle_cache_kernel(&cache, name), id);
	/* Remembered by address: the text is not read again... */
	name[sizeof(name) - 2] = 'i';
	assert_int_equal(handle_cache_kernel(&cache, name), id);
	/* ...until a module (or stream, or context) ends. */
	handle_cache_forget();
	assert_int_equal(handle_cache_kernel(&cache, name), names_kernel_id("_Z6kernelPi"));
	assert_int_not_equal(names_kernel_id("_Z6kernelPi"), id);
}

static void test_more_kernels_than_slots(void **state)
{
	struct handle_cache cache = { 0 };
	char names[3 * HANDLE_CACHE_KERNELS][16];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		snprintf(names[i], sizeof(names[i]), "kernel%zu", i);
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			assert_int_equal(handle_cache_kernel(&cache, names[i]),
			                 names_kernel_id(names[i]));
	}
}

/* Each range test's area, apart from the others'. */
#define AREA(n) (UINT64_C(0x200000000000) * (n))

static void insert(uint64_t start, uint64_t size, uint8_t kind, uint8_t device)
{
	struct tracker_entry e = { .start = start, .size = size, .kind = kind, .device = device };

	assert_true(tracker_insert(TRACKER_ADDRESSES, &e));
}

static void release(uint64_t start)
{
	struct tracker_entry removed;

	assert_true(tracker_remove(TRACKER_ADDRESSES, start, &removed));
}

/* The cache's answer for ADDRESS: the start and kind of its range, or
 * none (start 0). */
static void expect_range(struct handle_cache *cache, uint64_t address, uint64_t start, uint8_t kind)
{
	const struct tracker_entry *found = handle_cache_range(cache, address);

	assert_int_equal(found != NULL, start != 0);
	if (!found)
		return;
	assert_int_equal(found->start, start);
	assert_int_equal(found->kind, kind);
}

static void test_range_follows_the_tracker(void **state)
{
	struct handle_cache cache = { 0 };
	struct tracker_entry removed;
	uint64_t a = AREA(1);

	(void)state;
	insert(a, 4096, CT_MEM_DEVICE, 0);
	for (int i = 0; i < 3; i++)
		expect_range(&cache, a + 100, a, CT_MEM_DEVICE);
	/* freed, and the same range allocated again as pinned host memory */
	release(a);
	expect_range(&cache, a + 100, 0, 0);
	insert(a, 4096, CT_MEM_HOST_PINNED, CT_DEVICE_NONE);
	expect_range(&cache, a + 100, a, CT_MEM_HOST_PINNED);
	/* a range that replaces it by overlapping it (its free unseen) */
	insert(a + 2048, 8192, CT_MEM_MANAGED, 0);
	expect_range(&cache, a + 100, 0, 0);
	expect_range(&cache, a + 4096, a + 2048, CT_MEM_MANAGED);
	/* freed by a removal within bounds (a context's release) */
	assert_true(tracker_remove_within(a, a + 4096, &removed));
	expect_range(&cache, a + 4096, 0, 0);
}

static void test_range_none_then_added(void **state)
{
	struct handle_cache cache = { 0 };
	uint64_t a = AREA(2);

	(void)state;
	for (int i = 0; i < 3; i++)
		expect_range(&cache, a + 8, 0, 0);
	/* the addresses around a miss that no range meets (a loop over the
	 * slices of a pageable buffer), answered the same */
	for (uint64_t i = 0; i < 64; i++)
		expect_range(&cache, a + 8 + 64 * i, 0, 0);
	insert(a, 64, CT_MEM_HOST_REGISTERED, CT_DEVICE_NONE);
	expect_range(&cache, a + 8, a, CT_MEM_HOST_REGISTERED);
	expect_range(&cache, a + 72, 0, 0);
	/* one that lands among the addresses a miss answered for */
	insert(a + 1024, 64, CT_MEM_HOST_PINNED, CT_DEVICE_NONE);
	expect_range(&cache, a + 1030, a + 1024, CT_MEM_HOST_PINNED);
	release(a);
	release(a + 1024);
}

static void test_more_ranges_than_slots(void **state)
{
	struct handle_cache cache = { 0 };
	uint64_t a = AREA(3);
	const unsigned n = HANDLE_CACHE_RANGES * 2 + 1;

	(void)state;
	for (unsigned i = 0; i < n; i++)
		insert(a + i * 65536, 65536, i % 2 ? CT_MEM_DEVICE : CT_MEM_HOST_PINNED, 0);
	for (int round = 0; round < 3; round++)
		for (unsigned i = 0; i < n; i++)
			expect_range(&cache, a + i * 65536 + 65535, a + i * 65536,
			             i % 2 ? CT_MEM_DEVICE : CT_MEM_HOST_PINNED);
	for (unsigned i = 0; i < n; i++)
		release(a + i * 65536);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_stream_asked_once, reset),
		cmocka_unit_test_setup(test_streams_told_apart, reset),
		cmocka_unit_test_setup(test_end_forgets, reset),
		cmocka_unit_test_setup(test_not_remembered, reset),
		cmocka_unit_test_setup(test_more_streams_than_slots, reset),
		cmocka_unit_test_setup(test_devices, reset),
		cmocka_unit_test_setup(test_kernel_ids, reset),
		cmocka_unit_test_setup(test_more_kernels_than_slots, reset),
		cmocka_unit_test_setup(test_range_follows_the_tracker, reset),
		cmocka_unit_test_setup(test_range_none_then_added, reset),
		cmocka_unit_test_setup(test_more_ranges_than_slots, reset),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
