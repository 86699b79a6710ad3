/* SPDX-License-Identifier: MIT */
/*
 * record-options.h - the command line of `cudatrace record`.
 */
#ifndef CUDATRACE_CLI_RECORD_OPTIONS_H
#define CUDATRACE_CLI_RECORD_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

/* Defaults: sized for GPU workloads (bursts of thousands of calls a second). */
#define RECORD_SUBBUF_SIZE        (1u << 20)
#define RECORD_NUM_SUBBUF         8u
#define RECORD_FLIGHT_SIZE        (64u << 20)
#define RECORD_LIVE_PERIOD_MS     1000u
#define RECORD_DEFAULT_RELAYD_URL "net://127.0.0.1"
#define RECORD_SUBBUF_SIZE_MAX    (1u << 30)
/* --blocking: the longest an event waits for room, by default and at most. */
#define RECORD_BLOCKING_MS     1000u
#define RECORD_BLOCKING_MAX_MS 60000u
#define RECORD_NUM_SUBBUF_MAX  4096u
/* The longest --name: cudatrace-NAME-on-alloc-failure fits LTTng's names. */
#define RECORD_NAME_MAX 128
/*
 * Bytes of a path left for what LTTng and cudatrace write under a trace
 * directory (snapshot-N-DATE-TIME-N/ust/uid/UID/64-bit/index/cudatrace_N.idx).
 */
#define RECORD_OUTPUT_RESERVE 128

struct record_options {
	/* Where the trace goes. Strings are borrowed from argv. */
	const char *output;    /* -o: this directory exactly */
	const char *trace_dir; /* --trace-dir: a new dated directory in it */
	const char *name;      /* --name: the session name (prefixed) */
	const char *relayd;    /* --relayd URL */
	bool live;
	unsigned live_period_ms;
	bool flight_recorder;
	uint64_t flight_size; /* bytes kept in memory, all CPUs together */
	/* What the tracer records (its CUDATRACE_* variables). */
	bool no_api;
	bool no_nvtx;
	bool no_python_probe; /* no sitecustomize probe on PYTHONPATH */
	bool tensor_sites;    /* the probe keeps PyTorch's allocation history */
	const char *activity; /* CUDATRACE_ACTIVITY, NULL: the tracer's default */
	const char *nvml_period_ms;
	const char *flush_period_ms;
	const char *activity_buffer;
	/* Buffers. */
	uint64_t subbuf_size;
	uint64_t num_subbuf;
	bool blocking;
	unsigned blocking_ms; /* with blocking: the longest an event waits for room */
	/* Other. */
	const char *library;
	unsigned sessiond_timeout_s;
	bool quiet;
	bool no_report;
	bool all_processes; /* record every process of the user, not the program's tree */
	bool no_stderr;     /* the program's stderr is neither relayed nor kept */
	/* The command: argv[command_index..argc-1]. */
	int command_index;
};

enum record_parse_result {
	RECORD_PARSE_OK,
	RECORD_PARSE_HELP,  /* --help was printed: exit 0 */
	RECORD_PARSE_USAGE, /* a usage error was printed: exit 2 */
};

/* ARGV[0] is "record". Fills OPTS. */
enum record_parse_result record_options_parse(int argc, char **argv, struct record_options *opts);

#endif
