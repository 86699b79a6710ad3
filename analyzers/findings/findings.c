/* SPDX-License-Identifier: MIT */
/*
 * findings.c - the diagnosis (see findings.h): how the program ended,
 * sticky CUDA errors, failed allocations and their verdict, NVTX ranges
 * and call sites whose memory grows step after step, the costliest
 * transfer hotspot and its fix, ranked by severity, the death first, then
 * by what they weigh (time order for failures and errors, bytes held at
 * the end for growth, time for copies).
 *
 * Nothing is recomputed: a finding quotes the figures of its analysis's
 * typed result as that analysis's section writes them (units included)
 * and refers to them by path ("source"), so that the first page and the
 * tables below it can never disagree. What no analysis computes is read
 * from the document: the trace's losses (its "trace" section), and what
 * the recorder kept beside the trace (how the program ended,
 * "process_end"; its last words, "last_words").
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "analyses/api.h"
#include "analyses/cells.h"
#include "analyses/cuda-errors.h"
#include "analyses/environment.h"
#include "analyses/fragmentation.h"
#include "analyses/framework.h"
#include "analyses/memory.h"
#include "analyses/transfers.h"
#include "common/caveat.h"
#include "common/format.h"
#include "death.h"
#include "findings.h"

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

/*
 * A scalar a finding writes, as its section or its analysis's result
 * holds it: type CT_NODE_NULL for none. Strings are borrowed from the
 * document or the result, which outlive the list.
 */
struct value {
	enum ct_node_type type;
	enum ct_unit unit;
	union {
		uint64_t u64;
		int64_t i64;
		double dbl;
		const char *str;
		bool boolean;
	} v;
};

struct number {
	const char *key; /* static */
	struct value value;
};

/* What a finding's "where" says, in this order (doc/report-schema.md). */
enum where_key {
	WHERE_PID,
	WHERE_PROCESS,
	WHERE_DEVICE,
	WHERE_TID,
	WHERE_NVTX_PATH,
	WHERE_SITE,
	WHERE_API,
	WHERE_TIME,
	WHERE_KEYS,
};

static const char *const where_names[WHERE_KEYS] = {
	"pid", "process", "device", "tid", "nvtx_path", "site", "api", "time_ns",
};

/* A finding before it is written. Nodes are the document's, borrowed. */
struct finding {
	enum severity severity;
	const char *kind;      /* static */
	const char *verdict;   /* borrowed, NULL if none */
	char *summary;         /* owned */
	char *explanation;     /* owned, NULL if none */
	char *advice;          /* owned */
	const char *certainty; /* "exact", "lower_bound", "uncertain"; static */
	char *caveat;          /* owned, NULL when exact */
	/* the section's object it tells about (matched by the death's), NULL from a result */
	const struct ct_node *object;
	/* the failed allocation it tells about (its own, or one that was part of it), or NULL */
	const struct ct_frag_failure *failure;
	struct value where[WHERE_KEYS];
	const char *death; /* the process_end cause it explains, NULL if none */
	bool leads;        /* it tells what ended the program: first of its severity */
	uint64_t count;    /* occurrences it stands for */
	struct number numbers[MAX_NUMBERS];
	size_t number_count;
	char *source;  /* owned: the path of what it quotes, "memory.failures[0]" */
	char *site;    /* owned: its where's site, when made for it; else NULL */
	double weight; /* within a severity: heavier first */
	double order;  /* then: smaller first */
};

/* What the trace lost or missed, which every finding must take into account. */
struct losses {
	uint64_t discarded; /* events LTTng discarded (and packets) */
	uint64_t dropped;   /* activity records CUPTI dropped */
	bool complete;      /* the trace was read to the program's end */
};

/* ---------------------------------------------------------------- reading */

static const struct ct_node *at(const struct ct_node *object, const char *key)
{
	return ct_node_get(object, key);
}

/* KEY's number, 0 when absent or not a number. */
static double number_of(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = at(object, key);
	double value = n ? ct_node_number(n) : NAN;

	return isnan(value) ? 0 : value;
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

/* Where an allocation was asked for: "on device 0", or "with no current
 * context" (the tracer's CT_DEVICE_NONE: no device applies). */
static const char *on_device(unsigned device, char *buf, size_t len)
{
	if (device == CT_DEVICE_NONE)
		return "with no current context";
	snprintf(buf, len, "on device %u", device);
	return buf;
}

/* ----------------------------------------------------------------- the list */

/* The scalar NODE as a value; none for NULL, an object or an array. */
static struct value value_of(const struct ct_node *node)
{
	struct value value = { .type = node ? node->type : CT_NODE_NULL };

	switch (value.type) {
	case CT_NODE_U64:
		value.v.u64 = node->value.u64;
		break;
	case CT_NODE_I64:
		value.v.i64 = node->value.i64;
		break;
	case CT_NODE_DOUBLE:
		value.v.dbl = node->value.dbl;
		break;
	case CT_NODE_STRING:
		value.v.str = node->value.str;
		break;
	case CT_NODE_BOOL:
		value.v.boolean = node->value.boolean;
		break;
	default:
		value.type = CT_NODE_NULL;
		return value;
	}
	value.unit = node->unit;
	return value;
}

static struct value value_none(void)
{
	return (struct value){ .type = CT_NODE_NULL };
}

static struct value value_u64(uint64_t u64, enum ct_unit unit)
{
	return (struct value){ .type = CT_NODE_U64, .unit = unit, .v.u64 = u64 };
}

static struct value value_i64(int64_t i64, enum ct_unit unit)
{
	return (struct value){ .type = CT_NODE_I64, .unit = unit, .v.i64 = i64 };
}

static struct value value_double(double dbl, enum ct_unit unit)
{
	return (struct value){ .type = CT_NODE_DOUBLE, .unit = unit, .v.dbl = dbl };
}

/* A double of a result, none when it is NAN (unknown), as its section writes it. */
static struct value value_known(double dbl, enum ct_unit unit)
{
	return isnan(dbl) ? value_none() : value_double(dbl, unit);
}

static struct value value_str(const char *str)
{
	if (!str)
		return value_none();
	return (struct value){ .type = CT_NODE_STRING, .v.str = str };
}

/*
 * F tells about OBJECT, a section written beside the trace (process_end,
 * last_words; NULL for a finding drawn from a result): where it is, as
 * OBJECT says (a process_end of an older record names the command, its
 * "program", only).
 */
static void finding_at(struct finding *f, const struct ct_node *object)
{
	f->object = object;
	for (size_t i = 0; i < WHERE_KEYS; i++) {
		const struct ct_node *n = at(object, where_names[i]);

		if (!n && i == WHERE_PROCESS)
			n = at(object, "program");
		f->where[i] = value_of(n);
	}
}

static struct finding *finding_add(GArray *list, enum severity severity, const char *kind,
                                   const struct ct_node *object)
{
	struct finding f = { .severity = severity, .kind = kind, .certainty = "exact", .count = 1 };

	finding_at(&f, object);
	g_array_append_val(list, f);
	return &g_array_index(list, struct finding, list->len - 1);
}

static void number_value(struct finding *f, const char *key, struct value value)
{
	if (f->number_count < MAX_NUMBERS)
		f->numbers[f->number_count++] = (struct number){ key, value };
}

/* KEY's figure NODE, a scalar of the document: none when NODE is NULL. */
static void number_add(struct finding *f, const char *key, const struct ct_node *node)
{
	if (node)
		number_value(f, key, value_of(node));
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
	g_free(f->site);
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

/*
 * A string of a result as the document reads it back (ct_node_str): NULL
 * for an empty one, as the rules below were written for.
 */
static const char *text_of(const char *str)
{
	return str && *str ? str : NULL;
}

/* Whether two failures are the same problem: process, device, site and verdict. */
static bool same_failure(const struct ct_frag_failure *a, const struct ct_frag_failure *b)
{
	return a->pid == b->pid && a->device == b->device &&
	       !g_strcmp0(text_of(a->site), text_of(b->site)) &&
	       !g_strcmp0(text_of(a->verdict), text_of(b->verdict));
}

/* Whether FAILURE asked more than its whole device has. */
static bool larger_than_device(const struct ct_frag_failure *failure)
{
	return failure->total_known && failure->total_bytes &&
	       failure->requested_bytes > failure->total_bytes;
}

/* The figures a failure's finding quotes (doc/report-schema.md, allocation_failure). */
static const char *const failure_numbers[] = {
	"requested_bytes",      "free_bytes", "largest_free_bytes", "total_bytes", "live_bytes",
	"held_elsewhere_bytes", NULL,
};

/* Whether KEY is among the figures a failure's finding quotes. */
static bool quoted(const char *key)
{
	for (size_t i = 0; key && failure_numbers[i]; i++)
		if (!strcmp(key, failure_numbers[i]))
			return true;
	return false;
}

/* VALUE in bytes, none when it is not KNOWN: as the memory section writes it. */
static struct value value_known_bytes(bool known, uint64_t value)
{
	return known ? value_u64(value, CT_UNIT_BYTES) : value_none();
}

/* F is about process PID (PROCESS, its name) on DEVICE, as the sections write them. */
static void where_device(struct finding *f, int64_t pid, const char *process, uint32_t device)
{
	f->where[WHERE_PID] = value_i64(pid, CT_UNIT_ID);
	f->where[WHERE_PROCESS] = value_str(process);
	f->where[WHERE_DEVICE] = value_u64(device, CT_UNIT_ID);
}

/* Where FAILURE happened and the figures its finding quotes, as memory.failures[] says. */
static void failure_figures(struct finding *f, const struct ct_frag_failure *failure)
{
	f->failure = failure;
	where_device(f, failure->pid, failure->process, failure->device);
	f->where[WHERE_NVTX_PATH] = value_str(failure->nvtx_path);
	f->where[WHERE_SITE] = value_str(failure->site);
	f->where[WHERE_API] = value_str(failure->api);
	f->where[WHERE_TIME] = value_i64(failure->time_ns, CT_UNIT_TIME);
}

static void failure_numbers_of(struct finding *f, const struct ct_frag_failure *failure)
{
	number_value(f, "requested_bytes", value_u64(failure->requested_bytes, CT_UNIT_BYTES));
	number_value(f, "free_bytes", value_known_bytes(failure->free_known, failure->free_bytes));
	number_value(f, "largest_free_bytes",
	             value_u64(failure->largest_free_bytes, CT_UNIT_BYTES));
	number_value(f, "total_bytes",
	             value_known_bytes(failure->total_known, failure->total_bytes));
	number_value(f, "live_bytes", value_u64(failure->live_bytes, CT_UNIT_BYTES));
	number_value(f, "held_elsewhere_bytes",
	             value_known_bytes(failure->free_known, failure->held_elsewhere_bytes));
}

/*
 * The failure's own caveats, one reason per cause: lower bounds alone
 * leave its figures lower bounds, anything else (an upper bound, an
 * uncertain figure, a verdict withheld) makes them uncertain.
 */
static void failure_caveats(struct finding *f, const struct ct_frag_failure *failure,
                            const struct losses *l)
{
	const char *withheld = text_of(failure->withheld_verdict);
	/* a request larger than the device is too large whatever the pools
	 * held: a figure the finding does not quote cannot change it */
	bool quoted_only = larger_than_device(failure);

	for (guint i = 0; failure->caveats && i < failure->caveats->len; i++) {
		const struct ct_caveat *c = &g_array_index(failure->caveats, struct ct_caveat, i);
		const char *what = text_of(c->caveat);
		const char *why = cause_words(text_of(c->cause));

		if (quoted_only && !quoted(text_of(c->figure)))
			continue;
		if (what)
			finding_caveat(
			    f, !strcmp(what, "lower_bound") ? "lower_bound" : "uncertain", why);
	}
	if (withheld) {
		char why[200];

		snprintf(why, sizeof(why),
		         "so the verdict is withheld: the figures alone would say %s, but they "
		         "cannot be trusted for it",
		         ct_verdict_words(withheld));
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

/* The other processes NVML listed on a device (HOLDERS, struct
 * ct_frag_holder; NULL: none): who to ask. NULL when none. */
#define HOLDERS_TOLD 3

static char *holders_text(const GArray *holders)
{
	GString *text = g_string_new(NULL);
	size_t told = 0, others = 0;

	for (guint i = 0; holders && i < holders->len; i++) {
		const struct ct_frag_holder *h = &g_array_index(holders, struct ct_frag_holder, i);
		const char *process = text_of(h->process);
		char bytes[32];

		if (h->self || others++ >= HOLDERS_TOLD)
			continue;
		g_string_append_printf(text, "%s pid %" PRId64 "%s%s%s", told++ ? "," : "", h->pid,
		                       process ? " (" : "", process ? process : "",
		                       process ? ")" : "");
		if (h->bytes_known)
			g_string_append_printf(text, " with %s",
			                       bytes_text((double)h->bytes, bytes, sizeof(bytes)));
	}
	if (!told) {
		g_string_free(text, TRUE);
		return NULL;
	}
	if (others > told)
		g_string_append_printf(text, " and %zu more", others - told);
	g_string_prepend(text, "NVML listed on the device");
	return g_string_free(text, FALSE);
}

static void add_failure(GArray *list, const struct ct_frag_failure *failure, guint index,
                        const struct failure_group *g, const struct losses *l)
{
	const char *verdict = text_of(failure->verdict);
	const char *api = text_of(failure->api);
	char *holders = holders_text(failure->holders);
	char req[72], times[40] = "", on[32];
	uint64_t count = g->count;
	struct finding *f;

	if (!verdict)
		verdict = "unknown";
	f = finding_add(list, SEV_CRITICAL, "allocation_failure", NULL);
	failure_figures(f, failure);
	f->verdict = verdict;
	f->count = count;
	if (count > 1)
		snprintf(times, sizeof(times), " (%" PRIu64 " times)", count);
	f->summary = g_strdup_printf("%s of %s failed %s: %s%s", api ? api : "an allocation",
	                             group_sizes(g, req, sizeof(req)),
	                             on_device(failure->device, on, sizeof(on)),
	                             ct_verdict_words(verdict), times);
	if (text_of(failure->explanation) && holders)
		f->explanation = g_strdup_printf("%s; %s", failure->explanation, holders);
	else if (text_of(failure->explanation))
		f->explanation = g_strdup(failure->explanation);
	else
		f->explanation = g_strdup(holders);
	if (failure->device == CT_DEVICE_NONE)
		/* CUDA_ERROR_INVALID_CONTEXT's meaning (CUDA Driver API, "Error Handling") */
		f->advice =
		    g_strdup("make a context current on the thread before it allocates: "
		             "cudaSetDevice with the runtime, cuCtxSetCurrent or "
		             "cuCtxPushCurrent with the driver API (a context made current on "
		             "another thread, or popped or destroyed since, is not)");
	else
		f->advice = g_strdup(ct_failure_advice(
		    verdict, failure->requested_bytes,
		    failure->total_known ? failure->total_bytes : 0, holders != NULL));
	g_free(holders);
	failure_numbers_of(f, failure);
	f->source = g_strdup_printf("memory.failures[%u]", index);
	f->order = (double)failure->time_ns;
	failure_caveats(f, failure, l);
}

/*
 * How far apart the events of one framework out-of-memory error may lie.
 * Its allocator may have asked the driver in vain this long before it:
 * PyTorch's cudaMalloc fails, it frees its cache and asks again, then tells
 * its observers and raises, within the same call. NVML's list of the
 * device's processes, taken for the error, comes within it too.
 */
#define FRAMEWORK_OOM_WINDOW_NS 1000000000LL

/*
 * Whether the driver's FAILURE may have been part of an out-of-memory
 * error of process PID on DEVICE (-1: any) at TIME_NS: the allocator asked
 * the driver in vain at most FRAMEWORK_OOM_WINDOW_NS before it.
 */
static bool refused_for(const struct ct_frag_failure *failure, int64_t pid, int64_t device,
                        int64_t time_ns)
{
	return failure->pid == pid && (device < 0 || failure->device == device) &&
	       failure->time_ns <= time_ns && failure->time_ns >= time_ns - FRAMEWORK_OOM_WINDOW_NS;
}

/*
 * The out-of-memory error of FRAMEWORK (a device's ooms; NULL: the
 * analysis did not run) that FAILURE was part of: same process and
 * device, at most FRAMEWORK_OOM_WINDOW_NS before it and after the error
 * before it; NULL if none.
 */
static const struct ct_framework_oom *framework_oom_of(const struct ct_framework_result *framework,
                                                       const struct ct_frag_failure *failure)
{
	for (guint i = 0; framework && i < framework->devices->len; i++) {
		const struct ct_framework_device *d =
		    &g_array_index(framework->devices, struct ct_framework_device, i);
		int64_t previous = INT64_MIN;

		if (d->pid != failure->pid || d->device != failure->device)
			continue;
		for (guint j = 0; j < d->ooms->len; j++) {
			const struct ct_framework_oom *oom =
			    &g_array_index(d->ooms, struct ct_framework_oom, j);

			if (refused_for(failure, d->pid, d->device, oom->time_ns) &&
			    failure->time_ns > previous)
				return oom;
			previous = oom->time_ns;
		}
	}
	return NULL;
}

/* Whether the allocator made up for FAILURE at once (memory.failures[].recovered_bytes). */
static bool recovered(const struct ct_frag_failure *failure)
{
	return failure->recovered_bytes > 0;
}

/*
 * Refusals the allocator made up for at once (an allocator that frees its
 * cache and asks again, or asks for less): no failure of the program, but
 * a sign it runs at the edge of the device. One finding for the first,
 * counting the others.
 */
static void add_retries(GArray *list, const struct ct_fragmentation_result *r)
{
	const struct ct_frag_failure *first = NULL;
	guint index = 0;
	uint64_t count = 0;
	char req[32], got[32], more[48] = "", on[32];
	struct finding *f;

	for (guint i = 0; i < r->failures->len; i++) {
		const struct ct_frag_failure *failure =
		    &g_array_index(r->failures, struct ct_frag_failure, i);

		if (recovered(failure) && !count++) {
			first = failure;
			index = i;
		}
	}
	if (!first)
		return;
	f = finding_add(list, SEV_ADVICE, "allocation_retry", NULL);
	failure_figures(f, first);
	f->count = count;
	if (count > 1)
		snprintf(more, sizeof(more), " (%" PRIu64 " such refusals)", count);
	f->summary =
	    g_strdup_printf("%s of %s was refused %s, and the allocator got %s right after%s",
	                    text_of(first->api) ? first->api : "an allocation",
	                    bytes_text((double)first->requested_bytes, req, sizeof(req)),
	                    on_device(first->device, on, sizeof(on)),
	                    bytes_text((double)first->recovered_bytes, got, sizeof(got)), more);
	f->explanation = g_strdup("the same thread asked again within a second for at least half "
	                          "as much and went on (a caching allocator frees its cache and "
	                          "retries; XLA's asks for less): no failure of the program, but "
	                          "its memory runs at the edge of the device");
	f->advice = g_strdup("if it slows the program (each refusal empties the cache), hold "
	                     "less at the peak, or leave the device to this process alone");
	number_value(f, "requested_bytes", value_u64(first->requested_bytes, CT_UNIT_BYTES));
	number_value(f, "recovered_bytes", value_u64(first->recovered_bytes, CT_UNIT_BYTES));
	f->source = g_strdup_printf("memory.failures[%u]", index);
	f->order = (double)first->time_ns;
}

/*
 * Whether FAILURE, a CUDA error other than out of memory, came after its
 * process's sticky error (ERRORS; NULL: the analysis did not run): that
 * error's finding tells it, among the calls that failed after it.
 */
static bool after_sticky(const struct ct_cuda_errors_result *errors,
                         const struct ct_frag_failure *failure)
{
	if (!errors || !ct_frag_failure_not_memory(failure))
		return false;
	for (guint i = 0; i < errors->sticky->len; i++) {
		const struct ct_cuda_sticky *e =
		    &g_array_index(errors->sticky, struct ct_cuda_sticky, i);

		if (e->pid == failure->pid && e->time_ns <= failure->time_ns)
			return true;
	}
	return false;
}

/* Whether FAILURE is one the findings tell as a failure of its own. */
static bool told_as_failure(const struct ct_framework_result *framework,
                            const struct ct_cuda_errors_result *errors,
                            const struct ct_frag_failure *failure)
{
	/* The framework's finding tells it, with the framework's figures;
	 * one the allocator made up for is no failure. */
	return !framework_oom_of(framework, failure) && !recovered(failure) &&
	       !after_sticky(errors, failure);
}

/* One finding per kind of failure (process, device, site, verdict), in time order. */
static void find_failures(GArray *list, const struct ct_fragmentation_result *r,
                          const struct ct_framework_result *framework,
                          const struct ct_cuda_errors_result *errors, const struct losses *l)
{
	size_t added = 0;

	add_retries(list, r);
	for (guint i = 0; i < r->failures->len && added < MAX_PER_KIND; i++) {
		const struct ct_frag_failure *failure =
		    &g_array_index(r->failures, struct ct_frag_failure, i);
		double requested = (double)failure->requested_bytes;
		struct failure_group g = { 1, requested, requested };
		bool seen = false;

		if (!told_as_failure(framework, errors, failure))
			continue;
		for (guint j = 0; j < i && !seen; j++)
			seen = same_failure(&g_array_index(r->failures, struct ct_frag_failure, j),
			                    failure);
		if (seen)
			continue;
		for (guint j = i + 1; j < r->failures->len; j++) {
			const struct ct_frag_failure *other =
			    &g_array_index(r->failures, struct ct_frag_failure, j);

			if (!same_failure(other, failure) ||
			    !told_as_failure(framework, errors, other))
				continue;
			g.count++;
			requested = (double)other->requested_bytes;
			g.smallest = MIN(g.smallest, requested);
			g.largest = MAX(g.largest, requested);
		}
		add_failure(list, failure, i, &g, l);
		added++;
	}
}

/* ---------------------------------------------------------- growing ranges */

/* Whether NVTX path PATH is RANGE or a range inside it. */
static bool in_range(const char *path, const char *range)
{
	size_t len = range ? strlen(range) : 0;

	return path && range && !strncmp(path, range, len) && (!path[len] || path[len] == '/');
}

/*
 * The site inside RANGE (of process PID) whose memory grows and holds the
 * most at the end (memory.growing_sites[]); without one, the site of the
 * largest allocation live at the end, from the leaks of M's devices; NULL
 * if none. A growing site first: a range's largest block may be one that
 * a framework's cache holds from its first run on, not what grows.
 */
static const char *growing_site(const struct ct_memory_result *m, int64_t pid, const char *range)
{
	const char *best = NULL;
	uint64_t best_bytes = 0;
	int64_t best_held = 0;

	for (guint i = 0; i < m->growing_sites->len; i++) {
		const struct ct_memory_growing_site *s =
		    &g_array_index(m->growing_sites, struct ct_memory_growing_site, i);

		if (s->pid == pid && in_range(text_of(s->nvtx_path), range) && text_of(s->site) &&
		    s->held_at_end_bytes > best_held) {
			best = s->site;
			best_held = s->held_at_end_bytes;
		}
	}
	if (best)
		return best;
	for (guint i = 0; i < m->devices->len; i++) {
		const struct ct_memory_device *d =
		    &g_array_index(m->devices, struct ct_memory_device, i);

		if (d->pid != pid)
			continue;
		for (guint j = 0; j < d->leaks->len; j++) {
			const struct ct_memory_alloc *a =
			    &g_array_index(d->leaks, struct ct_memory_alloc, j);

			if (!g_strcmp0(text_of(a->nvtx_path), range) && text_of(a->site) &&
			    a->size > best_bytes) {
				best = a->site;
				best_bytes = a->size;
			}
		}
	}
	return best;
}

/* Whether M's devices of PID say the trace began after the program allocated. */
static bool before_window(const struct ct_memory_result *m, int64_t pid)
{
	for (guint i = 0; i < m->devices->len; i++) {
		const struct ct_memory_device *d =
		    &g_array_index(m->devices, struct ct_memory_device, i);

		if (d->pid == pid && d->before_window_allocations)
			return true;
	}
	return false;
}

/*
 * What growth finding F of process PID quotes: its source, element INDEX
 * of memory's LIST, its weight (HELD, what is held at the end) and how
 * sure its figures are.
 */
static void growth_figures(struct finding *f, const struct ct_memory_result *m, int64_t pid,
                           int64_t held, const char *list, guint index, const struct losses *l)
{
	f->source = g_strdup_printf("memory.%s[%u]", list, index);
	f->weight = (double)held;
	if (before_window(m, pid))
		finding_caveat(f, "lower_bound",
		               "the trace began after the program had allocated: what it "
		               "held before is not counted");
	memory_losses(f, l);
}

/* Where growing range R is and the figures its finding quotes, as memory.growing_ranges[] says. */
static void range_figures(struct finding *f, const struct ct_memory_growing_range *r)
{
	f->where[WHERE_PID] = value_i64(r->pid, CT_UNIT_ID);
	f->where[WHERE_PROCESS] = value_str(r->process);
	f->where[WHERE_NVTX_PATH] = value_str(r->range);
	number_value(f, "growth_per_repetition_bytes",
	             value_i64(r->growth_per_repetition_bytes, CT_UNIT_BYTES));
	number_value(f, "repetitions", value_u64(r->repetitions, CT_UNIT_NONE));
	number_value(f, "growing_repetitions", value_u64(r->growing_repetitions, CT_UNIT_NONE));
	number_value(f, "held_at_end_bytes", value_i64(r->held_at_end_bytes, CT_UNIT_BYTES));
}

static void find_growth(GArray *list, const struct ct_memory_result *m, const struct losses *l)
{
	for (guint i = 0; i < m->growing_ranges->len && i < MAX_PER_KIND; i++) {
		const struct ct_memory_growing_range *r =
		    &g_array_index(m->growing_ranges, struct ct_memory_growing_range, i);
		const char *range = text_of(r->range);
		const char *site;
		char step[32], end[32];
		struct finding *f;

		if (!range)
			continue;
		site = growing_site(m, r->pid, range);
		f = finding_add(list, SEV_WARNING, "memory_growth", NULL);
		range_figures(f, r);
		f->count = r->growing_repetitions;
		f->summary = g_strdup_printf(
		    "NVTX range %s keeps %s more device memory each time it runs "
		    "(grew in %" PRIu64 " of %" PRIu64 " runs); %s held at the end",
		    range, bytes_text((double)r->growth_per_repetition_bytes, step, sizeof(step)),
		    r->growing_repetitions, r->repetitions,
		    bytes_text((double)r->held_at_end_bytes, end, sizeof(end)));
		if (site)
			f->explanation = g_strdup_printf("what it keeps was allocated at %s and "
			                                 "never freed",
			                                 site);
		f->advice = g_strdup_printf(
		    "free in %s what it allocates (%s), or stop keeping references to it from one "
		    "run to the next (a list of tensors that grows, a cache without a bound)",
		    range, site ? site : "see the leaks by site below");
		growth_figures(f, m, r->pid, r->held_at_end_bytes, "growing_ranges", i, l);
	}
}

/* ----------------------------------------------------------- growing sites */

/*
 * Whether a growing range of site S's process holds what S allocates: S
 * allocated in it or in a range inside it. The range's finding names the
 * site: the memory is told once.
 */
static bool range_tells(const struct ct_memory_result *m, const struct ct_memory_growing_site *s)
{
	for (guint i = 0; i < m->growing_ranges->len; i++) {
		const struct ct_memory_growing_range *r =
		    &g_array_index(m->growing_ranges, struct ct_memory_growing_range, i);

		if (r->pid == s->pid && in_range(text_of(s->nvtx_path), text_of(r->range)))
			return true;
	}
	return false;
}

static char *site_growth_summary(const struct ct_memory_growing_site *s)
{
	struct failure_group g = { 0, (double)s->smallest_bytes, (double)s->largest_bytes };
	char sizes[72], freed[40] = "none", held[32], step[32];

	if (s->freed)
		snprintf(freed, sizeof(freed), "only %" PRIu64, s->freed);
	return g_strdup_printf("%s allocated %" PRIu64
	                       " times %s and freed %s: %s held at the end, growing %s "
	                       "each time",
	                       text_of(s->site) ? s->site : "a call site", s->allocations,
	                       group_sizes(&g, sizes, sizeof(sizes)), freed,
	                       bytes_text((double)s->held_at_end_bytes, held, sizeof(held)),
	                       bytes_text((double)s->growth_per_rise_bytes, step, sizeof(step)));
}

static char *site_growth_explanation(const struct ct_memory_growing_site *s)
{
	char reclaimed[160] = "";

	if (s->reclaimed)
		snprintf(reclaimed, sizeof(reclaimed),
		         "; CUDA reclaimed %" PRIu64 " of them with the context, after the "
		         "program's last use: it never freed them",
		         s->reclaimed);
	return g_strdup_printf(
	    "what it holds reached a new high %" PRIu64 " times, in %" PRIu64
	    " steps with memory freed in between, until late in the run: memory that grows "
	    "step after step, not a buffer allocated once; at the end it was %.0f %% of the "
	    "device's peak%s",
	    s->rises, s->steps, s->peak_share * 100.0, reclaimed);
}

/* Where growing site S is and the figures its finding quotes, as memory.growing_sites[] says. */
static void site_figures(struct finding *f, const struct ct_memory_growing_site *s)
{
	where_device(f, s->pid, s->process, s->device);
	f->where[WHERE_NVTX_PATH] = value_str(s->nvtx_path);
	f->where[WHERE_SITE] = value_str(s->site);
	f->where[WHERE_API] = value_str(s->api);
	f->where[WHERE_TIME] = value_i64(s->first_ns, CT_UNIT_TIME);
	number_value(f, "allocations", value_u64(s->allocations, CT_UNIT_NONE));
	number_value(f, "freed", value_u64(s->freed, CT_UNIT_NONE));
	number_value(f, "largest_bytes", value_u64(s->largest_bytes, CT_UNIT_BYTES));
	number_value(f, "growth_per_rise_bytes",
	             value_i64(s->growth_per_rise_bytes, CT_UNIT_BYTES));
	number_value(f, "held_at_end_bytes", value_i64(s->held_at_end_bytes, CT_UNIT_BYTES));
	number_value(f, "steps", value_u64(s->steps, CT_UNIT_NONE));
	number_value(f, "peak_share", value_double(s->peak_share, CT_UNIT_RATIO));
}

/*
 * Each call site whose memory grows over the run (memory.growing_sites[],
 * at most MAX_PER_KIND): the growth an NVTX range does not show, or that
 * runs in no range at all.
 */
static void find_site_growth(GArray *list, const struct ct_memory_result *m, const struct losses *l)
{
	size_t added = 0;

	for (guint i = 0; i < m->growing_sites->len && added < MAX_PER_KIND; i++) {
		const struct ct_memory_growing_site *s =
		    &g_array_index(m->growing_sites, struct ct_memory_growing_site, i);
		struct finding *f;

		if (range_tells(m, s))
			continue;
		f = finding_add(list, SEV_WARNING, "site_growth", NULL);
		site_figures(f, s);
		f->count = s->allocations - MIN(s->freed, s->allocations);
		f->summary = site_growth_summary(s);
		f->explanation = site_growth_explanation(s);
		f->advice = g_strdup_printf(
		    "find what keeps the memory allocated at %s from one step to the next and "
		    "release it when it is no longer needed (a list of tensors that grows, a loss "
		    "kept with its graph, a cache without a bound): left so, a longer run ends in "
		    "out of memory",
		    text_of(s->site) ? s->site : "this site");
		growth_figures(f, m, s->pid, s->held_at_end_bytes, "growing_sites", i, l);
		added++;
	}
}

/* ------------------------------------------------------------------ leaks */

/* Whether the growth findings tell leak site SITE of PID: it is a growing site. */
static bool growth_tells(const struct ct_memory_result *m, int64_t pid,
                         const struct ct_memory_leak_site *site)
{
	for (guint i = 0; i < m->growing_sites->len; i++) {
		const struct ct_memory_growing_site *g =
		    &g_array_index(m->growing_sites, struct ct_memory_growing_site, i);

		if (g->pid == pid && !g_strcmp0(text_of(g->site), text_of(site->site)))
			return true;
	}
	return false;
}

/* Whether process PID ended otherwise than by exiting with 0: its death is the finding. */
static bool ended_badly(const struct ct_node *root, int64_t pid)
{
	const struct ct_node *pe = at(root, "process_end");

	return pe && ct_node_i64(pe, "pid") == pid && g_strcmp0(ct_node_str(pe, "cause"), "none");
}

/* Where device D's leak is and the figures its finding quotes, as memory.devices[] says. */
static void leak_figures(struct finding *f, const struct ct_memory_device *d)
{
	where_device(f, d->pid, d->process, d->device);
	number_value(f, "leak_count", value_u64(d->leak_count, CT_UNIT_NONE));
	number_value(f, "leaked_bytes", value_u64(d->leaked_bytes, CT_UNIT_BYTES));
}

/*
 * Memory a process never freed (memory.devices[]'s leak sites), once it
 * ended well: CUDA frees it with the context at exit, but a notebook kernel
 * or a server that runs on keeps it. The sites the growth findings tell
 * are left to them.
 */
static void add_leak(GArray *list, const struct ct_memory_result *m,
                     const struct ct_memory_device *d, guint index, const struct losses *l)
{
	const struct ct_memory_leak_site *first = NULL;
	uint64_t bytes = 0, count = 0, site_count = 0;
	const char *site;
	char held[32], one[32];
	struct finding *f;

	for (guint i = 0; i < d->leak_sites->len; i++) {
		const struct ct_memory_leak_site *s =
		    &g_array_index(d->leak_sites, struct ct_memory_leak_site, i);

		if (growth_tells(m, d->pid, s))
			continue;
		first = first ? first : s;
		bytes += s->bytes;
		count += s->count;
		site_count++;
	}
	if (!first || !bytes)
		return;
	site = text_of(first->site);
	f = finding_add(list, SEV_WARNING, "leak", NULL);
	leak_figures(f, d);
	f->count = count;
	f->summary = g_strdup_printf(
	    "%s (pid %" PRId64 ") ended with %s on device %u it never freed: %" PRIu64
	    " allocation%s at %s, %s%s",
	    text_of(d->process) ? d->process : "a process", d->pid,
	    bytes_text((double)bytes, held, sizeof(held)), d->device, first->count,
	    first->count == 1 ? "" : "s", site ? site : "an unknown site",
	    bytes_text((double)first->bytes, one, sizeof(one)),
	    site_count > 1 ? " and more at other sites (the report's leak list)" : "");
	if (d->exit_freed_count)
		f->explanation = g_strdup_printf(
		    "%" PRIu64
		    " allocation%s still held when the program's code ended, never freed "
		    "by the program: Python freed %" PRIu64
		    " of them only as the interpreter exited, "
		    "tearing down the objects that still held them",
		    count, count == 1 ? " was" : "s were", d->exit_freed_count);
	else
		f->explanation = g_strdup_printf(
		    "%" PRIu64
		    " allocation%s still allocated when the process ended, never freed by "
		    "the program; CUDA gives the memory back only when the context goes, at exit",
		    count, count == 1 ? " was" : "s were");
	f->advice = g_strdup_printf(
	    "free it at %s once it is no longer needed, unless it is meant to live as long as the "
	    "process (model weights, a pool): a notebook kernel or a server that runs on holds it "
	    "until it exits",
	    site ? site : "its site");
	f->source = g_strdup_printf("memory.devices[%u]", index);
	f->weight = (double)bytes;
	if (before_window(m, d->pid))
		finding_caveat(f, "lower_bound",
		               "the trace began after the program had allocated: what it "
		               "held before is not counted");
	memory_losses(f, l);
}

/*
 * Whether PID imported a framework (FRAMEWORK's loads; NULL: the analysis
 * did not run): its allocator keeps the segments it reserved from the
 * driver until the process ends (PyTorch's caching allocator, JAX's and
 * TensorFlow's pools), by design, after the program freed every tensor;
 * the framework's own figures say what its tensors held.
 */
static bool framework_loaded(const struct ct_framework_result *framework, int64_t pid)
{
	for (guint i = 0; framework && i < framework->loads->len; i++)
		if (g_array_index(framework->loads, struct ct_framework_load, i).pid == pid)
			return true;
	return false;
}

static void find_leaks(GArray *list, const struct ct_node *root, const struct ct_memory_result *m,
                       const struct ct_framework_result *framework, const struct losses *l)
{
	/* a trace cut short does not show how the program ended */
	if (!l->complete)
		return;
	for (guint i = 0; i < m->devices->len; i++) {
		const struct ct_memory_device *d =
		    &g_array_index(m->devices, struct ct_memory_device, i);

		if (!d->leak_count || d->failures || ended_badly(root, d->pid) ||
		    framework_loaded(framework, d->pid))
			continue;
		add_leak(list, m, d, i, l);
	}
}

/* ------------------------------------------------------------------ copies */

/*
 * Whether transfer finding T's copies are of hotspot H's size: of its
 * size class, or, for a storm (no class of its own), small ones.
 */
static bool same_size(const struct ct_transfers_finding *t, const struct ct_transfers_hotspot *h)
{
	if (t->size_class)
		return !g_strcmp0(t->size_class, h->size_class);
	return h->mean_bytes < CT_TRANSFERS_SMALL_BYTES;
}

/*
 * Whether transfer finding T is about hotspot H's copies (same process,
 * thread, site, way, size): advice about a site's small copies is not
 * for its large ones.
 */
static bool same_copies(const struct ct_transfers_finding *t, const struct ct_transfers_hotspot *h)
{
	return t->where.pid == h->where.pid && t->where.tid == h->where.tid &&
	       !g_strcmp0(t->where.site, h->where.site) && t->direction == h->direction &&
	       t->host == h->host && t->sync == h->sync && same_size(t, h);
}

/*
 * MESSAGE without its last part, "; ADVICE" or ": ADVICE" (the uploads
 * of one buffer, those sent back), which the finding gives apart.
 */
static char *without_advice(const char *message, const char *advice)
{
	size_t m = message ? strlen(message) : 0, a = strlen(advice);

	if (!message)
		return NULL;
	if (m > a + 2 && !strcmp(message + m - a, advice) &&
	    (!strncmp(message + m - a - 2, "; ", 2) || !strncmp(message + m - a - 2, ": ", 2)))
		return g_strndup(message, m - a - 2);
	return g_strdup(message);
}

/*
 * What FIX (a finding of the transfers analysis) says of HOTSPOT's copies,
 * without its advice. The summary counts the hotspot's copies; a fix may
 * count others: some of them (the uploads of one buffer, those sent back,
 * those whose GPU time is known) or more (a storm merges a site's small
 * copies of every size), which is said, so that two counts are not read
 * as one figure that disagrees with itself.
 */
static char *fix_explanation(const struct ct_transfers_finding *fix,
                             const struct ct_transfers_hotspot *hotspot)
{
	char *said = without_advice(fix->message, fix->advice);
	uint64_t n = fix->count, of = hotspot->count;
	char *text;

	if (!said || n == of)
		return said;
	if (n < of)
		text = g_strdup_printf("%s (%" PRIu64 " of these %" PRIu64 " copies)", said, n, of);
	else
		text = g_strdup_printf("%s (these %" PRIu64 " copies among them)", said, of);
	g_free(said);
	return text;
}

/* Where hotspot H's copies were made, as the transfers section says it. */
static void hotspot_where(struct finding *f, const struct ct_transfers_hotspot *h)
{
	f->where[WHERE_PID] = value_i64(h->where.pid, CT_UNIT_ID);
	f->where[WHERE_PROCESS] = value_str(h->where.process);
	f->where[WHERE_DEVICE] = h->has_device ? value_u64(h->device, CT_UNIT_ID) : value_none();
	f->where[WHERE_TID] = value_i64(h->where.tid, CT_UNIT_ID);
	f->where[WHERE_NVTX_PATH] = value_str(h->where.nvtx_path);
	f->where[WHERE_SITE] = value_str(h->where.site);
	f->where[WHERE_API] = value_str(h->where.api);
	f->where[WHERE_TIME] = value_i64(h->first_ns, CT_UNIT_TIME);
}

/* The figures of hotspot H the finding quotes (doc/report-schema.md, transfer_hotspot). */
static void hotspot_numbers(struct finding *f, const struct ct_transfers_hotspot *h)
{
	number_value(f, "count", value_u64(h->count, CT_UNIT_NONE));
	number_value(f, "bytes", value_u64(h->bytes, CT_UNIT_BYTES));
	number_value(f, "cost_ns", value_i64(h->cost_ns, CT_UNIT_DURATION));
	number_value(f, "cost_share", value_known(h->cost_share, CT_UNIT_RATIO));
	number_value(f, "bandwidth_bytes_per_s",
	             value_known(h->bandwidth_bytes_per_s, CT_UNIT_BANDWIDTH));
	number_value(f, "gpu_idle_while_blocked_ns",
	             value_i64(h->gpu_idle_while_blocked_ns, CT_UNIT_DURATION));
}

/*
 * Copies that cost less than this share of the time traced are no finding:
 * a fix would save the program less than that (a data loader's pinned
 * uploads, a model's weights copied once); the hotspots table lists them.
 */
#define COPY_COST_WORTH_SHARE 0.01

/*
 * Whether transfer finding T removes copies rather than makes them
 * cheaper, as far as the trace can tell: buffers uploaded again with the
 * same bytes, as their samples say. (Without samples, or for a round
 * trip, the host may have changed the bytes in between: its advice says
 * so, and it is ranked by its cost.)
 */
static bool removes_copies(const struct ct_transfers_finding *t)
{
	return !strcmp(t->kind, "repeated_upload") && t->same_bytes;
}

/*
 * The fix of hotspot H among the transfers result R's findings about its
 * copies: one that removes at least half of them, since a copy not made
 * needs no pinning, gathering or queueing (and the costs of a finding
 * that removes copies, the ones left out, are compared with those of one
 * that makes them cheaper, all of them: the numbers do not rank them);
 * else the costliest. NULL: none.
 */
static const struct ct_transfers_finding *fix_of(const struct ct_transfers_result *r,
                                                 const struct ct_transfers_hotspot *h)
{
	const struct ct_transfers_finding *costliest = NULL;

	for (guint i = 0; i < r->findings->len; i++) {
		const struct ct_transfers_finding *t =
		    &g_array_index(r->findings, struct ct_transfers_finding, i);

		if (!same_copies(t, h) || !t->advice)
			continue;
		if (removes_copies(t) && t->count * 2 >= h->count)
			return t;
		if (!costliest)
			costliest = t;
	}
	return costliest;
}

/*
 * The costliest hotspot of the transfers result R, with the fix the
 * analysis found for its copies (fix_of), when they cost at least
 * COPY_COST_WORTH_SHARE of TRACED_NS (0: unknown). Without a fix, copies
 * that simply move data are no problem to report.
 */
static void find_copies(GArray *list, const struct ct_transfers_result *r, const struct losses *l,
                        uint64_t traced_ns)
{
	const struct ct_transfers_hotspot *h;
	const struct ct_transfers_finding *fix;
	char bytes[32], cost[32], share[32] = "";
	struct finding *f;

	if (!r->hotspots->len)
		return;
	h = &g_array_index(r->hotspots, struct ct_transfers_hotspot, 0);
	if (traced_ns && (double)h->cost_ns < COPY_COST_WORTH_SHARE * (double)traced_ns)
		return;
	fix = fix_of(r, h);
	if (!fix)
		return;
	if (!isnan(h->cost_share))
		snprintf(share, sizeof(share), ", %.1f %% of all copy time", h->cost_share * 100.0);
	f = finding_add(list, SEV_ADVICE, "transfer_hotspot", NULL);
	hotspot_where(f, h);
	f->count = h->count;
	f->summary = g_strdup_printf(
	    "%s: %" PRIu64 " %s %s %s cop%s (%s) cost %s%s", h->where.site ? h->where.site : "?",
	    h->count, h->sync ? "synchronous" : "asynchronous", ct_direction_label(h->direction),
	    ct_host_mem_label(h->host), h->count == 1 ? "y" : "ies",
	    bytes_text((double)h->bytes, bytes, sizeof(bytes)),
	    ct_format_duration((double)h->cost_ns, cost, sizeof(cost)), share);
	f->verdict = fix->kind;
	f->explanation = fix_explanation(fix, h);
	f->advice = g_strdup(fix->advice);
	hotspot_numbers(f, h);
	f->source = g_strdup("transfers.hotspots[0]");
	f->weight = (double)h->cost_ns;
	if (l->dropped)
		finding_caveat(f, "lower_bound",
		               "CUPTI dropped activity records: GPU times and costs may miss "
		               "some copies");
	if (l->discarded)
		finding_caveat(f, "lower_bound", "LTTng discarded events: some copies are missing");
}

/* ------------------------------------------------------------ frameworks */

/* A framework's figures at an out-of-memory error, as far as known (0: unknown). */
struct oom_figures {
	uint64_t requested;
	uint64_t limit;        /* what it may use of the device */
	uint64_t device_total; /* the device's memory */
	uint64_t device_free;  /* free on the device, as the driver said */
	bool pool_known;       /* RESERVED and UNUSED are known */
	uint64_t reserved;     /* what its pool held from the driver */
	uint64_t unused;       /* of that, reserved but unused */
};

/*
 * Whether O's limit is a share of the device, below its memory: PyTorch's
 * torch.cuda.set_per_process_memory_fraction (its out-of-memory observers
 * are given that share rather than the device's memory, and its message
 * says "... allowed;"). A refusal within the device's memory was then the
 * share's.
 */
static bool share_of_device(const struct oom_figures *o)
{
	return o->limit && o->device_total && o->limit < o->device_total;
}

/*
 * Why a framework's allocator found no room for O's request, from its own
 * figures at the error (doc/report-schema.md, framework_oom):
 * - larger than all it may use of the device: too_large, or limit_reached
 *   when that is a share of a device large enough;
 * - its pool held at least as much reserved but unused: it was there, in
 *   pieces none of which fits (PyTorch frees its cache and retries before
 *   it gives up, so what stays reserved lies in segments partly in use):
 *   fragmented;
 * - a share of the device, which the pool and the request pass (PyTorch
 *   checks what its pool holds against it before it asks the driver), or
 *   with the pool not known, the device had room for the request:
 *   limit_reached;
 * - else the device was full: out_of_memory.
 */
static const char *oom_verdict(const struct oom_figures *o)
{
	if (o->limit && o->requested > o->limit)
		return share_of_device(o) && o->requested <= o->device_total ? "limit_reached"
		                                                             : "too_large";
	if (o->pool_known && o->unused >= o->requested)
		return "fragmented";
	if (share_of_device(o) && (o->pool_known ? o->reserved + o->requested > o->limit
	                                         : o->device_free >= o->requested))
		return "limit_reached";
	return "out_of_memory";
}

/* What the pool of OOM held reserved but unused, as framework.devices[].oom_errors[] says. */
static uint64_t reserved_unused(const struct ct_framework_oom *oom)
{
	return oom->reserved_bytes > oom->in_use_bytes ? oom->reserved_bytes - oom->in_use_bytes
	                                               : 0;
}

/* The figures of OOM, an out-of-memory error of DEVICE's framework that the probe saw. */
static struct oom_figures probe_figures(const struct ct_framework_device *device,
                                        const struct ct_framework_oom *oom)
{
	return (struct oom_figures){
		.requested = oom->requested_bytes,
		.limit = oom->limit_bytes,
		.device_total = device->device_total_bytes,
		.device_free = oom->device_free_bytes,
		.pool_known = oom->figures_known,
		.reserved = oom->reserved_bytes,
		.unused = reserved_unused(oom),
	};
}

static const char *framework_oom_verdict(const struct ct_framework_device *device,
                                         const struct ct_framework_oom *oom)
{
	struct oom_figures o = probe_figures(device, oom);

	return oom_verdict(&o);
}

/* Why there was no room, in words, for VERDICT (oom_verdict). */
static const char *oom_reason(const char *verdict)
{
	if (!strcmp(verdict, "too_large"))
		return "more than it may use of the device";
	if (!strcmp(verdict, "fragmented"))
		return "its pool had room, in pieces too small";
	if (!strcmp(verdict, "limit_reached"))
		return "it held all it may use of the device, its own limit";
	return "the device was full";
}

/* The figures of OOM a framework_oom finding quotes, as framework.devices[].oom_errors[] says. */
static void oom_numbers(struct finding *f, const struct ct_framework_oom *oom)
{
	number_value(f, "requested_bytes", value_u64(oom->requested_bytes, CT_UNIT_BYTES));
	number_value(f, "limit_bytes", value_u64(oom->limit_bytes, CT_UNIT_BYTES));
	number_value(f, "device_free_bytes", value_u64(oom->device_free_bytes, CT_UNIT_BYTES));
	number_value(f, "in_use_bytes", value_known_bytes(oom->figures_known, oom->in_use_bytes));
	number_value(f, "reserved_bytes",
	             value_known_bytes(oom->figures_known, oom->reserved_bytes));
	number_value(f, "reserved_unused_bytes",
	             value_known_bytes(oom->figures_known, reserved_unused(oom)));
}

/*
 * The driver's failures (of FRAG, NULL: none) that were part of the
 * out-of-memory error OOM (framework_oom_of): their number, and the first,
 * which knows the call site, into *FIRST (NULL when the framework asked
 * the driver nothing).
 */
static uint64_t driver_refusals(const struct ct_fragmentation_result *frag,
                                const struct ct_framework_result *framework,
                                const struct ct_framework_oom *oom,
                                const struct ct_frag_failure **first)
{
	uint64_t count = 0;

	*first = NULL;
	for (guint i = 0; frag && i < frag->failures->len; i++) {
		const struct ct_frag_failure *failure =
		    &g_array_index(frag->failures, struct ct_frag_failure, i);

		if (framework_oom_of(framework, failure) != oom)
			continue;
		if (!count++)
			*first = failure;
	}
	return count;
}

/* The call site of the driver's failures that were part of OOM, NULL when unknown. */
static const char *oom_site(const struct ct_fragmentation_result *frag,
                            const struct ct_framework_result *framework,
                            const struct ct_framework_oom *oom)
{
	const struct ct_frag_failure *driver;

	driver_refusals(frag, framework, oom, &driver);
	return driver ? text_of(driver->site) : NULL;
}

/* Errors of DEVICE alike: the same request, the same verdict, at the same call site. */
static bool same_oom(const struct ct_fragmentation_result *frag,
                     const struct ct_framework_result *framework,
                     const struct ct_framework_device *device, const struct ct_framework_oom *a,
                     const struct ct_framework_oom *b)
{
	return a->requested_bytes == b->requested_bytes &&
	       !strcmp(framework_oom_verdict(device, a), framework_oom_verdict(device, b)) &&
	       !g_strcmp0(oom_site(frag, framework, a), oom_site(frag, framework, b));
}

/*
 * "; its tensors were allocated at train.py:12 in step (3.00 GiB, 40
 * tensors), ...": the sites of DEVICE's tensors at MOMENT (CT_FRAMEWORK_OOM:
 * its first out-of-memory error; framework.devices[].tensor_sites[]), the
 * three that held the most; "" when there are none.
 */
static char *tensor_sites_text(const struct ct_framework_device *device, uint8_t moment)
{
	GString *text = g_string_new(NULL);
	size_t told = 0, more = 0;
	char held[32];
	/* JAX's are arrays */
	const char *noun = device->framework == CT_FRAMEWORK_JAX ? "array" : "tensor";

	for (guint i = 0; i < device->sites->len; i++) {
		const struct ct_framework_site *s =
		    &g_array_index(device->sites, struct ct_framework_site, i);

		if (s->at != moment)
			continue;
		if (told == 3) {
			more++;
			continue;
		}
		if (!told)
			g_string_append_printf(text, "; its %ss were allocated at ", noun);
		else
			g_string_append(text, ", ");
		g_string_append_printf(text, "%s (%s, %" PRIu64 " %s%s)",
		                       text_of(s->site) ? s->site : "?",
		                       bytes_text((double)s->bytes, held, sizeof(held)), s->count,
		                       noun, s->count == 1 ? "" : "s");
		told++;
	}
	if (more)
		g_string_append_printf(text, " and %zu other line%s", more, more == 1 ? "" : "s");
	return g_string_free(text, FALSE);
}

/* The framework of DEVICE's figures, as the report names it ("pytorch"). */
static const char *framework_of(const struct ct_framework_device *device)
{
	return ct_framework_label(device->framework);
}

/*
 * "the driver had 2.71 GiB free of the 4.00 GiB it may use", in BUF (LEN
 * bytes): the room O's error had; with the share of the device that
 * FRAMEWORK may use (share_of_device) told apart from the device.
 */
static void room_text(char *buf, size_t len, const struct oom_figures *o, const char *framework)
{
	char free_text[32], limit[32], total[32];

	bytes_text((double)o->device_free, free_text, sizeof(free_text));
	bytes_text((double)o->limit, limit, sizeof(limit));
	if (!share_of_device(o)) {
		snprintf(buf, len, "the driver had %s free of the %s it may use", free_text, limit);
		return;
	}
	snprintf(buf, len, "the driver had %s free of the device's %s, of which it may use %s%s",
	         free_text, bytes_text((double)o->device_total, total, sizeof(total)), limit,
	         !g_strcmp0(framework, "pytorch") ? " (torch.cuda.set_per_process_memory_fraction)"
	                                          : ", its own limit");
}

/*
 * One finding for the out-of-memory errors of DEVICE (framework.devices[D])
 * alike to its error INDEX (COUNT of them), told with the figures of the
 * first; its where is the first driver failure that was part of it, which
 * knows the call site.
 */
/*
 * Who else held DEVICE (-1: any) at an out-of-memory error of process PID
 * at TIME_NS, as NVML listed them: the first list taken from a second
 * before it until UNTIL_NS (FRAG's listings, made right after a
 * framework's out-of-memory error or an uncaught exception), else the one
 * taken at a refusal of the driver that was part of the error
 * (refused_for); NULL when none.
 */
static const GArray *holders_at(const struct ct_fragmentation_result *frag, int64_t pid,
                                int64_t device, int64_t time_ns, int64_t until_ns)
{
	for (guint i = 0; frag && frag->listings && i < frag->listings->len; i++) {
		const struct ct_frag_listing *l =
		    &g_array_index(frag->listings, struct ct_frag_listing, i);

		if (l->pid == pid && (device < 0 || l->device == device) &&
		    l->time_ns >= time_ns - FRAMEWORK_OOM_WINDOW_NS && l->time_ns <= until_ns)
			return l->holders;
	}
	for (guint i = 0; frag && i < frag->failures->len; i++) {
		const struct ct_frag_failure *failure =
		    &g_array_index(frag->failures, struct ct_frag_failure, i);

		if (refused_for(failure, pid, device, time_ns) && failure->holders &&
		    failure->holders->len)
			return failure->holders;
	}
	return NULL;
}

/*
 * Whether NVML's list HOLDERS (NULL: none taken) shows the process alone on
 * its device: itself and no other. A list without it proves nothing: NVML
 * in a container may see no process, or only by pids of another namespace.
 */
static bool alone(const GArray *holders)
{
	bool self = false;

	for (guint i = 0; holders && i < holders->len; i++) {
		if (!g_array_index(holders, struct ct_frag_holder, i).self)
			return false;
		self = true;
	}
	return self;
}

/* EXPLANATION (owned, replaced) followed by the other holders of HOLDERS, if any. */
static char *with_holders(char *explanation, const GArray *holders)
{
	char *others = holders_text(holders), *out;

	if (!others)
		return explanation;
	out = g_strdup_printf("%s; %s", explanation, others);
	g_free(explanation);
	g_free(others);
	return out;
}

static void add_framework_oom(GArray *list, const struct ct_framework_result *framework,
                              const struct ct_fragmentation_result *frag, guint d, guint index,
                              uint64_t count)
{
	const struct ct_framework_device *device =
	    &g_array_index(framework->devices, struct ct_framework_device, d);
	const struct ct_framework_oom *oom =
	    &g_array_index(device->ooms, struct ct_framework_oom, index);
	const struct oom_figures figures = probe_figures(device, oom);
	const char *verdict = oom_verdict(&figures);
	const GArray *holders;
	const struct ct_frag_failure *driver;
	uint64_t refusals = driver_refusals(frag, framework, oom, &driver);
	char req[32], in_use[32], reserved[32], unused[32], room[224];
	char times[40] = "", asked[160] = "";
	struct finding *f = finding_add(list, SEV_CRITICAL, "framework_oom", NULL);
	/* the sites are those of the first error */
	char *sites = index == 0 ? tensor_sites_text(device, CT_FRAMEWORK_OOM) : g_strdup("");

	where_device(f, device->pid, device->process, device->device);
	f->verdict = verdict;
	f->count = count;
	if (count > 1)
		snprintf(times, sizeof(times), " (%" PRIu64 " times)", count);
	bytes_text((double)oom->requested_bytes, req, sizeof(req));
	f->summary = g_strdup_printf("%s could not allocate %s on device %" PRIu32 ": %s%s",
	                             ct_framework_name(framework_of(device)), req, device->device,
	                             oom_reason(verdict), times);
	if (refusals) {
		snprintf(asked, sizeof(asked), "; the driver refused %s %" PRIu64 " time%s for it",
		         text_of(driver->api) ? driver->api : "an allocation", refusals,
		         refusals == 1 ? "" : "s");
		failure_figures(f, driver);
	}
	room_text(room, sizeof(room), &figures, framework_of(device));
	if (oom->figures_known)
		f->explanation = g_strdup_printf(
		    "its tensors held %s and its pool %s from the driver (%s of it unused); %s%s%s",
		    bytes_text((double)oom->in_use_bytes, in_use, sizeof(in_use)),
		    bytes_text((double)oom->reserved_bytes, reserved, sizeof(reserved)),
		    bytes_text((double)reserved_unused(oom), unused, sizeof(unused)), room, asked,
		    sites);
	else
		f->explanation = g_strdup_printf("%s%s%s", room, asked, sites);
	g_free(sites);
	/* the probe's error: NVML's list comes right after it */
	holders = holders_at(frag, device->pid, device->device, oom->time_ns,
	                     oom->time_ns + FRAMEWORK_OOM_WINDOW_NS);
	f->explanation = with_holders(f->explanation, holders);
	f->advice = ct_framework_oom_advice(framework_of(device), verdict, ct_pool_start_of(device),
	                                    alone(holders));
	oom_numbers(f, oom);
	f->source = g_strdup_printf("framework.devices[%u].oom_errors[%u]", d, index);
	f->order = (double)oom->time_ns;
}

/*
 * JAX's pool took most of the device at its first figures: JAX
 * preallocates 75 % of each device by default (XLA_PYTHON_CLIENT_PREALLOCATE,
 * _MEM_FRACTION). Not a fault, but other processes on the device have
 * only the rest, and the driver's peak says the pool, not the arrays.
 */
static void add_preallocation(GArray *list, const struct ct_framework_device *device, double share,
                              guint index)
{
	char taken[32], total[32], used[32];
	struct finding *f = finding_add(list, SEV_ADVICE, "preallocation", NULL);

	where_device(f, device->pid, device->process, device->device);
	f->summary = g_strdup_printf(
	    "%s took %s of device %" PRIu32 " at its start (%.0f %% of its %s); its %s used at "
	    "most %s of it",
	    ct_framework_name(framework_of(device)),
	    bytes_text((double)device->first_reserved_bytes, taken, sizeof(taken)), device->device,
	    share * 100.0, bytes_text((double)device->device_total_bytes, total, sizeof(total)),
	    "arrays", bytes_text((double)device->peak_in_use_bytes, used, sizeof(used)));
	f->explanation = g_strdup("the driver's peak of this process is its pool, not what "
	                          "the program used; other processes on the device have only "
	                          "the rest");
	f->advice = g_strdup("XLA_PYTHON_CLIENT_PREALLOCATE=false allocates as needed; "
	                     "XLA_PYTHON_CLIENT_MEM_FRACTION=.25 (say) takes a smaller share "
	                     "at start");
	number_value(f, "first_reserved_bytes",
	             value_u64(device->first_reserved_bytes, CT_UNIT_BYTES));
	number_value(f, "device_total_bytes", value_u64(device->device_total_bytes, CT_UNIT_BYTES));
	number_value(f, "first_reserved_share", value_double(share, CT_UNIT_RATIO));
	number_value(f, "peak_in_use_bytes", value_u64(device->peak_in_use_bytes, CT_UNIT_BYTES));
	f->source = g_strdup_printf("framework.devices[%u]", index);
	f->weight = (double)device->first_reserved_bytes;
}

static void find_framework(GArray *list, const struct ct_framework_result *framework,
                           const struct ct_fragmentation_result *frag)
{
	for (guint i = 0; i < framework->devices->len; i++) {
		const struct ct_framework_device *d =
		    &g_array_index(framework->devices, struct ct_framework_device, i);
		const GArray *errors = d->ooms;
		size_t added = 0;

		for (guint j = 0; j < errors->len && added < MAX_PER_KIND; j++) {
			const struct ct_framework_oom *oom =
			    &g_array_index(errors, struct ct_framework_oom, j);
			uint64_t count = 1;
			bool seen = false;

			for (guint k = 0; k < j && !seen; k++)
				seen = same_oom(frag, framework, d,
				                &g_array_index(errors, struct ct_framework_oom, k),
				                oom);
			if (seen)
				continue;
			for (guint k = j + 1; k < errors->len; k++)
				count += same_oom(
				    frag, framework, d,
				    &g_array_index(errors, struct ct_framework_oom, k), oom);
			add_framework_oom(list, framework, frag, i, j, count);
			added++;
		}
		if (ct_framework_preallocated(d))
			add_preallocation(list, d, ct_framework_first_share(d), i);
	}
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
static void find_compatibility(GArray *list, const struct ct_environment_result *environment)
{
	for (guint i = 0; i < environment->processes->len; i++) {
		const struct ct_environment_process *p =
		    &g_array_index(environment->processes, struct ct_environment_process, i);
		size_t kept = 0;

		for (size_t k = 0; k < p->findings->count && kept < MAX_PER_KIND; k++) {
			const struct ct_compat_finding *x = &p->findings->items[k];
			struct finding *f;

			if (x->severity == CT_COMPAT_NOTE)
				continue;
			f = finding_add(list,
			                x->severity == CT_COMPAT_ERROR ? SEV_CRITICAL : SEV_WARNING,
			                "compatibility", NULL);
			f->where[WHERE_PID] = value_i64(p->pid, CT_UNIT_ID);
			f->verdict = text_of(x->id);
			f->summary = g_strdup(text_of(x->what));
			f->explanation = g_strdup(text_of(x->rule));
			f->advice = g_strdup(text_of(x->action));
			f->source = g_strdup_printf("environment[%u].findings[%zu]", i, k);
			f->order = (double)i;
			kept++;
		}
	}
}

/* ------------------------------------------------------------ cell errors */

/*
 * A notebook cell that raised an exception (ct_cell's error_type), row
 * ROW of process P's cells in the report: the kernel runs on, holding
 * what the cell allocated and did not free. A warning: what the trace
 * shows of the failure itself (an allocation that failed, a framework's
 * out-of-memory error) is told above it.
 */
static void add_cell_error(GArray *list, const struct ct_cells_process *process,
                           const struct ct_cell *cell, guint p, guint row)
{
	const char *message = cell->error_message;
	uint64_t live = cell->memory.live_bytes;
	char held[32], site[CT_CELL_SITE_LEN];
	struct finding *f = finding_add(list, SEV_WARNING, "cell_error", NULL);

	f->site = g_strdup(ct_cell_site(cell, site, sizeof(site)));
	f->where[WHERE_PID] = value_i64(process->process->pid, CT_UNIT_ID);
	f->where[WHERE_PROCESS] = value_str(process->process->procname);
	f->where[WHERE_SITE] = value_str(f->site);
	f->where[WHERE_TIME] = value_i64(cell->begin_ns, CT_UNIT_TIME);
	f->summary = g_strdup_printf("%s raised %s%s%.200s", f->site, cell->error_type,
	                             message && *message ? ": " : "", message ? message : "");
	if (live > 0) {
		uint64_t count = cell->memory.live_allocations;

		f->explanation = g_strdup_printf(
		    "the kernel ran on after it, holding the %s the cell allocated and did not "
		    "free, in %" PRIu64 " %s",
		    bytes_text((double)live, held, sizeof(held)), count,
		    count == 1 ? "allocation" : "allocations");
		f->advice = g_strdup("free what the cell left (del the objects it made; PyTorch: "
		                     "then torch.cuda.empty_cache()) or restart the kernel before "
		                     "running it again");
	} else {
		f->explanation = g_strdup("the kernel ran on after it; the cell left no GPU memory "
		                          "allocated");
		f->advice = g_strdup("the notebook shows the error's traceback under the cell");
	}
	number_value(f, "live_bytes", value_u64(live, CT_UNIT_BYTES));
	number_value(f, "live_allocations", value_u64(cell->memory.live_allocations, CT_UNIT_NONE));
	f->source = g_strdup_printf("cells[%u].cells[%u]", p, row);
	f->weight = (double)live;
}

/* ------------------------------------------------------------- no GPU used */

/*
 * Whether the trace of ROOT shows no GPU used by any process: no device
 * memory allocated, nothing copied, no kernel launched, and nothing left
 * out that could have (the trace whole, no child forked untraced). False
 * when a section is missing: its analysis did not run.
 */
static bool no_gpu_used(const struct ct_node *root)
{
	const struct ct_node *trace = at(root, "trace"), *memory = at(root, "memory"),
	                     *transfers = at(root, "transfers"), *kernels = at(root, "kernels");

	return trace && memory && transfers && kernels && bool_of(trace, "complete") &&
	       !ct_node_u64(trace, "untraced_child_count") &&
	       !ct_node_count(at(memory, "devices")) && !ct_node_u64(transfers, "copies") &&
	       kernels->type == CT_NODE_ARRAY && !ct_node_count(kernels);
}

/* Whether CUDA started in process PID: the environment section lists it as traced. */
static bool cuda_started(const struct ct_node *root, int64_t pid)
{
	const struct ct_node *env = at(root, "environment");

	for (size_t i = 0; i < ct_node_count(env); i++)
		if (ct_node_i64(ct_node_child(env, i), "pid") == pid)
			return bool_of(ct_node_child(env, i), "traced");
	return false;
}

/* How to see what FRAMEWORK (a label) makes of the GPU, from its documentation. */
static const char *gpu_unused_advice(const char *framework)
{
	if (!g_strcmp0(framework, "pytorch"))
		return "see what PyTorch makes of the GPU: torch.cuda.is_available() (False: no "
		       "driver or device it can use) and torch.version.cuda (None: a build without "
		       "CUDA); tensors go to the GPU only when sent there (device=\"cuda\", "
		       ".to(\"cuda\")); cudatrace doctor checks the driver and libraries";
	if (!g_strcmp0(framework, "jax"))
		return "see what JAX makes of the GPU: jax.devices(); JAX falls back to the CPU "
		       "when "
		       "its CUDA backend does not start, and JAX_PLATFORMS=cuda makes it fail with "
		       "the reason instead; cudatrace doctor checks the driver and libraries";
	if (!g_strcmp0(framework, "tensorflow"))
		return "see what TensorFlow makes of the GPU: "
		       "tf.config.list_physical_devices(\"GPU\") "
		       "(empty: it runs on the CPU, and its log at start-up says why); cudatrace "
		       "doctor checks the driver and libraries";
	return "see whether the framework finds the GPU; cudatrace doctor checks the driver and "
	       "libraries";
}

/* Whether a framework of FRAMEWORK gave figures of memory on a GPU, or an error there. */
static bool framework_held_gpu(const struct ct_framework_result *framework)
{
	for (guint i = 0; i < framework->devices->len; i++) {
		const struct ct_framework_device *d =
		    &g_array_index(framework->devices, struct ct_framework_device, i);

		if (d->peak_in_use_bytes || d->peak_reserved_bytes || d->oom_count)
			return true;
	}
	return false;
}

/*
 * A framework imported (FRAMEWORK's first load) in a trace where no GPU
 * was used (no_gpu_used, and no framework's figures say otherwise): its
 * work, if any, ran on the CPU. A warning: the program may have meant
 * it, but it was recorded to trace the GPU. Whether CUDA started in the
 * process tells how far it got.
 */
static void find_gpu_unused(GArray *list, const struct ct_node *root,
                            const struct ct_framework_result *framework)
{
	const struct ct_framework_load *load;
	const char *label, *name;
	struct finding *f;
	bool started;

	if (!framework || !framework->loads->len || framework_held_gpu(framework) ||
	    !no_gpu_used(root))
		return;
	load = &g_array_index(framework->loads, struct ct_framework_load, 0);
	started = cuda_started(root, load->pid);
	label = ct_framework_label(load->framework);
	name = ct_framework_name(label);
	f = finding_add(list, SEV_WARNING, "gpu_unused", NULL);
	f->where[WHERE_PID] = value_i64(load->pid, CT_UNIT_ID);
	if (text_of(load->process))
		f->where[WHERE_PROCESS] = value_str(load->process);
	f->where[WHERE_TIME] = value_i64(load->time_ns, CT_UNIT_TIME);
	f->verdict = started ? "cuda_started" : "cuda_never_started";
	f->summary = g_strdup_printf("%s%s%s was imported, but no GPU was used: no GPU memory was "
	                             "allocated, nothing was copied to or from a GPU and no "
	                             "kernel was launched",
	                             name, load->version && *load->version ? " " : "",
	                             load->version ? load->version : "");
	f->explanation = g_strdup_printf(
	    started ? "%s (pid %" PRId64
	              ") started CUDA but put nothing on a device: %s found no GPU "
	              "it would use, or was not asked to use one; its work, if any, ran on the CPU"
	            : "%s (pid %" PRId64 ") never started CUDA: %s did not look for a GPU (a build "
	              "without CUDA, a setting for the CPU) or gave up before CUDA; its work, if "
	              "any, ran on the CPU",
	    text_of(load->process) ? load->process : "its process", load->pid, name);
	f->advice = g_strdup(gpu_unused_advice(label));
	f->source = g_strdup("framework.loaded[0]");
}

/* The cells that raised an exception, among those the report lists (--max-rows). */
static void find_cell_errors(GArray *list, const struct ct_cells_result *r)
{
	size_t told = 0;

	for (guint p = 0; p < r->processes->len; p++) {
		const struct ct_cells_process *process =
		    &g_array_index(r->processes, struct ct_cells_process, p);

		for (guint row = 0;
		     row < process->cells->len && row < r->max_rows && told < MAX_PER_KIND; row++) {
			const struct ct_cell *cell =
			    &g_array_index(process->cells, struct ct_cell, process->order[row]);

			if (!cell->error_type || !*cell->error_type)
				continue;
			add_cell_error(list, process, cell, p, row);
			told++;
		}
	}
}

/* ------------------------------------------------------------ open waits */

/*
 * The shortest wait open at the end that is a finding: shorter, a process
 * killed (or a trace stopped) in the middle of an ordinary
 * synchronisation, which says nothing of why.
 */
#define OPEN_WAIT_MIN_NS 1000000000LL

/* Whether the traced run failed: record judged it ended otherwise than by exiting with 0. */
static bool run_failed(const struct ct_node *root)
{
	const struct ct_node *pe = at(root, "process_end");

	return pe && g_strcmp0(ct_node_str(pe, "cause"), "none");
}

/*
 * A thread inside a wait for the device when its process's trace ended
 * (api.open_waits): what a hang looks like, whatever then ended the
 * process (a timeout's signal, a person, the job's scheduler). Critical
 * when the run failed, where it is likely why.
 */
static void find_open_waits(GArray *list, const struct ct_api_result *r, const struct ct_node *root)
{
	for (guint i = 0, told = 0; i < r->open_waits->len && told < MAX_PER_KIND; i++) {
		const struct ct_api_open_wait *w =
		    &g_array_index(r->open_waits, struct ct_api_open_wait, i);
		const char *api = w->api ? w->api : "a CUDA call";
		char open[32], ran[32];
		struct finding *f;

		if (w->open_ns < OPEN_WAIT_MIN_NS)
			continue;
		told++;
		f = finding_add(list, run_failed(root) ? SEV_CRITICAL : SEV_WARNING, "open_wait",
		                NULL);
		f->where[WHERE_PID] = value_i64(w->pid, CT_UNIT_ID);
		f->where[WHERE_PROCESS] = value_str(w->process);
		f->where[WHERE_TID] = value_i64(w->tid, CT_UNIT_ID);
		f->where[WHERE_SITE] = value_str(w->site);
		f->where[WHERE_API] = value_str(w->api);
		f->where[WHERE_TIME] = value_i64(w->entry_ns, CT_UNIT_TIME);
		ct_format_duration((double)w->open_ns, open, sizeof(open));
		ct_format_duration((double)w->process_ns, ran, sizeof(ran));
		f->summary = g_strdup_printf("%s was waiting in %s for %s when its trace ended; it "
		                             "never returned",
		                             w->process ? w->process : "the program", api, open);
		f->explanation = g_strdup_printf(
		    "%s waits for work queued on the device, and had not returned %s after it was "
		    "called, when the trace of its process (%s in all) ended: what it waited for "
		    "had not finished, and the process died, was stopped or hung inside it, or the "
		    "trace ended first",
		    api, open, ran);
		f->advice = g_strdup(
		    "find what it waited for: the kernels and copies queued before it (a kernel "
		    "that never ends, blocks that wait on each other, an event never recorded, a "
		    "peer that never joins a collective); with CUDA_LAUNCH_BLOCKING=1 the launch "
		    "that hangs is the call that does not return, and cuda-gdb attached to the "
		    "hung process shows where each kernel is");
		number_value(f, "open_ns", value_i64(w->open_ns, CT_UNIT_DURATION));
		number_value(f, "process_ns", value_i64(w->process_ns, CT_UNIT_DURATION));
		f->source = g_strdup_printf("open_waits[%u]", i);
		f->order = (double)w->entry_ns;
	}
}

/* ------------------------------------------------------------ sticky errors */

/*
 * Each process's first sticky CUDA error: its context cannot be used any
 * more, whether or not the program went on. The call that returned it is
 * often not the one at fault: a kernel's fault comes back from the next
 * call that waits for it.
 */
/*
 * Why E names no kernel, and which one it was: the last the process
 * launched before the error (sticky_errors[].kernel), where it was
 * launched, when the trace has it.
 */
static char *explain_sticky(const struct ct_cuda_sticky *e, const char *api)
{
	if (!e->kernel && !e->graph)
		return g_strdup_printf("a kernel's fault comes back from the next call that waits "
		                       "for it: the kernel at fault was launched before %s "
		                       "returned it",
		                       api ? api : "the call");
	return g_strdup_printf(
	    "a kernel's fault comes back from the next call that waits for it: the last launch "
	    "before %s returned it was %s%s%s%s%s",
	    api ? api : "the call", e->graph ? "a graph's" : "kernel ", e->graph ? "" : e->kernel,
	    e->launch_site ? ", launched at " : "", e->launch_site ? e->launch_site : "",
	    e->graph ? " (its kernels are not named)" : "");
}

/* " (3 calls failed after it)" into BUF (LEN bytes): "" when none did. Returns BUF. */
static const char *failed_after_text(uint64_t count, char *buf, size_t len)
{
	if (!count)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, " (%" PRIu64 " call%s failed after it)", count,
		         count == 1 ? "" : "s");
	return buf;
}

/* Where sticky error E was returned, as the sticky_errors section says it. */
static void sticky_where(struct finding *f, const struct ct_cuda_sticky *e, const char *api)
{
	f->where[WHERE_PID] = value_i64(e->pid, CT_UNIT_ID);
	f->where[WHERE_PROCESS] = value_str(e->process);
	f->where[WHERE_API] = value_str(api);
	f->where[WHERE_SITE] = value_str(e->site);
	f->where[WHERE_TIME] = value_i64(e->time_ns, CT_UNIT_TIME);
}

static void find_sticky(GArray *list, const struct ct_cuda_errors_result *r, const struct losses *l)
{
	for (guint i = 0; i < r->sticky->len && i < MAX_PER_KIND; i++) {
		const struct ct_cuda_sticky *e =
		    &g_array_index(r->sticky, struct ct_cuda_sticky, i);
		const char *api = e->api[0] ? e->api : NULL;
		char after[64];
		struct finding *f;

		f = finding_add(list, SEV_CRITICAL, "sticky_error", NULL);
		sticky_where(f, e, api);
		f->verdict = e->error;
		f->summary = g_strdup_printf(
		    "%s got %s (%" PRId32 ") from %s, a sticky CUDA error: no CUDA call can "
		    "succeed after it%s",
		    e->process ? e->process : "the program", f->verdict ? f->verdict : "an error",
		    e->code, api ? api : "a call",
		    failed_after_text(e->failed_after, after, sizeof(after)));
		f->explanation = explain_sticky(e, api);
		f->advice =
		    g_strdup("find the kernel at fault: run it with CUDA_LAUNCH_BLOCKING=1, "
		             "so that the launch that faults returns the error, or under "
		             "compute-sanitizer (memcheck names the kernel, thread and "
		             "address); the process must be restarted to use CUDA again");
		number_value(f, "code", value_i64(e->code, CT_UNIT_NONE));
		number_value(f, "failed_after", value_u64(e->failed_after, CT_UNIT_NONE));
		f->source = g_strdup_printf("sticky_errors[%u]", i);
		f->order = (double)e->time_ns;
		if (l->discarded)
			finding_caveat(f, "uncertain",
			               "LTTng discarded events: an earlier error, and calls that "
			               "failed after it, may be missing");
	}
}

/* -------------------------------------- a framework's out of memory, said */

/* " (704.00 MiB in use by PyTorch, 3.19 GiB reserved, 20.00 MiB free of 4.00 GiB)". */
static char *said_figures(const struct ct_node *o, const char *name)
{
	static const char *const keys[] = { "in_use_bytes", "reserved_bytes", "device_free_bytes" };
	char size[32], total[32];
	char *in_use = g_strdup_printf(" in use by %s", name), *free_of = NULL;
	const char *what[] = { in_use, " reserved", " free" };
	GString *s = g_string_new(NULL);

	if (ct_node_u64(o, "device_total_bytes")) {
		free_of =
		    g_strdup_printf(" free of %s", bytes_text(number_of(o, "device_total_bytes"),
		                                              total, sizeof(total)));
		what[2] = free_of;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
		if (ct_node_u64(o, keys[i]))
			g_string_append_printf(
			    s, "%s%s%s", s->len ? ", " : " (",
			    bytes_text(number_of(o, keys[i]), size, sizeof(size)), what[i]);
	/* the allocator's own limit (TensorFlow's Limit:), when no device total says more;
	 * a share of the device (PyTorch's "allowed") beside it */
	if (ct_node_u64(o, "limit_bytes") && !free_of)
		g_string_append_printf(s, "%s%s limit", s->len ? ", of its " : " (its ",
		                       bytes_text(number_of(o, "limit_bytes"), size, sizeof(size)));
	else if (free_of && ct_node_u64(o, "limit_bytes") &&
	         ct_node_u64(o, "limit_bytes") < ct_node_u64(o, "device_total_bytes"))
		g_string_append_printf(s, ", of which it may use %s",
		                       bytes_text(number_of(o, "limit_bytes"), size, sizeof(size)));
	if (s->len)
		g_string_append_c(s, ')');
	g_free(in_use);
	g_free(free_of);
	return g_string_free(s, FALSE);
}

/* Whether the Python probe saw an out-of-memory error of process PID (framework.devices[]). */
static bool probe_saw_oom(const struct ct_framework_result *framework, int64_t pid)
{
	for (guint i = 0; framework && i < framework->devices->len; i++) {
		const struct ct_framework_device *d =
		    &g_array_index(framework->devices, struct ct_framework_device, i);

		if (d->pid == pid && d->ooms->len)
			return true;
	}
	return false;
}

/*
 * What a framework said on its standard error as it ran out of GPU
 * memory (last_words.out_of_memory), when the Python probe did not tell
 * it (turned off, TensorFlow, a framework error it does not see): the
 * same finding as the probe's, from the message's figures.
 */
/*
 * The sites of what PID's FRAMEWORK held when it died of its error (at the
 * uncaught exception), else at exit: "" when the probe gave none.
 */
static char *said_sites(const struct ct_framework_result *fw, int64_t pid, const char *framework)
{
	for (guint i = 0; fw && i < fw->devices->len; i++) {
		const struct ct_framework_device *d =
		    &g_array_index(fw->devices, struct ct_framework_device, i);
		char *text;

		if (d->pid != pid || g_strcmp0(framework_of(d), framework))
			continue;
		text = tensor_sites_text(d, CT_FRAMEWORK_EXCEPTION);
		if (!*text) {
			g_free(text);
			text = tensor_sites_text(d, CT_FRAMEWORK_EXIT);
		}
		if (*text)
			return text;
		g_free(text);
	}
	return g_strdup("");
}

/*
 * What a framework may hold of its device D (NULL: not known), as the
 * probe read it: its limit, else the device's memory; 0 when unknown.
 */
static uint64_t framework_limit(const struct ct_framework_device *d)
{
	return !d ? 0 : d->limit_bytes ? d->limit_bytes : d->device_total_bytes;
}

/* The figures a framework_oom finding quotes (oom_numbers), as the last words give them. */
static const char *const said_numbers[] = {
	"requested_bytes",
	"limit_bytes",
	"device_free_bytes",
	"in_use_bytes",
	"reserved_bytes",
	"reserved_unused_bytes",
	NULL,
};

/* oom_verdict of the out-of-memory error the last words O quote. */
static const char *said_verdict(const struct ct_node *o)
{
	const struct ct_node *unused = at(o, "reserved_unused_bytes");
	const struct oom_figures figures = {
		.requested = ct_node_u64(o, "requested_bytes"),
		.limit = ct_node_u64(o, "limit_bytes"),
		.device_total = ct_node_u64(o, "device_total_bytes"),
		.device_free = ct_node_u64(o, "device_free_bytes"),
		.pool_known = unused && unused->type == CT_NODE_U64,
		.reserved = ct_node_u64(o, "reserved_bytes"),
		.unused = ct_node_u64(o, "reserved_unused_bytes"),
	};

	return oom_verdict(&figures);
}

/*
 * Whether the out-of-memory error the last words O quote is a BFC
 * allocator's (TensorFlow's) whose own limit had room for the request
 * beside what its tensors held: BFC fails only when no free chunk of its
 * regions is large enough and it cannot extend them, so that room was in
 * pieces; unless the driver refused the process an allocation (FRAG), when
 * the device, not the pool, was full. Sizes printed rounded ("64.00MiB")
 * must leave room by more than their rounding.
 */
static bool bfc_had_room(const struct ct_node *o, const char *framework,
                         const struct ct_fragmentation_result *frag, int64_t pid, int64_t device)
{
	const struct ct_node *in_use = at(o, "in_use_bytes");
	uint64_t limit = ct_node_u64(o, "limit_bytes"),
	         requested = ct_node_u64(o, "requested_bytes");
	uint64_t held, slack;

	if (strcmp(framework, "tensorflow") || !in_use || in_use->type != CT_NODE_U64 || !limit ||
	    !requested)
		return false;
	held = ct_node_u64(o, "in_use_bytes");
	slack = !g_strcmp0(ct_node_str(o, "precision"), "exact") ? 0 : limit / 100;
	if (held > limit || limit - held < requested || limit - held - requested < slack)
		return false;
	for (guint i = 0; frag && i < frag->failures->len; i++)
		if (refused_for(&g_array_index(frag->failures, struct ct_frag_failure, i), pid,
		                device, ct_node_i64(o, "time_ns")))
			return false;
	return true;
}

/* The device the last words O name, -1 when they name none. */
static int64_t said_device(const struct ct_node *o)
{
	const struct ct_node *device = at(o, "device");

	return device && device->type == CT_NODE_U64 ? (int64_t)device->value.u64 : -1;
}

/*
 * Whether a framework whose figures are DEVICE's (NULL: none), asking
 * REQUESTED more, was refused by its own limit, below the device's
 * memory: what its tensors or arrays held at its last figures and the
 * request pass it (JAX's pool may take XLA_PYTHON_CLIENT_MEM_FRACTION of
 * the device, 75 % unless set, whether it preallocates or not; PyTorch's
 * torch.cuda.set_per_process_memory_fraction), while the device had more.
 */
static bool limit_reached(const struct ct_framework_device *device, uint64_t requested)
{
	return device && device->framework != CT_FRAMEWORK_TENSORFLOW && device->limit_bytes &&
	       device->device_total_bytes && device->limit_bytes < device->device_total_bytes &&
	       device->in_use_bytes + requested > device->limit_bytes;
}

/* EXPLANATION (owned, replaced) followed by what DEVICE's framework held of its limit. */
static char *with_limit(char *explanation, const struct ct_framework_device *device)
{
	char held[32], limit[32], total[32];
	char *out = g_strdup_printf(
	    "%s; its %s held %s of the %s it may use of the device's %s (its last figures)",
	    explanation, device->framework == CT_FRAMEWORK_JAX ? "arrays" : "tensors",
	    bytes_text((double)device->in_use_bytes, held, sizeof(held)),
	    bytes_text((double)device->limit_bytes, limit, sizeof(limit)),
	    bytes_text((double)device->device_total_bytes, total, sizeof(total)));

	g_free(explanation);
	return out;
}

static void find_said_oom(GArray *list, const struct ct_node *root,
                          const struct ct_framework_result *fw,
                          const struct ct_fragmentation_result *frag)
{
	const struct ct_node *words = at(root, "last_words");
	const struct ct_node *o = at(words, "out_of_memory");
	const char *framework = ct_node_str(o, "framework"), *verdict;
	int64_t pid = ct_node_i64(words, "pid"), device = said_device(o);
	const struct ct_framework_device *pool =
	    framework ? ct_framework_device_of(fw, pid, framework) : NULL;
	uint64_t limit = framework_limit(pool);
	char req[32], on[32] = "", *figures;
	const GArray *holders;
	struct finding *f;

	if (!framework || probe_saw_oom(fw, pid))
		return;
	verdict = said_verdict(o);
	if (!strcmp(verdict, "out_of_memory") && bfc_had_room(o, framework, frag, pid, device))
		verdict = "fragmented";
	/* a message without its limit: the probe's figures may know it */
	if (!strcmp(verdict, "out_of_memory") && !ct_node_u64(o, "limit_bytes") && limit &&
	    ct_node_u64(o, "requested_bytes") > limit)
		verdict = "too_large";
	if (!strcmp(verdict, "out_of_memory") && !ct_node_u64(o, "limit_bytes") &&
	    limit_reached(pool, ct_node_u64(o, "requested_bytes")))
		verdict = "limit_reached";
	f = finding_add(list, SEV_CRITICAL, "framework_oom", words);
	f->verdict = verdict;
	if (device >= 0)
		snprintf(on, sizeof(on), " on device %" PRId64, device);
	figures = said_figures(o, ct_framework_name(framework));
	f->summary =
	    g_strdup_printf("%s could not allocate %s%s: %s%s", ct_framework_name(framework),
	                    bytes_text(number_of(o, "requested_bytes"), req, sizeof(req)), on,
	                    oom_reason(verdict), figures);
	g_free(figures);
	f->explanation =
	    ct_death_quote("its last lines on standard error say so", ct_node_str(o, "text"));
	/* the probe's last figures; the message's own limit (PyTorch's share) may be all known */
	if (!strcmp(verdict, "limit_reached") && pool)
		f->explanation = with_limit(f->explanation, pool);
	figures = said_sites(fw, pid, framework);
	if (*figures) {
		char *with = g_strconcat(f->explanation, figures, NULL);

		g_free(f->explanation);
		f->explanation = with;
	}
	g_free(figures);
	/* the message's: NVML's list comes at the uncaught exception, after it */
	holders = holders_at(frag, pid, device, ct_node_i64(o, "time_ns"), INT64_MAX);
	f->explanation = with_holders(f->explanation, holders);
	f->advice =
	    ct_framework_oom_advice(framework, verdict, ct_pool_start_of(pool), alone(holders));
	numbers_from(f, o, said_numbers);
	f->source = g_strdup("last_words.out_of_memory");
	f->order = number_of(o, "time_ns");
}

/* ------------------------------------------------- growth that filled it */

/* A growing site that held this share of its device's peak at the end filled the device. */
#define GROWTH_FILLS_SHARE 0.5

/*
 * The growing site of process PID on DEVICE (-1: any) of M that had begun
 * to grow by TIME_NS and held at the end at least GROWTH_FILLS_SHARE of
 * the device's peak, the one that held the most; NULL if none.
 */
static const struct ct_memory_growing_site *
filling_growth(const struct ct_memory_result *m, int64_t pid, int64_t device, int64_t time_ns)
{
	const struct ct_memory_growing_site *best = NULL;

	for (guint i = 0; i < m->growing_sites->len; i++) {
		const struct ct_memory_growing_site *s =
		    &g_array_index(m->growing_sites, struct ct_memory_growing_site, i);

		if (s->pid == pid && (device < 0 || s->device == device) &&
		    s->first_ns <= time_ns && s->peak_share >= GROWTH_FILLS_SHARE &&
		    (!best || s->held_at_end_bytes > best->held_at_end_bytes))
			best = s;
	}
	return best;
}

/* F's where at KEY as a signed integer into *OUT; false when it has none. */
static bool where_i64(const struct finding *f, enum where_key key, int64_t *out)
{
	if (f->where[key].type == CT_NODE_I64)
		*out = f->where[key].v.i64;
	else if (f->where[key].type == CT_NODE_U64 && f->where[key].v.u64 <= INT64_MAX)
		*out = (int64_t)f->where[key].v.u64;
	else
		return false;
	return true;
}

/*
 * A device full, or a pool in pieces, because memory grew step after
 * step until there was no room: the out-of-memory failure names that
 * growth, and what to do begins with it. A larger pool, another setting
 * or freeing what is cached only postpones such a failure.
 */
static void tell_filling_growth(GArray *list, const struct ct_memory_result *m)
{
	for (guint i = 0; i < list->len; i++) {
		struct finding *f = &g_array_index(list, struct finding, i);
		const struct ct_memory_growing_site *s;
		int64_t pid, device;
		char held[32], step[32];
		char *text;

		if ((strcmp(f->kind, "allocation_failure") && strcmp(f->kind, "framework_oom")) ||
		    (g_strcmp0(f->verdict, "out_of_memory") &&
		     g_strcmp0(f->verdict, "fragmented") &&
		     g_strcmp0(f->verdict, "limit_reached")) ||
		    !where_i64(f, WHERE_PID, &pid))
			continue;
		if (!where_i64(f, WHERE_DEVICE, &device))
			device = -1;
		s = filling_growth(m, pid, device, (int64_t)f->order);
		if (!s)
			continue;
		/* "each time" is a new high, not a step: a caching allocator
		 * takes its memory in segments, a few steps' worth at once */
		text = g_strdup_printf(
		    "%s; memory allocated at %s grew step after step, %s more at each of "
		    "%" PRIu64 " new highs, "
		    "to %s by the end (%.0f %% of the device's peak): that growth left no room",
		    f->explanation ? f->explanation : "", s->site,
		    bytes_text((double)s->growth_per_rise_bytes, step, sizeof(step)), s->rises,
		    bytes_text((double)s->held_at_end_bytes, held, sizeof(held)),
		    s->peak_share * 100.0);
		g_free(f->explanation);
		f->explanation = text;
		text = g_strdup_printf(
		    "first stop what keeps the memory allocated at %s from one step "
		    "to the next: more room only postpones this failure; then %s",
		    s->site, f->advice ? f->advice : "");
		g_free(f->advice);
		f->advice = text;
	}
}

/*
 * The share of what a process held at an out-of-memory failure that one
 * site must hold for the failure to name it: less is no answer to "what
 * holds the memory".
 */
#define HOLDER_MIN_SHARE 0.25

/*
 * The holder named at the failure finding F tells (memory.failures[].holder):
 * an allocation failure's own; for a framework's out-of-memory error, the
 * one at the last refusal of the driver that was part of it (its process
 * and device, at most FRAMEWORK_OOM_WINDOW_NS before it). NULL if none.
 */
static const struct ct_memory_holder *holder_of(const struct ct_memory_result *m,
                                                const struct finding *f)
{
	const struct ct_memory_holder *best = NULL;
	int64_t pid, device, time_ns = (int64_t)f->order;

	if (f->failure)
		return ct_memory_holder_at(m, f->failure->pid, f->failure->device,
		                           f->failure->time_ns);
	if (!where_i64(f, WHERE_PID, &pid) || !where_i64(f, WHERE_DEVICE, &device))
		return NULL;
	for (guint i = 0; i < m->holders->len; i++) {
		const struct ct_memory_holder *h =
		    &g_array_index(m->holders, struct ct_memory_holder, i);

		if (h->pid == pid && h->device == device && h->failure_ns <= time_ns &&
		    h->failure_ns >= time_ns - FRAMEWORK_OOM_WINDOW_NS)
			best = h;
	}
	return best;
}

/*
 * A device full of the process's own memory: the failure names the site
 * that held the most of it then, and what to do begins there. A growth
 * that filled the device is told instead. A framework's pool is what its
 * allocator had from the driver: the site is where the driver gave it,
 * which the tensors in it now need not be.
 */
static void tell_holder(GArray *list, const struct ct_memory_result *m)
{
	for (guint i = 0; i < list->len; i++) {
		struct finding *f = &g_array_index(list, struct finding, i);
		bool framework = !strcmp(f->kind, "framework_oom");
		const struct ct_memory_holder *h;
		char held[32];
		char *text;

		if ((strcmp(f->kind, "allocation_failure") && !framework) ||
		    g_strcmp0(f->verdict, "out_of_memory") || !(h = holder_of(m, f)) ||
		    (double)h->bytes < HOLDER_MIN_SHARE * (double)h->process_bytes ||
		    filling_growth(m, h->pid, h->device, h->failure_ns))
			continue;
		bytes_text((double)h->bytes, held, sizeof(held));
		text =
		    g_strdup_printf(framework ? "%s; the most of its pool, %s, came from %" PRIu64
		                                " driver allocation%s made at %s"
		                              : "%s; the most of it, %s, was held by %" PRIu64
		                                " allocation%s made at %s",
		                    f->explanation ? f->explanation : "", held, h->count,
		                    h->count == 1 ? "" : "s", h->site);
		g_free(f->explanation);
		f->explanation = text;
		text = g_strdup_printf("first see whether the %s allocated at %s is still needed "
		                       "here; then %s",
		                       held, h->site, f->advice ? f->advice : "");
		g_free(f->advice);
		f->advice = text;
	}
}

/* ------------------------------------------------------- how it ended */

/*
 * How the program ended, from the "process_end" section (what `cudatrace
 * record` judged and wrote beside the trace): the judgement is record's
 * (its cause), the words are death.c's, from the facts of the section
 * and of the report, as record's own words are. A death that another
 * finding already tells (a sticky error, a failed allocation) is added to
 * that finding instead of told twice.
 */

static const char *const host_oom_numbers[] = { "rss_peak_bytes", "anon_peak_bytes",
	                                        "rss_last_bytes", "limit_bytes",
	                                        "oom_kills",      NULL };

/* A count the notes may not know: -1 when null. */
static int count_of(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = at(object, key);

	if (!n || (n->type != CT_NODE_U64 && n->type != CT_NODE_I64))
		return -1;
	return (int)MIN(ct_node_u64(object, key), (uint64_t)INT_MAX);
}

/* The facts of process_end PE, and of the report ROOT, for death.c. */
static void death_facts(const struct ct_node *root, const struct ct_result *results, size_t count,
                        const struct ct_node *pe, GArray *list, struct ct_death_facts *f)
{
	const struct ct_node *host = at(pe, "host_memory");
	const struct ct_node *logged = at(host, "oom_in_kernel_log");
	const struct ct_node *signal = at(pe, "signal");
	bool killed = signal && (signal->type == CT_NODE_I64 || signal->type == CT_NODE_U64);

	*f = (struct ct_death_facts){
		.program = ct_node_str(pe, "program"),
		.killed = killed,
		.status = killed ? 0 : (int)number_of(pe, "exit_status"),
		.signal = killed ? (int)number_of(pe, "signal") : 0,
		.oom_kills = count_of(host, "oom_kills"),
		.oom_logged = logged && logged->type == CT_NODE_BOOL ? logged->value.boolean : -1,
		.cgroup = ct_node_str(host, "cgroup"),
		.rss_last_bytes = ct_node_u64(host, "rss_last_bytes"),
		.rss_peak_bytes = ct_node_u64(host, "rss_peak_bytes"),
		.anon_peak_bytes = ct_node_u64(host, "anon_peak_bytes"),
		.limit_bytes = ct_node_u64(host, "limit_bytes"),
		.limit_cgroup = !g_strcmp0(ct_node_str(host, "limit_of"), "cgroup"),
		.cuda_error = ct_node_str(pe, "cuda_error"),
		.cuda_error_api = ct_node_str(pe, "cuda_error_api"),
		.gpu_failed_bytes = ct_node_u64(pe, "gpu_failed_bytes"),
		.gpu_verdict = ct_node_str(pe, "gpu_verdict"),
		.exception = ct_node_str(pe, "exception"),
		.exception_site = ct_node_str(pe, "exception_site"),
		.exception_message = ct_node_str(pe, "exception_message"),
		.framework = ct_node_str(pe, "framework_oom"),
		.framework_requested_bytes = ct_node_u64(pe, "framework_oom_bytes"),
	};
	ct_death_facts_from_report(root, ct_node_i64(pe, "pid"), f);
	ct_death_facts_from_results(results, count, ct_node_i64(pe, "pid"), f);
	for (guint i = 0; i < list->len; i++)
		f->failures_told |= g_array_index(list, struct finding, i).severity == SEV_CRITICAL;
}

/* The first finding of KIND in LIST that MATCHES OBJECT, a section's. */
static struct finding *told_by(GArray *list, const char *kind, const struct ct_node *object,
                               bool (*matches)(const struct finding *, const struct ct_node *))
{
	for (guint i = 0; object && i < list->len; i++) {
		struct finding *f = &g_array_index(list, struct finding, i);

		if (!strcmp(f->kind, kind) && matches(f, object))
			return f;
	}
	return NULL;
}

static bool about_node(const struct finding *f, const struct ct_node *object)
{
	return f->object == object;
}

/* The first finding of KIND in LIST about a failure alike to FAILURE (same_failure). */
static struct finding *told_failure(GArray *list, const char *kind,
                                    const struct ct_frag_failure *failure)
{
	for (guint i = 0; failure && i < list->len; i++) {
		struct finding *f = &g_array_index(list, struct finding, i);

		if (!strcmp(f->kind, kind) && f->failure && same_failure(f->failure, failure))
			return f;
	}
	return NULL;
}

/* Whether F is about process OBJECT's pid. */
static bool about_pid(const struct finding *f, const struct ct_node *object)
{
	const struct value *pid = &f->where[WHERE_PID];

	if (pid->type == CT_NODE_I64)
		return pid->v.i64 == ct_node_i64(object, "pid");
	return pid->type == CT_NODE_U64 && pid->v.u64 == ct_node_u64(object, "pid");
}

/* A finding's string at KEY of its where, NULL if none. */
static const char *where_str(const struct finding *f, enum where_key key)
{
	return f->where[key].type == CT_NODE_STRING ? f->where[key].v.str : NULL;
}

/* Whether sticky error finding F tells the error record judged the program died of (PE). */
static bool is_fatal_sticky(const struct finding *f, const struct ct_node *pe)
{
	return !g_strcmp0(f->verdict, ct_node_str(pe, "cuda_error")) &&
	       !g_strcmp0(where_str(f, WHERE_API), ct_node_str(pe, "cuda_error_api"));
}

/*
 * The failure record judged the program died of (PE): the last of FRAG's
 * failures (NULL: none), of the size and verdict PE gives. NULL if none.
 */
static const struct ct_frag_failure *fatal_failure(const struct ct_fragmentation_result *frag,
                                                   const struct ct_node *pe)
{
	for (guint i = frag ? frag->failures->len : 0; i-- > 0;) {
		const struct ct_frag_failure *f =
		    &g_array_index(frag->failures, struct ct_frag_failure, i);

		if (f->requested_bytes == ct_node_u64(pe, "gpu_failed_bytes") &&
		    !g_strcmp0(text_of(f->verdict), ct_node_str(pe, "gpu_verdict")))
			return f;
	}
	return NULL;
}

/* The finding of a death no other finding tells, in death.c's WORDS. */
static void add_death(GArray *list, const struct ct_node *pe, enum ct_death death,
                      struct ct_death_words *w)
{
	struct finding *f = finding_add(list, SEV_CRITICAL, "process_death", pe);

	f->verdict = ct_death_name(death);
	f->death = f->verdict;
	/* an end of unknown cause follows what the trace saw go wrong, which may be why */
	f->leads = death != CT_DEATH_UNKNOWN;
	f->order = f->leads ? 0 : INFINITY;
	f->source = g_strdup("process_end");
	f->summary = g_steal_pointer(&w->summary);
	f->explanation = g_steal_pointer(&w->explanation);
	f->advice = g_steal_pointer(&w->advice);
	if (w->caveat)
		finding_caveat(f, w->certainty, w->caveat);
	if (death == CT_DEATH_HOST_OOM)
		numbers_from(f, at(pe, "host_memory"), host_oom_numbers);
}

/*
 * How the program ended, when it ended badly: the finding that tells what
 * killed it is marked so (a sticky error, a failed allocation), with how
 * it ended after it, or one of its own is added.
 */
static void find_death(GArray *list, const struct ct_node *root, const struct ct_result *results,
                       size_t count)
{
	const struct ct_fragmentation_result *frag =
	    ct_result_of(results, count, CT_ANALYSIS_FRAGMENTATION);
	const struct ct_node *pe = at(root, "process_end");
	enum ct_death death = ct_death_of_name(ct_node_str(pe, "cause"));
	struct ct_death_facts facts;
	struct ct_death_words words;
	struct finding *f = NULL;

	if (death == CT_DEATH_NOT_JUDGED || death == CT_DEATH_NONE)
		return;
	death_facts(root, results, count, pe, list, &facts);
	ct_death_word(death, &facts, &words);
	if (death == CT_DEATH_CUDA_ERROR)
		f = told_by(list, "sticky_error", pe, is_fatal_sticky);
	else if (death == CT_DEATH_GPU_OOM) {
		const struct ct_frag_failure *fatal = fatal_failure(frag, pe);

		/* a framework's error the failure was part of tells it */
		f = told_failure(list, "allocation_failure", fatal);
		if (!f)
			f = told_failure(list, "framework_oom", fatal);
	} else if (death == CT_DEATH_FRAMEWORK_OOM) {
		/* the message's finding, or the probe's of the process when it saw the error */
		f = told_by(list, "framework_oom", at(root, "last_words"), about_node);
		if (!f)
			f = told_by(list, "framework_oom", pe, about_pid);
	}
	if (f) {
		char *summary = f->summary;

		f->death = ct_death_name(death);
		f->leads = true;
		f->summary = g_strdup_printf("%s; %s", summary, words.then);
		g_free(summary);
	} else {
		add_death(list, pe, death, &words);
	}
	ct_death_words_clear(&words);
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

static void write_value(struct ct_doc *doc, const char *key, const struct value *value)
{
	switch (value->type) {
	case CT_NODE_U64:
		ct_doc_u64(doc, key, value->v.u64, value->unit);
		break;
	case CT_NODE_I64:
		ct_doc_i64(doc, key, value->v.i64, value->unit);
		break;
	case CT_NODE_DOUBLE:
		ct_doc_double(doc, key, value->v.dbl, value->unit);
		break;
	case CT_NODE_STRING:
		ct_doc_string(doc, key, value->v.str);
		break;
	case CT_NODE_BOOL:
		ct_doc_bool(doc, key, value->v.boolean);
		break;
	default:
		ct_doc_null(doc, key);
		break;
	}
}

/* Where: what the finding knows of it, null for the rest. */
static void write_where(struct ct_doc *doc, const struct value *where)
{
	ct_doc_object(doc, "where", "Where");
	for (size_t i = 0; i < WHERE_KEYS; i++)
		write_value(doc, where_names[i], &where[i]);
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
		write_value(doc, f->numbers[i].key, &f->numbers[i].value);
	ct_doc_end(doc);
	ct_doc_string(doc, "source", f->source);
	ct_doc_end(doc);
}

static void read_losses(const struct ct_node *root, struct losses *l)
{
	const struct ct_node *trace = at(root, "trace");

	l->discarded =
	    ct_node_u64(trace, "discarded_events") + ct_node_u64(trace, "discarded_packets");
	l->dropped = ct_node_u64(trace, "dropped_records");
	l->complete = !at(trace, "complete") || bool_of(trace, "complete");
}

void ct_findings_write(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	const struct ct_node *root = ct_doc_root(doc);
	const struct ct_transfers_result *transfers =
	    ct_result_of(results, count, CT_ANALYSIS_TRANSFERS);
	const struct ct_cuda_errors_result *errors =
	    ct_result_of(results, count, CT_ANALYSIS_CUDA_ERRORS);
	const struct ct_cells_result *cells = ct_result_of(results, count, CT_ANALYSIS_CELLS);
	const struct ct_memory_result *memory = ct_result_of(results, count, CT_ANALYSIS_MEMORY);
	const struct ct_framework_result *framework =
	    ct_result_of(results, count, CT_ANALYSIS_FRAMEWORK);
	const struct ct_fragmentation_result *frag =
	    ct_result_of(results, count, CT_ANALYSIS_FRAGMENTATION);
	const struct ct_environment_result *environment =
	    ct_result_of(results, count, CT_ANALYSIS_ENVIRONMENT);
	const struct ct_api_result *api = ct_result_of(results, count, CT_ANALYSIS_API);
	GArray *list;
	struct losses losses = { 0 };

	if (!root)
		return;
	list = g_array_new(FALSE, TRUE, sizeof(struct finding));
	g_array_set_clear_func(list, finding_clear);
	read_losses(root, &losses);
	if (frag)
		find_failures(list, frag, framework, errors, &losses);
	if (memory) {
		find_growth(list, memory, &losses);
		find_site_growth(list, memory, &losses);
		find_leaks(list, root, memory, framework, &losses);
	}
	if (transfers)
		find_copies(list, transfers, &losses,
		            ct_node_u64(at(root, "trace"), "duration_ns"));
	if (environment)
		find_compatibility(list, environment);
	if (framework)
		find_framework(list, framework, frag);
	if (errors)
		find_sticky(list, errors, &losses);
	if (api)
		find_open_waits(list, api, root);
	if (cells)
		find_cell_errors(list, cells);
	find_said_oom(list, root, framework, frag);
	find_gpu_unused(list, root, framework);
	/* before the death's words: it orders the finding it joins first */
	if (memory) {
		tell_filling_growth(list, memory);
		tell_holder(list, memory);
	}
	find_death(list, root, results, count);
	/* stable: equal findings keep the order their section gave them */
	g_array_sort(list, by_rank);
	ct_doc_array(doc, "findings", "Findings, most severe first");
	for (guint i = 0; i < list->len; i++)
		write_finding(doc, &g_array_index(list, struct finding, i), i + 1);
	ct_doc_end(doc);
	g_array_unref(list);
}
