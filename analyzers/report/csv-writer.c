/* SPDX-License-Identifier: MIT */
/*
 * csv-writer.c - the report as CSV tables (RFC 4180 quoting).
 *
 * Each section's scalars make a one-row table named after the section;
 * each array of objects makes a table named by its dotted path
 * ("memory.devices"), wherever it sits (in an object of a section too:
 * "memory.at_peak.largest"). Objects nested in an element are flattened
 * into dotted columns ("at_peak.live_bytes"); arrays nested in an element,
 * or in an object in it, make a table of their own ("memory.devices.leaks")
 * whose rows start with the id columns (values with unit CT_UNIT_ID: pid,
 * device, ...) of the elements they belong to. Tables are separated by a
 * blank line and introduced by "# name".
 *
 * Fields holding a comma, a quote, a line break or a leading blank are
 * quoted, quotes doubled. Strings are written as the text report shows
 * them (ct_format_text): control characters, line breaks included, are
 * escaped ("\x1b", "\n"), so that the file holds none a terminal acts on.
 */
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

static void put_field(FILE *out, const char *text, int first)
{
	int quote = strpbrk(text, ",\"\r\n") != NULL || (text[0] == ' ');

	if (!first)
		fputc(',', out);
	if (!quote) {
		fputs(text, out);
		return;
	}
	fputc('"', out);
	for (const char *p = text; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static int is_scalar(const struct ct_node *n)
{
	return n->type != CT_NODE_OBJECT && n->type != CT_NODE_ARRAY;
}

/* Column names, in order of first sight, each once, at most MAX_COLUMNS. */
struct columns {
	GPtrArray *names; /* owned strings */
	GHashTable *seen; /* the names, borrowed from NAMES */
};

static void columns_init(struct columns *cols)
{
	cols->names = g_ptr_array_new_with_free_func(g_free);
	cols->seen = g_hash_table_new(g_str_hash, g_str_equal);
}

static void columns_release(struct columns *cols)
{
	g_hash_table_destroy(cols->seen);
	g_ptr_array_free(cols->names, TRUE);
}

static const char *column(const struct columns *cols, size_t i)
{
	return g_ptr_array_index(cols->names, i);
}

static void add_column(struct columns *cols, const char *name)
{
	char *copy;

	if (g_hash_table_contains(cols->seen, name) || cols->names->len == MAX_COLUMNS)
		return;
	copy = g_strndup(name, NAME_MAX_LEN - 1);
	g_ptr_array_add(cols->names, copy);
	g_hash_table_add(cols->seen, copy);
}

/* The columns of an element: scalars, and nested objects' scalars dotted. */
static void collect_columns(struct columns *cols, const struct ct_node *object, const char *prefix)
{
	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);
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

/*
 * The arrays in OBJECT, by dotted name, and those in the objects nested in
 * it: an array is a table wherever it sits, not only as a direct child
 * (a list inside a nested object was left out of the CSV report).
 */
static void collect_arrays(struct columns *names, const struct ct_node *object, const char *prefix)
{
	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);
		char name[NAME_MAX_LEN];

		snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "", c->key);
		if (c->type == CT_NODE_ARRAY)
			add_column(names, name);
		else if (c->type == CT_NODE_OBJECT)
			collect_arrays(names, c, name);
	}
}

static void write_value(FILE *out, const struct ct_node *node, int first)
{
	char buf[64];

	/*
	 * A string whole, its control characters escaped as the text report
	 * shows them (a CSV file is read on terminals too): at most 4 bytes
	 * for each of its bytes ("\x1b").
	 */
	if (node && node->type == CT_NODE_STRING) {
		size_t len = 4 * strlen(node->value.str) + 1;
		char *text = g_malloc(len);

		put_field(out, ct_format_text(node->value.str, text, len), first);
		g_free(text);
	} else
		put_field(out, node ? ct_format_raw(node, buf, sizeof(buf)) : "", first);
}

static void ids_of(const struct ids *parent, const struct ct_node *element, struct ids *ids)
{
	*ids = *parent;
	for (size_t i = 0; i < ct_node_count(element); i++) {
		const struct ct_node *c = ct_node_child(element, i);
		int seen = 0;

		if (!is_scalar(c) || c->unit != CT_UNIT_ID || ids->count == MAX_IDS)
			continue;
		for (size_t j = 0; j < ids->count; j++)
			seen |= !strcmp(ids->nodes[j]->key, c->key);
		if (!seen)
			ids->nodes[ids->count++] = c;
	}
}

static void emit_table(FILE *out, const char *name, const struct part *parts, size_t count);

/* The tables of the arrays nested in the elements of PARTS, one per key. */
static void emit_nested(FILE *out, const char *name, const struct part *parts, size_t count)
{
	struct columns keys;

	columns_init(&keys);
	for (size_t p = 0; p < count; p++)
		for (size_t i = 0; i < ct_node_count(parts[p].array); i++) {
			const struct ct_node *e = ct_node_child(parts[p].array, i);

			if (e->type == CT_NODE_OBJECT)
				collect_arrays(&keys, e, "");
		}
	for (size_t k = 0; k < keys.names->len; k++) {
		GArray *nested = g_array_new(FALSE, FALSE, sizeof(struct part));
		char nested_name[NAME_MAX_LEN * 2];

		for (size_t p = 0; p < count; p++)
			for (size_t i = 0; i < ct_node_count(parts[p].array); i++) {
				const struct ct_node *e = ct_node_child(parts[p].array, i);
				const struct ct_node *a =
				    e->type == CT_NODE_OBJECT ? lookup(e, column(&keys, k)) : NULL;
				struct part part;

				if (!a || a->type != CT_NODE_ARRAY)
					continue;
				part.array = a;
				ids_of(&parts[p].ids, e, &part.ids);
				g_array_append_val(nested, part);
			}
		snprintf(nested_name, sizeof(nested_name), "%s.%s", name, column(&keys, k));
		emit_table(out, nested_name, (const struct part *)nested->data, nested->len);
		g_array_unref(nested);
	}
	columns_release(&keys);
}

static void emit_table(FILE *out, const char *name, const struct part *parts, size_t count)
{
	const struct ids *ids = count ? &parts[0].ids : NULL;
	struct columns cols;
	int scalars = 0;

	columns_init(&cols);
	for (size_t p = 0; p < count; p++)
		for (size_t i = 0; i < ct_node_count(parts[p].array); i++) {
			const struct ct_node *e = ct_node_child(parts[p].array, i);

			if (e->type == CT_NODE_OBJECT)
				collect_columns(&cols, e, "");
			else if (is_scalar(e))
				scalars = 1;
		}
	if (scalars)
		add_column(&cols, "value");
	fprintf(out, "# %s\n", name);
	for (size_t i = 0; ids && i < ids->count; i++)
		put_field(out, ids->nodes[i]->key, i == 0);
	for (size_t i = 0; i < cols.names->len; i++)
		put_field(out, column(&cols, i), i == 0 && (!ids || !ids->count));
	fputc('\n', out);
	for (size_t p = 0; p < count; p++)
		for (size_t r = 0; r < ct_node_count(parts[p].array); r++) {
			const struct ct_node *e = ct_node_child(parts[p].array, r);
			size_t nids = parts[p].ids.count;

			for (size_t i = 0; i < nids; i++)
				write_value(out, parts[p].ids.nodes[i], i == 0);
			for (size_t i = 0; i < cols.names->len; i++) {
				const struct ct_node *v = e->type == CT_NODE_OBJECT
				                              ? lookup(e, column(&cols, i))
				                              : (is_scalar(e) ? e : NULL);

				write_value(out, v, i == 0 && nids == 0);
			}
			fputc('\n', out);
		}
	fputc('\n', out);
	columns_release(&cols);
	emit_nested(out, name, parts, count);
}

/* A section: its scalars as one row, then its arrays as tables. */
static void emit_section(FILE *out, const struct ct_node *section)
{
	struct columns cols;

	if (section->type == CT_NODE_ARRAY) {
		struct part part = { .array = section };

		emit_table(out, section->key, &part, 1);
		return;
	}
	if (section->type != CT_NODE_OBJECT)
		return;
	columns_init(&cols);
	collect_columns(&cols, section, "");
	if (cols.names->len) {
		fprintf(out, "# %s\n", section->key);
		for (size_t i = 0; i < cols.names->len; i++)
			put_field(out, column(&cols, i), i == 0);
		fputc('\n', out);
		for (size_t i = 0; i < cols.names->len; i++)
			write_value(out, lookup(section, column(&cols, i)), i == 0);
		fputs("\n\n", out);
	}
	columns_release(&cols);
	columns_init(&cols);
	collect_arrays(&cols, section, "");
	for (size_t i = 0; i < cols.names->len; i++) {
		char name[NAME_MAX_LEN * 2];
		struct part part = { .array = lookup(section, column(&cols, i)) };

		/* a name cut to NAME_MAX_LEN finds nothing */
		if (!part.array || part.array->type != CT_NODE_ARRAY)
			continue;
		snprintf(name, sizeof(name), "%s.%s", section->key, column(&cols, i));
		emit_table(out, name, &part, 1);
	}
	columns_release(&cols);
}

static int write_csv(const struct ct_node *root, const struct ct_writer_options *opts, FILE *out)
{
	for (size_t i = 0; i < ct_node_count(root); i++)
		emit_section(out, ct_node_child(root, i));
	return ct_writer_done(out, 0);
}

const struct ct_writer_class ct_csv_writer = {
	.name = "csv",
	.write = write_csv,
};
