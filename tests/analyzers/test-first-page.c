/* SPDX-License-Identifier: MIT */
/*
 * test-first-page.c - the findings (findings.c) and the first page
 * (first-page.c) on report documents written here, whose truth is known:
 * failures alike are one finding with their count, most severe first;
 * figures the sections mark as not exact are said to be so; the page
 * stays within one screen however many findings there are and however
 * long the names from the trace, and counts what did not fit; how the
 * program ended comes first, told once; a costly copy's finding gives
 * the fix found for its own copies, and says how many of them it counts.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "analyses/cells.h"
#include "analyses/cuda-errors.h"
#include "analyses/fragmentation.h"
#include "analyses/framework.h"
#include "analyses/memory.h"
#include "analyses/transfers.h"
#include "common/document.h"
#include "findings/findings.h"
#include "report/first-page.h"

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

/*
 * The results of the memory, fragmentation and framework analyses a test
 * fills, for their sections (written by their own writers) and for the
 * findings, as a report draws both from the same results.
 */
struct results {
	struct ct_memory_result memory;
	struct ct_fragmentation_result frag;
	struct ct_framework_result framework;
	struct ct_result list[3];
	GPtrArray *strings; /* what the results' strings point into */
};

static void results_init(struct results *r)
{
	*r = (struct results){
		.memory = {
			.devices = g_array_new(FALSE, TRUE, sizeof(struct ct_memory_device)),
			.growing_ranges = g_array_new(FALSE, TRUE, sizeof(struct ct_memory_growing_range)),
			.growing_sites = g_array_new(FALSE, TRUE, sizeof(struct ct_memory_growing_site)),
			.timeline = g_array_new(FALSE, TRUE, sizeof(struct ct_memory_point)),
			.notes = g_array_new(FALSE, TRUE, sizeof(struct ct_caveat_note)),
			.holders = g_array_new(FALSE, TRUE, sizeof(struct ct_memory_holder)),
		},
		.frag = {
			.failures = g_array_new(FALSE, TRUE, sizeof(struct ct_frag_failure)),
			.failure_sites = g_array_new(FALSE, TRUE, sizeof(struct ct_frag_site)),
			.devices = g_array_new(FALSE, TRUE, sizeof(struct ct_frag_device)),
			.notes = g_array_new(FALSE, TRUE, sizeof(struct ct_caveat_note)),
		},
		.framework = {
			.devices = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_device)),
			.exceptions = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_exception)),
			.loads = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_load)),
		},
		.strings = g_ptr_array_new_with_free_func(g_free),
	};
	r->list[0] = (struct ct_result){ &ct_memory_analysis, &r->memory };
	r->list[1] = (struct ct_result){ &ct_fragmentation_analysis, &r->frag };
	r->list[2] = (struct ct_result){ &ct_framework_analysis, &r->framework };
}

static void results_free(struct results *r)
{
	for (guint i = 0; i < r->frag.failures->len; i++) {
		struct ct_frag_failure *f =
		    &g_array_index(r->frag.failures, struct ct_frag_failure, i);

		g_array_unref(f->caveats);
		if (f->holders)
			g_array_unref(f->holders);
	}
	for (guint i = 0; i < r->framework.devices->len; i++) {
		struct ct_framework_device *d =
		    &g_array_index(r->framework.devices, struct ct_framework_device, i);

		g_array_unref(d->ooms);
		g_array_unref(d->sites);
		ct_series_release(&d->in_use);
		ct_series_release(&d->reserved);
	}
	g_array_unref(r->memory.devices);
	g_array_unref(r->memory.growing_ranges);
	g_array_unref(r->memory.growing_sites);
	g_array_unref(r->memory.timeline);
	g_array_unref(r->memory.notes);
	g_array_unref(r->memory.holders);
	g_array_unref(r->frag.failures);
	g_array_unref(r->frag.failure_sites);
	g_array_unref(r->frag.devices);
	g_array_unref(r->frag.notes);
	for (guint i = 0; r->frag.listings && i < r->frag.listings->len; i++)
		g_array_unref(g_array_index(r->frag.listings, struct ct_frag_listing, i).holders);
	if (r->frag.listings)
		g_array_unref(r->frag.listings);
	g_array_unref(r->framework.devices);
	g_array_unref(r->framework.exceptions);
	g_array_unref(r->framework.loads);
	g_ptr_array_unref(r->strings);
}

/* The memory section of R, as its writer makes it. */
static void write_memory_section(struct ct_doc *doc, const struct results *r)
{
	ct_memory_section.write(doc, r->list, G_N_ELEMENTS(r->list));
}

/* The framework section of R, as its writer makes it. */
static void write_framework_section(struct ct_doc *doc, const struct results *r)
{
	ct_framework_section.write(doc, r->list, G_N_ELEMENTS(r->list));
}

/* The findings of DOC, drawn from R and DOC's sections. */
static void write_findings(struct ct_doc *doc, const struct results *r)
{
	ct_findings_write(doc, r->list, G_N_ELEMENTS(r->list));
}

/*
 * A failed cudaMalloc of 64 MiB by process 42 at SITE with VERDICT, at
 * TIME_NS, with 20 MiB free; CAVEAT: its live bytes are "lower_bound",
 * or NULL. Returns it, to add to.
 */
static struct ct_frag_failure *add_failure(struct results *r, const char *site, const char *verdict,
                                           int64_t time_ns, const char *caveat)
{
	struct ct_frag_failure f = {
		.time_ns = time_ns,
		.pid = 42,
		.process = "train",
		.requested_bytes = 64 * MIB,
		.result = 2,
		.api = "cudaMalloc",
		.site = g_strdup(site),
		.nvtx_path = "",
		.verdict = verdict,
		.explanation = "20 MiB were free and it asked 64 MiB",
		.free_known = true,
		.free_bytes = 20 * MIB,
		.caveats = g_array_new(FALSE, TRUE, sizeof(struct ct_caveat)),
	};

	g_ptr_array_add(r->strings, (char *)f.site);
	if (caveat) {
		const struct ct_caveat c = { "live_bytes", caveat, "allocations_before_window" };

		g_array_append_val(f.caveats, c);
	}
	g_array_append_val(r->frag.failures, f);
	r->frag.failure_count++;
	return &g_array_index(r->frag.failures, struct ct_frag_failure, r->frag.failures->len - 1);
}

/* A growing range of process 42: epoch/step keeps 2 MiB more each run. */
static void add_growth(struct results *r)
{
	const struct ct_memory_growing_range g = {
		.pid = 42,
		.process = "train",
		.range = "epoch/step",
		.repetitions = 10,
		.growing_repetitions = 9,
		.growth_per_repetition_bytes = 2 * MIB,
		.held_at_end_bytes = 20 * MIB,
	};

	g_array_append_val(r->memory.growing_ranges, g);
}

/* The trace, and memory with one fragmented failure, and a growing range when GROWTH. */
static void write_memory(struct ct_doc *doc, struct results *r, bool growth)
{
	write_trace(doc, 0);
	if (growth)
		add_growth(r);
	add_failure(r, "load:cudaMalloc", "fragmented", 2000, NULL);
	write_memory_section(doc, r);
}

/* The process_end section record writes: CAUSE, killed by SIGNAL_NAME or exited with 1. */
static void write_end(struct ct_doc *doc, const char *cause, const char *signal_name)
{
	static const struct {
		const char *name;
		int number;
	} signals[] = { { "KILL", SIGKILL },
		        { "SEGV", SIGSEGV },
		        { "ABRT", SIGABRT },
		        { "INT", SIGINT },
		        { "TERM", SIGTERM } };

	ct_doc_object(doc, "process_end", NULL);
	ct_doc_string(doc, "cause", cause);
	ct_doc_string(doc, "program", "train.sh");
	ct_doc_i64(doc, "pid", 42, CT_UNIT_ID);
	if (signal_name) {
		size_t i = 0;

		while (strcmp(signals[i].name, signal_name))
			i++;
		ct_doc_null(doc, "exit_status");
		ct_doc_i64(doc, "signal", signals[i].number, CT_UNIT_NONE);
		ct_doc_string(doc, "signal_name", signal_name);
	} else {
		ct_doc_i64(doc, "exit_status", 1, CT_UNIT_NONE);
		ct_doc_null(doc, "signal");
		ct_doc_null(doc, "signal_name");
	}
	ct_doc_string(doc, "cuda_error", "cudaErrorIllegalAddress");
	ct_doc_string(doc, "cuda_error_api", "cudaStreamSynchronize");
	ct_doc_u64(doc, "gpu_failed_bytes", 64 * MIB, CT_UNIT_BYTES);
	ct_doc_string(doc, "gpu_verdict", "out_of_memory");
	ct_doc_object(doc, "host_memory", NULL);
	ct_doc_u64(doc, "rss_last_bytes", 150 * MIB, CT_UNIT_BYTES);
	ct_doc_u64(doc, "rss_peak_bytes", 165 * MIB, CT_UNIT_BYTES);
	ct_doc_u64(doc, "anon_peak_bytes", 155 * MIB, CT_UNIT_BYTES);
	ct_doc_u64(doc, "limit_bytes", 160 * MIB, CT_UNIT_BYTES);
	ct_doc_string(doc, "limit_of", "cgroup");
	ct_doc_string(doc, "cgroup", "/sys/fs/cgroup/job");
	ct_doc_u64(doc, "oom_kills", 1, CT_UNIT_NONE);
	ct_doc_bool(doc, "oom_in_kernel_log", true);
	ct_doc_end(doc);
	ct_doc_end(doc);
}

/*
 * The CUDA errors result of one sticky error, cudaErrorIllegalAddress
 * from cudaStreamSynchronize, after KERNEL's launch at SITE (none when
 * NULL); to free with sticky_free.
 */
static struct ct_cuda_errors_result sticky_of(const char *kernel, const char *site)
{
	const struct ct_cuda_sticky e = {
		.pid = 42,
		.process = "train",
		.time_ns = 5000,
		.domain = CT_DOMAIN_RUNTIME,
		.code = 700,
		.error = "cudaErrorIllegalAddress",
		.api = "cudaStreamSynchronize",
		.failed_after = 3,
		.kernel = kernel,
		.launch_time_ns = kernel ? 4000 : 0,
		.launch_site = site,
	};
	struct ct_cuda_errors_result r = {
		.sticky = g_array_new(FALSE, TRUE, sizeof(struct ct_cuda_sticky)),
	};

	g_array_append_val(r.sticky, e);
	return r;
}

static void sticky_free(struct ct_cuda_errors_result *r)
{
	g_array_unref(r->sticky);
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
	struct results r;
	size_t lines;
	char *page;

	(void)unused;
	results_init(&r);
	write_trace(doc, 0);
	add_growth(&r);
	for (int i = 0; i < 3; i++)
		add_failure(&r, "load:cudaMalloc", "out_of_memory", 2000 + i, NULL);
	add_failure(&r, "step:cudaMalloc", "fragmented", 3000, NULL);
	write_memory_section(doc, &r);
	write_findings(doc, &r);
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
	results_free(&r);
}

/* A lower bound and lost events are said, never dropped. */
static void test_caveats_said(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;
	struct results r;
	size_t lines;
	char *page;

	(void)unused;
	results_init(&r);
	write_trace(doc, 7);
	add_failure(&r, "cudaMalloc", "out_of_memory", 2000, "lower_bound");
	write_memory_section(doc, &r);
	write_findings(doc, &r);
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
	results_free(&r);
}

/* Many findings and very long names: one screen still, and what did not fit is counted. */
static void test_one_screen(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;
	char site[3000], more[64];
	size_t lines, count, shown;
	struct results r;
	char *page;

	(void)unused;
	results_init(&r);
	write_trace(doc, 0);
	for (int i = 0; i < 8; i++) {
		memset(site, 'a' + i, sizeof(site) - 1);
		site[sizeof(site) - 1] = '\0';
		add_failure(&r, site, "out_of_memory", 2000 + i, NULL);
	}
	write_memory_section(doc, &r);
	write_findings(doc, &r);
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
	/* the table the default report does not print is not where they are said to be */
	assert_null(strstr(page, "Findings table"));
	assert_non_null(strstr(page, "--details"));
	/* each long name is shortened on the page, with "..." */
	assert_non_null(strstr(page, "aaa..."));
	free(page);
	ct_doc_destroy(doc);
	results_free(&r);
}

/* Nothing to say is said. */
static void test_nothing_found(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	size_t lines;
	char *page;

	(void)unused;
	write_trace(doc, 0);
	ct_findings_write(doc, NULL, 0);
	assert_int_equal(ct_node_count(ct_node_get(ct_doc_root(doc), "findings")), 0);
	page = first_page(ct_doc_root(doc), &lines);
	assert_one_screen(page, lines);
	assert_non_null(strstr(page, "Nothing found: no sticky CUDA error, no allocation failed"));
	free(page);
	ct_doc_destroy(doc);
}

/* The number of findings of ROOT that tell how the program ended. */
static size_t deaths(const struct ct_node *root)
{
	const struct ct_node *findings = ct_node_get(root, "findings");
	size_t n = 0;

	for (size_t i = 0; i < ct_node_count(findings); i++)
		n += ct_node_get(ct_node_child(findings, i), "death")->type == CT_NODE_STRING;
	return n;
}

/* A host OOM kill ranks above the failures and growth the trace shows, with its numbers. */
static void test_host_oom_first(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;
	struct results r;
	size_t lines;
	char *page;

	(void)unused;
	results_init(&r);
	write_memory(doc, &r, true);
	write_end(doc, "host-oom", "KILL");
	write_findings(doc, &r);
	assert_null(ct_doc_error(doc));
	root = ct_doc_root(doc);
	assert_int_equal(ct_node_count(ct_node_get(root, "findings")), 3);
	assert_string_equal(str(finding(root, 0), "kind"), "process_death");
	assert_string_equal(str(finding(root, 0), "death"), "host-oom");
	assert_string_equal(str(finding(root, 0), "severity"), "critical");
	assert_int_equal(
	    ct_node_get(ct_node_get(finding(root, 0), "numbers"), "limit_bytes")->value.u64,
	    160 * MIB);
	/* sampled: the peak may have been higher */
	assert_string_equal(str(finding(root, 0), "certainty"), "lower_bound");
	assert_string_equal(str(finding(root, 1), "kind"), "allocation_failure");
	assert_string_equal(str(finding(root, 2), "kind"), "memory_growth");
	assert_int_equal(deaths(root), 1);
	page = first_page(root, &lines);
	assert_one_screen(page, lines);
	/* the traced process of the pid, not the command that exec'd it */
	assert_non_null(strstr(str(finding(root, 0), "summary"),
	                       "train was killed by the kernel's OOM killer: host memory ran out "
	                       "(the memory it allocated reached at least 155.00 MiB of 160.00 "
	                       "MiB, its cgroup's limit)"));
	assert_int_equal(
	    ct_node_get(ct_node_get(finding(root, 0), "numbers"), "anon_peak_bytes")->value.u64,
	    155 * MIB);
	assert_non_null(strstr(str(finding(root, 0), "explanation"),
	                       "its resident set peaked at 165.00 MiB: that counts the files"));
	assert_non_null(strstr(page, "1. FAILED   train was killed by the kernel's OOM killer"));
	assert_non_null(
	    strstr(str(finding(root, 0), "explanation"), "1 GPU allocation failed too"));
	assert_non_null(strstr(page, "raise the memory limit of its cgroup"));
	free(page);
	ct_doc_destroy(doc);
	results_free(&r);
}

/* A GPU out-of-memory the program did not survive is told by its failure's finding, first. */
static void test_gpu_oom_told_once(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;
	struct results r;

	(void)unused;
	results_init(&r);
	write_trace(doc, 0);
	add_failure(&r, "step:cudaMalloc", "fragmented", 2000, NULL);
	add_failure(&r, "load:cudaMalloc", "out_of_memory", 3000, NULL);
	write_memory_section(doc, &r);
	write_end(doc, "gpu-oom", NULL);
	write_findings(doc, &r);
	root = ct_doc_root(doc);
	assert_int_equal(ct_node_count(ct_node_get(root, "findings")), 2);
	/* the later failure, the fatal one, before the earlier one */
	assert_string_equal(str(finding(root, 0), "kind"), "allocation_failure");
	assert_string_equal(str(finding(root, 0), "verdict"), "out_of_memory");
	assert_string_equal(str(finding(root, 0), "death"), "gpu-oom");
	assert_non_null(
	    strstr(str(finding(root, 0), "summary"), "; then train exited with status 1"));
	assert_string_equal(str(finding(root, 1), "verdict"), "fragmented");
	assert_int_equal(deaths(root), 1);
	ct_doc_destroy(doc);
	results_free(&r);
}

/*
 * FRAMEWORK's figures of process 42 on device 0: a pool of 3 GiB of the
 * device's 4 GiB at its start, 4 MiB used at most, and out-of-memory
 * errors of 64 MiB at OOM_NS (0-terminated), its pool holding UNUSED
 * bytes reserved but unused then.
 */
static void add_framework(struct results *r, uint8_t framework, const int64_t *oom_ns,
                          uint64_t unused)
{
	struct ct_framework_device d = {
		.pid = 42,
		.process = "train",
		.framework = framework,
		.version = "",
		.peak_in_use_bytes = 4 * MIB,
		.first_reserved_bytes = 3072 * MIB,
		.device_total_bytes = 4096 * MIB,
		.ooms = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_oom)),
		.sites = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_site)),
	};

	ct_series_init(&d.in_use, 16);
	ct_series_init(&d.reserved, 16);
	for (size_t i = 0; oom_ns[i]; i++) {
		const struct ct_framework_oom oom = {
			.time_ns = oom_ns[i],
			.requested_bytes = 64 * MIB,
			.limit_bytes = 4096 * MIB,
			.device_free_bytes = 20 * MIB,
			.figures_known = true,
			.in_use_bytes = 3000 * MIB,
			.reserved_bytes = 3000 * MIB + unused,
		};

		g_array_append_val(d.ooms, oom);
		d.oom_count++;
	}
	g_array_append_val(r->framework.devices, d);
}

static size_t count_kind(const struct ct_node *root, const char *kind)
{
	const struct ct_node *findings = ct_node_get(root, "findings");
	size_t n = 0;

	for (size_t i = 0; i < ct_node_count(findings); i++)
		n += !strcmp(str(ct_node_child(findings, i), "kind"), kind);
	return n;
}

/* NVML's list of another process on the device, pid 4242 with 1 GiB. */
static GArray *other_holder(void)
{
	const struct ct_frag_holder other = {
		.pid = 4242, .process = "other", .bytes_known = true, .bytes = 1024 * MIB
	};
	GArray *holders = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_holder));

	g_array_append_val(holders, other);
	return holders;
}

/*
 * A framework's out-of-memory error is one finding, PyTorch's, with the
 * driver's refusals that were part of it (at most a second before) and
 * their call site; a refusal long before it stays a failure of its own.
 * Its verdict: fragmented when the pool held the request unused, else the
 * device full.
 */
static void test_framework_oom(void **unused)
{
	for (int fragmented = 0; fragmented <= 1; fragmented++) {
		struct ct_doc *doc = ct_doc_create();
		const struct ct_node *root, *f;
		struct ct_frag_failure *refused;
		struct results r;

		(void)unused;
		results_init(&r);
		write_trace(doc, 0);
		add_failure(&r, "early:cudaMalloc", "out_of_memory", 1000, NULL);
		refused = add_failure(&r, "train.py:12 in step", "out_of_memory", 3000000000, NULL);
		refused->holders = other_holder();
		add_failure(&r, "train.py:12 in step", "out_of_memory", 3000001000, NULL);
		add_framework(&r, CT_FRAMEWORK_PYTORCH, (const int64_t[]){ 3000002000, 0 },
		              fragmented ? 100 * MIB : 10 * MIB);
		write_memory_section(doc, &r);
		write_framework_section(doc, &r);
		write_findings(doc, &r);
		root = ct_doc_root(doc);
		assert_int_equal(count_kind(root, "framework_oom"), 1);
		assert_int_equal(count_kind(root, "allocation_failure"), 1);
		f = finding(root, 1);
		assert_string_equal(str(f, "kind"), "framework_oom");
		assert_string_equal(str(f, "verdict"), fragmented ? "fragmented" : "out_of_memory");
		assert_non_null(strstr(str(f, "summary"), "PyTorch could not allocate 64.00 MiB"));
		assert_non_null(strstr(str(f, "explanation"), "refused cudaMalloc 2 times"));
		/* who else held the device, NVML's list at the driver's refusal */
		assert_non_null(
		    strstr(str(f, "explanation"),
		           "; NVML listed on the device pid 4242 (other) with 1.00 GiB"));
		assert_string_equal(str(ct_node_get(f, "where"), "site"), "train.py:12 in step");
		assert_non_null(
		    strstr(str(f, "advice"), fragmented ? "expandable_segments" : "batch"));
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/*
 * PyTorch's error under torch.cuda.set_per_process_memory_fraction, as the
 * probe saw it: its observers are given the share (1 GiB of the device's
 * 4 GiB), not the device. With its pool at the share and the device not
 * full, the share refused it (limit_reached), and a request above the
 * share but within the device too; one above the device is too large; one
 * the pool held unused, fragmented.
 */
static void test_framework_oom_share(void **unused)
{
	static const struct {
		uint64_t requested, reserved, in_use;
		const char *verdict;
	} cases[] = {
		{ 256 * MIB, 1024 * MIB, 1024 * MIB, "limit_reached" },
		{ 2048 * MIB, 0, 0, "limit_reached" },
		{ 8192 * MIB, 0, 0, "too_large" },
		{ 64 * MIB, 1024 * MIB, 900 * MIB, "fragmented" },
	};

	(void)unused;
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct ct_doc *doc = ct_doc_create();
		struct ct_framework_oom *oom;
		const struct ct_node *f;
		struct results r;

		results_init(&r);
		write_trace(doc, 0);
		add_framework(&r, CT_FRAMEWORK_PYTORCH, (const int64_t[]){ 3000002000, 0 }, 0);
		oom = &g_array_index(
		    g_array_index(r.framework.devices, struct ct_framework_device, 0).ooms,
		    struct ct_framework_oom, 0);
		oom->requested_bytes = cases[i].requested;
		oom->limit_bytes = 1024 * MIB;
		oom->device_free_bytes = 2776 * MIB;
		oom->reserved_bytes = cases[i].reserved;
		oom->in_use_bytes = cases[i].in_use;
		write_framework_section(doc, &r);
		write_findings(doc, &r);
		f = finding(ct_doc_root(doc), 0);
		assert_string_equal(str(f, "kind"), "framework_oom");
		assert_string_equal(str(f, "verdict"), cases[i].verdict);
		/* never "free of the 1.00 GiB it may use" with more than that free */
		assert_non_null(strstr(str(f, "explanation"),
		                       "the driver had 2.71 GiB free of the device's 4.00 GiB, of "
		                       "which it may use 1.00 GiB "
		                       "(torch.cuda.set_per_process_memory_fraction)"));
		if (!strcmp(cases[i].verdict, "limit_reached"))
			assert_non_null(
			    strstr(str(f, "advice"), "torch.cuda.set_per_process_memory_fraction"));
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/*
 * PyTorch's error with the device full: what to do names other processes
 * unless NVML's list right after the error shows it alone on the device;
 * a list without it (NVML in a container) proves nothing.
 */
static void test_framework_oom_alone(void **unused)
{
	(void)unused;
	for (int listed = 0; listed <= 2; listed++) {
		struct ct_doc *doc = ct_doc_create();
		const struct ct_frag_holder self = { .pid = 42,
			                             .process = "train",
			                             .bytes_known = true,
			                             .bytes = 30 * MIB,
			                             .self = true };
		const struct ct_node *f;
		struct results r;

		results_init(&r);
		write_trace(doc, 0);
		add_framework(&r, CT_FRAMEWORK_PYTORCH, (const int64_t[]){ 3000002000, 0 },
		              10 * MIB);
		if (listed) {
			struct ct_frag_listing l = {
				.time_ns = 3000002500,
				.pid = 42,
				.device = 0,
				.holders = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_holder)),
			};

			if (listed == 1)
				g_array_append_val(l.holders, self);
			r.frag.listings = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_listing));
			g_array_append_val(r.frag.listings, l);
		}
		write_framework_section(doc, &r);
		write_findings(doc, &r);
		f = finding(ct_doc_root(doc), 0);
		assert_string_equal(str(f, "verdict"), "out_of_memory");
		assert_non_null(strstr(str(f, "advice"), "hold less at the peak"));
		if (listed == 1)
			assert_null(strstr(str(f, "advice"), "other processes"));
		else
			assert_non_null(
			    strstr(str(f, "advice"), "or free the device of other processes"));
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/*
 * JAX imported by process 42, in a trace where no GPU was used: no device
 * memory, no copy, no kernel. The first page says so, and whether CUDA
 * started in the process; not when the trace shows a copy or a kernel,
 * is cut, left a child untraced, or JAX's own figures show memory on a
 * GPU.
 */
static void test_gpu_unused(void **unused)
{
	enum { NONE, STARTED, COPY, KERNEL, CUT, CHILD, FIGURES, CASES };

	(void)unused;
	for (int c = NONE; c < CASES; c++) {
		struct ct_doc *doc = ct_doc_create();
		/* the trace may lack the name of a process that never started CUDA */
		const struct ct_framework_load load = { .pid = 42,
			                                .process = c == STARTED ? "train" : "",
			                                .framework = CT_FRAMEWORK_JAX,
			                                .version = "0.10.2" };
		char *where;
		const struct ct_node *f;
		struct results r;

		results_init(&r);
		g_array_append_val(r.framework.loads, load);
		if (c == FIGURES) {
			add_framework(&r, CT_FRAMEWORK_JAX, (const int64_t[]){ 0 }, 0);
			g_array_index(r.framework.devices, struct ct_framework_device, 0)
			    .peak_reserved_bytes = 3 * MIB;
		}
		ct_doc_object(doc, "trace", NULL);
		ct_doc_i64(doc, "duration_ns", 5000000, CT_UNIT_DURATION);
		ct_doc_bool(doc, "complete", c != CUT);
		ct_doc_u64(doc, "untraced_child_count", c == CHILD, CT_UNIT_NONE);
		ct_doc_end(doc);
		ct_doc_array(doc, "environment", NULL);
		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", 42, CT_UNIT_ID);
		ct_doc_bool(doc, "traced", c == STARTED);
		ct_doc_end(doc);
		ct_doc_end(doc);
		write_memory_section(doc, &r);
		write_framework_section(doc, &r);
		ct_doc_object(doc, "transfers", NULL);
		ct_doc_u64(doc, "copies", c == COPY, CT_UNIT_NONE);
		ct_doc_end(doc);
		ct_doc_array(doc, "kernels", NULL);
		if (c == KERNEL) {
			ct_doc_object(doc, NULL, NULL);
			ct_doc_string(doc, "name", "add");
			ct_doc_end(doc);
		}
		ct_doc_end(doc);
		write_findings(doc, &r);
		if (c != NONE && c != STARTED) {
			assert_int_equal(count_kind(ct_doc_root(doc), "gpu_unused"), 0);
		} else {
			f = finding(ct_doc_root(doc), 0);
			assert_string_equal(str(f, "kind"), "gpu_unused");
			assert_string_equal(str(f, "severity"), "warning");
			assert_string_equal(str(f, "verdict"),
			                    c == STARTED ? "cuda_started" : "cuda_never_started");
			assert_non_null(strstr(str(f, "summary"),
			                       "JAX 0.10.2 was imported, but no GPU "
			                       "was used"));
			assert_non_null(strstr(str(f, "explanation"),
			                       c == STARTED
			                           ? "train (pid 42) started CUDA but put "
			                             "nothing on a device"
			                           : "its process (pid 42) never started CUDA"));
			assert_non_null(strstr(str(f, "advice"), "jax.devices()"));
			where = ct_first_page_where(f, 0);
			assert_true(
			    g_str_has_prefix(where, c == STARTED ? "train (pid 42)," : "pid 42,"));
			g_free(where);
		}
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/*
 * A device full because memory grew step after step: the failure names
 * the growing site, and what to do begins with it; not when the growth
 * held little of the device, began after the failure, or the request was
 * larger than the device.
 */
static void test_growth_filled(void **unused)
{
	static const struct {
		double peak_share;
		int64_t first_ns;
		const char *verdict;
		bool told;
	} cases[] = {
		{ 0.9, 1000, "out_of_memory", true },  { 0.9, 1000, "fragmented", true },
		{ 0.3, 1000, "out_of_memory", false }, { 0.9, 4000000000, "out_of_memory", false },
		{ 0.9, 1000, "too_large", false },
	};

	(void)unused;
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct ct_doc *doc = ct_doc_create();
		const struct ct_memory_growing_site grows = {
			.pid = 42,
			.process = "train",
			.device = 0,
			.site = "train.py:20 in step",
			.nvtx_path = "",
			.allocations = 90,
			.rises = 90,
			.steps = 90,
			.held_at_end_bytes = 900 * MIB,
			.high_bytes = 900 * MIB,
			.growth_per_rise_bytes = 10 * MIB,
			.first_ns = cases[i].first_ns,
			.last_rise_ns = 2900000000,
			.peak_share = cases[i].peak_share,
		};
		const struct ct_node *f;
		struct results r;

		results_init(&r);
		write_trace(doc, 0);
		g_array_append_val(r.memory.growing_sites, grows);
		add_failure(&r, "train.py:20 in step", cases[i].verdict, 3000000000, NULL);
		write_memory_section(doc, &r);
		write_findings(doc, &r);
		f = finding(ct_doc_root(doc), 0);
		assert_string_equal(str(f, "kind"), "allocation_failure");
		if (cases[i].told) {
			assert_non_null(
			    strstr(str(f, "explanation"),
			           "; memory allocated at train.py:20 in step grew step "
			           "after step, 10.00 MiB more at each of 90 new highs, to "
			           "900.00 MiB by the end (90 % of the device's peak)"));
			assert_true(g_str_has_prefix(
			    str(f, "advice"), "first stop what keeps the memory allocated at "
			                      "train.py:20 in step"));
		} else {
			assert_null(strstr(str(f, "explanation"), "grew step after step"));
			assert_null(strstr(str(f, "advice"), "first stop"));
		}
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/*
 * Two errors of the same request at two sites are two findings, each with
 * its own driver failures; the program died of the second (record judged
 * gpu-oom from its last failure): that finding tells it, and leads.
 */
static void test_framework_oom_death(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root, *f;
	struct results r;

	(void)unused;
	results_init(&r);
	write_trace(doc, 0);
	add_failure(&r, "train.py:53 in main", "out_of_memory", 1000000000, NULL);
	add_failure(&r, "train.py:58 in main", "out_of_memory", 2000000000, NULL);
	add_failure(&r, "train.py:58 in main", "out_of_memory", 2000000100, NULL);
	add_framework(&r, CT_FRAMEWORK_PYTORCH, (const int64_t[]){ 1000001000, 2000001000, 0 }, 0);
	write_memory_section(doc, &r);
	write_framework_section(doc, &r);
	write_end(doc, "gpu-oom", NULL);
	write_findings(doc, &r);
	root = ct_doc_root(doc);
	assert_int_equal(count_kind(root, "framework_oom"), 2);
	assert_int_equal(count_kind(root, "process_death"), 0);
	assert_int_equal(count_kind(root, "allocation_failure"), 0);
	f = finding(root, 0);
	assert_string_equal(str(f, "kind"), "framework_oom");
	assert_string_equal(str(f, "death"), "gpu-oom");
	assert_string_equal(str(ct_node_get(f, "where"), "site"), "train.py:58 in main");
	assert_non_null(strstr(str(f, "summary"), "; then train exited with status 1"));
	assert_non_null(strstr(str(f, "explanation"), "refused cudaMalloc 2 times"));
	assert_string_equal(str(ct_node_get(finding(root, 1), "where"), "site"),
	                    "train.py:53 in main");
	ct_doc_destroy(doc);
	results_free(&r);
}

/* A figure of a framework's message: KEY's bytes, or null. */
struct said_figure {
	const char *key;
	uint64_t bytes;
	bool null;
};

/*
 * last_words of process 42: FRAMEWORK's message TEXT that it could not
 * allocate, said at 3.000002 s on device 0, with its FIGURES (up to a
 * NULL key) read at PRECISION (NULL: exact).
 */
static void write_said(struct ct_doc *doc, const char *framework, const char *text,
                       const struct said_figure *figures, const char *precision)
{
	ct_doc_object(doc, "last_words", NULL);
	ct_doc_i64(doc, "pid", 42, CT_UNIT_ID);
	ct_doc_string(doc, "process", "train");
	ct_doc_object(doc, "out_of_memory", NULL);
	ct_doc_string(doc, "framework", framework);
	ct_doc_i64(doc, "time_ns", 3000002000, CT_UNIT_TIME);
	ct_doc_string(doc, "text", text);
	ct_doc_u64(doc, "device", 0, CT_UNIT_ID);
	for (size_t i = 0; figures[i].key; i++)
		if (figures[i].null)
			ct_doc_null(doc, figures[i].key);
		else
			ct_doc_u64(doc, figures[i].key, figures[i].bytes, CT_UNIT_BYTES);
	if (precision)
		ct_doc_string(doc, "precision", precision);
	ct_doc_end(doc);
	ct_doc_end(doc);
}

/* PyTorch's message that it could not allocate 64 MiB. */
static void write_words(struct ct_doc *doc)
{
	const struct said_figure figures[] = {
		{ .key = "requested_bytes", .bytes = 64 * MIB },
		{ .key = "in_use_bytes", .bytes = 3000 * MIB },
		{ .key = "reserved_bytes", .bytes = 3100 * MIB },
		{ .key = "reserved_unused_bytes", .bytes = 100 * MIB },
		{ .key = "device_free_bytes", .bytes = 20 * MIB },
		{ .key = "device_total_bytes", .bytes = 4096 * MIB },
		{ .key = "limit_bytes", .bytes = 4096 * MIB },
		{ .key = NULL },
	};

	write_said(doc, "pytorch",
	           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 "
	           "has a total capacity of 4.00 GiB",
	           figures, NULL);
}

/*
 * A framework's message on its standard error, which the probe did not
 * see, is the framework_oom finding, with the message's figures; the
 * program died of it (framework-oom): that finding tells it. When the
 * probe saw the error too, its finding alone tells it, and the death.
 */
static void test_said_oom(void **unused)
{
	for (int probe = 0; probe <= 1; probe++) {
		struct ct_doc *doc = ct_doc_create();
		const struct ct_node *root, *f;
		struct results r;

		(void)unused;
		results_init(&r);
		write_trace(doc, 0);
		if (probe)
			add_framework(&r, CT_FRAMEWORK_PYTORCH, (const int64_t[]){ 3000001000, 0 },
			              100 * MIB);
		write_framework_section(doc, &r);
		write_words(doc);
		write_end(doc, "framework-oom", NULL);
		write_findings(doc, &r);
		root = ct_doc_root(doc);
		assert_int_equal(count_kind(root, "framework_oom"), 1);
		assert_int_equal(count_kind(root, "process_death"), 0);
		f = finding(root, 0);
		assert_string_equal(str(f, "kind"), "framework_oom");
		assert_string_equal(str(f, "death"), "framework-oom");
		assert_string_equal(str(f, "verdict"), "fragmented");
		assert_string_equal(str(f, "source"), probe ? "framework.devices[0].oom_errors[0]"
		                                            : "last_words.out_of_memory");
		assert_non_null(strstr(str(f, "summary"), "PyTorch could not allocate 64.00 MiB"));
		assert_non_null(strstr(str(f, "summary"), "; then train exited with status 1"));
		assert_non_null(strstr(str(f, "advice"), "expandable_segments"));
		if (!probe) {
			assert_non_null(
			    strstr(str(f, "summary"),
			           "(2.93 GiB in use by PyTorch, 3.03 GiB reserved, 20.00 "
			           "MiB free of 4.00 GiB)"));
			assert_non_null(strstr(str(f, "explanation"),
			                       "its last lines on standard error say so: "
			                       "\"torch.OutOfMemoryError: CUDA out of memory."));
		}
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/*
 * PyTorch's message under torch.cuda.set_per_process_memory_fraction, the
 * probe off: its share (1 GiB of 4 GiB, "1024.00 MiB allowed") refused
 * the request, with the device far from full. The first page says so
 * from the message alone, without the probe's figures (a report once
 * crashed looking for them).
 */
static void test_said_share(void **unused)
{
	const struct said_figure figures[] = {
		{ .key = "requested_bytes", .bytes = 256 * MIB },
		{ .key = "in_use_bytes", .bytes = 1024 * MIB },
		{ .key = "reserved_bytes", .bytes = 1024 * MIB },
		{ .key = "reserved_unused_bytes", .bytes = 0 },
		{ .key = "device_free_bytes", .bytes = 2776 * MIB },
		{ .key = "device_total_bytes", .bytes = 4096 * MIB },
		{ .key = "limit_bytes", .bytes = 1024 * MIB },
		{ .key = NULL },
	};
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *f;
	struct results r;

	(void)unused;
	results_init(&r);
	write_trace(doc, 0);
	write_said(doc, "pytorch",
	           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU "
	           "0 has a total capacity of 4.00 GiB of which 2.71 GiB is free. Including "
	           "non-PyTorch memory, this process has 1.29 GiB memory in use. 1024.00 MiB "
	           "allowed; Of the allocated memory 1024.00 MiB is allocated by PyTorch, and 0 "
	           "bytes is reserved by PyTorch but unallocated.",
	           figures, "rounded");
	write_end(doc, "framework-oom", NULL);
	write_findings(doc, &r);
	f = finding(ct_doc_root(doc), 0);
	assert_string_equal(str(f, "kind"), "framework_oom");
	assert_string_equal(str(f, "verdict"), "limit_reached");
	assert_non_null(strstr(str(f, "summary"), "it held all it may use of the device, its own "
	                                          "limit"));
	assert_non_null(strstr(str(f, "summary"), "2.71 GiB free of 4.00 GiB, of which it may use "
	                                          "1.00 GiB)"));
	assert_non_null(strstr(str(f, "advice"), "torch.cuda.set_per_process_memory_fraction"));
	ct_doc_destroy(doc);
	results_free(&r);
}

/* TensorFlow's BFC allocator could not allocate 20 MiB, its statistics
 * then IN_USE of a 64 MiB limit, as sizes. */
static void write_bfc_words(struct ct_doc *doc, uint64_t in_use)
{
	const struct said_figure figures[] = {
		{ .key = "requested_bytes", .bytes = 20 * MIB },
		{ .key = "in_use_bytes", .bytes = in_use },
		{ .key = "reserved_bytes", .null = true },
		{ .key = "reserved_unused_bytes", .null = true },
		{ .key = "limit_bytes", .bytes = 64 * MIB },
		{ .key = NULL },
	};

	write_said(doc, "tensorflow",
	           "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when "
	           "allocating tensor with shape[5242880] and type float",
	           figures, "rounded");
}

/* NVML's list at TIME_NS, by process 42, of device 0: itself and pid 4242 with 1 GiB. */
static void add_listing(struct results *r, int64_t time_ns)
{
	const struct ct_frag_holder holders[] = {
		{ .pid = 42,
		  .process = "train",
		  .bytes_known = true,
		  .bytes = 30 * MIB,
		  .self = true },
		{ .pid = 4242, .process = "other", .bytes_known = true, .bytes = 1024 * MIB },
	};
	struct ct_frag_listing l = {
		.time_ns = time_ns,
		.pid = 42,
		.device = 0,
		.holders = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_holder)),
	};

	g_array_append_vals(l.holders, holders, G_N_ELEMENTS(holders));
	if (!r->frag.listings)
		r->frag.listings = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_listing));
	g_array_append_val(r->frag.listings, l);
}

/*
 * TensorFlow's BFC allocator fails only when no free chunk is large
 * enough and it cannot grow: with room for the request under its own
 * limit beside what it held, the room was in pieces; without, or when
 * the driver refused the process memory for it (the device was full), not.
 * A refusal long before it (at start-up, say) was no part of it.
 */
static void test_said_bfc(void **unused)
{
	static const struct {
		uint64_t in_use;
		int64_t refused_ns; /* 0: the driver refused nothing */
		const char *verdict;
	} cases[] = {
		{ 24 * MIB, 0, "fragmented" },
		{ 24 * MIB, 3000001000, "out_of_memory" },
		{ 24 * MIB, 1000, "fragmented" },
		{ 50 * MIB, 0, "out_of_memory" },
		/* 20 MiB left, within the printed sizes' rounding of the 20 asked */
		{ 44 * MIB, 0, "out_of_memory" },
	};

	(void)unused;
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct ct_doc *doc = ct_doc_create();
		const struct ct_node *f;
		struct results r;

		results_init(&r);
		write_trace(doc, 0);
		if (cases[i].refused_ns)
			add_failure(&r, "cuMemAlloc", "out_of_memory", cases[i].refused_ns, NULL);
		if (i == 0)
			add_listing(&r, 3000005000);
		write_bfc_words(doc, cases[i].in_use);
		write_end(doc, "framework-oom", NULL);
		write_findings(doc, &r);
		f = ct_node_get(ct_doc_root(doc), "findings");
		for (size_t j = 0; j < ct_node_count(f); j++)
			if (!strcmp(str(ct_node_child(f, j), "kind"), "framework_oom"))
				assert_string_equal(str(ct_node_child(f, j), "verdict"),
				                    cases[i].verdict);
		assert_int_equal(count_kind(ct_doc_root(doc), "framework_oom"), 1);
		if (i == 0) {
			f = finding(ct_doc_root(doc), 0);
			assert_non_null(
			    strstr(str(f, "summary"),
			           "its pool had room, in pieces too small (24.00 MiB in "
			           "use by TensorFlow, of its 64.00 MiB limit)"));
			/* who else held the device, NVML's list at the exception; not itself */
			assert_non_null(strstr(str(f, "explanation"),
			                       "; NVML listed on the device pid 4242 (other) with "
			                       "1.00 GiB"));
			assert_null(strstr(str(f, "explanation"), "pid 42 "));
		}
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/*
 * JAX's message, with the driver's refusals for it half a second before:
 * the finding names who else held the device, as NVML listed them at the
 * refusal; its advice is for a pool taken at start only when JAX took one.
 */
static void test_said_jax(void **unused)
{
	const struct said_figure figures[] = { { .key = "requested_bytes", .bytes = 256 * MIB },
		                               { .key = NULL } };

	(void)unused;
	for (int preallocated = 0; preallocated <= 1; preallocated++) {
		struct ct_doc *doc = ct_doc_create();
		const struct ct_node *f;
		struct ct_frag_failure *refused;
		struct results r;

		results_init(&r);
		write_trace(doc, 0);
		refused = add_failure(&r, "cuMemAlloc", "held_elsewhere", 2500000000, NULL);
		refused->holders = other_holder();
		add_framework(&r, CT_FRAMEWORK_JAX, (const int64_t[]){ 0 }, 0);
		g_array_index(r.framework.devices, struct ct_framework_device, 0)
		    .first_reserved_bytes = preallocated ? 3072 * MIB : 2 * MIB;
		write_said(
		    doc, "jax",
		    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory "
		    "while trying to allocate 268435456 bytes.",
		    figures, NULL);
		write_end(doc, "framework-oom", NULL);
		write_findings(doc, &r);
		f = finding(ct_doc_root(doc), 0);
		assert_string_equal(str(f, "kind"), "framework_oom");
		assert_non_null(
		    strstr(str(f, "explanation"),
		           "; NVML listed on the device pid 4242 (other) with 1.00 GiB"));
		if (preallocated) {
			assert_non_null(strstr(str(f, "advice"), "XLA_PYTHON_CLIENT_MEM_FRACTION"));
		} else {
			assert_non_null(strstr(str(f, "advice"), "already allocates as needed"));
			assert_null(strstr(str(f, "advice"), "PREALLOCATE"));
		}
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/*
 * JAX's message without its figures, when the probe's last figures show
 * its arrays at its own limit (75 % of the device): the limit, not the
 * device, refused it, and what to do names the setting; below the limit,
 * the device was full.
 */
static void test_said_limit(void **unused)
{
	const struct said_figure figures[] = { { .key = "requested_bytes", .bytes = 8 * MIB },
		                               { .key = NULL } };

	(void)unused;
	for (int at_limit = 0; at_limit <= 1; at_limit++) {
		struct ct_doc *doc = ct_doc_create();
		struct ct_framework_device *d;
		const struct ct_node *f;
		struct results r;

		results_init(&r);
		write_trace(doc, 0);
		add_framework(&r, CT_FRAMEWORK_JAX, (const int64_t[]){ 0 }, 0);
		d = &g_array_index(r.framework.devices, struct ct_framework_device, 0);
		d->first_reserved_bytes = 2 * MIB;
		d->limit_bytes = 3072 * MIB;
		d->in_use_bytes = at_limit ? 3066 * MIB : 1024 * MIB;
		write_said(doc, "jax",
		           "Allocator (GPU_0_bfc) ran out of memory trying to allocate 8.00MiB "
		           "(rounded to 8388608)requested by op ",
		           figures, NULL);
		write_end(doc, "framework-oom", NULL);
		write_findings(doc, &r);
		f = finding(ct_doc_root(doc), 0);
		assert_string_equal(str(f, "kind"), "framework_oom");
		if (at_limit) {
			assert_string_equal(str(f, "verdict"), "limit_reached");
			assert_non_null(strstr(str(f, "summary"), "it held all it may use of the "
			                                          "device, its own limit"));
			assert_non_null(
			    strstr(str(f, "explanation"),
			           "; its arrays held 2.99 GiB of the 3.00 GiB it may use "
			           "of the device's 4.00 GiB"));
			assert_non_null(strstr(str(f, "advice"), "XLA_PYTHON_CLIENT_MEM_FRACTION"));
		} else {
			assert_string_equal(str(f, "verdict"), "out_of_memory");
		}
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/* JAX's pool at 75 % of the device at its start is told, PyTorch's never. */
static void test_preallocation(void **unused)
{
	const uint8_t frameworks[] = { CT_FRAMEWORK_JAX, CT_FRAMEWORK_PYTORCH };

	(void)unused;
	for (int i = 0; i < 2; i++) {
		struct ct_doc *doc = ct_doc_create();
		const struct ct_node *root;
		struct results r;

		results_init(&r);
		write_trace(doc, 0);
		add_framework(&r, frameworks[i], (const int64_t[]){ 0 }, 0);
		write_framework_section(doc, &r);
		write_findings(doc, &r);
		root = ct_doc_root(doc);
		assert_int_equal(count_kind(root, "preallocation"), i == 0);
		if (i == 0) {
			assert_non_null(strstr(str(finding(root, 0), "summary"),
			                       "JAX took 3.00 GiB of device 0 at its start (75 %"));
			assert_non_null(strstr(str(finding(root, 0), "advice"),
			                       "XLA_PYTHON_CLIENT_PREALLOCATE=false"));
			assert_float_equal(
			    ct_node_number(ct_node_get(ct_node_get(finding(root, 0), "numbers"),
			                               "first_reserved_share")),
			    0.75, 1e-9);
		}
		ct_doc_destroy(doc);
		results_free(&r);
	}
}

/* A refusal the allocator made up for is advice, not a failure. */
static void test_recovered_refusal(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;
	struct ct_frag_failure *f;
	struct results r;

	(void)unused;
	results_init(&r);
	write_trace(doc, 0);
	f = add_failure(&r, "cuMemCreate", "out_of_memory", 1000, NULL);
	f->api = "cuMemCreate";
	f->requested_bytes = 768 * MIB;
	f->recovered_bytes = 692 * MIB;
	f->recovered_ns = 2000;
	write_memory_section(doc, &r);
	write_findings(doc, &r);
	root = ct_doc_root(doc);
	assert_int_equal(ct_node_count(ct_node_get(root, "findings")), 1);
	assert_string_equal(str(finding(root, 0), "kind"), "allocation_retry");
	assert_string_equal(str(finding(root, 0), "severity"), "advice");
	assert_non_null(strstr(str(finding(root, 0), "summary"),
	                       "cuMemCreate of 768.00 MiB was refused on device 0, and the "
	                       "allocator got 692.00 MiB right after"));
	ct_doc_destroy(doc);
	results_free(&r);
}

/* A sticky error is a finding without record's notes, and with them, tells the death once. */
static void test_sticky(void **unused)
{
	for (int with_end = 0; with_end < 2; with_end++) {
		struct ct_cuda_errors_result r = sticky_of(NULL, NULL);
		const struct ct_result result = { &ct_cuda_errors_analysis, &r };
		struct ct_doc *doc = ct_doc_create();
		const struct ct_node *root;
		size_t lines;
		char *page;

		write_trace(doc, 0);
		ct_cuda_errors_section.write(doc, &result, 1);
		if (with_end)
			write_end(doc, "cuda-error", NULL);
		ct_findings_write(doc, &result, 1);
		root = ct_doc_root(doc);
		assert_int_equal(ct_node_count(ct_node_get(root, "findings")), 1);
		assert_string_equal(str(finding(root, 0), "kind"), "sticky_error");
		assert_string_equal(str(finding(root, 0), "severity"), "critical");
		assert_string_equal(str(finding(root, 0), "verdict"), "cudaErrorIllegalAddress");
		assert_int_equal(deaths(root), (size_t)with_end);
		page = first_page(root, &lines);
		assert_one_screen(page, lines);
		assert_non_null(strstr(page,
		                       "1. FAILED   train got cudaErrorIllegalAddress (700) from "
		                       "cudaStreamSynchronize"));
		assert_true(!strstr(str(finding(root, 0), "summary"),
		                    "then train exited with status 1") == !with_end);
		assert_non_null(strstr(page, "CUDA_LAUNCH_BLOCKING=1"));
		free(page);
		ct_doc_destroy(doc);
		sticky_free(&r);
	}
}

/* The sticky error's finding names the kernel launched last before it, and where. */
static void test_sticky_kernel(void **unused)
{
	struct ct_cuda_errors_result r =
	    sticky_of("gather(float*, int const*, int)", "train/step:cudaLaunchKernel");
	const struct ct_result result = { &ct_cuda_errors_analysis, &r };
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root, *where;
	const char *why;

	(void)unused;
	write_trace(doc, 0);
	ct_cuda_errors_section.write(doc, &result, 1);
	ct_findings_write(doc, &result, 1);
	root = ct_doc_root(doc);
	why = str(finding(root, 0), "explanation");
	assert_non_null(strstr(why, "was kernel gather(float*, int const*, int)"));
	assert_non_null(strstr(why, "launched at train/step:cudaLaunchKernel"));
	/* where and numbers as the sticky_errors section says them */
	where = ct_node_get(finding(root, 0), "where");
	assert_int_equal(ct_node_i64(where, "pid"), 42);
	assert_string_equal(str(where, "api"), "cudaStreamSynchronize");
	assert_int_equal(ct_node_i64(where, "time_ns"), 5000);
	assert_int_equal(ct_node_i64(ct_node_get(finding(root, 0), "numbers"), "code"), 700);
	assert_string_equal(str(finding(root, 0), "source"), "sticky_errors[0]");
	ct_doc_destroy(doc);
	sticky_free(&r);
}

/*
 * A notebook cell that raised is a warning named In [N] line L, with what
 * it left allocated; source names its row in the cells section, which
 * lists the cells that hold the most first.
 */
static void test_cell_error(void **unused)
{
	static struct ct_process process = { .pid = 42, .procname = "python3" };
	struct ct_cell cells[] = {
		{ .execution_count = 1, .status = CT_CELL_RAN },
		{ .execution_count = 2,
		  .status = CT_CELL_FAILED,
		  .error_type = "ZeroDivisionError",
		  .error_message = "division by zero",
		  .error_line = 3,
		  .begin_ns = 7000,
		  .memory = { .live_allocations = 2, .live_bytes = 8 << 20 } },
	};
	uint32_t order[] = { 1, 0 };
	struct ct_cells_process p = { .process = &process, .order = order };
	struct ct_cells_result r = { .max_rows = 20 };
	const struct ct_result result = { &ct_cells_analysis, &r };
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root, *f, *row;

	(void)unused;
	p.cells = g_array_new(FALSE, TRUE, sizeof(struct ct_cell));
	g_array_append_vals(p.cells, cells, G_N_ELEMENTS(cells));
	r.processes = g_array_new(FALSE, TRUE, sizeof(struct ct_cells_process));
	g_array_append_val(r.processes, p);
	write_trace(doc, 0);
	ct_cells_section.write(doc, &result, 1);
	ct_findings_write(doc, &result, 1);
	root = ct_doc_root(doc);
	assert_int_equal(ct_node_count(ct_node_get(root, "findings")), 1);
	f = finding(root, 0);
	assert_string_equal(str(f, "kind"), "cell_error");
	assert_string_equal(str(f, "severity"), "warning");
	assert_string_equal(str(f, "summary"),
	                    "In [2] line 3 raised ZeroDivisionError: division by zero");
	assert_non_null(strstr(str(f, "explanation"), "holding the 8.00 MiB the cell allocated"));
	assert_string_equal(str(ct_node_get(f, "where"), "site"), "In [2] line 3");
	assert_int_equal(ct_node_i64(ct_node_get(f, "where"), "pid"), 42);
	assert_int_equal(ct_node_u64(ct_node_get(f, "numbers"), "live_bytes"), 8 << 20);
	assert_string_equal(str(f, "source"), "cells[0].cells[0]");
	row = ct_node_child(ct_node_get(ct_node_child(ct_node_get(root, "cells"), 0), "cells"), 0);
	assert_string_equal(str(row, "site"), "In [2] line 3");
	ct_doc_destroy(doc);
	g_array_unref(p.cells);
	g_array_unref(r.processes);
}

/* Each other way to end is said as what it is. */
static void test_other_deaths(void **unused)
{
	static const struct {
		const char *cause, *signal, *words;
	} cases[] = {
		{ "fault-signal", "SEGV",
		  "train crashed: it was killed by SIGSEGV, a fault of its own" },
		{ "abort", "ABRT", "train aborted itself (SIGABRT)" },
		{ "jupyter-interrupt", "INT", "Jupyter: the kernel was killed by SIGINT" },
		{ "jupyter-stop", "TERM", "Jupyter: the kernel was killed by SIGTERM" },
		{ "killed", "KILL", "train was killed by SIGKILL" },
		{ "unknown", NULL, "train exited with status 1; why is unknown" },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_doc *doc = ct_doc_create();
		const struct ct_node *root;

		write_trace(doc, 0);
		write_end(doc, cases[i].cause, cases[i].signal);
		ct_findings_write(doc, NULL, 0);
		root = ct_doc_root(doc);
		assert_int_equal(ct_node_count(ct_node_get(root, "findings")), 1);
		assert_string_equal(str(finding(root, 0), "kind"), "process_death");
		assert_string_equal(str(finding(root, 0), "verdict"), cases[i].cause);
		assert_non_null(strstr(str(finding(root, 0), "summary"), cases[i].words));
		assert_non_null(str(finding(root, 0), "advice"));
		ct_doc_destroy(doc);
	}
}

/* An end of unknown cause follows what went wrong before it, which may be why. */
static void test_unknown_after(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *root;
	struct results r;

	(void)unused;
	results_init(&r);
	write_memory(doc, &r, false);
	write_end(doc, "unknown", NULL);
	write_findings(doc, &r);
	root = ct_doc_root(doc);
	assert_int_equal(ct_node_count(ct_node_get(root, "findings")), 2);
	assert_string_equal(str(finding(root, 0), "kind"), "allocation_failure");
	assert_string_equal(str(finding(root, 1), "kind"), "process_death");
	assert_string_equal(str(finding(root, 1), "death"), "unknown");
	assert_non_null(strstr(str(finding(root, 1), "explanation"), "above, may be why"));
	ct_doc_destroy(doc);
	results_free(&r);
}

/* A transfers finding: KIND, of copies of SIZE_CLASS (NULL: a storm's), COUNT, costing COST_NS. */
struct copies_fix {
	const char *kind, *size_class, *message, *advice;
	uint64_t count;
	int64_t cost_ns;
	bool same_bytes; /* a repeated_upload's, sampled */
};

/*
 * A transfers result: one hotspot, COUNT synchronous pageable HtoD
 * copies at cudaMemcpy of SIZE_CLASS, MEAN bytes each; and the findings
 * FIXES (N of them) at the same site and way. Messages go in STRINGS.
 */
static struct ct_transfers_result transfers_of(const char *size_class, uint64_t mean,
                                               uint64_t count, const struct copies_fix *fixes,
                                               size_t n, GPtrArray *strings)
{
	const struct ct_transfers_site where = { 42, "train", 42, "cudaMemcpy", "", NULL };
	struct ct_transfers_hotspot h = {
		.where = where,
		.direction = CT_DIR_HTOD,
		.host = CT_HOST_PAGEABLE,
		.sync = true,
		.size_class = size_class,
		.count = count,
		.bytes = count * mean,
		.mean_bytes = mean,
		.cost_ns = 9000000,
		.cost_share = NAN,
		.bandwidth_bytes_per_s = NAN,
	};
	struct ct_transfers_result r = {
		.hotspots = g_array_new(FALSE, TRUE, sizeof(struct ct_transfers_hotspot)),
		.findings = g_array_new(FALSE, TRUE, sizeof(struct ct_transfers_finding)),
	};

	g_array_append_val(r.hotspots, h);
	for (size_t i = 0; i < n; i++) {
		/* as transfers.c ends them: a round trip's advice after a colon */
		char *message = g_strdup_printf("%s%s %s", fixes[i].message,
		                                strcmp(fixes[i].kind, "round_trip") ? ";" : ":",
		                                fixes[i].advice);
		struct ct_transfers_finding t = {
			.kind = fixes[i].kind,
			.where = where,
			.direction = CT_DIR_HTOD,
			.host = CT_HOST_PAGEABLE,
			.sync = true,
			.size_class = fixes[i].size_class,
			.count = fixes[i].count,
			.time_ns = fixes[i].cost_ns,
			.same_bytes = fixes[i].same_bytes,
			.message = message,
			.advice = fixes[i].advice,
		};

		g_ptr_array_add(strings, message);
		g_array_append_val(r.findings, t);
	}
	r.finding_count = n;
	return r;
}

/* The explanation and advice of the transfer_hotspot finding of the copies and FIXES. */
static void copies_finding(const char *size_class, uint64_t mean, uint64_t count,
                           const struct copies_fix *fixes, size_t n, const char *explanation,
                           const char *advice)
{
	GPtrArray *strings = g_ptr_array_new_with_free_func(g_free);
	struct ct_transfers_result r = transfers_of(size_class, mean, count, fixes, n, strings);
	const struct ct_result result = { &ct_transfers_analysis, &r };
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *f, *where;
	char *summary;

	write_trace(doc, 0);
	ct_findings_write(doc, &result, 1);
	assert_null(ct_doc_error(doc));
	f = finding(ct_doc_root(doc), 0);
	assert_string_equal(str(f, "kind"), "transfer_hotspot");
	summary =
	    g_strdup_printf("cudaMemcpy: %" PRIu64 " synchronous HtoD pageable copies (", count);
	assert_true(g_str_has_prefix(str(f, "summary"), summary));
	assert_non_null(strstr(str(f, "summary"), ") cost 9"));
	where = ct_node_get(f, "where");
	assert_int_equal(ct_node_u64(where, "pid"), 42);
	assert_string_equal(str(where, "site"), "cudaMemcpy");
	assert_int_equal(ct_node_get(where, "device")->type, CT_NODE_NULL);
	assert_int_equal(ct_node_u64(ct_node_get(f, "numbers"), "bytes"), count * mean);
	assert_int_equal(ct_node_get(ct_node_get(f, "numbers"), "cost_share")->type, CT_NODE_NULL);
	assert_string_equal(str(f, "explanation"), explanation);
	assert_string_equal(str(f, "advice"), advice);
	ct_doc_destroy(doc);
	g_free(summary);
	g_array_unref(r.hotspots);
	g_array_unref(r.findings);
	g_ptr_array_unref(strings);
}

/*
 * The fix of costly copies is one found for copies of their size (a storm
 * of small copies at the same call is not for large ones); a fix that
 * counts some of them, or more, says so beside the count of the summary.
 * Buffers uploaded again with the same sampled bytes, in at least half of
 * the copies (7 of 8), go before a costlier fix that makes the copies
 * cheaper (the idle GPU's); in fewer (3 of 8), or without samples (the
 * host may have refilled them), they do not, nor do round trips.
 */
static void test_copies_fix(void **unused)
{
	const struct copies_fix storm = {
		"small_copy_storm",
		NULL,
		"300 HtoD copies of 4.0 KiB on average, one every 3 us",
		"gather the data into fewer, larger copies",
		300,
		8000000,
		false,
	};
	const struct copies_fix back = {
		"round_trip",
		"64KiB-1MiB",
		"7 uploads (448.0 KiB) sent back to the device the host buffer a download had "
		"filled",
		"keep it on the device",
		7,
		1000000,
		false,
	};
	const struct copies_fix idle = {
		"sync_copy_gpu_idle",
		"64KiB-1MiB",
		"the host waited 9 ms in 8 synchronous copies",
		"copy asynchronously",
		8,
		2000000,
		false,
	};
	const struct copies_fix same = {
		"repeated_upload",
		"64KiB-1MiB",
		"the host buffer at 0x1000 (64.0 KiB) was uploaded 7 times in a row with the same "
		"sampled bytes",
		"upload it once",
		7,
		1000000,
		true,
	};
	struct copies_fix few = same, unsampled = same;
	const struct copies_fix both[] = { storm, back }, three[] = { storm, idle, back },
	                        removed[] = { storm, idle, same };
	struct copies_fix fewer[] = { storm, idle, same }, refilled[] = { storm, idle, same };

	(void)unused;
	few.count = 3;
	few.message = "the host buffer at 0x1000 (64.0 KiB) was uploaded 3 times in a row with "
	              "the same sampled bytes";
	unsampled.same_bytes = false;
	fewer[2] = few;
	refilled[2] = unsampled;
	/* large copies: the storm of small ones at the same call is not their fix */
	copies_finding("64KiB-1MiB", 64 << 10, 8, both, 2,
	               "7 uploads (448.0 KiB) sent back to the device the host buffer a download "
	               "had filled (7 of these 8 copies)",
	               "keep it on the device");
	copies_finding("64KiB-1MiB", 64 << 10, 8, three, 3,
	               "the host waited 9 ms in 8 synchronous copies", "copy asynchronously");
	copies_finding(
	    "64KiB-1MiB", 64 << 10, 8, removed, 3,
	    "the host buffer at 0x1000 (64.0 KiB) was uploaded 7 times in a row with the "
	    "same sampled bytes (7 of these 8 copies)",
	    "upload it once");
	copies_finding("64KiB-1MiB", 64 << 10, 8, fewer, 3,
	               "the host waited 9 ms in 8 synchronous copies", "copy asynchronously");
	copies_finding("64KiB-1MiB", 64 << 10, 8, refilled, 3,
	               "the host waited 9 ms in 8 synchronous copies", "copy asynchronously");
	/* small ones: the storm counts them and the site's others */
	copies_finding("4KiB-64KiB", 4 << 10, 290, both, 2,
	               "300 HtoD copies of 4.0 KiB on average, one every 3 us (these 290 copies "
	               "among them)",
	               "gather the data into fewer, larger copies");
}

/* A program that ended well is no finding. */
static void test_ended_well(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	size_t lines;
	char *page;

	(void)unused;
	write_trace(doc, 0);
	write_end(doc, "none", NULL);
	ct_findings_write(doc, NULL, 0);
	assert_int_equal(ct_node_count(ct_node_get(ct_doc_root(doc), "findings")), 0);
	page = first_page(ct_doc_root(doc), &lines);
	assert_one_screen(page, lines);
	assert_non_null(strstr(page, "Nothing found: the program exited with status 0; no sticky"));
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
		cmocka_unit_test(test_host_oom_first),
		cmocka_unit_test(test_gpu_oom_told_once),
		cmocka_unit_test(test_framework_oom),
		cmocka_unit_test(test_framework_oom_share),
		cmocka_unit_test(test_said_share),
		cmocka_unit_test(test_framework_oom_alone),
		cmocka_unit_test(test_gpu_unused),
		cmocka_unit_test(test_framework_oom_death),
		cmocka_unit_test(test_growth_filled),
		cmocka_unit_test(test_said_oom),
		cmocka_unit_test(test_said_bfc),
		cmocka_unit_test(test_said_jax),
		cmocka_unit_test(test_said_limit),
		cmocka_unit_test(test_preallocation),
		cmocka_unit_test(test_recovered_refusal),
		cmocka_unit_test(test_sticky),
		cmocka_unit_test(test_sticky_kernel),
		cmocka_unit_test(test_cell_error),
		cmocka_unit_test(test_other_deaths),
		cmocka_unit_test(test_unknown_after),
		cmocka_unit_test(test_ended_well),
		cmocka_unit_test(test_copies_fix),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
