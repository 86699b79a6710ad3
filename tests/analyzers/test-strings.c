/* SPDX-License-Identifier: MIT */
/*
 * test-strings.c - strings from a trace on their way to people and files:
 * ct_format_text() escapes what a terminal would act on and the bytes
 * that are not UTF-8, and cuts between characters; the report document
 * keeps every string valid UTF-8.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/document.h"
#include "report/writer.h"

static const char *text(const char *s, size_t len)
{
	static char buf[256];

	return ct_format_text(s, buf, len ? len : sizeof(buf));
}

static void test_plain_text_unchanged(void **unused)
{
	assert_string_equal(text("train/step:cudaMalloc", 0), "train/step:cudaMalloc");
	assert_string_equal(text("h\xc3\xb4te \xe2\x82\xac", 0), "h\xc3\xb4te \xe2\x82\xac");
	assert_string_equal(text("", 0), "");
	/* backslashes are left alone: text for people, not a format to parse back */
	assert_string_equal(text("a\\b", 0), "a\\b");
}

static void test_controls_escaped(void **unused)
{
	assert_string_equal(text("a\nb\rc\td", 0), "a\\nb\\rc\\td");
	assert_string_equal(text("\x1b[2J\x1b]0;t\x07", 0), "\\x1b[2J\\x1b]0;t\\x07");
	assert_string_equal(text("del\x7f", 0), "del\\x7f");
	/* C1 CSI, NEL; the line separator; a right-to-left override */
	assert_string_equal(text("\xc2\x9b"
	                         "2J\xc2\x85",
	                         0),
	                    "\\u009b2J\\u0085");
	assert_string_equal(text("a\xe2\x80\xa8"
	                         "b\xe2\x80\xae",
	                         0),
	                    "a\\u2028b\\u202e");
}

static void test_invalid_bytes_escaped(void **unused)
{
	/* a lone continuation, a byte never in UTF-8, an overlong '/', a surrogate */
	assert_string_equal(text("\x80x\xff", 0), "\\x80x\\xff");
	assert_string_equal(text("\xc0\xaf", 0), "\\xc0\\xaf");
	assert_string_equal(text("\xed\xa0\x80", 0), "\\xed\\xa0\\x80");
	/* a sequence cut by the end of the string */
	assert_string_equal(text("ok\xe2\x82", 0), "ok\\xe2\\x82");
}

static void test_cut_between_characters(void **unused)
{
	/* 4 bytes: "ab" and the NUL, not half of the euro sign */
	assert_string_equal(text("ab\xe2\x82\xac", 4), "ab");
	assert_string_equal(text("ab\xe2\x82\xac", 6), "ab\xe2\x82\xac");
	/* nor half of an escape */
	assert_string_equal(text("ab\x1b", 6), "ab");
	assert_string_equal(text("ab\x1b", 7), "ab\\x1b");
	assert_string_equal(text("abc", 1), "");
}

static void test_document_strings_are_utf8(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;

	ct_doc_string(doc, "name", "ev\xffil\xc3");
	ct_doc_string(doc, "ok", "h\xc3\xb4te");
	root = ct_doc_root(doc);
	assert_non_null(root);
	assert_string_equal(ct_node_get(root, "name")->value.str, "ev\xef\xbf\xbdil\xef\xbf\xbd");
	assert_string_equal(ct_node_get(root, "ok")->value.str, "h\xc3\xb4te");
	ct_doc_destroy(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_unchanged),
		cmocka_unit_test(test_controls_escaped),
		cmocka_unit_test(test_invalid_bytes_escaped),
		cmocka_unit_test(test_cut_between_characters),
		cmocka_unit_test(test_document_strings_are_utf8),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
