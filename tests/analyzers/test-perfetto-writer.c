/* SPDX-License-Identifier: MIT */
/*
 * test-perfetto-writer.c - counters set at once (ct_pf_counters): the
 * packets written, decoded again, set each counter exactly once to its
 * value; a counter of 0 is never an extra counter value (some versions of
 * Perfetto's trace processor take one for the end of the list); no packet
 * carries more than 8 extra values (what the trace processor takes); and
 * with no zero among them, up to 9 counters take one packet. Track ids are
 * small numbers, the same for the same key. The writer's own encoding of
 * packets and track events is protobuf-c's: the file, decoded and packed
 * again by protobuf-c, is the same bytes, and says what was written.
 * Before its first timestamp, the file says once that its timestamps are
 * CLOCK_MONOTONIC's: the clock Perfetto shows the trace in, and the
 * sequence's default clock of timestamps. Timestamps of every length, in
 * any order, are written as they are. A name is known again by its
 * address only when it lasts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "export/perfetto-trace.pb-c.h"
#include "export/perfetto-writer.h"

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

/*
 * The name of the I-th event (in BUF, of LEN bytes, when made): none (a
 * slice's end), a repeated one, one not UTF-8, or a distinct one, now and
 * then longer than a one-byte length.
 */
static const char *some_name(unsigned i, char *buf, size_t len)
{
	switch (i % 5) {
	case 0:
		return NULL;
	case 1:
		return "cudaMemcpyAsync";
	case 3:
		return "bad \xff\xc0\xaf utf-8";
	default:
		if (i % 35 == 2) {
			memset(buf, 'k', len - 1);
			buf[len - 1] = '\0';
		}
		snprintf(buf, i % 35 == 2 ? 20 : len, "name %u", i);
		if (i % 35 == 2)
			buf[strlen(buf)] = 'k';
		return buf;
	}
}

/* The type of the I-th event: a slice's end has no name. */
static enum ct_pf_type some_type(unsigned i)
{
	return i % 5 == 0 ? CT_PF_END : i % 2 ? CT_PF_BEGIN : CT_PF_INSTANT;
}

/*
 * The file of SIZE bytes at DATA decoded, after checking that it is what
 * protobuf-c packs for the message it decodes to; freed by the caller
 * (perfetto__protos__trace__free_unpacked).
 */
static Perfetto__Protos__Trace *decoded_as_protobuf_c(const char *data, size_t size)
{
	Perfetto__Protos__Trace *trace =
	    perfetto__protos__trace__unpack(NULL, size, (const uint8_t *)data);
	uint8_t *again;

	assert_non_null(trace);
	assert_int_equal(perfetto__protos__trace__get_packed_size(trace), size);
	again = malloc(size);
	assert_non_null(again);
	assert_int_equal(perfetto__protos__trace__pack(trace, again), size);
	assert_memory_equal(again, data, size);
	free(again);
	return trace;
}

/* The name EV shows in TRACE: its own, or the one interned before for its iid. */
static const char *shown_name(const Perfetto__Protos__Trace *trace, size_t upto,
                              const Perfetto__Protos__TrackEvent *te)
{
	if (!te->has_name_iid)
		return te->name;
	for (size_t p = 0; p <= upto; p++) {
		const Perfetto__Protos__InternedData *in = trace->packet[p]->interned_data;

		for (size_t i = 0; in && i < in->n_event_names; i++)
			if (in->event_names[i]->iid == te->name_iid)
				return in->event_names[i]->name;
	}
	return NULL;
}

/*
 * Events of every shape (each type, names interned, repeated, long, not
 * UTF-8, and written in full once the table is full; flows; negative and
 * extra counter values): the bytes are what protobuf-c packs for the
 * message they decode to, and that message is what was written.
 */
static void test_encoding_is_protobuf_c(void **state)
{
	/* two in five names are distinct: enough to fill the table, and more */
	enum { EVENTS = CT_PF_INTERN_MAX / 2 * 5 + 1000 };
	char *data = NULL, buf[300];
	size_t size = 0, p, e = 0;
	FILE *f = open_memstream(&data, &size);
	struct ct_pf_writer *w;
	Perfetto__Protos__Trace *trace;
	uint64_t track, tracks[8];
	int64_t values[8];

	(void)state;
	assert_non_null(f);
	w = ct_pf_writer_create(f);
	track = ct_pf_track(
	    w, &(struct ct_pf_track){ .key = 1, .name = "t", .has_pid = true, .pid = 7, .tid = 8 });
	for (unsigned i = 0; i < 8; i++)
		tracks[i] = ct_pf_track(
		    w, &(struct ct_pf_track){ .key = 100 + i, .name = "c", .counter = true });
	for (unsigned i = 0; i < EVENTS; i++) {
		struct ct_pf_event ev = {
			.type = some_type(i),
			.time_ns = (int64_t)i * 977 - 5,
			.track = track,
			.name = some_name(i, buf, sizeof(buf)),
			.flow = i % 4 == 1 ? UINT64_MAX - i : 0,
			.terminating_flow = i % 6 == 1 ? (uint64_t)i << 33 : 0,
		};

		ct_pf_event(w, &ev);
	}
	for (unsigned i = 0; i < 8; i++)
		values[i] = i % 2 ? -(int64_t)i * 1000003 : (int64_t)(i + 1) << 40;
	ct_pf_counters(w, 5, 8, tracks, values);
	assert_int_equal(ct_pf_writer_close(w), 0);
	assert_int_equal(fclose(f), 0);

	trace = decoded_as_protobuf_c(data, size);

	for (p = 0; p < trace->n_packet; p++) {
		const Perfetto__Protos__TracePacket *packet = trace->packet[p];
		const Perfetto__Protos__TrackEvent *te = packet->track_event;
		const char *name;

		assert_true(packet->has_trusted_packet_sequence_id);
		if (!te)
			continue;
		if (te->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER)
			break;
		assert_int_equal(te->type, some_type((unsigned)e));
		assert_int_equal(te->track_uuid, track);
		assert_int_equal(packet->timestamp, e ? e * 977 - 5 : 0);
		name = some_name((unsigned)e, buf, sizeof(buf));
		if (!name) {
			assert_false(te->has_name_iid);
			assert_null(te->name);
		} else if (e % 5 == 3) {
			/* not UTF-8: each bad byte a U+FFFD */
			assert_string_equal(shown_name(trace, p, te),
			                    "bad \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd utf-8");
		} else {
			assert_string_equal(shown_name(trace, p, te), name);
		}
		/* names past the table's end are written in full */
		if (e % 5 == 4 && e > CT_PF_INTERN_MAX / 2 * 5 + 10) {
			assert_false(te->has_name_iid);
			assert_non_null(te->name);
		}
		assert_int_equal(te->n_flow_ids, e % 4 == 1);
		if (te->n_flow_ids)
			assert_int_equal(te->flow_ids[0], UINT64_MAX - e);
		assert_int_equal(te->n_terminating_flow_ids, e % 6 == 1);
		if (te->n_terminating_flow_ids)
			assert_int_equal(te->terminating_flow_ids[0], (uint64_t)e << 33);
		e++;
	}
	assert_int_equal(e, EVENTS);
	/* the counters: one packet, the first value its own, the others extra */
	assert_true(p < trace->n_packet);
	{
		const Perfetto__Protos__TrackEvent *te = trace->packet[p]->track_event;

		assert_int_equal(te->counter_value, values[0]);
		assert_int_equal(te->n_extra_counter_values, 7);
		for (unsigned i = 1; i < 8; i++) {
			assert_int_equal(te->extra_counter_values[i - 1], values[i]);
			assert_int_equal(te->extra_counter_track_uuids[i - 1], tracks[i]);
		}
	}
	free(data);
	perfetto__protos__trace__free_unpacked(trace, NULL);
}

/*
 * Timestamps of every varint length, in the orders a trace has them: the
 * writer makes only the low bytes of a time that shares its high bits
 * with the time before, and copies the others. Each is the time written,
 * and the file is what protobuf-c packs: times below 2^21 (three bytes or
 * fewer), around it, a monotonic clock's after days of uptime going up
 * by a few ns and back (a GPU's work before the call after it), across
 * the 2^49 where its varint grows from seven bytes to eight, the largest,
 * and negative ones (written as 0).
 */
static void test_times_of_every_length(void **state)
{
	const int64_t day = 86400LL * 1000000000LL;
	const int64_t times[] = {
		0,
		5,
		(1 << 21) - 1,
		1 << 21,
		(1 << 21) + 1,
		(1 << 21) - 1,
		3 * day,
		3 * day + 1,
		3 * day + 127,
		3 * day + 128,
		3 * day - 1000,
		3 * day + (1 << 21),
		3 * day,
		(INT64_C(1) << 49) - 1,
		INT64_C(1) << 49,
		(INT64_C(1) << 49) - 1,
		INT64_MAX,
		INT64_MAX - 1,
		-7,
		INT64_MIN,
		3 * day + 5,
		1,
	};
	enum { N = sizeof(times) / sizeof(times[0]) };
	char *data = NULL;
	size_t size = 0, e = 0;
	FILE *f = open_memstream(&data, &size);
	struct ct_pf_writer *w;
	Perfetto__Protos__Trace *trace;
	uint64_t track;

	(void)state;
	assert_non_null(f);
	w = ct_pf_writer_create(f);
	track = ct_pf_track(w, &(struct ct_pf_track){ .key = 1, .name = "t" });
	for (size_t i = 0; i < N; i++)
		ct_pf_event(w, &(struct ct_pf_event){ .type = i % 2 ? CT_PF_END : CT_PF_BEGIN,
		                                      .time_ns = times[i],
		                                      .track = track,
		                                      .name = i % 2 ? NULL : "slice" });
	assert_int_equal(ct_pf_writer_close(w), 0);
	assert_int_equal(fclose(f), 0);

	trace = decoded_as_protobuf_c(data, size);
	for (size_t p = 0; p < trace->n_packet; p++) {
		if (!trace->packet[p]->track_event)
			continue;
		assert_true(e < N);
		assert_true(trace->packet[p]->has_timestamp);
		assert_true(trace->packet[p]->timestamp == (times[e] > 0 ? (uint64_t)times[e] : 0));
		e++;
	}
	assert_int_equal(e, N);
	free(data);
	perfetto__protos__trace__free_unpacked(trace, NULL);
}

/*
 * One packet, before the first timestamp and without one of its own, says
 * that the timestamps are MONOTONIC's: a clock snapshot whose primary
 * clock is MONOTONIC, read at the first timestamp, and the sequence's
 * default clock; no packet names another. A file without timestamps says
 * nothing of clocks.
 */
static void test_clock_is_monotonic(void **state)
{
	const unsigned monotonic = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC;
	char *data = NULL;
	size_t size = 0, clock_at = SIZE_MAX, first_time = SIZE_MAX;
	FILE *f = open_memstream(&data, &size);
	struct ct_pf_writer *w;
	Perfetto__Protos__Trace *trace;
	uint64_t track;

	(void)state;
	assert_non_null(f);
	w = ct_pf_writer_create(f);
	track = ct_pf_track(w, &(struct ct_pf_track){ .key = 1, .name = "t" });
	for (int i = 0; i < 3; i++)
		ct_pf_event(w, &(struct ct_pf_event){ .type = CT_PF_INSTANT,
		                                      .time_ns = 5000 + i,
		                                      .track = track,
		                                      .name = "i" });
	assert_int_equal(ct_pf_writer_close(w), 0);
	assert_int_equal(fclose(f), 0);
	trace = perfetto__protos__trace__unpack(NULL, size, (const uint8_t *)data);
	assert_non_null(trace);
	for (size_t p = 0; p < trace->n_packet; p++) {
		const Perfetto__Protos__TracePacket *packet = trace->packet[p];

		assert_false(packet->has_timestamp_clock_id);
		if (packet->has_timestamp && first_time == SIZE_MAX)
			first_time = p;
		if (!packet->clock_snapshot)
			continue;
		assert_int_equal(clock_at, SIZE_MAX);
		clock_at = p;
		assert_false(packet->has_timestamp);
		assert_true(packet->clock_snapshot->has_primary_trace_clock);
		assert_int_equal(packet->clock_snapshot->primary_trace_clock, monotonic);
		assert_int_equal(packet->clock_snapshot->n_clocks, 1);
		assert_int_equal(packet->clock_snapshot->clocks[0]->clock_id, monotonic);
		assert_int_equal(packet->clock_snapshot->clocks[0]->timestamp, 5000);
		assert_non_null(packet->trace_packet_defaults);
		assert_true(packet->trace_packet_defaults->has_timestamp_clock_id);
		assert_int_equal(packet->trace_packet_defaults->timestamp_clock_id, monotonic);
		assert_true(packet->has_trusted_packet_sequence_id);
	}
	assert_true(clock_at < first_time && first_time < trace->n_packet);
	perfetto__protos__trace__free_unpacked(trace, NULL);
	free(data);

	/* no timestamp, no clock */
	data = NULL;
	f = open_memstream(&data, &size);
	assert_non_null(f);
	w = ct_pf_writer_create(f);
	ct_pf_track(w, &(struct ct_pf_track){ .key = 1, .name = "t" });
	assert_int_equal(ct_pf_writer_close(w), 0);
	assert_int_equal(fclose(f), 0);
	trace = perfetto__protos__trace__unpack(NULL, size, (const uint8_t *)data);
	assert_non_null(trace);
	for (size_t p = 0; p < trace->n_packet; p++)
		assert_null(trace->packet[p]->clock_snapshot);
	perfetto__protos__trace__free_unpacked(trace, NULL);
	free(data);
}

/*
 * Names that last (struct ct_pf_event's name_lasts) are known again by
 * their address; a buffer's address is not enough. A buffer seen with
 * one text, then holding another, names the other, also when the name at
 * that address is said to last from then on (a freed buffer's memory
 * given to a name that lasts).
 */
static void test_lasting_names(void **state)
{
	static const char *const lasting[] = { "alpha", "beta" };
	const char *want[8];
	char *data = NULL, buf[16];
	size_t size = 0, n = 0, e = 0;
	FILE *f = open_memstream(&data, &size);
	Perfetto__Protos__Trace *trace;
	struct ct_pf_writer *w;
	uint64_t track;

	(void)state;
	assert_non_null(f);
	w = ct_pf_writer_create(f);
	track = ct_pf_track(w, &(struct ct_pf_track){ .key = 1, .name = "t" });
#define PUT(text, lasts, shown)                                                  \
	do {                                                                     \
		ct_pf_event(w, &(struct ct_pf_event){ .type = CT_PF_INSTANT,     \
		                                      .time_ns = (int64_t)n + 1, \
		                                      .track = track,            \
		                                      .name = (text),            \
		                                      .name_lasts = (lasts) });  \
		want[n++] = (shown);                                             \
	} while (0)
	PUT(lasting[0], true, "alpha");
	PUT(lasting[1], true, "beta");
	PUT(lasting[0], true, "alpha");
	snprintf(buf, sizeof(buf), "alpha");
	PUT(buf, false, "alpha");
	snprintf(buf, sizeof(buf), "gamma");
	PUT(buf, false, "gamma");
	snprintf(buf, sizeof(buf), "beta");
	PUT(buf, true, "beta");
	PUT(buf, true, "beta");
	PUT(lasting[1], true, "beta");
#undef PUT
	assert_int_equal(ct_pf_writer_close(w), 0);
	assert_int_equal(fclose(f), 0);
	trace = decoded_as_protobuf_c(data, size);
	for (size_t p = 0; p < trace->n_packet; p++) {
		const Perfetto__Protos__TrackEvent *te = trace->packet[p]->track_event;

		if (!te)
			continue;
		assert_true(e < n);
		assert_string_equal(shown_name(trace, p, te), want[e]);
		e++;
	}
	assert_int_equal(e, n);
	perfetto__protos__trace__free_unpacked(trace, NULL);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_counters_one_packet),
		cmocka_unit_test(test_a_zero_takes_the_own_field),
		cmocka_unit_test(test_at_most_eight_extras),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_track_ids),
		cmocka_unit_test(test_encoding_is_protobuf_c),
		cmocka_unit_test(test_times_of_every_length),
		cmocka_unit_test(test_clock_is_monotonic),
		cmocka_unit_test(test_lasting_names),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
