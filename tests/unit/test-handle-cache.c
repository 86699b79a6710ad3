/* SPDX-License-Identifier: MIT */
/*
 * test-handle-cache.c - stream ids and kernel ids remembered per thread
 * (libtrace/handle-cache.c): a stream's id is asked of CUPTI once while
 * the stream lives, and again once any stream, context or module ends (a
 * handle given out again maps to a new id); the default streams of two
 * contexts, and the per-thread and legacy ones, are told apart; a failed
 * lookup and the current context (NULL) are never remembered; more
 * streams than slots still give each its own id. A kernel's id is
 * names_kernel_id of its name, computed once per name pointer until
 * something ends. CUPTI's stream lookup is this test's, counting calls.
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

#define CTX(n)    ((CUcontext)(uintptr_t)(n))
#define STREAM(n) ((CUstream)(uintptr_t)(n))

static int reset(void **state)
{
	(void)state;
	lookups = 0;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_stream_asked_once, reset),
		cmocka_unit_test_setup(test_streams_told_apart, reset),
		cmocka_unit_test_setup(test_end_forgets, reset),
		cmocka_unit_test_setup(test_not_remembered, reset),
		cmocka_unit_test_setup(test_more_streams_than_slots, reset),
		cmocka_unit_test_setup(test_kernel_ids, reset),
		cmocka_unit_test_setup(test_more_kernels_than_slots, reset),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
