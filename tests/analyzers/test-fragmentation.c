/* SPDX-License-Identifier: MIT */
/*
 * test-fragmentation.c - the fragmentation analysis and the OOM verdicts
 * on synthetic events with known truth: a request that fails although
 * enough memory is free in total (fragmented), a true exhaustion (out of
 * memory), memory held by other processes and by pools (held elsewhere);
 * the state at the peak and at the end; a trace begun after the program
 * allocated; stream-ordered pools: their figures at the peak's time, their
 * identity, trimming and the release at synchronisation; and the range map
 * underneath against a brute-force model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "feed.h"
#include "common/range-map.h"
#include "findings/findings.h"

#define PID  200
#define BASE UINT64_C(0x7f0000000000)

static const struct ct_analysis_class *const both[] = { &ct_memory_analysis,
	                                                &ct_fragmentation_analysis, NULL };

/*
 * A 1 GiB device; the context holds 64 MiB. Fifteen 64 MiB buffers fill the
 * rest; every other one is freed: 448 MiB free in 64 MiB holes. A 128 MiB
 * request fails although 448 MiB are free: fragmented, largest block 64 MiB.
 */
static void test_fragmented(void **state)
{
	struct feed f;
	const uint64_t total = GIB, free = 7 * 64 * MIB;

	feed_init(&f, both);
	for (int i = 0; i < 15; i++)
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + (uint64_t)i * 64 * MIB, 64 * MIB);
	for (int i = 1; i < 15; i += 2)
		feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + (uint64_t)i * 64 * MIB, 64 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 128 * MIB, free, total);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.failure_count"), 1);
	assert_int_equal(feed_count(&f, "memory.failures"), 1);
	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "fragmented");
	assert_int_equal(feed_int(&f, "memory.failures.0.requested_bytes"), 128 * MIB);
	assert_int_equal(feed_int(&f, "memory.failures.0.free_bytes"), free);
	assert_int_equal(feed_int(&f, "memory.failures.0.live_bytes"), 8 * 64 * MIB);
	assert_int_equal(feed_int(&f, "memory.failures.0.largest_free_bytes"), 64 * MIB);
	assert_int_equal(feed_int(&f, "memory.failures.0.free_seen_bytes"), 7 * 64 * MIB);
	assert_true(feed_double(&f, "memory.failures.0.external_fragmentation") > 0.857 &&
	            feed_double(&f, "memory.failures.0.external_fragmentation") < 0.858);
	assert_string_equal(feed_string(&f, "memory.failures.0.api"), "cudaMalloc");
	/* the peak, before the frees: nothing free inside the heap as seen */
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_peak.live_bytes"), 15 * 64 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_peak.free_seen_bytes"), 0);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.live_bytes"), 8 * 64 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.largest_free_bytes"),
	                 64 * MIB);
	feed_release(&f);
}

/*
 * The process holds 900 MiB of a 1 GiB device (the context the rest but 60
 * MiB) and asks 256 MiB: out of memory in this process.
 */
static void test_out_of_memory(void **state)
{
	struct feed f;

	feed_init(&f, both);
	for (int i = 0; i < 9; i++)
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + (uint64_t)i * 100 * MIB,
		           100 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 256 * MIB, 60 * MIB, GIB);
	feed_report(&f);

	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "out_of_memory");
	feed_findings(&f);
	assert_non_null(strstr(feed_string(&f, "findings.0.advice"), "the device was full"));
	assert_int_equal(feed_int(&f, "memory.failures.0.live_bytes"), 900 * MIB);
	assert_int_equal(feed_int(&f, "memory.failures.0.used_bytes"), GIB - 60 * MIB);
	assert_int_equal(feed_int(&f, "memory.failures.0.held_elsewhere_bytes"),
	                 GIB - 60 * MIB - 900 * MIB);
	assert_int_equal(feed_int(&f, "memory.devices.0.failures"), 1);
	feed_release(&f);
}

/*
 * A request larger than the whole device is out of memory, whatever is
 * free, and its finding says that no memory freed would make room for it
 * (not that the device was full).
 */
static void test_larger_than_device(void **state)
{
	struct feed f;

	feed_init(&f, both);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, UINT64_C(1) << 44, 4 * GIB, 4 * GIB);
	feed_report(&f);
	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "out_of_memory");
	feed_findings(&f);
	assert_null(ct_doc_error(f.doc));
	assert_string_equal(feed_string(&f, "findings.0.kind"), "allocation_failure");
	assert_non_null(strstr(feed_string(&f, "findings.0.advice"),
	                       "larger than the whole device, so no memory freed"));
	assert_null(strstr(feed_string(&f, "findings.0.advice"), "the device was full"));
	feed_release(&f);
}

/*
 * Other processes hold 3 GiB of a 4 GiB device; this one holds 256 MiB and
 * asks 1 GiB with 512 MiB free: it would have fit alone. Held elsewhere.
 */
static void test_held_by_other_processes(void **state)
{
	struct feed f;
	const uint64_t total = 4 * GIB, free = 512 * MIB;

	feed_init(&f, both);
	feed_nvml(&f, PID, 0, 1, total - 3 * GIB, total);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 256 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, GIB, free, total);
	feed_report(&f);

	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "held_elsewhere");
	assert_int_equal(feed_int(&f, "memory.failures.0.held_elsewhere_bytes"),
	                 total - free - 256 * MIB);
	assert_int_equal(feed_int(&f, "memory.failures.0.live_bytes"), 256 * MIB);
	assert_non_null(strstr(feed_string(&f, "memory.failures.0.explanation"),
	                       "not this process's allocations"));
	feed_release(&f);
}

/*
 * A stream-ordered pool keeps 768 MiB reserved with nothing in use; a
 * cudaMalloc of 512 MiB fails with 300 MiB free: the pool holds the rest,
 * the process's own, not another's.
 */
static void test_held_by_pool(void **state)
{
	struct feed f;

	feed_init(&f, both);
	feed_pool(&f, PID, 0, 1, BASE + 2 * GIB, 768 * MIB, 0);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 512 * MIB, 300 * MIB, 4 * GIB);
	feed_report(&f);

	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "pool_cached");
	assert_int_equal(feed_int(&f, "memory.failures.0.pool_cached_bytes"), 768 * MIB);
	assert_int_equal(feed_int(&f, "memory.failures.0.pool_reserved_bytes"), 768 * MIB);
	assert_int_equal(feed_count(&f, "memory.fragmentation.0.pools"), 1);
	/* a destroyed pool holds nothing */
	feed_release(&f);

	feed_init(&f, both);
	feed_pool(&f, PID, 0, 1, BASE + 2 * GIB, 768 * MIB, 0);
	feed_pool(&f, PID, 0, 2, BASE + 2 * GIB, 768 * MIB, 0);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 512 * MIB, 300 * MIB, 4 * GIB);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.failures.0.pool_cached_bytes"), 0);
	assert_int_equal(feed_count(&f, "memory.fragmentation.0.pools"), 0);
	feed_release(&f);
}

/* Without NVML the free memory is unknown: no guess unless the request cannot fit. */
static void test_no_nvml(void **state)
{
	struct feed f;

	feed_init(&f, both);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 64 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 128 * MIB, 0, 0);
	feed_report(&f);
	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "unknown");
	assert_int_equal(feed_get(&f, "memory.failures.0.free_bytes")->type, CT_NODE_NULL);
	feed_release(&f);

	/* the nvml_sample that follows a failure completes it */
	feed_init(&f, both);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 64 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 128 * MIB, 0, 0);
	feed_nvml(&f, PID, 0, 2, 32 * MIB, GIB);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.failures.0.free_bytes"), 32 * MIB);
	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "held_elsewhere");
	feed_release(&f);
}

/* Granularity: a 1.5 MiB request takes 2 MiB, a 1000-byte one 1024. */
static void test_granularity_waste(void **state)
{
	struct feed f;

	feed_init(&f, both);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 3 * MIB / 2);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * MIB, 1000);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.granularity_waste_bytes"),
	                 MIB / 2 + 24);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.heap_span_bytes"),
	                 2 * MIB + 1024);
	feed_release(&f);
}

/*
 * A 4 GiB device with 512 MiB free; the trace saw this process hold 256
 * MiB and ask 1 GiB. Without the statedump, 3.25 GiB in use are not its
 * allocations as the trace shows them, and the trace began after the
 * program had allocated: whose they are it cannot tell, so it does not
 * blame other processes. With a complete statedump showing 2.5 GiB the
 * process made before the trace, the memory is its own: out of memory.
 */
static void test_failure_after_window_start(void **state)
{
	struct feed f;
	const uint64_t total = 4 * GIB, free = 512 * MIB;

	feed_init(&f, both);
	feed_dump_begin(&f, PID, 1, CT_STATEDUMP_SESSION_START);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 256 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, GIB, free, total);
	feed_report(&f);
	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "unknown");
	assert_string_equal(feed_string(&f, "memory.failures.0.withheld_verdict"),
	                    "held_elsewhere");
	assert_non_null(strstr(feed_string(&f, "memory.failures.0.explanation"), "cannot tell"));
	assert_int_equal(feed_int(&f, "memory.failures.0.live_bytes"), 256 * MIB);
	assert_string_equal(feed_string(&f, "memory.failures.0.caveats.0.figure"), "live_bytes");
	assert_string_equal(feed_string(&f, "memory.failures.0.caveats.0.caveat"), "lower_bound");
	assert_string_equal(feed_string(&f, "memory.failures.0.caveats.1.figure"),
	                    "held_elsewhere_bytes");
	assert_string_equal(feed_string(&f, "memory.failures.0.caveats.1.caveat"), "upper_bound");
	feed_release(&f);

	/* the dump's entries come after the failure: the verdict is on what was live then */
	feed_init(&f, both);
	feed_dump_begin(&f, PID, 1, CT_STATEDUMP_SESSION_START);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 256 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, GIB, free, total);
	feed_mem_live(&f, PID, 1, 0, CT_MEM_DEVICE, BASE + GIB, 5 * GIB / 2, 1000, 3);
	feed_mem_live(&f, PID, 1, 0, CT_MEM_DEVICE, BASE, 256 * MIB, f.now, 4);
	feed_dump_end(&f, PID, 1, 2, true);
	feed_report(&f);
	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "out_of_memory");
	assert_int_equal(feed_get(&f, "memory.failures.0.withheld_verdict")->type, CT_NODE_NULL);
	assert_int_equal(feed_int(&f, "memory.failures.0.live_bytes"), 5 * GIB / 2 + 256 * MIB);
	assert_int_equal(feed_count(&f, "memory.failures.0.caveats"), 3);
	/* the peak: both, at the window's start as far as the fragmentation state goes too */
	assert_int_equal(feed_int(&f, "memory.devices.0.peak_bytes"), 5 * GIB / 2 + 256 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_peak.live_bytes"),
	                 5 * GIB / 2 + 256 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.live_bytes"),
	                 5 * GIB / 2 + 256 * MIB);
	feed_release(&f);
}

#define POOL_BASE (BASE + 8 * GIB)

/*
 * 64 MiB of a pool with release threshold 0, allocated and freed, and the
 * pool's records of both: it keeps the memory until the device is
 * synchronised.
 */
static void pool_freed_unsynchronised(struct feed *f)
{
	int64_t t = f->now;

	feed_alloc(f, PID, PID, 0, CT_MEM_ASYNC, POOL_BASE, 64 * MIB);
	feed_free(f, PID, PID, 0, CT_MEM_ASYNC, POOL_BASE, 64 * MIB);
	feed_gpu_memory(f, PID, 0, 1, POOL_BASE, 64 * MIB, POOL_BASE, 64 * MIB, 64 * MIB, 0, t);
	feed_gpu_memory(f, PID, 0, 2, POOL_BASE, 64 * MIB, POOL_BASE, 64 * MIB, 0, 0, t + 1000);
}

/*
 * A pool is created, an async allocation takes 64 MiB from it, then a
 * cudaMalloc makes the peak; the pool's records come after the peak (CUPTI
 * hands them over late), with GPU times from before it. The state at the
 * peak has the pool as it was then: 64 MiB reserved, 64 MiB used.
 */
static void test_pool_at_peak_time(void **state)
{
	struct feed f;
	int64_t t0;

	feed_init(&f, both);
	t0 = f.now;
	feed_alloc(&f, PID, PID, 0, CT_MEM_ASYNC, POOL_BASE, 64 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 256 * MIB);
	/* the records: creation (no memory, no address yet), the allocation */
	feed_pool_record(&f, PID, 0, 1, 0, 0, 0, 0, t0 - 10);
	feed_gpu_memory(&f, PID, 0, 1, POOL_BASE, 64 * MIB, POOL_BASE, 64 * MIB, 64 * MIB, 0,
	                t0 + 10);
	feed_report(&f);

	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_peak.live_bytes"), 320 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_peak.pool_reserved_bytes"),
	                 64 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_peak.pool_used_bytes"), 64 * MIB);
	/* one pool: the creation record without an address and the allocation's are one */
	assert_int_equal(feed_count(&f, "memory.fragmentation.0.pools"), 1);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.pool"), 1);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.address"), POOL_BASE);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.created_ns"), t0 - 10);
	feed_release(&f);
}

/*
 * Pools by identity, not by address: a trim to nothing reports address 0;
 * a second pool is created (address 0) beside the first; the first is
 * destroyed and a third made at its address; a late record of the first,
 * from before its destruction, changes nothing.
 */
static void test_pool_identity(void **state)
{
	struct feed f;
	int64_t t = 5000000000;

	feed_init(&f, both);
	feed_pool_record(&f, PID, 0, 1, 0, 0, 0, 0, t);
	feed_gpu_memory(&f, PID, 0, 1, POOL_BASE, 32 * MIB, POOL_BASE, 32 * MIB, 32 * MIB, 0,
	                t + 1);
	feed_gpu_memory(&f, PID, 0, 2, POOL_BASE, 32 * MIB, POOL_BASE, 32 * MIB, 0, 0, t + 2);
	/* cuMemPoolTrimTo(pool, 0): the pool has no memory, and no base address */
	feed_pool_record(&f, PID, 0, 3, 0, 0, 0, 0, t + 3);
	feed_report(&f);
	assert_int_equal(feed_count(&f, "memory.fragmentation.0.pools"), 1);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.reserved_bytes"), 0);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.pool_reserved_bytes"), 0);
	feed_release(&f);

	feed_init(&f, both);
	feed_pool_record(&f, PID, 0, 1, POOL_BASE, 16 * MIB, 0, 0, t);
	feed_pool_record(&f, PID, 0, 1, 0, 0, 0, 0, t + 1);
	feed_gpu_memory(&f, PID, 0, 1, POOL_BASE + GIB, 8 * MIB, POOL_BASE + GIB, 8 * MIB, 8 * MIB,
	                0, t + 2);
	feed_pool_record(&f, PID, 0, 2, POOL_BASE, 16 * MIB, 0, 0, t + 3);
	feed_pool_record(&f, PID, 0, 1, POOL_BASE, 4 * MIB, 0, 0, t + 4);
	/* a record of the first pool from before it was destroyed */
	feed_gpu_memory(&f, PID, 0, 1, POOL_BASE, MIB, POOL_BASE, 48 * MIB, MIB, 0, t + 2);
	feed_report(&f);
	assert_int_equal(feed_count(&f, "memory.fragmentation.0.pools"), 2);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.pool"), 2);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.address"), POOL_BASE + GIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.reserved_bytes"), 8 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.1.pool"), 3);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.1.address"), POOL_BASE);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.1.reserved_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.pool_reserved_bytes"),
	                 12 * MIB);
	feed_release(&f);
}

/*
 * A pool with release threshold 0 keeps 64 MiB after its allocation is
 * freed, until the device is synchronised: then nothing (derived: CUPTI
 * records no such release). A failure before the synchronisation is
 * blamed on the pool, one after it is not. With a threshold of 48 MiB it
 * keeps 48; with 3 MiB still allocated and threshold 0, the 4 MiB that
 * back them. The records come after the synchronisation, as CUPTI hands
 * them over. A trim (a record) is no derived figure; a GPU record of a
 * synchronisation counts as one.
 */
static void test_pool_release_at_sync(void **state)
{
	struct feed f;
	int64_t t;

	feed_init(&f, both);
	pool_freed_unsynchronised(&f);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 512 * MIB, 500 * MIB, 4 * GIB);
	feed_sync(&f, PID, 0);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 512 * MIB, 500 * MIB, 4 * GIB);
	feed_report(&f);
	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "pool_cached");
	assert_int_equal(feed_int(&f, "memory.failures.0.pool_cached_bytes"), 64 * MIB);
	assert_int_equal(feed_int(&f, "memory.failures.1.pool_reserved_bytes"), 0);
	assert_int_equal(feed_int(&f, "memory.failures.1.pool_cached_bytes"), 0);
	/* no longer the pool's: the rest of the device's memory is others' */
	assert_non_null(strstr(feed_string(&f, "memory.failures.1.explanation"),
	                       "not this process's allocations"));
	assert_string_equal(feed_string(&f, "memory.failures.1.caveats.0.figure"),
	                    "pool_reserved_bytes");
	assert_string_equal(feed_string(&f, "memory.failures.1.caveats.0.caveat"), "derived");
	assert_string_equal(feed_string(&f, "memory.failures.1.caveats.0.cause"),
	                    "release_at_sync");
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.reserved_bytes"), 0);
	assert_true(feed_get(&f, "memory.fragmentation.0.pools.0.reserved_derived")->value.boolean);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.pool_reserved_bytes"), 0);
	assert_string_equal(feed_string(&f, "memory.caveats.0.cause"), "release_at_sync");
	feed_release(&f);

	/* the records after the synchronisation, a threshold of 48 MiB */
	feed_init(&f, both);
	t = f.now;
	feed_alloc(&f, PID, PID, 0, CT_MEM_ASYNC, POOL_BASE, 64 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_ASYNC, POOL_BASE, 64 * MIB);
	feed_sync(&f, PID, 0);
	feed_gpu_memory(&f, PID, 0, 1, POOL_BASE, 64 * MIB, POOL_BASE, 64 * MIB, 64 * MIB, 48 * MIB,
	                t);
	feed_gpu_memory(&f, PID, 0, 2, POOL_BASE, 64 * MIB, POOL_BASE, 64 * MIB, 0, 48 * MIB,
	                t + 1000);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.reserved_bytes"), 48 * MIB);
	assert_true(feed_get(&f, "memory.fragmentation.0.pools.0.reserved_derived")->value.boolean);
	feed_release(&f);

	/* 3 MiB still allocated: 4 MiB back them; then a trim record to 2 MiB is no derivation */
	feed_init(&f, both);
	t = f.now;
	feed_context(&f, PID, 0, true);
	feed_alloc(&f, PID, PID, 0, CT_MEM_ASYNC, POOL_BASE, 3 * MIB);
	feed_gpu_memory(&f, PID, 0, 1, POOL_BASE, 3 * MIB, POOL_BASE, 64 * MIB, 3 * MIB, 0, t);
	feed_gpu_sync(&f, PID, 1, 4, f.now);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.reserved_bytes"), 4 * MIB);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.at_end.pool_used_bytes"), 3 * MIB);
	feed_release(&f);

	feed_init(&f, both);
	t = f.now;
	feed_alloc(&f, PID, PID, 0, CT_MEM_ASYNC, POOL_BASE, 3 * MIB);
	feed_gpu_memory(&f, PID, 0, 1, POOL_BASE, 3 * MIB, POOL_BASE, 64 * MIB, 3 * MIB, 64 * MIB,
	                t);
	feed_pool_record(&f, PID, 0, 3, POOL_BASE, 16 * MIB, 3 * MIB, 64 * MIB, f.now);
	feed_report(&f);
	assert_int_equal(feed_int(&f, "memory.fragmentation.0.pools.0.reserved_bytes"), 16 * MIB);
	assert_false(
	    feed_get(&f, "memory.fragmentation.0.pools.0.reserved_derived")->value.boolean);
	assert_int_equal(feed_count(&f, "memory.fragmentation.0.caveats"), 0);
	feed_release(&f);
}

/*
 * Losses. The failure of test_held_by_other_processes, once before LTTng
 * discards events and once after: before, held elsewhere; after, the
 * memory not in this process's allocations may be its own (its
 * allocations may be among the lost events): withheld. CUPTI's dropped
 * records make the pool figures uncertain, not the live bytes.
 */
static void test_losses(void **state)
{
	struct feed f;
	const uint64_t total = 4 * GIB, free = 512 * MIB;

	feed_init(&f, both);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 256 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, GIB, free, total);
	feed_discard(&f, 3);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, GIB, free, total);
	feed_report(&f);
	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "held_elsewhere");
	assert_int_equal(feed_count(&f, "memory.failures.0.caveats"), 0);
	assert_string_equal(feed_string(&f, "memory.failures.1.verdict"), "unknown");
	assert_string_equal(feed_string(&f, "memory.failures.1.withheld_verdict"),
	                    "held_elsewhere");
	assert_non_null(
	    strstr(feed_string(&f, "memory.failures.1.explanation"), "LTTng discarded events"));
	assert_string_equal(feed_string(&f, "memory.failures.1.caveats.0.figure"), "verdict");
	assert_string_equal(feed_string(&f, "memory.failures.1.caveats.0.caveat"), "withheld");
	assert_string_equal(feed_string(&f, "memory.failures.1.caveats.0.cause"),
	                    "events_discarded");
	assert_string_equal(feed_string(&f, "memory.fragmentation.0.caveats.0.figure"), "at_peak");
	assert_string_equal(feed_string(&f, "memory.fragmentation.0.caveats.0.caveat"),
	                    "uncertain");
	feed_release(&f);

	feed_init(&f, both);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 256 * MIB);
	feed_pool(&f, PID, 0, 1, BASE + 2 * GIB, 768 * MIB, 0);
	feed_dropped(&f, PID, 11);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 512 * MIB, 300 * MIB, 4 * GIB);
	feed_report(&f);
	assert_string_equal(feed_string(&f, "memory.failures.0.verdict"), "pool_cached");
	assert_string_equal(feed_string(&f, "memory.failures.0.caveats.0.figure"),
	                    "pool_reserved_bytes");
	assert_string_equal(feed_string(&f, "memory.failures.0.caveats.0.cause"),
	                    "records_dropped");
	assert_string_equal(feed_string(&f, "memory.failures.0.caveats.3.figure"), "verdict");
	assert_string_equal(feed_string(&f, "memory.failures.0.caveats.3.caveat"), "uncertain");
	assert_int_equal(feed_count(&f, "memory.devices.0.caveats"), 0);
	assert_string_equal(feed_string(&f, "memory.caveats.0.cause"), "records_dropped");
	assert_non_null(strstr(feed_string(&f, "memory.caveats.0.explanation"), "11 activity"));
	feed_release(&f);
}

/* Brute-force model of the range map: an array of (start, end, requested). */
struct model {
	uint64_t start[512], end[512], requested[512];
	int live[512];
};

static void check_against_model(const struct ct_range_map *map, const struct model *m)
{
	struct ct_range_stats s;
	uint64_t lowest = UINT64_MAX, highest = 0, covered = 0, requested = 0, gap = 0,
	         prev_end = 0;
	size_t count = 0;

	ct_range_map_stats(map, &s);
	for (int i = 0; i < 512; i++) {
		if (!m->live[i])
			continue;
		if (count && m->start[i] > prev_end && m->start[i] - prev_end > gap)
			gap = m->start[i] - prev_end;
		prev_end = m->end[i];
		lowest = m->start[i] < lowest ? m->start[i] : lowest;
		highest = m->end[i] > highest ? m->end[i] : highest;
		covered += m->end[i] - m->start[i];
		requested += m->requested[i];
		count++;
	}
	assert_int_equal(s.count, count);
	if (!count)
		return;
	assert_int_equal(s.lowest, lowest);
	assert_int_equal(s.highest, highest);
	assert_int_equal(s.covered, covered);
	assert_int_equal(s.requested, requested);
	assert_int_equal(s.largest_gap, gap);
}

static void test_range_map(void **state)
{
	static struct model m;
	struct ct_range_map map;
	unsigned seed = 7;

	ct_range_map_init(&map);
	for (int round = 0; round < 20000; round++) {
		/* slot i owns [i * 4096, (i + 1) * 4096): ranges never overlap */
		int i = (int)((seed = seed * 1103515245 + 12345) >> 8) % 512;

		if (m.live[i]) {
			uint64_t requested;

			assert_int_equal(ct_range_map_remove(&map, m.start[i], &requested), 1);
			assert_int_equal(requested, m.requested[i]);
			m.live[i] = 0;
		} else {
			uint64_t len = 1 + (seed >> 4) % 4096;

			m.start[i] = (uint64_t)i * 4096;
			m.end[i] = m.start[i] + len;
			m.requested[i] = len / 2;
			m.live[i] = 1;
			ct_range_map_insert(&map, m.start[i], m.end[i], len / 2);
		}
		if (round % 97 == 0)
			check_against_model(&map, &m);
	}
	check_against_model(&map, &m);
	assert_int_equal(ct_range_map_remove(&map, 12345, NULL), 0);
	ct_range_map_release(&map);
}

/*
 * Ranges that overlap (rounded extents running into the next allocation,
 * addresses reused without a free): a gap is measured from the furthest
 * end before it, whichever range that is, through inserts, replacements
 * and removals. The model: an array indexed by start.
 */
static void test_range_map_overlaps(void **state)
{
	enum { SLOTS = 256, STEP = 1024 };
	static uint64_t end[SLOTS];
	struct ct_range_map map;
	unsigned seed = 3;

	ct_range_map_init(&map);
	for (int round = 0; round < 20000; round++) {
		unsigned i = ((seed = seed * 1103515245 + 12345) >> 8) % SLOTS;
		uint64_t start = (uint64_t)i * STEP;

		/* a third of the time a removal; else an insert (or replacement) up to 5 slots long */
		if (end[i] && (seed >> 20) % 3 == 0) {
			assert_int_equal(ct_range_map_remove(&map, start, NULL), 1);
			end[i] = 0;
		} else {
			end[i] = start + 1 + (seed >> 4) % (5 * STEP);
			ct_range_map_insert(&map, start, end[i], 1);
		}
		if (round % 61 == 0) {
			struct ct_range_stats s;
			uint64_t furthest = 0, gap = 0, covered = 0;
			size_t count = 0;
			unsigned first = SLOTS;

			ct_range_map_stats(&map, &s);
			for (unsigned j = 0; j < SLOTS; j++) {
				uint64_t at = (uint64_t)j * STEP;

				if (!end[j])
					continue;
				if (count && at > furthest && at - furthest > gap)
					gap = at - furthest;
				furthest = end[j] > furthest ? end[j] : furthest;
				covered += end[j] - at;
				first = count++ ? first : j;
			}
			assert_int_equal(s.count, count);
			assert_int_equal(s.covered, covered);
			assert_int_equal(s.requested, count);
			if (count) {
				assert_int_equal(s.lowest, (uint64_t)first * STEP);
				assert_int_equal(s.highest, furthest);
				assert_int_equal(s.largest_gap, gap);
			}
		}
	}
	ct_range_map_release(&map);
}

/*
 * A refusal the same thread makes up for at once, with at least half the
 * request, is recovered (a caching allocator that frees its cache and asks
 * again; XLA's that asks for less); one followed by less, or by another
 * thread's allocation, is not.
 */
static void test_recovered(void **state)
{
	struct feed f;
	const struct ct_node *n;

	(void)state;
	feed_init(&f, both);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 768 * MIB, 700 * MIB, GIB);
	/* the tracer's NVML reading of the failure comes between (alloc.c) */
	feed_nvml(&f, PID, 0, CT_NVML_ALLOC_FAILED, 700 * MIB, GIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 692 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 256 * MIB, 8 * MIB, GIB);
	feed_alloc(&f, PID, PID + 1, 0, CT_MEM_DEVICE, BASE + GIB, 256 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 256 * MIB, 8 * MIB, GIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * GIB, 64 * MIB);
	feed_report(&f);

	assert_int_equal(feed_count(&f, "memory.failures"), 3);
	assert_int_equal(feed_int(&f, "memory.failures.0.recovered_bytes"), 692 * MIB);
	for (int i = 1; i <= 2; i++) {
		char path[64];

		snprintf(path, sizeof(path), "memory.failures.%d.recovered_bytes", i);
		n = feed_get(&f, path);
		assert_non_null(n);
		assert_int_equal(n->type, CT_NODE_NULL);
	}
	feed_release(&f);
}

/*
 * A pool's figures derived at a synchronisation (release_at_sync) make a
 * failure that depends on them uncertain, but not one larger than the
 * whole device: its finding has no caveat (the pool is no figure it
 * quotes), where one of 512 MiB keeps it.
 */
static void test_larger_than_device_with_pool(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, both);
	pool_freed_unsynchronised(&f);
	feed_sync(&f, PID, 0);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 8 * GIB, 500 * MIB, 4 * GIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 512 * MIB, 500 * MIB, 4 * GIB);
	feed_report(&f);
	assert_string_equal(feed_string(&f, "memory.failures.0.caveats.0.cause"),
	                    "release_at_sync");
	assert_string_equal(feed_string(&f, "memory.failures.1.caveats.0.cause"),
	                    "release_at_sync");
	feed_findings(&f);
	assert_null(ct_doc_error(f.doc));
	for (int i = 0; i < 2; i++) {
		char path[64];
		bool large;

		snprintf(path, sizeof(path), "findings.%d.numbers.requested_bytes", i);
		large = feed_int(&f, path) == (int64_t)(8 * GIB);
		snprintf(path, sizeof(path), "findings.%d.caveat", i);
		if (large)
			assert_true(!feed_get(&f, path) ||
			            feed_get(&f, path)->type == CT_NODE_NULL);
		else
			assert_non_null(strstr(feed_string(&f, path), "synchronisation"));
	}
	feed_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fragmented),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_larger_than_device),
		cmocka_unit_test(test_held_by_other_processes),
		cmocka_unit_test(test_held_by_pool),
		cmocka_unit_test(test_no_nvml),
		cmocka_unit_test(test_granularity_waste),
		cmocka_unit_test(test_failure_after_window_start),
		cmocka_unit_test(test_pool_at_peak_time),
		cmocka_unit_test(test_pool_identity),
		cmocka_unit_test(test_pool_release_at_sync),
		cmocka_unit_test(test_larger_than_device_with_pool),
		cmocka_unit_test(test_losses),
		cmocka_unit_test(test_recovered),
		cmocka_unit_test(test_range_map),
		cmocka_unit_test(test_range_map_overlaps),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
