/* SPDX-License-Identifier: MIT */
/*
 * text-writer.c - the report for people: one titled block per section,
 * "key: value" lines with sizes and durations in units and times relative
 * to the start of the trace, arrays of a few scalar columns as aligned
 * tables, other arrays as lists of blocks; long arrays cut at max_rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"

/* Arrays of objects with at most this many scalar fields are tables. */
#define TABLE_MAX_COLUMNS 9
#define CELL_MAX          160

struct text {
	FILE *out;
	size_t max_rows;
	int64_t origin_ns; /* trace.start_ns, INT64_MIN if absent */
	int failed;
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

	for (const struct ct_node *c = object->first_child; c; c = c->next)
		if (is_scalar(c) && c->key && strlen(c->key) > width)
			width = strlen(c->key);
	return width;
}

static void write_scalars(struct text *t, const struct ct_node *object, int indent)
{
	size_t width = key_width(object);
	char buf[CELL_MAX * 4];

	for (const struct ct_node *c = object->first_child; c; c = c->next) {
		if (!is_scalar(c))
			continue;
		fprintf(t->out, "%*s%-*s  %s\n", indent, "", (int)width + 1, c->key,
		        ct_format_value(c, t->origin_ns, buf, sizeof(buf)));
	}
}

/* 1 if every element is an object of scalars only, and not too wide for a table. */
static int table_shaped(const struct ct_node *array)
{
	if (!array->first_child)
		return 0;
	for (const struct ct_node *e = array->first_child; e; e = e->next) {
		if (e->type != CT_NODE_OBJECT || e->child_count > TABLE_MAX_COLUMNS)
			return 0;
		for (const struct ct_node *c = e->first_child; c; c = c->next)
			if (!is_scalar(c))
				return 0;
	}
	return 1;
}

static size_t shown_rows(const struct text *t, const struct ct_node *array)
{
	return t->max_rows && array->child_count > t->max_rows ? t->max_rows : array->child_count;
}

static void write_more(struct text *t, const struct ct_node *array, size_t shown, int indent)
{
	if (shown < array->child_count)
		fprintf(t->out, "%*s... %zu more (--max-rows, or --format csv/json for all)\n",
		        indent, "", array->child_count - shown);
}

static int right_aligned(const struct ct_node *n)
{
	return n->type != CT_NODE_STRING && n->type != CT_NODE_BOOL;
}

/* Table columns are the first element's keys. */
static void write_table(struct text *t, const struct ct_node *array, int indent)
{
	const struct ct_node *first = array->first_child;
	size_t ncols = first->child_count;
	size_t shown = shown_rows(t, array);
	size_t *width = calloc(ncols, sizeof(*width));
	char cell[CELL_MAX];
	size_t col, row;
	const struct ct_node *e, *c;

	if (!width) {
		t->failed = ENOMEM;
		return;
	}
	for (col = 0, c = first->first_child; c; c = c->next, col++)
		width[col] = strlen(c->key);
	for (row = 0, e = array->first_child; e && row < shown; e = e->next, row++)
		for (col = 0, c = first->first_child; c && col < ncols; c = c->next, col++) {
			const struct ct_node *v = ct_node_get(e, c->key);
			size_t w =
			    v ? strlen(ct_format_value(v, t->origin_ns, cell, sizeof(cell))) : 1;

			width[col] = w > width[col] ? w : width[col];
		}
	fprintf(t->out, "%*s", indent, "");
	for (col = 0, c = first->first_child; c; c = c->next, col++)
		fprintf(t->out, right_aligned(c) ? "%*s%s" : "%-*s%s", (int)width[col], c->key,
		        c->next ? "  " : "\n");
	for (row = 0, e = array->first_child; e && row < shown; e = e->next, row++) {
		fprintf(t->out, "%*s", indent, "");
		for (col = 0, c = first->first_child; c; c = c->next, col++) {
			const struct ct_node *v = ct_node_get(e, c->key);
			const char *text =
			    v ? ct_format_value(v, t->origin_ns, cell, sizeof(cell)) : "-";

			/* the last column is not padded: no trailing blanks */
			if (!c->next)
				fprintf(t->out, "%*s\n", right_aligned(c) ? (int)width[col] : 0,
				        text);
			else
				fprintf(t->out, right_aligned(c) ? "%*s  " : "%-*s  ",
				        (int)width[col], text);
		}
	}
	write_more(t, array, shown, indent);
	free(width);
}

static void write_array(struct text *t, const struct ct_node *array, int indent)
{
	size_t shown = shown_rows(t, array);
	size_t i = 0;
	char buf[CELL_MAX];

	if (!array->first_child) {
		fprintf(t->out, "%*s%s: none\n", indent, "", label(array));
		return;
	}
	fprintf(t->out, "%*s%s:\n", indent, "", label(array));
	if (table_shaped(array)) {
		write_table(t, array, indent + 2);
		return;
	}
	for (const struct ct_node *e = array->first_child; e && i < shown; e = e->next, i++) {
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
	for (const struct ct_node *c = node->first_child; c; c = c->next) {
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
		if (!section->first_child)
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
	for (const struct ct_node *s = root->first_child; s; s = s->next)
		write_section(&t, s);
	return ct_writer_done(out, t.failed);
}

const struct ct_writer_class ct_text_writer = {
	.name = "text",
	.write = write_text,
};
