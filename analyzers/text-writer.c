/* SPDX-License-Identifier: MIT */
/*
 * text-writer.c - the report for people: one titled block per section,
 * "key: value" lines with sizes and durations in units and times relative
 * to the start of the trace, arrays of a few scalar columns as aligned
 * tables, other arrays as lists of blocks; long arrays cut at max_rows.
 *
 * Strings go through ct_format_text() (ct_format_value does it): what the
 * traced program named can never reach the terminal as a control
 * character. Columns are aligned by characters, not bytes.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "assert.h"
#include "writer.h"

/* Arrays of objects with at most this many scalar fields are tables. */
#define TABLE_MAX_COLUMNS 9
#define CELL_MAX          160
/* A "key: value" line's value, at most (an error message, a long NVTX path). */
#define SCALAR_MAX 2048

struct text {
	FILE *out;
	size_t max_rows;
	int64_t origin_ns; /* trace.start_ns, INT64_MIN if absent */
};

static int is_scalar(const struct ct_node *n)
{
	return n->type != CT_NODE_OBJECT && n->type != CT_NODE_ARRAY;
}

static const char *label(const struct ct_node *n)
{
	return n->title ? n->title : n->key;
}

static void write_container(struct text *t, const struct ct_node *node, int indent);

/* The longest key among the scalar children, for alignment. */
static size_t key_width(const struct ct_node *object)
{
	size_t width = 0;

	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);

		if (is_scalar(c) && c->key && strlen(c->key) > width)
			width = strlen(c->key);
	}
	return width;
}

static void write_scalars(struct text *t, const struct ct_node *object, int indent)
{
	size_t width = key_width(object);
	char buf[SCALAR_MAX];

	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);

		if (!is_scalar(c))
			continue;
		fprintf(t->out, "%*s%-*s  %s\n", indent, "", (int)width + 1, c->key,
		        ct_format_value(c, t->origin_ns, buf, sizeof(buf)));
	}
}

/* 1 if every element is an object of scalars only (details aside), and not too wide for a table. */
static int table_shaped(const struct ct_node *array)
{
	if (!ct_node_count(array))
		return 0;
	for (size_t i = 0; i < ct_node_count(array); i++) {
		const struct ct_node *e = ct_node_child(array, i);

		if (e->type != CT_NODE_OBJECT || ct_node_count(e) > TABLE_MAX_COLUMNS)
			return 0;
		for (size_t j = 0; j < ct_node_count(e); j++)
			if (!is_scalar(ct_node_child(e, j)) && !ct_node_child(e, j)->detail)
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
	return n->type != CT_NODE_STRING && n->type != CT_NODE_BOOL;
}

/* Characters of TEXT (valid UTF-8: ct_format_value's), as a terminal shows them. */
static size_t text_width(const char *text)
{
	return (size_t)g_utf8_strlen(text, -1);
}

/* TEXT in a column of WIDTH characters, padded on the left when RIGHT, then AFTER. */
static void put_cell(FILE *out, const char *text, size_t width, int right, const char *after)
{
	size_t w = text_width(text);
	size_t pad = width > w ? width - w : 0;

	fprintf(out, "%*s%s%*s%s", right ? (int)pad : 0, "", text, right ? 0 : (int)pad, "", after);
}

/* Table columns are the first element's keys, its details aside (they come last). */
static void write_table(struct text *t, const struct ct_node *array, int indent)
{
	const struct ct_node *first = ct_node_child(array, 0);
	size_t ncols = ct_node_count(first);

	while (ncols && ct_node_child(first, ncols - 1)->detail)
		ncols--;
	size_t shown = shown_rows(t, array);
	size_t width[TABLE_MAX_COLUMNS];
	char cell[CELL_MAX];

	/* table_shaped() saw to it */
	CT_ASSERT(ncols <= TABLE_MAX_COLUMNS);
	for (size_t col = 0; col < ncols; col++)
		width[col] = text_width(ct_node_child(first, col)->key);
	for (size_t row = 0; row < shown; row++)
		for (size_t col = 0; col < ncols; col++) {
			const struct ct_node *v =
			    ct_node_get(ct_node_child(array, row), ct_node_child(first, col)->key);
			size_t w =
			    v ? text_width(ct_format_value(v, t->origin_ns, cell, sizeof(cell)))
			      : 1;

			width[col] = w > width[col] ? w : width[col];
		}
	fprintf(t->out, "%*s", indent, "");
	for (size_t col = 0; col < ncols; col++) {
		const struct ct_node *c = ct_node_child(first, col);

		/* the last column is not padded: no trailing blanks */
		put_cell(t->out, c->key, col + 1 < ncols || right_aligned(c) ? width[col] : 0,
		         right_aligned(c), col + 1 < ncols ? "  " : "\n");
	}
	for (size_t row = 0; row < shown; row++) {
		fprintf(t->out, "%*s", indent, "");
		for (size_t col = 0; col < ncols; col++) {
			const struct ct_node *c = ct_node_child(first, col);
			const struct ct_node *v = ct_node_get(ct_node_child(array, row), c->key);
			const char *text =
			    v ? ct_format_value(v, t->origin_ns, cell, sizeof(cell)) : "-";

			put_cell(t->out, text, col + 1 < ncols || right_aligned(c) ? width[col] : 0,
			         right_aligned(c), col + 1 < ncols ? "  " : "\n");
		}
	}
	write_more(t, array, shown, indent);
}

static void write_array(struct text *t, const struct ct_node *array, int indent)
{
	size_t shown = shown_rows(t, array);
	char buf[CELL_MAX];

	if (!ct_node_count(array)) {
		fprintf(t->out, "%*s%s: none\n", indent, "", label(array));
		return;
	}
	fprintf(t->out, "%*s%s:\n", indent, "", label(array));
	if (table_shaped(array)) {
		write_table(t, array, indent + 2);
		return;
	}
	for (size_t i = 0; i < shown; i++) {
		const struct ct_node *e = ct_node_child(array, i);

		if (is_scalar(e)) {
			fprintf(t->out, "%*s- %s\n", indent + 2, "",
			        ct_format_value(e, t->origin_ns, buf, sizeof(buf)));
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

		if (c->detail)
			continue;
		if (c->type == CT_NODE_ARRAY) {
			write_array(t, c, indent);
		} else if (c->type == CT_NODE_OBJECT) {
			fprintf(t->out, "%*s%s:\n", indent, "", label(c));
			write_container(t, c, indent + 2);
		}
	}
}

static void write_section(struct text *t, const struct ct_node *section)
{
	const char *title = label(section);
	size_t n = strlen(title);

	fprintf(t->out, "%s\n", title);
	for (size_t i = 0; i < n; i++)
		fputc('=', t->out);
	fputc('\n', t->out);
	if (is_scalar(section)) {
		char buf[CELL_MAX];

		fprintf(t->out, "%s\n", ct_format_value(section, t->origin_ns, buf, sizeof(buf)));
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
	struct text t = { .out = out, .max_rows = opts ? opts->max_rows : 0 };

	t.origin_ns = trace_origin(root);
	for (size_t i = 0; i < ct_node_count(root); i++)
		write_section(&t, ct_node_child(root, i));
	return ct_writer_done(out, 0);
}

const struct ct_writer_class ct_text_writer = {
	.name = "text",
	.write = write_text,
};
