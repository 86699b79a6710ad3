/* SPDX-License-Identifier: MIT */
/*
 * host-memory.c - the host memory analysis (host-memory.h) and its
 * section, "host_memory": per process the last and highest resident
 * memory and the limit, and the resident memory over time.
 *
 * Memory: one entry per process that has samples, each with a series of
 * a fixed number of buckets (series.h).
 */
#include "analysis.h"
#include "host-memory.h"
#include "common/saturate.h"

struct host_memory {
	struct ct_host_memory_result result;
	const struct ct_options *opts; /* borrowed */
	int slot;                      /* per process: 1 + the index of its entry, 0 none */
};

static struct ct_host_memory_process *process_of(struct host_memory *h, struct ct_process *p)
{
	uintptr_t index = (uintptr_t)p->slot[h->slot];
	struct ct_host_memory_process entry = { 0 };

	if (index)
		return &g_array_index(h->result.processes, struct ct_host_memory_process,
		                      index - 1);
	entry.pid = p->pid;
	entry.process = g_string_chunk_insert_const(h->result.strings, p->procname);
	ct_series_init(&entry.rss, h->opts->series_points);
	g_array_append_val(h->result.processes, entry);
	p->slot[h->slot] = (void *)(uintptr_t)h->result.processes->len;
	return &g_array_index(h->result.processes, struct ct_host_memory_process,
	                      h->result.processes->len - 1);
}

static void on_sample(struct host_memory *h, const struct ct_event *ev)
{
	const struct ct_ev_host_memory *e = &ev->u.host_memory;
	struct ct_host_memory_process *p;

	if (ev->before_window)
		return;
	p = process_of(h, ev->process);
	if (!p->samples)
		p->first_ns = ev->time_ns;
	p->samples++;
	p->last_ns = ev->time_ns;
	p->rss_last_bytes = e->rss;
	/* The high water mark only rises; the resident memory seen is one too. */
	if (e->rss_peak > p->rss_peak_bytes)
		p->rss_peak_bytes = e->rss_peak;
	if (e->rss > p->rss_peak_bytes)
		p->rss_peak_bytes = e->rss;
	p->limit_bytes = e->limit;
	p->limit_of = e->limit_of;
	ct_series_add(&p->rss, ev->time_ns, ct_sat_i64(e->rss));
}

static void host_memory_event(void *state, const struct ct_event *ev)
{
	if (ev->type == CT_EV_HOST_MEMORY)
		on_sample(state, ev);
}

static enum ct_analysis_status host_memory_finish(void *state, int64_t end_ns)
{
	(void)state;
	(void)end_ns;
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status host_memory_result(void *state, const void **result)
{
	struct host_memory *h = state;

	*result = &h->result;
	return CT_ANALYSIS_OK;
}

static void write_process(struct ct_doc *doc, const struct ct_host_memory_process *p)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", p->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", p->process);
	ct_doc_u64(doc, "samples", p->samples, CT_UNIT_NONE);
	ct_doc_i64(doc, "first_time_ns", p->first_ns, CT_UNIT_TIME);
	ct_doc_i64(doc, "last_time_ns", p->last_ns, CT_UNIT_TIME);
	ct_doc_u64(doc, "rss_last_bytes", p->rss_last_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "rss_peak_bytes", p->rss_peak_bytes, CT_UNIT_BYTES);
	if (p->limit_of == CT_HOST_LIMIT_UNKNOWN || !p->limit_bytes) {
		ct_doc_null(doc, "limit_bytes");
		ct_doc_null(doc, "limit_of");
		ct_doc_null(doc, "peak_share_of_limit");
	} else {
		ct_doc_u64(doc, "limit_bytes", p->limit_bytes, CT_UNIT_BYTES);
		ct_doc_string(doc, "limit_of", ct_host_limit_label(p->limit_of));
		ct_doc_ratio(doc, "peak_share_of_limit", (double)p->rss_peak_bytes,
		             (double)p->limit_bytes);
	}
	ct_doc_end(doc);
}

static void write_timeline(struct ct_doc *doc, const struct ct_host_memory_result *r)
{
	ct_doc_array(doc, "timeline", "Resident host memory over time");
	for (guint i = 0; i < r->processes->len; i++) {
		const struct ct_host_memory_process *p =
		    &g_array_index(r->processes, struct ct_host_memory_process, i);

		for (size_t j = 0; j < p->rss.points->len; j++) {
			const struct ct_series_point *pt = ct_series_at(&p->rss, j);

			ct_doc_object(doc, NULL, NULL);
			ct_doc_i64(doc, "pid", p->pid, CT_UNIT_ID);
			ct_doc_i64(doc, "time_ns", pt->time_ns, CT_UNIT_TIME);
			ct_doc_i64(doc, "rss_bytes", pt->last, CT_UNIT_BYTES);
			ct_doc_i64(doc, "min_rss_bytes", pt->min, CT_UNIT_BYTES);
			ct_doc_i64(doc, "max_rss_bytes", pt->max, CT_UNIT_BYTES);
			ct_doc_end(doc);
		}
	}
	ct_doc_end(doc);
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	const struct ct_host_memory_result *r =
	    ct_result_of(results, count, CT_ANALYSIS_HOST_MEMORY);

	ct_doc_object(doc, "host_memory", "Host memory (resident, sampled by the tracer)");
	ct_doc_array(doc, "processes", "By process");
	for (guint i = 0; i < r->processes->len; i++)
		write_process(doc, &g_array_index(r->processes, struct ct_host_memory_process, i));
	ct_doc_end(doc);
	write_timeline(doc, r);
	ct_doc_end(doc);
}

const struct ct_section_class ct_host_memory_section = {
	.name = "host_memory",
	.write = write_section,
};

static enum ct_analysis_status host_memory_create(struct ct_context *ctx,
                                                  const struct ct_options *opts, void **state)
{
	struct host_memory *h = g_new0(struct host_memory, 1);

	*state = h;
	h->opts = opts;
	h->result.processes = g_array_new(FALSE, TRUE, sizeof(struct ct_host_memory_process));
	h->result.strings = g_string_chunk_new(256);
	h->slot = ct_analysis_slot(ctx);
	return h->slot < 0 ? CT_ANALYSIS_NO_SLOT : CT_ANALYSIS_OK;
}

static void host_memory_destroy(void *state)
{
	struct host_memory *h = state;

	if (!h)
		return;
	for (guint i = 0; i < h->result.processes->len; i++)
		ct_series_release(
		    &g_array_index(h->result.processes, struct ct_host_memory_process, i).rss);
	g_array_free(h->result.processes, TRUE);
	g_string_chunk_free(h->result.strings);
	g_free(h);
}

const struct ct_analysis_class ct_host_memory_analysis = {
	.name = "host",
	.id = CT_ANALYSIS_HOST_MEMORY,
	.section = &ct_host_memory_section,
	.wants = CT_EV_BIT(CT_EV_HOST_MEMORY),
	.create = host_memory_create,
	.event = host_memory_event,
	.finish = host_memory_finish,
	.result = host_memory_result,
	.destroy = host_memory_destroy,
};
