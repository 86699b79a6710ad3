/* SPDX-License-Identifier: MIT */
/*
 * first-page.c - the diagnosis on one screen (see first-page.h).
 *
 * Lines are cut at word boundaries to fit the width, continued under
 * their label. A finding is shown whole or not at all: the page ends with
 * how many did not fit rather than with half of one.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "first-page.h"
#include "common/format.h"
#include "common/text-wrap.h"
#include "model/peak-bounds.h"
#include "writer.h"

/* Lines kept for the last one: what did not fit, where the rest is. */
#define FOOTER_LINES 1
/* Text of a finding: summary, explanation, where, advice, caveat. */
#define TEXT_MAX 4096
/* The most characters of a name from the trace on the page, and of a sentence quoting one. */
#define SHOWN_NAME_MAX     200
#define SHOWN_SENTENCE_MAX 600

struct page {
	FILE *out;    /* NULL: count only */
	size_t lines; /* written (or counted) so far */
};

/*
 * TEXT after FIRST (the label of its first line), continued under REST,
 * each line at most CT_FIRST_PAGE_WIDTH characters: cut at the last blank
 * that fits, or within a word longer than a line.
 */
static void put_wrapped(struct page *p, const char *first, const char *rest, const char *text)
{
	char **lines = ct_text_wrap(text, CT_FIRST_PAGE_WIDTH - ct_text_width(first),
	                            CT_FIRST_PAGE_WIDTH - ct_text_width(rest), true);

	for (size_t i = 0; lines[i]; i++) {
		if (p->out)
			fprintf(p->out, "%s%s\n", i ? rest : first, lines[i]);
		p->lines++;
	}
	g_strfreev(lines);
}

static const struct ct_node *at(const struct ct_node *object, const char *key)
{
	return ct_node_get(object, key);
}

static bool known(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = at(object, key);

	return n && n->type != CT_NODE_NULL;
}

/*
 * S, which may hold strings from the trace, safe for a terminal, appended
 * to TEXT; longer than MAX characters (a deep NVTX path in it), it is
 * shortened to its first ones and "...", so that one finding cannot fill
 * the page: the tables below have it whole.
 */
static void append_cut(GString *text, const char *s, glong max)
{
	char buf[TEXT_MAX];

	ct_format_text(s, buf, sizeof(buf));
	if (g_utf8_strlen(buf, -1) > max) {
		g_string_append_len(text, buf, g_utf8_offset_to_pointer(buf, max - 3) - buf);
		g_string_append(text, "...");
		return;
	}
	g_string_append(text, buf);
}

/* A name from the trace (a process, a site, an NVTX range). */
static void append_text(GString *text, const char *s)
{
	append_cut(text, s, SHOWN_NAME_MAX);
}

/* A sentence of a finding, which quotes such names. */
static void append_sentence(GString *text, const char *s)
{
	append_cut(text, s, SHOWN_SENTENCE_MAX);
}

/* "memory-workload (pid 42), device 0, thread 43, in NVTX range train/step, at +1.2 s, cudaMalloc" */
static void where_text(GString *text, const struct ct_node *where, bool first_of_many,
                       int64_t origin_ns)
{
	char t[48], d[32];

	if (ct_node_str(where, "process")) {
		append_text(text, ct_node_str(where, "process"));
		if (known(where, "pid"))
			g_string_append_printf(text, " (pid %" PRIu64 ")",
			                       ct_node_u64(where, "pid"));
	} else if (known(where, "pid")) {
		/* a process whose name the trace lacks (no CUDA, no statedump in it) */
		g_string_append_printf(text, "pid %" PRIu64, ct_node_u64(where, "pid"));
	}
	if (known(where, "device"))
		g_string_append_printf(
		    text, ", %s", ct_format_device(ct_node_u64(where, "device"), d, sizeof(d)));
	if (known(where, "tid"))
		g_string_append_printf(text, ", thread %" PRIu64, ct_node_u64(where, "tid"));
	if (ct_node_str(where, "site")) {
		g_string_append(text, ", at ");
		append_text(text, ct_node_str(where, "site"));
	}
	if (ct_node_str(where, "nvtx_path")) {
		g_string_append(text, ", in NVTX range ");
		append_text(text, ct_node_str(where, "nvtx_path"));
	} else if (known(where, "nvtx_path")) {
		g_string_append(text, ", outside any NVTX range");
	}
	if (known(where, "time_ns") && at(where, "time_ns")->type == CT_NODE_I64)
		g_string_append_printf(
		    text, ", %s %s", first_of_many ? "the first at" : "at",
		    ct_format_time(at(where, "time_ns")->value.i64, origin_ns, t, sizeof(t)));
}

const char *ct_first_page_label(const char *severity)
{
	if (!g_strcmp0(severity, "critical"))
		return "FAILED";
	if (!g_strcmp0(severity, "warning"))
		return "WARNING";
	return "ADVICE";
}

char *ct_first_page_sentence(const char *sentence)
{
	GString *text = g_string_new(NULL);

	append_sentence(text, sentence ? sentence : "?");
	return g_string_free(text, FALSE);
}

char *ct_first_page_where(const struct ct_node *finding, int64_t origin_ns)
{
	GString *text = g_string_new(NULL);

	where_text(text, at(finding, "where"), ct_node_u64(finding, "count") > 1, origin_ns);
	return g_string_free(text, FALSE);
}

char *ct_first_page_caveat(const struct ct_node *finding)
{
	GString *text;

	if (!ct_node_str(finding, "caveat"))
		return NULL;
	text = g_string_new(!g_strcmp0(ct_node_str(finding, "certainty"), "lower_bound")
	                        ? "the figures are lower bounds: "
	                        : "the figures are uncertain: ");
	append_sentence(text, ct_node_str(finding, "caveat"));
	return g_string_free(text, FALSE);
}

/* One finding, its RANK-th: its summary, why, where, what to do, how sure. */
static void put_finding(struct page *p, const struct ct_node *f, size_t rank, int64_t origin_ns)
{
	GString *text = g_string_new(NULL);
	char first[64];

	snprintf(first, sizeof(first), "%zu. %-8s ", rank,
	         ct_first_page_label(ct_node_str(f, "severity")));
	append_sentence(text, ct_node_str(f, "summary") ? ct_node_str(f, "summary") : "?");
	put_wrapped(p, first, "            ", text->str);
	if (ct_node_str(f, "explanation")) {
		g_string_truncate(text, 0);
		append_sentence(text, ct_node_str(f, "explanation"));
		put_wrapped(p, "   Why:    ", "           ", text->str);
	}
	g_string_truncate(text, 0);
	where_text(text, at(f, "where"), ct_node_u64(f, "count") > 1, origin_ns);
	if (text->len)
		put_wrapped(p, "   Where:  ", "           ", text->str);
	if (ct_node_str(f, "advice")) {
		g_string_truncate(text, 0);
		append_sentence(text, ct_node_str(f, "advice"));
		put_wrapped(p, "   Do:     ", "           ", text->str);
	}
	if (ct_node_str(f, "caveat")) {
		char *caveat = ct_first_page_caveat(f);

		put_wrapped(p, "   Note:   ", "           ", caveat);
		g_free(caveat);
	}
	g_string_free(text, TRUE);
}

/* Lines FINDING would take. */
static size_t finding_lines(const struct ct_node *f, size_t rank, int64_t origin_ns)
{
	struct page count = { 0 };

	put_finding(&count, f, rank, origin_ns);
	return count.lines;
}

char *ct_first_page_traced(const struct ct_node *trace)
{
	const struct ct_node *procs = at(trace, "processes");
	GString *text = g_string_new(NULL);
	uint64_t events = ct_node_u64(trace, "events"),
	         analysed = ct_node_u64(trace, "analysed_events");
	char d[32];

	if (procs && ct_node_count(procs)) {
		const struct ct_node *first = ct_node_child(procs, 0);

		append_text(text,
		            ct_node_str(first, "process") ? ct_node_str(first, "process") : "?");
		g_string_append_printf(text, " (pid %" PRIu64 ")", ct_node_u64(first, "pid"));
		if (ct_node_count(procs) > 1)
			g_string_append_printf(text, " and %zu other process%s",
			                       ct_node_count(procs) - 1,
			                       ct_node_count(procs) == 2 ? "" : "es");
	} else {
		g_string_append(text, "No traced process");
	}
	if (known(trace, "duration_ns"))
		g_string_append_printf(
		    text, ": %s traced",
		    ct_format_duration((double)ct_node_u64(trace, "duration_ns"), d, sizeof(d)));
	g_string_append_printf(text, ", %" PRIu64 " event%s", events, events == 1 ? "" : "s");
	if (analysed == events) {
		g_string_append(text, events ? ", all analysed" : "");
	} else {
		uint64_t pops = ct_node_u64(trace, "unmatched_nvtx_pops");
		uint64_t kernels = ct_node_u64(trace, "unmatched_gpu_records");
		uint64_t repeats = ct_node_u64(trace, "unmatched_repeats");

		/* the rest: outside the filters, or of a type no analysis that ran reads */
		g_string_append_printf(text,
		                       ", %" PRIu64
		                       " analysed (the others are outside the filters, "
		                       "of no use to the analyses run%s%s%s)",
		                       analysed, pops ? ", NVTX pops without a push" : "",
		                       kernels ? ", GPU times without their call" : "",
		                       repeats ? ", repeats of a lost call" : "");
	}
	return g_string_free(text, FALSE);
}

/*
 * The children forked without exec that ran untraced (trace.untraced_children):
 * one line naming them by pid, the first few, and their parent. Not
 * "lost": NVIDIA leaves the use of CUDA between a fork and an exec
 * undefined, and most such children never try (a data loader's workers);
 * the trace cannot say which did.
 */
static void untraced_children(const struct ct_node *trace, ct_first_page_loss_fn put, void *data)
{
	const struct ct_node *children = at(trace, "untraced_children");
	size_t count = children ? ct_node_count(children) : 0, shown = 0;
	char line[256];
	int used;

	if (!count)
		return;
	used = snprintf(line, sizeof(line),
	                "%zu child process%s forked without exec, not traced:", count,
	                count == 1 ? "" : "es");
	for (size_t i = 0; i < count && shown < 4 && used > 0 && (size_t)used < sizeof(line); i++) {
		const struct ct_node *child = ct_node_child(children, i);

		if (known(child, "child_pid"))
			used +=
			    snprintf(line + used, sizeof(line) - (size_t)used,
			             "%s pid %" PRIu64 " (of %" PRIu64 ")", shown ? "," : "",
			             ct_node_u64(child, "child_pid"), ct_node_u64(child, "pid"));
		else
			used += snprintf(line + used, sizeof(line) - (size_t)used,
			                 "%s a child of %" PRIu64 " (its pid unknown)",
			                 shown ? "," : "", ct_node_u64(child, "pid"));
		shown++;
	}
	if (count > shown && used > 0 && (size_t)used < sizeof(line))
		used += snprintf(line + used, sizeof(line) - (size_t)used, ", ...");
	if (used > 0 && (size_t)used < sizeof(line))
		snprintf(line + used, sizeof(line) - (size_t)used,
		         "; CUDA does not carry over a fork: any CUDA work of theirs is not in "
		         "the trace");
	put("Fork", line, data);
}

void ct_first_page_losses(const struct ct_node *trace, ct_first_page_loss_fn put, void *data)
{
	uint64_t discarded = ct_node_u64(trace, "discarded_events");
	uint64_t packets = ct_node_u64(trace, "discarded_packets");
	uint64_t dropped = ct_node_u64(trace, "dropped_records");
	uint64_t unmatched = ct_node_u64(trace, "unmatched_gpu_records");
	uint64_t repeats = ct_node_u64(trace, "unmatched_repeats");
	uint64_t end_unknown = ct_node_u64(trace, "gpu_end_unknown");
	const struct ct_node *complete = at(trace, "complete");
	char line[256];

	if (discarded || packets) {
		snprintf(line, sizeof(line),
		         "LTTng discarded %" PRIu64 " event%s and %" PRIu64
		         " packet%s: memory figures from then on are uncertain",
		         discarded, discarded == 1 ? "" : "s", packets, packets == 1 ? "" : "s");
		put("Lost", line, data);
	}
	if (dropped) {
		snprintf(line, sizeof(line),
		         "CUPTI dropped %" PRIu64 " activity record%s: GPU times and copy costs "
		         "are lower bounds",
		         dropped, dropped == 1 ? "" : "s");
		put("Lost", line, data);
	}
	if (unmatched) {
		snprintf(line, sizeof(line),
		         "%" PRIu64 " GPU operation%s ran whose call is not in the trace (lost, or "
		         "before it began): GPU figures are lower bounds",
		         unmatched, unmatched == 1 ? "" : "s");
		put("Lost", line, data);
	}
	if (end_unknown) {
		snprintf(line, sizeof(line),
		         "%" PRIu64 " GPU operation%s had not finished when CUPTI's records were "
		         "flushed: "
		         "counted, with no duration (end unknown)",
		         end_unknown, end_unknown == 1 ? "" : "s");
		put("Lost", line, data);
	}
	if (repeats) {
		snprintf(line, sizeof(line),
		         "%" PRIu64
		         " call%s repeat%s a call whose event is not in the trace (lost, "
		         "or before it began): figures are lower bounds",
		         repeats, repeats == 1 ? "" : "s", repeats == 1 ? "s" : "");
		put("Lost", line, data);
	}
	untraced_children(trace, put, data);
	if (complete && complete->type == CT_NODE_BOOL && !complete->value.boolean)
		put("Cut",
		    "the trace ends before the program did: what follows is up to its last event",
		    data);
}

/* "accounting (pid 42), device 0" for a memory.devices[] row, in TEXT. */
static void append_device(GString *text, const struct ct_node *d)
{
	char device[32];

	append_text(text, ct_node_str(d, "process") ? ct_node_str(d, "process") : "?");
	g_string_append_printf(text, " (pid %" PRId64 "), %s", ct_node_i64(d, "pid"),
	                       ct_format_device(ct_node_u64(d, "device"), device, sizeof(device)));
}

/*
 * A peak the trace cannot order exactly: calls of several threads
 * overlapped and the bounds are more than 1 % apart (memory.devices[]'s
 * peak_low_bytes and peak_high_bytes).
 */
static void put_peak_bounds(const struct ct_node *d, ct_first_page_loss_fn put, void *data)
{
	int64_t peak = ct_node_i64(d, "peak_bytes");
	int64_t low = ct_node_i64(d, "peak_low_bytes"), high = ct_node_i64(d, "peak_high_bytes");
	char a[32], b[32], c[32];
	GString *text;

	if (!ct_peak_bounds_apart(peak, low, high))
		return;
	text = g_string_new(NULL);
	append_device(text, d);
	g_string_append_printf(
	    text,
	    ": its peak was %s as the trace orders calls, and between %s and %s: its "
	    "threads allocated and freed at the same time, and calls that overlap cannot "
	    "be ordered",
	    ct_format_bytes((double)peak, a, sizeof(a)), ct_format_bytes((double)low, b, sizeof(b)),
	    ct_format_bytes((double)high, c, sizeof(c)));
	put("Peak", text->str, data);
	g_string_free(text, TRUE);
}

/* Releases under way when a process ended (memory.devices[]'s unfinished_frees). */
static void put_unfinished(const struct ct_node *d, ct_first_page_loss_fn put, void *data)
{
	uint64_t n = ct_node_u64(d, "unfinished_frees");
	GString *text;

	if (!n)
		return;
	text = g_string_new(NULL);
	append_device(text, d);
	g_string_append_printf(
	    text,
	    ": %" PRIu64 " release%s had not returned when the process ended: counted as "
	    "still allocated, though the driver may have done %s; an allocation whose call "
	    "had not returned is not in the trace",
	    n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
	put("Exit", text->str, data);
	g_string_free(text, TRUE);
}

void ct_first_page_bounds(const struct ct_node *root, ct_first_page_loss_fn put, void *data)
{
	const struct ct_node *devices = at(at(root, "memory"), "devices");

	for (size_t i = 0; devices && i < ct_node_count(devices); i++) {
		const struct ct_node *d = ct_node_child(devices, i);

		put_peak_bounds(d, put, data);
		put_unfinished(d, put, data);
	}
}

char *ct_first_page_nothing(const struct ct_node *root)
{
	/* how it ended is said only as record judged it (process_end) */
	bool ended_well = !g_strcmp0(ct_node_str(at(root, "process_end"), "cause"), "none");

	return g_strdup_printf("Nothing found: %sno sticky CUDA error, no allocation failed, no "
	                       "memory grows step after step, no costly copies with a fix.",
	                       ended_well ? "the program exited with status 0; " : "");
}

/* A loss on the page: "Lost: ...", continued under its text. */
static void put_loss(const char *label, const char *text, void *data)
{
	char *first = g_strdup_printf("%s:", label);
	char *padded = g_strdup_printf("%-6s", first);

	put_wrapped(data, padded, "      ", text);
	g_free(padded);
	g_free(first);
}

size_t ct_first_page_write(const struct ct_node *root, FILE *out)
{
	const struct ct_node *trace = at(root, "trace");
	const struct ct_node *findings = at(root, "findings");
	const struct ct_node *start = at(trace, "start_ns");
	int64_t origin_ns = start && start->type == CT_NODE_I64 ? start->value.i64 : INT64_MIN;
	struct page p = { .out = out };
	size_t count = findings ? ct_node_count(findings) : 0, shown = 0;

	char *line = ct_first_page_traced(trace);

	put_wrapped(&p, "", "  ", line);
	g_free(line);
	ct_first_page_losses(trace, put_loss, &p);
	ct_first_page_bounds(root, put_loss, &p);
	if (!count) {
		line = ct_first_page_nothing(root);
		put_wrapped(&p, "", "  ", line);
		g_free(line);
		return p.lines;
	}
	for (; shown < count; shown++) {
		const struct ct_node *f = ct_node_child(findings, shown);
		size_t need = finding_lines(f, shown + 1, origin_ns);

		if (p.lines + need + FOOTER_LINES > CT_FIRST_PAGE_LINES && shown > 0)
			break;
		put_finding(&p, f, shown + 1, origin_ns);
	}
	if (shown < count) {
		/* the default report has no Findings table: --details prints it */
		line = g_strdup_printf(
		    "%zu more finding%s: `cudatrace report --details` lists every finding",
		    count - shown, count - shown == 1 ? "" : "s");
		put_wrapped(&p, "", "  ", line);
		g_free(line);
	}
	return p.lines;
}
