/* SPDX-License-Identifier: MIT */
/*
 * trace-repair.h - a readable copy of a CTF trace whose stream files end in
 * a partial packet (a trace copied while being written, a consumer killed,
 * a full disk). babeltrace2 2.0 refuses such a stream file as a whole; the
 * copy keeps every complete packet and turns the partial last one into a
 * packet of the bytes that are there, so the reader gets every event up to
 * the cut and stops with a decoding error there, which it reports as a
 * truncated trace.
 *
 * The original is never modified: unchanged files are symbolic links to
 * it, repaired ones copies.
 */
#ifndef CUDATRACE_ANALYZERS_TRACE_REPAIR_H
#define CUDATRACE_ANALYZERS_TRACE_REPAIR_H

#include <stddef.h>

/*
 * Makes a repaired copy of trace directory DIR under a new temporary
 * directory, whose path goes to OUT (LEN bytes). Returns the number of
 * stream files repaired (> 0), 0 when none needed it (nothing is left
 * behind), or -1 with a reason in WHY.
 */
int ct_trace_repair(const char *dir, char *out, size_t len, char *why, size_t why_len);

/* Removes a copy made by ct_trace_repair() (its files, then the directory). */
void ct_trace_repair_remove(const char *copy);

#endif
