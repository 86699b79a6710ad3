/* SPDX-License-Identifier: MIT */
/*
 * test-cuda-errors.c - the errors analysis fed with made-up calls: the
 * first sticky error of each process (cuda.h and driver_types.h: the
 * errors after which "any further CUDA work will return the same error"),
 * named in its call's API, and the failed calls after it; errors that are
 * not sticky are not taken for one; the kernel that faulted, the last the
 * process launched before the error, named (demangled) with its launch.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyses/cuda-errors.h"
#include "synthetic-events.h"

#define MALLOC      20  /* cudaMalloc */
#define DEVICE_SYNC 165 /* cudaDeviceSynchronize */
#define CTX_SYNC    17  /* cuCtxSynchronize (driver) */

/* Events from now on come from process PID's thread PID. */
static void synth_process(struct synth *s, int64_t pid)
{
	struct ct_context *ctx = ct_reader_context(s->reader);

	s->process = ct_context_process(ctx, "", pid);
	assert_non_null(s->process);
	s->thread = ct_context_thread(ctx, s->process, pid);
	assert_non_null(s->thread);
}

static void test_first_sticky_error(void **unused)
{
	const struct ct_node *sticky, *first, *second;
	struct synth s;

	(void)unused;
	synth_init(&s, &ct_cuda_errors_analysis, NULL);
	synth_api_name(&s, 1, CT_DOMAIN_RUNTIME, MALLOC, "cudaMalloc");
	synth_api_name(&s, 1, CT_DOMAIN_RUNTIME, DEVICE_SYNC, "cudaDeviceSynchronize");
	/* cudaErrorMemoryAllocation (2): an error, not a sticky one */
	synth_api_call(&s, 1000, CT_DOMAIN_RUNTIME, MALLOC, 1, 100, 2);
	/* cudaErrorIllegalAddress (700), then every call fails */
	synth_api_call(&s, 2000, CT_DOMAIN_RUNTIME, DEVICE_SYNC, 2, 100, 700);
	synth_api_call(&s, 3000, CT_DOMAIN_RUNTIME, MALLOC, 3, 100, 700);
	synth_api_call(&s, 4000, CT_DOMAIN_RUNTIME, DEVICE_SYNC, 4, 100, 700);
	synth_api_call(&s, 5000, CT_DOMAIN_RUNTIME, MALLOC, 5, 100, 0);
	/* another process: CUDA_ERROR_LAUNCH_FAILED (719) from the driver */
	synth_process(&s, 200);
	synth_api_name(&s, 6000, CT_DOMAIN_DRIVER, CTX_SYNC, "cuCtxSynchronize");
	synth_api_call(&s, 6000, CT_DOMAIN_DRIVER, CTX_SYNC, 6, 100, 719);
	sticky = node_path(synth_report(&s), "sticky_errors");

	assert_int_equal(ct_node_count(sticky), 2);
	first = node_at(sticky, 0);
	assert_int_equal(node_i64(first, "pid"), 100);
	assert_int_equal(node_i64(first, "time_ns"), 2100);
	assert_string_equal(node_str(first, "api"), "cudaDeviceSynchronize");
	assert_int_equal(node_i64(first, "code"), 700);
	assert_string_equal(node_str(first, "error"), "cudaErrorIllegalAddress");
	assert_int_equal(node_u64(first, "failed_after"), 2);
	second = node_at(sticky, 1);
	assert_int_equal(node_i64(second, "pid"), 200);
	assert_string_equal(node_str(second, "api"), "cuCtxSynchronize");
	assert_string_equal(node_str(second, "error"), "CUDA_ERROR_LAUNCH_FAILED");
	assert_int_equal(node_u64(second, "failed_after"), 0);
	/* no launch before either error: no kernel to name */
	assert_true(node_is_null(first, "kernel"));
	assert_true(node_is_null(first, "launch_site"));
	synth_fini(&s);
}

/* The error names no kernel: the last launch of the process before it does. */
static void test_faulting_kernel(void **unused)
{
	const struct ct_node *first;
	struct synth s;

	(void)unused;
	synth_init(&s, &ct_cuda_errors_analysis, NULL);
	synth_api_name(&s, 1, CT_DOMAIN_RUNTIME, DEVICE_SYNC, "cudaDeviceSynchronize");
	synth_api_name(&s, 1, CT_DOMAIN_RUNTIME, 211, "cudaLaunchKernel");
	synth_kernel_name(&s, 1, 0x10, "_Z5scalePfi");
	synth_kernel_name(&s, 1, 0x20, "_Z6gatherPfPKii");
	synth_launch_call(&s, 1000, 0x10, 1, 50);
	synth_launch_call(&s, 2000, 0x20, 2, 50);
	synth_api_call(&s, 3000, CT_DOMAIN_RUNTIME, DEVICE_SYNC, 3, 100, 700);
	/* a launch after the error is not the one that faulted */
	synth_launch_call(&s, 4000, 0x10, 4, 50);
	first = node_at(node_path(synth_report(&s), "sticky_errors"), 0);
	assert_string_equal(node_str(first, "kernel"), "gather(float*, int const*, int)");
	assert_int_equal(node_i64(first, "launch_time_ns"), 2050);
	assert_string_equal(node_str(first, "launch_site"), "cudaLaunchKernel");
	synth_fini(&s);
}

/* Errors that leave the context usable are never sticky, in either API. */
static void test_not_sticky(void **unused)
{
	struct synth s;

	(void)unused;
	assert_true(ct_cuda_error_is_sticky(CT_DOMAIN_RUNTIME, 700));
	assert_true(ct_cuda_error_is_sticky(CT_DOMAIN_DRIVER, 719));
	assert_false(ct_cuda_error_is_sticky(CT_DOMAIN_RUNTIME, 2));
	assert_false(ct_cuda_error_is_sticky(CT_DOMAIN_RUNTIME, 701)); /* out of resources */
	assert_false(ct_cuda_error_is_sticky(CT_DOMAIN_NVTX, 700));
	synth_init(&s, &ct_cuda_errors_analysis, NULL);
	synth_api_call(&s, 1000, CT_DOMAIN_RUNTIME, MALLOC, 1, 100, 2);
	synth_api_call(&s, 2000, CT_DOMAIN_RUNTIME, MALLOC, 2, 100, 701);
	assert_int_equal(ct_node_count(node_path(synth_report(&s), "sticky_errors")), 0);
	synth_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_sticky_error),
		cmocka_unit_test(test_not_sticky),
		cmocka_unit_test(test_faulting_kernel),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
