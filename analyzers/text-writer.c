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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "assert.h"
#include "first-page.h"
#include "writer.h"

/* Arrays of objects with at most this many scalar fields are tables. */
#define TABLE_MAX_COLUMNS 9

struct text {
	FILE *out;
	size_t max_rows;
	enum ct_text_detail detail;
	int64_t origin_ns; /* trace.start_ns, INT64_MIN if absent */
};

/* What a column's numbers are shown in: "MiB", divided by 2^20. */
struct col_unit {
	const char *name; /* NULL: each cell in its own unit, as ct_format_value shows it */
	double divisor;
	int decimals;
};

/* Lists and sections the default detail leaves to --details. */
static const char *const details_only[] = {
	"environment", "timeline", "peak_allocations", "leaks",  "reclaimed",
	"fragmentation", "kinds",  "by_direction",     "findings", "paths",
};

static bool details_only_key(const char *key)
{
	for (size_t i = 0; key && i < sizeof(details_only) / sizeof(details_only[0]); i++)
		if (!strcmp(key, details_only[i]))
			return true;
	return false;
}

static bool shown_at(const struct text *t, const struct ct_node *n)
{
	return t->detail == CT_TEXT_DETAILS || !details_only_key(n->key);
}

/* Keys whose null means there is none (the others: the trace cannot tell). */
static bool null_means_none(const char *key)
{
	static const char *const keys[] = { "error",           "withheld_verdict", "caveat",
		                            "discarded_from_ns", "host_address",   "verdict",
		                            "explanation" };

	for (size_t i = 0; key && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/* NODE as text for people, every character of it: g_free it. */
static char *value_text(const struct ct_node *node, int64_t origin_ns)
{
	size_t len = node->type == CT_NODE_STRING ? strlen(node->value.str) * 6 + 1 : 64;
	char *buf;

	if (node->type == CT_NODE_NULL)
		return g_strdup(null_means_none(node->key) ? "none" : "unknown");
	if (node->type == CT_NODE_STRING && !node->value.str[0])
		return g_strdup("none");
	buf = g_malloc(len);
	return ct_format_value(node, origin_ns, buf, len);
}

/* KEY made readable: its unit suffix dropped (the value says it), blanks for '_'. */
static char *key_label(const char *key)
{
	static const char *const suffixes[] = { "_bytes_per_s", "_bytes", "_ns" };
	char *label = g_strdup(key);
	size_t n = strlen(label);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t s = strlen(suffixes[i]);

		if (n > s && !strcmp(label + n - s, suffixes[i])) {
			label[n - s] = '\0';
			break;
		}
	}
	g_strdelimit(label, "_", ' ');
	return label;
}

static int is_scalar(const struct ct_node *n)
{
	return n->type != CT_NODE_OBJECT && n->type != CT_NODE_ARRAY;
}

/* A container's title, or its key made readable: g_free it. */
static char *label(const struct ct_node *n)
{
	return n->title ? g_strdup(n->title) : key_label(n->key ? n->key : "");
}

static void write_container(struct text *t, const struct ct_node *node, int indent);

/* Characters of TEXT (valid UTF-8), as a terminal shows them. */
static size_t text_width(const char *text)
{
	return (size_t)g_utf8_strlen(text, -1);
}

/* The widest label among the scalar children, for alignment. */
static size_t key_width(const struct ct_node *object)
{
	size_t width = 0;

	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);
		char *l;

		if (!is_scalar(c) || !c->key)
			continue;
		l = key_label(c->key);
		width = text_width(l) > width ? text_width(l) : width;
		g_free(l);
	}
	return width;
}

static void write_scalars(struct text *t, const struct ct_node *object, int indent)
{
	size_t width = key_width(object);

	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);
		char *l, *v;

		if (!is_scalar(c))
			continue;
		l = key_label(c->key);
		v = value_text(c, t->origin_ns);
		fprintf(t->out, "%*s%s:%*s %s\n", indent, "", l,
		        (int)(width - text_width(l)), "", v);
		g_free(l);
		g_free(v);
	}
}

/* 1 if every element is an object of scalars only, and not too wide for a table. */
static int table_shaped(const struct ct_node *array)
{
	if (!ct_node_count(array))
		return 0;
	for (size_t i = 0; i < ct_node_count(array); i++) {
		const struct ct_node *e = ct_node_child(array, i);

		if (e->type != CT_NODE_OBJECT || ct_node_count(e) > TABLE_MAX_COLUMNS)
			return 0;
		for (size_t j = 0; j < ct_node_count(e); j++)
			if (!is_scalar(ct_node_child(e, j)))
				return 0;
	}
	return 1;
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

static int right_aligned(const struct ct_node *n)
{
	return n->type != CT_NODE_STRING && n->type != CT_NODE_BOOL && n->type != CT_NODE_NULL;
}

/* TEXT in a column of WIDTH characters, padded on the left when RIGHT, then AFTER. */
static void put_cell(FILE *out, const char *text, size_t width, int right, const char *after)
{
	size_t w = text_width(text);
	size_t pad = width > w ? width - w : 0;

	fprintf(out, "%*s%s%*s%s", right ? (int)pad : 0, "", text, right ? 0 : (int)pad, "", after);
}

static double number(const struct ct_node *n)
{
	switch (n->type) {
	case CT_NODE_U64:
		return (double)n->value.u64;
	case CT_NODE_I64:
		return (double)n->value.i64;
	case CT_NODE_DOUBLE:
		return n->value.dbl;
	default:
		return NAN;
	}
}

/* The unit of 1, STEP, STEP^2, ... among NAMES that shows MAX best. */
static struct col_unit scaled_unit(double max, const char *const names[], size_t count,
                                   double step)
{
	struct col_unit u = { names[0], 1, 0 };

	for (size_t i = 1; i < count && max >= step * u.divisor; i++)
		u = (struct col_unit){ names[i], u.divisor * step, 2 };
	return u;
}

/* The unit column KEY of the SHOWN rows of ARRAY is shown in, one for all its cells. */
static struct col_unit column_unit(const struct text *t, const struct ct_node *array,
                                   const char *key, size_t shown)
{
	static const char *const bytes[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *const times[] = { "ns", "us", "ms", "s" };
	static const char *const rates[] = { "B/s", "KB/s", "MB/s", "GB/s", "TB/s" };
	enum ct_unit unit = CT_UNIT_NONE;
	double max = 0;

	for (size_t row = 0; row < shown; row++) {
		const struct ct_node *v = ct_node_get(ct_node_child(array, row), key);

		if (!v || isnan(number(v)))
			continue;
		unit = v->unit;
		max = fabs(number(v)) > max ? fabs(number(v)) : max;
	}
	switch (unit) {
	case CT_UNIT_BYTES:
		return scaled_unit(max, bytes, 5, 1024);
	case CT_UNIT_DURATION:
		return scaled_unit(max, times, 4, 1000);
	case CT_UNIT_BANDWIDTH:
		return scaled_unit(max, rates, 5, 1000);
	case CT_UNIT_RATIO:
		return (struct col_unit){ "%", 0.01, 1 };
	case CT_UNIT_TIME:
		if (t->origin_ns != INT64_MIN)
			return (struct col_unit){ "s from start", 1e9, 6 };
		return (struct col_unit){ "ns", 1, 0 };
	default:
		return (struct col_unit){ NULL, 1, 0 };
	}
}

/* Cell V of a column in unit U: g_free it. */
static char *cell_text(const struct text *t, const struct ct_node *v, const struct col_unit *u)
{
	double x;

	if (!v)
		return g_strdup("-");
	x = number(v);
	if (!u->name || isnan(x))
		return value_text(v, t->origin_ns);
	if (v->unit == CT_UNIT_TIME && t->origin_ns != INT64_MIN)
		x -= (double)t->origin_ns;
	return g_strdup_printf("%.*f", u->decimals, x / u->divisor);
}

/* Table columns are the first element's keys; each header says its unit. */
static void write_table(struct text *t, const struct ct_node *array, int indent)
{
	const struct ct_node *first = ct_node_child(array, 0);
	size_t ncols = ct_node_count(first);
	size_t shown = shown_rows(t, array);
	size_t width[TABLE_MAX_COLUMNS];
	struct col_unit units[TABLE_MAX_COLUMNS];
	char *header[TABLE_MAX_COLUMNS];
	char **cells = g_new0(char *, shown * ncols + 1);

	/* table_shaped() saw to it */
	CT_ASSERT(ncols <= TABLE_MAX_COLUMNS);
	for (size_t col = 0; col < ncols; col++) {
		const char *key = ct_node_child(first, col)->key;
		char *l = key_label(key);

		units[col] = column_unit(t, array, key, shown);
		header[col] = units[col].name ? g_strdup_printf("%s (%s)", l, units[col].name)
		                              : g_strdup(l);
		g_free(l);
		width[col] = text_width(header[col]);
		for (size_t row = 0; row < shown; row++) {
			char *c = cell_text(t, ct_node_get(ct_node_child(array, row), key),
			                    &units[col]);

			cells[row * ncols + col] = c;
			width[col] = text_width(c) > width[col] ? text_width(c) : width[col];
		}
	}
	fprintf(t->out, "%*s", indent, "");
	for (size_t col = 0; col < ncols; col++) {
		const struct ct_node *c = ct_node_child(first, col);

		/* the last column is not padded: no trailing blanks */
		put_cell(t->out, header[col], col + 1 < ncols || right_aligned(c) ? width[col] : 0,
		         right_aligned(c), col + 1 < ncols ? "  " : "\n");
	}
	for (size_t row = 0; row < shown; row++) {
		fprintf(t->out, "%*s", indent, "");
		for (size_t col = 0; col < ncols; col++) {
			const struct ct_node *c = ct_node_child(first, col);

			put_cell(t->out, cells[row * ncols + col],
			         col + 1 < ncols || right_aligned(c) ? width[col] : 0,
			         right_aligned(c), col + 1 < ncols ? "  " : "\n");
		}
	}
	write_more(t, array, shown, indent);
	for (size_t col = 0; col < ncols; col++)
		g_free(header[col]);
	g_strfreev(cells);
}

static void write_array(struct text *t, const struct ct_node *array, int indent)
{
	size_t shown = shown_rows(t, array);
	char *title = label(array);

	if (!ct_node_count(array)) {
		fprintf(t->out, "%*s%s: none\n", indent, "", title);
		g_free(title);
		return;
	}
	fprintf(t->out, "%*s%s:\n", indent, "", title);
	g_free(title);
	if (table_shaped(array)) {
		write_table(t, array, indent + 2);
		return;
	}
	for (size_t i = 0; i < shown; i++) {
		const struct ct_node *e = ct_node_child(array, i);

		if (is_scalar(e)) {
			char *v = value_text(e, t->origin_ns);

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
			char *title = label(c);

			fprintf(t->out, "%*s%s:\n", indent, "", title);
			g_free(title);
			write_container(t, c, indent + 2);
		}
	}
}

static void write_section(struct text *t, const struct ct_node *section)
{
	char *title = label(section);
	size_t n = text_width(title);

	fprintf(t->out, "%s\n", title);
	for (size_t i = 0; i < n; i++)
		fputc('=', t->out);
	fputc('\n', t->out);
	g_free(title);
	if (is_scalar(section)) {
		char *v = value_text(section, t->origin_ns);

		fprintf(t->out, "%s\n", v);
		g_free(v);
	} else if (section->type == CT_NODE_ARRAY) {
		if (!ct_node_count(section))
			fprintf(t->out, "none\n");
		else if (table_shaped(section))
			write_table(t, section, 0);
		else
			write_container(t, section, 0);
	} else {
		write_container(t, section, 0);
	}
	fputc('\n', t->out);
}

static int64_t trace_origin(const struct ct_node *root)
{
	const struct ct_node *start = ct_node_get(ct_node_get(root, "trace"), "start_ns");

	return start && start->type == CT_NODE_I64 ? start->value.i64 : INT64_MIN;
}

static int write_text(const struct ct_node *root, const struct ct_writer_options *opts, FILE *out)
{
	struct text t = { .out = out,
		          .max_rows = opts ? opts->max_rows : 0,
		          .detail = opts ? opts->detail : CT_TEXT_MAIN };

	t.origin_ns = trace_origin(root);
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
