/* SPDX-License-Identifier: MIT */
/*
 * test-transfers.c - the transfers analysis fed with made-up copies whose
 * costs are known: the hotspot ranking, and each finding triggered by its
 * pattern and not by its near miss.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "synthetic-events.h"

#define MEMCPY       31 /* cudaMemcpy */
#define MEMCPY_ASYNC 41 /* cudaMemcpyAsync */
#define DEVICE_BASE  UINT64_C(0x7f0000000000)
#define MIB          (1024 * 1024)

/* A reader with the transfers analysis, the copy calls named. */
static void transfers_init(struct synth *s)
{
	synth_init(s, &ct_transfers_analysis, NULL);
	synth_api_name(s, 1, CT_DOMAIN_RUNTIME, MEMCPY, "cudaMemcpy");
	synth_api_name(s, 1, CT_DOMAIN_RUNTIME, MEMCPY_ASYNC, "cudaMemcpyAsync");
}

static const struct ct_node *transfers_of(const struct ct_node *root)
{
	return node_path(root, "transfers");
}

static size_t findings_of_kind(const struct ct_node *transfers, const char *kind)
{
	return node_count(node_path(transfers, "findings"), "kind", kind);
}

/* The finding of KIND at SITE, NULL if none. */
static const struct ct_node *finding_at(const struct ct_node *transfers, const char *kind,
                                        const char *site)
{
	const struct ct_node *findings = node_path(transfers, "findings");

	for (size_t i = 0; i < ct_node_count(findings); i++) {
		const struct ct_node *f = ct_node_child(findings, i);

		if (!strcmp(node_str(f, "kind"), kind) && !strcmp(node_str(f, "site"), site))
			return f;
	}
	return NULL;
}

/*
 * 1000 small synchronous copies from pageable memory inside NVTX range
 * "load" (10 µs of host time each, 1.9 µs on the GPU) cost 10 ms; one
 * 64 MiB asynchronous pinned copy costs its 2.68 ms on the GPU. The storm
 * ranks first, and the findings say why.
 */
static void test_storm_ranked_above_large_pinned_copy(void **unused)
{
	struct synth_copy small = { CT_DIR_HTOD,      0,    DEVICE_BASE, 4096,
		                    CT_HOST_PAGEABLE, true, 0,           MEMCPY };
	struct synth_copy large = { CT_DIR_HTOD, 0x900000000,    DEVICE_BASE + 256 * MIB,
		                    64 * MIB,    CT_HOST_PINNED, false,
		                    0,           MEMCPY_ASYNC };
	const struct ct_node *transfers, *hotspots, *first, *second;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	synth_nvtx_push(&s, t, "load");
	for (uint32_t i = 0; i < 1000; i++, t += 20000) {
		small.src = 0x100000 + i * 4096; /* distinct buffers: no repeated upload */
		synth_copy_call(&s, t, &small, 1 + i, 10000, t + 8000, 1900);
	}
	synth_nvtx_pop(&s, t);
	synth_copy_call(&s, t, &large, 5000, 6000, t + 10000, 2684355);
	transfers = transfers_of(synth_report(&s));

	assert_int_equal(node_u64(transfers, "copies"), 1001);
	hotspots = node_path(transfers, "hotspots");
	assert_int_equal(ct_node_count(hotspots), 2);
	first = node_at(hotspots, 0);
	second = node_at(hotspots, 1);
	assert_string_equal(node_str(first, "site"), "load:cudaMemcpy");
	assert_string_equal(node_str(first, "nvtx_path"), "load");
	assert_string_equal(node_str(first, "api"), "cudaMemcpy");
	assert_string_equal(node_str(first, "direction"), "HtoD");
	assert_string_equal(node_str(first, "host_memory"), "pageable");
	assert_string_equal(node_str(first, "size_class"), "4KiB-64KiB");
	assert_true(node_bool(first, "sync"));
	assert_int_equal(node_u64(first, "count"), 1000);
	assert_int_equal(node_u64(first, "bytes"), 4096000);
	assert_int_equal(node_i64(first, "gpu_time_ns"), 1900000);
	assert_int_equal(node_i64(first, "host_time_ns"), 10000000);
	assert_int_equal(node_i64(first, "cost_ns"), 10000000);
	assert_int_equal(node_i64(first, "gpu_idle_while_blocked_ns"), 8100000);

	assert_string_equal(node_str(second, "site"), "cudaMemcpyAsync");
	assert_string_equal(node_str(second, "host_memory"), "pinned");
	assert_false(node_bool(second, "sync"));
	assert_int_equal(node_i64(second, "cost_ns"), 2684355);
	assert_int_equal(node_i64(second, "gpu_idle_while_blocked_ns"), 0);
	/* the large copy set the best HtoD bandwidth: 25 GB/s */
	assert_true(fabs(node_double(second, "bandwidth_bytes_per_s") - 25e9) < 0.01e9);
	assert_true(fabs(node_double(first, "best_bandwidth_bytes_per_s") - 25e9) < 0.01e9);
	assert_true(node_double(first, "of_best") < 0.1);
	/* a host-device copy has no device peak to compare with */
	assert_true(node_is_null(first, "of_device_peak"));

	assert_non_null(finding_at(transfers, "small_copy_storm", "load:cudaMemcpy"));
	assert_non_null(finding_at(transfers, "sync_copy_gpu_idle", "load:cudaMemcpy"));
	assert_int_equal(findings_of_kind(transfers, "sync_copy_gpu_idle"), 1);
	assert_int_equal(findings_of_kind(transfers, "pageable_async"), 0);
	assert_int_equal(findings_of_kind(transfers, "repeated_upload"), 0);
	assert_int_equal(findings_of_kind(transfers, "round_trip"), 0);
	synth_fini(&s);
}

/* Ten copies of 1 MiB at T in range RANGE: HOST_NS on the host, GPU_NS on the GPU. */
static int64_t ten_copies(struct synth *s, int64_t t, const char *range, struct synth_copy *c,
                          uint32_t *correlation_id, int64_t host_ns, int64_t gpu_ns)
{
	synth_nvtx_push(s, t, range);
	for (int i = 0; i < 10; i++, t += 200000) {
		c->src += MIB;
		synth_copy_call(s, t, c, (*correlation_id)++, host_ns, t + 1000, gpu_ns);
	}
	synth_nvtx_pop(s, t);
	return t;
}

/* Async copies from pageable memory, and the same from pinned memory or synchronous. */
static void test_pageable_async(void **unused)
{
	struct synth_copy pageable_async = {
		CT_DIR_HTOD, 0x10000000, DEVICE_BASE, MIB, CT_HOST_PAGEABLE, false, 0, MEMCPY_ASYNC
	};
	struct synth_copy pinned_async = { CT_DIR_HTOD,    0x20000000, DEVICE_BASE, MIB,
		                           CT_HOST_PINNED, false,      0,           MEMCPY_ASYNC };
	struct synth_copy pageable_sync = { CT_DIR_HTOD,      0x30000000, DEVICE_BASE, MIB,
		                            CT_HOST_PAGEABLE, true,       0,           MEMCPY };
	const struct ct_node *transfers, *f;
	uint32_t correlation_id = 1;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	t = ten_copies(&s, t, "a", &pageable_async, &correlation_id, 120000, 105000);
	t = ten_copies(&s, t, "b", &pinned_async, &correlation_id, 5000, 42000);
	ten_copies(&s, t, "c", &pageable_sync, &correlation_id, 120000, 105000);
	transfers = transfers_of(synth_report(&s));

	assert_int_equal(findings_of_kind(transfers, "pageable_async"), 1);
	f = finding_at(transfers, "pageable_async", "a:cudaMemcpyAsync");
	assert_non_null(f);
	assert_int_equal(node_u64(f, "count"), 10);
	assert_int_equal(node_u64(f, "bytes"), 10 * MIB);
	assert_int_equal(node_i64(f, "time_ns"), 10 * 120000);
	/* the GPU was busy for most of each wait: not idle */
	assert_int_equal(findings_of_kind(transfers, "sync_copy_gpu_idle"), 0);
	synth_fini(&s);
}

/* COUNT copies of BYTES in range RANGE, EVERY_NS apart. */
static int64_t copies(struct synth *s, int64_t t, const char *range, uint64_t bytes, int count,
                      int64_t every_ns, uint32_t *correlation_id)
{
	struct synth_copy c = { CT_DIR_HTOD,    0,     DEVICE_BASE, bytes,
		                CT_HOST_PINNED, false, 0,           MEMCPY_ASYNC };

	synth_nvtx_push(s, t, range);
	for (int i = 0; i < count; i++, t += every_ns) {
		c.src = 0x40000000 + (uint64_t)(*correlation_id) * 0x100000;
		synth_copy_call(s, t, &c, (*correlation_id)++, 2000, 0, 0);
	}
	synth_nvtx_pop(s, t);
	return t;
}

/* 256 small copies close together are a storm; 255, or 300 spread out, or large ones are not. */
static void test_storms(void **unused)
{
	const struct ct_node *transfers, *f;
	uint32_t correlation_id = 1;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	t = copies(&s, t, "few", 4096, 255, 10000, &correlation_id);
	t = copies(&s, t, "slow", 4096, 300, 2000000, &correlation_id);
	t = copies(&s, t, "large", MIB, 1000, 100000, &correlation_id);
	copies(&s, t, "storm", 1024, 256, 5000, &correlation_id);
	transfers = transfers_of(synth_report(&s));

	assert_int_equal(findings_of_kind(transfers, "small_copy_storm"), 1);
	f = finding_at(transfers, "small_copy_storm", "storm:cudaMemcpyAsync");
	assert_non_null(f);
	assert_int_equal(node_u64(f, "count"), 256);
	assert_int_equal(node_u64(f, "bytes"), 256 * 1024);
	assert_int_equal(findings_of_kind(transfers, "pageable_async"), 0);
	synth_fini(&s);
}

/* A synchronous pinned cudaMemcpy at *T (5 µs on the host, 3 µs on the GPU); *T moves on. */
static void sync_copy(struct synth *s, int64_t *t, unsigned direction, uint64_t src, uint64_t dst,
                      uint64_t bytes, uint32_t *correlation_id)
{
	struct synth_copy c = { direction, src, dst, bytes, CT_HOST_PINNED, true, 0, MEMCPY };

	synth_copy_call(s, *t, &c, (*correlation_id)++, 5000, *t + 1000, 3000);
	*t += 10000;
}

static void upload(struct synth *s, int64_t *t, uint64_t src, uint64_t bytes,
                   uint32_t *correlation_id)
{
	sync_copy(s, t, CT_DIR_HTOD, src, DEVICE_BASE, bytes, correlation_id);
}

/* An upload like upload()'s whose bytes the tracer sampled as SAMPLE. */
static void sampled_upload(struct synth *s, int64_t *t, uint64_t src, uint64_t bytes,
                           uint64_t sample, uint32_t *correlation_id)
{
	struct synth_copy c = { CT_DIR_HTOD,    src,  DEVICE_BASE, bytes,
		                CT_HOST_PINNED, true, 0,           MEMCPY };

	synth_sampled_copy_call(s, *t, &c, (*correlation_id)++, 5000, *t + 1000, 3000, sample);
	*t += 10000;
}

static void download(struct synth *s, int64_t *t, uint64_t dst, uint64_t bytes,
                     uint32_t *correlation_id)
{
	sync_copy(s, t, CT_DIR_DTOH, DEVICE_BASE, dst, bytes, correlation_id);
}

/* One buffer uploaded four times; one three times; one four times at different sizes. */
static void test_repeated_upload(void **unused)
{
	const struct ct_node *transfers, *f;
	uint32_t correlation_id = 1;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	for (int i = 0; i < 4; i++) {
		upload(&s, &t, 0xa000, 8192, &correlation_id);
		if (i < 3)
			upload(&s, &t, 0xb000000, 8192, &correlation_id);
		upload(&s, &t, 0xc000000, 4096 * (uint64_t)(i + 1), &correlation_id);
	}
	transfers = transfers_of(synth_report(&s));

	assert_int_equal(findings_of_kind(transfers, "repeated_upload"), 1);
	f = finding_at(transfers, "repeated_upload", "cudaMemcpy");
	assert_non_null(f);
	assert_int_equal(node_u64(f, "host_address"), 0xa000);
	assert_int_equal(node_u64(f, "count"), 4);
	assert_int_equal(node_u64(f, "buffers"), 1);
	assert_int_equal(node_u64(f, "bytes"), 4 * 8192);
	assert_false(node_bool(f, "at_least"));
	assert_non_null(strstr(node_str(f, "message"), " was uploaded 4 times"));
	assert_int_equal(findings_of_kind(transfers, "round_trip"), 0);
	synth_fini(&s);
}

/* The repeated_upload finding of the buffer at ADDRESS, NULL if none. */
static const struct ct_node *upload_finding(const struct ct_node *transfers, uint64_t address)
{
	const struct ct_node *findings = node_path(transfers, "findings");

	for (size_t i = 0; i < ct_node_count(findings); i++) {
		const struct ct_node *f = ct_node_child(findings, i);

		if (!strcmp(node_str(f, "kind"), "repeated_upload") &&
		    node_u64(f, "host_address") == address)
			return f;
	}
	return NULL;
}

/*
 * 20,000 buffers uploaded once each between buffer A's five uploads and
 * buffer B's (of another size class, so another hotspot and finding):
 * the table of uploaded buffers (4,096 entries) forgets most of them. A,
 * uploaded most, stayed all along: its count is exact. B took a forgotten
 * buffer's entry: had it been uploaded before, those uploads would be
 * forgotten too, so its five are the least it was.
 */
static void test_repeated_upload_after_table_forgot(void **unused)
{
	const struct ct_node *transfers, *a, *b;
	uint32_t correlation_id = 1;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	for (int i = 0; i < 5; i++)
		upload(&s, &t, 0xa000, 8192, &correlation_id);
	for (uint64_t i = 0; i < 20000; i++)
		upload(&s, &t, 0x10000000 + i * 8192, 8192, &correlation_id);
	for (int i = 0; i < 5; i++)
		upload(&s, &t, 0xb000, 131072, &correlation_id);
	transfers = transfers_of(synth_report(&s));

	assert_int_equal(findings_of_kind(transfers, "repeated_upload"), 2);
	a = upload_finding(transfers, 0xa000);
	b = upload_finding(transfers, 0xb000);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(node_u64(a, "count"), 5);
	assert_false(node_bool(a, "at_least"));
	assert_non_null(strstr(node_str(a, "message"), " was uploaded 5 times"));
	assert_int_equal(node_u64(b, "count"), 5);
	assert_true(node_bool(b, "at_least"));
	assert_non_null(strstr(node_str(b, "message"), " was uploaded at least 5 times"));
	synth_fini(&s);
}

/*
 * Uploads whose bytes the tracer sampled. A staging buffer refilled
 * before each of its eight uploads (a data loader's) sends other bytes
 * each time: nothing to leave out. A buffer sent twice, then refilled and
 * sent five times in a row unchanged: the five are the finding's, and its
 * message says the bytes were the same. One (of another size class, so
 * another finding) whose samples are partly missing (a 2D copy, an older
 * trace) counts as before, and says nothing of its bytes.
 */
static void test_repeated_upload_sampled(void **unused)
{
	const struct ct_node *transfers, *f;
	uint32_t correlation_id = 1;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	for (uint64_t i = 0; i < 8; i++)
		sampled_upload(&s, &t, 0xa000, 8192, 100 + i, &correlation_id);
	for (uint64_t i = 0; i < 7; i++)
		sampled_upload(&s, &t, 0xb000, 8192, i < 2 ? 7 : 9, &correlation_id);
	for (uint64_t i = 0; i < 4; i++)
		sampled_upload(&s, &t, 0xc000, 131072, i == 2 ? 0 : 5, &correlation_id);
	transfers = transfers_of(synth_report(&s));

	assert_int_equal(findings_of_kind(transfers, "repeated_upload"), 2);
	assert_null(upload_finding(transfers, 0xa000));
	f = upload_finding(transfers, 0xb000);
	assert_non_null(f);
	assert_int_equal(node_u64(f, "count"), 5);
	assert_int_equal(node_u64(f, "bytes"), 5 * 8192);
	assert_non_null(strstr(node_str(f, "message"),
	                       " was uploaded 5 times in a row with the same sampled bytes: "));
	assert_true(node_bool(f, "same_bytes"));
	f = upload_finding(transfers, 0xc000);
	assert_non_null(f);
	assert_int_equal(node_u64(f, "count"), 4);
	assert_non_null(strstr(node_str(f, "message"), " was uploaded 4 times: "));
	assert_false(node_bool(f, "same_bytes"));
	synth_fini(&s);
}

/*
 * A loop over a dataset's slices, from one line: 30 buffers of 64 to 160
 * bytes, each uploaded five times, and one uploaded three times. One
 * finding for the site, of the 30 buffers and their 150 uploads, costing
 * the 120 after each buffer's first; it names no one buffer.
 */
static void test_repeated_uploads_of_one_site(void **unused)
{
	const struct ct_node *transfers, *f;
	uint32_t correlation_id = 1;
	uint64_t bytes = 0;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	for (int round = 0; round < 5; round++) {
		for (uint64_t i = 0; i < 30; i++)
			upload(&s, &t, 0x100000 + i * 256, 64 + (i % 5) * 24, &correlation_id);
		if (round < 3)
			upload(&s, &t, 0x200000, 64, &correlation_id);
	}
	for (uint64_t i = 0; i < 30; i++)
		bytes += 5 * (64 + (i % 5) * 24);
	transfers = transfers_of(synth_report(&s));

	assert_int_equal(findings_of_kind(transfers, "repeated_upload"), 1);
	f = finding_at(transfers, "repeated_upload", "cudaMemcpy");
	assert_non_null(f);
	assert_int_equal(node_u64(f, "buffers"), 30);
	assert_int_equal(node_u64(f, "count"), 150);
	assert_int_equal(node_u64(f, "bytes"), bytes);
	assert_int_equal(node_u64(f, "time_ns"), 120 * 5000);
	assert_true(node_is_null(f, "host_address"));
	assert_string_equal(node_str(f, "message"),
	                    "30 host buffers (64 B to 160 B each) were each uploaded 5 times, 150 "
	                    "times in all: if their contents do not change in between, upload "
	                    "each once and keep them on the device");
	synth_fini(&s);
}

/* Bytes downloaded then uploaded back; near misses: another size, another address. */
static void test_round_trip(void **unused)
{
	const struct ct_node *transfers, *f;
	uint32_t correlation_id = 1;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	synth_nvtx_push(&s, t, "trip");
	download(&s, &t, 0x5000000, 65536, &correlation_id);
	upload(&s, &t, 0x5000000, 65536, &correlation_id);
	synth_nvtx_pop(&s, t);
	synth_nvtx_push(&s, t, "size");
	download(&s, &t, 0x9000000, 65536, &correlation_id);
	upload(&s, &t, 0x9000000, 32768, &correlation_id);
	synth_nvtx_pop(&s, t);
	synth_nvtx_push(&s, t, "address");
	download(&s, &t, 0xd000000, 65536, &correlation_id);
	upload(&s, &t, 0xd001000, 65536, &correlation_id);
	synth_nvtx_pop(&s, t);
	transfers = transfers_of(synth_report(&s));

	assert_int_equal(findings_of_kind(transfers, "round_trip"), 1);
	f = finding_at(transfers, "round_trip", "trip:cudaMemcpy");
	assert_non_null(f);
	assert_int_equal(node_u64(f, "count"), 1);
	assert_int_equal(node_u64(f, "bytes"), 65536);
	assert_string_equal(node_str(f, "direction"), "HtoD");
	assert_false(node_bool(f, "at_least"));
	assert_ptr_equal(strstr(node_str(f, "message"), "1 upload "), node_str(f, "message"));
	synth_fini(&s);
}

/*
 * 5,000 buffers downloaded and not sent back, more than the table of
 * downloads holds (4,096): it forgets some, and a round trip of one of
 * them would not be counted. The round trip it does count is the least
 * there were.
 */
static void test_round_trip_after_table_forgot(void **unused)
{
	const struct ct_node *transfers, *f;
	uint32_t correlation_id = 1;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	for (uint64_t i = 0; i < 5000; i++)
		download(&s, &t, 0x10000000 + i * 65536, 65536, &correlation_id);
	synth_nvtx_push(&s, t, "trip");
	download(&s, &t, 0x5000000, 65536, &correlation_id);
	upload(&s, &t, 0x5000000, 65536, &correlation_id);
	synth_nvtx_pop(&s, t);
	transfers = transfers_of(synth_report(&s));

	f = finding_at(transfers, "round_trip", "trip:cudaMemcpy");
	assert_non_null(f);
	assert_int_equal(node_u64(f, "count"), 1);
	assert_true(node_bool(f, "at_least"));
	assert_ptr_equal(strstr(node_str(f, "message"), "at least 1 upload "),
	                 node_str(f, "message"));
	synth_fini(&s);
}

static void kernel_record(struct synth *s, int64_t t, uint64_t start, uint64_t end)
{
	struct ct_event ev = { .type = CT_EV_GPU_KERNEL, .time_ns = t };

	ev.u.gpu_kernel.start = start;
	ev.u.gpu_kernel.end = end;
	ev.u.gpu_kernel.kernel_id = 1;
	ev.u.gpu_kernel.stream = 9;
	synth_feed(s, &ev);
}

/*
 * Synchronous downloads that wait 300 µs for 40 µs of copying leave the GPU
 * idle; the same downloads while a kernel keeps the GPU busy do not.
 */
static void test_sync_copy_gpu_idle(void **unused)
{
	struct synth_copy c = { CT_DIR_DTOH,    DEVICE_BASE, 0x60000000, MIB,
		                CT_HOST_PINNED, true,        0,          MEMCPY };
	const struct ct_node *transfers, *f, *busy;
	uint32_t correlation_id = 1;
	struct synth s;
	int64_t t = 1000000;

	transfers_init(&s);
	synth_nvtx_push(&s, t, "idle");
	for (int i = 0; i < 5; i++, t += 1000000)
		synth_copy_call(&s, t, &c, correlation_id++, 300000, t + 200000, 40000);
	synth_nvtx_pop(&s, t);
	synth_nvtx_push(&s, t, "busy");
	for (int i = 0; i < 5; i++, t += 1000000) {
		synth_copy_call(&s, t, &c, correlation_id++, 300000, t + 200000, 40000);
		kernel_record(&s, t + 300002, (uint64_t)t - 1000, (uint64_t)t + 301000);
	}
	synth_nvtx_pop(&s, t);
	transfers = transfers_of(synth_report(&s));

	assert_int_equal(findings_of_kind(transfers, "sync_copy_gpu_idle"), 1);
	f = finding_at(transfers, "sync_copy_gpu_idle", "idle:cudaMemcpy");
	assert_non_null(f);
	assert_int_equal(node_u64(f, "count"), 5);
	assert_int_equal(node_i64(f, "time_ns"), 5 * 260000);
	busy = node_find(node_path(transfers, "hotspots"), "site", "busy:cudaMemcpy");
	assert_non_null(busy);
	assert_int_equal(node_i64(busy, "gpu_idle_while_blocked_ns"), 0);
	assert_int_equal(node_i64(busy, "blocked_probed_ns"), 5 * 300000);
	synth_fini(&s);
}

/*
 * The busy timeline is the pass's, fed from the first GPU record: a kernel
 * whose record was flushed before the first synchronous copy still keeps
 * the GPU busy during that copy's wait.
 */
static void test_busy_recorded_before_first_wait(void **unused)
{
	struct synth_copy c = { CT_DIR_DTOH,    DEVICE_BASE, 0x60000000, MIB,
		                CT_HOST_PINNED, true,        0,          MEMCPY };
	const struct ct_node *transfers, *h;
	struct synth s;

	transfers_init(&s);
	kernel_record(&s, 990000, 900000, 1400000);
	synth_copy_call(&s, 1000000, &c, 1, 300000, 1200000, 40000);
	transfers = transfers_of(synth_report(&s));

	h = node_at(node_path(transfers, "hotspots"), 0);
	assert_int_equal(node_i64(h, "blocked_probed_ns"), 300000);
	assert_int_equal(node_i64(h, "gpu_idle_while_blocked_ns"), 0);
	assert_int_equal(findings_of_kind(transfers, "sync_copy_gpu_idle"), 0);
	synth_fini(&s);
}

/*
 * A copy's GPU record may come late, or never; a memcpy event may not
 * record its call (entry 0): counted, not timed. Costs stay max(host, GPU).
 */
static void test_joins(void **unused)
{
	struct synth_copy c = { CT_DIR_HTOD,    0x70000000, DEVICE_BASE, MIB,
		                CT_HOST_PINNED, true,       0,           MEMCPY };
	const struct ct_node *transfers, *h;
	struct synth s;

	transfers_init(&s);
	/* host 50 µs, GPU 42 µs */
	synth_memcpy(&s, 1050000, &c, 1, 1000000);
	synth_gpu_memcpy(&s, 1050500, &c, 1, 1005000, 1047000);
	/* no GPU record: host 70 µs */
	c.src += MIB;
	synth_copy_call(&s, 2000000, &c, 2, 70000, 0, 0);
	/* a GPU record nobody asked for */
	synth_gpu_memcpy(&s, 2100000, &c, 99, 2050000, 2060000);
	/* a memcpy event that does not record its call: not timed */
	c.src += MIB;
	synth_memcpy(&s, 3030000, &c, 3, 0);
	transfers = transfers_of(synth_report(&s));

	h = node_at(node_path(transfers, "hotspots"), 0);
	assert_int_equal(node_u64(h, "count"), 3);
	assert_int_equal(node_i64(h, "host_time_ns"), 50000 + 70000);
	assert_int_equal(node_i64(h, "gpu_time_ns"), 42000);
	assert_int_equal(node_u64(h, "gpu_records"), 1);
	assert_int_equal(node_i64(h, "cost_ns"), 50000 + 70000);
	assert_int_equal(node_u64(transfers, "gpu_records_unmatched"), 1);
	assert_int_equal(node_u64(transfers, "copies_without_gpu_record"), 2);
	synth_fini(&s);
}

/*
 * A copy's GPU record may come before its memcpy event (the tracer wrote
 * it whole while the call had not yet returned): joined when the event
 * comes, timed as if it came after; one whose event never comes is a
 * record without copy. Costs stay max(host, GPU).
 */
static void test_record_before_event(void **unused)
{
	struct synth_copy c = { CT_DIR_HTOD,    0x70000000, DEVICE_BASE, MIB,
		                CT_HOST_PINNED, true,       0,           MEMCPY };
	const struct ct_node *transfers, *h;
	struct synth s;

	transfers_init(&s);
	/* GPU 42 µs, then the event: host 50 µs */
	synth_gpu_memcpy(&s, 1049000, &c, 1, 1005000, 1047000);
	synth_memcpy(&s, 1050000, &c, 1, 1000000);
	/* GPU 80 µs, host 60 µs */
	c.src += MIB;
	synth_gpu_memcpy(&s, 2059000, &c, 2, 2000000, 2080000);
	synth_memcpy(&s, 2060000, &c, 2, 2000000);
	/* a record whose event never comes */
	synth_gpu_memcpy(&s, 3000000, &c, 77, 2990000, 2995000);
	transfers = transfers_of(synth_report(&s));

	h = node_at(node_path(transfers, "hotspots"), 0);
	assert_int_equal(node_u64(h, "count"), 2);
	assert_int_equal(node_i64(h, "host_time_ns"), 50000 + 60000);
	assert_int_equal(node_i64(h, "gpu_time_ns"), 42000 + 80000);
	assert_int_equal(node_u64(h, "gpu_records"), 2);
	assert_int_equal(node_i64(h, "cost_ns"), 50000 + 80000);
	assert_int_equal(node_u64(transfers, "gpu_records_unmatched"), 1);
	assert_int_equal(node_u64(transfers, "copies_without_gpu_record"), 0);
	synth_fini(&s);
}

/*
 * The reader joins a copy's record to its memcpy only when the memcpy was
 * given to the analysis: with --nvtx step, the record of a copy made
 * outside "step" is a record without copy, and a second record of one
 * copy is one too.
 */
static void test_joins_only_what_was_given(void **unused)
{
	struct synth_copy c = { CT_DIR_HTOD,    0x70000000, DEVICE_BASE, MIB,
		                CT_HOST_PINNED, true,       0,           MEMCPY };
	const struct ct_node *transfers, *h;
	struct synth s;

	synth_nvtx_filter = "step";
	transfers_init(&s);
	synth_nvtx_filter = NULL;
	synth_nvtx_push(&s, 900000, "step");
	/* host 50 µs, GPU 42 µs, in the range */
	synth_memcpy(&s, 1050000, &c, 1, 1000000);
	synth_nvtx_pop(&s, 1060000);
	/* outside it */
	c.src += MIB;
	synth_memcpy(&s, 2050000, &c, 2, 2000000);
	synth_gpu_memcpy(&s, 2100000, &c, 1, 1005000, 1047000);
	synth_gpu_memcpy(&s, 2100000, &c, 2, 2005000, 2047000);
	synth_gpu_memcpy(&s, 2100000, &c, 1, 1005000, 1047000);
	transfers = transfers_of(synth_report(&s));

	h = node_at(node_path(transfers, "hotspots"), 0);
	assert_int_equal(node_u64(h, "count"), 1);
	assert_int_equal(node_i64(h, "gpu_time_ns"), 42000);
	assert_int_equal(node_u64(h, "gpu_records"), 1);
	assert_int_equal(node_u64(transfers, "gpu_records_unmatched"), 2);
	assert_int_equal(node_u64(transfers, "copies_without_gpu_record"), 0);
	synth_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storm_ranked_above_large_pinned_copy),
		cmocka_unit_test(test_pageable_async),
		cmocka_unit_test(test_storms),
		cmocka_unit_test(test_repeated_upload),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_repeated_upload_after_table_forgot),
		cmocka_unit_test(test_repeated_upload_sampled),
		cmocka_unit_test(test_repeated_uploads_of_one_site),
		cmocka_unit_test(test_round_trip_after_table_forgot),
		cmocka_unit_test(test_sync_copy_gpu_idle),
		cmocka_unit_test(test_busy_recorded_before_first_wait),
		cmocka_unit_test(test_joins),
		cmocka_unit_test(test_record_before_event),
		cmocka_unit_test(test_joins_only_what_was_given),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
