/* SPDX-License-Identifier: MIT */
/*
 * death-section.h - the report's "process_end" section: how the traced
 * program ended and why, as record judged it and wrote it beside the
 * trace (cudatrace.info, death.h), with the facts the judgement rests on
 * and the host memory record saw (doc/report-schema.md).
 */
#ifndef CUDATRACE_CLI_DEATH_SECTION_H
#define CUDATRACE_CLI_DEATH_SECTION_H

#include "analyses/analysis.h"
#include "common/document.h"
#include "trace-info.h"

/*
 * Writes the section into DOC from the notes beside the first of PATHS
 * (PATH_COUNT of them) that has a judgement, and the analyses' RESULTS
 * (COUNT of them: ct_reader_results) whose sections DOC holds; writes
 * nothing when none has a judgement (a trace not made by record, or by
 * an older one).
 */
void death_section_write(struct ct_doc *doc, const struct ct_result *results, size_t count,
                         char *const *paths, size_t path_count);

/*
 * Writes the section into DOC from INFO, the notes as record holds them
 * before it writes them, and RESULTS as above; nothing when INFO has no
 * judgement.
 */
void death_section_write_info(struct ct_doc *doc, const struct ct_result *results, size_t count,
                              const struct trace_info *info);

#endif
