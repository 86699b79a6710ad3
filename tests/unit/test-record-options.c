/* SPDX-License-Identifier: MIT */
/*
 * test-record-options.c - the command line of `cudatrace record`
 * (cli/record-options.c) against what cudatrace-record(1) and its --help
 * say: the defaults, each option's effect, the sizes it takes (K, M, G,
 * powers of two where it says so), the ranges it allows, the combinations
 * it refuses, and where the options stop and the command begins.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "diag.h"
#include "record-options.h"

#define MAX_ARGS 16

/* Parses "record" and the NULL-terminated words after it into O. */
static enum record_parse_result parse(struct record_options *o, ...)
{
	static char *argv[MAX_ARGS + 2];
	int argc = 0;
	va_list ap;
	char *word;

	argv[argc++] = (char *)"record";
	va_start(ap, o);
	while ((word = va_arg(ap, char *)) && argc < MAX_ARGS)
		argv[argc++] = word;
	va_end(ap);
	argv[argc] = NULL;
	return record_options_parse(argc, argv, o);
}

/* WORDS (NULL-terminated) are refused as a usage error. */
#define REFUSED(...)                                                                 \
	do {                                                                         \
		struct record_options o_;                                            \
		assert_int_equal(parse(&o_, __VA_ARGS__, NULL), RECORD_PARSE_USAGE); \
	} while (0)

static void test_defaults(void **unused)
{
	struct record_options o;

	(void)unused;
	assert_int_equal(parse(&o, "python3", "train.py", NULL), RECORD_PARSE_OK);
	assert_int_equal(o.command_index, 1);
	assert_null(o.output);
	assert_null(o.trace_dir);
	assert_null(o.relayd);
	assert_false(o.live || o.flight_recorder || o.blocking || o.quiet || o.no_report);
	assert_false(o.no_api || o.no_nvtx || o.no_python_probe || o.all_processes);
	assert_null(o.activity);
	/* "default 1M", "(default 8)", "default 64M", "default 1000", "default 10 s" */
	assert_int_equal(o.subbuf_size, 1 << 20);
	assert_int_equal(o.num_subbuf, 8);
	assert_int_equal(o.flight_size, 64 << 20);
	assert_int_equal(o.live_period_ms, 1000);
	assert_int_equal(o.blocking_ms, 1000);
	assert_int_equal(o.sessiond_timeout_s, 10);
}

/* Options stop at the first word that is not one, or at "--". */
static void test_command_starts(void **unused)
{
	struct record_options o;

	(void)unused;
	assert_int_equal(parse(&o, "-q", "python3", "-o", "x", NULL), RECORD_PARSE_OK);
	assert_true(o.quiet);
	assert_null(o.output);
	assert_int_equal(o.command_index, 2);
	assert_int_equal(parse(&o, "--no-api", "--", "-weird-program", NULL), RECORD_PARSE_OK);
	assert_true(o.no_api);
	assert_int_equal(o.command_index, 3);
	REFUSED("-q");
	REFUSED("--");
	REFUSED("--no-such-option", "python3");
}

static void test_what_is_traced(void **unused)
{
	struct record_options o;

	(void)unused;
	assert_int_equal(parse(&o, "--no-nvtx", "--no-python-probe", "--all-processes",
	                       "--activity=kernel,memcpy", "--nvml-period=500", "--flush-period=0",
	                       "true", NULL),
	                 RECORD_PARSE_OK);
	assert_true(o.no_nvtx && o.no_python_probe && o.all_processes && !o.tensor_sites);
	assert_string_equal(o.activity, "kernel,memcpy");
	assert_string_equal(o.nvml_period_ms, "500");
	assert_string_equal(o.flush_period_ms, "0");
	assert_int_equal(parse(&o, "--tensor-sites", "python3", NULL), RECORD_PARSE_OK);
	assert_true(o.tensor_sites && !o.no_python_probe);
	/* the history is the probe's: without it, nothing would keep it */
	assert_int_equal(parse(&o, "--tensor-sites", "--no-python-probe", "python3", NULL),
	                 RECORD_PARSE_USAGE);
	assert_int_equal(parse(&o, "--no-activity", "true", NULL), RECORD_PARSE_OK);
	assert_string_equal(o.activity, "none");
	assert_int_equal(parse(&o, "--activity=NONE", "true", NULL), RECORD_PARSE_OK);
	REFUSED("--activity=kernel,,memcpy", "true");
	REFUSED("--activity=,kernel", "true");
	REFUSED("--activity=kernels", "true");
	REFUSED("--activity=", "true");
	REFUSED("--nvml-period=-1", "true");
	REFUSED("--nvml-period=3600001", "true");
	REFUSED("--flush-period=1s", "true");
}

/* SIZE takes a K, M or G suffix; the buffers are powers of 2 in their ranges. */
static void test_sizes(void **unused)
{
	struct record_options o;

	(void)unused;
	assert_int_equal(parse(&o, "--subbuf-size=4K", "--num-subbuf=2", "true", NULL),
	                 RECORD_PARSE_OK);
	assert_int_equal(o.subbuf_size, 4096);
	assert_int_equal(o.num_subbuf, 2);
	assert_int_equal(parse(&o, "--subbuf-size=1G", "--num-subbuf=4096", "true", NULL),
	                 RECORD_PARSE_OK);
	assert_int_equal(o.subbuf_size, UINT64_C(1) << 30);
	assert_int_equal(parse(&o, "--flight-recorder=128MiB", "true", NULL), RECORD_PARSE_OK);
	assert_true(o.flight_recorder);
	assert_int_equal(o.flight_size, 128 << 20);
	assert_int_equal(parse(&o, "--flight-recorder=64k", "true", NULL), RECORD_PARSE_OK);
	assert_int_equal(o.flight_size, 64 << 10);
	assert_int_equal(parse(&o, "--activity-buffer=256M", "true", NULL), RECORD_PARSE_OK);
	REFUSED("--subbuf-size=3K", "true");
	REFUSED("--subbuf-size=2K", "true");
	REFUSED("--subbuf-size=2G", "true");
	REFUSED("--num-subbuf=1", "true");
	REFUSED("--num-subbuf=8192", "true");
	REFUSED("--num-subbuf=6", "true");
	REFUSED("--flight-recorder=63K", "true");
	REFUSED("--flight-recorder=1T", "true");
	REFUSED("--flight-recorder=K", "true");
	REFUSED("--activity-buffer=32K", "true");
	REFUSED("--activity-buffer=512M", "true");
	REFUSED("--subbuf-size=99999999999999999999", "true");
}

static void test_periods(void **unused)
{
	struct record_options o;

	(void)unused;
	assert_int_equal(parse(&o, "--live=250", "true", NULL), RECORD_PARSE_OK);
	assert_true(o.live);
	assert_int_equal(o.live_period_ms, 250);
	/* --live alone streams to a relay daemon here */
	assert_string_equal(o.relayd, "net://127.0.0.1");
	assert_int_equal(parse(&o, "--blocking=60000", "true", NULL), RECORD_PARSE_OK);
	assert_true(o.blocking);
	assert_int_equal(o.blocking_ms, 60000);
	assert_int_equal(parse(&o, "--sessiond-timeout=600", "true", NULL), RECORD_PARSE_OK);
	assert_int_equal(o.sessiond_timeout_s, 600);
	REFUSED("--live=0", "true");
	REFUSED("--blocking=0", "true");
	REFUSED("--blocking=60001", "true");
	REFUSED("--sessiond-timeout=0", "true");
	REFUSED("--sessiond-timeout=601", "true");
}

/* Session names are file names: letters, digits, '.', '_' and '-', 128 at most. */
static void test_names(void **unused)
{
	struct record_options o;
	char longest[RECORD_NAME_MAX + 8], option[RECORD_NAME_MAX + 16];

	(void)unused;
	assert_int_equal(parse(&o, "--name=run-1.a_b", "true", NULL), RECORD_PARSE_OK);
	assert_string_equal(o.name, "run-1.a_b");
	memset(longest, 'n', RECORD_NAME_MAX);
	longest[RECORD_NAME_MAX] = '\0';
	snprintf(option, sizeof(option), "--name=%s", longest);
	assert_int_equal(parse(&o, option, "true", NULL), RECORD_PARSE_OK);
	strcat(option, "n");
	REFUSED(option, "true");
	REFUSED("--name=a/b", "true");
	REFUSED("--name=..", "true");
	REFUSED("--name=", "true");
	REFUSED("--name=a b", "true");
}

/* Combinations that cannot work are refused before anything runs. */
static void test_combinations(void **unused)
{
	struct record_options o;

	(void)unused;
	REFUSED("-o", "a", "--trace-dir=b", "true");
	REFUSED("--relayd=net://h", "-o", "a", "true");
	REFUSED("--live", "--trace-dir=b", "true");
	REFUSED("--flight-recorder", "--live", "true");
	REFUSED("--flight-recorder", "--blocking", "true");
	assert_int_equal(parse(&o, "--flight-recorder", "--relayd=net://h", "true", NULL),
	                 RECORD_PARSE_OK);
	assert_string_equal(o.relayd, "net://h");
	assert_int_equal(parse(&o, "-o", "out", "--no-report", "true", NULL), RECORD_PARSE_OK);
	assert_string_equal(o.output, "out");
	assert_true(o.no_report);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),       cmocka_unit_test(test_command_starts),
		cmocka_unit_test(test_what_is_traced), cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_periods),        cmocka_unit_test(test_names),
		cmocka_unit_test(test_combinations),
	};

	/* the refusals say why on stderr, as they should: not on the TAP output */
	diag_set_prefix("cudatrace record");
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
