/* SPDX-License-Identifier: MIT */
/*
 * document.h - the report as a tree of objects, arrays and values with
 * units, which every analysis writes its section into and every writer
 * (JSON, CSV, text; writer.h) renders. The tree mirrors the JSON schema of
 * doc/report-schema.md: what an analysis writes here is the schema.
 *
 * Writing is a cursor API: open an object or an array, put values, close
 * it. Keys are copied. Each top-level section has one writer (analysis.h)
 * and is written once: a second one under the same key is an internal
 * error.
 *
 *	ct_doc_object(doc, "memory", "Memory");
 *	ct_doc_array(doc, "devices", "Per process and device");
 *	ct_doc_object(doc, NULL, NULL);         (an array element)
 *	ct_doc_u64(doc, "peak_bytes", peak, CT_UNIT_BYTES);
 *	ct_doc_end(doc);                        (closes the element)
 *	ct_doc_end(doc);                        (closes the array)
 *	ct_doc_end(doc);                        (closes "memory")
 *
 * Errors (a value without a key in an object, unbalanced calls, too
 * deep) are sticky: later calls do nothing and ct_doc_error() says what
 * went wrong.
 */
#ifndef CUDATRACE_ANALYZERS_DOCUMENT_H
#define CUDATRACE_ANALYZERS_DOCUMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/* What a number means, so that text can say "1.5 MiB" and JSON stays raw. */
enum ct_unit {
	CT_UNIT_NONE = 0,  /* a count or a plain number */
	CT_UNIT_BYTES,     /* bytes */
	CT_UNIT_DURATION,  /* nanoseconds */
	CT_UNIT_TIME,      /* ns on the trace clock */
	CT_UNIT_ADDRESS,   /* shown in hex */
	CT_UNIT_RATIO,     /* 0..1, shown as a percentage */
	CT_UNIT_BANDWIDTH, /* bytes per second */
	CT_UNIT_ID,        /* an identifier (pid, device): never scaled */
};

enum ct_node_type {
	CT_NODE_OBJECT,
	CT_NODE_ARRAY,
	CT_NODE_U64,
	CT_NODE_I64,
	CT_NODE_DOUBLE,
	CT_NODE_STRING,
	CT_NODE_BOOL,
	CT_NODE_NULL,
};

/* A node of the tree. Children are owned by their parent, the root by the document. */
struct ct_node {
	enum ct_node_type type;
	enum ct_unit unit;
	char *key;   /* owned; NULL for array elements and the root */
	char *title; /* owned; for people (text), NULL if none */
	bool detail; /* for programs only: text leaves it out (ct_doc_detail_array) */
	union {
		uint64_t u64;
		int64_t i64;
		double dbl;
		char *str; /* owned */
		bool boolean;
	} value;
	/* Objects and arrays: their members or elements, in order; owned. NULL for values. */
	GPtrArray *children;
};

/* The number of children of NODE (members, elements); 0 for a value. */
static inline size_t ct_node_count(const struct ct_node *node)
{
	return node->children ? node->children->len : 0;
}

/* Child I of NODE, I < ct_node_count(NODE). */
static inline const struct ct_node *ct_node_child(const struct ct_node *node, size_t i)
{
	return g_ptr_array_index(node->children, i);
}

struct ct_doc;

struct ct_doc *ct_doc_create(void);
void ct_doc_destroy(struct ct_doc *doc);

/* Opens an object (KEY NULL inside an array); TITLE is for text output, may be NULL. */
void ct_doc_object(struct ct_doc *doc, const char *key, const char *title);
/* Opens an array. */
void ct_doc_array(struct ct_doc *doc, const char *key, const char *title);
/* Opens an array for programs only (a call stack): JSON and CSV write it,
 * text leaves it out. */
void ct_doc_detail_array(struct ct_doc *doc, const char *key);
/* Closes the innermost open object or array. */
void ct_doc_end(struct ct_doc *doc);

void ct_doc_u64(struct ct_doc *doc, const char *key, uint64_t value, enum ct_unit unit);
void ct_doc_i64(struct ct_doc *doc, const char *key, int64_t value, enum ct_unit unit);
void ct_doc_double(struct ct_doc *doc, const char *key, double value, enum ct_unit unit);
/*
 * VALUE NULL writes null. Strings often come from the traced program and
 * may hold any bytes: the document keeps them as valid UTF-8, each byte
 * that is not part of a valid sequence replaced by U+FFFD, so that every
 * writer can rely on it (JSON and CSV must be UTF-8).
 */
void ct_doc_string(struct ct_doc *doc, const char *key, const char *value);
void ct_doc_bool(struct ct_doc *doc, const char *key, bool value);
void ct_doc_null(struct ct_doc *doc, const char *key);
/* PART / WHOLE as a ratio (CT_UNIT_RATIO), or null when WHOLE is not positive. */
void ct_doc_ratio(struct ct_doc *doc, const char *key, double part, double whole);

/* NULL if all is well, else a message (owned by the document). */
const char *ct_doc_error(const struct ct_doc *doc);
/* The root object; NULL while objects are still open or after an error. */
const struct ct_node *ct_doc_root(const struct ct_doc *doc);

/* The child of OBJECT called KEY, NULL if none. */
const struct ct_node *ct_node_get(const struct ct_node *object, const char *key);
/* NODE's number (an integer or a double) as a double; NAN for a node that holds none. */
double ct_node_number(const struct ct_node *node);

/* OBJECT's integer at KEY as a uint64_t: 0 when it has none, or a negative one. */
uint64_t ct_node_u64(const struct ct_node *object, const char *key);
/* OBJECT's integer at KEY as an int64_t (a U64 wraps): 0 when it has none. */
int64_t ct_node_i64(const struct ct_node *object, const char *key);
/* OBJECT's string at KEY: NULL when it has none, or an empty one. */
const char *ct_node_str(const struct ct_node *object, const char *key);

#endif
