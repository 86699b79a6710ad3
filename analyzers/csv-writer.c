/* SPDX-License-Identifier: MIT */
/*
 * csv-writer.c - the report as CSV tables (RFC 4180 quoting).
 *
 * Each section's scalars make a one-row table named after the section;
 * each array of objects makes a table named by its dotted path
 * ("memory.devices"). Objects nested in an element are flattened into
 * dotted columns ("at_peak.live_bytes"); arrays nested in an element make a
 * table of their own ("memory.devices.leaks") whose rows start with the id
 * columns (values with unit CT_UNIT_ID: pid, device, ...) of the elements
 * they belong to. Tables are separated by a blank line and introduced by
 * "# name".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"

#define MAX_IDS      8
#define MAX_COLUMNS  128
#define NAME_MAX_LEN 256

/* Id columns an element passes on to the tables of its nested arrays. */
struct ids {
	const struct ct_node *nodes[MAX_IDS]; /* borrowed */
	size_t count;
};

/* One array of a table, with the ids of the elements it sits in. */
struct part {
	const struct ct_node *array; /* borrowed */
	struct ids ids;
};

struct csv {
	FILE *out;
	int failed;
};

static void put_field(struct csv *c, const char *text, int first)
{
	int quote = strpbrk(text, ",\"\r\n") != NULL || (text[0] == ' ');

	if (!first)
		fputc(',', c->out);
	if (!quote) {
		fputs(text, c->out);
		return;
	}
	fputc('"', c->out);
	for (const char *p = text; *p; p++) {
		if (*p == '"')
			fputc('"', c->out);
		fputc(*p, c->out);
	}
	fputc('"', c->out);
}

static int is_scalar(const struct ct_node *n)
{
	return n->type != CT_NODE_OBJECT && n->type != CT_NODE_ARRAY;
}

/* Column names of an element: scalars, and nested objects' scalars dotted. */
struct columns {
	char names[MAX_COLUMNS][NAME_MAX_LEN];
	size_t count;
};

static void add_column(struct columns *cols, const char *name)
{
	for (size_t i = 0; i < cols->count; i++)
		if (!strcmp(cols->names[i], name))
			return;
	if (cols->count < MAX_COLUMNS)
		snprintf(cols->names[cols->count++], NAME_MAX_LEN, "%s", name);
}

static void collect_columns(struct columns *cols, const struct ct_node *object, const char *prefix)
{
	for (const struct ct_node *c = object->first_child; c; c = c->next) {
		char name[NAME_MAX_LEN];

		snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "", c->key);
		if (is_scalar(c))
			add_column(cols, name);
		else if (c->type == CT_NODE_OBJECT)
			collect_columns(cols, c, name);
	}
}

/* The scalar at dotted NAME under OBJECT, NULL if none. */
static const struct ct_node *lookup(const struct ct_node *object, const char *name)
{
	const char *dot = strchr(name, '.');
	char head[NAME_MAX_LEN];
	const struct ct_node *child;

	if (!dot)
		return ct_node_get(object, name);
	snprintf(head, sizeof(head), "%.*s", (int)(dot - name), name);
	child = ct_node_get(object, head);
	if (!child || child->type != CT_NODE_OBJECT)
		return NULL;
	return lookup(child, dot + 1);
}

static void write_value(struct csv *c, const struct ct_node *node, int first)
{
	char buf[1024];

	put_field(c, node ? ct_format_raw(node, buf, sizeof(buf)) : "", first);
}

static void ids_of(const struct ids *parent, const struct ct_node *element, struct ids *ids)
{
	*ids = *parent;
	for (const struct ct_node *c = element->first_child; c; c = c->next) {
		int seen = 0;

		if (!is_scalar(c) || c->unit != CT_UNIT_ID || ids->count == MAX_IDS)
			continue;
		for (size_t i = 0; i < ids->count; i++)
			seen |= !strcmp(ids->nodes[i]->key, c->key);
		if (!seen)
			ids->nodes[ids->count++] = c;
	}
}

static void emit_table(struct csv *c, const char *name, const struct part *parts, size_t count);

/* The tables of the arrays nested in the elements of PARTS, one per key. */
static void emit_nested(struct csv *c, const char *name, const struct part *parts, size_t count)
{
	struct columns keys = { .count = 0 };

	for (size_t p = 0; p < count; p++)
		for (const struct ct_node *e = parts[p].array->first_child; e; e = e->next)
			for (const struct ct_node *k = e->type == CT_NODE_OBJECT ? e->first_child
			                                                         : NULL;
			     k; k = k->next)
				if (k->type == CT_NODE_ARRAY)
					add_column(&keys, k->key);
	for (size_t k = 0; k < keys.count; k++) {
		size_t n = 0, capacity = 0;
		struct part *nested = NULL;
		char nested_name[NAME_MAX_LEN * 2];

		for (size_t p = 0; p < count; p++)
			for (const struct ct_node *e = parts[p].array->first_child; e;
			     e = e->next) {
				const struct ct_node *a = e->type == CT_NODE_OBJECT
				                              ? ct_node_get(e, keys.names[k])
				                              : NULL;

				if (!a || a->type != CT_NODE_ARRAY)
					continue;
				if (n == capacity) {
					struct part *more;

					capacity = capacity ? capacity * 2 : 16;
					more = realloc(nested, capacity * sizeof(*more));
					if (!more) {
						c->failed = ENOMEM;
						free(nested);
						return;
					}
					nested = more;
				}
				nested[n].array = a;
				ids_of(&parts[p].ids, e, &nested[n].ids);
				n++;
			}
		snprintf(nested_name, sizeof(nested_name), "%s.%s", name, keys.names[k]);
		emit_table(c, nested_name, nested, n);
		free(nested);
	}
}

static void emit_table(struct csv *c, const char *name, const struct part *parts, size_t count)
{
	struct columns *cols = calloc(1, sizeof(*cols));
	const struct ids *ids = count ? &parts[0].ids : NULL;
	int scalars = 0;

	if (!cols) {
		c->failed = ENOMEM;
		return;
	}
	for (size_t p = 0; p < count; p++)
		for (const struct ct_node *e = parts[p].array->first_child; e; e = e->next) {
			if (e->type == CT_NODE_OBJECT)
				collect_columns(cols, e, "");
			else if (is_scalar(e))
				scalars = 1;
		}
	if (scalars)
		add_column(cols, "value");
	fprintf(c->out, "# %s\n", name);
	for (size_t i = 0; ids && i < ids->count; i++)
		put_field(c, ids->nodes[i]->key, i == 0);
	for (size_t i = 0; i < cols->count; i++)
		put_field(c, cols->names[i], i == 0 && (!ids || !ids->count));
	fputc('\n', c->out);
	for (size_t p = 0; p < count; p++)
		for (const struct ct_node *e = parts[p].array->first_child; e; e = e->next) {
			size_t nids = parts[p].ids.count;

			for (size_t i = 0; i < nids; i++)
				write_value(c, parts[p].ids.nodes[i], i == 0);
			for (size_t i = 0; i < cols->count; i++) {
				const struct ct_node *v = e->type == CT_NODE_OBJECT
				                              ? lookup(e, cols->names[i])
				                              : (is_scalar(e) ? e : NULL);

				write_value(c, v, i == 0 && nids == 0);
			}
			fputc('\n', c->out);
		}
	fputc('\n', c->out);
	free(cols);
	emit_nested(c, name, parts, count);
}

/* A section: its scalars as one row, then its arrays as tables. */
static void emit_section(struct csv *c, const struct ct_node *section)
{
	struct columns *cols;
	int first = 1;

	if (section->type == CT_NODE_ARRAY) {
		struct part part = { .array = section };

		emit_table(c, section->key, &part, 1);
		return;
	}
	if (section->type != CT_NODE_OBJECT)
		return;
	cols = calloc(1, sizeof(*cols));
	if (!cols) {
		c->failed = ENOMEM;
		return;
	}
	collect_columns(cols, section, "");
	if (cols->count) {
		fprintf(c->out, "# %s\n", section->key);
		for (size_t i = 0; i < cols->count; i++)
			put_field(c, cols->names[i], i == 0);
		fputc('\n', c->out);
		for (size_t i = 0; i < cols->count; i++, first = 0)
			write_value(c, lookup(section, cols->names[i]), first);
		fputs("\n\n", c->out);
	}
	free(cols);
	for (const struct ct_node *a = section->first_child; a; a = a->next) {
		char name[NAME_MAX_LEN * 2];
		struct part part = { .array = a };

		if (a->type != CT_NODE_ARRAY)
			continue;
		snprintf(name, sizeof(name), "%s.%s", section->key, a->key);
		emit_table(c, name, &part, 1);
	}
}

static int write_csv(const struct ct_node *root, const struct ct_writer_options *opts, FILE *out)
{
	struct csv c = { .out = out };

	for (const struct ct_node *s = root->first_child; s; s = s->next)
		emit_section(&c, s);
	return ct_writer_done(out, c.failed);
}

const struct ct_writer_class ct_csv_writer = {
	.name = "csv",
	.write = write_csv,
};
