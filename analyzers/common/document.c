/* SPDX-License-Identifier: MIT */
/*
 * document.c - the report tree (see document.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract/assert.h"
#include "document.h"

#define DOC_MAX_DEPTH 32

struct ct_doc {
	struct ct_node *root;                /* owned */
	struct ct_node *open[DOC_MAX_DEPTH]; /* open containers, root first; borrowed */
	size_t depth;
	char error[128]; /* "" while all is well */
};

static void node_free(gpointer data)
{
	struct ct_node *node = data;

	if (!node)
		return;
	if (node->children)
		g_ptr_array_free(node->children, TRUE);
	g_free(node->key);
	g_free(node->title);
	if (node->type == CT_NODE_STRING)
		g_free(node->value.str);
	g_free(node);
}

static void fail(struct ct_doc *doc, const char *message)
{
	if (!doc->error[0])
		snprintf(doc->error, sizeof(doc->error), "%s", message);
}

struct ct_doc *ct_doc_create(void)
{
	struct ct_doc *doc = g_new0(struct ct_doc, 1);

	doc->root = g_new0(struct ct_node, 1);
	doc->root->type = CT_NODE_OBJECT;
	doc->root->children = g_ptr_array_new_with_free_func(node_free);
	doc->open[0] = doc->root;
	doc->depth = 1;
	return doc;
}

void ct_doc_destroy(struct ct_doc *doc)
{
	if (!doc)
		return;
	node_free(doc->root);
	g_free(doc);
}

const char *ct_doc_error(const struct ct_doc *doc)
{
	return doc->error[0] ? doc->error : NULL;
}

const struct ct_node *ct_doc_root(const struct ct_doc *doc)
{
	if (doc->error[0] || doc->depth != 1)
		return NULL;
	return doc->root;
}

const struct ct_node *ct_node_get(const struct ct_node *object, const char *key)
{
	if (!object || object->type != CT_NODE_OBJECT)
		return NULL;
	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);

		if (c->key && !strcmp(c->key, key))
			return c;
	}
	return NULL;
}

double ct_node_number(const struct ct_node *node)
{
	switch (node->type) {
	case CT_NODE_U64:
		return (double)node->value.u64;
	case CT_NODE_I64:
		return (double)node->value.i64;
	case CT_NODE_DOUBLE:
		return node->value.dbl;
	default:
		return NAN;
	}
}

uint64_t ct_node_u64(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = ct_node_get(object, key);

	if (n && n->type == CT_NODE_U64)
		return n->value.u64;
	if (n && n->type == CT_NODE_I64 && n->value.i64 > 0)
		return (uint64_t)n->value.i64;
	return 0;
}

int64_t ct_node_i64(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = ct_node_get(object, key);

	return n && n->type == CT_NODE_I64 ? n->value.i64 : (int64_t)ct_node_u64(object, key);
}

const char *ct_node_str(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = ct_node_get(object, key);

	return n && n->type == CT_NODE_STRING && n->value.str[0] ? n->value.str : NULL;
}

/* A new node appended to the innermost open container; NULL after an error. */
static struct ct_node *add(struct ct_doc *doc, const char *key, enum ct_node_type type,
                           enum ct_unit unit)
{
	struct ct_node *parent;
	struct ct_node *node;

	if (doc->error[0])
		return NULL;
	parent = doc->open[doc->depth - 1];
	if ((parent->type == CT_NODE_OBJECT) != (key != NULL)) {
		fail(doc, parent->type == CT_NODE_OBJECT ? "a value without a key in an object"
		                                         : "a value with a key in an array");
		return NULL;
	}
	node = g_new0(struct ct_node, 1);
	node->key = g_strdup(key);
	node->type = type;
	node->unit = unit;
	if (type == CT_NODE_OBJECT || type == CT_NODE_ARRAY)
		node->children = g_ptr_array_new_with_free_func(node_free);
	g_ptr_array_add(parent->children, node);
	return node;
}

static void open_container(struct ct_doc *doc, const char *key, const char *title,
                           enum ct_node_type type)
{
	struct ct_node *node;

	if (doc->error[0])
		return;
	if (doc->depth == DOC_MAX_DEPTH) {
		fail(doc, "objects nested too deep");
		return;
	}
	/* a section has one writer, which writes it once */
	CT_ASSERT(doc->depth > 1 || !key || !ct_node_get(doc->root, key));
	node = add(doc, key, type, CT_UNIT_NONE);
	if (!node)
		return;
	node->title = g_strdup(title);
	doc->open[doc->depth++] = node;
}

void ct_doc_object(struct ct_doc *doc, const char *key, const char *title)
{
	open_container(doc, key, title, CT_NODE_OBJECT);
}

void ct_doc_array(struct ct_doc *doc, const char *key, const char *title)
{
	open_container(doc, key, title, CT_NODE_ARRAY);
}

void ct_doc_detail_array(struct ct_doc *doc, const char *key)
{
	open_container(doc, key, NULL, CT_NODE_ARRAY);
	if (!doc->error[0])
		doc->open[doc->depth - 1]->detail = true;
}

void ct_doc_end(struct ct_doc *doc)
{
	if (doc->error[0])
		return;
	if (doc->depth <= 1) {
		fail(doc, "ct_doc_end without an open object or array");
		return;
	}
	doc->depth--;
}

void ct_doc_u64(struct ct_doc *doc, const char *key, uint64_t value, enum ct_unit unit)
{
	struct ct_node *node = add(doc, key, CT_NODE_U64, unit);

	if (node)
		node->value.u64 = value;
}

void ct_doc_i64(struct ct_doc *doc, const char *key, int64_t value, enum ct_unit unit)
{
	struct ct_node *node = add(doc, key, CT_NODE_I64, unit);

	if (node)
		node->value.i64 = value;
}

void ct_doc_double(struct ct_doc *doc, const char *key, double value, enum ct_unit unit)
{
	struct ct_node *node = add(doc, key, CT_NODE_DOUBLE, unit);

	if (node)
		node->value.dbl = value;
}

void ct_doc_string(struct ct_doc *doc, const char *key, const char *value)
{
	struct ct_node *node;

	if (!value) {
		ct_doc_null(doc, key);
		return;
	}
	node = add(doc, key, CT_NODE_STRING, CT_UNIT_NONE);
	if (node)
		node->value.str = g_utf8_make_valid(value, -1);
}

void ct_doc_bool(struct ct_doc *doc, const char *key, bool value)
{
	struct ct_node *node = add(doc, key, CT_NODE_BOOL, CT_UNIT_NONE);

	if (node)
		node->value.boolean = value;
}

void ct_doc_null(struct ct_doc *doc, const char *key)
{
	add(doc, key, CT_NODE_NULL, CT_UNIT_NONE);
}

void ct_doc_ratio(struct ct_doc *doc, const char *key, double part, double whole)
{
	if (whole > 0)
		ct_doc_double(doc, key, part / whole, CT_UNIT_RATIO);
	else
		ct_doc_null(doc, key);
}
