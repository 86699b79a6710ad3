/* SPDX-License-Identifier: MIT */
/*
 * driver-config.c - the CUDASIM_* environment (README.md, "Environment"),
 * read once on first use and immutable afterwards. A value that does not
 * parse is reported with one line on stderr naming the variable, and the
 * default is used instead.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "driver-internal.h"

static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static struct sim_config config;

static void warn_junk(const char *name, const char *value)
{
	fprintf(stderr, "cudasim: ignoring %s='%s': not a valid value, using the default\n", name,
	        value);
}

/* Bytes per second: "25e9", "1.5e10", "700000000". */
static bool parse_bandwidth(const char *text, double *value)
{
	double number;
	char *end;

	errno = 0;
	number = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(number) || number <= 0)
		return false;
	*value = number;
	return true;
}

static void read_size(const char *name, uint64_t minimum, uint64_t *value)
{
	const char *text = getenv(name);
	uint64_t bytes;

	if (!text)
		return;
	if (sim_parse_size(text, &bytes) && bytes >= minimum)
		*value = bytes;
	else
		warn_junk(name, text);
}

static void read_u64(const char *name, uint64_t *value)
{
	const char *text = getenv(name);

	if (text && !sim_parse_u64(text, value))
		warn_junk(name, text);
}

static void read_bandwidth(const char *name, double *value)
{
	const char *text = getenv(name);

	if (text && !parse_bandwidth(text, value))
		warn_junk(name, text);
}

static void read_flag(const char *name, bool *value)
{
	const char *text = getenv(name);

	if (text && !sim_parse_flag(text, value))
		warn_junk(name, text);
}

/* 0 is accepted and means no device at all, as CUDASIM_NO_DEVICE=1. */
static void read_device_count(void)
{
	const char *text = getenv("CUDASIM_DEVICES");

	if (text && !sim_parse_device_count(text, &config.device_count))
		warn_junk("CUDASIM_DEVICES", text);
}

/* The whole list or nothing: a list with a bad entry, or one whose bytes
 * on a device add up past 2^64, is junk. */
static void read_other_processes(void)
{
	const char *text = getenv("CUDASIM_OTHER_PROCESSES");
	struct sim_other_process parsed[SIM_MAX_DEVICES];
	uint64_t memory[SIM_MAX_DEVICES] = { 0 };
	bool ok;
	int count;

	if (!text || !*text)
		return;
	ok = sim_parse_other_processes(text, config.device_count, parsed, &count);
	for (int i = 0; ok && i < count; i++) {
		ok = parsed[i].bytes <= UINT64_MAX - memory[parsed[i].device];
		if (ok)
			memory[parsed[i].device] += parsed[i].bytes;
	}
	if (!ok) {
		warn_junk("CUDASIM_OTHER_PROCESSES", text);
		return;
	}
	memcpy(config.other_process_memory, memory, sizeof(config.other_process_memory));
	memcpy(config.other_processes, parsed, (size_t)count * sizeof(parsed[0]));
	config.other_process_count = count;
}

static void read_driver_version(void)
{
	const char *text = getenv("CUDASIM_DRIVER_VERSION");

	if (text && !sim_parse_driver_version(text, &config.driver_version))
		warn_junk("CUDASIM_DRIVER_VERSION", text);
}

static void read_compute_capability(void)
{
	const char *text = getenv("CUDASIM_COMPUTE_CAPABILITY");

	if (text && !sim_parse_compute_capability(text, &config.cc_major, &config.cc_minor))
		warn_junk("CUDASIM_COMPUTE_CAPABILITY", text);
}

static void config_defaults(void)
{
	config.device_count = 1;
	config.device_memory = SIM_DEVICE_MEMORY_DEFAULT;
	config.context_memory = 300 * SIM_MIB;
	config.bw_htod_pinned = 25e9;
	config.bw_htod_pageable = 10e9;
	config.bw_dtoh_pinned = 26e9;
	config.bw_dtoh_pageable = 10e9;
	config.bw_dtod = 700e9;
	config.bw_peer = 20e9;
	config.bw_htoh = 10e9;
	config.bw_memset = 1e12;
	config.copy_latency_ns = 1500;
	config.kernel_ns = 5000;
	config.launch_latency_ns = 1400;
	config.driver_version = SIM_DRIVER_VERSION_DEFAULT;
	config.cc_major = SIM_CC_MAJOR_DEFAULT;
	config.cc_minor = SIM_CC_MINOR_DEFAULT;
}

static void config_read(void)
{
	config_defaults();
	read_device_count();
	read_size("CUDASIM_DEVICE_MEMORY", SIM_DEVICE_MEMORY_MIN, &config.device_memory);
	read_size("CUDASIM_CONTEXT_MEMORY", 0, &config.context_memory);
	read_other_processes();
	read_bandwidth("CUDASIM_BW_HTOD_PINNED", &config.bw_htod_pinned);
	read_bandwidth("CUDASIM_BW_HTOD_PAGEABLE", &config.bw_htod_pageable);
	read_bandwidth("CUDASIM_BW_DTOH_PINNED", &config.bw_dtoh_pinned);
	read_bandwidth("CUDASIM_BW_DTOH_PAGEABLE", &config.bw_dtoh_pageable);
	read_bandwidth("CUDASIM_BW_DTOD", &config.bw_dtod);
	read_bandwidth("CUDASIM_BW_PEER", &config.bw_peer);
	read_bandwidth("CUDASIM_BW_HTOH", &config.bw_htoh);
	read_bandwidth("CUDASIM_BW_MEMSET", &config.bw_memset);
	read_u64("CUDASIM_COPY_LATENCY_NS", &config.copy_latency_ns);
	read_u64("CUDASIM_KERNEL_NS", &config.kernel_ns);
	read_u64("CUDASIM_LAUNCH_LATENCY_NS", &config.launch_latency_ns);
	read_u64("CUDASIM_KERNEL_FAULT", &config.kernel_fault);
	read_flag("CUDASIM_NESTED_DRIVER_CALLBACKS", &config.nested_driver_callbacks);
	read_flag("CUDASIM_NO_DEVICE", &config.no_device);
	read_flag("CUDASIM_REUSE_STREAM_HANDLES", &config.reuse_stream_handles);
	read_driver_version();
	read_compute_capability();
}

HIDDEN const struct sim_config *sim_config(void)
{
	pthread_once(&config_once, config_read);
	return &config;
}

HIDDEN int sim_device_sm(void)
{
	const struct sim_config *c = sim_config();

	return c->cc_major * 10 + c->cc_minor;
}
