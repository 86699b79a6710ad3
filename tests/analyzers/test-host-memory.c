/* SPDX-License-Identifier: MIT */
/*
 * test-host-memory.c - the host analysis fed with made-up host_memory
 * samples: the last and highest resident memory (the kernel's high water
 * mark included), the limit and what it is, the series over time, and
 * values no kernel gives (a limit of unknown kind, sizes beyond int64).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "synthetic-events.h"

#define MIB (1ull << 20)

static void sample(struct synth *s, int64_t t, uint64_t rss, uint64_t peak, uint64_t limit,
                   unsigned limit_of)
{
	struct ct_event ev = { .type = CT_EV_HOST_MEMORY, .time_ns = t };

	ev.u.host_memory.rss = rss;
	ev.u.host_memory.rss_peak = peak;
	ev.u.host_memory.limit = limit;
	ev.u.host_memory.limit_of = (uint8_t)limit_of;
	synth_feed(s, &ev);
}

/*
 * 100, 300 and 200 MiB resident, the kernel's high water mark 350 MiB at
 * the last (a peak between two samples), under a 512 MiB cgroup limit.
 */
static void test_samples(void **unused)
{
	const struct ct_node *host, *p, *timeline;
	int64_t max = 0;
	struct synth s;

	(void)unused;
	synth_init(&s, &ct_host_memory_analysis, NULL);
	sample(&s, 1000, 100 * MIB, 100 * MIB, 512 * MIB, CT_HOST_LIMIT_CGROUP);
	sample(&s, 2000, 300 * MIB, 300 * MIB, 512 * MIB, CT_HOST_LIMIT_CGROUP);
	sample(&s, 3000, 200 * MIB, 350 * MIB, 512 * MIB, CT_HOST_LIMIT_CGROUP);
	host = node_path(synth_report(&s), "host_memory");
	p = node_at(node_path(host, "processes"), 0);

	assert_int_equal(node_i64(p, "pid"), 100);
	assert_int_equal(node_u64(p, "samples"), 3);
	assert_int_equal(node_i64(p, "first_time_ns"), 1000);
	assert_int_equal(node_i64(p, "last_time_ns"), 3000);
	assert_int_equal(node_u64(p, "rss_last_bytes"), 200 * MIB);
	assert_int_equal(node_u64(p, "rss_peak_bytes"), 350 * MIB);
	assert_int_equal(node_u64(p, "limit_bytes"), 512 * MIB);
	assert_string_equal(node_str(p, "limit_of"), "cgroup");
	assert_true(node_double(p, "peak_share_of_limit") == 350.0 / 512.0);
	timeline = node_path(host, "timeline");
	assert_true(ct_node_count(timeline) >= 1);
	for (size_t i = 0; i < ct_node_count(timeline); i++)
		if (node_i64(node_at(timeline, i), "max_rss_bytes") > max)
			max = node_i64(node_at(timeline, i), "max_rss_bytes");
	assert_int_equal(max, 300 * MIB);
	synth_fini(&s);
}

/* A limit of unknown kind is no limit; sizes past int64 are capped in the series. */
static void test_odd_values(void **unused)
{
	const struct ct_node *host, *p;
	struct synth s;

	(void)unused;
	synth_init(&s, &ct_host_memory_analysis, NULL);
	sample(&s, 1000, UINT64_MAX, 0, 4096, CT_HOST_LIMIT_UNKNOWN);
	host = node_path(synth_report(&s), "host_memory");
	p = node_at(node_path(host, "processes"), 0);
	assert_true(node_is_null(p, "limit_bytes"));
	assert_true(node_is_null(p, "limit_of"));
	assert_true(node_is_null(p, "peak_share_of_limit"));
	assert_int_equal(node_u64(p, "rss_peak_bytes"), UINT64_MAX);
	assert_int_equal(node_i64(node_at(node_path(host, "timeline"), 0), "rss_bytes"), INT64_MAX);
	synth_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_odd_values),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
