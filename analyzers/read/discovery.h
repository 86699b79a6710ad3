/* SPDX-License-Identifier: MIT */
/*
 * discovery.h - the traces under the paths a user names. A directory with
 * a CTF "metadata" file is a trace; any other directory is searched below
 * (an LTTng session's output holds one trace per domain and ABI, a
 * `cudatrace record` directory one per session), a few levels deep. A
 * relay daemon's URL (live.h) is a source of its own, taken as it is.
 */
#ifndef CUDATRACE_ANALYZERS_DISCOVERY_H
#define CUDATRACE_ANALYZERS_DISCOVERY_H

#include <stddef.h>

#include <glib.h>

/*
 * Directory levels searched below a path, at most: deep enough for LTTng's
 * ust/uid/N/64-bit under a session of a record's output.
 */
#define CT_DISCOVERY_MAX_DEPTH 12

enum ct_discovery_status {
	CT_DISCOVERY_OK = 0,
	CT_DISCOVERY_INPUT_ERROR, /* a path that does not exist, is not a directory, holds no trace */
};

/*
 * Appends to TRACES (strings it owns, freed with g_free) the traces found
 * under each of the COUNT PATHS, in the order of the paths and by name
 * under each. A trace found twice (the same path given twice, a directory
 * and one below it, a link to it) is kept once, where it came first, with
 * a warning. On CT_DISCOVERY_INPUT_ERROR the reason is in ERROR (LEN
 * bytes): a path too long, missing, not a directory, or with no trace in
 * it within CT_DISCOVERY_MAX_DEPTH levels.
 */
enum ct_discovery_status ct_discover_traces(const char *const *paths, size_t count,
                                            GPtrArray *traces, char *error, size_t len);

#endif
