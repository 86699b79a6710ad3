/* SPDX-License-Identifier: MIT */
/*
 * config.c - cudatrace's settings from CUDATRACE_* environment variables.
 *
 * Parsing only: what cannot be used is handed back to the caller, which
 * says so (inject.c, at start-up).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"

static void report_bad(struct config_problems *problems, const char *var, const char *value,
                       const char *expected)
{
	if (problems->count >= CONFIG_PROBLEMS_MAX)
		return;
	snprintf(problems->message[problems->count++], CONFIG_PROBLEM_LEN,
	         "%s=%s is not %s; using the default", var, value, expected);
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

static void load_debug(struct config *c, struct config_problems *problems)
{
	const char *s = getenv("CUDATRACE_DEBUG");
	uint64_t value;

	if (!s)
		return;
	if (parse_range(s, 0, 3, &value) < 0) {
		report_bad(problems, "CUDATRACE_DEBUG", s, "a level from 0 to 3");
		return;
	}
	c->debug = (int)value;
}

/* Variable NAME, 1 or 0, into *VALUE (left as it is when unset or bad). */
static void load_bool(struct config_problems *problems, const char *name, bool *value)
{
	const char *s = getenv(name);

	if (s && parse_bool(s, value) < 0)
		report_bad(problems, name, s, "1 or 0");
}

static void load_activity(struct config *c, struct config_problems *problems)
{
	const char *s = getenv("CUDATRACE_ACTIVITY");

	if (s && parse_activity(s, &c->activity_kinds) < 0)
		report_bad(problems, "CUDATRACE_ACTIVITY", s,
		           "1, 0 or a list of kernel,memcpy,memset,memory,memory_pool,sync,device,"
		           "overhead");
}

static void load_number(struct config_problems *problems, const char *var, uint64_t min,
                        uint64_t max, uint64_t *value)
{
	const char *s = getenv(var);
	uint64_t parsed;

	if (!s)
		return;
	if (parse_range(s, min, max, &parsed) < 0) {
		char expected[96];

		snprintf(expected, sizeof(expected), "a number from %llu to %llu",
		         (unsigned long long)min, (unsigned long long)max);
		report_bad(problems, var, s, expected);
		return;
	}
	*value = parsed;
}

void config_read(struct config *c, struct config_problems *problems)
{
	uint64_t buffer_size = CONFIG_DEFAULT_BUFFER_SIZE;
	uint64_t flush = CONFIG_DEFAULT_FLUSH_PERIOD_MS;
	uint64_t max_string = CONFIG_DEFAULT_MAX_STRING;
	uint64_t nvml = 0;
	uint64_t host = CONFIG_DEFAULT_HOST_MEMORY_PERIOD_MS;
	uint64_t poll = CONFIG_DEFAULT_SESSION_POLL_MS;
	uint64_t statedump = 0;
	uint64_t stack_depth = CONFIG_DEFAULT_STACK_DEPTH;

	*c = (struct config)CONFIG_DEFAULTS;
	problems->count = 0;
	load_debug(c, problems);
	load_bool(problems, "CUDATRACE_API", &c->api);
	load_activity(c, problems);
	load_number(problems, "CUDATRACE_BUFFER_SIZE", CONFIG_MIN_BUFFER_SIZE,
	            CONFIG_MAX_BUFFER_SIZE, &buffer_size);
	load_number(problems, "CUDATRACE_FLUSH_PERIOD_MS", 0, CONFIG_MAX_PERIOD_MS, &flush);
	load_number(problems, "CUDATRACE_MAX_STRING", CONFIG_MIN_MAX_STRING, CONFIG_MAX_MAX_STRING,
	            &max_string);
	load_number(problems, "CUDATRACE_NVML_PERIOD_MS", 0, CONFIG_MAX_PERIOD_MS, &nvml);
	load_number(problems, "CUDATRACE_HOST_MEMORY_PERIOD_MS", 0, CONFIG_MAX_PERIOD_MS, &host);
	load_number(problems, "CUDATRACE_SESSION_POLL_MS", 0, CONFIG_MAX_SESSION_POLL_MS, &poll);
	load_number(problems, "CUDATRACE_STATEDUMP_PERIOD_MS", 0, CONFIG_MAX_PERIOD_MS, &statedump);
	load_number(problems, "CUDATRACE_STACK_DEPTH", 0, CT_STACK_FRAMES_MAX, &stack_depth);
	load_bool(problems, "CUDATRACE_STACK_CALLS", &c->stack_calls);
	load_bool(problems, "CUDATRACE_COMPACT", &c->compact);
	/* CUPTI wants 8-byte aligned buffers of a multiple of 8 bytes. */
	c->buffer_size = (size_t)(buffer_size & ~(uint64_t)7);
	c->flush_period_ms = (uint32_t)flush;
	c->max_string = (uint16_t)max_string;
	c->nvml_period_ms = (uint32_t)nvml;
	c->host_memory_period_ms = (uint32_t)host;
	c->session_poll_ms = (uint32_t)poll;
	c->statedump_period_ms = (uint32_t)statedump;
	c->stack_depth = (uint16_t)stack_depth;
}
