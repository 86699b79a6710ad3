/* SPDX-License-Identifier: MIT */
/*
 * api.h - the API analysis's result (api.c): the waits the trace saw
 * entered and never returned from, for the diagnosis. The per-API table
 * is its section's alone.
 */
#ifndef CUDATRACE_ANALYZERS_API_H
#define CUDATRACE_ANALYZERS_API_H

#include <stdint.h>

#include <glib.h>

/*
 * A wait (a call of the sync family, with an api_entry) a thread entered
 * and never returned from in the trace: its process died, was stopped or
 * hung inside it, or the trace ended first. The outermost of each thread.
 */
struct ct_api_open_wait {
	int64_t pid;
	const char *process;
	int64_t tid;
	const char *api;    /* its name */
	const char *site;   /* where it was called (ct_call_site_format); NULL: unknown */
	int64_t entry_ns;   /* when it was entered */
	int64_t open_ns;    /* from then to its process's last event */
	int64_t process_ns; /* its process's traced time, first to last event */
};

struct ct_api_result {
	GArray *open_waits; /* struct ct_api_open_wait, the longest open first */
};

#endif
