/* SPDX-License-Identifier: MIT */
/*
 * test-text-wrap.c - text for people within the page's width: the
 * wrapping itself (text-wrap.c) keeps every word, in order, and no line
 * passes its width but a word that must stay whole; the text report
 * (text-writer.c) keeps a table wider than the page within it by putting
 * its headers on more lines, each header whole when its lines are joined
 * again, and wraps a long value under itself; names cut to fit stay
 * apart when they differ only in their middle.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "common/document.h"
#include "common/text-wrap.h"
#include "registry/formats.h"

/* LINES joined with single blanks. g_free it. */
static char *joined(char **lines)
{
	return g_strjoinv(" ", lines);
}

/* Words wrap at blanks: each line fits, nothing is lost or reordered. */
static void test_wrap_words(void **unused)
{
	const char *text = "a sticky CUDA error after which no CUDA call can succeed: run it "
	                   "with CUDA_LAUNCH_BLOCKING=1 or under compute-sanitizer to find the "
	                   "kernel at fault, then restart the process";
	char **lines = ct_text_wrap(text, 30, 20, false);
	char *all = joined(lines);

	(void)unused;
	assert_true(g_strv_length(lines) > 3);
	assert_true(ct_text_width(lines[0]) <= 30);
	/* CUDA_LAUNCH_BLOCKING=1, longer than a line, stays whole on its own */
	for (size_t i = 1; lines[i]; i++)
		assert_true(ct_text_width(lines[i]) <= 20 || !strchr(lines[i], ' '));
	assert_string_equal(all, text);
	g_free(all);
	g_strfreev(lines);
}

/* S without its blanks, in place. */
static char *no_blanks(char *s)
{
	char *to = s;

	for (const char *from = s; *from; from++)
		if (*from != ' ')
			*to++ = *from;
	*to = '\0';
	return s;
}

/* A word longer than a line: cut within when asked (and nothing lost), else whole. */
static void test_long_word(void **unused)
{
	const char *path = "/sys/fs/cgroup/memory/a/very/deep/cgroup/path/of/a/container";
	char *text = g_strdup_printf("cgroup %s while it ran", path);
	char **cut = ct_text_wrap(text, 16, 16, true);
	char **whole = ct_text_wrap(text, 16, 16, false);
	char *cut_all = g_strjoinv("", cut);
	bool found = false;

	(void)unused;
	for (size_t i = 0; cut[i]; i++)
		assert_true(ct_text_width(cut[i]) <= 16);
	/* blanks aside (those where lines were cut are dropped), every character kept */
	assert_string_equal(no_blanks(cut_all), no_blanks(text));
	for (size_t i = 0; whole[i]; i++) {
		found |= !strcmp(whole[i], path);
		assert_true(ct_text_width(whole[i]) <= 16 || !strchr(whole[i], ' '));
	}
	assert_true(found);
	g_free(cut_all);
	g_strfreev(cut);
	g_strfreev(whole);
	g_free(text);
}

/* Characters count, not bytes. */
static void test_utf8(void **unused)
{
	char **lines = ct_text_wrap("héhé héhé héhé", 9, 9, false);

	(void)unused;
	assert_string_equal(lines[0], "héhé héhé");
	assert_string_equal(lines[1], "héhé");
	assert_null(lines[2]);
	g_strfreev(lines);
}

/* DOC's text report (with --details), into a string; DOC destroyed. */
static char *written_text(struct ct_doc *doc)
{
	struct ct_writer_options opts = { .max_rows = 20, .detail = CT_TEXT_DETAILS };
	char *out_text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&out_text, &len);

	assert_null(ct_doc_error(doc));
	assert_non_null(out);
	assert_int_equal(
	    ct_format_find(CT_FORMAT_REPORT, "text")->writer->write(ct_doc_root(doc), &opts, out),
	    0);
	assert_int_equal(fclose(out), 0);
	ct_doc_destroy(doc);
	return out_text;
}

/* The text report of a document with a wide table and a long value, into a string. */
static char *text_report(void)
{
	static const char *const keys[] = {
		"first_column_with_a_long_name", "second_column_with_a_long_name",
		"third_column_with_a_long_name", "fourth_column_with_a_long_name",
		"fifth_column_with_a_long_name",
	};
	struct ct_doc *doc = ct_doc_create();

	ct_doc_object(doc, "trace", "Trace");
	ct_doc_i64(doc, "start_ns", 0, CT_UNIT_TIME);
	ct_doc_end(doc);
	ct_doc_object(doc, "wide", "Wide");
	ct_doc_string(doc, "summary",
	              "a sentence long enough to need three lines of the page: it says what "
	              "happened and why, with the figures it rests on, and what to do about it "
	              "next time, in words anyone can read");
	ct_doc_array(doc, "rows", "Rows");
	for (int row = 0; row < 2; row++) {
		ct_doc_object(doc, NULL, NULL);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			ct_doc_u64(doc, keys[k], 1000 * (uint64_t)(row + 1) + k, CT_UNIT_NONE);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
	ct_doc_end(doc);
	return written_text(doc);
}

/* A wide table fits the page, its headers whole again when their lines are joined. */
static void test_report_width(void **unused)
{
	char *text = text_report();
	char **lines = g_strsplit(text, "\n", -1);
	size_t header = 0, rows = 0;

	(void)unused;
	for (size_t i = 0; lines[i]; i++) {
		assert_true(ct_text_width(lines[i]) <= CT_TEXT_WIDTH);
		if (strstr(lines[i], "first column"))
			header = i;
	}
	assert_true(header > 0);
	/* the header lines, then the rows: every cell there, in order */
	for (size_t i = header; lines[i] && !rows; i++)
		if (strstr(lines[i], "1000"))
			rows = i;
	assert_true(rows > header + 1);
	assert_non_null(strstr(lines[rows], "1000"));
	assert_true(strstr(lines[rows], "1000") < strstr(lines[rows], "1004"));
	assert_true(strstr(lines[rows + 1], "2000") < strstr(lines[rows + 1], "2004"));
	/* the first column's header, from its lines, whole: the column ends where its cells do */
	{
		size_t end = (size_t)(strstr(lines[rows], "1000") - lines[rows]) + 4;
		GString *first = g_string_new(NULL);

		for (size_t i = header; i < rows; i++) {
			char *cell = g_strstrip(g_strndup(lines[i], MIN(end, strlen(lines[i]))));

			g_string_append_printf(first, "%s%s", first->len && cell[0] ? " " : "",
			                       cell);
			g_free(cell);
		}
		assert_string_equal(first->str, "first column with a long name");
		g_string_free(first, TRUE);
	}
	/* the long value, continued under itself */
	assert_non_null(strstr(text, "summary: a sentence long enough"));
	assert_non_null(strstr(text, "\n         "));
	g_strfreev(lines);
	free(text);
}

/* A name cut in the middle: whole when it fits, else its start and end, in characters. */
static void test_cut_middle(void **unused)
{
	char *cut;

	(void)unused;
	cut = ct_text_cut_middle("abcdefghij", 10);
	assert_string_equal(cut, "abcdefghij");
	g_free(cut);
	cut = ct_text_cut_middle("abcdefghij", 7);
	assert_string_equal(cut, "abcd…ij");
	assert_int_equal(ct_text_width(cut), 7);
	g_free(cut);
	cut = ct_text_cut_middle("héhéhéhé", 5);
	assert_string_equal(cut, "hé…hé");
	g_free(cut);
	cut = ct_text_cut_middle("abcdefghij", 2);
	assert_string_equal(cut, "abcdefghij");
	g_free(cut);
}

/*
 * A name cut around a character: as the middle cut when that keeps it,
 * else its start, "…", a window holding the character, and "…" unless the
 * window reaches the end; always WIDTH characters.
 */
static void test_cut_showing(void **unused)
{
	const char *text = "abcdefghijklmnopqrstuvwxyz0123456789";
	char *cut;

	(void)unused;
	/* the middle cut keeps offset 3 and offset 34: it is that cut */
	cut = ct_text_cut_showing(text, 12, 3);
	assert_string_equal(cut, "abcdefg…6789");
	g_free(cut);
	cut = ct_text_cut_showing(text, 12, 34);
	assert_string_equal(cut, "abcdefg…6789");
	g_free(cut);
	/* 'q' (16) left out by the middle cut: a window from a little before it */
	cut = ct_text_cut_showing(text, 12, 16);
	assert_string_equal(cut, "abc…opqrstu…");
	assert_int_equal(ct_text_width(cut), 12);
	g_free(cut);
	/* near the end, the window reaches it: one "…" */
	cut = ct_text_cut_showing(text, 12, 30);
	assert_string_equal(cut, "abc…23456789");
	g_free(cut);
	/* in characters, not bytes */
	cut = ct_text_cut_showing("ééééééééééééééééxéééééééééééééééééé", 12, 16);
	assert_int_equal(ct_text_width(cut), 12);
	assert_non_null(strstr(cut, "x"));
	g_free(cut);
	/* whole when it fits; a width too narrow to move in cuts the middle */
	cut = ct_text_cut_showing("abcdef", 6, 3);
	assert_string_equal(cut, "abcdef");
	g_free(cut);
	cut = ct_text_cut_showing(text, 8, 16);
	assert_string_equal(cut, "abcd…789");
	g_free(cut);
}

/*
 * A table of KEY cells of 300 characters beside three numbers, as the
 * text report writes it, into a string.
 */
static char *long_cells_report(const char *key, const char *cell)
{
	struct ct_doc *doc = ct_doc_create();

	ct_doc_object(doc, "trace", "Trace");
	ct_doc_i64(doc, "start_ns", 0, CT_UNIT_TIME);
	ct_doc_end(doc);
	ct_doc_array(doc, "kernels", "Kernels");
	ct_doc_object(doc, NULL, NULL);
	ct_doc_string(doc, key, cell);
	ct_doc_u64(doc, "launches", 2000, CT_UNIT_NONE);
	ct_doc_u64(doc, "count", 2000, CT_UNIT_NONE);
	ct_doc_u64(doc, "other", 7, CT_UNIT_NONE);
	ct_doc_end(doc);
	ct_doc_end(doc);
	return written_text(doc);
}

/*
 * A kernel's name too long for the page is cut in the middle, its start
 * and end kept, and the table fits; a sentence is never cut.
 */
static void test_long_cells(void **unused)
{
	GString *name = g_string_new("void at::native::vectorized_elementwise_kernel<4, ");
	char *text, **lines;

	(void)unused;
	while (name->len < 290)
		g_string_append(name, "at::native::launch_clamp_scalar, ");
	g_string_append(name, "std::array<char*, 2ul>)");
	text = long_cells_report("name", name->str);
	lines = g_strsplit(text, "\n", -1);
	for (size_t i = 0; lines[i]; i++)
		assert_true(ct_text_width(lines[i]) <= CT_TEXT_WIDTH);
	assert_non_null(strstr(text, "void at::native::vectorized_elementwise_kernel<4"));
	assert_non_null(strstr(text, "…"));
	assert_non_null(strstr(text, "2ul>)"));
	assert_non_null(strstr(text, "2000"));
	g_strfreev(lines);
	free(text);
	text = long_cells_report("summary", name->str);
	assert_non_null(strstr(text, name->str));
	free(text);
	g_string_free(name, TRUE);
}

/* Kernels of one template, told apart by an argument in the middle of their names. */
static void test_alike_cells_stay_apart(void **unused)
{
	const char *functors[] = { "AddFunctor", "MulFunctor", "AddFunctor" };
	const char *sizes[] = { "float", "float", "double" };
	struct ct_doc *doc = ct_doc_create();
	char *text, *rows[3] = { NULL };
	char **lines;
	size_t found = 0;

	(void)unused;
	ct_doc_object(doc, "trace", "Trace");
	ct_doc_i64(doc, "start_ns", 0, CT_UNIT_TIME);
	ct_doc_end(doc);
	ct_doc_array(doc, "kernels", "Kernels");
	for (size_t k = 0; k < G_N_ELEMENTS(functors); k++) {
		GString *name = g_string_new("void at::native::vectorized_elementwise_kernel<4, ");

		while (name->len < 120)
			g_string_append(name, "at::native::detail::");
		g_string_append_printf(name, "%s<%s>, ", functors[k], sizes[k]);
		while (name->len < 260)
			g_string_append(name, "at::detail::Array<char*, 3>, ");
		g_string_append(name, "std::array<char*, 3ul>)");
		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "name", name->str);
		ct_doc_u64(doc, "launches", 2000 + k, CT_UNIT_NONE);
		ct_doc_u64(doc, "count", 2000, CT_UNIT_NONE);
		ct_doc_end(doc);
		g_string_free(name, TRUE);
	}
	ct_doc_end(doc);
	text = written_text(doc);
	lines = g_strsplit(text, "\n", -1);
	for (size_t i = 0; lines[i]; i++) {
		assert_true(ct_text_width(lines[i]) <= CT_TEXT_WIDTH);
		if (strstr(lines[i], "void at::native::") && found < 3)
			rows[found++] = g_strdup(lines[i]);
	}
	assert_int_equal(found, 3);
	/* three rows, three names, each with what tells it apart */
	assert_string_not_equal(rows[0], rows[1]);
	assert_string_not_equal(rows[0], rows[2]);
	assert_string_not_equal(rows[1], rows[2]);
	assert_non_null(strstr(rows[1], "Mul"));
	assert_non_null(strstr(rows[2], "double"));
	for (size_t i = 0; i < found; i++)
		g_free(rows[i]);
	g_strfreev(lines);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_words),  cmocka_unit_test(test_long_word),
		cmocka_unit_test(test_utf8),        cmocka_unit_test(test_report_width),
		cmocka_unit_test(test_cut_middle),  cmocka_unit_test(test_long_cells),
		cmocka_unit_test(test_cut_showing), cmocka_unit_test(test_alike_cells_stay_apart),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
