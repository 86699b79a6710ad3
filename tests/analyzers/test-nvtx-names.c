/* SPDX-License-Identifier: MIT */
/*
 * test-nvtx-names.c - the names of NVTX ranges as the report shows them:
 * TensorFlow's and XLA's ranges (TSL's TraceMe encoding,
 * "name#key=value,...#") by their name, or their values when they have
 * none; any other message as it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/context.h"

static void check(const char *message, size_t size, const char *expected)
{
	char buf[64];

	assert_true(size <= sizeof(buf));
	assert_string_equal(ct_nvtx_name(message, buf, size), expected);
}

static void test_traceme(void **unused)
{
	(void)unused;
	check("#edge_name=copy#", 64, "copy");
	check("ExecutorState::Process#id=3,iter_num=0#", 64, "ExecutorState::Process");
	check("#a=1,b=x=y#", 64, "1,x=y");
	/* cut to fit, never past the buffer */
	check("#edge_name=copy#", 3, "co");
	check("ExecutorState#id=3#", 5, "Exec");
}

static void test_others_as_they_are(void **unused)
{
	static const char *const messages[] = {
		"train step", "",     "#",      "##",     "a#b#",
		"step#3",     "#=x#", "#a=1,#", "#a=1##", "x#a=1#y",
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++)
		check(messages[i], 64, messages[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_traceme),
		cmocka_unit_test(test_others_as_they_are),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
