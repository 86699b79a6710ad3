/* SPDX-License-Identifier: MIT */
/*
 * test-kernels.c - the kernels analysis fed with made-up launches and GPU
 * records: per-kernel statistics, launch latencies, busy time and idle
 * gaps against values computed by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "synthetic-events.h"

#define LAUNCH 211 /* cudaLaunchKernel */
#define SAXPY  UINT64_C(0xa1)
#define REDUCE UINT64_C(0xb2)
#define US     1000

/* A run of a kernel: its GPU interval (µs) and the latency of its launch (µs). */
struct run {
	uint64_t kernel_id;
	int64_t start_us;
	int64_t end_us;
	int64_t latency_us;
};

/*
 * saxpy: 10, 20, 30, 40, 100 µs, launched 3, 4, 5, 6, 7 µs before they start;
 * reduce: 5, 7, 9, 11 µs. Busy 232 µs from 100 to 1011 µs: idle 679 µs, in
 * gaps of 90, 80, 70, 60, 10, 5, 3 and 361 µs.
 */
static const struct run runs[] = {
	{ SAXPY, 100, 110, 3 },  { SAXPY, 200, 220, 4 },  { SAXPY, 300, 330, 5 },
	{ SAXPY, 400, 440, 6 },  { SAXPY, 500, 600, 7 },  { REDUCE, 610, 615, 2 },
	{ REDUCE, 620, 627, 2 }, { REDUCE, 630, 639, 2 }, { REDUCE, 1000, 1011, 2 },
};
#define RUNS (sizeof(runs) / sizeof(runs[0]))

static void feed_runs(struct synth *s)
{
	synth_api_name(s, 1, CT_DOMAIN_RUNTIME, LAUNCH, "cudaLaunchKernel");
	synth_kernel_name(s, 1, SAXPY, "_Z5saxpyifPfS_");
	synth_kernel_name(s, 1, REDUCE, "reduce");
	for (size_t i = 0; i < RUNS; i++) {
		int64_t entry = (runs[i].start_us - runs[i].latency_us) * US;

		synth_launch_call(s, entry, runs[i].kernel_id, (uint32_t)(i + 1), 1500);
	}
	/* the records come back in one buffer, last first */
	for (size_t i = RUNS; i-- > 0;)
		synth_gpu_kernel(s, 2000 * US, runs[i].kernel_id, (uint32_t)(i + 1), 0,
		                 (uint64_t)(runs[i].start_us * US), (uint64_t)(runs[i].end_us * US),
		                 runs[i].kernel_id == SAXPY ? 128 : 64, 256);
}

/* The report of the kernels analysis fed the runs. */
static const struct ct_node *report_runs(struct synth *s)
{
	synth_init(s, &ct_kernels_analysis, NULL);
	feed_runs(s);
	return synth_report(s);
}

static void test_kernel_statistics(void **unused)
{
	const struct ct_node *kernels, *saxpy, *reduce;
	struct synth s;

	kernels = node_path(report_runs(&s), "kernels");

	assert_int_equal(ct_node_count(kernels), 2);
	saxpy = node_at(kernels, 0);
	reduce = node_at(kernels, 1);
	/* demangled by the C++ runtime's demangler */
	assert_string_equal(node_str(saxpy, "name"), "saxpy(int, float, float*, float*)");
	assert_string_equal(node_str(saxpy, "mangled_name"), "_Z5saxpyifPfS_");
	assert_int_equal(node_u64(saxpy, "launches"), 5);
	assert_int_equal(node_u64(saxpy, "count"), 5);
	assert_int_equal(node_i64(saxpy, "total_ns"), 200 * US);
	assert_true(node_double(saxpy, "mean_ns") == 40 * US);
	assert_true(node_double(saxpy, "median_ns") == 30 * US);
	assert_int_equal(node_i64(saxpy, "min_ns"), 10 * US);
	assert_int_equal(node_i64(saxpy, "max_ns"), 100 * US);
	assert_int_equal(node_i64(node_path(saxpy, "grid"), "x"), 128);
	assert_int_equal(node_i64(node_path(saxpy, "block"), "x"), 256);
	assert_int_equal(node_u64(saxpy, "configurations"), 1);
	assert_int_equal(node_u64(saxpy, "launch_latency_count"), 5);
	assert_true(node_double(saxpy, "launch_latency_mean_ns") == 5 * US);
	assert_true(node_double(saxpy, "launch_latency_median_ns") == 5 * US);
	assert_int_equal(node_i64(saxpy, "launch_latency_min_ns"), 3 * US);
	assert_int_equal(node_i64(saxpy, "launch_latency_max_ns"), 7 * US);

	/* a C name stays as it is */
	assert_string_equal(node_str(reduce, "name"), "reduce");
	assert_string_equal(node_str(reduce, "mangled_name"), "reduce");
	assert_int_equal(node_u64(reduce, "count"), 4);
	assert_int_equal(node_i64(reduce, "total_ns"), 32 * US);
	assert_true(node_double(reduce, "mean_ns") == 8 * US);
	/* an even count: the mean of the two middle values */
	assert_true(node_double(reduce, "median_ns") == 8 * US);
	assert_int_equal(node_i64(reduce, "min_ns"), 5 * US);
	assert_int_equal(node_i64(reduce, "max_ns"), 11 * US);
	assert_true(node_double(saxpy, "time_share") > 0.86 &&
	            node_double(saxpy, "time_share") < 0.87);
	synth_fini(&s);
}

static void test_busy_and_idle(void **unused)
{
	const struct ct_node *gpu, *device, *gaps;
	struct synth s;

	gpu = node_path(report_runs(&s), "gpu");

	assert_int_equal(node_u64(gpu, "launch_latency_count"), 9);
	assert_int_equal(node_i64(gpu, "launch_latency_min_ns"), 2 * US);
	device = node_at(node_path(gpu, "devices"), 0);
	assert_non_null(device);
	assert_int_equal(node_u64(device, "device"), 0);
	assert_int_equal(node_i64(device, "first_ns"), 100 * US);
	assert_int_equal(node_i64(device, "last_ns"), 1011 * US);
	assert_int_equal(node_i64(device, "busy_ns"), 232 * US);
	assert_int_equal(node_i64(device, "idle_ns"), 679 * US);
	assert_int_equal(node_u64(device, "idle_gap_count"), 8);
	assert_int_equal(node_u64(device, "late_records"), 0);
	gaps = node_path(device, "idle_gaps");
	assert_int_equal(ct_node_count(gaps), 8);
	assert_int_equal(node_i64(node_at(gaps, 0), "start_ns"), 639 * US);
	assert_int_equal(node_i64(node_at(gaps, 0), "duration_ns"), 361 * US);
	assert_int_equal(node_i64(node_at(gaps, 1), "duration_ns"), 90 * US);
	assert_int_equal(node_i64(node_at(gaps, 7), "duration_ns"), 3 * US);
	assert_true(ct_node_count(node_path(device, "timeline")) > 0);
	synth_fini(&s);
}

/* Overlapping kernels on two streams count once; a kernel without its launch still counts. */
static void test_overlap(void **unused)
{
	const struct ct_node *root, *device;
	struct synth s;

	synth_init(&s, &ct_kernels_analysis, NULL);
	synth_gpu_kernel(&s, 10 * US, SAXPY, 1, 0, 1 * US, 5 * US, 1, 1);
	synth_gpu_kernel(&s, 10 * US, SAXPY, 2, 0, 3 * US, 8 * US, 1, 1);
	synth_gpu_kernel(&s, 10 * US, SAXPY, 3, 0, 4 * US, 6 * US, 2, 1);
	root = synth_report(&s);
	device = node_at(node_path(node_path(root, "gpu"), "devices"), 0);
	assert_int_equal(node_i64(device, "busy_ns"), 7 * US);
	assert_int_equal(node_i64(device, "idle_ns"), 0);
	assert_int_equal(node_u64(node_path(root, "gpu"), "kernels_without_launch"), 3);
	assert_int_equal(node_u64(node_at(node_path(root, "kernels"), 0), "configurations"), 2);
	/* the trace never named it: the name is the id */
	assert_string_equal(node_str(node_at(node_path(root, "kernels"), 0), "name"),
	                    "0x00000000000000a1");
	assert_null(node_str(node_at(node_path(root, "kernels"), 0), "mangled_name"));
	synth_fini(&s);
}

/*
 * A record that comes before its launch's event (the tracer wrote it whole
 * while its launching call had not yet returned) is joined to the launch
 * when it comes: no kernel without launch, no launch without kernel, its
 * latency counted. One whose launch never comes is without launch.
 */
static void test_record_before_launch(void **unused)
{
	const struct ct_node *root, *gpu, *saxpy;
	struct synth s;

	synth_init(&s, &ct_kernels_analysis, NULL);
	synth_kernel_name(&s, 1, SAXPY, "saxpy");
	synth_gpu_kernel(&s, 30 * US, SAXPY, 1, 0, 20 * US, 25 * US, 1, 1);
	synth_gpu_kernel(&s, 30 * US, SAXPY, 2, 0, 25 * US, 29 * US, 1, 1);
	synth_gpu_kernel(&s, 30 * US, SAXPY, 9, 0, 29 * US, 30 * US, 1, 1);
	synth_launch_call(&s, 17 * US, SAXPY, 1, 14 * US);
	synth_launch_call(&s, 22 * US, SAXPY, 2, 9 * US);
	root = synth_report(&s);
	gpu = node_path(root, "gpu");
	assert_int_equal(node_u64(gpu, "kernels_without_launch"), 1);
	assert_int_equal(node_u64(gpu, "launches_without_kernel"), 0);
	saxpy = node_at(node_path(root, "kernels"), 0);
	assert_int_equal(node_u64(saxpy, "launches"), 2);
	assert_int_equal(node_u64(saxpy, "count"), 3);
	assert_int_equal(node_u64(saxpy, "launch_latency_count"), 2);
	assert_int_equal(node_i64(saxpy, "launch_latency_min_ns"), 3 * US);
	assert_int_equal(node_i64(saxpy, "launch_latency_max_ns"), 3 * US);
	synth_fini(&s);
}

/*
 * The reader joins each launch to its record: a launch that records no
 * call (entry 0) still has its kernel, with no latency; a launch whose
 * record never comes is a launch without kernel; a second record of one
 * launch is a kernel without launch.
 */
static void test_launch_joins(void **unused)
{
	const struct ct_node *root, *gpu, *saxpy;
	struct synth s;

	synth_init(&s, &ct_kernels_analysis, NULL);
	synth_kernel_name(&s, 1, SAXPY, "saxpy");
	synth_launch_call(&s, 10 * US, SAXPY, 1, 2 * US);
	synth_launch(&s, 13 * US, SAXPY, 2, 0);
	synth_launch_call(&s, 14 * US, SAXPY, 3, 1 * US);
	synth_gpu_kernel(&s, 40 * US, SAXPY, 1, 0, 15 * US, 20 * US, 1, 1);
	synth_gpu_kernel(&s, 40 * US, SAXPY, 2, 0, 20 * US, 22 * US, 1, 1);
	synth_gpu_kernel(&s, 40 * US, SAXPY, 1, 0, 22 * US, 23 * US, 1, 1);
	root = synth_report(&s);
	gpu = node_path(root, "gpu");
	assert_int_equal(node_u64(gpu, "kernels_without_launch"), 1);
	assert_int_equal(node_u64(gpu, "launches_without_kernel"), 1);
	saxpy = node_at(node_path(root, "kernels"), 0);
	assert_int_equal(node_u64(saxpy, "launches"), 3);
	assert_int_equal(node_u64(saxpy, "count"), 3);
	assert_int_equal(node_u64(saxpy, "launch_latency_count"), 1);
	assert_int_equal(node_i64(saxpy, "launch_latency_min_ns"), 5 * US);
	synth_fini(&s);
}

/* With --nvtx step, only the kernels launched inside "step" are rows; the GPU is busy with all. */
static void test_nvtx_filter(void **unused)
{
	const struct ct_node *root, *kernels;
	struct synth s;

	synth_nvtx_filter = "step";
	synth_init(&s, &ct_kernels_analysis, NULL);
	synth_nvtx_filter = NULL;
	synth_kernel_name(&s, 1, SAXPY, "saxpy");
	synth_kernel_name(&s, 1, REDUCE, "reduce");
	synth_nvtx_push(&s, 10 * US, "step");
	synth_launch_call(&s, 11 * US, SAXPY, 1, 1 * US);
	synth_nvtx_pop(&s, 13 * US);
	synth_launch_call(&s, 14 * US, REDUCE, 2, 1 * US);
	synth_gpu_kernel(&s, 40 * US, SAXPY, 1, 0, 20 * US, 25 * US, 1, 1);
	synth_gpu_kernel(&s, 40 * US, REDUCE, 2, 0, 25 * US, 35 * US, 1, 1);
	root = synth_report(&s);
	kernels = node_path(root, "kernels");
	assert_int_equal(ct_node_count(kernels), 1);
	assert_string_equal(node_str(node_at(kernels, 0), "name"), "saxpy");
	assert_int_equal(node_i64(node_at(kernels, 0), "launch_latency_min_ns"), 9 * US);
	assert_int_equal(
	    node_i64(node_at(node_path(node_path(root, "gpu"), "devices"), 0), "busy_ns"), 15 * US);
	synth_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_statistics),
		cmocka_unit_test(test_busy_and_idle),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_record_before_launch),
		cmocka_unit_test(test_nvtx_filter),
		cmocka_unit_test(test_launch_joins),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
