/* SPDX-License-Identifier: MIT */
/*
 * test-text.c - bounded strings (libtrace/text.c): no string field longer
 * than CUDATRACE_MAX_STRING bytes, cut at a UTF-8 character boundary, NULL
 * as "", and wide strings converted to UTF-8 within the same bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include <cmocka.h>

#include "state.h"
#include "text.h"

static int max_string_16(void **state)
{
	(void)state;
	config.max_string = 16;
	return 0;
}

static void test_null_and_short(void **state)
{
	(void)state;
	assert_int_equal(text_length(NULL), 0);
	assert_string_equal(text_or_empty(NULL), "");
	assert_string_equal(text_or_empty("k"), "k");
	assert_int_equal(text_length(""), 0);
	assert_int_equal(text_length("vectorAdd"), 9);
	assert_int_equal(text_length("exactly16bytes!!"), 16);
}

static void test_ascii_cut_at_max_string(void **state)
{
	(void)state;
	assert_int_equal(text_length("seventeen bytes!!"), 16);
	assert_int_equal(text_length("a much longer kernel name than sixteen bytes"), 16);
	config.max_string = 256;
	assert_int_equal(text_length("a much longer kernel name than sixteen bytes"), 44);
}

/* A bound of the caller's (a kernel name's) rather than max_string, cut
 * at a character's first byte the same way. */
static void test_within_a_bound_of_its_own(void **state)
{
	static const char euro_at_15[] = "fourteen bytes\xe2\x82\xac and more";

	(void)state;
	assert_int_equal(text_length_within(NULL, 32), 0);
	assert_int_equal(text_length_within("a much longer kernel name than sixteen bytes", 32),
	                 32);
	assert_int_equal(text_length_within("a much longer kernel name than sixteen bytes", 2048),
	                 44);
	assert_int_equal(text_length_within(euro_at_15, 16), 14);
	assert_int_equal(text_length_within(euro_at_15, 17), 17);
}

/* A cut never leaves half a character: it backs off to the character's
 * first byte. */
static void test_utf8_boundary(void **state)
{
	/* 15 ASCII bytes then "é" (2 bytes): byte 16 would split it. */
	const char *e_acute = "fifteen bytes..\xc3\xa9tail";
	/* 14 ASCII bytes then "€" (3 bytes) over bytes 15-17. */
	const char *euro = "fourteen bytes\xe2\x82\xac";
	/* 13 ASCII bytes then U+1F600 (4 bytes) over bytes 14-17. */
	const char *emoji = "thirteen byte\xf0\x9f\x98\x80!";
	/* 14 ASCII bytes then "é": ends exactly at byte 16, kept whole. */
	const char *fits = "fourteen bytes\xc3\xa9-";

	(void)state;
	assert_int_equal(text_length(e_acute), 15);
	assert_int_equal(text_length(euro), 14);
	assert_int_equal(text_length(emoji), 13);
	assert_int_equal(text_length(fits), 16);
	/* Nothing but multi-byte characters. */
	assert_int_equal(text_length("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	                             "\xe2\x82\xac\xe2\x82\xac"),
	                 15);
}

static void test_wide(void **state)
{
	char out[64];

	(void)state;
	config.max_string = 256;
	assert_int_equal(text_from_wide(out, sizeof(out), L"range"), 5);
	assert_string_equal(out, "range");
	assert_int_equal(text_from_wide(out, sizeof(out), L"\u00e9\u20ac\U0001F600"), 9);
	assert_string_equal(out, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	assert_int_equal(text_from_wide(out, sizeof(out), NULL), 0);
	assert_string_equal(out, "");
	/* Not characters: a lone surrogate and beyond U+10FFFF. */
	{
		const wchar_t bad[] = { 0xd800, (wchar_t)0x110000, 'x', 0 };

		assert_int_equal(text_from_wide(out, sizeof(out), bad), 7);
		assert_string_equal(out, "\xef\xbf\xbd\xef\xbf\xbdx");
	}
}

/* Bounded by max_string and by the room given, whole characters only. */
static void test_wide_bounds(void **state)
{
	char out[64];
	char small[4];

	(void)state;
	assert_int_equal(text_from_wide(out, sizeof(out), L"a wide string of thirty bytes."), 16);
	assert_string_equal(out, "a wide string of");
	assert_int_equal(text_from_wide(out, sizeof(out), L"fifteen bytes..\u00e9"), 15);
	assert_int_equal(strlen(out), 15);
	assert_int_equal(text_from_wide(small, sizeof(small), L"\u20ac\u20ac"), 3);
	assert_string_equal(small, "\xe2\x82\xac");
	assert_int_equal(text_from_wide(small, sizeof(small), L"ab\u00e9"), 2);
	assert_string_equal(small, "ab");
	small[0] = 'x';
	assert_int_equal(text_from_wide(small, 0, L"abc"), 0);
	assert_int_equal(small[0], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_null_and_short, max_string_16),
		cmocka_unit_test_setup(test_ascii_cut_at_max_string, max_string_16),
		cmocka_unit_test_setup(test_utf8_boundary, max_string_16),
		cmocka_unit_test_setup(test_within_a_bound_of_its_own, max_string_16),
		cmocka_unit_test(test_wide),
		cmocka_unit_test_setup(test_wide_bounds, max_string_16),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
