/* SPDX-License-Identifier: MIT */
/*
 * test-tsdl-enums.c - the enumerations of metadata text (tsdl-enums.c):
 * labels plain and quoted, values written and implicit (the one after the
 * entry before), ranges in the signedness of their integer (its own, a
 * typealias's, a typedef's, unknown: both), a variant's options apart in
 * each enumeration, and not compared across enumerations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "read/tsdl-enums.h"

static char why[256];

static struct ct_tsdl_enums *scan(const char *text)
{
	why[0] = '\0';
	return ct_tsdl_enums_scan(text, strlen(text), why, sizeof(why));
}

/* Whether OPTIONS (NULL-ended) are apart in the enumerations of TEXT. */
static bool apart(const char *text, ...)
{
	struct ct_tsdl_enums *enums = scan(text);
	GHashTable *options = g_hash_table_new(g_str_hash, g_str_equal);
	const char *name;
	va_list ap;
	int ret;

	assert_non_null(enums);
	va_start(ap, text);
	while ((name = va_arg(ap, const char *)))
		g_hash_table_add(options, (gpointer)name);
	va_end(ap);
	ret = ct_tsdl_enums_options_apart(enums, options, why, sizeof(why));
	g_hash_table_destroy(options);
	ct_tsdl_enums_destroy(enums);
	return ret == 0;
}

static void test_labels(void **state)
{
	struct ct_tsdl_enums *enums =
	    scan("enum e : uint8_t { plain, \"quoted\" = 4, ranged = 5 ... 9 };\n"
	         "struct s { enum : integer { size = 8; } { inner } x; };\n"
	         "/* enum { commented } */ struct t { enum e used; };");

	(void)state;
	assert_non_null(enums);
	assert_true(ct_tsdl_enums_has_label(enums, "plain"));
	assert_true(ct_tsdl_enums_has_label(enums, "quoted"));
	assert_true(ct_tsdl_enums_has_label(enums, "ranged"));
	assert_true(ct_tsdl_enums_has_label(enums, "inner"));
	assert_false(ct_tsdl_enums_has_label(enums, "commented"));
	assert_false(ct_tsdl_enums_has_label(enums, "size"));
	assert_false(ct_tsdl_enums_has_label(enums, "e"));
	ct_tsdl_enums_destroy(enums);
}

static void test_implicit_values(void **state)
{
	(void)state;
	/* a = 0, b = 1, c = 1: b and c overlap */
	assert_false(apart("enum : uint8_t { a, b, c = 1 } k;", "b", "c", NULL));
	assert_non_null(strstr(why, "options 'b' and 'c' have ranges that overlap"));
	/* a = 5, b = 6, c = 7 */
	assert_true(apart("enum : uint8_t { a = 5, b, c } k;", "a", "b", "c", NULL));
	/* after a range, its last value and one */
	assert_false(apart("enum : uint8_t { a = 2 ... 4, b, c = 5 } k;", "b", "c", NULL));
}

static void test_overlaps(void **state)
{
	(void)state;
	assert_false(apart("enum : uint8_t { a = 0 ... 10, b = 5 ... 20 } k;", "a", "b", NULL));
	/* a range inside an earlier, longer one, another between them */
	assert_false(
	    apart("enum : uint8_t { a = 0 ... 100, b = 50, c = 200 } k;", "a", "b", "c", NULL));
	assert_false(apart("enum : uint8_t { a = 0 ... 10, a = 5 ... 20 } k;", "a", NULL));
	assert_non_null(strstr(why, "option 'a' has ranges that overlap"));
	/* one label's ranges apart, touching ones too */
	assert_true(
	    apart("enum : uint8_t { a = 0 ... 4, a = 5 ... 9, b = 10 } k;", "a", "b", NULL));
	/* an overlap with a label that is not an option does not count */
	assert_true(apart("enum : uint8_t { a = 0 ... 10, b = 5, c = 20 } k;", "a", "c", NULL));
	/* nor one across two enumerations */
	assert_true(
	    apart("enum : uint8_t { a = 0 } k; enum : uint8_t { b = 0 } j;", "a", "b", NULL));
}

/* Whether the scan of ALIASES and TEXT finds its ranges in order. */
static bool in_order(const char *aliases, const char *text)
{
	char *both = g_strconcat(aliases, text, NULL);
	struct ct_tsdl_enums *enums = scan(both);

	g_free(both);
	ct_tsdl_enums_destroy(enums);
	return enums != NULL;
}

static void test_signedness(void **state)
{
	const char *aliases = "typealias integer { size = 8; signed = true; } := s8;\n"
	                      "typedef integer { size = 8; signed = 0; } u8;\n";
	char text[512];

	(void)state;
	/* -1 ... 5: in order signed, 2^64 - 1 ... 5 unsigned */
	assert_false(in_order("", "enum : uint8_t { a = -1 ... 5 } k;")); /* unknown: both */
	assert_non_null(strstr(why, "the range of enumeration label 'a' ends before it starts"));
	assert_false(in_order("", "enum : integer { size = 8; } { a = -1 ... 5 } k;"));
	assert_true(in_order("", "enum : integer { size = 8; signed = 1; } { a = -1 ... 5 } k;"));
	assert_true(in_order(aliases, "enum : s8 { a = -1 ... 5 } k;"));
	assert_false(in_order(aliases, "enum : u8 { a = -1 ... 5 } k;"));
	/* 0 ... 2^64 - 1: in order unsigned, 0 ... -1 signed */
	assert_true(in_order(aliases, "enum : u8 { a = 0 ... 18446744073709551615 } k;"));
	assert_false(in_order(aliases, "enum : s8 { a = 0 ... 18446744073709551615 } k;"));
	/* overlaps in the enumeration's own order: -1 and 5 ... 10 unsigned are apart */
	snprintf(text, sizeof(text), "%senum : s8 { a = -1, b = -5 ... 3 } k;", aliases);
	assert_false(apart(text, "a", "b", NULL));
	snprintf(text, sizeof(text), "%senum : u8 { a = -1, b = 5 ... 10 } k;", aliases);
	assert_true(apart(text, "a", "b", NULL));
}

static void test_not_followed(void **state)
{
	struct ct_tsdl_enums *enums;

	(void)state;
	/* what the scan does not follow is left to babeltrace2: no failure here */
	enums = scan("enum : uint8_t { a = x, b } k; enum { 3 } j; enum : { c } i; enum");
	assert_non_null(enums);
	/* an entry whose value is not a number ends its body's reading */
	assert_false(ct_tsdl_enums_has_label(enums, "a"));
	assert_false(ct_tsdl_enums_has_label(enums, "b"));
	assert_true(ct_tsdl_enums_has_label(enums, "c"));
	ct_tsdl_enums_destroy(enums);
	enums = scan("");
	assert_non_null(enums);
	ct_tsdl_enums_destroy(enums);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels),       cmocka_unit_test(test_implicit_values),
		cmocka_unit_test(test_overlaps),     cmocka_unit_test(test_signedness),
		cmocka_unit_test(test_not_followed),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
