/* SPDX-License-Identifier: MIT */
/*
 * trace-desc.h - what a trace says of itself, as plain data: its name,
 * the clock its events are on and its environment, read from
 * babeltrace2's objects where they live (a decoding thread,
 * decode-thread.h) for use on another thread, where no babeltrace2
 * object of that graph may be touched. A trace written from it (the
 * GPU-time trace, gpu-time-schema.h) keeps them.
 */
#ifndef CUDATRACE_ANALYZERS_TRACE_DESC_H
#define CUDATRACE_ANALYZERS_TRACE_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

/* One entry of a trace's environment: CTF 1.8 has strings and integers. */
struct ct_trace_env_entry {
	char *name;   /* owned */
	char *string; /* owned; NULL: the entry is the integer */
	int64_t integer;
};

/* A clock class's properties. */
struct ct_clock_desc {
	char *name;         /* owned; NULL: none */
	char *description;  /* owned; NULL: none */
	uint64_t frequency; /* Hz; 0: the events have no clock */
	uint64_t precision;
	int64_t offset_seconds;
	uint64_t offset_cycles;
	bool origin_is_unix_epoch;
	bool has_uuid;
	uint8_t uuid[16];
};

struct ct_trace_desc {
	char *name; /* owned; NULL: none */
	struct ct_clock_desc clock;
	struct ct_trace_env_entry *env; /* owned, ENV_COUNT of them, in the trace's order */
	size_t env_count;
	/*
	 * Its metadata declares cudatrace:api_call. LTTng declares the events
	 * a session enabled (and a probe registered), whether or not one was
	 * written: where this is false, calls' returns were not recorded.
	 */
	bool declares_api_call;
};

/*
 * The description of TRACE, whose events are on CLOCK (NULL: none), read
 * now: it holds no reference to either.
 */
struct ct_trace_desc *ct_trace_desc_create(const bt_trace *trace, const bt_clock_class *clock);
/* A copy of DESC, for a thread that needs it longer than DESC lives. */
struct ct_trace_desc *ct_trace_desc_copy(const struct ct_trace_desc *desc);
/* NULL is fine. */
void ct_trace_desc_destroy(struct ct_trace_desc *desc);

#endif
