/* SPDX-License-Identifier: MIT */
/*
 * api.c - the API analysis: per CUDA call (driver or runtime, by CUPTI
 * callback id) the number of calls, their host time from entry to exit
 * (total, mean, median, min, max), the errors they returned by code, and
 * the waits still open when the trace ends (a process killed inside
 * cudaDeviceSynchronize shows here).
 *
 * Calls are read in the pass (api-calls.h): the event that records a call
 * (an api_call, or its semantic event) comes with it.
 *
 * A call longer than a year (CT_IMPLAUSIBLE_NS) has a damaged time (a
 * flipped bit in its event's timestamp makes it centuries long): it is
 * counted as implausible, left out of the statistics, and said once.
 * Sums saturate (saturate.h).
 *
 * Memory: one row per distinct API with bounded statistics (stats.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "api.h"
#include "common/cuda-error-names.h"
#include "common/log.h"
#include "common/memo.h"
#include "common/saturate.h"
#include "common/stats.h"
#include "model/api-calls.h"

/* Distinct error codes kept per API; more are only counted. */
#define CODES_KEPT 8

struct error_count {
	int32_t code;
	uint64_t count;
};

/* One API: (domain, cbid). */
struct api_row {
	uint8_t domain;
	uint16_t cbid;
	struct ct_process *process; /* borrowed: the first that called it, for its name */
	struct ct_stat time;        /* host time of the calls that returned; owned */
	uint64_t returned;          /* calls recorded: they returned */
	uint64_t implausible;       /* of those, the ones whose host time is damaged */
	uint64_t errors;            /* calls that returned non-zero */
	struct error_count codes[CODES_KEPT];
	uint32_t code_count;
	uint64_t other_codes; /* errors whose code did not fit in codes */
	uint64_t open_at_end; /* calls entered and never returned */
	int64_t longest_open_ns;
};

struct api {
	struct ct_api_result result;   /* first: the result is the analysis (api_result) */
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	GPtrArray *rows;               /* struct api_row, in order of first call; owned */
	GHashTable *by_api;            /* (domain << 16 | cbid) -> its row; borrowed */
	/* The rows looked up last: a loop calls a few APIs over and over. */
	struct ct_memo rows_found;
	GStringChunk *strings; /* the open waits' names and sites */
	int64_t end_ns;
};

static const char *domain_name(unsigned domain)
{
	switch (domain) {
	case CT_DOMAIN_DRIVER:
		return "driver";
	case CT_DOMAIN_RUNTIME:
		return "runtime";
	default:
		return "other";
	}
}

/* ------------------------------------------------------------- state */

static struct api_row *row_at(const struct api *a, guint i)
{
	return g_ptr_array_index(a->rows, i);
}

static void row_free(gpointer data)
{
	struct api_row *row = data;

	ct_stat_release(&row->time);
	g_free(row);
}

/* The row of (DOMAIN, CBID), created on first use; NULL when it is not an API. */
static struct api_row *row_of(struct api *a, unsigned domain, unsigned cbid,
                              struct ct_process *process)
{
	gpointer key = GUINT_TO_POINTER(domain << 16 | (cbid & UINT16_MAX));
	struct api_row *row;

	if (domain != CT_DOMAIN_DRIVER && domain != CT_DOMAIN_RUNTIME)
		return NULL;
	if ((row = ct_memo_find(&a->rows_found, GPOINTER_TO_UINT(key))))
		return row;
	row = g_hash_table_lookup(a->by_api, key);
	if (!row) {
		row = g_new0(struct api_row, 1);
		row->domain = (uint8_t)domain;
		row->cbid = (uint16_t)cbid;
		row->process = process;
		g_ptr_array_add(a->rows, row);
		g_hash_table_insert(a->by_api, key, row);
	}
	ct_memo_keep(&a->rows_found, GPOINTER_TO_UINT(key), row);
	return row;
}

/* ------------------------------------------------------------ events */

static void count_error(struct api_row *row, int32_t code)
{
	row->errors++;
	for (uint32_t i = 0; i < row->code_count; i++) {
		if (row->codes[i].code == code) {
			row->codes[i].count++;
			return;
		}
	}
	if (row->code_count == CODES_KEPT) {
		row->other_codes++;
		return;
	}
	row->codes[row->code_count++] = (struct error_count){ code, 1 };
}

static void on_call(struct api *a, const struct ct_event *ev)
{
	const struct ct_api_call *call = &ev->call;
	struct api_row *row = row_of(a, call->domain, call->cbid, ev->process);
	int64_t duration;

	if (!row)
		return;
	row->returned++;
	if (call->result != 0)
		count_error(row, call->result);
	duration = ct_sat_sub(call->exit_ns, call->entry_ns);
	if (duration > CT_IMPLAUSIBLE_NS)
		row->implausible++;
	else
		ct_stat_add(&row->time, duration);
}

static void api_event(void *state, const struct ct_event *ev)
{
	struct api *a = state;

	if (ev->has_call)
		on_call(a, ev);
}

/* THREAD's outermost open wait OPEN, for the diagnosis. */
static void add_open_wait(struct api *a, struct ct_thread *thread, const struct ct_open_call *open)
{
	struct ct_process *process = thread->process;
	const char *api = ct_context_api_name(process, open->call.domain, open->call.cbid);
	struct ct_api_ref ref = { .domain = open->call.domain, .cbid = open->call.cbid };
	char site[1024];
	struct ct_api_open_wait wait = {
		.pid = process->pid,
		.process = g_string_chunk_insert_const(a->strings, process->procname),
		.tid = thread->tid,
		.api = api ? g_string_chunk_insert_const(a->strings, api) : NULL,
		.entry_ns = open->call.entry_ns,
		.open_ns = ct_sat_sub(process->last_ns, open->call.entry_ns),
		.process_ns = ct_sat_sub(process->last_ns, process->first_ns),
	};

	ct_call_site_format(a->ctx, process, open->path, &ref, open->stack_id, site, sizeof(site));
	if (site[0])
		wait.site = g_string_chunk_insert_const(a->strings, site);
	g_array_append_val(a->result.open_waits, wait);
}

/* Calls still open at the end: the process died (or the trace stopped) inside them. */
static void count_open_calls(struct ct_thread *thread, void *data)
{
	struct api *a = data;
	size_t count;
	const struct ct_open_call *calls = ct_api_calls_open(thread, &count);

	if (count)
		add_open_wait(a, thread, &calls[0]);
	for (size_t i = 0; i < count; i++) {
		const struct ct_api_call *call = &calls[i].call;
		struct api_row *row = row_of(a, call->domain, call->cbid, thread->process);

		if (!row)
			continue;
		row->open_at_end++;
		if (ct_sat_sub(a->end_ns, call->entry_ns) > row->longest_open_ns)
			row->longest_open_ns = ct_sat_sub(a->end_ns, call->entry_ns);
	}
}

static gint by_open_time(gconstpointer pa, gconstpointer pb)
{
	const struct ct_api_open_wait *a = pa, *b = pb;

	if (a->open_ns != b->open_ns)
		return a->open_ns < b->open_ns ? 1 : -1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static enum ct_analysis_status api_finish(void *state, int64_t end_ns)
{
	struct api *a = state;

	a->end_ns = end_ns;
	ct_context_foreach_thread(a->ctx, count_open_calls, a);
	g_array_sort(a->result.open_waits, by_open_time);
	return CT_ANALYSIS_OK;
}

/* ------------------------------------------------------------ report */

static int by_total_time(const void *pa, const void *pb, void *data)
{
	const struct api *a = data;
	const struct api_row *x = row_at(a, *(const uint32_t *)pa);
	const struct api_row *y = row_at(a, *(const uint32_t *)pb);

	if (x->time.sum != y->time.sum)
		return x->time.sum < y->time.sum ? 1 : -1;
	if (x->returned != y->returned)
		return x->returned < y->returned ? 1 : -1;
	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	return x->cbid < y->cbid ? -1 : x->cbid > y->cbid;
}

static void write_errors(struct ct_doc *doc, const struct api_row *row)
{
	ct_doc_array(doc, "error_codes", "Errors by code");
	for (uint32_t i = 0; i < row->code_count; i++) {
		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "code", row->codes[i].code, CT_UNIT_ID);
		ct_doc_string(doc, "error", ct_cuda_error_name(row->domain, row->codes[i].code));
		ct_doc_u64(doc, "count", row->codes[i].count, CT_UNIT_NONE);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_row(struct ct_doc *doc, const struct api_row *row, int64_t total_ns)
{
	const char *name = ct_context_api_name(row->process, row->domain, row->cbid);
	char unknown[32];

	if (!name) {
		snprintf(unknown, sizeof(unknown), "%s#%u", domain_name(row->domain), row->cbid);
		name = unknown;
	}
	ct_doc_object(doc, NULL, NULL);
	ct_doc_string(doc, "name", name);
	ct_doc_string(doc, "domain", domain_name(row->domain));
	ct_doc_u64(doc, "cbid", row->cbid, CT_UNIT_ID);
	ct_doc_u64(doc, "calls", row->returned + row->open_at_end, CT_UNIT_NONE);
	ct_stat_write(doc, "", &row->time, CT_UNIT_DURATION);
	ct_doc_ratio(doc, "time_share", (double)row->time.sum, (double)total_ns);
	ct_doc_u64(doc, "errors", row->errors, CT_UNIT_NONE);
	ct_doc_u64(doc, "other_error_codes", row->other_codes, CT_UNIT_NONE);
	ct_doc_u64(doc, "implausible_calls", row->implausible, CT_UNIT_NONE);
	ct_doc_u64(doc, "open_at_end", row->open_at_end, CT_UNIT_NONE);
	if (row->open_at_end)
		ct_doc_i64(doc, "longest_open_ns", row->longest_open_ns, CT_UNIT_DURATION);
	else
		ct_doc_null(doc, "longest_open_ns");
	write_errors(doc, row);
	ct_doc_end(doc);
}

/* The analysis is its own result (its first member): the section is written from its rows. */
static enum ct_analysis_status api_result(void *state, const void **result)
{
	struct api *a = state;

	*result = &a->result;
	return CT_ANALYSIS_OK;
}

static void write_open_waits(struct ct_doc *doc, const GArray *waits)
{
	ct_doc_array(doc, "open_waits", "Waits entered and never returned from");
	for (guint i = 0; i < waits->len; i++) {
		const struct ct_api_open_wait *w =
		    &g_array_index(waits, struct ct_api_open_wait, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", w->pid, CT_UNIT_ID);
		ct_doc_string(doc, "process", w->process);
		ct_doc_i64(doc, "tid", w->tid, CT_UNIT_ID);
		ct_doc_string(doc, "api", w->api);
		ct_doc_string(doc, "site", w->site);
		ct_doc_i64(doc, "entry_ns", w->entry_ns, CT_UNIT_TIME);
		ct_doc_i64(doc, "open_ns", w->open_ns, CT_UNIT_DURATION);
		ct_doc_i64(doc, "process_ns", w->process_ns, CT_UNIT_DURATION);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	const struct api *a = ct_result_of(results, count, CT_ANALYSIS_API);
	uint32_t *order = ct_analysis_rank(a->rows->len, by_total_time, (void *)a);
	int64_t total_ns = 0;
	uint64_t implausible = 0;
	size_t shown;

	for (guint r = 0; r < a->rows->len; r++) {
		total_ns = ct_sat_add(total_ns, row_at(a, r)->time.sum);
		implausible += row_at(a, r)->implausible;
	}
	if (implausible)
		ct_log_warning(
		    "API calls that returned after more than a year, a damaged time: %" PRIu64
		    ", left out of the API table (implausible_calls)",
		    implausible);
	shown = a->rows->len < a->opts->max_rows ? a->rows->len : a->opts->max_rows;
	ct_doc_array(doc, "api", "API calls, by total host time");
	for (size_t i = 0; i < shown; i++)
		write_row(doc, row_at(a, order[i]), total_ns);
	ct_doc_end(doc);
	write_open_waits(doc, a->result.open_waits);
	g_free(order);
}

const struct ct_section_class ct_api_section = {
	.name = "api",
	.write = write_section,
};

/* --------------------------------------------------------- lifecycle */

static enum ct_analysis_status api_create(struct ct_context *ctx, const struct ct_options *opts,
                                          void **state)
{
	struct api *a = g_new0(struct api, 1);

	*state = a;
	a->rows = g_ptr_array_new_with_free_func(row_free);
	a->by_api = g_hash_table_new(g_direct_hash, g_direct_equal);
	a->result.open_waits = g_array_new(FALSE, FALSE, sizeof(struct ct_api_open_wait));
	a->strings = g_string_chunk_new(1024);
	a->ctx = ctx;
	a->opts = opts;
	return CT_ANALYSIS_OK;
}

static void api_destroy(void *state)
{
	struct api *a = state;

	if (!a)
		return;
	g_hash_table_destroy(a->by_api);
	g_ptr_array_free(a->rows, TRUE);
	g_array_unref(a->result.open_waits);
	g_string_chunk_free(a->strings);
	g_free(a);
}

const struct ct_analysis_class ct_api_analysis = {
	.name = "api",
	.id = CT_ANALYSIS_API,
	.section = &ct_api_section,
	.wants = CT_API_CALLS_EVENTS,
	.uses = CT_SHARED_API_CALLS,
	.create = api_create,
	.event = api_event,
	.finish = api_finish,
	.result = api_result,
	.destroy = api_destroy,
};
