/* SPDX-License-Identifier: MIT */
/*
 * test-invariant.c - the tracer's assertions (contract/assert.h, libtrace/invariant.c): a
 * broken CT_ASSERT or CT_CHECK stops tracing and says so once, never more,
 * and the program goes on; CT_ASSERT_DBG costs nothing outside a debug
 * build and checks in one (invariant-debug.c is compiled as one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "contract/assert.h"
#include "libtrace-test.h"
#include "state.h"

/* invariant-debug.c: CT_ASSERT_DBG(cond) with CT_DEBUG defined. */
void debug_assert(bool cond);

static int evaluations;

static bool counted(bool value)
{
	evaluations++;
	return value;
}

static int running_setup(void **state)
{
	(void)state;
	tracer_set_running(true);
	return 0;
}

static void test_holding_changes_nothing(void **state)
{
	struct stderr_capture err;

	(void)state;
	stderr_capture_begin(&err);
	CT_ASSERT(1 + 1 == 2);
	assert_true(CT_CHECK(sizeof(uint64_t) == 8));
	assert_int_equal(stderr_capture_end(&err), 0);
	assert_true(tracer_active());
}

/* The first broken one: tracing stops, one line names it; a second one
 * says nothing more. The program (this test) goes on. */
static void test_broken_stops_tracing_once(void **state)
{
	struct stderr_capture err;
	int depth = 9;

	(void)state;
	stderr_capture_begin(&err);
	assert_false(CT_CHECK(depth < 8));
	assert_int_equal(stderr_capture_end(&err), 1);
	assert_false(tracer_active());
	assert_non_null(strstr(err.text, "cudatrace: internal error at test-invariant.c:"));
	assert_non_null(strstr(err.text, "(depth < 8 does not hold)"));

	tracer_set_running(true);
	stderr_capture_begin(&err);
	CT_ASSERT(depth == 0);
	assert_int_equal(stderr_capture_end(&err), 0);
	assert_false(tracer_active());
}

static void test_debug_tier(void **state)
{
	(void)state;
	evaluations = 0;
	/* Not a debug build here (tests do not define CT_DEBUG): type-checked,
	 * never evaluated. */
	CT_ASSERT_DBG(counted(false));
	assert_int_equal(evaluations, 0);
	assert_true(tracer_active());
	/* Compiled with CT_DEBUG, the same assertion checks. */
	debug_assert(true);
	assert_true(tracer_active());
	debug_assert(false);
	assert_false(tracer_active());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_holding_changes_nothing, running_setup),
		cmocka_unit_test_setup(test_broken_stops_tracing_once, running_setup),
		cmocka_unit_test_setup(test_debug_tier, running_setup),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("invariant", tests, NULL, NULL);
}
