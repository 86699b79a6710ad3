/* SPDX-License-Identifier: MIT */
/*
 * config.h - cudatrace's settings, read once from the environment.
 *
 * Every variable is documented in cudatrace-env(7). A bad value is reported
 * in one line on stderr and the default is used.
 */
#ifndef CUDATRACE_CONFIG_H
#define CUDATRACE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contract/events.h"

struct config {
	bool api;                 /* CUDATRACE_API: api_entry/api_exit */
	uint32_t activity_kinds;  /* CUDATRACE_ACTIVITY: enum ct_activity_bit mask */
	size_t buffer_size;       /* CUDATRACE_BUFFER_SIZE: bytes per activity buffer */
	uint32_t flush_period_ms; /* CUDATRACE_FLUSH_PERIOD_MS: 0 = no periodic flush */
	uint16_t max_string;      /* CUDATRACE_MAX_STRING: bytes per string field */
	uint32_t nvml_period_ms;  /* CUDATRACE_NVML_PERIOD_MS: 0 = no periodic samples */
	uint32_t session_poll_ms; /* CUDATRACE_SESSION_POLL_MS: 0 = all stays on */
	int debug;                /* CUDATRACE_DEBUG: log level, 0..3 */
};

/* The settings; valid after config_load(). */
extern struct config config;

/* Read the environment; idempotent only in that it reads it again. */
void config_load(void);

#endif /* CUDATRACE_CONFIG_H */
