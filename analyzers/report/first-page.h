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

#endif
