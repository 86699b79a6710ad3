/* SPDX-License-Identifier: MIT */
/*
 * test-filters.c - the filters follow the field roles of the event
 * contract (contract/events.def): every event with a device field is
 * dropped under --device for another device, a copy is kept for either
 * side, GPU work is placed in the time window by its GPU start, and what
 * live bytes need reaches the analyses before the window.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "read/filters.h"

static struct ct_process process = { .pid = 42, .procname = "train" };

static struct ct_event event(enum ct_event_type type, int64_t time_ns)
{
	return (struct ct_event){ .type = type, .time_ns = time_ns, .process = &process };
}

static enum ct_filter_verdict verdict(const struct ct_options *opts, const struct ct_event *ev)
{
	struct ct_filter filter;

	ct_filter_init(&filter, opts);
	return ct_filter_event(&filter, NULL, ev);
}

static struct ct_options on_device(unsigned device)
{
	struct ct_options opts;

	ct_options_init(&opts);
	opts.devices[0] = device;
	opts.device_count = 1;
	return opts;
}

/* Each layout with a device field: the event names device 1, the filter lists 0. */
static void test_every_device_field_filters(void **unused)
{
	struct ct_options opts = on_device(0);
	struct {
		enum ct_event_type type;
		uint8_t *device;
		struct ct_event ev;
	} cases[] = {
		{ CT_EV_MEM_ALLOC, NULL, event(CT_EV_MEM_ALLOC, 10) },
		{ CT_EV_LAUNCH, NULL, event(CT_EV_LAUNCH, 10) },
		{ CT_EV_LAUNCH_UNCONFIGURED, NULL, event(CT_EV_LAUNCH_UNCONFIGURED, 10) },
		{ CT_EV_MODULE_LOAD, NULL, event(CT_EV_MODULE_LOAD, 10) },
		{ CT_EV_GPU_KERNEL, NULL, event(CT_EV_GPU_KERNEL, 10) },
		{ CT_EV_NVML_SAMPLE, NULL, event(CT_EV_NVML_SAMPLE, 10) },
	};

	(void)unused;
	cases[0].ev.u.mem.device = 1;
	cases[1].ev.u.launch.device = 1;
	cases[2].ev.u.launch_unconfigured.device = 1;
	cases[3].ev.u.module_load.device = 1;
	cases[4].ev.u.gpu_kernel.device = 1;
	cases[5].ev.u.nvml_sample.device = 1;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(verdict(&opts, &cases[i].ev), CT_FILTER_DROP);
	cases[3].ev.u.module_load.device = 0;
	assert_int_equal(verdict(&opts, &cases[3].ev), CT_FILTER_KEEP);
	/* an event that names no device is kept */
	cases[0].ev.u.mem.device = CT_DEVICE_NONE;
	assert_int_equal(verdict(&opts, &cases[0].ev), CT_FILTER_KEEP);
	/* an event without a device field is kept */
	struct ct_event name = event(CT_EV_API_NAME, 10);
	assert_int_equal(verdict(&opts, &name), CT_FILTER_KEEP);
}

/* A copy names two devices: kept when either is listed. */
static void test_copy_either_side(void **unused)
{
	struct ct_options opts = on_device(1);
	struct ct_event ev = event(CT_EV_MEMCPY, 10);

	(void)unused;
	ev.u.memcpy.src_device = CT_DEVICE_NONE;
	ev.u.memcpy.dst_device = 1;
	assert_int_equal(verdict(&opts, &ev), CT_FILTER_KEEP);
	ev.u.memcpy.src_device = 1;
	ev.u.memcpy.dst_device = CT_DEVICE_NONE;
	assert_int_equal(verdict(&opts, &ev), CT_FILTER_KEEP);
	ev.u.memcpy.src_device = 0;
	ev.u.memcpy.dst_device = CT_DEVICE_NONE;
	assert_int_equal(verdict(&opts, &ev), CT_FILTER_DROP);
	ev.u.memcpy.src_device = 0;
	ev.u.memcpy.dst_device = 2;
	assert_int_equal(verdict(&opts, &ev), CT_FILTER_DROP);
}

/* The window: GPU work by its GPU start; allocations before it still delivered. */
static void test_window(void **unused)
{
	struct ct_options opts;
	struct ct_event kernel = event(CT_EV_GPU_KERNEL, 5000);
	struct ct_event pool = event(CT_EV_GPU_MEMORY_POOL, 5000);
	struct ct_event alloc = event(CT_EV_MEM_ALLOC, 100);
	struct ct_event launch = event(CT_EV_LAUNCH, 100);

	(void)unused;
	ct_options_init(&opts);
	opts.has_from = true;
	opts.from_ns = 1000;
	opts.has_to = true;
	opts.to_ns = 2000;
	kernel.u.gpu_kernel.start = 1500;
	assert_int_equal(verdict(&opts, &kernel), CT_FILTER_KEEP);
	kernel.u.gpu_kernel.start = 2500;
	assert_int_equal(verdict(&opts, &kernel), CT_FILTER_DROP);
	pool.u.gpu_memory_pool.timestamp = 1200;
	assert_int_equal(verdict(&opts, &pool), CT_FILTER_KEEP);
	assert_int_equal(verdict(&opts, &alloc), CT_FILTER_BEFORE);
	assert_int_equal(verdict(&opts, &launch), CT_FILTER_DROP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_device_field_filters),
		cmocka_unit_test(test_copy_either_side),
		cmocka_unit_test(test_window),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
