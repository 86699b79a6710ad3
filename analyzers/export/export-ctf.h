/* SPDX-License-Identifier: MIT */
/*
 * export-ctf.h - the GPU-time trace of cudatrace traces, written as CTF
 * (`cudatrace export --format ctf`): one pass of the reader (reader.h:
 * the traces' stream files decoded in parallel, merged in time order)
 * with the GPU-time exporter attached (gpu-time-export.h), which writes
 * one CTF 1.8 trace into a directory as the pass goes.
 * See gpu-time-schema.h for what it holds.
 */
#ifndef CUDATRACE_ANALYZERS_EXPORT_CTF_H
#define CUDATRACE_ANALYZERS_EXPORT_CTF_H

#include <stddef.h>

#include "exporter.h"
#include "gpu-time-export.h"

/*
 * Writes the GPU-time trace of the traces under the COUNT PATHS (as
 * `cudatrace report` finds them) into directory OUTPUT, which must not
 * exist or be empty; STATS says what it holds and left out. On an error
 * the reason is in ERROR (LEN bytes), and no directory of the export's
 * own is left. A trace cut short is exported up to its last event: OK,
 * with STATS' truncated set and what was cut in ERROR.
 */
enum ct_export_status ct_export_ctf(const char *const *paths, size_t count, const char *output,
                                    struct ct_gpu_time_stats *stats, char *error, size_t len);

#endif
