/* SPDX-License-Identifier: MIT */
/*
 * trace-repair.h - a readable copy of a damaged trace directory, as
 * trace-check.h found it: the metadata's complete declarations, each
 * stream file cut before its damage, a partial last packet (a trace
 * copied while it was written, a consumer killed, a full disk) made a
 * packet of the bytes that are there, so that babeltrace2 reads every
 * event up to the cut and stops with a decoding error there; the index
 * files left out when they do not match.
 *
 * The original is never modified: the copy is a view of it
 * (trace-view.h), whose unchanged files are symbolic links to it,
 * repaired ones copies; ct_trace_view_remove() removes it.
 */
#ifndef CUDATRACE_ANALYZERS_TRACE_REPAIR_H
#define CUDATRACE_ANALYZERS_TRACE_REPAIR_H

#include <stddef.h>

#include "trace-check.h"

/*
 * Makes the copy CHECK describes of trace directory DIR under a new
 * temporary directory (ct_trace_view_create), whose path goes to OUT (LEN bytes). Returns 0, or
 * -1 with a reason in WHY (nothing is left behind).
 */
int ct_trace_repair(const char *dir, const struct ct_trace_check *check, char *out, size_t len,
                    char *why, size_t why_len);

#endif
