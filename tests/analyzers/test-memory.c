/* SPDX-License-Identifier: MIT */
/*
 * test-memory.c - the memory analysis fed synthetic events with known
 * truth: the peak and exactly the allocations live at it, leaks inside a
 * named NVTX range, ranges that grow step after step, kinds, address reuse,
 * the bounded time series; memory CUDA reclaims, releases that fail; the
 * live set of statedumps, and what a trace whose window starts after
 * allocations can and cannot say; one accounting of the allocations for
 * the memory, fragmentation and cells analyses of a pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "feed.h"
#include "common/series.h"
#include "model/accounting.h"

#define PID  100
#define BASE UINT64_C(0x7f0000000000)

static const struct ct_analysis_class *const memory_only[] = { &ct_memory_analysis, NULL };

/*
 * A(1M) B(2M) C(4M) -> 7M, the peak; free B, D(1M), free A: 5M. The peak
 * set is {C, B, A}, B and A freed since. Then E(3M): 8M, a new peak whose
 * set is {C, D, E} (A and B must not reappear).
 */
static void test_peak_allocations(void **state)
{
	struct feed f;
	int64_t peak_time;

	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 0 * MIB, 1 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * MIB, 2 * MIB);
	peak_time = f.now;
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 4 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * MIB, 2 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 1 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 0 * MIB, 1 * MIB);
	/* host memory never counts in the device's peak */
	feed_alloc(&f, PID, PID, 0, CT_MEM_HOST_PINNED, BASE + 64 * MIB, 32 * MIB);
	feed_report(&f);

	assert_int_equal(feed_count(&f, "memory.devices"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.pid"), PID);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 7 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_time_ns"), peak_time);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocation_count"), 3);
	assert_int_equal(feed_count(&f, "memory.devices.0.peak_allocations"), 3);
	/* largest first */
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.0.address"),
	                 BASE + 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.1.address"),
	                 BASE + 2 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.2.address"),
	                 BASE + 0 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.0.age_ns"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.2.age_ns"), 2000);
	assert_string_equal(feed_string(&f, "memory.devices.0.peak_allocations.0.api"),
	                    "cudaMalloc");
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.0.tid"), PID);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 5 * MIB);
	feed_release(&f);

	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 0 * MIB, 1 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * MIB, 2 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 4 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * MIB, 2 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 1 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 0 * MIB, 1 * MIB);
	peak_time = f.now;
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 12 * MIB, 3 * MIB);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 8 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_time_ns"), peak_time);
	assert_int_equal(feed_count(&f, "memory.devices.0.peak_allocations"), 3);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.0.address"),
	                 BASE + 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.1.address"),
	                 BASE + 12 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.2.address"),
	                 BASE + 8 * MIB);
	feed_release(&f);
}

/*
 * Four repetitions of train/step, each allocating activations (freed) and
 * a 1 MiB buffer it keeps: exactly four leaks, all at
 * "train/step:cudaMalloc", and train/step a range that grows 1 MiB a step.
 */
static void test_leak_in_nvtx_range(void **state)
{
	struct feed f;
	int64_t first_leak = 0;

	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 512 << 10); /* freed at the end */
	feed_push(&f, PID, PID, "train");
	for (int step = 0; step < 4; step++) {
		feed_push(&f, PID, PID, "step");
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 64 * MIB, 2 * MIB);
		if (step == 0)
			first_leak = f.now;
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + (uint64_t)(2 + 2 * step) * MIB,
		           1 * MIB);
		feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 64 * MIB, 2 * MIB);
		feed_pop(&f, PID, PID);
	}
	feed_pop(&f, PID, PID);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 512 << 10);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), 4);
	assert_int_equal(feed_int(&f, "memory.devices.0.leaked_bytes"), 4 * MIB);
	assert_int_equal(feed_count(&f, "memory.devices.0.leaks"), 4);
	for (int i = 0; i < 4; i++) {
		char path[128];

		snprintf(path, sizeof(path), "memory.devices.0.leaks.%d.site", i);
		assert_string_equal(feed_string(&f, path), "train/step:cudaMalloc");
		snprintf(path, sizeof(path), "memory.devices.0.leaks.%d.nvtx_path", i);
		assert_string_equal(feed_string(&f, path), "train/step");
		snprintf(path, sizeof(path), "memory.devices.0.leaks.%d.size", i);
		assert_int_equal(feed_int(&f, path), MIB);
	}
	/* equal sizes: oldest first */
	assert_int_equal(feed_int(&f, "memory.devices.0.leaks.0.address"), BASE + 2 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.leaks.0.alloc_time_ns"), first_leak);
	assert_int_equal(feed_count(&f, "memory.devices.0.leak_sites"), 1);
	assert_string_equal(feed_string(&f, "memory.devices.0.leak_sites.0.site"),
	                    "train/step:cudaMalloc");
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_sites.0.count"), 4);
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_sites.0.bytes"), 4 * MIB);

	/* "train" ran once: not a pattern; "train/step" holds 1 MiB more each time */
	assert_int_equal(feed_count(&f, "memory.growing_ranges"), 1);
	assert_string_equal(feed_string(&f, "memory.growing_ranges.0.range"), "train/step");
	assert_int_equal(feed_int(&f, "memory.growing_ranges.0.repetitions"), 4);
	assert_int_equal(feed_int(&f, "memory.growing_ranges.0.growing_repetitions"), 3);
	assert_int_equal(feed_int(&f, "memory.growing_ranges.0.held_after_first_bytes"), MIB);
	assert_int_equal(feed_int(&f, "memory.growing_ranges.0.held_after_last_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.growing_ranges.0.growth_per_repetition_bytes"), MIB);
	assert_int_equal(feed_int(&f, "memory.growing_ranges.0.held_at_end_bytes"), 4 * MIB);
	feed_release(&f);
}

/* A range whose memory is freed by the next step is not growing. */
static void test_balanced_range_not_growing(void **state)
{
	struct feed f;

	feed_init(&f, memory_only);
	for (int step = 0; step < 5; step++) {
		feed_push(&f, PID, PID, "step");
		if (step > 0)
			feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + (uint64_t)(step - 1) * MIB,
			          MIB);
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + (uint64_t)step * MIB, MIB);
		feed_pop(&f, PID, PID);
	}
	feed_report(&f);
	assert_int_equal(feed_count(&f, "memory.growing_ranges"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), 1);
	feed_release(&f);
}

/* Kinds, devices, processes and frees the analysis never saw allocated. */
static void test_kinds_devices_processes(void **state)
{
	struct feed f;

	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_MANAGED, BASE + 16 * MIB, 2 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_ASYNC, BASE + 32 * MIB, 1 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_VMM_PHYSICAL, 7, 8 * MIB);
	/* a mapping is not memory of its own */
	feed_alloc(&f, PID, PID, 0, CT_MEM_VMM_MAP, BASE + 64 * MIB, 8 * MIB);
	feed_alloc(&f, PID, PID, 1, CT_MEM_DEVICE, BASE + 128 * MIB, 3 * MIB);
	/* the same address in another process is another allocation */
	feed_alloc(&f, PID + 1, PID + 1, 0, CT_MEM_DEVICE, BASE, 5 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 999 * MIB, 0);
	feed_free(&f, PID + 1, PID + 1, 0, CT_MEM_DEVICE, BASE, 5 * MIB);
	feed_report(&f);

	assert_int_equal(feed_count(&f, "memory.devices"), 3);
	assert_int_equal(feed_int(&f, "memory.devices.0.device"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 15 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 15 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.unknown_frees"), 1);
	assert_int_equal(feed_count(&f, "memory.devices.0.kinds"), 4);
	assert_int_equal(feed_int(&f, "memory.devices.1.device"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.1.peak_bytes"), 3 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.2.pid"), PID + 1);
	assert_int_equal(feed_int(&f, "memory.devices.2.peak_bytes"), 5 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.2.live_at_end_bytes"), 0);
	feed_release(&f);
}

/* An address allocated again without a free in between replaces the old allocation. */
static void test_address_reuse(void **state)
{
	struct feed f;

	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 1 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), 1);
	feed_release(&f);
}

/* A long run keeps a bounded series whose maximum is the peak. */
static void test_series_bounded(void **state)
{
	struct feed f;
	size_t points;
	int64_t highest = 0;

	feed_init(&f, memory_only);
	f.opts.series_points = 64;
	for (int i = 0; i < 20000; i++) {
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, (uint64_t)(i % 977) * 4096);
		feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, (uint64_t)(i % 977) * 4096);
	}
	feed_report(&f);
	points = feed_count(&f, "memory.timeline");
	assert_true(points > 8 && points <= 64);
	for (size_t i = 0; i < points; i++) {
		char path[64];

		snprintf(path, sizeof(path), "memory.timeline.%zu.max_bytes", i);
		if (feed_int(&f, path) > highest)
			highest = feed_int(&f, path);
	}
	assert_int_equal(highest, feed_int(&f, "memory.devices.0.peak_bytes"));
	assert_int_equal(highest, 976 * 4096);
	feed_release(&f);
}

/* Buckets widen to round widths, each a multiple of the one before: 1, 2, 10, 20 ns, ... */
static void test_series_widths(void **state)
{
	static const int64_t widths[] = { 1, 2, 10, 20, 100, 200, 1000, 2000, 10000, 20000 };
	struct ct_series s;

	(void)state;
	for (size_t i = 0; i + 1 < sizeof(widths) / sizeof(widths[0]); i++)
		assert_int_equal(ct_series_wider(widths[i]), widths[i + 1]);
	/* a series that ran out of buckets has one of those widths */
	ct_series_init(&s, 4);
	for (int64_t t = 0; t < 12345; t += 7)
		ct_series_add(&s, t, t);
	assert_int_equal(s.width_ns, 10000);
	assert_true(s.points->len <= 4);
	ct_series_release(&s);
}

/* The series on its own: merging keeps min, max and last. */
static void test_series_merge(void **state)
{
	struct ct_series s;

	ct_series_init(&s, 4);
	for (int64_t t = 0; t < 1000; t++)
		ct_series_add(&s, t, t == 500 ? 1000 : t % 10);
	assert_true(s.points->len <= 4);
	assert_int_equal(ct_series_at(&s, s.points->len - 1)->last, 999 % 10);
	{
		int64_t max = 0, min = 1000;

		for (size_t i = 0; i < s.points->len; i++) {
			const struct ct_series_point *p = ct_series_at(&s, i);

			max = p->max > max ? p->max : max;
			min = p->min < min ? p->min : min;
		}
		assert_int_equal(max, 1000);
		assert_int_equal(min, 0);
	}
	ct_series_release(&s);
}

/*
 * The live allocations against a plain array, through many allocations and
 * frees of reused addresses: what is left, and its size, at the end.
 */
static void test_many_allocations(void **state)
{
	enum { N = 2000 };
	static uint8_t live[N];
	uint64_t count = 0, bytes = 0;
	unsigned seed = 1;
	struct feed f;

	feed_init(&f, memory_only);
	for (int round = 0; round < 20000; round++) {
		unsigned i = (seed = seed * 1103515245 + 12345) % N;
		uint64_t address = BASE + (uint64_t)i * 512;

		if (live[i])
			feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, address, 1 + i);
		else
			feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, address, 1 + i);
		live[i] = !live[i];
	}
	for (unsigned i = 0; i < N; i++) {
		count += live[i];
		bytes += live[i] ? 1 + i : 0;
	}
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), count);
	assert_int_equal(feed_int(&f, "memory.devices.0.leaked_bytes"), bytes);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), bytes);
	assert_int_equal(feed_int(&f, "memory.devices.0.unknown_frees"), 0);
	feed_release(&f);
}

/*
 * A(4M) and B(2M); the program frees B, then cudaDeviceReset reclaims A:
 * nothing is live at the end, and A is not called freed: it is listed as
 * reclaimed by cudaDeviceReset, never freed by the program. C(1M), made
 * after the reset, is reclaimed at a context's teardown with no call.
 */
static void test_reclaimed_at_reset(void **state)
{
	struct feed f;
	int64_t a_time, reset_time;

	feed_init(&f, memory_only);
	a_time = f.now;
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 2 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 2 * MIB);
	reset_time = f.now;
	feed_reclaim(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB, CBID_CUDA_DEVICE_RESET);
	/* the address is given out again after the reset */
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_reclaim(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 1 * MIB, 0);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 6 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.0.frees"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.unknown_frees"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.0.reclaimed_count"), 2);
	assert_int_equal(feed_int(&f, "memory.devices.0.reclaimed_bytes"), 5 * MIB);
	assert_int_equal(feed_count(&f, "memory.devices.0.reclaimed"), 2);
	/* largest first */
	assert_int_equal(feed_int(&f, "memory.devices.0.reclaimed.0.address"), BASE);
	assert_int_equal(feed_int(&f, "memory.devices.0.reclaimed.0.size"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.reclaimed.0.alloc_time_ns"), a_time);
	assert_int_equal(feed_int(&f, "memory.devices.0.reclaimed.0.reclaimed_ns"), reset_time);
	assert_string_equal(feed_string(&f, "memory.devices.0.reclaimed.0.reclaimed_by"),
	                    "cudaDeviceReset");
	assert_string_equal(feed_string(&f, "memory.devices.0.reclaimed.0.site"), "cudaMalloc");
	assert_string_equal(feed_string(&f, "memory.devices.0.reclaimed.0.note"),
	                    "reclaimed by cudaDeviceReset, never freed by the program");
	assert_int_equal(feed_get(&f, "memory.devices.0.reclaimed.1.reclaimed_by")->type,
	                 CT_NODE_NULL);
	assert_string_equal(feed_string(&f, "memory.devices.0.reclaimed.1.note"),
	                    "reclaimed at context teardown, never freed by the program");
	feed_release(&f);
}

/*
 * A(4M) is freed on one thread, whose release then fails (mem_free_failed,
 * the mem_free having come at the call's entry); meanwhile another thread
 * allocates B(2M). A is live again, as it was: 6 MiB live at the end, both
 * leaks, and the peak is 6 MiB with both live at it. A failed release of
 * another call does not bring anything back.
 */
static void test_free_failed(void **state)
{
	struct feed f;
	int64_t a_time, peak_time;

	feed_init(&f, memory_only);
	a_time = f.now;
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_push(&f, PID, PID, "step");
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc(&f, PID, PID + 1, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 2 * MIB);
	peak_time = f.now;
	feed_free_failed(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_pop(&f, PID, PID);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 6 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), 2);
	assert_int_equal(feed_int(&f, "memory.devices.0.failed_frees"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.frees"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 6 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_time_ns"), peak_time);
	assert_int_equal(feed_count(&f, "memory.devices.0.caveats"), 0);
	/* A as it was allocated: its time and site, outside the range */
	assert_int_equal(feed_int(&f, "memory.devices.0.leaks.0.address"), BASE);
	assert_int_equal(feed_int(&f, "memory.devices.0.leaks.0.alloc_time_ns"), a_time);
	assert_string_equal(feed_string(&f, "memory.devices.0.leaks.0.site"), "cudaMalloc");
	assert_int_equal(feed_count(&f, "memory.growing_ranges"), 0);
	feed_release(&f);

	/*
	 * C's release fails, but its mem_free is not the thread's last release:
	 * the failure still says C is live, from then on; when it was made the
	 * trace cannot say, so the figures before may miss it.
	 */
	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 16 * MIB, 1 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 16 * MIB, 1 * MIB);
	f.free_correlation_id = 999;
	feed_free_failed(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 16 * MIB, 1 * MIB);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 1 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), 1);
	assert_int_equal(feed_get(&f, "memory.devices.0.leaks.0.alloc_time_ns")->type,
	                 CT_NODE_NULL);
	assert_string_equal(feed_string(&f, "memory.devices.0.caveats.0.figure"), "peak_bytes");
	assert_string_equal(feed_string(&f, "memory.devices.0.caveats.0.caveat"), "lower_bound");
	/* what is live at the end is known */
	assert_int_equal(feed_count(&f, "memory.devices.0.caveats"), 6);
	feed_release(&f);

	/* at its peak: A once, not also among the freed copies */
	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_free_failed(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 2 * MIB);
	peak_time = f.now - 1000;
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 6 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_time_ns"), peak_time);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocation_count"), 2);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 6 * MIB);
	feed_release(&f);
}

/* The index of the caveat (FIGURE, CAVEAT) of the device at PATH, -1 if none. */
static int caveat_of(const struct feed *f, const char *path, const char *figure, const char *caveat)
{
	char key[160];
	size_t n;

	snprintf(key, sizeof(key), "%s.caveats", path);
	n = feed_count(f, key);
	for (size_t i = 0; i < n; i++) {
		char fig[192], cav[192];

		snprintf(fig, sizeof(fig), "%s.caveats.%zu.figure", path, i);
		snprintf(cav, sizeof(cav), "%s.caveats.%zu.caveat", path, i);
		if (!strcmp(feed_string(f, fig), figure) && !strcmp(feed_string(f, cav), caveat))
			return (int)i;
	}
	return -1;
}

/*
 * A session starts while the program runs: its statedump begins, the
 * program frees X (1 MiB, made before the trace) before X's mem_live comes,
 * then Y (2 MiB) comes, and the dump ends complete. As of statedump_begin
 * both were live: 3 MiB, the peak, at the window's start, with X and Y live
 * at it; X is not live again; Y is live at the end. Z (512 KiB) after.
 */
static void test_statedump_concurrent_free(void **state)
{
	struct feed f;
	int64_t start, before = 500000000;

	feed_init(&f, memory_only);
	start = f.now;
	feed_dump_begin(&f, PID, 1, CT_STATEDUMP_SESSION_START);
	feed_free(&f, PID, PID + 1, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_mem_live(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 1 * MIB, before, 7);
	feed_mem_live(&f, PID, 1, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 2 * MIB, before + 10, 8);
	feed_dump_end(&f, PID, 1, 2, true);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 512 << 10);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 3 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_time_ns"), start);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocation_count"), 2);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.0.address"),
	                 BASE + 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_allocations.1.address"), BASE);
	/* X is known from its free only: when it was made, and where, the trace cannot say */
	assert_int_equal(feed_get(&f, "memory.devices.0.peak_allocations.1.alloc_time_ns")->type,
	                 CT_NODE_NULL);
	assert_int_equal(feed_get(&f, "memory.devices.0.peak_allocations.1.site")->type,
	                 CT_NODE_NULL);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 2 * MIB + (512 << 10));
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), 2);
	/* Y as the dump gave it: made before the trace by cudaMalloc */
	assert_int_equal(feed_int(&f, "memory.devices.0.leaks.0.address"), BASE + 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.leaks.0.alloc_time_ns"), before + 10);
	assert_string_equal(feed_string(&f, "memory.devices.0.leaks.0.site"), "cudaMalloc");
	assert_int_equal(feed_int(&f, "memory.devices.0.leaks.0.tid"), -1);
	assert_int_equal(feed_int(&f, "memory.devices.0.before_window_allocations"), 2);
	assert_int_equal(feed_int(&f, "memory.devices.0.before_window_bytes"), 3 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.unknown_frees"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.allocations"), 1);
	/* the complete dump gave the whole live set: nothing is a lower bound */
	assert_int_equal(feed_count(&f, "memory.devices.0.caveats"), 0);
	assert_int_equal(feed_count(&f, "memory.caveats"), 0);
	/* the series agrees with the peak */
	assert_int_equal(feed_int(&f, "memory.timeline.0.max_bytes"), 3 * MIB);
	feed_release(&f);

	/* the same dump, never ended: a lower bound, and said why */
	feed_init(&f, memory_only);
	feed_dump_begin(&f, PID, 1, CT_STATEDUMP_SESSION_START);
	feed_mem_live(&f, PID, 1, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 2 * MIB, before, 8);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 512 << 10);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 2 * MIB + (512 << 10));
	assert_true(caveat_of(&f, "memory.devices.0", "peak_bytes", "lower_bound") >= 0);
	assert_true(caveat_of(&f, "memory.devices.0", "live_at_end_bytes", "lower_bound") >= 0);
	assert_true(caveat_of(&f, "memory.devices.0", "leaks", "incomplete") >= 0);
	assert_int_equal(feed_count(&f, "memory.caveats"), 1);
	assert_string_equal(feed_string(&f, "memory.caveats.0.cause"), "allocations_before_window");
	assert_non_null(strstr(feed_string(&f, "memory.caveats.0.explanation"),
	                       "its session started while the program ran"));
	assert_non_null(strstr(feed_string(&f, "memory.caveats.0.explanation"), "lower bounds"));
	feed_release(&f);
}

/*
 * A periodic dump whose mem_live of B comes before B's mem_alloc (the
 * tracer holds B in its map before it emits the mem_alloc): one
 * allocation, at the site of its mem_alloc, counted from its mem_live.
 */
static void test_alloc_after_its_mem_live(void **state)
{
	struct feed f;
	int64_t live_time;

	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_dump_begin(&f, PID, 1, CT_STATEDUMP_PERIODIC);
	feed_mem_live(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 1 * MIB, f.now - 2000, 1);
	live_time = f.now;
	feed_mem_live(&f, PID, 1, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 2 * MIB, f.now - 10, 42);
	feed_dump_end(&f, PID, 1, 2, true);
	feed_push(&f, PID, PID, "step");
	feed_alloc_call(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 2 * MIB, 42);
	feed_pop(&f, PID, PID);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.allocations"), 2);
	assert_int_equal(feed_int(&f, "memory.devices.0.frees"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 3 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), 2);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 3 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_time_ns"), live_time);
	assert_string_equal(feed_string(&f, "memory.devices.0.leaks.0.site"), "step:cudaMalloc");
	assert_int_equal(feed_int(&f, "memory.devices.0.before_window_allocations"), 0);
	assert_int_equal(feed_count(&f, "memory.devices.0.caveats"), 0);
	feed_release(&f);

	/* its mem_alloc never comes (lost): the figures before its mem_live miss it */
	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_dump_begin(&f, PID, 1, CT_STATEDUMP_PERIODIC);
	feed_mem_live(&f, PID, 1, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 2 * MIB, f.now - 10, 42);
	feed_dump_end(&f, PID, 1, 1, true);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 3 * MIB);
	assert_true(caveat_of(&f, "memory.devices.0", "peak_bytes", "lower_bound") >= 0);
	assert_true(caveat_of(&f, "memory.devices.0", "live_at_end_bytes", "lower_bound") < 0);
	feed_release(&f);
}

/*
 * No statedump. The first process frees X (4 MiB), which the trace never
 * saw allocated: X was live from the window's start, so the peak is 4 MiB
 * there; and other allocations made before the window may still be live:
 * what is live at the end is a lower bound. The second has its context
 * events, and its memory precedes its context's creation: the same. The
 * third created its context first: nothing to say.
 */
static void test_window_after_allocations(void **state)
{
	struct feed f;
	int64_t start;

	feed_init(&f, memory_only);
	start = f.now;
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 1 * MIB);
	feed_alloc(&f, PID + 1, PID + 1, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_context(&f, PID + 1, 0, false);
	feed_context(&f, PID + 2, 0, true);
	feed_alloc(&f, PID + 2, PID + 2, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_context(&f, PID + 2, 0, false);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_time_ns"), start);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 1 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.before_window_allocations"), 1);
	assert_true(caveat_of(&f, "memory.devices.0", "peak_bytes", "lower_bound") >= 0);
	assert_true(caveat_of(&f, "memory.devices.0", "live_at_end_bytes", "lower_bound") >= 0);
	assert_true(caveat_of(&f, "memory.devices.0", "leaks", "incomplete") >= 0);
	assert_true(caveat_of(&f, "memory.devices.1", "live_at_end_bytes", "lower_bound") >= 0);
	assert_int_equal(feed_count(&f, "memory.devices.2.caveats"), 0);
	assert_int_equal(feed_count(&f, "memory.caveats"), 2);
	assert_int_equal(feed_int(&f, "memory.caveats.0.pid"), PID);
	assert_non_null(strstr(feed_string(&f, "memory.caveats.0.explanation"),
	                       "releases of memory it never saw allocated"));
	assert_non_null(strstr(feed_string(&f, "memory.caveats.1.explanation"),
	                       "before that device's context was created"));
	assert_string_equal(feed_string(&f, "memory.caveats.0.evidence.0"),
	                    "release_of_unseen_memory");
	assert_string_equal(feed_string(&f, "memory.caveats.0.evidence.1"), "no_statedump");
	assert_string_equal(feed_string(&f, "memory.caveats.1.evidence.0"),
	                    "memory_before_context");
	feed_release(&f);

	/* a complete dump later: everything is known, the early free's size included */
	feed_init(&f, memory_only);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 1 * MIB);
	feed_dump_begin(&f, PID, 1, CT_STATEDUMP_PERIODIC);
	feed_mem_live(&f, PID, 1, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 1 * MIB, f.now - 2000, 2);
	feed_dump_end(&f, PID, 1, 1, true);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 4 * MIB);
	assert_int_equal(feed_count(&f, "memory.devices.0.caveats"), 0);
	feed_release(&f);

	/* a free of memory the tracer did not know either (no size): the figures before it */
	feed_init(&f, memory_only);
	feed_dump_begin(&f, PID, 1, CT_STATEDUMP_SESSION_START);
	feed_dump_end(&f, PID, 1, 0, true);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 1 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 0);
	feed_report(&f);
	assert_true(caveat_of(&f, "memory.devices.0", "peak_bytes", "lower_bound") >= 0);
	assert_true(caveat_of(&f, "memory.devices.0", "live_at_end_bytes", "lower_bound") < 0);
	assert_non_null(
	    strstr(feed_string(&f, "memory.caveats.0.explanation"), "sizes are unknown"));
	feed_release(&f);
}

/*
 * LTTng discards events after A is allocated: B's allocation and A's free
 * may be among them. Every figure from then on is uncertain, the leak is a
 * possible leak; a process whose events ended before the loss keeps exact
 * figures.
 */
static void test_events_discarded(void **state)
{
	struct feed f;
	int64_t from;

	feed_init(&f, memory_only);
	feed_alloc(&f, PID + 1, PID + 1, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	from = f.now;
	feed_discard(&f, 5);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 1 * MIB);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "trace.discarded_events"), 5);
	assert_int_equal(feed_int(&f, "trace.discarded_from_ns"), from);
	/* the figures are the trace's: what it has */
	assert_int_equal(feed_int(&f, "memory.devices.0.pid"), PID + 1);
	assert_int_equal(feed_count(&f, "memory.devices.0.caveats"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.1.live_at_end_bytes"), 5 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.1.leak_count"), 2);
	assert_true(caveat_of(&f, "memory.devices.1", "peak_bytes", "uncertain") >= 0);
	assert_true(caveat_of(&f, "memory.devices.1", "live_at_end_bytes", "uncertain") >= 0);
	assert_true(caveat_of(&f, "memory.devices.1", "leaks", "possible") >= 0);
	assert_true(caveat_of(&f, "memory.devices.1", "leak_count", "uncertain") >= 0);
	assert_true(caveat_of(&f, "memory.devices.1", "timeline", "uncertain") >= 0);
	assert_true(caveat_of(&f, "memory.devices.1", "allocations", "lower_bound") >= 0);
	assert_string_equal(feed_string(&f, "memory.devices.1.caveats.0.cause"),
	                    "events_discarded");
	assert_string_equal(ct_node_get(feed_get(&f, "memory.devices.1"), "leaks")->title,
	                    "Possible leaks, live at the end");
	assert_int_equal(feed_count(&f, "memory.caveats"), 1);
	assert_int_equal(feed_int(&f, "memory.caveats.0.pid"), PID);
	assert_string_equal(feed_string(&f, "memory.caveats.0.cause"), "events_discarded");
	assert_non_null(strstr(feed_string(&f, "memory.caveats.0.explanation"), "possible leaks"));
	assert_string_equal(feed_string(&f, "memory.caveats.0.evidence.0"), "discarded_events");
	feed_release(&f);
}

/* An analysis asked for twice still gives one section, written once. */
static void test_asked_twice(void **state)
{
	static const struct ct_analysis_class *const twice[] = { &ct_memory_analysis,
		                                                 &ct_memory_analysis, NULL };
	const struct ct_node *root;
	size_t sections = 0, lists = 0;
	struct feed f;

	feed_init(&f, twice);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, MIB);
	feed_report(&f);

	root = ct_doc_root(f.doc);
	for (size_t i = 0; i < ct_node_count(root); i++)
		sections += !strcmp(ct_node_child(root, i)->key, "memory");
	for (size_t i = 0; i < ct_node_count(ct_node_get(root, "memory")); i++)
		lists += !strcmp(ct_node_child(ct_node_get(root, "memory"), i)->key, "devices");
	assert_int_equal(sections, 1);
	assert_int_equal(lists, 1);
	assert_int_equal(feed_count(&f, "memory.devices"), 1);
	feed_release(&f);
}

/* A subscriber of the pass's accountant that counts what it hears. */
struct counter {
	struct ct_acct *acct;
	struct ct_acct_sub *sub;
	unsigned added, removed, changed;
	uint64_t last_id; /* the largest allocation id heard of */
};

static struct counter counted;

static void count_added(void *data, struct ct_acct_device *dev, void *own,
                        const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct counter *c = data;

	c->added++;
	if (a->id > c->last_id)
		c->last_id = a->id;
}

static void count_removed(void *data, struct ct_acct_device *dev, void *own,
                          const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	((struct counter *)data)->removed++;
}

static void count_changed(void *data, struct ct_acct_device *dev, void *own,
                          const struct ct_event *ev)
{
	((struct counter *)data)->changed++;
}

static const struct ct_acct_hooks counter_hooks = {
	.added = count_added,
	.removed = count_removed,
	.changed = count_changed,
};

static enum ct_analysis_status counter_create(struct ct_context *ctx, const struct ct_options *opts,
                                              void **state)
{
	(void)opts;
	counted = (struct counter){ .acct = ct_context_accounting(ctx) };
	counted.sub = ct_acct_subscribe(counted.acct, NULL, &counter_hooks, &counted);
	*state = &counted;
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status counter_finish(void *state, int64_t end_ns)
{
	(void)state;
	(void)end_ns;
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status counter_result(void *state, const void **result)
{
	*result = state;
	return CT_ANALYSIS_OK;
}

static void counter_destroy(void *state)
{
	if (state)
		ct_acct_unsubscribe(((struct counter *)state)->sub);
}

static const struct ct_analysis_class counter_analysis = {
	.name = "counter",
	.uses = CT_SHARED_ACCOUNTING,
	.create = counter_create,
	.finish = counter_finish,
	.result = counter_result,
	.destroy = counter_destroy,
};

static void count_live(const struct ct_acct_alloc *a, void *data)
{
	(void)a;
	(*(unsigned *)data)++;
}

/*
 * Memory, fragmentation and cells all run, with a subscriber that counts:
 * A (1M) and B (2M) allocated in a cell, A freed. The pass accounts for
 * each event once: two allocations heard of, one release, three changes,
 * two records made; and each analysis has the figures of that one
 * accounting.
 */
static void test_accounted_once(void **state)
{
	static const struct ct_analysis_class *const all[] = { &ct_memory_analysis,
		                                               &ct_fragmentation_analysis,
		                                               &ct_cells_analysis,
		                                               &counter_analysis, NULL };
	unsigned live = 0;
	struct feed f;

	(void)state;
	feed_init(&f, all);
	feed_cell_begin(&f, PID, 1, 1, "x = alloc()");
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * MIB, 2 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_report(&f);

	assert_ptr_equal(counted.acct, ct_context_accounting(ct_reader_context(f.reader)));
	assert_int_equal(counted.added, 2);
	assert_int_equal(counted.removed, 1);
	assert_int_equal(counted.changed, 3);
	assert_int_equal(counted.last_id, 2);
	ct_acct_foreach_live(counted.acct, count_live, &live);
	assert_int_equal(live, 1);
	assert_int_equal(feed_count(&f, "memory.devices"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.allocations"), 2);
	assert_int_equal(feed_int(&f, "memory.devices.0.frees"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 3 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_peak.live_bytes"), 3 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.live_bytes"), 2 * MIB);
	assert_int_equal(feed_int(&f, "cells.0.cells.0.allocations"), 2);
	assert_int_equal(feed_int(&f, "cells.0.cells.0.live_bytes"), 2 * MIB);
	feed_release(&f);
}

/* CUDA is up on thread TID of PID: its calls are recorded (an api_call of cudaGetDevice, 98). */
static void calls_recorded(struct feed *f, int tid)
{
	feed_call(f, PID, tid, 98, ++f->correlation_id, f->now - 500);
}

/*
 * Thread 1 frees A (4M) while thread 2 allocates B (4M) in a call that
 * began before the free was entered; the free returns after B's
 * allocation. Ordered by the calls' ends, both were live at once: 8M.
 * Surely live at once: 4M (the free done at its entry). Possibly: 8M.
 */
static void test_release_done_at_its_return(void **state)
{
	struct feed f;
	int64_t b_entry;
	uint32_t free_call;

	(void)state;
	feed_init(&f, memory_only);
	calls_recorded(&f, 1);
	calls_recorded(&f, 2);
	feed_alloc(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	b_entry = f.now;
	f.now += 1000;
	feed_free(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	free_call = f.correlation_id;
	feed_alloc_entered(&f, PID, 2, 0, CT_MEM_DEVICE, BASE + 64 * MIB, 4 * MIB, b_entry);
	feed_call(&f, PID, 1, CBID_CUDA_FREE, free_call, f.now - 3000);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 8 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_low_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_high_bytes"), 8 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.frees"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 4 * MIB);
	feed_release(&f);
}

/*
 * Thread 1 frees A (4M); thread 2 enters a call that allocates B (4M)
 * before the free returns; all in the process's first moments, before
 * any call returned. Surely live at once: 4M; possibly: 8M. PEAK_HIGH is the bound the report must give when
 * the tracer_info says API and the trace DECLARED api_call: the release is
 * done at its return only where every call's return is known to be in the
 * trace, else at its entry, as its mem_free says.
 */
static void free_before_any_return(bool api, bool declared, uint64_t peak_high)
{
	struct feed f;
	int64_t free_entry, b_entry;
	uint32_t free_call;

	feed_init(&f, memory_only);
	feed_tracer_info(&f, PID, api, declared);
	feed_alloc(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	free_entry = f.now;
	feed_free(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	free_call = f.correlation_id;
	/* B's call entered after the free's: A may not have been freed yet */
	b_entry = f.now;
	f.now += 1000;
	feed_alloc_entered(&f, PID, 2, 0, CT_MEM_DEVICE, BASE + 64 * MIB, 4 * MIB, b_entry);
	feed_call(&f, PID, 1, CBID_CUDA_FREE, free_call, free_entry);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.peak_low_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_high_bytes"), peak_high);
	assert_int_equal(feed_int(&f, "memory.devices.0.frees"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 4 * MIB);
	feed_release(&f);
}

static void test_release_at_return_before_first_call(void **state)
{
	(void)state;
	free_before_any_return(true, true, 8 * MIB);
}

/* `record --no-api`: the session did not enable api_call; the tracer still says it emits it. */
static void test_release_at_entry_without_declared_calls(void **state)
{
	(void)state;
	free_before_any_return(true, false, 4 * MIB);
}

/* CUDATRACE_API=0 under a session that enabled every cudatrace event. */
static void test_release_at_entry_without_emitted_calls(void **state)
{
	(void)state;
	free_before_any_return(false, true, 4 * MIB);
}

/*
 * Thread 2 enters a call that allocates B1 and B2 (2M each; B2's event is
 * the call's second and does not record it: entry 0); meanwhile thread 1
 * frees A (4M), and its free returns before thread 2's call does. Both Bs
 * may have been made while A was live: the high bound is 8M, not 6M.
 */
static void test_second_allocation_of_a_call(void **state)
{
	struct feed f;
	int64_t b_entry, free_entry;
	uint32_t free_call;

	(void)state;
	feed_init(&f, memory_only);
	calls_recorded(&f, 1);
	calls_recorded(&f, 2);
	feed_alloc_entered(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB, f.now - 500);
	b_entry = f.now;
	f.now += 1000;
	free_entry = f.now;
	feed_free(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	free_call = f.correlation_id;
	feed_call(&f, PID, 1, CBID_CUDA_FREE, free_call, free_entry);
	feed_alloc_entered(&f, PID, 2, 0, CT_MEM_DEVICE, BASE + 64 * MIB, 2 * MIB, b_entry);
	feed_alloc_call(&f, PID, 2, 0, CT_MEM_DEVICE, BASE + 128 * MIB, 2 * MIB, f.correlation_id);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_low_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_high_bytes"), 8 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.allocations"), 3);
	feed_release(&f);
}

/*
 * The driver gives A's address to thread 2 before thread 1's free
 * returned: A was freed by then, never live with B (the peak is 4M).
 */
static void test_release_done_when_address_reused(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, memory_only);
	calls_recorded(&f, 1);
	feed_alloc(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_free(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc_entered(&f, PID, 2, 0, CT_MEM_DEVICE, BASE, 2 * MIB, f.now - 1500);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.frees"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.unfinished_frees"), 0);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 2 * MIB);
	feed_release(&f);
}

/*
 * The process ends while thread 1 is inside cudaFree: no free, A live at
 * the end, said to be uncertain. A later call of the thread (its next
 * cudaMalloc) is a return: the free before it was done.
 */
static void test_release_unfinished_at_exit(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, memory_only);
	calls_recorded(&f, 1);
	feed_alloc(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc(&f, PID, 1, 0, CT_MEM_DEVICE, BASE + 64 * MIB, MIB);
	feed_free(&f, PID, 1, 0, CT_MEM_DEVICE, BASE + 64 * MIB, MIB);
	feed_alloc_entered(&f, PID, 1, 0, CT_MEM_DEVICE, BASE + 128 * MIB, MIB, f.now - 500);
	feed_free(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.devices.0.frees"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.unfinished_frees"), 1);
	assert_int_equal(feed_int(&f, "memory.devices.0.live_at_end_bytes"), 5 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.leak_count"), 2);
	feed_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peak_allocations),
		cmocka_unit_test(test_leak_in_nvtx_range),
		cmocka_unit_test(test_balanced_range_not_growing),
		cmocka_unit_test(test_kinds_devices_processes),
		cmocka_unit_test(test_address_reuse),
		cmocka_unit_test(test_series_bounded),
		cmocka_unit_test(test_series_merge),
		cmocka_unit_test(test_series_widths),
		cmocka_unit_test(test_many_allocations),
		cmocka_unit_test(test_asked_twice),
		cmocka_unit_test(test_reclaimed_at_reset),
		cmocka_unit_test(test_free_failed),
		cmocka_unit_test(test_statedump_concurrent_free),
		cmocka_unit_test(test_alloc_after_its_mem_live),
		cmocka_unit_test(test_window_after_allocations),
		cmocka_unit_test(test_events_discarded),
		cmocka_unit_test(test_accounted_once),
		cmocka_unit_test(test_release_done_at_its_return),
		cmocka_unit_test(test_release_at_return_before_first_call),
		cmocka_unit_test(test_release_at_entry_without_declared_calls),
		cmocka_unit_test(test_release_at_entry_without_emitted_calls),
		cmocka_unit_test(test_second_allocation_of_a_call),
		cmocka_unit_test(test_release_done_when_address_reused),
		cmocka_unit_test(test_release_unfinished_at_exit),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
