/* SPDX-License-Identifier: MIT */
/*
 * live.h - lttng-live: a session read while it is recorded (`cudatrace
 * report --live`, after `cudatrace record --live`), from a relay daemon
 * through src.ctf.lttng-live rather than from trace directories through
 * src.ctf.fs. A live source ends when its session is gone, and answers
 * "again" while no new data has come, which the pass waits out.
 */
#ifndef CUDATRACE_ANALYZERS_LIVE_H
#define CUDATRACE_ANALYZERS_LIVE_H

#include <stdbool.h>

#include <babeltrace2/babeltrace.h>

/* A relay daemon's URL (net://HOST[:PORT]/host/HOSTNAME/SESSION), not a path. */
bool ct_live_is_url(const char *path);

/* The ctf plugin's source component class that reads PATH: "lttng-live" or "fs". */
const char *ct_live_source_class(const char *path);

/*
 * Adds to PARAMS, the parameters of PATH's source, what a live source
 * needs: to end when the session is gone instead of waiting for it to
 * come back. Nothing for a trace directory. Returns 0, or -1 when out of
 * memory.
 */
int ct_live_source_params(const char *path, bt_value *params);

/* Waits a little before the graph runs again: a live source has no new data yet. */
void ct_live_wait(void);

#endif
