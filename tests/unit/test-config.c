/* SPDX-License-Identifier: MIT */
/*
 * test-config.c - libtrace's settings (libtrace/config.c) from every
 * variable of cudatrace-env(7): the defaults, good values, and bad values,
 * each of which keeps its default and is handed back as a problem, word
 * for word as cudatrace says it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libtrace/config.h" /* not the build's config.h */

static const char *const variables[] = {
	"CUDATRACE_API",
	"CUDATRACE_ACTIVITY",
	"CUDATRACE_BUFFER_SIZE",
	"CUDATRACE_FLUSH_PERIOD_MS",
	"CUDATRACE_MAX_STRING",
	"CUDATRACE_NVML_PERIOD_MS",
	"CUDATRACE_SESSION_POLL_MS",
	"CUDATRACE_STATEDUMP_PERIOD_MS",
	"CUDATRACE_STACK_DEPTH",
	"CUDATRACE_STACK_CALLS",
	"CUDATRACE_COMPACT",
	"CUDATRACE_DEBUG",
};

static int clean_environment(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(variables) / sizeof(variables[0]); i++)
		unsetenv(variables[i]);
	return 0;
}

/* Read the environment with var=value; no problem expected. */
static struct config read_with(const char *var, const char *value)
{
	struct config_problems problems;
	struct config c;

	setenv(var, value, 1);
	config_read(&c, &problems);
	unsetenv(var);
	if (problems.count != 0)
		fail_msg("%s=%s: unexpected problem '%s'", var, value, problems.message[0]);
	return c;
}

static void assert_defaults(const struct config *c)
{
	const struct config defaults = CONFIG_DEFAULTS;

	assert_int_equal(c->api, defaults.api);
	assert_int_equal(c->activity_kinds, defaults.activity_kinds);
	assert_int_equal(c->buffer_size, defaults.buffer_size);
	assert_int_equal(c->flush_period_ms, defaults.flush_period_ms);
	assert_int_equal(c->max_string, defaults.max_string);
	assert_int_equal(c->nvml_period_ms, defaults.nvml_period_ms);
	assert_int_equal(c->session_poll_ms, defaults.session_poll_ms);
	assert_int_equal(c->statedump_period_ms, defaults.statedump_period_ms);
	assert_int_equal(c->stack_depth, defaults.stack_depth);
	assert_int_equal(c->stack_calls, defaults.stack_calls);
	assert_int_equal(c->compact, defaults.compact);
	assert_int_equal(c->debug, defaults.debug);
}

/* Read the environment with var=value, which must be refused with the
 * message "var=value is not <expected>; using the default"; returns the
 * settings, which must be the defaults. */
static void refused(const char *var, const char *value, const char *expected)
{
	struct config_problems problems;
	struct config c;
	char message[CONFIG_PROBLEM_LEN];

	setenv(var, value, 1);
	config_read(&c, &problems);
	unsetenv(var);
	snprintf(message, sizeof(message), "%s=%s is not %s; using the default", var, value,
	         expected);
	assert_int_equal(problems.count, 1);
	assert_string_equal(problems.message[0], message);
	assert_defaults(&c);
}

static void test_defaults(void **state)
{
	struct config_problems problems = { .count = 5 };
	struct config c;

	(void)state;
	memset(&c, 0xa5, sizeof(c));
	config_read(&c, &problems);
	assert_int_equal(problems.count, 0);
	assert_defaults(&c);
	/* The values cudatrace-env(7) documents. */
	assert_true(c.api);
	assert_int_equal(c.activity_kinds, CT_ACT_ALL);
	assert_int_equal(c.buffer_size, 4u << 20);
	assert_int_equal(c.flush_period_ms, 1000);
	assert_int_equal(c.max_string, 256);
	assert_int_equal(c.nvml_period_ms, 0);
	assert_int_equal(c.session_poll_ms, 100);
	assert_int_equal(c.statedump_period_ms, 0);
	assert_int_equal(c.debug, 0);
}

static void test_api(void **state)
{
	static const char *const yes[] = { "1", "on", "yes", "true", "TRUE", "Yes" };
	static const char *const no[] = { "0", "off", "no", "false", "OFF" };

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(read_with("CUDATRACE_API", yes[i]).api);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(read_with("CUDATRACE_API", no[i]).api);
	refused("CUDATRACE_API", "maybe", "1 or 0");
	refused("CUDATRACE_API", "", "1 or 0");
	refused("CUDATRACE_API", "2", "1 or 0");
}

#define ACTIVITY_EXPECTED \
	"1, 0 or a list of kernel,memcpy,memset,memory,memory_pool,sync,device,overhead"

static void test_activity(void **state)
{
	char too_long[300];

	(void)state;
	assert_int_equal(read_with("CUDATRACE_ACTIVITY", "all").activity_kinds, CT_ACT_ALL);
	assert_int_equal(read_with("CUDATRACE_ACTIVITY", "1").activity_kinds, CT_ACT_ALL);
	assert_int_equal(read_with("CUDATRACE_ACTIVITY", "on").activity_kinds, CT_ACT_ALL);
	assert_int_equal(read_with("CUDATRACE_ACTIVITY", "none").activity_kinds, 0);
	assert_int_equal(read_with("CUDATRACE_ACTIVITY", "0").activity_kinds, 0);
	assert_int_equal(read_with("CUDATRACE_ACTIVITY", "off").activity_kinds, 0);
	assert_int_equal(read_with("CUDATRACE_ACTIVITY", "kernel").activity_kinds, CT_ACT_KERNEL);
	assert_int_equal(read_with("CUDATRACE_ACTIVITY", "Kernel,MEMCPY").activity_kinds,
	                 CT_ACT_KERNEL | CT_ACT_MEMCPY);
	assert_int_equal(read_with("CUDATRACE_ACTIVITY",
	                           "kernel,memcpy,memset,memory,memory_pool,sync,device,overhead")
	                     .activity_kinds,
	                 CT_ACT_ALL);
	assert_int_equal(read_with("CUDATRACE_ACTIVITY", "memory_pool,,sync").activity_kinds,
	                 CT_ACT_MEMORY_POOL | CT_ACT_SYNC);
	refused("CUDATRACE_ACTIVITY", "kernel,bogus", ACTIVITY_EXPECTED);
	refused("CUDATRACE_ACTIVITY", "kernels", ACTIVITY_EXPECTED);
	/* Longer than any list of kinds: refused, not cut. */
	memset(too_long, 'k', sizeof(too_long) - 1);
	too_long[sizeof(too_long) - 1] = '\0';
	{
		struct config_problems problems;
		struct config c;

		setenv("CUDATRACE_ACTIVITY", too_long, 1);
		config_read(&c, &problems);
		unsetenv("CUDATRACE_ACTIVITY");
		assert_int_equal(problems.count, 1);
		assert_int_equal(c.activity_kinds, CT_ACT_ALL);
		assert_int_equal(strncmp(problems.message[0], "CUDATRACE_ACTIVITY=kkk", 22), 0);
		assert_true(strlen(problems.message[0]) < CONFIG_PROBLEM_LEN);
	}
}

static void test_buffer_size(void **state)
{
	const char *range = "a number from 65536 to 268435456";

	(void)state;
	assert_int_equal(read_with("CUDATRACE_BUFFER_SIZE", "64K").buffer_size, 65536);
	assert_int_equal(read_with("CUDATRACE_BUFFER_SIZE", "64k").buffer_size, 65536);
	assert_int_equal(read_with("CUDATRACE_BUFFER_SIZE", "8M").buffer_size, 8u << 20);
	assert_int_equal(read_with("CUDATRACE_BUFFER_SIZE", "256M").buffer_size, 256u << 20);
	assert_int_equal(read_with("CUDATRACE_BUFFER_SIZE", "1048576").buffer_size, 1u << 20);
	/* Down to a multiple of 8, as CUPTI wants. */
	assert_int_equal(read_with("CUDATRACE_BUFFER_SIZE", "65543").buffer_size, 65536);
	refused("CUDATRACE_BUFFER_SIZE", "63K", range);
	refused("CUDATRACE_BUFFER_SIZE", "257M", range);
	refused("CUDATRACE_BUFFER_SIZE", "1G", range);
	refused("CUDATRACE_BUFFER_SIZE", "4MB", range);
	refused("CUDATRACE_BUFFER_SIZE", "-1", range);
	refused("CUDATRACE_BUFFER_SIZE", "lots", range);
	refused("CUDATRACE_BUFFER_SIZE", "99999999999999999999", range);
	refused("CUDATRACE_BUFFER_SIZE", "17179869184G", range);
}

static void test_flush_period(void **state)
{
	const char *range = "a number from 0 to 3600000";

	(void)state;
	assert_int_equal(read_with("CUDATRACE_FLUSH_PERIOD_MS", "0").flush_period_ms, 0);
	assert_int_equal(read_with("CUDATRACE_FLUSH_PERIOD_MS", "250").flush_period_ms, 250);
	assert_int_equal(read_with("CUDATRACE_FLUSH_PERIOD_MS", "3600000").flush_period_ms,
	                 3600000);
	refused("CUDATRACE_FLUSH_PERIOD_MS", "3600001", range);
	refused("CUDATRACE_FLUSH_PERIOD_MS", "", range);
	refused("CUDATRACE_FLUSH_PERIOD_MS", "1.5", range);
}

static void test_max_string(void **state)
{
	const char *range = "a number from 16 to 4096";

	(void)state;
	assert_int_equal(read_with("CUDATRACE_MAX_STRING", "16").max_string, 16);
	assert_int_equal(read_with("CUDATRACE_MAX_STRING", "1K").max_string, 1024);
	assert_int_equal(read_with("CUDATRACE_MAX_STRING", "4096").max_string, 4096);
	refused("CUDATRACE_MAX_STRING", "15", range);
	refused("CUDATRACE_MAX_STRING", "4097", range);
	refused("CUDATRACE_MAX_STRING", "65536", range);
}

static void test_nvml_period(void **state)
{
	const char *range = "a number from 0 to 3600000";

	(void)state;
	assert_int_equal(read_with("CUDATRACE_NVML_PERIOD_MS", "500").nvml_period_ms, 500);
	assert_int_equal(read_with("CUDATRACE_NVML_PERIOD_MS", "0").nvml_period_ms, 0);
	refused("CUDATRACE_NVML_PERIOD_MS", "1h", range);
	refused("CUDATRACE_NVML_PERIOD_MS", "4000000", range);
}

static void test_session_poll(void **state)
{
	const char *range = "a number from 0 to 10000";

	(void)state;
	assert_int_equal(read_with("CUDATRACE_SESSION_POLL_MS", "0").session_poll_ms, 0);
	assert_int_equal(read_with("CUDATRACE_SESSION_POLL_MS", "10").session_poll_ms, 10);
	assert_int_equal(read_with("CUDATRACE_SESSION_POLL_MS", "10000").session_poll_ms, 10000);
	refused("CUDATRACE_SESSION_POLL_MS", "10001", range);
	refused("CUDATRACE_SESSION_POLL_MS", "never", range);
}

static void test_statedump_period(void **state)
{
	const char *range = "a number from 0 to 3600000";

	(void)state;
	assert_int_equal(read_with("CUDATRACE_STATEDUMP_PERIOD_MS", "0").statedump_period_ms, 0);
	assert_int_equal(read_with("CUDATRACE_STATEDUMP_PERIOD_MS", "500").statedump_period_ms,
	                 500);
	assert_int_equal(read_with("CUDATRACE_STATEDUMP_PERIOD_MS", "3600000").statedump_period_ms,
	                 3600000);
	refused("CUDATRACE_STATEDUMP_PERIOD_MS", "3600001", range);
	refused("CUDATRACE_STATEDUMP_PERIOD_MS", "1s", range);
}

static void test_stack_depth(void **state)
{
	const char *range = "a number from 0 to 128";

	(void)state;
	assert_int_equal(read_with("CUDATRACE_STACK_DEPTH", "0").stack_depth, 0);
	assert_int_equal(read_with("CUDATRACE_STACK_DEPTH", "8").stack_depth, 8);
	assert_int_equal(read_with("CUDATRACE_STACK_DEPTH", "128").stack_depth, 128);
	refused("CUDATRACE_STACK_DEPTH", "129", range);
	refused("CUDATRACE_STACK_DEPTH", "deep", range);
	assert_false(read_with("CUDATRACE_STACK_CALLS", "0").stack_calls);
	assert_true(read_with("CUDATRACE_STACK_CALLS", "1").stack_calls);
	refused("CUDATRACE_STACK_CALLS", "yes please", "1 or 0");
	assert_true(read_with("CUDATRACE_COMPACT", "1").compact);
	assert_false(read_with("CUDATRACE_COMPACT", "0").compact);
	refused("CUDATRACE_COMPACT", "whole", "1 or 0");
}

static void test_debug(void **state)
{
	(void)state;
	assert_int_equal(read_with("CUDATRACE_DEBUG", "0").debug, 0);
	assert_int_equal(read_with("CUDATRACE_DEBUG", "3").debug, 3);
	refused("CUDATRACE_DEBUG", "4", "a level from 0 to 3");
	refused("CUDATRACE_DEBUG", "verbose", "a level from 0 to 3");
}

/* Each bad value is one problem, in the order of the variables; the good
 * ones are taken. */
static void test_several_problems(void **state)
{
	struct config_problems problems;
	struct config c;

	(void)state;
	setenv("CUDATRACE_MAX_STRING", "5", 1);
	setenv("CUDATRACE_API", "0", 1);
	setenv("CUDATRACE_DEBUG", "9", 1);
	setenv("CUDATRACE_NVML_PERIOD_MS", "20", 1);
	config_read(&c, &problems);
	assert_int_equal(problems.count, 2);
	assert_string_equal(problems.message[0],
	                    "CUDATRACE_DEBUG=9 is not a level from 0 to 3; using the default");
	assert_string_equal(problems.message[1],
	                    "CUDATRACE_MAX_STRING=5 is not a number from 16 to 4096; using the "
	                    "default");
	assert_false(c.api);
	assert_int_equal(c.nvml_period_ms, 20);
	assert_int_equal(c.max_string, 256);
	assert_int_equal(c.debug, 0);
	clean_environment(NULL);

	/* Problems of an earlier reading are not kept. */
	config_read(&c, &problems);
	assert_int_equal(problems.count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_activity),
		cmocka_unit_test(test_buffer_size),
		cmocka_unit_test(test_flush_period),
		cmocka_unit_test(test_max_string),
		cmocka_unit_test(test_nvml_period),
		cmocka_unit_test(test_session_poll),
		cmocka_unit_test(test_statedump_period),
		cmocka_unit_test(test_stack_depth),
		cmocka_unit_test(test_debug),
		cmocka_unit_test(test_several_problems),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("config", tests, clean_environment, NULL);
}
