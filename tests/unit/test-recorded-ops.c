/* SPDX-License-Identifier: MIT */
/*
 * test-recorded-ops.c - the operations whose host event was written
 * (libtrace/recorded-ops.c): a note is taken once, with what its event
 * said; a note another id overwrote, an id never noted and id 0 are told
 * RECORDED_NONE; and with a thread noting while another takes, no take
 * finds a note for an id never noted, nor another note than the one made.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recorded-ops.h"

/* The table's size (recorded-ops.c): ids that far apart share a slot. */
#define SLOTS (1u << 16)

static void test_note_taken_once(void **state)
{
	(void)state;
	assert_int_equal(recorded_ops_take(7), RECORDED_NONE);
	recorded_ops_note(7, RECORDED_WHOLE);
	assert_int_equal(recorded_ops_take(7), RECORDED_WHOLE);
	assert_int_equal(recorded_ops_take(7), RECORDED_NONE);
	recorded_ops_note(8, RECORDED_UNCONFIGURED);
	assert_int_equal(recorded_ops_take(8), RECORDED_UNCONFIGURED);
	assert_int_equal(recorded_ops_take(8), RECORDED_NONE);
}

static void test_overwritten_note(void **state)
{
	(void)state;
	recorded_ops_note(9, RECORDED_WHOLE);
	recorded_ops_note(9 + SLOTS, RECORDED_UNCONFIGURED);
	assert_int_equal(recorded_ops_take(9), RECORDED_NONE);
	assert_int_equal(recorded_ops_take(9 + SLOTS), RECORDED_UNCONFIGURED);
}

static void test_zero_never_noted(void **state)
{
	(void)state;
	recorded_ops_note(0, RECORDED_WHOLE);
	assert_int_equal(recorded_ops_take(0), RECORDED_NONE);
}

/* Even ids are noted by the noting thread, as unconfigured launches; odd ones never. */
#define RACE_IDS 200000u

static void *note_even(void *arg)
{
	(void)arg;
	for (uint32_t id = 2; id < RACE_IDS; id += 2)
		recorded_ops_note(id, RECORDED_UNCONFIGURED);
	return NULL;
}

static void test_race(void **state)
{
	pthread_t noter;
	uint64_t false_yes = 0, other_note = 0;

	(void)state;
	assert_int_equal(pthread_create(&noter, NULL, note_even, NULL), 0);
	for (int round = 0; round < 4; round++) {
		for (uint32_t id = 1; id < RACE_IDS; id++) {
			enum recorded_op what = recorded_ops_take(id);

			if (what != RECORDED_NONE && id % 2)
				false_yes++;
			if (what != RECORDED_NONE && what != RECORDED_UNCONFIGURED)
				other_note++;
		}
	}
	assert_int_equal(pthread_join(noter, NULL), 0);
	assert_int_equal(false_yes, 0);
	assert_int_equal(other_note, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_note_taken_once),
		cmocka_unit_test(test_overwritten_note),
		cmocka_unit_test(test_zero_never_noted),
		cmocka_unit_test(test_race),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
