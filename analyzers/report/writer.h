/* SPDX-License-Identifier: MIT */
/*
 * writer.h - the report writers: each renders a finished report document
 * (document.h) to a stream, in one format.
 *
 *   json  the document as it is (the schema of doc/report-schema.md),
 *         numbers raw: bytes, ns on the trace clock;
 *   csv   one table per array of objects, separated by a "# path" line
 *         and a blank line; nested objects become dotted columns, nested
 *         arrays tables of their own that repeat their parents' ids;
 *   text  for people: the first page (first-page.h), then sections,
 *         aligned tables with units in their headers, sizes and times in
 *         units, long lists cut at max_rows; how much per detail;
 *   html  one self-contained page to share: the first page, the plots
 *         inline as SVG, the sections as the text report shows them.
 */
#ifndef CUDATRACE_ANALYZERS_WRITER_H
#define CUDATRACE_ANALYZERS_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/document.h"
#include "common/format.h"

/* How much of the report the text writer shows. */
enum ct_text_detail {
	CT_TEXT_MAIN = 0, /* the first page, then the main tables */
	CT_TEXT_BRIEF,    /* the first page alone */
	CT_TEXT_DETAILS,  /* the first page, then every section and list */
};

struct ct_writer_options {
	size_t max_rows;            /* text: rows shown per list; 0: all */
	enum ct_text_detail detail; /* text and html */
};

struct ct_writer_class {
	const char *name; /* "text", "csv", "json", "html" */
	/* Returns 0, or -1 (after an error message to the log) when OUT cannot be written. */
	int (*write)(const struct ct_node *root, const struct ct_writer_options *opts, FILE *out);
};

extern const struct ct_writer_class ct_json_writer;
extern const struct ct_writer_class ct_csv_writer;
extern const struct ct_writer_class ct_text_writer;
extern const struct ct_writer_class ct_html_writer;

/*
 * The end of a write: 0, or -1 after an error message to the log that the report
 * cannot be written, when FAILED (an errno the writer kept) is set or OUT
 * has an error.
 */
int ct_writer_done(FILE *out, int failed);

/*
 * A value as text for people, per its unit ("1.50 MiB", "2.31 ms",
 * "37.5 %"); times are shown relative to ORIGIN_NS as seconds when
 * ORIGIN_NS is not INT64_MIN; strings as ct_format_text() (common/format.h)
 * makes them safe for a terminal. Returns BUF.
 */
char *ct_format_value(const struct ct_node *node, int64_t origin_ns, char *buf, size_t len);
/* A value as CSV and JSON carry it: raw numbers, strings as they are, "" for null. Returns BUF. */
char *ct_format_raw(const struct ct_node *node, char *buf, size_t len);

#endif
