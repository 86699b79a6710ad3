/* SPDX-License-Identifier: MIT */
/*
 * summary.c - the few lines `cudatrace record` prints about its trace, and
 * the post-mortem of a program that was killed.
 *
 * It runs the analyses `cudatrace report`'s diagnosis reads (memory,
 * fragmentation, transfers, CUDA errors, environment, framework) and prints a few values of their results (memory.h,
 * fragmentation.h, transfers.h), which are what the report says, caveats
 * included: a figure the trace cannot give exactly says so ("at least"),
 * and what the trace lost (LTTng's discarded events, CUPTI's dropped
 * records) is stated with what it makes uncertain. The strings among them
 * come from the traced program (process, site and API names): each is
 * printed escaped for a terminal, as the text report prints them.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis.h"
#include "analyses/cells.h"
#include "analyses/cuda-errors.h"
#include "contract/assert.h"
#include "common/document.h"
#include "common/format.h"
#include "findings/findings.h"
#include "report/first-page.h"
#include "analyses/fragmentation.h"
#include "analyses/framework.h"
#include "analyses/memory.h"
#include "pass/reader.h"
#include "common/text-wrap.h"
#include "analyses/transfers.h"
#include "report/writer.h"
#include "death-section.h"
#include "diag.h"
#include "last-words-section.h"
#include "snapshot.h"
#include "summary.h"

/* Rows shown per list: this is a summary, `cudatrace report` has the rest. */
#define SUMMARY_ROWS 3
/* Notebook cells named in a post-mortem: the rest are summed up in one line. */
#define POSTMORTEM_CELLS 8

struct summary {
	struct ct_options opts;
	struct ct_reader *reader; /* owned: the results below are its */
	struct ct_doc *doc;       /* owned: the report, whose findings lead */
	char *dir;                /* owned: the trace directory, where record's files are */
	const struct ct_memory_result *memory;
	const struct ct_fragmentation_result *fragmentation;
	const struct ct_transfers_result *transfers;
	const struct ct_cuda_errors_result *errors;
	const struct ct_cells_result *cells;
	const struct ct_framework_result *framework;
	struct summary_numbers numbers;
	int64_t origin_ns; /* first event: times are shown from there */
	bool cut;          /* the trace was cut before the program ended (summary_note_cut) */
	bool concluded;    /* the findings are in the report (summary_conclude) */
	bool judged;       /* and how the program ended, before them */
};

/*
 * Every analysis whose section the diagnosis reads (findings.c), so that
 * record prints the first page `cudatrace report` prints, and the cells
 * for the post-mortem.
 */
static const struct ct_analysis_class *const wanted_analyses[] = {
	&ct_memory_analysis,      &ct_fragmentation_analysis, &ct_transfers_analysis,
	&ct_cuda_errors_analysis, &ct_cells_analysis,         &ct_environment_analysis,
	&ct_framework_analysis,   &ct_api_analysis,
};

/* ------------------------------------------------------------------ reading */

static void collect_numbers(struct summary *s, const struct ct_reader_stats *st)
{
	struct ct_context *ctx = ct_reader_context(s->reader);
	struct summary_numbers *n = &s->numbers;

	n->events = st->events;
	n->discarded = st->discarded_events;
	n->discarded_packets = st->discarded_packets;
	n->dropped = st->dropped_records;
	n->first_ns = st->first_ns;
	n->last_ns = st->last_ns;
	n->truncated = st->truncated;
	n->pid = -1;
	for (guint i = 0; i < s->memory->devices->len; i++) {
		const struct ct_memory_device *d =
		    &g_array_index(s->memory->devices, struct ct_memory_device, i);

		if (d->peak_bytes > 0 && (uint64_t)d->peak_bytes > n->peak_bytes)
			n->peak_bytes = (uint64_t)d->peak_bytes;
	}
	n->failures = s->fragmentation->failure_count;
	if (ct_context_process_count(ctx) > 0) {
		const struct ct_process *p = ct_context_process_at(ctx, 0);

		snprintf(n->program, sizeof(n->program), "%s", p->procname);
		n->pid = p->pid;
	}
}

struct summary *summary_read(const char *dir)
{
	char input[4096];
	const char *inputs[1] = { input };
	struct summary *s = calloc(1, sizeof(*s));
	const struct ct_reader_stats *st;
	enum ct_reader_status status;

	if (!s)
		goto oom;
	ct_options_init(&s->opts);
	s->opts.max_rows = SUMMARY_ROWS;
	s->dir = g_strdup(dir);
	s->reader = ct_reader_create(&s->opts);
	if (!s->reader)
		goto oom;
	for (size_t i = 0; i < sizeof(wanted_analyses) / sizeof(wanted_analyses[0]); i++)
		if (ct_reader_add(s->reader, wanted_analyses[i]) < 0)
			goto reader_error;
	snapshot_newest(dir, input, sizeof(input));
	status = ct_reader_read(s->reader, inputs, 1);
	st = ct_reader_stats(s->reader);
	if (status == CT_READER_INPUT_ERROR || status == CT_READER_ERROR) {
		diag_error("cannot read the trace in %s: %s", dir,
		           st->error[0] ? st->error : "not a cudatrace trace");
		goto error;
	}
	if (ct_reader_finish(s->reader) < 0)
		goto reader_error;
	s->doc = ct_doc_create();
	if (ct_reader_report(s->reader, s->doc) < 0)
		goto reader_error;
	s->memory = ct_reader_result(s->reader, &ct_memory_analysis);
	s->fragmentation = ct_reader_result(s->reader, &ct_fragmentation_analysis);
	s->transfers = ct_reader_result(s->reader, &ct_transfers_analysis);
	s->errors = ct_reader_result(s->reader, &ct_cuda_errors_analysis);
	s->cells = ct_reader_result(s->reader, &ct_cells_analysis);
	s->framework = ct_reader_result(s->reader, &ct_framework_analysis);
	s->origin_ns = st->first_ns <= st->last_ns ? st->first_ns : INT64_MIN;
	collect_numbers(s, st);
	return s;
oom:
	diag_error("cannot summarise the trace in %s: out of memory", dir);
	goto error;
reader_error:
	diag_error("cannot summarise the trace in %s: %s", dir, ct_reader_stats(s->reader)->error);
error:
	summary_destroy(s);
	return NULL;
}

void summary_destroy(struct summary *s)
{
	if (!s)
		return;
	ct_doc_destroy(s->doc);
	ct_reader_destroy(s->reader);
	g_free(s->dir);
	free(s);
}

const struct summary_numbers *summary_numbers(const struct summary *s)
{
	return &s->numbers;
}

/* The first line of TEXT into BUF (LEN bytes). */
static void first_line(char *buf, size_t len, const char *text)
{
	snprintf(buf, len, "%.*s", (int)strcspn(text, "\r\n"), text);
}

void summary_end_facts(const struct summary *s, int64_t pid, struct summary_end *end)
{
	const GArray *failures = s->fragmentation->failures;
	const GArray *sticky = s->errors->sticky;
	const GArray *exceptions = s->framework->exceptions;

	memset(end, 0, sizeof(*end));
	if (sticky->len) {
		const struct ct_cuda_sticky *e = &g_array_index(sticky, struct ct_cuda_sticky, 0);

		snprintf(end->error, sizeof(end->error), "%s", e->error);
		snprintf(end->error_api, sizeof(end->error_api), "%s", e->api);
		end->error_ns = e->time_ns;
	}
	/* the last that failed for lack of memory: another error is no GPU out-of-memory */
	for (guint i = failures->len; i-- > 0;) {
		const struct ct_frag_failure *f =
		    &g_array_index(failures, struct ct_frag_failure, i);

		if (ct_frag_failure_not_memory(f))
			continue;
		end->failed_bytes = f->requested_bytes;
		snprintf(end->verdict, sizeof(end->verdict), "%s", f->verdict);
		end->failure_ns = f->time_ns;
		break;
	}
	for (guint i = exceptions->len; i-- > 0;) {
		const struct ct_framework_exception *x =
		    &g_array_index(exceptions, struct ct_framework_exception, i);

		if (x->pid != pid)
			continue;
		first_line(end->exception, sizeof(end->exception), x->type);
		first_line(end->exception_site, sizeof(end->exception_site), x->site);
		first_line(end->exception_message, sizeof(end->exception_message), x->message);
		break;
	}
}

/* ----------------------------------------------------------------- printing */

/* The most bytes of a string from the trace shown, once escaped. */
#define SHOWN_MAX 512

/*
 * S, a string from the trace (a process, site or API name, or a message
 * that quotes one), safe for a terminal (ct_format_text). Returns BUF.
 */
static const char *shown(const char *s, char *buf, size_t len)
{
	return ct_format_text(s ? s : "", buf, len);
}

/* "python3 (pid 42) device 0" */
static void who(const char *process, int64_t pid, unsigned device, char *buf, size_t len)
{
	char p[SHOWN_MAX], d[32];

	snprintf(buf, len, "%s (pid %" PRId64 ") %s", shown(process, p, sizeof(p)), pid,
	         ct_format_device(device, d, sizeof(d)));
}

static const char *bytes(double value, char *buf, size_t len)
{
	return ct_format_bytes(value, buf, len);
}

static const char *time_of(const struct summary *s, int64_t ns, char *buf, size_t len)
{
	return ct_format_time(ns, s->origin_ns, buf, len);
}

/* The peak's time, "?" when the device has no peak. */
static const char *peak_time(const struct summary *s, const struct ct_memory_device *d, char *buf,
                             size_t len)
{
	return d->has_peak ? time_of(s, d->peak_time_ns, buf, len) : "?";
}

/* What CUDA reclaimed that the program never freed, on one line. */
static void print_reclaimed(const struct ct_memory_device *d, FILE *out)
{
	const struct ct_memory_reclaimed *first;
	char a[32], by[SHOWN_MAX];

	if (!d->reclaimed_count)
		return;
	first =
	    d->reclaimed->len ? &g_array_index(d->reclaimed, struct ct_memory_reclaimed, 0) : NULL;
	fprintf(out,
	        "      %" PRIu64 " allocation%s (%s) never freed by the program: reclaimed %s%s\n",
	        d->reclaimed_count, d->reclaimed_count == 1 ? "" : "s",
	        bytes((double)d->reclaimed_bytes, a, sizeof(a)),
	        first && first->reclaimed_by ? "by " : "at context teardown",
	        shown(first ? first->reclaimed_by : NULL, by, sizeof(by)));
}

static void print_peaks(const struct summary *s, FILE *out)
{
	const GArray *devices = s->memory->devices;
	char name[SHOWN_MAX + 64], a[32], b[32], c[32];

	if (!devices->len) {
		fprintf(out, "  No GPU memory was allocated.\n");
		return;
	}
	fprintf(out, "  Peak GPU memory:\n");
	for (guint i = 0; i < devices->len; i++) {
		const struct ct_memory_device *d =
		    &g_array_index(devices, struct ct_memory_device, i);

		who(d->process, d->pid, d->device, name, sizeof(name));
		if (!d->has_peak) {
			fprintf(out, "    %s: no device memory allocated in the trace\n", name);
			print_reclaimed(d, out);
			continue;
		}
		fprintf(out, "    %s: %s%s at %s, %s%s still allocated %s%s\n", name,
		        d->peak_lower_bound ? "at least " : "",
		        bytes((double)d->peak_bytes, a, sizeof(a)), peak_time(s, d, b, sizeof(b)),
		        d->end_lower_bound ? "at least " : "",
		        bytes((double)d->live_at_end_bytes, c, sizeof(c)),
		        s->cut ? "when the trace was cut" : "at the end",
		        d->leaks_possible ? " (uncertain: events were lost)" : "");
		print_reclaimed(d, out);
	}
}

/* How many allocations failed: the findings above give each kind of them. */
static void print_failure_count(const struct summary *s, FILE *out)
{
	if (s->numbers.failures == 0)
		return;
	fprintf(out, "  Allocation failures: %" PRIu64 " (the diagnosis above gives each kind)\n",
	        s->numbers.failures);
}

/*
 * "storm:cudaMemcpy HtoD pageable sync, device 0, thread 42, 4KiB-64KiB: 3 copies,
 * 12.00 KiB, cost 24.16 us": every field hotspots differ by, so that no two lines
 * read the same.
 */
static void print_hotspot(const struct ct_transfers_hotspot *h, size_t rank, FILE *out)
{
	char size[32], cost[32], site[SHOWN_MAX], device[24] = "";
	char *which, *figures;

	if (h->has_device)
		snprintf(device, sizeof(device), ", device %u", h->device);
	/* a copy between devices has no host memory to name */
	which =
	    g_strdup_printf("%zu. %s %s%s%s%s%s, thread %" PRId64 ", %s:", rank,
	                    shown(h->where.site, site, sizeof(site)),
	                    ct_direction_label(h->direction), h->host == CT_HOST_NONE ? "" : " ",
	                    h->host == CT_HOST_NONE ? "" : ct_host_mem_label(h->host),
	                    h->sync ? " sync" : " async", device, h->where.tid, h->size_class);
	figures =
	    g_strdup_printf("%" PRIu64 " cop%s, %s, cost %s", h->count, h->count == 1 ? "y" : "ies",
	                    bytes((double)h->bytes, size, sizeof(size)),
	                    ct_format_duration((double)h->cost_ns, cost, sizeof(cost)));
	/*
	 * Too long for one line: the figures on the next, under the site. The
	 * site is a name from the program: whole, even past the width.
	 */
	if (4 + ct_text_width(which) + 1 + ct_text_width(figures) <= CT_TEXT_WIDTH)
		fprintf(out, "    %s %s\n", which, figures);
	else
		fprintf(out, "    %s\n       %s\n", which, figures);
	g_free(which);
	g_free(figures);
}

static void print_hotspots(const struct summary *s, FILE *out)
{
	const GArray *hotspots = s->transfers->hotspots;

	if (!hotspots->len)
		return;
	fprintf(out, "  Transfer hotspots:\n");
	for (guint i = 0; i < hotspots->len && i < SUMMARY_ROWS; i++)
		print_hotspot(&g_array_index(hotspots, struct ct_transfers_hotspot, i), i + 1, out);
}

/*
 * What the figures above cannot tell: allocations made before the trace
 * (what the trace lost, LTTng's and CUPTI's, is on the first page).
 */
static void print_caveats(const struct summary *s, FILE *out)
{
	const GArray *devices = s->memory->devices;
	bool before = false;

	for (guint i = 0; i < devices->len; i++) {
		const struct ct_memory_device *d =
		    &g_array_index(devices, struct ct_memory_device, i);

		before |= d->peak_lower_bound || d->end_lower_bound;
	}
	if (before)
		fprintf(out,
		        "  The trace does not show every allocation (it began after the program "
		        "had allocated, and no complete statedump gives what was live): the "
		        "figures marked \"at least\" are lower bounds.\n");
}

void summary_note_cut(struct summary *s)
{
	s->cut = true;
}

void summary_conclude(struct summary *s, const struct trace_info *end)
{
	size_t count;
	const struct ct_result *results = ct_reader_results(s->reader, &count);

	CT_ASSERT(!s->concluded);
	if (end) {
		char *paths[] = { s->dir };

		/* its last words, then how it ended: the diagnosis reads both */
		last_words_section_write(s->doc, results, count, paths, 1, NULL);
		death_section_write_info(s->doc, results, count, end);
		s->judged = ct_node_get(ct_doc_root(s->doc), "process_end") != NULL;
	}
	ct_findings_write(s->doc, results, count);
	s->concluded = true;
	if (ct_doc_error(s->doc))
		diag_warn("cannot make the diagnosis: %s", ct_doc_error(s->doc));
}

void summary_print_report(const struct summary *s, FILE *out)
{
	CT_ASSERT(s->concluded);
	ct_first_page_write(ct_doc_root(s->doc), out);
	print_peaks(s, out);
	print_failure_count(s, out);
	print_hotspots(s, out);
	print_caveats(s, out);
}

/* What was live when the program died, per device, with the biggest holders. */
static void print_state_at_end(const struct summary *s, FILE *out)
{
	const GArray *devices = s->memory->devices;
	char name[SHOWN_MAX + 64], a[32], b[32], c[32], site[SHOWN_MAX];

	for (guint i = 0; i < devices->len; i++) {
		const struct ct_memory_device *d =
		    &g_array_index(devices, struct ct_memory_device, i);

		who(d->process, d->pid, d->device, name, sizeof(name));
		fprintf(out, "    %s: %s%s live in %" PRIu64 " allocation%s (peak %s%s at %s)%s\n",
		        name, d->end_lower_bound ? "at least " : "",
		        bytes((double)d->live_at_end_bytes, a, sizeof(a)), d->leak_count,
		        d->leak_count == 1 ? "" : "s", d->peak_lower_bound ? "at least " : "",
		        bytes((double)d->peak_bytes, b, sizeof(b)), peak_time(s, d, c, sizeof(c)),
		        d->leaks_possible ? " (uncertain: events were lost)" : "");
		print_reclaimed(d, out);
		for (guint j = 0; j < d->leak_sites->len && j < SUMMARY_ROWS; j++) {
			const struct ct_memory_leak_site *l =
			    &g_array_index(d->leak_sites, struct ct_memory_leak_site, j);

			fprintf(out, "      %s in %" PRIu64 " allocation%s from %s\n",
			        bytes((double)l->bytes, a, sizeof(a)), l->count,
			        l->count == 1 ? "" : "s", shown(l->site, site, sizeof(site)));
		}
	}
}

/* The notebook cells of P that held memory when it died, most first. */
static void print_process_cells(const struct ct_cells_process *p, FILE *out)
{
	char a[32], line[SHOWN_MAX];
	uint64_t more = 0, more_bytes = 0;
	guint shown_cells = 0;

	/* The last cell: one before it without its cell_end lost that event. */
	if (p->cells->len) {
		const struct ct_cell *last =
		    &g_array_index(p->cells, struct ct_cell, p->cells->len - 1);

		if (last->status == CT_CELL_RUNNING)
			fprintf(out, "  It died running In [%" PRIu64 "].\n",
			        last->execution_count);
	}
	for (guint i = 0; i < p->cells->len; i++) {
		const struct ct_cell *c = &g_array_index(p->cells, struct ct_cell, p->order[i]);

		if (!c->memory.live_bytes)
			break; /* the order puts cells holding nothing last */
		if (shown_cells == POSTMORTEM_CELLS) {
			more++;
			more_bytes += c->memory.live_bytes;
			continue;
		}
		if (!shown_cells++)
			fprintf(out, "  Notebook cells holding memory at its last event%s:\n",
			        p->uncertain ? " (uncertain: events were lost)" : "");
		fprintf(out,
		        "    In [%" PRIu64 "] holds %s in %" PRIu64
		        " allocation%s, from line %" PRIu32 ": %s\n",
		        c->execution_count, bytes((double)c->memory.live_bytes, a, sizeof(a)),
		        c->memory.live_allocations, c->memory.live_allocations == 1 ? "" : "s",
		        c->line, shown(c->first_line, line, sizeof(line)));
	}
	if (more)
		fprintf(out, "    and %" PRIu64 " more cells hold %s\n", more,
		        bytes((double)more_bytes, a, sizeof(a)));
	if (p->outside.live_bytes)
		fprintf(out,
		        "  Allocated outside notebook cells (the kernel's start, threads working "
		        "between cells): %s live in %" PRIu64 " allocation%s\n",
		        bytes((double)p->outside.live_bytes, a, sizeof(a)),
		        p->outside.live_allocations, p->outside.live_allocations == 1 ? "" : "s");
}

void summary_print_postmortem(const struct summary *s, int signal, bool page_shown, FILE *out)
{
	const struct summary_numbers *n = &s->numbers;
	char last[48] = "an unknown time (the trace holds no event)", program[SHOWN_MAX];

	if (n->first_ns <= n->last_ns)
		snprintf(last, sizeof(last), "+%.3f s", (double)(n->last_ns - n->first_ns) / 1e9);
	fprintf(out, "Post-mortem: %s (pid %" PRId64 ") was killed by SIG%s.\n",
	        n->program[0] ? shown(n->program, program, sizeof(program)) : "the program", n->pid,
	        sigabbrev_np(signal) ? sigabbrev_np(signal) : "?");
	fprintf(out, "  Its last event is at %s%s.\n", last,
	        n->truncated ? " (the trace ends in a cut packet)" : "");
	CT_ASSERT(s->concluded);
	if (!page_shown)
		ct_first_page_write(ct_doc_root(s->doc), out);
	if (!s->memory->devices->len) {
		fprintf(out, "  It had allocated no GPU memory.\n");
	} else {
		fprintf(out, "  GPU memory at its last event:\n");
		print_state_at_end(s, out);
	}
	for (guint i = 0; i < s->cells->processes->len; i++)
		print_process_cells(&g_array_index(s->cells->processes, struct ct_cells_process, i),
		                    out);
	/* the report printed just above has said these */
	if (!page_shown) {
		print_failure_count(s, out);
		print_caveats(s, out);
	}
	if (n->failures)
		fprintf(out,
		        "  An allocation failed before it died: the verdicts in the diagnosis say "
		        "whether GPU memory was full, fragmented or held elsewhere.\n");
	else if (signal == SIGKILL && !s->judged)
		fprintf(out, "  No GPU allocation failed before it died: a SIGKILL then comes from "
		             "outside, such as the kernel's OOM killer when host memory (pinned "
		             "buffers included) ran out, or a Jupyter restart.\n");
	else
		fprintf(out, "  No GPU allocation failed before it died.\n");
}
