/* SPDX-License-Identifier: MIT */
/*
 * test-perfetto-writer.c - counters set at once (ct_pf_counters): the
 * packets written, decoded again, set each counter exactly once to its
 * value; a counter of 0 is never an extra counter value (some versions of
 * Perfetto's trace processor take one for the end of the list); no packet
 * carries more than 8 extra values (what the trace processor takes); and
 * with no zero among them, up to 9 counters take one packet. Track ids are
 * small numbers, the same for the same key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <glib.h>

#include "perfetto-trace.pb-c.h"
#include "perfetto-writer.h"

#define TRACKS 12

/* The file written by one writer, decoded. */
struct written {
	Perfetto__Protos__Trace *trace;
	uint64_t ids[TRACKS];
};

/* Describes TRACKS counter tracks, sets N of them to VALUES at 1000 ns. */
static void write_counters(struct written *out, size_t n, const int64_t *values)
{
	char *data = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&data, &size);
	struct ct_pf_writer *w;

	assert_non_null(f);
	w = ct_pf_writer_create(f);
	for (unsigned i = 0; i < TRACKS; i++)
		out->ids[i] = ct_pf_track(w, &(struct ct_pf_track){ .key = ct_pf_uuid(6, i, 0, 0),
		                                                    .name = "counter",
		                                                    .counter = true });
	/* described once: the same key has the same id */
	for (unsigned i = 0; i < TRACKS; i++) {
		assert_int_equal(ct_pf_track_id(w, ct_pf_uuid(6, i, 0, 0)), out->ids[i]);
		assert_int_equal(
		    ct_pf_track(
		        w, &(struct ct_pf_track){ .key = ct_pf_uuid(6, i, 0, 0), .name = "again" }),
		    out->ids[i]);
	}
	assert_int_equal(ct_pf_track_id(w, ct_pf_uuid(6, TRACKS, 0, 0)), 0);
	ct_pf_counters(w, 1000, n, out->ids, values);
	assert_int_equal(ct_pf_writer_close(w), 0);
	assert_int_equal(fclose(f), 0);
	out->trace = perfetto__protos__trace__unpack(NULL, size, (const uint8_t *)data);
	free(data);
	assert_non_null(out->trace);
}

/* Checks that the counter packets set ids[0..n) to VALUES, each once; returns how many packets. */
static size_t check_counters(const struct written *x, size_t n, const int64_t *values)
{
	unsigned seen[TRACKS] = { 0 };
	size_t packets = 0;

	for (size_t p = 0; p < x->trace->n_packet; p++) {
		const Perfetto__Protos__TrackEvent *te = x->trace->packet[p]->track_event;

		if (!te)
			continue;
		packets++;
		assert_int_equal(te->type, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER);
		assert_int_equal(x->trace->packet[p]->timestamp, 1000);
		assert_true(te->has_counter_value);
		assert_int_equal(te->n_extra_counter_track_uuids, te->n_extra_counter_values);
		assert_true(te->n_extra_counter_values <= 8);
		for (size_t i = 0; i <= te->n_extra_counter_values; i++) {
			uint64_t track = i ? te->extra_counter_track_uuids[i - 1] : te->track_uuid;
			int64_t value = i ? te->extra_counter_values[i - 1] : te->counter_value;
			size_t t = 0;

			while (t < n && x->ids[t] != track)
				t++;
			assert_true(t < n);
			assert_int_equal(value, values[t]);
			if (i)
				assert_int_not_equal(value, 0);
			seen[t]++;
		}
	}
	for (size_t t = 0; t < n; t++)
		assert_int_equal(seen[t], 1);
	return packets;
}

static void counters_case(size_t n, const int64_t *values, size_t packets)
{
	struct written x;

	write_counters(&x, n, values);
	assert_int_equal(check_counters(&x, n, values), packets);
	perfetto__protos__trace__free_unpacked(x.trace, NULL);
}

static void test_two_counters_one_packet(void **state)
{
	(void)state;
	counters_case(2, (const int64_t[]){ 4096, 1024 }, 1);
}

static void test_a_zero_takes_the_own_field(void **state)
{
	(void)state;
	counters_case(2, (const int64_t[]){ 4096, 0 }, 1);
	counters_case(3, (const int64_t[]){ 0, 7, 0 }, 2);
	counters_case(3, (const int64_t[]){ 0, 0, 0 }, 3);
}

static void test_at_most_eight_extras(void **state)
{
	const int64_t values[TRACKS] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

	(void)state;
	counters_case(9, values, 1);
	counters_case(TRACKS, values, 2);
}

static void test_none(void **state)
{
	(void)state;
	counters_case(0, NULL, 0);
}

static void test_track_ids(void **state)
{
	struct written x;
	size_t described = 0;

	(void)state;
	write_counters(&x, 0, NULL);
	for (unsigned i = 0; i < TRACKS; i++)
		assert_int_equal(x.ids[i], i + 1);
	for (size_t p = 0; p < x.trace->n_packet; p++)
		if (x.trace->packet[p]->track_descriptor) {
			assert_int_equal(x.trace->packet[p]->track_descriptor->uuid, ++described);
			assert_string_equal(x.trace->packet[p]->track_descriptor->name, "counter");
		}
	assert_int_equal(described, TRACKS);
	perfetto__protos__trace__free_unpacked(x.trace, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_counters_one_packet),
		cmocka_unit_test(test_a_zero_takes_the_own_field),
		cmocka_unit_test(test_at_most_eight_extras),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_track_ids),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
