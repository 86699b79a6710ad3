/* SPDX-License-Identifier: MIT */
/*
 * text-writer.c - the report for people: the first page (first-page.h),
 * then one titled block per section, "label: value" lines with sizes and
 * durations in units and times relative to the start of the trace,
 * arrays of a few scalar columns as aligned tables whose headers carry
 * the column's unit, other arrays as lists of blocks; long arrays cut at
 * max_rows. The default detail leaves out the long lists (what was live
 * at the peak and at the end, memory over time, fragmentation, the
 * environment) that --details shows.
 *
 * Labels are the schema's keys made readable: "gpu_time_ns" is "gpu
 * time" and its unit is in the value or the column header, never a unit
 * the value is not in. A value the trace cannot give is said in words.
 *
 * Strings go through ct_format_text() (ct_format_value does it): what the
 * traced program named can never reach the terminal as a control
 * character. Cells are never cut. Columns are aligned by characters, not
 * bytes.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "contract/assert.h"
#include "first-page.h"
#include "table-format.h"
#include "common/text-wrap.h"
#include "writer.h"

struct text {
	FILE *out;
	size_t max_rows;
	enum ct_text_detail detail;
	int64_t origin_ns; /* trace.start_ns, INT64_MIN if absent */
};

static bool shown_at(const struct text *t, const struct ct_node *n)
{
	return ct_table_shown(n, t->detail == CT_TEXT_DETAILS);
}

static void write_container(struct text *t, const struct ct_node *node, int indent);

/* Characters of TEXT (valid UTF-8), as a terminal shows them. */
static size_t text_width(const char *text)
{
	return ct_text_width(text);
}

/* The fewest characters a line gets when a long value is wrapped under its label. */
#define MIN_VALUE_WIDTH 40

/* The widest label among the scalar children, for alignment. */
static size_t key_width(const struct ct_node *object)
{
	size_t width = 0;

	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);
		char *l;

		if (!ct_table_is_scalar(c) || !c->key)
			continue;
		l = ct_table_label(c->key);
		width = text_width(l) > width ? text_width(l) : width;
		g_free(l);
	}
	return width;
}

/*
 * "LABEL: VALUE", the label padded to WIDTH; a value too long for the line
 * continues under itself, cut at blanks only (a path stays whole).
 */
static void write_value(struct text *t, const char *label, const char *value, int indent,
                        size_t width)
{
	size_t at = (size_t)indent + width + 2;
	size_t room = at + MIN_VALUE_WIDTH < CT_TEXT_WIDTH ? CT_TEXT_WIDTH - at : MIN_VALUE_WIDTH;
	char **lines = ct_text_wrap(value, room, room, false);

	fprintf(t->out, "%*s%s:%*s %s\n", indent, "", label, (int)(width - text_width(label)), "",
	        lines[0]);
	for (size_t i = 1; lines[i]; i++)
		fprintf(t->out, "%*s%s\n", (int)at, "", lines[i]);
	g_strfreev(lines);
}

static void write_scalars(struct text *t, const struct ct_node *object, int indent)
{
	size_t width = key_width(object);

	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);
		char *l, *v;

		if (!ct_table_is_scalar(c))
			continue;
		l = ct_table_label(c->key);
		v = ct_table_value(c, t->origin_ns);
		write_value(t, l, v, indent, width);
		g_free(l);
		g_free(v);
	}
}

static size_t shown_rows(const struct text *t, const struct ct_node *array)
{
	size_t count = ct_node_count(array);

	return t->max_rows && count > t->max_rows ? t->max_rows : count;
}

static void write_more(struct text *t, const struct ct_node *array, size_t shown, int indent)
{
	if (shown < ct_node_count(array))
		fprintf(t->out, "%*s... %zu more (--max-rows, or --format csv/json for all)\n",
		        indent, "", ct_node_count(array) - shown);
}

/* TEXT in a column of WIDTH characters, padded on the left when RIGHT, then AFTER. */
static void put_cell(FILE *out, const char *text, size_t width, int right, const char *after)
{
	size_t w = text_width(text);
	size_t pad = width > w ? width - w : 0;

	fprintf(out, "%*s%s%*s%s", right ? (int)pad : 0, "", text, right ? 0 : (int)pad, "", after);
}

/* The widest word of TEXT. */
static size_t widest_word(const char *text)
{
	char **words = ct_text_wrap(text, 1, 1, false);
	size_t widest = 0;

	for (size_t i = 0; words[i]; i++)
		widest = MAX(widest, text_width(words[i]));
	g_strfreev(words);
	return widest;
}

/* The characters a table of NCOLS columns of WIDTH takes, with INDENT and the gaps. */
static size_t table_width(const size_t *width, size_t ncols, int indent)
{
	size_t total = (size_t)indent + 2 * (ncols - 1);

	for (size_t col = 0; col < ncols; col++)
		total += width[col];
	return total;
}

/*
 * A table wider than the page has headers on more lines: the header that
 * is the widest beyond its cells first, cut at blanks to what the table
 * must lose (at most down to its cells' width, or its widest word's),
 * until the table fits or no header is wider than its column's cells. HEADER_LINES[col] gets the
 * header's lines; WIDTH[col], the column's width, is narrowed to them.
 */
static void fit_headers(char *const *header, const size_t *cell_width, size_t *width, size_t ncols,
                        int indent, char ***header_lines)
{
	for (size_t col = 0; col < ncols; col++)
		header_lines[col] = g_strdupv((char *[]){ header[col], NULL });
	while (table_width(width, ncols, indent) > CT_TEXT_WIDTH) {
		size_t excess = table_width(width, ncols, indent) - CT_TEXT_WIDTH;
		size_t best = ncols, best_gain = 0, narrow = 0;

		for (size_t col = 0; col < ncols; col++) {
			size_t least = MAX(cell_width[col], widest_word(header[col]));

			if (width[col] > least && width[col] - least > best_gain) {
				best = col;
				best_gain = width[col] - least;
				narrow = MAX(least, width[col] - MIN(excess, width[col]));
			}
		}
		if (best == ncols)
			return;
		g_strfreev(header_lines[best]);
		header_lines[best] = ct_text_wrap(header[best], narrow, narrow, false);
		width[best] = cell_width[best];
		for (size_t i = 0; header_lines[best][i]; i++)
			width[best] = MAX(width[best], text_width(header_lines[best][i]));
	}
}

/* How many characters A and B begin with alike. */
static size_t common_start(const char *a, const char *b)
{
	size_t n = 0;

	while (*a && g_utf8_get_char(a) == g_utf8_get_char(b)) {
		a = g_utf8_next_char(a);
		b = g_utf8_next_char(b);
		n++;
	}
	return n;
}

/*
 * Column COL of the SHOWN rows of CELLS cut to WIDTH in the middle; a
 * name whose cut reads like another's (two kernels of one template differ
 * inside) is cut around where it differs from the nearest of them instead,
 * so that distinct names never look the same.
 */
static void cut_column(char **cells, size_t shown, size_t ncols, size_t col, size_t width)
{
	char **cut = g_new(char *, shown);
	size_t *differs = g_new(size_t, shown); /* where, against the nearest alike; 0: none */

	for (size_t row = 0; row < shown; row++)
		cut[row] = ct_text_cut_middle(cells[row * ncols + col], width);
	for (size_t row = 0; row < shown; row++) {
		const char *whole = cells[row * ncols + col];

		differs[row] = 0;
		for (size_t other = 0; other < shown; other++) {
			const char *other_whole = cells[other * ncols + col];

			if (other != row && strcmp(cut[row], cut[other]) == 0 &&
			    strcmp(whole, other_whole) != 0)
				differs[row] = MAX(differs[row], common_start(whole, other_whole));
		}
	}
	for (size_t row = 0; row < shown; row++) {
		char **cell = &cells[row * ncols + col];

		if (differs[row]) {
			g_free(cut[row]);
			cut[row] = ct_text_cut_showing(*cell, width, differs[row]);
		}
		g_free(*cell);
		*cell = cut[row];
	}
	g_free(differs);
	g_free(cut);
}

/* The fewest characters a column cut to the page keeps: names still told apart. */
#define CUT_COLUMN_MIN 40

/*
 * A table still wider than the page once its headers fit (a kernel's
 * templated name, a long path): its widest column of names
 * (ct_table_column_cuttable, KEYS) narrowed by what the page lacks, to
 * CUT_COLUMN_MIN at least, its longer cells cut in the middle
 * (ct_text_cut_middle) and its header wrapped again; then the next, until
 * the table fits. Nothing is cut when that cannot make it fit (its other
 * columns too wide): the names are worth more whole then. CELLS are SHOWN
 * rows of NCOLS; the JSON and CSV reports keep them whole.
 */
static void fit_cells(char **cells, size_t shown, const char *const *keys, size_t ncols,
                      size_t *width, char *const *header, char ***header_lines, int indent)
{
	size_t least[CT_TABLE_MAX_COLUMNS];

	for (size_t c = 0; c < ncols; c++)
		least[c] =
		    ct_table_column_cuttable(keys[c]) ? MIN(width[c], CUT_COLUMN_MIN) : width[c];
	if (table_width(least, ncols, indent) > CT_TEXT_WIDTH)
		return;
	while (table_width(width, ncols, indent) > CT_TEXT_WIDTH) {
		size_t col = ncols, excess = table_width(width, ncols, indent) - CT_TEXT_WIDTH;

		for (size_t c = 0; c < ncols; c++)
			if (ct_table_column_cuttable(keys[c]) && width[c] > CUT_COLUMN_MIN &&
			    (col == ncols || width[c] > width[col]))
				col = c;
		if (col == ncols)
			return;
		width[col] =
		    width[col] - CUT_COLUMN_MIN > excess ? width[col] - excess : CUT_COLUMN_MIN;
		cut_column(cells, shown, ncols, col, width[col]);
		g_strfreev(header_lines[col]);
		header_lines[col] = ct_text_wrap(header[col], width[col], width[col], true);
	}
}

/* Header line LINE of the table, without trailing blanks. */
static void write_header_line(struct text *t, char ***header_lines, const size_t *width,
                              const bool *right, size_t ncols, size_t line, int indent)
{
	GString *row = g_string_new(NULL);

	g_string_append_printf(row, "%*s", indent, "");
	for (size_t col = 0; col < ncols; col++) {
		const char *text =
		    g_strv_length(header_lines[col]) > line ? header_lines[col][line] : "";
		size_t pad = width[col] > text_width(text) ? width[col] - text_width(text) : 0;

		g_string_append_printf(row, "%*s%s%*s%s", right[col] ? (int)pad : 0, "", text,
		                       right[col] ? 0 : (int)pad, "", col + 1 < ncols ? "  " : "");
	}
	fprintf(t->out, "%s\n", g_strchomp(row->str));
	g_string_free(row, TRUE);
}

/* The NCOLS columns KEYS of ARRAY (ct_table_columns); each header says its unit. */
static void write_table(struct text *t, const struct ct_node *array, const char *const *keys,
                        size_t ncols, int indent)
{
	size_t shown = shown_rows(t, array);
	size_t width[CT_TABLE_MAX_COLUMNS];
	bool right[CT_TABLE_MAX_COLUMNS];
	struct ct_column_unit units[CT_TABLE_MAX_COLUMNS];
	char *header[CT_TABLE_MAX_COLUMNS];
	char **header_lines[CT_TABLE_MAX_COLUMNS];
	size_t cell_width[CT_TABLE_MAX_COLUMNS], header_rows = 0;
	char **cells = g_new0(char *, shown *ncols + 1);

	CT_ASSERT(ncols <= CT_TABLE_MAX_COLUMNS);
	for (size_t col = 0; col < ncols; col++) {
		char *l = ct_table_label(keys[col]);

		units[col] = ct_table_column(array, keys[col], shown, t->origin_ns);
		right[col] = ct_table_column_right(array, keys[col]);
		header[col] =
		    units[col].name ? g_strdup_printf("%s (%s)", l, units[col].name) : g_strdup(l);
		g_free(l);
		cell_width[col] = 0;
		for (size_t row = 0; row < shown; row++) {
			char *c = ct_table_cell(ct_node_get(ct_node_child(array, row), keys[col]),
			                        &units[col], t->origin_ns);

			cells[row * ncols + col] = c;
			cell_width[col] = MAX(cell_width[col], text_width(c));
		}
		width[col] = MAX(cell_width[col], text_width(header[col]));
	}
	fit_headers(header, cell_width, width, ncols, indent, header_lines);
	fit_cells(cells, shown, keys, ncols, width, header, header_lines, indent);
	for (size_t col = 0; col < ncols; col++)
		header_rows = MAX(header_rows, g_strv_length(header_lines[col]));
	for (size_t line = 0; line < header_rows; line++)
		write_header_line(t, header_lines, width, right, ncols, line, indent);
	for (size_t row = 0; row < shown; row++) {
		fprintf(t->out, "%*s", indent, "");
		for (size_t col = 0; col < ncols; col++)
			/* the last column is not padded: no trailing blanks */
			put_cell(t->out, cells[row * ncols + col],
			         col + 1 < ncols || right[col] ? width[col] : 0, right[col],
			         col + 1 < ncols ? "  " : "\n");
	}
	write_more(t, array, shown, indent);
	for (size_t col = 0; col < ncols; col++) {
		g_free(header[col]);
		g_strfreev(header_lines[col]);
	}
	g_strfreev(cells);
}

static void write_array(struct text *t, const struct ct_node *array, int indent);

/*
 * The lists inside the rows of a table (a wide list shown by its main
 * columns: the leaks by site of each device, the idle gaps of each GPU),
 * row by row, those that are not empty and not left to --details.
 */
static void write_row_lists(struct text *t, const struct ct_node *array, const char *const *keys,
                            size_t ncols, int indent)
{
	for (size_t row = 0; row < shown_rows(t, array); row++) {
		const struct ct_node *e = ct_node_child(array, row);

		for (size_t i = 0; i < ct_node_count(e); i++) {
			const struct ct_node *c = ct_node_child(e, i);
			char *name;

			if (c->type != CT_NODE_ARRAY || !ct_node_count(c) || !shown_at(t, c))
				continue;
			name = ct_table_row_name(e, row, keys, ncols, t->origin_ns);

			fprintf(t->out, "%*s%s:\n", indent, "", name);
			g_free(name);
			write_array(t, c, indent + 2);
		}
	}
}

static void write_array(struct text *t, const struct ct_node *array, int indent)
{
	const char *keys[CT_TABLE_MAX_COLUMNS];
	size_t shown = shown_rows(t, array), ncols;
	char *title = ct_table_title(array);

	if (!ct_node_count(array)) {
		fprintf(t->out, "%*s%s: none\n", indent, "", title);
		g_free(title);
		return;
	}
	fprintf(t->out, "%*s%s:\n", indent, "", title);
	g_free(title);
	ncols = ct_table_columns(array, t->detail == CT_TEXT_DETAILS, keys);
	if (ncols) {
		write_table(t, array, keys, ncols, indent + 2);
		write_row_lists(t, array, keys, ncols, indent + 2);
		return;
	}
	for (size_t i = 0; i < shown; i++) {
		const struct ct_node *e = ct_node_child(array, i);

		if (ct_table_is_scalar(e)) {
			char *v = ct_table_value(e, t->origin_ns);

			fprintf(t->out, "%*s- %s\n", indent + 2, "", v);
			g_free(v);
			continue;
		}
		fprintf(t->out, "%*s[%zu]\n", indent + 2, "", i + 1);
		write_container(t, e, indent + 4);
	}
	write_more(t, array, shown, indent + 2);
}

static void write_container(struct text *t, const struct ct_node *node, int indent)
{
	if (node->type == CT_NODE_ARRAY) {
		write_array(t, node, indent);
		return;
	}
	write_scalars(t, node, indent);
	for (size_t i = 0; i < ct_node_count(node); i++) {
		const struct ct_node *c = ct_node_child(node, i);

		if (!shown_at(t, c))
			continue;
		if (c->type == CT_NODE_ARRAY) {
			write_array(t, c, indent);
		} else if (c->type == CT_NODE_OBJECT) {
			char *title = ct_table_title(c);

			fprintf(t->out, "%*s%s:\n", indent, "", title);
			g_free(title);
			write_container(t, c, indent + 2);
		}
	}
}

static void write_section(struct text *t, const struct ct_node *section)
{
	char *title = ct_table_title(section);
	size_t n = text_width(title);

	fprintf(t->out, "%s\n", title);
	for (size_t i = 0; i < n; i++)
		fputc('=', t->out);
	fputc('\n', t->out);
	g_free(title);
	if (ct_table_is_scalar(section)) {
		char *v = ct_table_value(section, t->origin_ns);

		fprintf(t->out, "%s\n", v);
		g_free(v);
	} else if (section->type == CT_NODE_ARRAY) {
		const char *keys[CT_TABLE_MAX_COLUMNS];
		size_t ncols = ct_table_columns(section, t->detail == CT_TEXT_DETAILS, keys);

		if (!ct_node_count(section))
			fprintf(t->out, "none\n");
		else if (ncols)
			write_table(t, section, keys, ncols, 0);
		else
			write_container(t, section, 0);
	} else {
		write_container(t, section, 0);
	}
	fputc('\n', t->out);
}

static int write_text(const struct ct_node *root, const struct ct_writer_options *opts, FILE *out)
{
	struct text t = { .out = out,
		          .max_rows = opts ? opts->max_rows : 0,
		          .detail = opts ? opts->detail : CT_TEXT_MAIN };

	t.origin_ns = ct_table_origin(root);
	ct_first_page_write(root, out);
	if (t.detail == CT_TEXT_BRIEF)
		return ct_writer_done(out, 0);
	fprintf(out, "\n%s\n\n",
	        t.detail == CT_TEXT_DETAILS
	            ? "The details: every section and list (--brief: the page above alone)."
	            : "The main tables (--brief: the page above alone; --details: every list).");
	for (size_t i = 0; i < ct_node_count(root); i++)
		if (shown_at(&t, ct_node_child(root, i)))
			write_section(&t, ct_node_child(root, i));
	return ct_writer_done(out, 0);
}

const struct ct_writer_class ct_text_writer = {
	.name = "text",
	.write = write_text,
};
