/* SPDX-License-Identifier: MIT */
/*
 * test-repeats.c - repeat events (libtrace/repeats.c) and the shapes they
 * name (contract/shape.h): a call whose shape a slot of its thread's set
 * holds, from a whole event written less than a second before, is written
 * as a repeat with its correlation id and the low bits of its entry; the
 * two ways of a set hold two shapes, a third taking the way of the one
 * written before the other; the whole event is
 * written instead when the set does not hold the shape, a second or
 * more has passed, a session started since, the call took 2^31 ns or
 * more, its event does not record it (entry 0), the repeat event is
 * disabled, or CUDATRACE_COMPACT=0. A shape follows every field of its
 * event but the call's correlation id and entry, and two events of one
 * shape compare equal field by field (as the thread's memo of its last
 * shapes finds them) and of two shapes not. With repeat_run enabled,
 * a thread's repeats are kept and written together, in call order, each
 * with its exit and duration: when the run is flushed, full, a second
 * old, or at the exit (which closes it: repeats are written one by one
 * after); their operations are noted as recorded only once written. The
 * events are seen through probes of the test's (libtrace-test.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "api-call.h"
#include "clock.h"
#include "contract/shape.h"
#include "cudatrace-tp.h"
#include "libtrace-test.h"
#include "recorded-ops.h"
#include "repeats.h"
#include "state.h"

static unsigned repeat_events;
static struct ct_ev_repeat last;

static void on_repeat(void *data, const struct ct_ev_repeat *e)
{
	(void)data;
	repeat_events++;
	last = *e;
}

/* The runs written: how many, and the last one's calls. */
static unsigned run_events;
static struct {
	uint64_t base;
	uint32_t tid, count;
	uint64_t shape[CT_REPEAT_RUN_MAX];
	uint32_t correlation_id[CT_REPEAT_RUN_MAX], exit[CT_REPEAT_RUN_MAX],
	    duration[CT_REPEAT_RUN_MAX];
	uint32_t moved_count; /* calls */
	uint64_t moved[CT_REPEAT_RUN_MOVED_MAX];
} last_run;

static void on_repeat_run(void *data, const struct ct_ev_repeat_run *e)
{
	(void)data;
	run_events++;
	last_run.base = e->base;
	last_run.tid = e->tid;
	last_run.count = e->shape_count;
	for (uint32_t i = 0; i < e->shape_count && i < CT_REPEAT_RUN_MAX; i++) {
		last_run.shape[i] = e->shape[i];
		last_run.correlation_id[i] = e->correlation_id[i];
		last_run.exit[i] = e->exit[i];
		last_run.duration[i] = e->duration[i];
	}
	assert_int_equal(e->moved_count % CT_REPEAT_RUN_MOVED_VALUES, 0);
	last_run.moved_count = e->moved_count / CT_REPEAT_RUN_MOVED_VALUES;
	for (uint32_t i = 0; i < e->moved_count && i < CT_REPEAT_RUN_MOVED_MAX; i++)
		last_run.moved[i] = e->moved[i];
}

/* The repeat_moved events written alone: how many, and the last one. */
static unsigned moved_events;
static struct ct_ev_repeat_moved last_moved;

static void on_repeat_moved(void *data, const struct ct_ev_repeat_moved *e)
{
	(void)data;
	moved_events++;
	last_moved = *e;
}

static struct repeats slots;
static struct api_call call;

static int fresh(void **state)
{
	(void)state;
	memset(&slots, 0, sizeof(slots));
	memset(&call, 0, sizeof(call));
	call.repeats = &slots;
	/* entered a while ago, so that the calls after it are not in the future */
	call.entry = clock_now_ns() - 100000000;
	config.compact = true;
	repeat_events = 0;
	memset(&last, 0, sizeof(last));
	TP_ENABLE(repeat, on_repeat);
	run_events = 0;
	memset(&last_run, 0, sizeof(last_run));
	TP_DISABLE(repeat_run);
	moved_events = 0;
	memset(&last_moved, 0, sizeof(last_moved));
	TP_ENABLE(repeat_moved, on_repeat_moved);
	return 0;
}

/* The call reference of CALL's event, recording it. */
static struct ct_api_ref ref(uint32_t correlation_id)
{
	return (struct ct_api_ref){
		.domain = CT_DOMAIN_RUNTIME,
		.cbid = 41,
		.correlation_id = correlation_id,
		.entry = call.entry,
	};
}

/* A call entered NS later than the last one. */
static void next_call(uint64_t ns)
{
	call.entry += ns;
}

static void test_written_then_repeated(void **state)
{
	struct ct_api_ref api = ref(10);

	(void)state;
	assert_false(repeats_write(&call, 0x1234, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 0);
	repeats_written(&call, 0x1234);
	next_call(1000);
	api = ref(11);
	assert_true(repeats_write(&call, 0x1234, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 1);
	assert_int_equal(last.shape, 0x1234);
	assert_int_equal(last.correlation_id, 11);
	assert_int_equal(last.entry_low, (uint32_t)call.entry);
	/* and again, from the same whole event */
	next_call(1000);
	api = ref(12);
	assert_true(repeats_write(&call, 0x1234, &api, RECORDED_NONE));
	assert_int_equal(last.correlation_id, 12);
}

static void test_another_shape_in_the_slot(void **state)
{
	/* one set: a loop's upload and download whose low bits meet */
	uint64_t a = 0x1000 + 5, b = 0x2000 + 5, c = 0x3000 + 5;
	struct ct_api_ref api = ref(10);

	(void)state;
	assert_int_equal(ct_repeat_set_slot(a), ct_repeat_set_slot(b));
	assert_int_equal(ct_repeat_set_slot(a), ct_repeat_set_slot(c));
	repeats_written(&call, a);
	assert_false(repeats_write(&call, b, &api, RECORDED_NONE));
	next_call(1000);
	repeats_written(&call, b);
	api = ref(11);
	/* both ways of the set held: both repeat, in turn */
	for (int i = 0; i < 3; i++) {
		assert_true(repeats_write(&call, a, &api, RECORDED_NONE));
		assert_true(repeats_write(&call, b, &api, RECORDED_NONE));
	}
	/* a third shape takes the way of the one written before the other */
	next_call(1000);
	api = ref(12);
	assert_false(repeats_write(&call, c, &api, RECORDED_NONE));
	repeats_written(&call, c);
	assert_false(repeats_write(&call, a, &api, RECORDED_NONE));
	assert_true(repeats_write(&call, b, &api, RECORDED_NONE));
	assert_true(repeats_write(&call, c, &api, RECORDED_NONE));
	/* written whole again, a shape keeps its way: b's is still b's */
	next_call(1000);
	repeats_written(&call, c);
	api = ref(13);
	assert_true(repeats_write(&call, b, &api, RECORDED_NONE));
	/* now b was written before c: a takes its way */
	next_call(1000);
	repeats_written(&call, a);
	api = ref(14);
	assert_false(repeats_write(&call, b, &api, RECORDED_NONE));
	assert_true(repeats_write(&call, a, &api, RECORDED_NONE));
	assert_true(repeats_write(&call, c, &api, RECORDED_NONE));
	/* another set is another shape's */
	repeats_written(&call, a + 1);
	assert_true(repeats_write(&call, a + 1, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 12);
}

/* The way a whole event takes: its shape's, an empty one, the older one. */
static void test_way_taken(void **state)
{
	(void)state;
	assert_int_equal(ct_repeat_way(7, 0, 0, 0), 0);
	assert_int_equal(ct_repeat_way(7, 3, 0, 0), 1);
	assert_int_equal(ct_repeat_way(7, 3, 7, 0), 1);
	assert_int_equal(ct_repeat_way(7, 7, 3, 1), 0);
	/* both full: not the way the last whole event took */
	assert_int_equal(ct_repeat_way(7, 3, 4, 0), 1);
	assert_int_equal(ct_repeat_way(7, 3, 4, 1), 0);
	/* the way that holds a shape, or none */
	assert_int_equal(ct_repeat_way_holding(7, 7, 3), 0);
	assert_int_equal(ct_repeat_way_holding(7, 3, 7), 1);
	assert_int_equal(ct_repeat_way_holding(7, 3, 4), CT_REPEAT_WAYS);
	/* a shape's set is its low 10 bits */
	assert_int_equal(ct_repeat_set_slot(0x405), ct_repeat_set_slot(0x5));
	assert_int_equal(ct_repeat_set_slot(0x6), ct_repeat_set_slot(0x5) + CT_REPEAT_WAYS);
	assert_int_equal(ct_repeat_set_slot(0x3ff), CT_REPEAT_SLOTS - CT_REPEAT_WAYS);
}

static void test_a_second_later(void **state)
{
	struct ct_api_ref api;

	(void)state;
	call.entry = clock_now_ns() - 1500000000;
	repeats_written(&call, 7);
	next_call(999999999);
	api = ref(11);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	next_call(1);
	api = ref(12);
	assert_false(repeats_write(&call, 7, &api, RECORDED_NONE));
	/* written whole again: it stands for its repeats a second more */
	repeats_written(&call, 7);
	next_call(500000000);
	api = ref(13);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 2);
}

static void test_session_started(void **state)
{
	struct ct_api_ref api = ref(10);

	(void)state;
	repeats_written(&call, 7);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	repeats_announce_again();
	assert_false(repeats_write(&call, 7, &api, RECORDED_NONE));
	/* a call entered after the session started writes it anew */
	call.entry = clock_now_ns();
	api = ref(11);
	repeats_written(&call, 7);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 2);
}

static void test_long_call(void **state)
{
	struct ct_api_ref api;

	(void)state;
	/* entered 2^31 ns ago, half a second after its whole event's call */
	call.entry = clock_now_ns() - (1ULL << 31) - 500000000;
	repeats_written(&call, 7);
	next_call(500000000);
	api = ref(11);
	assert_false(repeats_write(&call, 7, &api, RECORDED_NONE));
	/* a call of a moment is repeated */
	call.entry = clock_now_ns();
	repeats_written(&call, 7);
	api = ref(12);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 1);
}

static void test_not_recording_its_call(void **state)
{
	struct ct_api_ref api = ref(10);

	(void)state;
	repeats_written(&call, 7);
	api.entry = 0;
	assert_false(repeats_write(&call, 7, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 0);
}

static void test_disabled_or_not_compact(void **state)
{
	struct ct_api_ref api = ref(10);

	(void)state;
	repeats_written(&call, 7);
	TP_DISABLE(repeat);
	assert_false(repeats_write(&call, 7, &api, RECORDED_NONE));
	TP_ENABLE(repeat, on_repeat);
	config.compact = false;
	assert_false(repeats_write(&call, 7, &api, RECORDED_NONE));
	config.compact = true;
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 1);
}

/* Repeats kept in the thread's run, written together when it is flushed,
 * in call order, each call with its exit and how long it took. */
static void test_run_kept_then_written(void **state)
{
	struct ct_api_ref api;
	uint64_t before = clock_now_ns();

	(void)state;
	TP_ENABLE(repeat_run, on_repeat_run);
	repeats_written(&call, 7);
	repeats_written(&call, 9);
	for (uint32_t id = 20; id < 23; id++) {
		next_call(1000);
		api = ref(id);
		assert_true(repeats_write(&call, id == 21 ? 9 : 7, &api, RECORDED_NONE));
	}
	assert_int_equal(run_events, 0);
	assert_int_equal(repeat_events, 0);
	repeats_flush(&slots);
	assert_int_equal(run_events, 1);
	assert_int_equal(repeat_events, 0);
	assert_int_equal(last_run.count, 3);
	assert_int_equal(last_run.tid, 0);
	assert_true(last_run.base >= before && last_run.base <= clock_now_ns());
	assert_int_equal(last_run.shape[0], 7);
	assert_int_equal(last_run.shape[1], 9);
	assert_int_equal(last_run.correlation_id[2], 22);
	assert_int_equal(last_run.exit[0], 0);
	assert_true(last_run.exit[1] >= last_run.exit[0] && last_run.exit[2] >= last_run.exit[1]);
	/* each call's entry is its own: 1000 ns after the one before */
	assert_int_equal((last_run.base + last_run.exit[1] - last_run.duration[1]) -
	                     (last_run.base + last_run.exit[0] - last_run.duration[0]),
	                 1000);
	/* nothing kept: nothing written */
	repeats_flush(&slots);
	assert_int_equal(run_events, 1);
}

/* A full run is written at once; one a second old before the next call. */
static void test_run_full_or_old(void **state)
{
	struct ct_api_ref api;

	(void)state;
	TP_ENABLE(repeat_run, on_repeat_run);
	repeats_written(&call, 7);
	for (uint32_t i = 0; i < CT_REPEAT_RUN_MAX; i++) {
		api = ref(100 + i);
		assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	}
	assert_int_equal(run_events, 1);
	assert_int_equal(last_run.count, CT_REPEAT_RUN_MAX);
	assert_int_equal(last_run.correlation_id[CT_REPEAT_RUN_MAX - 1],
	                 100 + CT_REPEAT_RUN_MAX - 1);
	api = ref(200);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	/* its first call a second ago: written before the next one is kept */
	slots.run.base -= 1000000000;
	api = ref(201);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	assert_int_equal(run_events, 2);
	assert_int_equal(last_run.count, 1);
	assert_int_equal(last_run.correlation_id[0], 200);
	repeats_flush(&slots);
	assert_int_equal(run_events, 3);
	assert_int_equal(last_run.correlation_id[0], 201);
}

/* An operation kept in a run is noted as recorded only once it is written:
 * its GPU record, read before, is written whole. */
static void test_run_noted_once_written(void **state)
{
	struct ct_api_ref api = ref(300);

	(void)state;
	TP_ENABLE(repeat_run, on_repeat_run);
	repeats_written(&call, 7);
	assert_true(repeats_write(&call, 7, &api, RECORDED_WHOLE));
	assert_int_equal(recorded_ops_take(300), RECORDED_NONE);
	api = ref(301);
	assert_true(repeats_write(&call, 7, &api, RECORDED_WHOLE));
	repeats_flush(&slots);
	assert_int_equal(recorded_ops_take(301), RECORDED_WHOLE);
}

/* The exit writes every thread's run and closes it: the thread's repeats
 * are written one by one after. */
static void test_exit_closes_runs(void **state)
{
	struct ct_api_ref api = ref(400);

	(void)state;
	TP_ENABLE(repeat_run, on_repeat_run);
	repeats_written(&call, 7);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	repeats_flush_all();
	assert_int_equal(run_events, 1);
	assert_int_equal(last_run.correlation_id[0], 400);
	assert_int_equal(last_run.tid, 0); /* its own */
	api = ref(401);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 1);
	assert_int_equal(last.correlation_id, 401);
	repeats_flush(&slots);
	assert_int_equal(run_events, 1);
}

/* A copy's event, every field set. */
static struct ct_ev_memcpy copy(void)
{
	return (struct ct_ev_memcpy){
		.direction = CT_DIR_HTOD,
		.src = 0x7000,
		.dst = 0x7f0000000000,
		.bytes = 4096,
		.host = CT_HOST_PINNED,
		.sync = 0,
		.stream = 7,
		.src_device = CT_DEVICE_NONE,
		.dst_device = 0,
		.api = { .domain = CT_DOMAIN_RUNTIME,
		         .cbid = 41,
		         .correlation_id = 5,
		         .entry = 99 },
	};
}

static void test_shape_of_every_field_but_the_call(void **state)
{
	struct ct_ev_memcpy a = copy(), b;
	uint64_t shape = ct_shape_memcpy(&a);

	(void)state;
	assert_int_not_equal(shape, 0);
	b = a;
	b.api.correlation_id = 6;
	b.api.entry = 100;
	assert_int_equal(ct_shape_memcpy(&b), shape);
	assert_true(ct_same_shape_memcpy(&a, &b));
#define DIFFERS(field, value)                                     \
	do {                                                      \
		b = a;                                            \
		b.field = (value);                                \
		assert_int_not_equal(ct_shape_memcpy(&b), shape); \
		assert_false(ct_same_shape_memcpy(&a, &b));       \
	} while (0)
	DIFFERS(direction, CT_DIR_DTOH);
	DIFFERS(src, 0x7001);
	DIFFERS(dst, 0x7f0000000001);
	DIFFERS(bytes, 4097);
	DIFFERS(host, CT_HOST_PAGEABLE);
	DIFFERS(sync, 1);
	DIFFERS(stream, 8);
	DIFFERS(src_device, 1);
	DIFFERS(dst_device, 1);
	DIFFERS(api.domain, CT_DOMAIN_DRIVER);
	DIFFERS(api.cbid, 42);
	DIFFERS(sample, 0x1234);
#undef DIFFERS
	/* two fields swapped are another shape too */
	b = a;
	b.src = a.dst;
	b.dst = a.src;
	assert_int_not_equal(ct_shape_memcpy(&b), shape);
	assert_false(ct_same_shape_memcpy(&a, &b));
}

/*
 * A field added after traces were written without it (need LATE: the
 * sample) is no part of a shape while it is 0: a copy not sampled has
 * the shape an older tracer gave it, every field of its table mixed in
 * order, the sample left out (doc/events.md, "repeat").
 */
static void test_shape_without_late_field(void **state)
{
	struct ct_ev_memcpy a = copy();
	uint64_t before = CT_SHAPE_SEED, older, sampled;

	(void)state;
	before = ct_mix64(before ^ a.direction);
	before = ct_mix64(before ^ a.src);
	before = ct_mix64(before ^ a.dst);
	before = ct_mix64(before ^ a.bytes);
	before = ct_mix64(before ^ a.host);
	before = ct_mix64(before ^ a.sync);
	before = ct_mix64(before ^ a.stream);
	before = ct_mix64(before ^ a.src_device);
	before = ct_mix64(before ^ a.dst_device);
	older = ct_mix64(ct_mix64(before ^ a.api.domain) ^ a.api.cbid);
	assert_int_equal(ct_shape_memcpy(&a), older);
	/* sampled: in its place in the table, before the call */
	a.sample = 0x1234;
	sampled = ct_mix64(ct_mix64(ct_mix64(before ^ a.sample) ^ a.api.domain) ^ a.api.cbid);
	assert_int_equal(ct_shape_memcpy(&a), sampled);
}

/* E's shape from R's memo, else computed and kept there, as REPEAT_OR_WRITE finds it. */
static uint64_t memo_shape(struct repeats *r, const struct ct_ev_memcpy *e)
{
	uint64_t shape = REPEAT_SHAPE_MEMO(r, memcpy, e);

	return shape ? shape : repeat_shape_keep_memcpy(&r->memo, e);
}

/* The thread's memo of its last shapes answers as the shape does, for two
 * alternating events and a third that takes the older one's place. */
static void test_shape_memo(void **state)
{
	struct ct_ev_memcpy up = copy(), down = copy(), other = copy();

	(void)state;
	down.direction = CT_DIR_DTOH;
	other.bytes = 1;
	for (int round = 0; round < 3; round++) {
		up.api.correlation_id = (uint32_t)(10 + round);
		down.api.correlation_id = (uint32_t)(20 + round);
		assert_int_equal(memo_shape(&slots, &up), ct_shape_memcpy(&up));
		assert_int_equal(memo_shape(&slots, &down), ct_shape_memcpy(&down));
	}
	assert_int_equal(memo_shape(&slots, &other), ct_shape_memcpy(&other));
	assert_int_equal(memo_shape(&slots, &up), ct_shape_memcpy(&up));
	assert_int_equal(memo_shape(&slots, &down), ct_shape_memcpy(&down));
	assert_int_equal(memo_shape(&slots, &other), ct_shape_memcpy(&other));
}

/* A call that moves the addresses of the event in its base's slot is a
 * repeat_moved of it, which takes no slot: the base stays there, and the
 * next call repeats it. Not when the base's slot holds another shape, or
 * no event can be written. */
static void test_moved_alone(void **state)
{
	const struct ct_moved slice = { .src = 0x7000, .dst = 0x8000, .bytes = 64 };
	const struct ct_moved some = { .src = 1, .dst = 2, .bytes = 3 };
	struct ct_api_ref api;

	(void)state;
	repeats_written(&call, 0x1234);
	next_call(1000);
	api = ref(30);
	assert_false(repeats_write_moved(&call, 0x9999, &some, &api, RECORDED_NONE));
	assert_true(repeats_write_moved(&call, 0x1234, &slice, &api, RECORDED_NONE));
	assert_int_equal(moved_events, 1);
	assert_int_equal(last_moved.base, 0x1234);
	assert_int_equal(last_moved.src, 0x7000);
	assert_int_equal(last_moved.dst, 0x8000);
	assert_int_equal(last_moved.bytes, 64);
	assert_int_equal(last_moved.correlation_id, 30);
	assert_int_equal(last_moved.entry_low, (uint32_t)call.entry);
	next_call(1000);
	api = ref(31);
	assert_true(repeats_write(&call, 0x1234, &api, RECORDED_NONE));
	assert_int_equal(repeat_events, 1);
	assert_int_equal(last.shape, 0x1234);
	/* no repeat_moved enabled, and no run: the caller writes it whole */
	TP_DISABLE(repeat_moved);
	next_call(1000);
	api = ref(32);
	assert_false(repeats_write_moved(&call, 0x1234, &some, &api, RECORDED_NONE));
	assert_int_equal(moved_events, 1);
}

/* In a run, a moved call's shape is 0 (it names no event) and it is
 * listed by its index with its base and addresses; the others are
 * repeats as before. */
static void test_moved_in_run(void **state)
{
	const struct ct_moved slice = { .src = 0x100, .dst = 0x200, .bytes = 96 };
	struct ct_api_ref api;

	(void)state;
	TP_ENABLE(repeat_run, on_repeat_run);
	repeats_written(&call, 7);
	next_call(1000);
	api = ref(40);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	next_call(1000);
	api = ref(41);
	assert_true(repeats_write_moved(&call, 7, &slice, &api, RECORDED_NONE));
	next_call(1000);
	api = ref(42);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	repeats_flush(&slots);
	assert_int_equal(moved_events, 0);
	assert_int_equal(run_events, 1);
	assert_int_equal(last_run.count, 3);
	assert_int_equal(last_run.shape[0], 7);
	assert_int_equal(last_run.shape[1], 0);
	assert_int_equal(last_run.shape[2], 7);
	assert_int_equal(last_run.correlation_id[1], 41);
	assert_int_equal(last_run.moved_count, 1);
	assert_int_equal(last_run.moved[0], 1);
	assert_int_equal(last_run.moved[1], 7);
	assert_int_equal(last_run.moved[2], 0x100);
	assert_int_equal(last_run.moved[3], 0x200);
	assert_int_equal(last_run.moved[4], 96);
	/* the next run lists none */
	next_call(1000);
	api = ref(43);
	assert_true(repeats_write(&call, 7, &api, RECORDED_NONE));
	repeats_flush(&slots);
	assert_int_equal(last_run.count, 1);
	assert_int_equal(last_run.moved_count, 0);
}

/* The whole memcpy events written: how many. */
static unsigned memcpy_events;

static void on_memcpy(void *data, const struct ct_ev_memcpy *e)
{
	(void)data;
	(void)e;
	memcpy_events++;
}

/* A run holds CT_REPEAT_RUN_MOVED_CALLS moved calls at most, so that it
 * fits the smallest sub-buffer: the next one starts a new run. */
static void test_moved_calls_per_run(void **state)
{
	const struct ct_moved slice = { .src = 0x100, .dst = 0x200, .bytes = 96 };
	struct ct_api_ref api;

	(void)state;
	TP_ENABLE(repeat_run, on_repeat_run);
	repeats_written(&call, 7);
	for (uint32_t i = 0; i <= CT_REPEAT_RUN_MOVED_CALLS; i++) {
		next_call(1000);
		api = ref(100 + i);
		assert_true(repeats_write_moved(&call, 7, &slice, &api, RECORDED_NONE));
	}
	assert_int_equal(run_events, 1);
	assert_int_equal(last_run.count, CT_REPEAT_RUN_MOVED_CALLS);
	assert_int_equal(last_run.moved_count, CT_REPEAT_RUN_MOVED_CALLS);
	repeats_flush(&slots);
	assert_int_equal(run_events, 2);
	assert_int_equal(last_run.count, 1);
	assert_int_equal(last_run.correlation_id[0], 100 + CT_REPEAT_RUN_MOVED_CALLS);
	assert_int_equal(last_run.moved[0], 0);
}

/* REPEAT_OR_WRITE on a loop that uploads successive slices: the first
 * copy whole, each next one a repeat_moved of it (not kept in the memo:
 * the slice after names the same base), and the first slice again a
 * repeat of it. */
static void test_copy_loop_on_slices(void **state)
{
	struct ct_ev_memcpy e = copy();
	uint64_t first = ct_shape_memcpy(&e);

	(void)state;
	memcpy_events = 0;
	TP_ENABLE(memcpy, on_memcpy);
	e.api = ref(50);
	REPEAT_OR_WRITE(&call, memcpy, &e, RECORDED_NONE);
	assert_int_equal(memcpy_events, 1);
	for (uint32_t i = 1; i <= 3; i++) {
		next_call(1000);
		e = copy();
		e.src += 64 * i;
		e.api = ref(50 + i);
		REPEAT_OR_WRITE(&call, memcpy, &e, RECORDED_NONE);
		assert_int_equal(memcpy_events, 1);
		assert_int_equal(moved_events, i);
		assert_int_equal(last_moved.base, first);
		assert_int_equal(last_moved.src, copy().src + 64 * i);
		assert_int_equal(last_moved.dst, copy().dst);
	}
	next_call(1000);
	e = copy();
	e.api = ref(60);
	REPEAT_OR_WRITE(&call, memcpy, &e, RECORDED_NONE);
	assert_int_equal(memcpy_events, 1);
	assert_int_equal(repeat_events, 1);
	assert_int_equal(last.shape, first);
	TP_DISABLE(memcpy);
}

/* The memo names as base its last copy that differs by the addresses
 * and size only, and a memset that differs by its address and size;
 * nothing for a copy that differs otherwise, or for a launch. */
static void test_moved_base_of_memo(void **state)
{
	struct ct_ev_memcpy up = copy(), slice = copy(), other = copy();
	struct ct_ev_memset clear = { .address = 0x7f0000000000, .bytes = 256, .stream = 7 };
	struct ct_ev_memset next = clear;
	struct ct_ev_launch launch = { .kernel_id = 1 };
	struct ct_moved moved;

	(void)state;
	slice.src += 64;
	slice.dst += 64;
	slice.bytes -= 100;
	slice.api.correlation_id = 6;
	other.stream++;
	assert_int_equal(repeat_moved_base_memcpy(&slots.memo, &slice, &moved), 0);
	repeat_shape_keep_memcpy(&slots.memo, &up);
	assert_int_equal(repeat_moved_base_memcpy(&slots.memo, &slice, &moved),
	                 ct_shape_memcpy(&up));
	assert_int_equal(moved.src, up.src + 64);
	assert_int_equal(moved.dst, up.dst + 64);
	assert_int_equal(moved.bytes, up.bytes - 100);
	/* what a reader makes of it: the base moved is the slice */
	ct_move_memcpy(&up, &moved);
	assert_true(ct_same_shape_memcpy(&up, &slice));
	assert_int_equal(repeat_moved_base_memcpy(&slots.memo, &other, &moved), 0);
	next.address += 256;
	next.bytes = 64;
	repeat_shape_keep_memset(&slots.memo, &clear);
	assert_int_equal(repeat_moved_base_memset(&slots.memo, &next, &moved),
	                 ct_shape_memset(&clear));
	assert_int_equal(moved.src, 0);
	assert_int_equal(moved.dst, clear.address + 256);
	assert_int_equal(moved.bytes, 64);
	repeat_shape_keep_launch(&slots.memo, &launch);
	launch.grid_x = 2;
	assert_int_equal(repeat_moved_base_launch(&slots.memo, &launch, &moved), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_written_then_repeated, fresh),
		cmocka_unit_test_setup(test_another_shape_in_the_slot, fresh),
		cmocka_unit_test_setup(test_way_taken, fresh),
		cmocka_unit_test_setup(test_a_second_later, fresh),
		cmocka_unit_test_setup(test_long_call, fresh),
		cmocka_unit_test_setup(test_not_recording_its_call, fresh),
		cmocka_unit_test_setup(test_disabled_or_not_compact, fresh),
		cmocka_unit_test_setup(test_shape_of_every_field_but_the_call, fresh),
		cmocka_unit_test_setup(test_shape_without_late_field, fresh),
		cmocka_unit_test_setup(test_shape_memo, fresh),
		cmocka_unit_test_setup(test_run_kept_then_written, fresh),
		cmocka_unit_test_setup(test_run_full_or_old, fresh),
		cmocka_unit_test_setup(test_run_noted_once_written, fresh),
		cmocka_unit_test_setup(test_exit_closes_runs, fresh),
		cmocka_unit_test_setup(test_moved_alone, fresh),
		cmocka_unit_test_setup(test_moved_in_run, fresh),
		cmocka_unit_test_setup(test_moved_calls_per_run, fresh),
		cmocka_unit_test_setup(test_copy_loop_on_slices, fresh),
		cmocka_unit_test_setup(test_moved_base_of_memo, fresh),
		/* last: the other tests' calls entered before it, which it makes stale */
		cmocka_unit_test_setup(test_session_started, fresh),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
