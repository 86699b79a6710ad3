/* SPDX-License-Identifier: MIT */
/*
 * findings.c - the diagnosis (see findings.h): how the program ended,
 * sticky CUDA errors, failed allocations and their verdict, NVTX ranges
 * whose memory grows step after step, the costliest transfer hotspot and
 * its fix, ranked by severity, the death first, then by what they weigh
 * (time order for failures and errors, bytes for growth, time for
 * copies).
 *
 * Everything is read from the document, never recomputed: a finding
 * quotes the figures of its section (the numbers are copies of its
 * nodes, units included) and refers to them by path ("source"), so that
 * the first page and the tables below it can never disagree.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "common/caveat.h"
#include "findings.h"
#include "common/format.h"

/* Findings kept per kind: the first page shows a few, the rest is in the sections. */
#define MAX_PER_KIND 8
#define MAX_NUMBERS  8

/* Most severe first: the order of the list. */
enum severity {
	SEV_CRITICAL, /* the program failed: a death, an allocation, a sticky error */
	SEV_WARNING,  /* it will fail: memory that grows without bound */
	SEV_ADVICE,   /* it is slow: what costs the most, and the fix */
};

static const char *const severity_names[] = { "critical", "warning", "advice" };

struct number {
	const char *key;            /* static */
	const struct ct_node *node; /* a scalar of the document, borrowed */
};

/* A finding before it is written. Nodes are the document's, borrowed. */
struct finding {
	enum severity severity;
	const char *kind;            /* static */
	const char *verdict;         /* borrowed, NULL if none */
	char *summary;               /* owned */
	char *explanation;           /* owned, NULL if none */
	char *advice;                /* owned */
	const char *certainty;       /* "exact", "lower_bound", "uncertain"; static */
	char *caveat;                /* owned, NULL when exact */
	const struct ct_node *where; /* the object that holds pid, process, site, ... */
	const char *death;           /* the process_end cause it explains, NULL if none */
	bool leads;                  /* it tells what ended the program: first of its severity */
	uint64_t count;              /* occurrences it stands for */
	struct number numbers[MAX_NUMBERS];
	size_t number_count;
	char *source;  /* owned: the path of what it quotes, "memory.failures[0]" */
	double weight; /* within a severity: heavier first */
	double order;  /* then: smaller first */
};

/* What the trace lost or missed, which every finding must take into account. */
struct losses {
	uint64_t discarded; /* events LTTng discarded (and packets) */
	uint64_t dropped;   /* activity records CUPTI dropped */
	bool complete;      /* the trace was read to the program's end */
};

/* The figures each kind of finding quotes from its section (doc/report-schema.md). */
static const char *const failure_numbers[] = {
	"requested_bytes",      "free_bytes", "largest_free_bytes", "total_bytes", "live_bytes",
	"held_elsewhere_bytes", NULL,
};
static const char *const growth_numbers[] = {
	"growth_per_repetition_bytes", "repetitions", "growing_repetitions",
	"held_at_end_bytes",           NULL,
};
static const char *const hotspot_numbers[] = {
	"count",
	"bytes",
	"cost_ns",
	"cost_share",
	"bandwidth_bytes_per_s",
	"gpu_idle_while_blocked_ns",
	NULL,
};

/* ---------------------------------------------------------------- reading */

static const struct ct_node *at(const struct ct_node *object, const char *key)
{
	return ct_node_get(object, key);
}

static uint64_t u64_of(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = at(object, key);

	if (!n)
		return 0;
	if (n->type == CT_NODE_U64)
		return n->value.u64;
	if (n->type == CT_NODE_I64)
		return n->value.i64 > 0 ? (uint64_t)n->value.i64 : 0;
	return 0;
}

/* KEY's number, 0 when absent or not a number. */
static double number_of(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = at(object, key);
	double value = n ? ct_node_number(n) : NAN;

	return isnan(value) ? 0 : value;
}

/* KEY's string, NULL when absent, null or empty. */
static const char *str_of(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = at(object, key);

	return n && n->type == CT_NODE_STRING && n->value.str[0] ? n->value.str : NULL;
}

static bool bool_of(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = at(object, key);

	return n && n->type == CT_NODE_BOOL && n->value.boolean;
}

static const char *bytes_text(double value, char *buf, size_t len)
{
	return ct_format_bytes(value, buf, len);
}

/* ----------------------------------------------------------------- the list */

static struct finding *finding_add(GArray *list, enum severity severity, const char *kind,
                                   const struct ct_node *where)
{
	struct finding f = {
		.severity = severity, .kind = kind, .where = where, .certainty = "exact", .count = 1
	};

	g_array_append_val(list, f);
	return &g_array_index(list, struct finding, list->len - 1);
}

static void number_add(struct finding *f, const char *key, const struct ct_node *node)
{
	if (node && f->number_count < MAX_NUMBERS)
		f->numbers[f->number_count++] = (struct number){ key, node };
}

/* The KEYS of OBJECT (NULL-terminated), as numbers of F, under the same keys. */
static void numbers_from(struct finding *f, const struct ct_node *object, const char *const *keys)
{
	for (size_t i = 0; keys[i]; i++)
		number_add(f, keys[i], at(object, keys[i]));
}

/*
 * F's figures are not exact: CERTAINTY and why. A lower bound stays one
 * when a later cause only makes it uncertain too: uncertain wins, and the
 * reasons add up.
 */
static void finding_caveat(struct finding *f, const char *certainty, const char *why)
{
	char *old = f->caveat;

	if (!strcmp(f->certainty, "exact") || !strcmp(certainty, "uncertain"))
		f->certainty = certainty;
	if (old && strstr(old, why))
		return;
	f->caveat = old ? g_strdup_printf("%s; %s", old, why) : g_strdup(why);
	g_free(old);
}

static void finding_clear(gpointer data)
{
	struct finding *f = data;

	g_free(f->summary);
	g_free(f->explanation);
	g_free(f->advice);
	g_free(f->caveat);
	g_free(f->source);
}

/* Why figures are not exact, for people, by the cause the sections name (caveat.h). */
static const char *cause_words(const char *cause)
{
	if (!g_strcmp0(cause, CT_CAUSE_BEFORE_WINDOW))
		return "the trace began after the program had allocated memory it does not show";
	if (!g_strcmp0(cause, CT_CAUSE_DISCARDED))
		return "LTTng discarded events: memory figures from then on may be off either way";
	if (!g_strcmp0(cause, CT_CAUSE_DROPPED))
		return "CUPTI dropped activity records: pool figures may miss some";
	if (!g_strcmp0(cause, CT_CAUSE_RELEASE_AT_SYNC))
		return "a pool may have released memory at a synchronisation, which nothing "
		       "records";
	return "the trace does not show everything these figures need";
}

/* What lost events make of the memory figures. */
static void memory_losses(struct finding *f, const struct losses *l)
{
	if (l->discarded)
		finding_caveat(f, "uncertain", cause_words(CT_CAUSE_DISCARDED));
}

/* ------------------------------------------------------ failed allocations */

static const char *failure_advice(const char *verdict)
{
	if (!strcmp(verdict, "out_of_memory"))
		return "the device was full: free what is no longer needed before this point, "
		       "or need less here (smaller batches, lower precision), or use a device "
		       "with more memory";
	if (!strcmp(verdict, "fragmented"))
		return "enough memory was free, but in pieces too small: allocate the large "
		       "buffers first and reuse them, or allocate from a pool "
		       "(cudaMallocAsync); PyTorch: PYTORCH_CUDA_ALLOC_CONF="
		       "expandable_segments:True";
	if (!strcmp(verdict, "held_elsewhere"))
		return "other processes held the memory this one needed: see which "
		       "(nvidia-smi), stop them or run on another device (CUDA_VISIBLE_DEVICES)";
	return "the trace cannot tell why: record the program from its start, so that the "
	       "trace sees every allocation";
}

static const char *verdict_words(const char *verdict)
{
	if (!strcmp(verdict, "out_of_memory"))
		return "out of memory";
	if (!strcmp(verdict, "fragmented"))
		return "memory fragmented";
	if (!strcmp(verdict, "held_elsewhere"))
		return "memory held by other processes";
	return "cause unknown";
}

/* Whether two failures are the same problem: process, device, site and verdict. */
static bool same_failure(const struct ct_node *a, const struct ct_node *b)
{
	return u64_of(a, "pid") == u64_of(b, "pid") && u64_of(a, "device") == u64_of(b, "device") &&
	       !g_strcmp0(str_of(a, "site"), str_of(b, "site")) &&
	       !g_strcmp0(str_of(a, "verdict"), str_of(b, "verdict"));
}

/* The failure's own caveats (figures not exact), and a verdict withheld. */
/*
 * The failure's own caveats, one reason per cause: lower bounds alone
 * leave its figures lower bounds, anything else (an upper bound, an
 * uncertain figure, a verdict withheld) makes them uncertain.
 */
static void failure_caveats(struct finding *f, const struct ct_node *failure,
                            const struct losses *l)
{
	const struct ct_node *caveats = at(failure, "caveats");
	const char *withheld = str_of(failure, "withheld_verdict");

	for (size_t i = 0; caveats && i < ct_node_count(caveats); i++) {
		const char *what = str_of(ct_node_child(caveats, i), "caveat");
		const char *why = cause_words(str_of(ct_node_child(caveats, i), "cause"));

		if (what)
			finding_caveat(
			    f, !strcmp(what, "lower_bound") ? "lower_bound" : "uncertain", why);
	}
	if (withheld) {
		char why[200];

		snprintf(why, sizeof(why),
		         "so the verdict is withheld: the figures alone would say %s, but they "
		         "cannot be trusted for it",
		         verdict_words(withheld));
		finding_caveat(f, "uncertain", why);
	}
	memory_losses(f, l);
}

/* The failures of one kind: how many, and the sizes they asked for. */
struct failure_group {
	uint64_t count;
	double smallest, largest;
};

/*
 * "64.00 MiB", or "64.00 MiB to 128.00 MiB" for a group whose requests
 * differ: a group is never shown with the size of its first alone.
 */
static const char *group_sizes(const struct failure_group *g, char *buf, size_t len)
{
	char low[32], high[32];

	if (g->smallest == g->largest)
		return bytes_text(g->smallest, buf, len);
	snprintf(buf, len, "%s to %s", bytes_text(g->smallest, low, sizeof(low)),
	         bytes_text(g->largest, high, sizeof(high)));
	return buf;
}

static void add_failure(GArray *list, const struct ct_node *failure, size_t index,
                        const struct failure_group *g, const struct losses *l)
{
	const char *verdict = str_of(failure, "verdict");
	const char *api = str_of(failure, "api");
	char req[72], times[40] = "";
	uint64_t count = g->count;
	struct finding *f;

	if (!verdict)
		verdict = "unknown";
	f = finding_add(list, SEV_CRITICAL, "allocation_failure", failure);
	f->verdict = verdict;
	f->count = count;
	if (count > 1)
		snprintf(times, sizeof(times), " (%" PRIu64 " times)", count);
	f->summary = g_strdup_printf("%s of %s failed on device %" PRIu64 ": %s%s",
	                             api ? api : "an allocation", group_sizes(g, req, sizeof(req)),
	                             u64_of(failure, "device"), verdict_words(verdict), times);
	if (str_of(failure, "explanation"))
		f->explanation = g_strdup(str_of(failure, "explanation"));
	f->advice = g_strdup(failure_advice(verdict));
	numbers_from(f, failure, failure_numbers);
	f->source = g_strdup_printf("memory.failures[%zu]", index);
	f->order = number_of(failure, "time_ns");
	failure_caveats(f, failure, l);
}

/* One finding per kind of failure (process, device, site, verdict), in time order. */
static void find_failures(GArray *list, const struct ct_node *memory, const struct losses *l)
{
	const struct ct_node *failures = at(memory, "failures");
	size_t added = 0;

	for (size_t i = 0; failures && i < ct_node_count(failures) && added < MAX_PER_KIND; i++) {
		const struct ct_node *failure = ct_node_child(failures, i);
		double requested = number_of(failure, "requested_bytes");
		struct failure_group g = { 1, requested, requested };
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = same_failure(ct_node_child(failures, j), failure);
		if (seen)
			continue;
		for (size_t j = i + 1; j < ct_node_count(failures); j++) {
			const struct ct_node *other = ct_node_child(failures, j);

			if (!same_failure(other, failure))
				continue;
			g.count++;
			requested = number_of(other, "requested_bytes");
			g.smallest = MIN(g.smallest, requested);
			g.largest = MAX(g.largest, requested);
		}
		add_failure(list, failure, i, &g, l);
		added++;
	}
}

/* ---------------------------------------------------------- growing ranges */

/*
 * The site inside RANGE (of process PID) that holds the most of what is
 * live at the end, from the leaks of MEMORY's devices; NULL if none.
 */
static const char *growing_site(const struct ct_node *memory, uint64_t pid, const char *range)
{
	const struct ct_node *devices = at(memory, "devices");
	const char *best = NULL;
	uint64_t best_bytes = 0;

	for (size_t i = 0; devices && i < ct_node_count(devices); i++) {
		const struct ct_node *d = ct_node_child(devices, i);
		const struct ct_node *leaks = at(d, "leaks");

		if (u64_of(d, "pid") != pid)
			continue;
		for (size_t j = 0; leaks && j < ct_node_count(leaks); j++) {
			const struct ct_node *a = ct_node_child(leaks, j);

			if (!g_strcmp0(str_of(a, "nvtx_path"), range) && str_of(a, "site") &&
			    u64_of(a, "size") > best_bytes) {
				best = str_of(a, "site");
				best_bytes = u64_of(a, "size");
			}
		}
	}
	return best;
}

/* Whether MEMORY's devices of PID say the trace began after the program allocated. */
static bool before_window(const struct ct_node *memory, uint64_t pid)
{
	const struct ct_node *devices = at(memory, "devices");

	for (size_t i = 0; devices && i < ct_node_count(devices); i++)
		if (u64_of(ct_node_child(devices, i), "pid") == pid &&
		    u64_of(ct_node_child(devices, i), "before_window_allocations"))
			return true;
	return false;
}

static void find_growth(GArray *list, const struct ct_node *memory, const struct losses *l)
{
	const struct ct_node *ranges = at(memory, "growing_ranges");

	for (size_t i = 0; ranges && i < ct_node_count(ranges) && i < MAX_PER_KIND; i++) {
		const struct ct_node *r = ct_node_child(ranges, i);
		const char *range = str_of(r, "range");
		const char *site = growing_site(memory, u64_of(r, "pid"), range);
		char step[32], end[32];
		struct finding *f;

		if (!range)
			continue;
		f = finding_add(list, SEV_WARNING, "memory_growth", r);
		f->count = u64_of(r, "growing_repetitions");
		f->summary = g_strdup_printf(
		    "NVTX range %s keeps %s more device memory each time it runs "
		    "(grew in %" PRIu64 " of %" PRIu64 " runs); %s held at the end",
		    range,
		    bytes_text(number_of(r, "growth_per_repetition_bytes"), step, sizeof(step)),
		    u64_of(r, "growing_repetitions"), u64_of(r, "repetitions"),
		    bytes_text(number_of(r, "held_at_end_bytes"), end, sizeof(end)));
		if (site)
			f->explanation = g_strdup_printf("what it keeps was allocated at %s and "
			                                 "never freed",
			                                 site);
		f->advice = g_strdup_printf(
		    "free in %s what it allocates (%s), or stop keeping references to it from one "
		    "run to the next (a list of tensors that grows, a cache without a bound)",
		    range, site ? site : "see the leaks by site below");
		numbers_from(f, r, growth_numbers);
		f->source = g_strdup_printf("memory.growing_ranges[%zu]", i);
		f->weight = number_of(r, "held_at_end_bytes");
		if (before_window(memory, u64_of(r, "pid")))
			finding_caveat(f, "lower_bound",
			               "the trace began after the program had allocated: what it "
			               "held before is not counted");
		memory_losses(f, l);
	}
}

/* ------------------------------------------------------------------ copies */

/* Whether transfer finding T is about hotspot H's copies (same process, thread, site, way). */
static bool same_copies(const struct ct_node *t, const struct ct_node *h)
{
	return u64_of(t, "pid") == u64_of(h, "pid") && u64_of(t, "tid") == u64_of(h, "tid") &&
	       !g_strcmp0(str_of(t, "site"), str_of(h, "site")) &&
	       !g_strcmp0(str_of(t, "direction"), str_of(h, "direction")) &&
	       !g_strcmp0(str_of(t, "host_memory"), str_of(h, "host_memory")) &&
	       bool_of(t, "sync") == bool_of(h, "sync");
}

/* MESSAGE without its last part, "; ADVICE", which the finding gives apart. */
static char *without_advice(const char *message, const char *advice)
{
	size_t m = message ? strlen(message) : 0, a = strlen(advice);

	if (!message)
		return NULL;
	if (m > a + 2 && !strcmp(message + m - a, advice) && !strncmp(message + m - a - 2, "; ", 2))
		return g_strndup(message, m - a - 2);
	return g_strdup(message);
}

/*
 * The costliest hotspot, and the fix the transfers analysis found for its
 * copies (its costliest finding about them). Without a fix, copies that
 * simply move data are no problem to report.
 */
static void find_copies(GArray *list, const struct ct_node *transfers, const struct losses *l)
{
	const struct ct_node *hotspots = at(transfers, "hotspots");
	const struct ct_node *found = at(transfers, "findings");
	const struct ct_node *h, *fix = NULL;
	char bytes[32], cost[32], share[32] = "";
	struct finding *f;

	if (!hotspots || !ct_node_count(hotspots))
		return;
	h = ct_node_child(hotspots, 0);
	for (size_t i = 0; found && i < ct_node_count(found) && !fix; i++)
		if (same_copies(ct_node_child(found, i), h) &&
		    str_of(ct_node_child(found, i), "advice"))
			fix = ct_node_child(found, i);
	if (!fix)
		return;
	if (at(h, "cost_share") && at(h, "cost_share")->type == CT_NODE_DOUBLE)
		snprintf(share, sizeof(share), ", %.1f %% of all copy time",
		         number_of(h, "cost_share") * 100.0);
	f = finding_add(list, SEV_ADVICE, "transfer_hotspot", h);
	f->count = u64_of(h, "count");
	f->summary =
	    g_strdup_printf("%s: %" PRIu64 " %s %s %s cop%s (%s) cost %s%s",
	                    str_of(h, "site") ? str_of(h, "site") : "?", u64_of(h, "count"),
	                    bool_of(h, "sync") ? "synchronous" : "asynchronous",
	                    str_of(h, "direction") ? str_of(h, "direction") : "",
	                    str_of(h, "host_memory") ? str_of(h, "host_memory") : "",
	                    u64_of(h, "count") == 1 ? "y" : "ies",
	                    bytes_text(number_of(h, "bytes"), bytes, sizeof(bytes)),
	                    ct_format_duration(number_of(h, "cost_ns"), cost, sizeof(cost)), share);
	f->verdict = str_of(fix, "kind");
	f->explanation = without_advice(str_of(fix, "message"), str_of(fix, "advice"));
	f->advice = g_strdup(str_of(fix, "advice"));
	numbers_from(f, h, hotspot_numbers);
	f->source = g_strdup("transfers.hotspots[0]");
	f->weight = number_of(h, "cost_ns");
	if (l->dropped)
		finding_caveat(f, "lower_bound",
		               "CUPTI dropped activity records: GPU times and costs may miss "
		               "some copies");
	if (l->discarded)
		finding_caveat(f, "lower_bound", "LTTng discarded events: some copies are missing");
}

/* ------------------------------------------------------------- compatibility */

/*
 * What NVIDIA's compatibility rules found of each process's environment
 * (environment[].findings[]): an error is CUDA refusing the program (a
 * driver too old for its runtime, no code for the device), a warning what
 * may make it fail (two copies of a library, one from an unexpected
 * place). Notes (PTX JIT-compiled) stay in the section. At most
 * MAX_PER_KIND a process, in the section's order.
 */
static void find_compatibility(GArray *list, const struct ct_node *environment)
{
	for (size_t i = 0; i < ct_node_count(environment); i++) {
		const struct ct_node *p = ct_node_child(environment, i);
		const struct ct_node *found = at(p, "findings");
		size_t kept = 0;

		for (size_t k = 0; found && k < ct_node_count(found) && kept < MAX_PER_KIND; k++) {
			const struct ct_node *x = ct_node_child(found, k);
			const char *severity = str_of(x, "severity");
			struct finding *f;

			if (!severity || !strcmp(severity, "note"))
				continue;
			f = finding_add(list,
			                !strcmp(severity, "error") ? SEV_CRITICAL : SEV_WARNING,
			                "compatibility", p);
			f->verdict = str_of(x, "id");
			f->summary = g_strdup(str_of(x, "what"));
			f->explanation = g_strdup(str_of(x, "rule"));
			f->advice = g_strdup(str_of(x, "action"));
			f->source = g_strdup_printf("environment[%zu].findings[%zu]", i, k);
			f->order = (double)i;
			kept++;
		}
	}
}

/* ------------------------------------------------------------ sticky errors */

static const char *const sticky_numbers[] = { "code", "failed_after", NULL };

/*
 * Each process's first sticky CUDA error: its context cannot be used any
 * more, whether or not the program went on. The call that returned it is
 * often not the one at fault: a kernel's fault comes back from the next
 * call that waits for it.
 */
static void find_sticky(GArray *list, const struct ct_node *sticky, const struct losses *l)
{
	for (size_t i = 0; sticky && i < ct_node_count(sticky) && i < MAX_PER_KIND; i++) {
		const struct ct_node *e = ct_node_child(sticky, i);
		const char *api = str_of(e, "api");
		struct finding *f;

		f = finding_add(list, SEV_CRITICAL, "sticky_error", e);
		f->verdict = str_of(e, "error");
		f->summary = g_strdup_printf(
		    "%s got %s (%" PRIu64 ") from %s, a sticky CUDA error: no CUDA call can "
		    "succeed after it (%" PRIu64 " call%s failed after it)",
		    str_of(e, "process") ? str_of(e, "process") : "the program",
		    f->verdict ? f->verdict : "an error", u64_of(e, "code"), api ? api : "a call",
		    u64_of(e, "failed_after"), u64_of(e, "failed_after") == 1 ? "" : "s");
		f->explanation = g_strdup_printf(
		    "a kernel's fault comes back from the next call that waits for it: the kernel "
		    "at fault was launched before %s returned it",
		    api ? api : "the call");
		f->advice =
		    g_strdup("find the kernel at fault: run it with CUDA_LAUNCH_BLOCKING=1, "
		             "so that the launch that faults returns the error, or under "
		             "compute-sanitizer (memcheck names the kernel, thread and "
		             "address); the process must be restarted to use CUDA again");
		numbers_from(f, e, sticky_numbers);
		f->source = g_strdup_printf("sticky_errors[%zu]", i);
		f->order = number_of(e, "time_ns");
		if (l->discarded)
			finding_caveat(f, "uncertain",
			               "LTTng discarded events: an earlier error, and calls that "
			               "failed after it, may be missing");
	}
}

/* ------------------------------------------------------- how it ended */

/*
 * How the program ended, from the "process_end" section (what `cudatrace
 * record` judged and wrote beside the trace): the judgement is record's
 * (its cause), the words and the advice are the diagnosis's. A death that
 * another finding already tells (a sticky error, a failed allocation) is
 * added to that finding instead of told twice.
 */

static const char *const host_oom_numbers[] = { "rss_peak_bytes", "rss_last_bytes", "limit_bytes",
	                                        "oom_kills", NULL };

/* "exited with status 1", "was killed by SIGSEGV", into BUF. */
static const char *end_words(const struct ct_node *pe, char *buf, size_t len)
{
	if (str_of(pe, "signal_name"))
		snprintf(buf, len, "was killed by SIG%s", str_of(pe, "signal_name"));
	else
		snprintf(buf, len, "exited with status %lld",
		         (long long)number_of(pe, "exit_status"));
	return buf;
}

/*
 * The program's name: the traced process of its pid (the command record
 * ran may have become it by exec), else the command's.
 */
static const char *program_of(const struct ct_node *root, const struct ct_node *pe)
{
	const struct ct_node *procs = at(at(root, "trace"), "processes");

	for (size_t i = 0; procs && i < ct_node_count(procs); i++) {
		const struct ct_node *p = ct_node_child(procs, i);

		if (at(pe, "pid") && u64_of(p, "pid") == u64_of(pe, "pid") && str_of(p, "process"))
			return str_of(p, "process");
	}
	return str_of(pe, "program") ? str_of(pe, "program") : "the program";
}

/* F, a finding the program did not survive: it says so, and ranks first. */
static void mark_death(struct finding *f, const struct ct_node *root, const struct ct_node *pe,
                       const char *cause)
{
	char end[64], *summary = f->summary;

	f->death = cause;
	f->leads = true;
	f->summary = g_strdup_printf("%s; then %s %s", summary, program_of(root, pe),
	                             end_words(pe, end, sizeof(end)));
	g_free(summary);
}

/* The first finding of KIND in LIST whose object MATCHES OBJECT. */
static struct finding *told_by(GArray *list, const char *kind, const struct ct_node *object,
                               bool (*matches)(const struct ct_node *, const struct ct_node *))
{
	for (guint i = 0; object && i < list->len; i++) {
		struct finding *f = &g_array_index(list, struct finding, i);

		if (!strcmp(f->kind, kind) && matches(f->where, object))
			return f;
	}
	return NULL;
}

/* Whether sticky error E is the one record judged the program died of (PE). */
static bool is_fatal_sticky(const struct ct_node *e, const struct ct_node *pe)
{
	return !g_strcmp0(str_of(e, "error"), str_of(pe, "cuda_error")) &&
	       !g_strcmp0(str_of(e, "api"), str_of(pe, "cuda_error_api"));
}

/*
 * The failure record judged the program died of (PE): the last of
 * MEMORY's failures, of the size and verdict PE gives. NULL if none.
 */
static const struct ct_node *fatal_failure(const struct ct_node *memory, const struct ct_node *pe)
{
	const struct ct_node *failures = at(memory, "failures");

	for (size_t i = failures ? ct_node_count(failures) : 0; i-- > 0;) {
		const struct ct_node *f = ct_node_child(failures, i);

		if (u64_of(f, "requested_bytes") == u64_of(pe, "gpu_failed_bytes") &&
		    !g_strcmp0(str_of(f, "verdict"), str_of(pe, "gpu_verdict")))
			return f;
	}
	return NULL;
}

/* The highest peak of MEMORY's devices into BUF; false when it has none. */
static bool gpu_peak(const struct ct_node *memory, char *buf, size_t len)
{
	const struct ct_node *devices = at(memory, "devices");
	double peak = 0;

	if (!devices || !ct_node_count(devices))
		return false;
	for (size_t i = 0; i < ct_node_count(devices); i++)
		peak = MAX(peak, number_of(ct_node_child(devices, i), "peak_bytes"));
	bytes_text(peak, buf, len);
	return true;
}

/* What the OOM kill rests on, and what it says of GPU memory. */
static char *host_oom_explanation(const struct ct_node *root, const struct ct_node *pe)
{
	const struct ct_node *host = at(pe, "host_memory");
	const struct ct_node *memory = at(root, "memory");
	const struct ct_node *logged = at(host, "oom_in_kernel_log");
	GString *text = g_string_new(NULL);
	uint64_t kills = u64_of(host, "oom_kills");
	size_t failures = at(memory, "failures") ? ct_node_count(at(memory, "failures")) : 0;
	char peak[32];

	if (kills) {
		g_string_append_printf(text,
		                       "the OOM killer killed %" PRIu64
		                       " process%s of its memory cgroup %s while it ran, and it "
		                       "died of SIGKILL",
		                       kills, kills == 1 ? "" : "es",
		                       str_of(host, "cgroup") ? str_of(host, "cgroup") : "");
		if (bool_of(host, "oom_in_kernel_log"))
			g_string_append(text, "; the kernel log names it");
		else if (!logged || logged->type == CT_NODE_NULL)
			g_string_append(text,
			                "; the kernel log, unreadable, cannot say it was this "
			                "process");
	} else {
		g_string_append(text, "the kernel log names it as killed by the OOM killer");
	}
	if (failures)
		g_string_append_printf(text, "; %zu GPU allocation%s failed too, see below",
		                       failures, failures == 1 ? "" : "s");
	else if (memory && gpu_peak(memory, peak, sizeof(peak)))
		g_string_append_printf(text,
		                       "; GPU memory was not the cause: no GPU allocation failed "
		                       "(its peak: %s)",
		                       peak);
	else if (memory)
		g_string_append(text, "; GPU memory was not the cause: no GPU allocation failed");
	return g_string_free(text, FALSE);
}

static void host_oom(struct finding *f, const struct ct_node *root, const struct ct_node *pe)
{
	const struct ct_node *host = at(pe, "host_memory");
	const char *limit_of = str_of(host, "limit_of");
	char peak[32], limit[96] = "";

	if (number_of(host, "limit_bytes") > 0)
		snprintf(limit, sizeof(limit), " of %s, %s",
		         bytes_text(number_of(host, "limit_bytes"), peak, sizeof(peak)),
		         !g_strcmp0(limit_of, "cgroup") ? "its cgroup's limit"
		                                        : "the machine's memory");
	bytes_text(number_of(host, "rss_peak_bytes"), peak, sizeof(peak));
	if (number_of(host, "rss_peak_bytes") > 0)
		f->summary =
		    g_strdup_printf("%s was killed by the kernel's OOM killer: host memory "
		                    "ran out (resident peak at least %s%s)",
		                    program_of(root, pe), peak, limit);
	else
		f->summary =
		    g_strdup_printf("%s was killed by the kernel's OOM killer: host memory ran out",
		                    program_of(root, pe));
	f->explanation = host_oom_explanation(root, pe);
	f->advice = g_strdup_printf(
	    "%s, or need less host memory: fewer data loader workers (PyTorch DataLoader "
	    "num_workers) and less prefetching, fewer or smaller pinned buffers, data read in "
	    "pieces or memory-mapped rather than loaded whole",
	    !g_strcmp0(limit_of, "cgroup")
	        ? "raise the memory limit of its cgroup or container (docker run --memory, "
	          "Kubernetes resources.limits.memory, systemd MemoryMax=)"
	        : "run it on a machine with more memory");
	numbers_from(f, host, host_oom_numbers);
	if (number_of(host, "rss_peak_bytes") > 0)
		finding_caveat(f, "lower_bound",
		               "cudatrace record looks at its resident memory every 100 ms: its "
		               "peak when it was killed may be higher");
}

/* What to do about fault SIGNAL (its name without SIG). */
static const char *fault_advice(const char *signal)
{
	if (!g_strcmp0(signal, "BUS"))
		return "a file mapped into memory shrank, or a shared memory file system is full: "
		       "PyTorch DataLoader workers pass batches through /dev/shm, make it larger "
		       "(docker run --shm-size) or use fewer workers; else run it under gdb to "
		       "see where";
	if (!g_strcmp0(signal, "ILL"))
		return "an instruction this CPU does not have: a binary or library built for "
		       "another CPU (-march=native elsewhere); run it under gdb to see which";
	if (!g_strcmp0(signal, "FPE"))
		return "an integer division by zero in host code: run it under gdb to see where";
	return "an invalid memory access in host code (a native extension, a buffer used "
	       "after it was freed): run it under gdb, or allow a core dump (ulimit -c "
	       "unlimited); Python: python -X faulthandler prints each thread's stack";
}

/* Who sent a signal from outside, as far as is known. */
static char *outside_explanation(const struct ct_node *pe)
{
	const struct ct_node *host = at(pe, "host_memory");
	const struct ct_node *kills = at(host, "oom_kills");

	if (g_strcmp0(str_of(pe, "signal_name"), "KILL"))
		return g_strdup("who sent it is not known");
	if (kills && kills->type != CT_NODE_NULL && !u64_of(host, "oom_kills"))
		return g_strdup_printf("who sent it is not known: the OOM killer killed no process "
		                       "of its memory cgroup %s while it ran",
		                       str_of(host, "cgroup") ? str_of(host, "cgroup") : "");
	return g_strdup("who sent it is not known: the OOM killer's count could not be read, so "
	                "whether it was host memory cannot be told (dmesg may say)");
}

/* The finding of a death no other finding tells, by its CAUSE. */
static void add_death(GArray *list, const struct ct_node *root, const struct ct_node *pe,
                      const char *cause)
{
	size_t criticals = 0;
	struct finding *f;
	const char *program = program_of(root, pe);

	for (guint i = 0; i < list->len; i++)
		criticals += g_array_index(list, struct finding, i).severity == SEV_CRITICAL;
	f = finding_add(list, SEV_CRITICAL, "process_death", pe);
	char end[64], size[32];

	f->verdict = cause;
	f->death = cause;
	/* an end of unknown cause follows what the trace saw go wrong, which may be why */
	f->leads = strcmp(cause, "unknown") != 0;
	f->order = f->leads ? 0 : INFINITY;
	f->source = g_strdup("process_end");
	end_words(pe, end, sizeof(end));
	if (!strcmp(cause, "host-oom")) {
		host_oom(f, root, pe);
	} else if (!strcmp(cause, "fault-signal")) {
		f->summary = g_strdup_printf("%s crashed: it %s, a fault of its own", program, end);
		f->advice = g_strdup(fault_advice(str_of(pe, "signal_name")));
	} else if (!strcmp(cause, "cuda-error")) {
		f->summary = g_strdup_printf(
		    "%s got %s from %s, a sticky CUDA error: no CUDA call can succeed after it; "
		    "then it %s",
		    program, str_of(pe, "cuda_error") ? str_of(pe, "cuda_error") : "an error",
		    str_of(pe, "cuda_error_api") ? str_of(pe, "cuda_error_api") : "a call", end);
		f->advice =
		    g_strdup("find the kernel at fault: run it with CUDA_LAUNCH_BLOCKING=1, "
		             "or under compute-sanitizer (memcheck)");
	} else if (!strcmp(cause, "gpu-oom")) {
		f->summary = g_strdup_printf(
		    "a GPU allocation of %s failed (%s), and %s did not survive it: it %s",
		    bytes_text(number_of(pe, "gpu_failed_bytes"), size, sizeof(size)),
		    str_of(pe, "gpu_verdict") ? verdict_words(str_of(pe, "gpu_verdict"))
		                              : "cause unknown",
		    program, end);
		f->advice = g_strdup(failure_advice(
		    str_of(pe, "gpu_verdict") ? str_of(pe, "gpu_verdict") : "unknown"));
	} else if (!strcmp(cause, "abort")) {
		f->summary = g_strdup_printf("%s aborted itself (SIGABRT): a failed assertion, an "
		                             "uncaught C++ exception or a library that gave up",
		                             program);
		f->explanation = g_strdup("the trace shows no CUDA error and no failed allocation "
		                          "before it");
		f->advice = g_strdup("its standard error says why, just before it ended; to see "
		                     "where, run it under gdb or allow a core dump (ulimit -c "
		                     "unlimited)");
	} else if (!strcmp(cause, "jupyter-interrupt")) {
		f->summary = g_strdup_printf("Jupyter: the kernel %s, as an interrupt sends it, "
		                             "and ended",
		                             end);
		f->explanation = g_strdup("a kernel that dies of an interrupt rather than raising "
		                          "KeyboardInterrupt was in native code that does not "
		                          "handle it");
		f->advice =
		    g_strdup("the cell it ran did not finish: restart the kernel and run it "
		             "again");
	} else if (!strcmp(cause, "jupyter-stop")) {
		f->summary = g_strdup_printf("Jupyter: the kernel %s from outside, as a restart or "
		                             "shutdown sends it",
		                             end);
		f->explanation = outside_explanation(pe);
		f->advice = g_strdup("if nobody restarted it, the Jupyter server's log says who "
		                     "did: a shutdown, or idle culling (cull_idle_timeout)");
	} else if (!strcmp(cause, "killed")) {
		f->summary = g_strdup_printf("%s %s from outside", program, end);
		f->explanation = outside_explanation(pe);
		f->advice = g_strdup("find the sender: a job scheduler's time or memory limit "
		                     "(Slurm, Kubernetes), a timeout, a person; the system log "
		                     "(journalctl) may say");
	} else {
		f->verdict = "unknown";
		f->summary = g_strdup_printf("%s %s; why is unknown", program, end);
		f->explanation = g_strdup_printf(
		    "the trace shows no sticky CUDA error and no failed allocation, and no signal "
		    "ended it%s",
		    criticals ? "; what went wrong before it, above, may be why" : "");
		f->advice = g_strdup("its own output (its standard error, its last lines) says why "
		                     "it gave up");
	}
}

/*
 * How the program ended, when it ended badly: the finding that tells what
 * killed it is marked so (a sticky error, a failed allocation), or one of
 * its own is added.
 */
static void find_death(GArray *list, const struct ct_node *root)
{
	const struct ct_node *pe = at(root, "process_end");
	const char *cause = str_of(pe, "cause");
	struct finding *f = NULL;

	if (!cause || !strcmp(cause, "none"))
		return;
	if (!strcmp(cause, "cuda-error"))
		f = told_by(list, "sticky_error", pe, is_fatal_sticky);
	else if (!strcmp(cause, "gpu-oom"))
		f = told_by(list, "allocation_failure", fatal_failure(at(root, "memory"), pe),
		            same_failure);
	if (f)
		mark_death(f, root, pe, cause);
	else
		add_death(list, root, pe, cause);
}

/* ----------------------------------------------------------------- writing */

static int by_rank(gconstpointer pa, gconstpointer pb)
{
	const struct finding *a = pa, *b = pb;

	if (a->severity != b->severity)
		return a->severity < b->severity ? -1 : 1;
	/* what ended the program comes before what it met on the way */
	if (a->leads != b->leads)
		return a->leads ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return 0;
}

/* A copy of the scalar NODE under KEY. */
static void copy_value(struct ct_doc *doc, const char *key, const struct ct_node *node)
{
	switch (node ? node->type : CT_NODE_NULL) {
	case CT_NODE_U64:
		ct_doc_u64(doc, key, node->value.u64, node->unit);
		break;
	case CT_NODE_I64:
		ct_doc_i64(doc, key, node->value.i64, node->unit);
		break;
	case CT_NODE_DOUBLE:
		ct_doc_double(doc, key, node->value.dbl, node->unit);
		break;
	case CT_NODE_STRING:
		ct_doc_string(doc, key, node->value.str);
		break;
	case CT_NODE_BOOL:
		ct_doc_bool(doc, key, node->value.boolean);
		break;
	default:
		ct_doc_null(doc, key);
		break;
	}
}

/* Where: what the finding's object knows of it, null for the rest. */
static void write_where(struct ct_doc *doc, const struct ct_node *where)
{
	static const char *const keys[] = { "pid",       "process", "device", "tid",
		                            "nvtx_path", "site",    "api",    "time_ns" };

	ct_doc_object(doc, "where", "Where");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct ct_node *n = at(where, keys[i]);

		if (!n && !strcmp(keys[i], "process"))
			n = at(where, "program");
		if (!n && !strcmp(keys[i], "nvtx_path"))
			n = at(where, "range");
		if (!n && !strcmp(keys[i], "time_ns"))
			n = at(where, "first_ns");
		copy_value(doc, keys[i], n);
	}
	ct_doc_end(doc);
}

static void write_finding(struct ct_doc *doc, const struct finding *f, size_t rank)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_u64(doc, "rank", rank, CT_UNIT_NONE);
	ct_doc_string(doc, "severity", severity_names[f->severity]);
	ct_doc_string(doc, "kind", f->kind);
	ct_doc_string(doc, "verdict", f->verdict);
	ct_doc_string(doc, "death", f->death);
	ct_doc_string(doc, "summary", f->summary);
	ct_doc_string(doc, "explanation", f->explanation);
	ct_doc_string(doc, "advice", f->advice);
	ct_doc_string(doc, "certainty", f->certainty);
	ct_doc_string(doc, "caveat", f->caveat);
	ct_doc_u64(doc, "count", f->count, CT_UNIT_NONE);
	write_where(doc, f->where);
	ct_doc_object(doc, "numbers", "Numbers");
	for (size_t i = 0; i < f->number_count; i++)
		copy_value(doc, f->numbers[i].key, f->numbers[i].node);
	ct_doc_end(doc);
	ct_doc_string(doc, "source", f->source);
	ct_doc_end(doc);
}

static void read_losses(const struct ct_node *root, struct losses *l)
{
	const struct ct_node *trace = at(root, "trace");

	l->discarded = u64_of(trace, "discarded_events") + u64_of(trace, "discarded_packets");
	l->dropped = u64_of(trace, "dropped_records");
	l->complete = !at(trace, "complete") || bool_of(trace, "complete");
}

void ct_findings_write(struct ct_doc *doc)
{
	const struct ct_node *root = ct_doc_root(doc);
	GArray *list;
	struct losses losses = { 0 };

	if (!root)
		return;
	list = g_array_new(FALSE, TRUE, sizeof(struct finding));
	g_array_set_clear_func(list, finding_clear);
	read_losses(root, &losses);
	if (at(root, "memory")) {
		find_failures(list, at(root, "memory"), &losses);
		find_growth(list, at(root, "memory"), &losses);
	}
	if (at(root, "transfers"))
		find_copies(list, at(root, "transfers"), &losses);
	if (at(root, "environment"))
		find_compatibility(list, at(root, "environment"));
	find_sticky(list, at(root, "sticky_errors"), &losses);
	find_death(list, root);
	/* stable: equal findings keep the order their section gave them */
	g_array_sort(list, by_rank);
	ct_doc_array(doc, "findings", "Findings, most severe first");
	for (guint i = 0; i < list->len; i++)
		write_finding(doc, &g_array_index(list, struct finding, i), i + 1);
	ct_doc_end(doc);
	g_array_unref(list);
}
