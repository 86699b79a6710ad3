/* SPDX-License-Identifier: MIT */
/*
 * table-format.h - how the report's values read for people, shared by the
 * writers for people (text, HTML): labels made from the schema's keys,
 * values with their units or, for a null, in words, the arrays shown as
 * tables, one unit per table column (given in its header), and what the
 * default detail leaves to --details.
 */
#ifndef CUDATRACE_ANALYZERS_TABLE_FORMAT_H
#define CUDATRACE_ANALYZERS_TABLE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/document.h"

/* Arrays of objects with at most this many scalar fields are tables. */
#define CT_TABLE_SHAPED_COLUMNS 9
/* The most columns a table has (the main columns of a wide list included). */
#define CT_TABLE_MAX_COLUMNS 12

/* What a column's numbers are shown in: "MiB", divided by 2^20. */
struct ct_column_unit {
	const char *name; /* NULL: each cell in its own unit, as ct_format_value shows it */
	double divisor;
	int decimals;
};

/* KEY made readable: its unit suffix dropped (the value says it), blanks for '_'. g_free it. */
char *ct_table_label(const char *key);
/* A container's title, or its key made readable. g_free it. */
char *ct_table_title(const struct ct_node *node);
/*
 * NODE, a scalar, as text for people, every character of it, escaped for a
 * terminal (ct_format_value); a null in words ("unknown", or "none" where
 * null means there is none), an empty string "none". g_free it.
 */
char *ct_table_value(const struct ct_node *node, int64_t origin_ns);

bool ct_table_is_scalar(const struct ct_node *node);
/* Whether every element of ARRAY is an object of at most CT_TABLE_SHAPED_COLUMNS
 * scalars, its lists for programs only (a call stack) aside. */
bool ct_table_shaped(const struct ct_node *array);
/* The unit column KEY of the first ROWS rows of ARRAY is shown in, one for all its cells. */
struct ct_column_unit ct_table_column(const struct ct_node *array, const char *key, size_t rows,
                                      int64_t origin_ns);
/* Cell V (NULL: absent) of a column in UNIT. g_free it. */
char *ct_table_cell(const struct ct_node *v, const struct ct_column_unit *unit, int64_t origin_ns);
/* Whether a value is right-aligned in a column: numbers are. */
bool ct_table_right_aligned(const struct ct_node *node);

/*
 * The columns of ARRAY as a table, into KEYS: the first element's keys
 * when ct_table_shaped; else, but for DETAILS, the main columns of a wide
 * list (the hotspots, the failures, ...: who, where, how much), whose
 * elements --details shows whole. Returns how many, 0 when ARRAY is not
 * shown as a table.
 */
size_t ct_table_columns(const struct ct_node *array, bool details,
                        const char *keys[CT_TABLE_MAX_COLUMNS]);
/*
 * Which row of a table ROW is, for what is shown below the table: "row 2
 * (pid 42, process python3, device 0)", its first three columns KEYS (of
 * NCOLS). g_free it.
 */
char *ct_table_row_name(const struct ct_node *row, size_t index, const char *const *keys,
                        size_t ncols, int64_t origin_ns);
/* Whether column KEY of ARRAY is right-aligned: its first element's value is a number. */
bool ct_table_column_right(const struct ct_node *array, const char *key);
/*
 * Whether the cells of column KEY are names that stay told apart when cut
 * in the middle to fit the page (a kernel's or function's name, a path,
 * a list of architectures), unlike a sentence or a Python line.
 */
bool ct_table_column_cuttable(const char *key);

/*
 * Whether NODE, a list or section, is shown to people: not a list for
 * programs only (ct_doc_detail_array: a call stack), and, but for
 * DETAILS, not one left to --details.
 */
bool ct_table_shown(const struct ct_node *node, bool details);

/* trace.start_ns of the report ROOT, what times are shown from; INT64_MIN if absent. */
int64_t ct_table_origin(const struct ct_node *root);

#endif
