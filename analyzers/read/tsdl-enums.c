/* SPDX-License-Identifier: MIT */
/*
 * tsdl-enums.c - the enumerations of a CTF 1.8 trace's metadata text (see
 * tsdl-enums.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tsdl-enums.h"
#include "tsdl-lexer.h"

/* The signedness of an enumeration's integer, where the text gives it. */
enum sign { SIGN_UNKNOWN, SIGN_UNSIGNED, SIGN_SIGNED };

/* A range of a label: its values as their 64 bits (two's complement). */
struct range {
	uint64_t lo, hi;
	guint enumeration; /* its index in ct_tsdl_enums.signs */
	const char *label; /* borrowed: the key of ct_tsdl_enums.labels */
};

struct ct_tsdl_enums {
	GArray *signs;      /* enum sign, per enumeration in the text's order */
	GHashTable *labels; /* label (owned) -> GArray of struct range, every enumeration's */
};

struct scan {
	struct ct_tsdl_lexer lx;
	struct ct_tsdl_token tk;
	struct ct_tsdl_enums *enums;
	GHashTable *aliases; /* an integer's alias or typedef (owned) -> enum sign */
	char *why;
	size_t len;
	bool failed;
};

static void advance(struct scan *s)
{
	ct_tsdl_next(&s->lx, &s->tk);
}

static bool at(const struct scan *s, const char *text)
{
	return ct_tsdl_is(&s->tk, text);
}

static bool usable(const struct scan *s)
{
	return !s->failed && s->tk.type != CT_TOK_END && s->tk.type != CT_TOK_BAD;
}

/*
 * The signedness an integer's body gives (the current token its '{'),
 * read up to and past its '}': "signed = 1", "true" or "TRUE" make it
 * signed; it is unsigned without (CTF 1.8 section 4.1.5).
 */
static enum sign integer_body(struct scan *s)
{
	enum sign sign = SIGN_UNSIGNED;
	int depth = 0;

	do {
		if (at(s, "{")) {
			depth++;
		} else if (at(s, "}")) {
			depth--;
		} else if (depth == 1 && at(s, "signed")) {
			advance(s);
			if (!at(s, "="))
				continue;
			advance(s);
			if (s->tk.type == CT_TOK_NUMBER)
				sign = s->tk.value ? SIGN_SIGNED : SIGN_UNSIGNED;
			else
				sign = at(s, "true") || at(s, "TRUE") ? SIGN_SIGNED : SIGN_UNSIGNED;
		}
		advance(s);
	} while (depth > 0 && usable(s));
	return sign;
}

/* The identifiers from the current token on, joined by a blank (a type's name), into BUF. */
static void words(struct scan *s, char *buf, size_t size)
{
	buf[0] = '\0';
	while (s->tk.type == CT_TOK_IDENT && usable(s)) {
		ct_tsdl_join(buf, size, &s->tk);
		advance(s);
	}
}

static enum sign alias_sign(const struct scan *s, const char *name)
{
	return (enum sign)GPOINTER_TO_INT(g_hash_table_lookup(s->aliases, name));
}

/*
 * "typealias integer { ... } := NAME;" or "typedef integer { ... } NAME;"
 * (the current token the keyword): NAME's signedness kept. Other aliases
 * are left to the scan.
 */
static void integer_alias(struct scan *s, bool typedef_)
{
	char name[256];
	enum sign sign;

	advance(s);
	if (!at(s, "integer"))
		return;
	advance(s);
	if (!at(s, "{"))
		return;
	sign = integer_body(s);
	if (!typedef_) {
		if (!at(s, ":="))
			return;
		advance(s);
	}
	words(s, name, sizeof(name));
	if (name[0])
		g_hash_table_replace(s->aliases, g_strdup(name), GINT_TO_POINTER(sign));
}

/* Whether LO is not above HI in SIGN (in both when it is not known). */
static bool ordered(enum sign sign, uint64_t lo, uint64_t hi)
{
	bool as_unsigned = lo <= hi, as_signed = (int64_t)lo <= (int64_t)hi;

	if (sign == SIGN_SIGNED)
		return as_signed;
	if (sign == SIGN_UNSIGNED)
		return as_unsigned;
	return as_signed && as_unsigned;
}

/* A value of an entry: ['-' | '+'] NUMBER, its 64 bits into *VALUE; false when not one. */
static bool value(struct scan *s, uint64_t *value)
{
	bool negative = at(s, "-");

	if (negative || at(s, "+"))
		advance(s);
	if (s->tk.type != CT_TOK_NUMBER)
		return false;
	*value = negative ? (uint64_t)0 - s->tk.value : s->tk.value;
	advance(s);
	return true;
}

static void add_range(struct scan *s, const struct ct_tsdl_token *label, struct range r)
{
	char *text = label->type == CT_TOK_STRING && label->len >= 2
	                 ? g_strndup(label->text + 1, label->len - 2)
	                 : g_strndup(label->text, label->len);
	gpointer key, ranges;

	if (g_hash_table_lookup_extended(s->enums->labels, text, &key, &ranges)) {
		g_free(text);
	} else {
		key = text;
		ranges = g_array_new(FALSE, FALSE, sizeof(struct range));
		g_hash_table_insert(s->enums->labels, key, ranges);
	}
	r.label = key;
	g_array_append_val((GArray *)ranges, r);
}

/*
 * The entries of an enumeration's body (the current token its '{'):
 * "LABEL", "LABEL = VALUE" or "LABEL = VALUE ... VALUE", a label without
 * a value the one after the entry before it (0 first). An entry that is
 * none of these ends the body's reading: babeltrace2 says what is wrong.
 */
static void enum_body(struct scan *s, enum sign sign)
{
	guint enumeration = s->enums->signs->len;
	uint64_t next = 0;

	g_array_append_val(s->enums->signs, sign);
	advance(s);
	while (usable(s) && (s->tk.type == CT_TOK_IDENT || s->tk.type == CT_TOK_STRING)) {
		struct ct_tsdl_token label = s->tk;
		struct range r = { .lo = next, .hi = next, .enumeration = enumeration };

		advance(s);
		if (at(s, "=")) {
			advance(s);
			if (!value(s, &r.lo))
				return;
			r.hi = r.lo;
			if (at(s, "...")) {
				advance(s);
				if (!value(s, &r.hi))
					return;
			}
		}
		if (!ordered(sign, r.lo, r.hi)) {
			snprintf(s->why, s->len,
			         "its metadata is not valid CTF: the range of enumeration label "
			         "'%.*s' ends before it starts",
			         (int)MIN(label.len, 64), label.text);
			s->failed = true;
			return;
		}
		add_range(s, &label, r);
		next = r.hi + 1;
		if (!at(s, ","))
			return;
		advance(s);
	}
}

/* "enum [NAME] [: TYPE] { ... }" (the current token "enum"); a use of a named one has no body. */
static void enumeration(struct scan *s)
{
	enum sign sign = alias_sign(s, "int"); /* CTF 1.8 section 4.1.8: "int" without ':' */

	advance(s);
	if (s->tk.type == CT_TOK_IDENT)
		advance(s);
	if (at(s, ":")) {
		advance(s);
		if (at(s, "integer")) {
			advance(s);
			if (!at(s, "{"))
				return;
			sign = integer_body(s);
		} else {
			char name[256];

			words(s, name, sizeof(name));
			sign = alias_sign(s, name);
		}
	}
	if (at(s, "{"))
		enum_body(s, sign);
}

struct ct_tsdl_enums *ct_tsdl_enums_scan(const char *text, size_t n, char *why, size_t len)
{
	struct ct_tsdl_enums *enums = g_new0(struct ct_tsdl_enums, 1);
	struct scan s = {
		.lx = { text, text + n },
		.enums = enums,
		.aliases = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		.why = why,
		.len = len,
	};

	enums->signs = g_array_new(FALSE, FALSE, sizeof(enum sign));
	enums->labels =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
	advance(&s);
	while (usable(&s)) {
		if (at(&s, "typealias") || at(&s, "typedef"))
			integer_alias(&s, at(&s, "typedef"));
		else if (at(&s, "enum"))
			enumeration(&s);
		else
			advance(&s);
	}
	g_hash_table_destroy(s.aliases);
	if (s.failed) {
		ct_tsdl_enums_destroy(enums);
		return NULL;
	}
	return enums;
}

bool ct_tsdl_enums_has_label(const struct ct_tsdl_enums *enums, const char *name)
{
	return g_hash_table_contains(enums->labels, name);
}

/* By enumeration, then first value, last value and label: unsigned. */
static gint by_unsigned(gconstpointer a, gconstpointer b)
{
	const struct range *x = a, *y = b;

	if (x->enumeration != y->enumeration)
		return x->enumeration < y->enumeration ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* The same, the values signed. */
static gint by_signed(gconstpointer a, gconstpointer b)
{
	const struct range *x = a, *y = b;

	if (x->enumeration != y->enumeration)
		return x->enumeration < y->enumeration ? -1 : 1;
	if ((int64_t)x->lo != (int64_t)y->lo)
		return (int64_t)x->lo < (int64_t)y->lo ? -1 : 1;
	if ((int64_t)x->hi != (int64_t)y->hi)
		return (int64_t)x->hi < (int64_t)y->hi ? -1 : 1;
	return strcmp(x->label, y->label);
}

/*
 * The first of RANGES (sorted as SIGNED says) that overlaps one before
 * it of its enumeration, among the enumerations of that signedness (or
 * of none known); NULL when none does. *BEFORE is that one.
 */
static const struct range *overlap(const struct ct_tsdl_enums *enums, GArray *ranges,
                                   bool is_signed, const struct range **before)
{
	const struct range *reach = NULL; /* the one that reaches furthest so far */

	for (guint i = 0; i < ranges->len; i++) {
		const struct range *r = &g_array_index(ranges, struct range, i);
		enum sign sign = g_array_index(enums->signs, enum sign, r->enumeration);

		if (sign == (is_signed ? SIGN_UNSIGNED : SIGN_SIGNED))
			continue;
		if (reach && reach->enumeration == r->enumeration &&
		    (is_signed ? (int64_t)r->lo <= (int64_t)reach->hi : r->lo <= reach->hi)) {
			*before = reach;
			return r;
		}
		if (!reach || reach->enumeration != r->enumeration ||
		    (is_signed ? (int64_t)r->hi > (int64_t)reach->hi : r->hi > reach->hi))
			reach = r;
	}
	return NULL;
}

int ct_tsdl_enums_options_apart(const struct ct_tsdl_enums *enums, GHashTable *options, char *why,
                                size_t len)
{
	GArray *ranges = g_array_new(FALSE, FALSE, sizeof(struct range));
	const struct range *r = NULL, *before = NULL;
	GHashTableIter iter;
	gpointer name;

	g_hash_table_iter_init(&iter, options);
	while (g_hash_table_iter_next(&iter, &name, NULL)) {
		GArray *of = g_hash_table_lookup(enums->labels, name);

		if (of)
			g_array_append_vals(ranges, of->data, of->len);
	}
	g_array_sort(ranges, by_unsigned);
	r = overlap(enums, ranges, false, &before);
	if (!r) {
		g_array_sort(ranges, by_signed);
		r = overlap(enums, ranges, true, &before);
	}
	if (r && !strcmp(r->label, before->label))
		snprintf(why, len,
		         "its metadata is not valid CTF: a variant's option '%.64s' has ranges "
		         "that overlap in its enumeration",
		         r->label);
	else if (r)
		snprintf(why, len,
		         "its metadata is not valid CTF: a variant's options '%.64s' and '%.64s' "
		         "have ranges that overlap in one enumeration",
		         before->label, r->label);
	g_array_free(ranges, TRUE);
	return r ? -1 : 0;
}

void ct_tsdl_enums_destroy(struct ct_tsdl_enums *enums)
{
	if (!enums)
		return;
	g_array_free(enums->signs, TRUE);
	g_hash_table_destroy(enums->labels);
	g_free(enums);
}
