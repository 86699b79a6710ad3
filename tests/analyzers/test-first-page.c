/* SPDX-License-Identifier: MIT */
/*
 * test-first-page.c - the findings (findings.c) and the first page
 * (first-page.c) on report documents written here, whose truth is known:
 * failures alike are one finding with their count, most severe first;
 * figures the sections mark as not exact are said to be so; the page
 * stays within one screen however many findings there are and however
 * long the names from the trace, and counts what did not fit.
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

#include "document.h"
#include "findings.h"
#include "first-page.h"

#define MIB (UINT64_C(1) << 20)

static void write_trace(struct ct_doc *doc, uint64_t discarded)
{
	ct_doc_object(doc, "trace", "Trace");
	ct_doc_i64(doc, "start_ns", 1000, CT_UNIT_TIME);
	ct_doc_i64(doc, "duration_ns", 5000000, CT_UNIT_DURATION);
	ct_doc_u64(doc, "events", 100, CT_UNIT_NONE);
	ct_doc_u64(doc, "analysed_events", 100, CT_UNIT_NONE);
	ct_doc_u64(doc, "discarded_events", discarded, CT_UNIT_NONE);
	ct_doc_u64(doc, "discarded_packets", 0, CT_UNIT_NONE);
	ct_doc_u64(doc, "dropped_records", 0, CT_UNIT_NONE);
	ct_doc_bool(doc, "complete", true);
	ct_doc_array(doc, "processes", NULL);
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", 42, CT_UNIT_ID);
	ct_doc_string(doc, "process", "train");
	ct_doc_end(doc);
	ct_doc_end(doc);
	ct_doc_end(doc);
}

/* A failure at SITE with VERDICT, at TIME_NS; CAVEAT: "lower_bound", or NULL. */
static void write_failure(struct ct_doc *doc, const char *site, const char *verdict,
                          int64_t time_ns, const char *caveat)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "time_ns", time_ns, CT_UNIT_TIME);
	ct_doc_i64(doc, "pid", 42, CT_UNIT_ID);
	ct_doc_string(doc, "process", "train");
	ct_doc_u64(doc, "device", 0, CT_UNIT_ID);
	ct_doc_u64(doc, "requested_bytes", 64 * MIB, CT_UNIT_BYTES);
	ct_doc_string(doc, "api", "cudaMalloc");
	ct_doc_string(doc, "site", site);
	ct_doc_string(doc, "nvtx_path", "");
	ct_doc_string(doc, "verdict", verdict);
	ct_doc_string(doc, "explanation", "20 MiB were free and it asked 64 MiB");
	ct_doc_null(doc, "withheld_verdict");
	ct_doc_u64(doc, "free_bytes", 20 * MIB, CT_UNIT_BYTES);
	ct_doc_array(doc, "caveats", NULL);
	if (caveat) {
		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "figure", "live_bytes");
		ct_doc_string(doc, "caveat", caveat);
		ct_doc_string(doc, "cause", "allocations_before_window");
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
	ct_doc_end(doc);
}

static void write_growth(struct ct_doc *doc)
{
	ct_doc_array(doc, "growing_ranges", NULL);
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", 42, CT_UNIT_ID);
	ct_doc_string(doc, "process", "train");
	ct_doc_string(doc, "range", "epoch/step");
	ct_doc_u64(doc, "repetitions", 10, CT_UNIT_NONE);
	ct_doc_u64(doc, "growing_repetitions", 9, CT_UNIT_NONE);
	ct_doc_i64(doc, "growth_per_repetition_bytes", 2 * MIB, CT_UNIT_BYTES);
	ct_doc_i64(doc, "held_at_end_bytes", 20 * MIB, CT_UNIT_BYTES);
	ct_doc_end(doc);
	ct_doc_end(doc);
}

/* The report ROOT's first page, in a string to free. */
static char *first_page(const struct ct_node *root, size_t *lines)
{
	char *page = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&page, &len);

	assert_non_null(out);
	*lines = ct_first_page_write(root, out);
	assert_int_equal(fclose(out), 0);
	return page;
}

/* Checks that PAGE has LINES lines, none over the width, within the page. */
static void assert_one_screen(const char *page, size_t lines)
{
	size_t counted = 0;

	for (const char *line = page; *line;) {
		const char *end = strchr(line, '\n');

		assert_non_null(end);
		assert_true(g_utf8_strlen(line, end - line) <= CT_FIRST_PAGE_WIDTH);
		counted++;
		line = end + 1;
	}
	assert_int_equal(counted, lines);
	assert_true(lines <= CT_FIRST_PAGE_LINES);
}

static const struct ct_node *finding(const struct ct_node *root, size_t i)
{
	const struct ct_node *findings = ct_node_get(root, "findings");

	assert_non_null(findings);
	assert_true(i < ct_node_count(findings));
	return ct_node_child(findings, i);
}

static const char *str(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = ct_node_get(object, key);

	assert_non_null(n);
	return n->type == CT_NODE_STRING ? n->value.str : NULL;
}

/* Failures alike are one finding; a failure ranks above growth; growth's numbers are quoted. */
static void test_ranked_and_grouped(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;
	size_t lines;
	char *page;

	(void)unused;
	write_trace(doc, 0);
	ct_doc_object(doc, "memory", "Memory");
	write_growth(doc);
	ct_doc_array(doc, "failures", NULL);
	for (int i = 0; i < 3; i++)
		write_failure(doc, "load:cudaMalloc", "out_of_memory", 2000 + i, NULL);
	write_failure(doc, "step:cudaMalloc", "fragmented", 3000, NULL);
	ct_doc_end(doc);
	ct_doc_end(doc);
	ct_findings_write(doc);
	assert_null(ct_doc_error(doc));
	root = ct_doc_root(doc);
	assert_int_equal(ct_node_count(ct_node_get(root, "findings")), 3);
	assert_string_equal(str(finding(root, 0), "verdict"), "out_of_memory");
	assert_int_equal(ct_node_get(finding(root, 0), "count")->value.u64, 3);
	assert_string_equal(str(finding(root, 0), "certainty"), "exact");
	assert_string_equal(str(finding(root, 1), "verdict"), "fragmented");
	assert_string_equal(str(finding(root, 2), "kind"), "memory_growth");
	assert_int_equal(
	    ct_node_get(ct_node_get(finding(root, 2), "numbers"), "growth_per_repetition_bytes")
	        ->value.i64,
	    (int64_t)(2 * MIB));
	page = first_page(root, &lines);
	assert_one_screen(page, lines);
	assert_non_null(strstr(page, "1. FAILED   cudaMalloc of 64.00 MiB failed on device 0: "
	                             "out of memory (3 times)"));
	assert_non_null(strstr(page, "NVTX range epoch/step keeps 2.00 MiB more"));
	free(page);
	ct_doc_destroy(doc);
}

/* A lower bound and lost events are said, never dropped. */
static void test_caveats_said(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;
	size_t lines;
	char *page;

	(void)unused;
	write_trace(doc, 7);
	ct_doc_object(doc, "memory", "Memory");
	ct_doc_array(doc, "failures", NULL);
	write_failure(doc, "cudaMalloc", "out_of_memory", 2000, "lower_bound");
	ct_doc_end(doc);
	ct_doc_end(doc);
	ct_findings_write(doc);
	root = ct_doc_root(doc);
	/* a lower bound, and events lost: uncertain either way */
	assert_string_equal(str(finding(root, 0), "certainty"), "uncertain");
	assert_non_null(strstr(str(finding(root, 0), "caveat"), "the trace began after"));
	assert_non_null(strstr(str(finding(root, 0), "caveat"), "LTTng discarded events"));
	page = first_page(root, &lines);
	assert_one_screen(page, lines);
	assert_non_null(strstr(page, "Lost: LTTng discarded 7 events and 0 packets"));
	assert_non_null(strstr(page, "Note:   the figures are uncertain"));
	free(page);
	ct_doc_destroy(doc);
}

/* Many findings and very long names: one screen still, and what did not fit is counted. */
static void test_one_screen(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;
	char site[3000], more[64];
	size_t lines, count, shown;
	char *page;

	(void)unused;
	write_trace(doc, 0);
	ct_doc_object(doc, "memory", "Memory");
	ct_doc_array(doc, "failures", NULL);
	for (int i = 0; i < 8; i++) {
		memset(site, 'a' + i, sizeof(site) - 1);
		site[sizeof(site) - 1] = '\0';
		write_failure(doc, site, "out_of_memory", 2000 + i, NULL);
	}
	ct_doc_end(doc);
	ct_doc_end(doc);
	ct_findings_write(doc);
	root = ct_doc_root(doc);
	count = ct_node_count(ct_node_get(root, "findings"));
	assert_int_equal(count, 8);
	page = first_page(root, &lines);
	assert_one_screen(page, lines);
	/* the findings shown and the count of the rest add up to all */
	for (shown = 0; shown < count; shown++) {
		char head[32];

		snprintf(head, sizeof(head), "%zu. FAILED", shown + 1);
		if (!strstr(page, head))
			break;
	}
	assert_true(shown >= 1 && shown < count);
	snprintf(more, sizeof(more), "%zu more findings", count - shown);
	assert_non_null(strstr(page, more));
	/* each long name is shortened on the page, with "..." */
	assert_non_null(strstr(page, "aaa..."));
	free(page);
	ct_doc_destroy(doc);
}

/* Nothing to say is said. */
static void test_nothing_found(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	size_t lines;
	char *page;

	(void)unused;
	write_trace(doc, 0);
	ct_findings_write(doc);
	assert_int_equal(ct_node_count(ct_node_get(ct_doc_root(doc), "findings")), 0);
	page = first_page(ct_doc_root(doc), &lines);
	assert_one_screen(page, lines);
	assert_non_null(strstr(page, "Nothing found: no allocation failed"));
	free(page);
	ct_doc_destroy(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranked_and_grouped),
		cmocka_unit_test(test_caveats_said),
		cmocka_unit_test(test_one_screen),
		cmocka_unit_test(test_nothing_found),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
