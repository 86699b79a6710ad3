/* SPDX-License-Identifier: MIT */
/*
 * first-page.h - the diagnosis as a person reads it first: what was
 * traced, what it lost, then the findings (findings.h) most severe first,
 * each with why, where and what to do, on one screen of at most
 * CT_FIRST_PAGE_LINES lines of at most CT_FIRST_PAGE_WIDTH columns.
 * Findings that do not fit are counted on its last line. The text report
 * starts with it; `cudatrace record` prints it after the program ends.
 */
#ifndef CUDATRACE_ANALYZERS_FIRST_PAGE_H
#define CUDATRACE_ANALYZERS_FIRST_PAGE_H

#include <stdint.h>
#include <stdio.h>

#include "common/document.h"
#include "common/text-wrap.h"

#define CT_FIRST_PAGE_LINES 24
#define CT_FIRST_PAGE_WIDTH CT_TEXT_WIDTH

/*
 * Writes the first page of the report ROOT (its "trace" and "findings"
 * sections) to OUT. Strings from the trace are escaped for a terminal
 * (ct_format_text). Returns the number of lines written.
 */
size_t ct_first_page_write(const struct ct_node *root, FILE *out);

/*
 * The pieces of the page, for a report that lays them out otherwise (the
 * HTML one), made safe for a terminal as the page is; each string is the
 * caller's to g_free. What was traced: the first process and how many
 * others, how long, the events read and analysed.
 */
char *ct_first_page_traced(const struct ct_node *trace);

/* A loss: LABEL ("Lost", "Cut") and its sentence. */
typedef void (*ct_first_page_loss_fn)(const char *label, const char *text, void *data);

/* What TRACE lost or missed, each handed to PUT with DATA. */
void ct_first_page_losses(const struct ct_node *trace, ct_first_page_loss_fn put, void *data);

/*
 * The memory figures of ROOT that are bounds rather than counts, each
 * handed to PUT with DATA: a peak where threads' calls overlapped
 * ("Peak"), releases that had not returned when a process ended ("Exit").
 */
void ct_first_page_bounds(const struct ct_node *root, ct_first_page_loss_fn put, void *data);

/* The page of ROOT when it has no finding: "Nothing found: ...". */
char *ct_first_page_nothing(const struct ct_node *root);

/* The word a finding of SEVERITY is labelled with: FAILED, WARNING, ADVICE. */
const char *ct_first_page_label(const char *severity);

/* A sentence of a finding (SENTENCE may be NULL: "?"), cut as the page cuts it. */
char *ct_first_page_sentence(const char *sentence);

/* Where FINDING happened: process, pid, device, thread, site, NVTX range, time. */
char *ct_first_page_where(const struct ct_node *finding, int64_t origin_ns);

/* How sure its figures are, with its caveat; NULL when they are exact. */
char *ct_first_page_caveat(const struct ct_node *finding);

#endif
