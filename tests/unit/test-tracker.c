/* SPDX-License-Identifier: MIT */
/*
 * test-tracker.c - the allocation map (libtrace/tracker.c): lookups inside
 * ranges of every size, from 1 byte to terabytes, across granule
 * boundaries; exact removal; an address reused after its free; stale
 * ranges replaced by what overlaps them, however many, and a later
 * allocation at a stale one's address removed with its own size; every
 * range starting in an unmapped interval; VMM handles; what an entry
 * carries; a context's allocations taken at its destruction; VMM physical
 * memory freed when neither a handle nor a mapping is left; the live set
 * as of one moment; and threads inserting, removing, handing addresses to
 * each other, looking up and taking the live set at once.
 *
 * The map is process-wide: each test works in an address area of its own.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "contract/events.h"
#include "tracker.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

/* Each test's area. */
#define AREA(n) (UINT64_C(0x100000000000) * (n))

static void insert(uint64_t start, uint64_t size, uint8_t kind, uint8_t device)
{
	struct tracker_entry e = { .start = start, .size = size, .kind = kind, .device = device };

	assert_true(tracker_insert(TRACKER_ADDRESSES, &e));
}

/* The range containing address starts at start (0: none contains it). */
static void expect_at(uint64_t address, uint64_t start)
{
	struct tracker_entry found;
	bool hit = tracker_lookup(TRACKER_ADDRESSES, address, &found);

	if (start == 0) {
		if (hit)
			fail_msg("0x%llx: found in [0x%llx, +%llu), expected none",
			         (unsigned long long)address, (unsigned long long)found.start,
			         (unsigned long long)found.size);
		return;
	}
	if (!hit)
		fail_msg("0x%llx: not found, expected in the range at 0x%llx",
		         (unsigned long long)address, (unsigned long long)start);
	assert_int_equal(found.start, start);
}

static void remove_exact(uint64_t start, uint64_t size)
{
	struct tracker_entry removed;

	assert_true(tracker_remove(TRACKER_ADDRESSES, start, &removed));
	assert_int_equal(removed.start, start);
	assert_int_equal(removed.size, size);
}

static void test_lookup_inside(void **state)
{
	uint64_t small = AREA(1) + 0x1000;
	uint64_t large = AREA(1) + 4 * GiB;
	uint64_t across = AREA(1) + 0x2000 - 128; /* over a 4 KiB boundary */
	struct tracker_entry found;

	(void)state;
	insert(small, 256, CT_MEM_DEVICE, 0);
	insert(large, GiB, CT_MEM_MANAGED, 2);
	insert(across, 256, CT_MEM_HOST_PINNED, CT_DEVICE_NONE);
	expect_at(small, small);
	expect_at(small + 100, small);
	expect_at(small + 255, small);
	expect_at(small + 256, 0);
	expect_at(small - 1, 0);
	expect_at(large, large);
	expect_at(large + GiB / 2 + 12345, large);
	expect_at(large + GiB - 1, large);
	expect_at(large + GiB, 0);
	expect_at(across + 127, across);
	expect_at(across + 128, across);
	expect_at(across + 255, across);
	assert_true(tracker_lookup(TRACKER_ADDRESSES, large + 77, &found));
	assert_int_equal(found.size, GiB);
	assert_int_equal(found.kind, CT_MEM_MANAGED);
	assert_int_equal(found.device, 2);
	assert_true(tracker_lookup(TRACKER_ADDRESSES, across + 1, &found));
	assert_int_equal(found.kind, CT_MEM_HOST_PINNED);
	assert_int_equal(found.device, CT_DEVICE_NONE);
	remove_exact(small, 256);
	remove_exact(large, GiB);
	remove_exact(across, 256);
	expect_at(small, 0);
	expect_at(large + 1, 0);
	expect_at(across + 200, 0);
}

/* Every class of size, and the sizes at its edges. */
static void test_every_size(void **state)
{
	static const uint64_t sizes[] = {
		1,           4 * KiB - 1, 4 * KiB,  4 * KiB + 1,  64 * KiB, 64 * KiB + 1,
		MiB + 1,     3 * MiB,     16 * MiB, 16 * MiB + 1, 3 * GiB,  GiB * 1024,
		GiB * 70000, 0, /* counts as one byte */
	};
	uint64_t at = AREA(2);

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t size = sizes[i] ? sizes[i] : 1;
		/* Odd starts, so that ranges straddle granules. */
		uint64_t start = at + 0x10 * (i + 1);

		insert(start, sizes[i], CT_MEM_DEVICE, (uint8_t)i);
		expect_at(start, start);
		expect_at(start + size / 2, start);
		expect_at(start + size - 1, start);
		expect_at(start + size, 0);
		expect_at(start - 1, 0);
		remove_exact(start, sizes[i]);
		expect_at(start, 0);
		at += size + 4 * GiB;
	}
}

static void test_remove(void **state)
{
	uint64_t a = AREA(3) + MiB;
	struct tracker_entry removed;

	(void)state;
	insert(a, 64 * KiB, CT_MEM_DEVICE, 0);
	insert(a + 64 * KiB, 512, CT_MEM_DEVICE, 0);
	/* Only by the start. */
	assert_false(tracker_remove(TRACKER_ADDRESSES, a + 1, &removed));
	assert_false(tracker_remove(TRACKER_ADDRESSES, a - 64 * KiB, &removed));
	expect_at(a + 1, a);
	remove_exact(a, 64 * KiB);
	assert_false(tracker_remove(TRACKER_ADDRESSES, a, &removed));
	expect_at(a, 0);
	expect_at(a + 64 * KiB, a + 64 * KiB);
	remove_exact(a + 64 * KiB, 512);
}

/* A freed address given to another allocation: the map says what the new
 * one is, nothing of the old. */
static void test_reuse_after_free(void **state)
{
	uint64_t x = AREA(4) + 0x200000;
	struct tracker_entry found;

	(void)state;
	insert(x, MiB, CT_MEM_DEVICE, 0);
	remove_exact(x, MiB);
	insert(x, 256, CT_MEM_MANAGED, 1);
	assert_true(tracker_lookup(TRACKER_ADDRESSES, x, &found));
	assert_int_equal(found.size, 256);
	assert_int_equal(found.kind, CT_MEM_MANAGED);
	assert_int_equal(found.device, 1);
	expect_at(x + 4096, 0);
	remove_exact(x, 256);
	/* And a larger one over where smaller ones were. */
	insert(x, 512, CT_MEM_DEVICE, 0);
	insert(x + 512, 512, CT_MEM_DEVICE, 0);
	remove_exact(x, 512);
	remove_exact(x + 512, 512);
	insert(x, 2 * GiB, CT_MEM_ASYNC, 3);
	expect_at(x + 700, x);
	expect_at(x + GiB, x);
	remove_exact(x, 2 * GiB);
}

/* A range inserted over ranges still in the map (whose release cudatrace
 * did not see) replaces them. */
static void test_stale_replaced(void **state)
{
	uint64_t base = AREA(5);
	struct tracker_entry found;

	(void)state;
	/* Stale large range; a small one inside it. */
	insert(base, MiB, CT_MEM_DEVICE, 0);
	insert(base + 8 * KiB, 256, CT_MEM_DEVICE, 1);
	expect_at(base, 0);
	expect_at(base + 8 * KiB + 1, base + 8 * KiB);
	/* Stale small ranges of several classes, scattered; one range over
	 * them all. */
	for (uint64_t i = 0; i < 40; i++)
		insert(base + GiB + i * 25 * MiB, (i % 4 + 1) * 3000 * (i % 3 ? 1 : 100),
		       CT_MEM_DEVICE, 0);
	insert(base + GiB - 4 * KiB, 2 * GiB, CT_MEM_MANAGED, 2);
	for (uint64_t i = 0; i < 40; i++) {
		assert_true(tracker_lookup(TRACKER_ADDRESSES, base + GiB + i * 25 * MiB, &found));
		assert_int_equal(found.start, base + GiB - 4 * KiB);
	}
	/* One that starts inside a stale one and ends past it. */
	insert(base + 4 * GiB, 4 * KiB, CT_MEM_DEVICE, 0);
	insert(base + 4 * GiB + 2 * KiB, 8 * KiB, CT_MEM_DEVICE, 0);
	expect_at(base + 4 * GiB, 0);
	expect_at(base + 4 * GiB + 9 * KiB, base + 4 * GiB + 2 * KiB);
	remove_exact(base + 8 * KiB, 256);
	remove_exact(base + GiB - 4 * KiB, 2 * GiB);
	remove_exact(base + 4 * GiB + 2 * KiB, 8 * KiB);
	expect_at(base + GiB, 0);
}

/* A range whose release cudatrace did not see, then another allocation at
 * the same address, larger or smaller: the release that follows removes
 * the new one whole, with its own size, and leaves nothing of the old. (A
 * map that dropped the stale range from one index only and removed from
 * another reported the later free of a large block with a small block's
 * size.) */
static void test_stale_same_start(void **state)
{
	uint64_t x = AREA(10) + 0x400000;
	struct tracker_entry found;

	(void)state;
	/* Small, stale; large over it. */
	insert(x, 512, CT_MEM_DEVICE, 0);
	insert(x, 64 * MiB, CT_MEM_DEVICE, 1);
	expect_at(x + 32 * MiB, x);
	assert_true(tracker_lookup(TRACKER_ADDRESSES, x + 100, &found));
	assert_int_equal(found.size, 64 * MiB);
	remove_exact(x, 64 * MiB);
	expect_at(x, 0);
	expect_at(x + 100, 0);
	assert_false(tracker_remove(TRACKER_ADDRESSES, x, &found));
	/* Large, stale; small over it. */
	insert(x, 64 * MiB, CT_MEM_DEVICE, 1);
	insert(x, 512, CT_MEM_DEVICE, 0);
	expect_at(x + 32 * MiB, 0);
	remove_exact(x, 512);
	expect_at(x, 0);
	assert_false(tracker_remove(TRACKER_ADDRESSES, x, &found));
	/* Many small stale ranges, more than an insert drops at once, under
	 * a large one: every address of it is the large one's. */
	for (uint64_t i = 0; i < 200; i++)
		insert(x + i * 8 * KiB, 512, CT_MEM_DEVICE, 0);
	insert(x, 4 * MiB, CT_MEM_MANAGED, 2);
	for (uint64_t i = 0; i < 200; i++) {
		assert_true(tracker_lookup(TRACKER_ADDRESSES, x + i * 8 * KiB + 8, &found));
		assert_int_equal(found.start, x);
		assert_int_equal(found.size, 4 * MiB);
	}
	remove_exact(x, 4 * MiB);
	for (uint64_t i = 0; i < 200; i++)
		expect_at(x + i * 8 * KiB, 0);
}

/* cuMemUnmap: every range starting in the unmapped interval, one by one;
 * none that starts outside it. */
static void test_remove_within(void **state)
{
	uint64_t b = AREA(6) + 64 * GiB;
	struct tracker_entry removed;
	uint64_t seen = 0;

	(void)state;
	insert(b - 2 * MiB, 4 * MiB, CT_MEM_VMM_MAP, 0); /* starts before */
	insert(b + 2 * MiB, 2 * MiB, CT_MEM_VMM_MAP, 0);
	insert(b + 8 * MiB, 4 * MiB, CT_MEM_VMM_MAP, 0);
	insert(b + 15 * MiB, 8 * MiB, CT_MEM_VMM_MAP, 0); /* ends after */
	insert(b + 23 * MiB, 512, CT_MEM_DEVICE, 0);      /* starts after */
	while (tracker_remove_within(b, b + 16 * MiB, &removed)) {
		assert_true(removed.start >= b && removed.start < b + 16 * MiB);
		seen++;
	}
	assert_int_equal(seen, 3);
	expect_at(b, b - 2 * MiB);
	expect_at(b + 16 * MiB, 0);
	expect_at(b + 23 * MiB, b + 23 * MiB);
	assert_false(tracker_remove_within(b, b, &removed));
	/* An interval far wider than the map holds ranges: found all the
	 * same. */
	insert(b + 100 * GiB + 3, 40, CT_MEM_DEVICE, 0);
	assert_true(tracker_remove_within(b - 2 * MiB, b + 64 * GiB * 1024, &removed));
	assert_true(tracker_remove_within(b - 2 * MiB, b + 64 * GiB * 1024, &removed));
	assert_true(tracker_remove_within(b - 2 * MiB, b + 64 * GiB * 1024, &removed));
	assert_false(tracker_remove_within(b - 2 * MiB, b + 64 * GiB * 1024, &removed));
	expect_at(b + 100 * GiB + 10, 0);
	expect_at(b, 0);
}

static void test_handles(void **state)
{
	struct tracker_entry e = { .start = 0x1234, .size = 2 * MiB, .kind = CT_MEM_VMM_PHYSICAL };
	struct tracker_entry found;

	(void)state;
	assert_true(tracker_insert(TRACKER_VMM_HANDLES, &e));
	assert_true(tracker_lookup(TRACKER_VMM_HANDLES, 0x1234, &found));
	assert_int_equal(found.size, 2 * MiB);
	/* Handles are exact: nothing "inside" one, and not addresses. */
	assert_false(tracker_lookup(TRACKER_VMM_HANDLES, 0x1235, &found));
	assert_false(tracker_lookup(TRACKER_ADDRESSES, 0x1234, &found));
	/* The same handle again replaces it. */
	e.size = 4 * MiB;
	e.device = 1;
	assert_true(tracker_insert(TRACKER_VMM_HANDLES, &e));
	assert_true(tracker_remove(TRACKER_VMM_HANDLES, 0x1234, &found));
	assert_int_equal(found.size, 4 * MiB);
	assert_int_equal(found.device, 1);
	assert_false(tracker_remove(TRACKER_VMM_HANDLES, 0x1234, &found));
	assert_false(tracker_lookup(TRACKER_VMM_HANDLES, 0x1234, &found));
	/* 0 is no handle. */
	e.start = 0;
	assert_false(tracker_insert(TRACKER_VMM_HANDLES, &e));
	assert_false(tracker_lookup(TRACKER_VMM_HANDLES, 0, &found));
}

/* ------------------------------------------------- what entries carry */

/* Every field comes back as it went in, from a removal: a range's, a
 * host range's write-combining, a mapping's handle, a physical
 * allocation's counts (a lookup of a range gives its first fields only). */
static void test_entry_fields(void **state)
{
	struct tracker_entry e = {
		.start = AREA(11) + 0x3000,
		.size = 3 * MiB + 5,
		.alloc_time = UINT64_C(1234567890123456789),
		.api = { .domain = CT_DOMAIN_RUNTIME,
		         .cbid = 0xbeef,
		         .correlation_id = 0xfeedface },
		.context = 0xc0ffee01,
		.stream = 0xfffffffe,
		.kind = CT_MEM_ASYNC,
		.device = 7,
	};
	struct tracker_entry found;

	(void)state;
	assert_true(tracker_insert(TRACKER_ADDRESSES, &e));
	/* A lookup gives what copies need. */
	assert_true(tracker_lookup(TRACKER_ADDRESSES, e.start + MiB, &found));
	assert_int_equal(found.start, e.start);
	assert_int_equal(found.size, e.size);
	assert_int_equal(found.kind, e.kind);
	assert_int_equal(found.device, e.device);
	assert_int_equal(found.api.domain, e.api.domain);
	assert_int_equal(found.api.cbid, e.api.cbid);
	assert_int_equal(found.stream, CT_STREAM_NONE);
	assert_int_equal(found.context, 0);
	assert_int_equal(found.alloc_time, 0);
	assert_true(tracker_remove(TRACKER_ADDRESSES, e.start, &found));
	assert_memory_equal(&found, &e, sizeof(e));
	/* Write-combined host memory says so to a lookup: copies of it are
	 * not sampled (libtrace/copy.c). */
	e.kind = CT_MEM_HOST_PINNED;
	e.write_combined = true;
	assert_true(tracker_insert(TRACKER_ADDRESSES, &e));
	assert_true(tracker_lookup(TRACKER_ADDRESSES, e.start + MiB, &found));
	assert_true(found.write_combined);
	assert_true(tracker_remove(TRACKER_ADDRESSES, e.start, &found));
	assert_memory_equal(&found, &e, sizeof(e));
	e.write_combined = false;
	/* A mapping keeps the handle it maps. */
	e.kind = CT_MEM_VMM_MAP;
	e.handle = UINT64_C(0x8000000000000123);
	assert_true(tracker_insert(TRACKER_ADDRESSES, &e));
	assert_true(tracker_remove(TRACKER_ADDRESSES, e.start, &found));
	assert_memory_equal(&found, &e, sizeof(e));
	/* Physical memory keeps its counts. */
	e.kind = CT_MEM_VMM_PHYSICAL;
	e.handle = 0;
	e.start = 0x9999;
	e.refs = UINT32_MAX;
	e.maps = 0x12345678;
	assert_true(tracker_insert(TRACKER_VMM_HANDLES, &e));
	assert_true(tracker_lookup(TRACKER_VMM_HANDLES, e.start, &found));
	assert_memory_equal(&found, &e, sizeof(e));
	assert_true(tracker_remove(TRACKER_VMM_HANDLES, e.start, &found));
	assert_memory_equal(&found, &e, sizeof(e));
}

static void insert_owned(uint64_t start, uint64_t size, uint32_t context)
{
	struct tracker_entry e = {
		.start = start, .size = size, .kind = CT_MEM_DEVICE, .context = context
	};

	assert_true(tracker_insert(TRACKER_ADDRESSES, &e));
}

/* A context's destruction takes what it owns, each once (ranges under two
 * granules too), and nothing of another context's or of no context's. */
static void test_take_context(void **state)
{
	uint64_t base = AREA(12);
	struct tracker_entry out[300];
	bool seen[150] = { false };
	size_t n, total = 0;

	(void)state;
	insert_owned(base, 512, 7);
	insert_owned(base + 0x1000 - 100, 200, 7); /* over a 4 KiB boundary */
	insert_owned(base + GiB, 3 * GiB, 7);
	insert_owned(base + 8 * GiB, 512, 8);
	insert_owned(base + 9 * GiB, 512, 0);
	n = tracker_take_context(7, out, 300);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(out[i].context, 7);
	expect_at(base, 0);
	expect_at(base + 0x1000 + 50, 0);
	expect_at(base + 2 * GiB, 0);
	expect_at(base + 8 * GiB, base + 8 * GiB);
	expect_at(base + 9 * GiB, base + 9 * GiB);
	assert_int_equal(tracker_take_context(7, out, 300), 0);
	/* Nothing for no context. */
	assert_int_equal(tracker_take_context(0, out, 300), 0);
	expect_at(base + 9 * GiB, base + 9 * GiB);
	/* More than the caller takes at once: in batches, none twice. */
	for (uint64_t i = 0; i < 150; i++)
		insert_owned(base + 16 * GiB + i * 64 * KiB, 1000 + i, 9);
	do {
		n = tracker_take_context(9, out, 64);
		for (size_t i = 0; i < n; i++) {
			uint64_t index = (out[i].start - base - 16 * GiB) / (64 * KiB);

			assert_true(index < 150);
			assert_false(seen[index]);
			assert_int_equal(out[i].size, 1000 + index);
			seen[index] = true;
		}
		total += n;
	} while (n == 64);
	assert_int_equal(total, 150);
	remove_exact(base + 8 * GiB, 512);
	remove_exact(base + 9 * GiB, 512);
}

/* cuMemRelease and cuMemUnmap in any order: the memory goes when neither
 * a handle nor a mapping is left, and only then. */
static void test_vmm_counts(void **state)
{
	struct tracker_entry e = { .start = 0x5150,
		                   .size = 2 * MiB,
		                   .kind = CT_MEM_VMM_PHYSICAL,
		                   .refs = 1,
		                   .device = 1 };
	struct tracker_entry found, freed = { 0 };

	(void)state;
	assert_true(tracker_insert(TRACKER_VMM_HANDLES, &e));
	/* Mapped, then released: still there. */
	assert_int_equal(tracker_vmm_adjust(e.start, 0, +1, &freed), TRACKER_VMM_ADJUSTED);
	assert_int_equal(tracker_vmm_adjust(e.start, -1, 0, &freed), TRACKER_VMM_ADJUSTED);
	assert_true(tracker_lookup(TRACKER_VMM_HANDLES, e.start, &found));
	assert_int_equal(found.refs, 0);
	assert_int_equal(found.maps, 1);
	/* A released handle has no reference to release again. */
	assert_int_equal(tracker_vmm_adjust(e.start, -1, 0, &freed), TRACKER_VMM_UNKNOWN);
	/* Retained through its mapping, then unmapped: still there. */
	assert_int_equal(tracker_vmm_adjust(e.start, +1, 0, NULL), TRACKER_VMM_ADJUSTED);
	assert_int_equal(tracker_vmm_adjust(e.start, 0, -1, &freed), TRACKER_VMM_ADJUSTED);
	assert_int_equal(tracker_vmm_adjust(e.start, 0, -1, &freed), TRACKER_VMM_UNKNOWN);
	assert_true(tracker_lookup(TRACKER_VMM_HANDLES, e.start, &found));
	assert_int_equal(found.refs, 1);
	assert_int_equal(found.maps, 0);
	/* The last reference: freed, and gone. */
	assert_int_equal(tracker_vmm_adjust(e.start, -1, 0, &freed), TRACKER_VMM_FREED);
	assert_int_equal(freed.start, e.start);
	assert_int_equal(freed.size, 2 * MiB);
	assert_int_equal(freed.device, 1);
	assert_false(tracker_lookup(TRACKER_VMM_HANDLES, e.start, &found));
	assert_int_equal(tracker_vmm_adjust(e.start, +1, 0, NULL), TRACKER_VMM_UNKNOWN);
	assert_int_equal(tracker_vmm_adjust(0, 0, -1, &freed), TRACKER_VMM_UNKNOWN);
	/* Released while mapped twice: the second unmap frees it. */
	assert_true(tracker_insert(TRACKER_VMM_HANDLES, &e));
	assert_int_equal(tracker_vmm_adjust(e.start, 0, +1, NULL), TRACKER_VMM_ADJUSTED);
	assert_int_equal(tracker_vmm_adjust(e.start, 0, +1, NULL), TRACKER_VMM_ADJUSTED);
	assert_int_equal(tracker_vmm_adjust(e.start, -1, 0, &freed), TRACKER_VMM_ADJUSTED);
	assert_int_equal(tracker_vmm_adjust(e.start, 0, -1, &freed), TRACKER_VMM_ADJUSTED);
	assert_int_equal(tracker_vmm_adjust(e.start, 0, -1, &freed), TRACKER_VMM_FREED);
	assert_false(tracker_lookup(TRACKER_VMM_HANDLES, e.start, &found));
}

/* The entries of out that start in [lo, hi): how many, each start once. */
static size_t count_in(const struct tracker_entry *out, size_t n, uint64_t lo, uint64_t hi)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		if (out[i].start < lo || out[i].start >= hi)
			continue;
		count++;
		for (size_t j = 0; j < i; j++)
			assert_false(out[j].start == out[i].start && out[j].kind == out[i].kind);
	}
	return count;
}

/* The live set: every range once (whatever the granules it is under) and
 * every handle; how many there are when out is too small. */
static void test_snapshot(void **state)
{
	uint64_t base = AREA(13);
	struct tracker_entry out[512];
	struct tracker_entry h = { .start = 0x7777, .size = MiB, .kind = CT_MEM_VMM_PHYSICAL };
	size_t before = tracker_snapshot(out, 512);
	size_t n;

	(void)state;
	assert_true(before <= 512);
	assert_int_equal(count_in(out, before, base - 100, base + 80 * GiB), 0);
	for (uint64_t i = 0; i < 20; i++)
		insert(base + i * 4 * GiB - 100, 200 + i * 100 * MiB, CT_MEM_MANAGED, (uint8_t)i);
	assert_true(tracker_insert(TRACKER_VMM_HANDLES, &h));
	assert_true(tracker_count() >= before + 21);
	n = tracker_snapshot(out, 512);
	assert_int_equal(n, before + 21);
	assert_int_equal(count_in(out, n, base - 100, base + 80 * GiB), 20);
	assert_int_equal(count_in(out, n, h.start, h.start + 1), 1);
	for (size_t i = 0; i < n; i++) {
		if (out[i].start >= base - 100 && out[i].start < base + 80 * GiB)
			assert_int_equal(out[i].size, 200 + out[i].device * 100 * MiB);
	}
	/* Too small: the count all the same. */
	assert_int_equal(tracker_snapshot(out, 5), before + 21);
	assert_int_equal(tracker_snapshot(NULL, 0), before + 21);
	for (uint64_t i = 0; i < 20; i++)
		remove_exact(base + i * 4 * GiB - 100, 200 + i * 100 * MiB);
	assert_true(tracker_remove(TRACKER_VMM_HANDLES, h.start, &h));
	assert_int_equal(tracker_snapshot(out, 512), before);
}

/* ------------------------------------------------------------- threads */

#define WORKERS 4
#define ROUNDS  3000

struct worker {
	int id;
	pthread_barrier_t *start;
	unsigned errors;
};

/* Each worker allocates and frees small and large ranges of its own,
 * interleaved in the same granules as the others' (addresses of all
 * workers alternate), and checks its own after each step. */
static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t base = AREA(7) + (uint64_t)w->id * 1024;
	struct tracker_entry found, removed;

	pthread_barrier_wait(w->start);
	for (uint64_t r = 0; r < ROUNDS; r++) {
		uint64_t small = base + (r % 64) * WORKERS * 1024;
		uint64_t large = AREA(8) + ((r % 16) * WORKERS + (uint64_t)w->id) * 4 * GiB;
		struct tracker_entry s = { .start = small,
			                   .size = 1000,
			                   .kind = CT_MEM_DEVICE,
			                   .device = (uint8_t)w->id };
		struct tracker_entry l = { .start = large,
			                   .size = 3 * GiB,
			                   .kind = CT_MEM_MANAGED,
			                   .device = (uint8_t)w->id };

		w->errors += !tracker_insert(TRACKER_ADDRESSES, &s);
		w->errors += !tracker_insert(TRACKER_ADDRESSES, &l);
		w->errors += !tracker_lookup(TRACKER_ADDRESSES, small + 999, &found) ||
		             found.start != small || found.device != w->id;
		w->errors += !tracker_lookup(TRACKER_ADDRESSES, large + 2 * GiB, &found) ||
		             found.start != large || found.device != w->id;
		w->errors +=
		    !tracker_remove(TRACKER_ADDRESSES, small, &removed) || removed.size != 1000;
		w->errors += tracker_lookup(TRACKER_ADDRESSES, small + 10, &found);
		w->errors +=
		    !tracker_remove(TRACKER_ADDRESSES, large, &removed) || removed.size != 3 * GiB;
	}
	return NULL;
}

/* Ranges that stay, looked up while the workers churn: always there,
 * never half written. */
static const uint64_t kept[] = { AREA(7) + 8 * MiB, AREA(7) + 16 * GiB, AREA(8) + 1024 * GiB };
static bool readers_stop;

/* A live set taken while the workers churn: the kept ranges in it once
 * each, and no range twice. */
static unsigned check_snapshot(void)
{
	static struct tracker_entry out[1024];
	size_t n = tracker_snapshot(out, 1024);
	unsigned errors = n > 1024;

	for (size_t i = 0; i < n && i < 1024; i++) {
		for (size_t k = 0; k < sizeof(kept) / sizeof(kept[0]); k++)
			errors += out[i].start == kept[k] && out[i].size != (k + 1) * MiB;
		for (size_t j = 0; j < i; j++)
			errors += out[j].start == out[i].start && out[j].kind == out[i].kind;
	}
	for (size_t k = 0; k < sizeof(kept) / sizeof(kept[0]); k++) {
		size_t copies = 0;

		for (size_t i = 0; i < n && i < 1024; i++)
			copies += out[i].start == kept[k];
		errors += copies != 1;
	}
	return errors;
}

static void *read_kept(void *arg)
{
	unsigned *errors = arg;
	unsigned rounds = 0;

	while (!__atomic_load_n(&readers_stop, __ATOMIC_RELAXED)) {
		if (rounds++ % 64 == 0)
			*errors += check_snapshot();
		for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
			struct tracker_entry found;

			*errors += !tracker_lookup(TRACKER_ADDRESSES, kept[i] + 100, &found) ||
			           found.start != kept[i] || found.size != (i + 1) * MiB ||
			           found.device != i + 10;
		}
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct worker workers[WORKERS];
	pthread_t threads[WORKERS], reader;
	pthread_barrier_t start;
	unsigned read_errors = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		insert(kept[i], (i + 1) * MiB, CT_MEM_DEVICE, (uint8_t)(i + 10));
	pthread_barrier_init(&start, NULL, WORKERS);
	assert_int_equal(pthread_create(&reader, NULL, read_kept, &read_errors), 0);
	for (int i = 0; i < WORKERS; i++) {
		workers[i] = (struct worker){ i, &start, 0 };
		assert_int_equal(pthread_create(&threads[i], NULL, work, &workers[i]), 0);
	}
	for (int i = 0; i < WORKERS; i++) {
		pthread_join(threads[i], NULL);
		assert_int_equal(workers[i].errors, 0);
	}
	__atomic_store_n(&readers_stop, true, __ATOMIC_RELAXED);
	pthread_join(reader, NULL);
	pthread_barrier_destroy(&start);
	assert_int_equal(read_errors, 0);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		remove_exact(kept[i], (i + 1) * MiB);
	expect_at(AREA(7) + 10, 0);
	expect_at(AREA(8) + GiB, 0);
}

/* One address passed back and forth: freed by one thread, allocated by the
 * other with another size and device; each sees the current owner. */
struct handoff {
	pthread_mutex_t lock;
	pthread_cond_t turn_changed;
	int turn; /* whose: turn % 2 */
	unsigned errors;
};

struct passer {
	struct handoff *h;
	int me;
};

#define HANDOFF_ADDRESS (AREA(9) + 0x40000)

static void *pass(void *arg)
{
	struct handoff *h = ((struct passer *)arg)->h;
	int me = ((struct passer *)arg)->me;
	struct tracker_entry found, removed;

	for (int round = 0; round < 500; round++) {
		uint64_t size = me ? 128 : 3 * MiB;
		struct tracker_entry e = { .start = HANDOFF_ADDRESS,
			                   .size = size,
			                   .kind = CT_MEM_DEVICE,
			                   .device = (uint8_t)me };

		pthread_mutex_lock(&h->lock);
		while (h->turn % 2 != me)
			pthread_cond_wait(&h->turn_changed, &h->lock);
		pthread_mutex_unlock(&h->lock);
		h->errors += !tracker_insert(TRACKER_ADDRESSES, &e);
		h->errors +=
		    !tracker_lookup(TRACKER_ADDRESSES, HANDOFF_ADDRESS + size - 1, &found) ||
		    found.device != me || found.size != size;
		/* Past the small one: only the large one's. */
		h->errors += tracker_lookup(TRACKER_ADDRESSES, HANDOFF_ADDRESS + 2 * MiB, &found) !=
		             (me == 0);
		h->errors += !tracker_remove(TRACKER_ADDRESSES, HANDOFF_ADDRESS, &removed) ||
		             removed.size != size;
		pthread_mutex_lock(&h->lock);
		h->turn++;
		pthread_cond_broadcast(&h->turn_changed);
		pthread_mutex_unlock(&h->lock);
	}
	return NULL;
}

static void test_handoff(void **state)
{
	struct handoff h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	struct passer pa = { &h, 0 }, pb = { &h, 1 };
	pthread_t a, b;

	(void)state;
	assert_int_equal(pthread_create(&a, NULL, pass, &pa), 0);
	assert_int_equal(pthread_create(&b, NULL, pass, &pb), 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert_int_equal(h.errors, 0);
	expect_at(HANDOFF_ADDRESS, 0);
}

/*
 * The addresses around a miss that no range meets: the granule of the
 * smallest class that holds ranges, when no class's granule around it
 * holds one; none when one does, even a range that does not hold the
 * address.
 */
static void test_free_around(void **state)
{
	uint64_t a = AREA(14), lo, hi;
	struct tracker_entry removed;

	(void)state;
	insert(a, 1024, CT_MEM_DEVICE, 0);                /* of 4 KiB granules */
	insert(a + 3 * MiB, 100 * KiB, CT_MEM_DEVICE, 0); /* of 1 MiB granules */
	/* the next 4 KiB granule: nothing in it, nor in its 1 MiB one's
	 * granules but the first 4 KiB, which is not its own */
	assert_true(tracker_free_around(a + 4096 + 64, &lo, &hi));
	assert_int_equal(lo, a + 4096);
	assert_int_equal(hi, a + 8192);
	expect_at(lo, 0);
	expect_at(hi - 1, 0);
	/* the 1 MiB granule of the second range holds it: no answer there,
	 * even 200 KiB past its end */
	assert_false(tracker_free_around(a + 3 * MiB + 300 * KiB, &lo, &hi));
	/* nor in the first one's 4 KiB granule past its end */
	expect_at(a + 2000, 0);
	assert_false(tracker_free_around(a + 2000, &lo, &hi));
	assert_true(tracker_remove(TRACKER_ADDRESSES, a, &removed));
	assert_true(tracker_remove(TRACKER_ADDRESSES, a + 3 * MiB, &removed));
	/* gone: the whole 1 MiB granule is free of them */
	assert_true(tracker_free_around(a + 2000, &lo, &hi));
	assert_true(lo <= a + 2000 && a + 2000 < hi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_inside),  cmocka_unit_test(test_every_size),
		cmocka_unit_test(test_remove),         cmocka_unit_test(test_reuse_after_free),
		cmocka_unit_test(test_stale_replaced), cmocka_unit_test(test_remove_within),
		cmocka_unit_test(test_handles),        cmocka_unit_test(test_threads),
		cmocka_unit_test(test_handoff),        cmocka_unit_test(test_stale_same_start),
		cmocka_unit_test(test_entry_fields),   cmocka_unit_test(test_take_context),
		cmocka_unit_test(test_vmm_counts),     cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_free_around),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("tracker", tests, NULL, NULL);
}
