/* SPDX-License-Identifier: MIT */
/*
 * summary.c - the few lines `cudatrace record` prints about its trace, and
 * the post-mortem of a program that was killed.
 *
 * It runs the same analyses as `cudatrace report` (memory, fragmentation,
 * transfers where built) and picks a few values out of the report
 * document, by the keys of doc/report-schema.md; a key that is missing is
 * skipped rather than guessed.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analyzers/analysis.h"
#include "../analyzers/document.h"
#include "../analyzers/reader.h"
#include "../analyzers/writer.h"
#include "diag.h"
#include "snapshot.h"
#include "summary.h"

/* Rows shown per list: this is a summary, `cudatrace report` has the rest. */
#define SUMMARY_ROWS 3

struct summary {
	struct ct_options opts;
	struct ct_doc *doc;
	struct summary_numbers numbers;
	int64_t origin_ns; /* first event: times are shown from there */
};

static const char *const wanted_analyses[] = { "memory", "fragmentation", "transfers" };

/* ---------------------------------------------------------- document access */

static const struct ct_node *get(const struct ct_node *object, const char *key)
{
	return object ? ct_node_get(object, key) : NULL;
}

static uint64_t get_u64(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = get(object, key);

	if (!n)
		return 0;
	if (n->type == CT_NODE_U64)
		return n->value.u64;
	if (n->type == CT_NODE_I64 && n->value.i64 > 0)
		return (uint64_t)n->value.i64;
	return 0;
}

static const char *get_str(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = get(object, key);

	return n && n->type == CT_NODE_STRING && n->value.str ? n->value.str : "";
}

/* A value for people ("1.50 GiB", "2.31 s"), or "?" when the key is missing or null. */
static const char *show(const struct summary *s, const struct ct_node *object, const char *key,
                        char *buf, size_t len)
{
	const struct ct_node *n = get(object, key);

	if (!n || n->type == CT_NODE_NULL)
		return "?";
	return ct_format_value(n, s->origin_ns, buf, len);
}

/* ------------------------------------------------------------------ reading */

static void collect_numbers(struct summary *s, const struct ct_reader_stats *st,
                            struct ct_reader *reader)
{
	const struct ct_node *memory = get(ct_doc_root(s->doc), "memory");
	const struct ct_node *devices = get(memory, "devices");
	struct ct_context *ctx = ct_reader_context(reader);
	struct summary_numbers *n = &s->numbers;

	n->events = st->events;
	n->discarded = st->discarded_events;
	n->first_ns = st->first_ns;
	n->last_ns = st->last_ns;
	n->truncated = st->truncated;
	n->pid = -1;
	for (const struct ct_node *d = devices ? devices->first_child : NULL; d; d = d->next) {
		uint64_t peak = get_u64(d, "peak_bytes");

		if (peak > n->peak_bytes)
			n->peak_bytes = peak;
	}
	n->failures = get_u64(memory, "failure_count");
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
	struct ct_reader *reader = NULL;
	const struct ct_reader_stats *st;
	enum ct_reader_status status;

	if (!s)
		goto oom;
	ct_options_init(&s->opts);
	s->opts.max_rows = SUMMARY_ROWS;
	reader = ct_reader_create(&s->opts);
	s->doc = ct_doc_create();
	if (!reader || !s->doc)
		goto oom;
	for (size_t i = 0; i < sizeof(wanted_analyses) / sizeof(wanted_analyses[0]); i++) {
		const struct ct_analysis_class *cls = ct_analysis_find(wanted_analyses[i]);

		if (cls && ct_reader_add(reader, cls) < 0)
			goto reader_error;
	}
	snapshot_newest(dir, input, sizeof(input));
	status = ct_reader_read(reader, inputs, 1);
	st = ct_reader_stats(reader);
	if (status == CT_READER_INPUT_ERROR || status == CT_READER_ERROR) {
		diag_error("cannot read the trace in %s: %s", dir,
		           st->error[0] ? st->error : "not a cudatrace trace");
		goto error;
	}
	if (ct_reader_finish(reader) < 0 || ct_reader_report(reader, s->doc) < 0)
		goto reader_error;
	if (!ct_doc_root(s->doc)) {
		diag_error("cannot summarise the trace in %s: %s", dir,
		           ct_doc_error(s->doc) ? ct_doc_error(s->doc) : "empty report");
		goto error;
	}
	s->origin_ns = st->first_ns <= st->last_ns ? st->first_ns : INT64_MIN;
	collect_numbers(s, st, reader);
	ct_reader_destroy(reader);
	return s;
oom:
	diag_error("cannot summarise the trace in %s: out of memory", dir);
	goto error;
reader_error:
	diag_error("cannot summarise the trace in %s: %s", dir, ct_reader_stats(reader)->error);
error:
	ct_reader_destroy(reader);
	summary_destroy(s);
	return NULL;
}

void summary_destroy(struct summary *s)
{
	if (!s)
		return;
	ct_doc_destroy(s->doc);
	free(s);
}

const struct summary_numbers *summary_numbers(const struct summary *s)
{
	return &s->numbers;
}

/* ----------------------------------------------------------------- printing */

static const struct ct_node *section_array(const struct summary *s, const char *section,
                                           const char *key)
{
	const struct ct_node *a = get(get(ct_doc_root(s->doc), section), key);

	return a && a->type == CT_NODE_ARRAY ? a : NULL;
}

/* "python3 (pid 42) device 0" */
static void who(const struct ct_node *o, char *buf, size_t len)
{
	const struct ct_node *pid = get(o, "pid");

	snprintf(buf, len, "%s (pid %" PRId64 ") device %" PRIu64, get_str(o, "process"),
	         pid && pid->type == CT_NODE_I64 ? pid->value.i64 : (int64_t)-1,
	         get_u64(o, "device"));
}

static void print_peaks(const struct summary *s, FILE *out)
{
	const struct ct_node *devices = section_array(s, "memory", "devices");
	char name[128], a[32], b[32], c[32];

	if (!devices || !devices->first_child) {
		fprintf(out, "  No GPU memory was allocated.\n");
		return;
	}
	fprintf(out, "  Peak GPU memory:\n");
	for (const struct ct_node *d = devices->first_child; d; d = d->next) {
		who(d, name, sizeof(name));
		fprintf(out, "    %s: %s at %s, %s still allocated at the end\n", name,
		        show(s, d, "peak_bytes", a, sizeof(a)),
		        show(s, d, "peak_time_ns", b, sizeof(b)),
		        show(s, d, "live_at_end_bytes", c, sizeof(c)));
	}
}

static void print_failures(const struct summary *s, FILE *out)
{
	const struct ct_node *failures = section_array(s, "memory", "failures");
	char name[128], t[32], req[32];
	size_t shown = 0;

	if (s->numbers.failures == 0)
		return;
	fprintf(out, "  Allocation failures: %" PRIu64 "\n", s->numbers.failures);
	for (const struct ct_node *f = failures ? failures->first_child : NULL;
	     f && shown < SUMMARY_ROWS; f = f->next, shown++) {
		who(f, name, sizeof(name));
		fprintf(out, "    at %s, %s: %s of %s: %s\n", show(s, f, "time_ns", t, sizeof(t)),
		        name, get_str(f, "site")[0] ? get_str(f, "site") : get_str(f, "api"),
		        show(s, f, "requested_bytes", req, sizeof(req)), get_str(f, "verdict"));
		if (get_str(f, "explanation")[0])
			fprintf(out, "      %s\n", get_str(f, "explanation"));
	}
}

/* "train/step:cudaMemcpy HtoD pageable sync: 3 copies, 192.00 KiB, cost 24.16 us" */
static void print_hotspot(const struct summary *s, const struct ct_node *h, size_t rank, FILE *out)
{
	const struct ct_node *sync = get(h, "sync");
	char bytes[32], cost[32];

	fprintf(out, "    %zu. %s %s %s%s: %" PRIu64 " copies, %s, cost %s\n", rank,
	        get_str(h, "site"), get_str(h, "direction"), get_str(h, "host_memory"),
	        sync && sync->type == CT_NODE_BOOL ? (sync->value.boolean ? " sync" : " async")
	                                           : "",
	        get_u64(h, "count"), show(s, h, "bytes", bytes, sizeof(bytes)),
	        show(s, h, "cost_ns", cost, sizeof(cost)));
}

static void print_hotspots(const struct summary *s, FILE *out)
{
	const struct ct_node *hotspots = section_array(s, "transfers", "hotspots");
	const struct ct_node *findings = section_array(s, "transfers", "findings");
	size_t rank = 0;

	if (!hotspots || !hotspots->first_child)
		return;
	fprintf(out, "  Transfer hotspots:\n");
	for (const struct ct_node *h = hotspots->first_child; h && rank < SUMMARY_ROWS; h = h->next)
		print_hotspot(s, h, ++rank, out);
	rank = 0;
	for (const struct ct_node *f = findings ? findings->first_child : NULL;
	     f && rank < SUMMARY_ROWS; f = f->next, rank++)
		fprintf(out, "    ! %s\n", get_str(f, "message"));
}

void summary_print_report(const struct summary *s, FILE *out)
{
	print_peaks(s, out);
	print_failures(s, out);
	print_hotspots(s, out);
}

/* What was live when the program died, per device, with the biggest holders. */
static void print_state_at_end(const struct summary *s, FILE *out)
{
	const struct ct_node *devices = section_array(s, "memory", "devices");
	char name[128], a[32], b[32], c[32];

	for (const struct ct_node *d = devices ? devices->first_child : NULL; d; d = d->next) {
		const struct ct_node *sites = get(d, "leak_sites");
		size_t shown = 0;

		who(d, name, sizeof(name));
		fprintf(out, "    %s: %s live in %" PRIu64 " allocations (peak %s at %s)\n", name,
		        show(s, d, "live_at_end_bytes", a, sizeof(a)), get_u64(d, "leak_count"),
		        show(s, d, "peak_bytes", b, sizeof(b)),
		        show(s, d, "peak_time_ns", c, sizeof(c)));
		for (const struct ct_node *l = sites ? sites->first_child : NULL;
		     l && shown < SUMMARY_ROWS; l = l->next, shown++)
			fprintf(out, "      %s in %" PRIu64 " allocations from %s\n",
			        show(s, l, "bytes", a, sizeof(a)), get_u64(l, "count"),
			        get_str(l, "site"));
	}
}

void summary_print_postmortem(const struct summary *s, int signal, FILE *out)
{
	const struct summary_numbers *n = &s->numbers;
	char last[32] = "?";

	if (n->first_ns <= n->last_ns)
		snprintf(last, sizeof(last), "%.3f s", (double)(n->last_ns - n->first_ns) / 1e9);
	fprintf(out, "Post-mortem: %s (pid %" PRId64 ") was killed by SIG%s.\n",
	        n->program[0] ? n->program : "the program", n->pid,
	        sigabbrev_np(signal) ? sigabbrev_np(signal) : "?");
	fprintf(out, "  Its last event is at %s%s.\n", last,
	        n->truncated ? " (the trace ends in a cut packet)" : "");
	if (!section_array(s, "memory", "devices") ||
	    !section_array(s, "memory", "devices")->first_child) {
		fprintf(out, "  It had allocated no GPU memory.\n");
	} else {
		fprintf(out, "  GPU memory at its last event:\n");
		print_state_at_end(s, out);
	}
	print_failures(s, out);
	if (n->failures)
		fprintf(out,
		        "  An allocation failed before it died: the verdicts above say whether "
		        "GPU memory was full, fragmented or held elsewhere.\n");
	else if (signal == SIGKILL)
		fprintf(out, "  No GPU allocation failed before it died: a SIGKILL then comes from "
		             "outside, such as the kernel's OOM killer when host memory (pinned "
		             "buffers included) ran out, or a Jupyter restart.\n");
	else
		fprintf(out, "  No GPU allocation failed before it died.\n");
}
