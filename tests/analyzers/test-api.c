/* SPDX-License-Identifier: MIT */
/*
 * test-api.c - the api analysis fed with made-up calls: host-time
 * statistics, errors by code and calls open at the end against values
 * computed by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "synthetic-events.h"

#define MALLOC      20  /* cudaMalloc */
#define DEVICE_SYNC 165 /* cudaDeviceSynchronize */
#define MEM_ALLOC   243 /* cuMemAlloc_v2 (driver) */

/*
 * cudaMalloc: 100, 200, 600, 500 ns, and 1100 ns returning
 * cudaErrorMemoryAllocation (count 5, total 2500, mean 500, median 500);
 * the failed one made a driver cuMemAlloc_v2 of 800 ns inside it, whose
 * api_call comes first. cudaDeviceSynchronize, a wait, with its
 * api_entry: 5000 ns, then one that never returns (entered at 20 µs; the
 * trace ends at 27 µs with another thread's cudaMalloc).
 */
static void test_api_statistics(void **unused)
{
	const struct ct_node *api, *sync, *malloc_row, *driver, *code;
	struct synth s;

	synth_init(&s, &ct_api_analysis, NULL);
	synth_api_name(&s, 1, CT_DOMAIN_RUNTIME, MALLOC, "cudaMalloc");
	synth_api_name(&s, 1, CT_DOMAIN_RUNTIME, DEVICE_SYNC, "cudaDeviceSynchronize");
	synth_api_name(&s, 1, CT_DOMAIN_DRIVER, MEM_ALLOC, "cuMemAlloc_v2");
	synth_api_call(&s, 1000, CT_DOMAIN_RUNTIME, MALLOC, 1, 100, 0);
	synth_api_call(&s, 2000, CT_DOMAIN_RUNTIME, MALLOC, 2, 200, 0);
	synth_api_call(&s, 3000, CT_DOMAIN_RUNTIME, MALLOC, 3, 600, 0);
	synth_api_call(&s, 4100, CT_DOMAIN_DRIVER, MEM_ALLOC, 5, 800, 2);
	synth_api_call(&s, 4000, CT_DOMAIN_RUNTIME, MALLOC, 4, 1100, 2);
	synth_api_entry(&s, 10000, CT_DOMAIN_RUNTIME, DEVICE_SYNC, 6);
	synth_api_call(&s, 10000, CT_DOMAIN_RUNTIME, DEVICE_SYNC, 6, 5000, 0);
	synth_api_entry(&s, 20000, CT_DOMAIN_RUNTIME, DEVICE_SYNC, 7);
	synth_thread(&s, 101);
	synth_api_call(&s, 26500, CT_DOMAIN_RUNTIME, MALLOC, 8, 500, 0);
	api = node_path(synth_report(&s), "api");

	assert_int_equal(ct_node_count(api), 3);
	sync = node_at(api, 0);
	malloc_row = node_at(api, 1);
	driver = node_at(api, 2);

	assert_string_equal(node_str(sync, "name"), "cudaDeviceSynchronize");
	assert_string_equal(node_str(sync, "domain"), "runtime");
	assert_int_equal(node_u64(sync, "calls"), 2);
	assert_int_equal(node_u64(sync, "count"), 1);
	assert_int_equal(node_i64(sync, "total_ns"), 5000);
	assert_int_equal(node_u64(sync, "open_at_end"), 1);
	assert_int_equal(node_i64(sync, "longest_open_ns"), 7000);
	assert_int_equal(node_u64(sync, "errors"), 0);

	assert_string_equal(node_str(malloc_row, "name"), "cudaMalloc");
	assert_int_equal(node_u64(malloc_row, "calls"), 5);
	assert_int_equal(node_u64(malloc_row, "count"), 5);
	assert_int_equal(node_i64(malloc_row, "total_ns"), 2500);
	assert_true(node_double(malloc_row, "mean_ns") == 500);
	assert_true(node_double(malloc_row, "median_ns") == 500);
	assert_int_equal(node_i64(malloc_row, "min_ns"), 100);
	assert_int_equal(node_i64(malloc_row, "max_ns"), 1100);
	assert_int_equal(node_u64(malloc_row, "errors"), 1);
	assert_int_equal(node_u64(malloc_row, "open_at_end"), 0);
	assert_true(node_is_null(malloc_row, "longest_open_ns"));
	code = node_at(node_path(malloc_row, "error_codes"), 0);
	assert_non_null(code);
	assert_int_equal(node_i64(code, "code"), 2);
	assert_string_equal(node_str(code, "error"), "cudaErrorMemoryAllocation");
	assert_int_equal(node_u64(code, "count"), 1);

	assert_string_equal(node_str(driver, "name"), "cuMemAlloc_v2");
	assert_string_equal(node_str(driver, "domain"), "driver");
	assert_int_equal(node_i64(driver, "total_ns"), 800);
	assert_string_equal(node_str(node_at(node_path(driver, "error_codes"), 0), "error"),
	                    "CUDA_ERROR_OUT_OF_MEMORY");
	synth_fini(&s);
}

/* Many calls: the median stays within the sketch's accuracy, min and max exact. */
static void test_many_calls(void **unused)
{
	const struct ct_node *row;
	struct synth s;
	int64_t t = 1000;

	synth_init(&s, &ct_api_analysis, NULL);
	for (uint32_t i = 1; i <= 10001; i++, t += 20000)
		synth_api_call(&s, t, CT_DOMAIN_RUNTIME, MALLOC, i, 1000 + i, 0);
	row = node_at(node_path(synth_report(&s), "api"), 0);
	assert_int_equal(node_u64(row, "count"), 10001);
	assert_int_equal(node_i64(row, "min_ns"), 1001);
	assert_int_equal(node_i64(row, "max_ns"), 11001);
	assert_true(node_double(row, "mean_ns") == 6001);
	assert_true(node_double(row, "median_ns") > 6001 * 0.99 &&
	            node_double(row, "median_ns") < 6001 * 1.01);
	/* the name comes from CUPTI's table when the trace has no api_name */
	assert_string_equal(node_str(row, "name"), "cudaMalloc");
	synth_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api_statistics),
		cmocka_unit_test(test_many_calls),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
