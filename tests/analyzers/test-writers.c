/* SPDX-License-Identifier: MIT */
/*
 * test-writers.c - the report writers (report/writer.h) on one small
 * document built here, each output held byte for byte to a file written
 * by hand from the formats' rules (tests/analyzers/expected/writers.*):
 * JSON as json-c prints the tree, strings escaped per RFC 8259; CSV's
 * tables, dotted columns, the ids repeated in a nested list's table and
 * RFC 4180 quoting; the text report's first page, labels, units, aligned
 * tables and what it leaves to --details. The end-to-end tests see the
 * writers only through whole traces, where a change in a rule hides among
 * thousands of lines. HTML, a page whose style sheet is most of its
 * bytes, is held to what it must say and escape.
 *
 * The document has a "trace" section, a table of rows with units (bytes,
 * time, duration, id) and a list for programs only in each row, an empty
 * list, a nested object with a list of its own (a table in CSV as any list
 * is, wherever it sits), and strings that need escaping: quotes, commas,
 * a line break, a backslash, a control character, UTF-8 and a byte that
 * is not, a leading blank, an empty string and nulls.
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
#include "report/writer.h"

static void write_trace(struct ct_doc *doc)
{
	ct_doc_object(doc, "trace", "Trace");
	ct_doc_u64(doc, "schema_version", 1, CT_UNIT_NONE);
	ct_doc_i64(doc, "start_ns", 1000000000, CT_UNIT_TIME);
	ct_doc_u64(doc, "duration_ns", 2500000000, CT_UNIT_DURATION);
	ct_doc_u64(doc, "events", 10, CT_UNIT_NONE);
	ct_doc_u64(doc, "analysed_events", 10, CT_UNIT_NONE);
	ct_doc_bool(doc, "complete", true);
	ct_doc_string(doc, "error", NULL);
	ct_doc_array(doc, "paths", NULL);
	ct_doc_string(doc, NULL, "/tmp/trace");
	ct_doc_end(doc);
	ct_doc_array(doc, "processes", NULL);
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", 42, CT_UNIT_ID);
	ct_doc_string(doc, "process", "train");
	ct_doc_end(doc);
	ct_doc_end(doc);
	ct_doc_end(doc);
}

/* A row of memory.devices, its call stack (for programs only) of DEPTH frames. */
static void write_device(struct ct_doc *doc, int64_t pid, const char *process, uint64_t device,
                         uint64_t peak_bytes, int64_t peak_time_ns, uint64_t wait_ns, int depth)
{
	static const char *const frames[] = { "main", "alloc" };

	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", process);
	ct_doc_u64(doc, "device", device, CT_UNIT_ID);
	ct_doc_u64(doc, "peak_bytes", peak_bytes, CT_UNIT_BYTES);
	ct_doc_i64(doc, "peak_time_ns", peak_time_ns, CT_UNIT_TIME);
	ct_doc_u64(doc, "wait_ns", wait_ns, CT_UNIT_DURATION);
	ct_doc_detail_array(doc, "stack");
	for (int i = 0; i < depth; i++)
		ct_doc_string(doc, NULL, frames[i]);
	ct_doc_end(doc);
	ct_doc_end(doc);
}

static void write_memory(struct ct_doc *doc)
{
	ct_doc_object(doc, "memory", "Memory");
	ct_doc_u64(doc, "peak_bytes", 3670016, CT_UNIT_BYTES);
	ct_doc_ratio(doc, "peak_share", 1, 4);
	ct_doc_array(doc, "devices", "Per process and device");
	write_device(doc, 42, "train", 0, 3670016, 1500000000, 1500, 2);
	write_device(doc, 43, "\xc3\xa9valuer", 1, 1024, 3250000000, 2500000, 0);
	ct_doc_end(doc);
	ct_doc_array(doc, "failures", NULL);
	ct_doc_end(doc);
	ct_doc_object(doc, "at_peak", NULL);
	ct_doc_u64(doc, "live_bytes", 2048, CT_UNIT_BYTES);
	ct_doc_u64(doc, "allocations", 3, CT_UNIT_NONE);
	ct_doc_array(doc, "largest", NULL);
	for (int i = 0; i < 2; i++) {
		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", 42 + i, CT_UNIT_ID);
		ct_doc_u64(doc, "size_bytes", UINT64_C(1048576) >> i, CT_UNIT_BYTES);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
	ct_doc_end(doc);
	ct_doc_end(doc);
}

/* Strings as a traced program may name things; "verdict" is a null that means none. */
static void write_notes(struct ct_doc *doc)
{
	ct_doc_object(doc, "notes", "Strings");
	ct_doc_string(doc, "quoted", "say \"hi\", then\nleave \\ caf\xc3\xa9 \xe2\x9c\x93");
	ct_doc_string(doc, "invalid", "bad \xff byte");
	ct_doc_string(doc, "indented", " indented");
	ct_doc_string(doc, "escape", "\x1b[31m");
	ct_doc_string(doc, "empty", "");
	ct_doc_bool(doc, "ok", false);
	ct_doc_null(doc, "verdict");
	ct_doc_string(doc, "origin", NULL);
	ct_doc_array(doc, "tags", NULL);
	ct_doc_string(doc, NULL, "a,b");
	ct_doc_string(doc, NULL, "c");
	ct_doc_end(doc);
	ct_doc_end(doc);
}

static struct ct_doc *build(void)
{
	struct ct_doc *doc = ct_doc_create();

	write_trace(doc);
	write_memory(doc);
	write_notes(doc);
	assert_null(ct_doc_error(doc));
	assert_non_null(ct_doc_root(doc));
	return doc;
}

/* What WRITER makes of the document, at the default detail. g_free it. */
static char *written(const struct ct_writer_class *writer)
{
	struct ct_writer_options opts = { .max_rows = 20, .detail = CT_TEXT_MAIN };
	struct ct_doc *doc = build();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	assert_int_equal(writer->write(ct_doc_root(doc), &opts, out), 0);
	assert_int_equal(fclose(out), 0);
	ct_doc_destroy(doc);
	assert_int_equal(strlen(text), len);
	return text;
}

/* The expected file NAME, from the source tree (TESTS_SRCDIR). g_free it. */
static char *expected(const char *name)
{
	const char *srcdir = getenv("TESTS_SRCDIR");
	char *path, *text = NULL;
	GError *error = NULL;

	if (!srcdir)
		fail_msg("TESTS_SRCDIR is not set: run the test with make check");
	path = g_build_filename(srcdir, "analyzers", "expected", name, NULL);
	if (!g_file_get_contents(path, &text, NULL, &error))
		fail_msg("%s", error->message);
	g_free(path);
	return text;
}

/* Fails at the first line where ACTUAL is not WANT, saying both. */
static void assert_same_lines(const char *name, const char *want, const char *actual)
{
	size_t line = 1;

	while (*want && *want == *actual) {
		if (*want == '\n')
			line++;
		want++;
		actual++;
	}
	if (*want == *actual)
		return;
	while (line > 1 && want[-1] != '\n') {
		want--;
		actual--;
	}
	fail_msg("%s, line %zu:\nwanted: %.*s\nwritten: %.*s", name, line, (int)strcspn(want, "\n"),
	         want, (int)strcspn(actual, "\n"), actual);
}

static void check(const struct ct_writer_class *writer, const char *name)
{
	char *want = expected(name);
	char *actual = written(writer);

	assert_same_lines(name, want, actual);
	g_free(want);
	free(actual);
}

static void test_json(void **state)
{
	(void)state;
	check(&ct_json_writer, "writers.json");
}

static void test_csv(void **state)
{
	(void)state;
	check(&ct_csv_writer, "writers.csv");
}

static void test_text(void **state)
{
	(void)state;
	check(&ct_text_writer, "writers.txt");
}

/* A list inside an object inside a list's rows is a table too, with the rows' ids. */
static void test_csv_nested_list(void **state)
{
	struct ct_writer_options opts = { 0 };
	struct ct_doc *doc = ct_doc_create();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	ct_doc_array(doc, "runs", "Runs");
	ct_doc_object(doc, NULL, NULL);
	ct_doc_u64(doc, "run", 7, CT_UNIT_ID);
	ct_doc_object(doc, "config", NULL);
	ct_doc_string(doc, "name", "a");
	ct_doc_array(doc, "sizes", NULL);
	ct_doc_u64(doc, NULL, 1, CT_UNIT_BYTES);
	ct_doc_u64(doc, NULL, 2, CT_UNIT_BYTES);
	ct_doc_end(doc);
	ct_doc_end(doc);
	ct_doc_end(doc);
	ct_doc_end(doc);
	assert_non_null(out);
	assert_int_equal(ct_csv_writer.write(ct_doc_root(doc), &opts, out), 0);
	assert_int_equal(fclose(out), 0);
	assert_same_lines("runs",
	                  "# runs\nrun,config.name\n7,a\n\n"
	                  "# runs.config.sizes\nrun,value\n7,1\n7,2\n\n",
	                  text);
	free(text);
	ct_doc_destroy(doc);
}

static void assert_has(const char *page, const char *part)
{
	if (!strstr(page, part))
		fail_msg("the page lacks %s", part);
}

/* The page: markup and entities for what the strings hold, the tables as text shows them. */
static void test_html(void **state)
{
	char *page = written(&ct_html_writer);

	(void)state;
	assert_has(page, "<title>cudatrace report: train</title>");
	assert_has(page, "<p class=\"traced\">train (pid 42): 2.50 s traced, 10 events, all "
	                 "analysed</p>");
	assert_has(page, "<h2>Memory</h2>");
	assert_has(page, "<th>peak (MiB)</th><th>peak time (s from start)</th><th>wait (ms)</th>");
	assert_has(page, "<tr><td class=\"num\">43</td><td>\xc3\xa9valuer</td><td "
	                 "class=\"num\">1</td><td class=\"num\">0.00</td><td "
	                 "class=\"num\">2.250000</td><td class=\"num\">2.50</td></tr>");
	assert_has(page, "<tr><th>quoted</th><td>say &quot;hi&quot;, then\\nleave \\ "
	                 "caf\xc3\xa9 \xe2\x9c\x93</td></tr>");
	assert_has(page, "<tr><th>escape</th><td>\\x1b[31m</td></tr>");
	assert_has(page, "<tr><th>verdict</th><td>none</td></tr>");
	assert_has(page, "<tr><th>origin</th><td>unknown</td></tr>");
	assert_null(strchr(page, '\x1b'));
	assert_null(strstr(page, "/tmp/trace"));
	assert_null(strstr(page, ">alloc<"));
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_nested_list),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_html),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
