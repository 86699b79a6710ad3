/* SPDX-License-Identifier: MIT */
/*
 * config.h - cudatrace's settings, read once from the environment.
 *
 * Every variable is documented in cudatrace-env(7). A value that cannot be
 * used leaves the default and is handed back as a problem, which the
 * caller reports (one line on stderr and a tracer_error event).
 */
#ifndef CUDATRACE_CONFIG_H
#define CUDATRACE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contract/events.h"

/* Defaults and bounds (cudatrace-env(7)). */
#define CONFIG_DEFAULT_BUFFER_SIZE           (4u << 20)
#define CONFIG_MIN_BUFFER_SIZE               (64u << 10)
#define CONFIG_MAX_BUFFER_SIZE               (256u << 20)
#define CONFIG_DEFAULT_FLUSH_PERIOD_MS       1000
#define CONFIG_DEFAULT_SESSION_POLL_MS       100
#define CONFIG_MAX_SESSION_POLL_MS           10000u
#define CONFIG_MAX_PERIOD_MS                 3600000u
#define CONFIG_DEFAULT_HOST_MEMORY_PERIOD_MS 500u
#define CONFIG_DEFAULT_MAX_STRING            256
#define CONFIG_MIN_MAX_STRING                16
#define CONFIG_MAX_MAX_STRING                4096
#define CONFIG_DEFAULT_STACK_DEPTH           32

struct config {
	bool api;                       /* CUDATRACE_API: api_call, api_entry */
	uint32_t activity_kinds;        /* CUDATRACE_ACTIVITY: enum ct_activity_bit mask */
	size_t buffer_size;             /* CUDATRACE_BUFFER_SIZE: bytes per activity buffer */
	uint32_t flush_period_ms;       /* CUDATRACE_FLUSH_PERIOD_MS: 0 = no periodic flush */
	uint16_t max_string;            /* CUDATRACE_MAX_STRING: bytes per string field */
	uint32_t nvml_period_ms;        /* CUDATRACE_NVML_PERIOD_MS: 0 = no periodic samples */
	uint32_t host_memory_period_ms; /* CUDATRACE_HOST_MEMORY_PERIOD_MS: 0 = no samples */
	uint32_t session_poll_ms;       /* CUDATRACE_SESSION_POLL_MS: 0 = all stays on */
	uint32_t statedump_period_ms; /* CUDATRACE_STATEDUMP_PERIOD_MS: 0 = at session start only */
	uint16_t stack_depth;         /* CUDATRACE_STACK_DEPTH: frames a call_stack, 0 = none */
	bool stack_calls;             /* CUDATRACE_STACK_CALLS: stacks at copies and launches too */
	bool compact;                 /* CUDATRACE_COMPACT: gpu_*_times for recorded operations */
	int debug;                    /* CUDATRACE_DEBUG: log level, 0..3 */
};

/* Strings are uint16-counted sequences in the events; CUPTI wants buffers
 * of a multiple of 8 bytes. */
_Static_assert(CONFIG_MAX_MAX_STRING <= UINT16_MAX, "max_string fits text lengths");
_Static_assert(CONFIG_MIN_BUFFER_SIZE % 8 == 0 && CONFIG_MAX_BUFFER_SIZE % 8 == 0,
               "buffer sizes are multiples of 8");

/* The settings of a process whose environment sets none. */
#define CONFIG_DEFAULTS                                                                           \
	{                                                                                         \
		.api = true, .activity_kinds = CT_ACT_ALL,                                        \
		.buffer_size = CONFIG_DEFAULT_BUFFER_SIZE,                                        \
		.flush_period_ms = CONFIG_DEFAULT_FLUSH_PERIOD_MS,                                \
		.max_string = CONFIG_DEFAULT_MAX_STRING, .nvml_period_ms = 0,                     \
		.host_memory_period_ms = CONFIG_DEFAULT_HOST_MEMORY_PERIOD_MS,                    \
		.session_poll_ms = CONFIG_DEFAULT_SESSION_POLL_MS, .statedump_period_ms = 0,      \
		.stack_depth = CONFIG_DEFAULT_STACK_DEPTH, .stack_calls = false, .compact = true, \
		.debug = 0,                                                                       \
	}

/* One message per variable whose value cannot be used, e.g.
 * "CUDATRACE_API=maybe is not 1 or 0; using the default". */
#define CONFIG_PROBLEMS_MAX 12 /* the number of variables */
#define CONFIG_PROBLEM_LEN  256

struct config_problems {
	unsigned count;
	char message[CONFIG_PROBLEMS_MAX][CONFIG_PROBLEM_LEN];
};

/* Read the CUDATRACE_* variables of the environment into *c, the defaults
 * where a variable is unset or its value cannot be used; each value that
 * cannot be used adds one message to *problems (emptied first). */
void config_read(struct config *c, struct config_problems *problems);

#endif /* CUDATRACE_CONFIG_H */
