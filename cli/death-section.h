/* SPDX-License-Identifier: MIT */
/*
 * death-section.h - the report's "process_end" section: how the traced
 * program ended and why, as record judged it and wrote it beside the
 * trace (cudatrace.info, death.h), with the facts the judgement rests on
 * and the host memory record saw (doc/report-schema.md).
 */
#ifndef CUDATRACE_CLI_DEATH_SECTION_H
#define CUDATRACE_CLI_DEATH_SECTION_H

#include "../analyzers/document.h"

/*
 * Writes the section into DOC from the notes beside the first of PATHS
 * that has a judgement; writes nothing when none has (a trace not made
 * by record, or by an older one).
 */
void death_section_write(struct ct_doc *doc, char *const *paths, size_t count);

#endif
