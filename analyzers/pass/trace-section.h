/* SPDX-License-Identifier: MIT */
/*
 * trace-section.h - the "trace" section of the report: what was read
 * (the trace directories, the version that wrote the report and the
 * schema it follows), when the events start and end, how many were read,
 * analysed and lost (LTTng's discarded events and from when, CUPTI's
 * dropped records),
 * whether the trace is complete, and its processes and devices.
 */
#ifndef CUDATRACE_ANALYZERS_TRACE_SECTION_H
#define CUDATRACE_ANALYZERS_TRACE_SECTION_H

#include <stddef.h>

#include "model/context.h"
#include "common/document.h"
#include "reader-stats.h"

/* The version of the report's JSON schema (doc/report-schema.md), in trace.schema_version. */
#define CT_REPORT_SCHEMA_VERSION 1

/* Writes the section from the pass's STATS, the COUNT trace PATHS read and the context. */
void ct_trace_section_write(struct ct_doc *doc, const struct ct_reader_stats *stats,
                            const char *const *paths, size_t count, const struct ct_context *ctx);

#endif
