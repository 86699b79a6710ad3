/* SPDX-License-Identifier: MIT */
/*
 * test-names.c - names recorded once (libtrace/names.c): each API call's
 * and kernel's name is emitted once while its event is enabled, once more
 * after names_announce_again, never while disabled (a session started
 * later still gets it), once however many threads race to note it; the
 * kernel id is FNV-1a 64 of the name; a full kernel set emits names again
 * rather than losing them; a thread's memo of its last names changes none
 * of this. The events are seen through probes of the test's
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
#include "libtrace-test.h"
#include "names.h"
#include "state.h"

#define DRIVER  CUPTI_CB_DOMAIN_DRIVER_API
#define RUNTIME CUPTI_CB_DOMAIN_RUNTIME_API

/* What the probes saw: counts per (domain, cbid), the last name. */
static unsigned api_seen[3][1024];
static char api_last[64];
static unsigned api_events;

static void on_api_name(void *data, const struct ct_ev_api_name *e)
{
	(void)data;
	__atomic_add_fetch(&api_seen[e->domain][e->cbid], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&api_events, 1, __ATOMIC_RELAXED);
	snprintf(api_last, sizeof(api_last), "%.*s", (int)e->name_len, e->name);
}

static unsigned kernel_events;
static uint64_t kernel_last_id;
static char kernel_last[64];
static unsigned kernel_last_len;

static void on_kernel_name(void *data, const struct ct_ev_kernel_name *e)
{
	(void)data;
	kernel_events++;
	kernel_last_id = e->kernel_id;
	kernel_last_len = e->name_len;
	snprintf(kernel_last, sizeof(kernel_last), "%.*s", (int)e->name_len, e->name);
}

static int fresh(void **state)
{
	(void)state;
	config.max_string = 256;
	TP_DISABLE(api_name);
	TP_DISABLE(kernel_name);
	names_announce_again();
	memset(api_seen, 0, sizeof(api_seen));
	api_events = 0;
	kernel_events = 0;
	kernel_last_id = 0;
	return 0;
}

static void test_api_name_once(void **state)
{
	(void)state;
	TP_ENABLE(api_name, on_api_name);
	names_note_api(NULL, DRIVER, 43, "cuMemAlloc_v2");
	assert_int_equal(api_seen[DRIVER][43], 1);
	assert_string_equal(api_last, "cuMemAlloc_v2");
	names_note_api(NULL, DRIVER, 43, "cuMemAlloc_v2");
	names_note_api(NULL, DRIVER, 43, "cuMemAlloc_v2");
	assert_int_equal(api_seen[DRIVER][43], 1);
	/* The same cbid in the other API is another call. */
	names_note_api(NULL, RUNTIME, 43, "cudaSomething");
	assert_int_equal(api_seen[RUNTIME][43], 1);
	assert_string_equal(api_last, "cudaSomething");
	names_note_api(NULL, DRIVER, 44, "cuMemFree_v2");
	assert_int_equal(api_seen[DRIVER][44], 1);
	assert_int_equal(api_events, 3);
	/* Other domains have no api_name. */
	names_note_api(NULL, CUPTI_CB_DOMAIN_RESOURCE, 1, "resource");
	names_note_api(NULL, 0, 1, "none");
	assert_int_equal(api_events, 3);
	/* A NULL name is recorded empty. */
	names_note_api(NULL, DRIVER, 45, NULL);
	assert_string_equal(api_last, "");
}

/* Noted while no session enables api_name: not recorded, so recorded at
 * the first note once one does. */
static void test_api_name_while_disabled(void **state)
{
	(void)state;
	names_note_api(NULL, DRIVER, 100, "cuLaunchKernel");
	names_note_api(NULL, DRIVER, 100, "cuLaunchKernel");
	assert_int_equal(api_events, 0);
	TP_ENABLE(api_name, on_api_name);
	names_note_api(NULL, DRIVER, 100, "cuLaunchKernel");
	names_note_api(NULL, DRIVER, 100, "cuLaunchKernel");
	assert_int_equal(api_seen[DRIVER][100], 1);
}

static void test_api_name_announced_again(void **state)
{
	(void)state;
	TP_ENABLE(api_name, on_api_name);
	names_note_api(NULL, DRIVER, 7, "cuCtxSynchronize");
	names_note_api(NULL, RUNTIME, 20, "cudaMalloc_v3020");
	names_announce_again();
	names_note_api(NULL, DRIVER, 7, "cuCtxSynchronize");
	names_note_api(NULL, DRIVER, 7, "cuCtxSynchronize");
	names_note_api(NULL, RUNTIME, 20, "cudaMalloc_v3020");
	assert_int_equal(api_seen[DRIVER][7], 2);
	assert_int_equal(api_seen[RUNTIME][20], 2);
}

#define RACERS 4

static pthread_barrier_t race_start;

static void *note_all(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&race_start);
	for (int round = 0; round < 50; round++) {
		for (uint16_t cbid = 1; cbid < 300; cbid++)
			names_note_api(NULL, cbid % 2 ? DRIVER : RUNTIME, cbid, "call");
	}
	return NULL;
}

/* Threads noting the same calls at once: one api_name each. */
static void test_api_name_race(void **state)
{
	pthread_t threads[RACERS];

	(void)state;
	TP_ENABLE(api_name, on_api_name);
	pthread_barrier_init(&race_start, NULL, RACERS);
	for (int i = 0; i < RACERS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, note_all, NULL), 0);
	for (int i = 0; i < RACERS; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&race_start);
	for (uint16_t cbid = 1; cbid < 300; cbid++)
		assert_int_equal(api_seen[cbid % 2 ? DRIVER : RUNTIME][cbid], 1);
	assert_int_equal(api_events, 299);
}

/* FNV-1a 64 of the whole name; 0 for none. */
static void test_kernel_id(void **state)
{
	(void)state;
	assert_int_equal(names_kernel_id(NULL), 0);
	assert_int_equal(names_kernel_id(""), 0xcbf29ce484222325ULL);
	assert_int_equal(names_kernel_id("a"), 0xaf63dc4c8601ec8cULL);
	assert_int_equal(names_kernel_id("foobar"), 0x85944171f73967e8ULL);
	assert_int_not_equal(names_kernel_id("_Z6kernelPf"), names_kernel_id("_Z6kernelPi"));
	/* Not cut at max_string: long names that share a prefix differ. */
	config.max_string = 16;
	assert_int_not_equal(names_kernel_id("a_very_long_kernel_name_ending_in_1"),
	                     names_kernel_id("a_very_long_kernel_name_ending_in_2"));
}

static void test_kernel_name_once(void **state)
{
	static char long_name[3000];
	const char *name = "_Z9vectorAddPKfS0_Pfi";
	uint64_t id = names_kernel_id(name);

	(void)state;
	names_note_kernel(NULL, id, name);
	assert_int_equal(kernel_events, 0); /* disabled */
	TP_ENABLE(kernel_name, on_kernel_name);
	names_note_kernel(NULL, id, name);
	names_note_kernel(NULL, id, name);
	assert_int_equal(kernel_events, 1);
	assert_int_equal(kernel_last_id, id);
	assert_string_equal(kernel_last, name);
	names_note_kernel(NULL, 0, "no id");
	assert_int_equal(kernel_events, 1);
	names_announce_again();
	names_note_kernel(NULL, id, name);
	names_note_kernel(NULL, id, name);
	assert_int_equal(kernel_events, 2);
	/* Not cut at max_string: a mangled name cut can no longer be demangled. */
	config.max_string = 16;
	names_note_kernel(NULL, names_kernel_id("a_kernel_name_longer_than_16"),
	                  "a_kernel_name_longer_than_16");
	assert_int_equal(kernel_last_len, 28);
	/* Cut at CT_KERNEL_NAME_MAX, or at max_string when that is more. */
	memset(long_name, 'k', sizeof(long_name) - 1);
	long_name[0] = 'a';
	names_note_kernel(NULL, names_kernel_id(long_name), long_name);
	assert_int_equal(kernel_last_len, CT_KERNEL_NAME_MAX);
	config.max_string = 4096;
	long_name[0] = 'b';
	names_note_kernel(NULL, names_kernel_id(long_name), long_name);
	assert_int_equal(kernel_last_len, sizeof(long_name) - 1);
}

/* A thread's memo answers for the names it noted last, in the sets'
 * generation: not for a name noted while disabled, not after
 * names_announce_again, and not for a name another memo's thread noted
 * before the sets were cleared. */
static void test_memo(void **state)
{
	const char *name = "_Z6kernelPf";
	uint64_t id = names_kernel_id(name);
	struct names_memo memo = { 0 }, other = { 0 };

	(void)state;
	names_note_api(&memo, DRIVER, 50, "cuMemcpyHtoD_v2");
	names_note_kernel(&memo, id, name);
	TP_ENABLE(api_name, on_api_name);
	TP_ENABLE(kernel_name, on_kernel_name);
	names_note_api(&memo, DRIVER, 50, "cuMemcpyHtoD_v2");
	names_note_kernel(&memo, id, name);
	assert_int_equal(api_seen[DRIVER][50], 1);
	assert_int_equal(kernel_events, 1);
	for (int i = 0; i < 3; i++) {
		names_note_api(&memo, DRIVER, 50, "cuMemcpyHtoD_v2");
		names_note_kernel(&memo, id, name);
		names_note_api(&other, DRIVER, 50, "cuMemcpyHtoD_v2");
		names_note_kernel(&other, id, name);
	}
	assert_int_equal(api_seen[DRIVER][50], 1);
	assert_int_equal(kernel_events, 1);
	/* another call in between: both are still known */
	names_note_api(&memo, RUNTIME, 51, "cudaMemcpy_v3020");
	names_note_api(&memo, DRIVER, 50, "cuMemcpyHtoD_v2");
	assert_int_equal(api_seen[RUNTIME][51], 1);
	assert_int_equal(api_seen[DRIVER][50], 1);
	names_announce_again();
	names_note_api(&memo, DRIVER, 50, "cuMemcpyHtoD_v2");
	names_note_kernel(&other, id, name);
	names_note_kernel(&memo, id, name);
	names_note_api(&other, DRIVER, 50, "cuMemcpyHtoD_v2");
	assert_int_equal(api_seen[DRIVER][50], 2);
	assert_int_equal(kernel_events, 2);
}

/* More kernels than the set holds: every name is still recorded, those
 * the set could not keep once more each time they are noted. */
static void test_kernel_set_full(void **state)
{
	enum { KERNELS = 20000 };
	unsigned first;

	(void)state;
	TP_ENABLE(kernel_name, on_kernel_name);
	for (uint64_t k = 1; k <= KERNELS; k++)
		names_note_kernel(NULL, k * 0x9e3779b97f4a7c15ULL, "k");
	first = kernel_events;
	assert_int_equal(first, KERNELS);
	for (uint64_t k = 1; k <= KERNELS; k++)
		names_note_kernel(NULL, k * 0x9e3779b97f4a7c15ULL, "k");
	/* Some were kept (not emitted again), some could not be. */
	assert_true(kernel_events > first);
	assert_true(kernel_events - first < KERNELS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_api_name_once, fresh),
		cmocka_unit_test_setup(test_api_name_while_disabled, fresh),
		cmocka_unit_test_setup(test_api_name_announced_again, fresh),
		cmocka_unit_test_setup(test_api_name_race, fresh),
		cmocka_unit_test_setup(test_kernel_id, fresh),
		cmocka_unit_test_setup(test_kernel_name_once, fresh),
		cmocka_unit_test_setup(test_kernel_set_full, fresh),
		cmocka_unit_test_setup(test_memo, fresh),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("names", tests, NULL, NULL);
}
