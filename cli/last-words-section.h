/* SPDX-License-Identifier: MIT */
/*
 * last-words-section.h - what the traced program said last on its
 * standard error, as record kept it beside the trace (stderr.log,
 * common/stderr-log.h): the report's "last_words" section, with the last
 * lines, the uncaught exception and a framework's out-of-memory figures
 * (common/last-words.h; doc/report-schema.md), and the facts of them
 * that record's judgement of the end rests on (cudatrace.info).
 */
#ifndef CUDATRACE_CLI_LAST_WORDS_SECTION_H
#define CUDATRACE_CLI_LAST_WORDS_SECTION_H

#include <stdbool.h>

#include "analyses/analysis.h"
#include "common/document.h"
#include "trace-info.h"

/*
 * Writes the section into DOC from the first of PATHS (PATH_COUNT) that
 * has a stderr.log, with the analyses' RESULTS (COUNT of them:
 * ct_reader_results) whose sections DOC holds; nothing when none has.
 * The path of the first stderr.log that could not be read (damaged,
 * unreadable) into *BAD (g_free; NULL when none), when BAD is not NULL.
 */
void last_words_section_write(struct ct_doc *doc, const struct ct_result *results, size_t count,
                              char *const *paths, size_t path_count, char **bad);

/* INFO's exception and framework_oom facts, from DIR's stderr.log. */
void last_words_note(struct trace_info *info, const char *dir);

#endif
