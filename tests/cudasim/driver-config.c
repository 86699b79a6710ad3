/* SPDX-License-Identifier: MIT */
/*
 * driver-config.c - the CUDASIM_* environment (README.md, "Environment"),
 * read once on first use and immutable afterwards. A value that does not
 * parse is reported with one line on stderr naming the variable, and the
 * default is used instead.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "driver-internal.h"

#define MAX_DEVICES 64
#define MIB         (1024ull * 1024ull)
#define GIB         (1024ull * MIB)

static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static struct sim_config config;

static void warn_junk(const char *name, const char *value)
{
	fprintf(stderr, "cudasim: ignoring %s='%s': not a valid value, using the default\n", name,
	        value);
}

/* Multiplier of a size suffix (K, M, G, T, optionally followed by B or iB),
 * 0 for anything else. */
static uint64_t size_suffix(const char *suffix)
{
	static const char units[] = "KMGT";
	const char *unit;
	uint64_t scale = 1024;

	if (!*suffix)
		return 1;
	unit = strchr(units, toupper((unsigned char)suffix[0]));
	if (!unit)
		return 0;
	for (const char *u = units; u < unit; u++)
		scale *= 1024;
	suffix++;
	if (!strcasecmp(suffix, "") || !strcasecmp(suffix, "B") || !strcasecmp(suffix, "iB"))
		return scale;
	return 0;
}

HIDDEN bool sim_parse_size(const char *text, uint64_t *bytes)
{
	unsigned long long number;
	uint64_t scale;
	char *end;

	if (!text || !isdigit((unsigned char)text[0]))
		return false;
	errno = 0;
	number = strtoull(text, &end, 10);
	if (errno)
		return false;
	scale = size_suffix(end);
	if (!scale || number > UINT64_MAX / scale)
		return false;
	*bytes = number * scale;
	return true;
}

static bool parse_u64(const char *text, uint64_t *value)
{
	unsigned long long number;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return false;
	errno = 0;
	number = strtoull(text, &end, 10);
	if (errno || *end)
		return false;
	*value = number;
	return true;
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

static bool parse_flag(const char *text, bool *value)
{
	if (!strcmp(text, "0") || !strcmp(text, "1")) {
		*value = text[0] == '1';
		return true;
	}
	return false;
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

	if (text && !parse_u64(text, value))
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

	if (text && !parse_flag(text, value))
		warn_junk(name, text);
}

/* 0 is accepted and means no device at all, as CUDASIM_NO_DEVICE=1. */
static void read_device_count(void)
{
	const char *text = getenv("CUDASIM_DEVICES");
	uint64_t count;

	if (!text)
		return;
	if (parse_u64(text, &count) && count <= MAX_DEVICES)
		config.device_count = (int)count;
	else
		warn_junk("CUDASIM_DEVICES", text);
}

/* One "DEV:PID:BYTES" entry; DEV must name a simulated device. */
static bool parse_other_process(const char *entry, struct sim_other_process *out)
{
	unsigned long device, pid;
	char *end;

	if (!isdigit((unsigned char)entry[0]))
		return false;
	errno = 0;
	device = strtoul(entry, &end, 10);
	if (errno || *end != ':' || device >= (unsigned long)config.device_count)
		return false;
	entry = end + 1;
	if (!isdigit((unsigned char)entry[0]))
		return false;
	pid = strtoul(entry, &end, 10);
	if (errno || *end != ':' || pid == 0 || pid > UINT_MAX)
		return false;
	out->device = (int)device;
	out->pid = (unsigned int)pid;
	return sim_parse_size(end + 1, &out->bytes);
}

/* The whole list or nothing: a list with a bad entry is junk. */
static bool parse_other_processes(const char *text, struct sim_config *out)
{
	char *copy = strdup(text);
	char *saveptr = NULL;
	bool ok = copy != NULL;

	out->other_process_count = 0;
	for (char *entry = ok ? strtok_r(copy, ",", &saveptr) : NULL; entry && ok;
	     entry = strtok_r(NULL, ",", &saveptr)) {
		struct sim_other_process *process;

		if (out->other_process_count >= MAX_DEVICES) {
			ok = false;
			break;
		}
		process = &out->other_processes[out->other_process_count];
		ok = parse_other_process(entry, process);
		if (ok && process->bytes > UINT64_MAX - out->other_process_memory[process->device])
			ok = false;
		if (ok) {
			out->other_process_memory[process->device] += process->bytes;
			out->other_process_count++;
		}
	}
	free(copy);
	return ok;
}

static void read_other_processes(void)
{
	const char *text = getenv("CUDASIM_OTHER_PROCESSES");
	struct sim_config parsed = { 0 };

	if (!text || !*text)
		return;
	if (!parse_other_processes(text, &parsed)) {
		warn_junk("CUDASIM_OTHER_PROCESSES", text);
		return;
	}
	memcpy(config.other_process_memory, parsed.other_process_memory,
	       sizeof(config.other_process_memory));
	memcpy(config.other_processes, parsed.other_processes, sizeof(config.other_processes));
	config.other_process_count = parsed.other_process_count;
}

static void config_defaults(void)
{
	config.device_count = 1;
	config.device_memory = 4 * GIB;
	config.context_memory = 300 * MIB;
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
}

static void config_read(void)
{
	config_defaults();
	read_device_count();
	/* A device smaller than one 2 MiB allocation granule cannot work. */
	read_size("CUDASIM_DEVICE_MEMORY", 2 * MIB, &config.device_memory);
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
	read_flag("CUDASIM_NESTED_DRIVER_CALLBACKS", &config.nested_driver_callbacks);
	read_flag("CUDASIM_NO_DEVICE", &config.no_device);
}

HIDDEN const struct sim_config *sim_config(void)
{
	pthread_once(&config_once, config_read);
	return &config;
}
