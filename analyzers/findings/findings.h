/* SPDX-License-Identifier: MIT */
/*
 * findings.h - the diagnosis: what happened, ranked by severity, written
 * into the report as its "findings" section (doc/report-schema.md) from
 * the sections already in the document. It is what the first page of the
 * text report, the HTML report and the summary `cudatrace record` prints
 * lead with.
 *
 * Each finding says what happened in words (summary, explanation), where
 * (process, device, thread, NVTX range, call site, time, as the trace
 * knows them), its numbers (with units), what to do (advice), and how
 * sure the figures are (certainty and caveat): a figure the trace gives
 * only as a lower bound or that lost events make uncertain is said so.
 *
 * A finding of a new kind is a new function in findings.c that reads its
 * analysis's result and adds to the list: the list, its ranking and its
 * writing are shared. Only what no analysis computes is read from the
 * document: the trace's losses, and the sections written beside the
 * trace (how the program ended, its last words).
 */
#ifndef CUDATRACE_ANALYZERS_FINDINGS_H
#define CUDATRACE_ANALYZERS_FINDINGS_H

#include <stddef.h>

#include "analyses/analysis.h"
#include "common/document.h"

/*
 * Draws the diagnosis from RESULTS (COUNT of them, the analyses' results
 * whose sections DOC holds: ct_reader_results; none for a document of
 * sections alone) and the finished sections of DOC (ct_doc_root must be
 * set), those written beside the analyses' too ("process_end", how the
 * program ended), and adds the "findings" section: once, last. Errors
 * are the document's (ct_doc_error).
 */
void ct_findings_write(struct ct_doc *doc, const struct ct_result *results, size_t count);

#endif
