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
 * section and adds to the list: the list, its ranking and its writing
 * are shared.
 */
#ifndef CUDATRACE_ANALYZERS_FINDINGS_H
#define CUDATRACE_ANALYZERS_FINDINGS_H

#include "common/document.h"

/*
 * Reads the finished sections of DOC (ct_doc_root must be set), those
 * written beside the analyses' too ("process_end", how the program
 * ended), and adds the "findings" section: once, last. Errors are the
 * document's (ct_doc_error).
 */
void ct_findings_write(struct ct_doc *doc);

#endif
