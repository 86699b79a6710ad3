/* SPDX-License-Identifier: MIT */
/*
 * config.c - cudatrace's settings from CUDATRACE_* environment variables.
 *
 * Read once at initialisation, before any callback can run, so the rest of
 * the library reads `config` without locking.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "log.h"
#include "state.h"
#include "tracer.h"

static void report_bad(const char *var, const char *value, const char *expected)
{
	char message[256];

	snprintf(message, sizeof(message), "%s=%s is not %s; using the default", var, value,
	         expected);
	log_notice("%s", message);
	tracer_error(CT_TRACER_ERROR_CONFIG, 0, message);
}

/* 1/0, on/off, yes/no, true/false. Returns 0 and sets *out, or -1. */
static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "on", "yes", "true" };
	static const char *const no[] = { "0", "off", "no", "false" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/* A decimal number with an optional K, M or G suffix (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
	unsigned long long value;
	char *end;
	int shift = 0;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	value = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default:
		return -1;
	}
	if (*end != '\0' || value > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)value << shift;
	return 0;
}

static int parse_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t value;

	if (parse_size(s, &value) < 0 || value < min || value > max)
		return -1;
	*out = value;
	return 0;
}

/* "all"/"on"/"1", "none"/"off"/"0", or a comma list of kind names. */
static int parse_activity(const char *s, uint32_t *out)
{
	char buf[256];
	char *save = NULL;
	uint32_t mask = 0;
	bool flag;

	if (strcasecmp(s, "all") == 0) {
		*out = CT_ACT_ALL;
		return 0;
	}
	if (strcasecmp(s, "none") == 0) {
		*out = 0;
		return 0;
	}
	if (parse_bool(s, &flag) == 0) {
		*out = flag ? CT_ACT_ALL : 0;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint32_t bit = ct_activity_bit(tok);

		if (!bit)
			return -1;
		mask |= bit;
	}
	*out = mask;
	return 0;
}

static void load_debug(void)
{
	const char *s = getenv("CUDATRACE_DEBUG");
	uint64_t value;

	if (!s)
		goto end;
	if (parse_range(s, 0, 3, &value) < 0) {
		report_bad("CUDATRACE_DEBUG", s, "a level from 0 to 3");
		goto end;
	}
	config.debug = (int)value;
end:
	log_set_level(config.debug);
}

static void load_api(void)
{
	const char *s = getenv("CUDATRACE_API");

	if (s && parse_bool(s, &config.api) < 0)
		report_bad("CUDATRACE_API", s, "1 or 0");
}

static void load_activity(void)
{
	const char *s = getenv("CUDATRACE_ACTIVITY");

	if (s && parse_activity(s, &config.activity_kinds) < 0)
		report_bad("CUDATRACE_ACTIVITY", s,
		           "1, 0 or a list of kernel,memcpy,memset,memory,memory_pool,sync,device,"
		           "overhead");
}

static void load_number(const char *var, uint64_t min, uint64_t max, uint64_t *value)
{
	const char *s = getenv(var);
	uint64_t parsed;

	if (!s)
		return;
	if (parse_range(s, min, max, &parsed) < 0) {
		char expected[96];

		snprintf(expected, sizeof(expected), "a number from %llu to %llu",
		         (unsigned long long)min, (unsigned long long)max);
		report_bad(var, s, expected);
		return;
	}
	*value = parsed;
}

void config_load(void)
{
	uint64_t buffer_size = config.buffer_size;
	uint64_t flush = config.flush_period_ms;
	uint64_t max_string = config.max_string;
	uint64_t nvml = config.nvml_period_ms;
	uint64_t poll = config.session_poll_ms;

	load_debug();
	load_api();
	load_activity();
	load_number("CUDATRACE_BUFFER_SIZE", CONFIG_MIN_BUFFER_SIZE, CONFIG_MAX_BUFFER_SIZE,
	            &buffer_size);
	load_number("CUDATRACE_FLUSH_PERIOD_MS", 0, CONFIG_MAX_PERIOD_MS, &flush);
	load_number("CUDATRACE_MAX_STRING", CONFIG_MIN_MAX_STRING, CONFIG_MAX_MAX_STRING,
	            &max_string);
	load_number("CUDATRACE_NVML_PERIOD_MS", 0, CONFIG_MAX_PERIOD_MS, &nvml);
	load_number("CUDATRACE_SESSION_POLL_MS", 0, CONFIG_MAX_SESSION_POLL_MS, &poll);
	/* CUPTI wants 8-byte aligned buffers of a multiple of 8 bytes. */
	config.buffer_size = (size_t)(buffer_size & ~(uint64_t)7);
	config.flush_period_ms = (uint32_t)flush;
	config.max_string = (uint16_t)max_string;
	config.nvml_period_ms = (uint32_t)nvml;
	config.session_poll_ms = (uint32_t)poll;
}
