/* SPDX-License-Identifier: MIT */
/*
 * kernels.c - the kernels analysis: per kernel (by name) the number of
 * runs, their GPU time (total, mean, median, min, max), the launch
 * configuration, and the launch latency (GPU start - the launching call's
 * entry); per process and device, when the GPU was busy (kernels,
 * copies and memsets), its idle time and longest idle gaps, and a busy
 * series over time.
 *
 * Joins: a launch event (at the call's exit) records its call, read in
 * the pass (api-calls.h); the reader joins it to the gpu_kernel record
 * with the same correlation id, and gives the record the call's entry
 * (ct_event.joined). The record can come first: the tracer writes it
 * whole when its launch's event is not yet in the trace (a kernel that
 * ended, and whose buffer was flushed, before its launching call
 * returned), and the launch's event follows. Such a record waits for its
 * launch in a correlation map, and is counted without a launch only if
 * the trace ends first. The busy timelines are
 * the pass's too (gpu-activity.h): this analysis reports them.
 *
 * Memory: one row per distinct kernel, with bounded statistics
 * (stats.h); launches waiting for their record have a fixed cap. Nothing
 * grows with the length of the trace.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "contract/assert.h"
#include "common/corr-map.h"
#include "common/memo.h"
#include "common/demangle.h"
#include "model/gpu-activity.h"
#include "common/saturate.h"
#include "common/stats.h"

/* Distinct launch configurations counted per kernel; more are only counted. */
#define CONFIGS_KEPT 4
/* Distinct launch sites counted per kernel; launches from more are only counted. */
#define SITES_KEPT 4

struct launch_config {
	int32_t grid[3];
	int32_t block[3];
	uint64_t count;
};

/* Where a kernel was launched: its process, thread's NVTX path and call stack. */
struct launch_site {
	struct ct_process *process; /* borrowed */
	uint32_t path;
	uint64_t stack_id; /* the thread's op_stack_id (context.h), 0: none */
	struct ct_api_ref api;
	uint64_t launches;
};

/* One kernel, by kernel_id (a hash of its name, the same in every process). */
struct kernel_row {
	uint64_t kernel_id;
	struct ct_process *process; /* borrowed: the first that ran it, for its name */
	uint64_t launches;          /* launch events */
	struct ct_stat gpu;         /* GPU durations of its runs; owned */
	uint64_t end_unknown;       /* runs still going at a forced flush: no duration */
	struct ct_stat latency;     /* launch latencies; owned */
	struct launch_config configs[CONFIGS_KEPT];
	uint32_t config_count;
	uint64_t other_configs; /* runs whose configuration did not fit in configs */
	struct launch_site sites[SITES_KEPT];
	uint32_t site_count;
	uint64_t other_site_launches; /* launches from sites that did not fit in sites */
	uint16_t registers;           /* per thread, the most seen */
	uint32_t shared_mem;          /* static + dynamic, the most seen */
};

/* A gpu_kernel record that came before its launch. */
struct record_early {
	struct ct_corr_entry head;
	struct ct_ev_gpu_kernel record;
};

/* Per-process state, in the process's slot. Owned by the analysis. */
struct kern_process {
	struct kernels *kernels;    /* borrowed: the analysis */
	struct ct_process *process; /* borrowed */
	struct ct_corr_map early;   /* of struct record_early */
};

struct kernels {
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	int slot;
	GPtrArray *rows;       /* struct kernel_row, in order of first sight; owned */
	GHashTable *by_kernel; /* kernel_id -> its row (the key is the row's); borrowed */
	struct ct_memo
	    rows_found;         /* rows looked up last: a loop runs a few kernels over and over */
	struct ct_stat latency; /* every launch latency; owned */
	uint64_t unmatched;     /* gpu_kernel records without a timed launch */
	uint64_t joined;        /* launch events whose record came */
};

/* ------------------------------------------------------------- state */

static struct kern_process *kern_process_of(struct kernels *k, struct ct_process *process)
{
	struct kern_process *kp = process->slot[k->slot];

	if (kp)
		return kp;
	kp = g_new0(struct kern_process, 1);
	kp->kernels = k;
	kp->process = process;
	ct_corr_map_init(&kp->early, sizeof(struct record_early));
	process->slot[k->slot] = kp;
	return kp;
}

static struct kernel_row *row_at(const struct kernels *k, guint i)
{
	return g_ptr_array_index(k->rows, i);
}

static void row_free(gpointer data)
{
	struct kernel_row *row = data;

	ct_stat_release(&row->gpu);
	ct_stat_release(&row->latency);
	g_free(row);
}

/* The row of KERNEL_ID, created on first use. */
static struct kernel_row *row_of(struct kernels *k, uint64_t kernel_id, struct ct_process *process)
{
	struct kernel_row *row = ct_memo_find(&k->rows_found, kernel_id);

	if (row)
		return row;
	row = g_hash_table_lookup(k->by_kernel, &kernel_id);
	if (!row) {
		row = g_new0(struct kernel_row, 1);
		row->kernel_id = kernel_id;
		row->process = process;
		g_ptr_array_add(k->rows, row);
		g_hash_table_insert(k->by_kernel, &row->kernel_id, row);
	}
	ct_memo_keep(&k->rows_found, kernel_id, row);
	return row;
}

/* ------------------------------------------------------------ events */

static void note_config(struct kernel_row *row, const struct ct_ev_gpu_kernel *r)
{
	uint32_t shared = r->static_shared_mem + r->dynamic_shared_mem;

	if (r->registers > row->registers)
		row->registers = r->registers;
	if (shared > row->shared_mem)
		row->shared_mem = shared;
	for (uint32_t i = 0; i < row->config_count; i++) {
		struct launch_config *c = &row->configs[i];

		if (c->grid[0] == r->grid_x && c->grid[1] == r->grid_y && c->grid[2] == r->grid_z &&
		    c->block[0] == r->block_x && c->block[1] == r->block_y &&
		    c->block[2] == r->block_z) {
			c->count++;
			return;
		}
	}
	if (row->config_count == CONFIGS_KEPT) {
		row->other_configs++;
		return;
	}
	row->configs[row->config_count++] = (struct launch_config){
		.grid = { r->grid_x, r->grid_y, r->grid_z },
		.block = { r->block_x, r->block_y, r->block_z },
		.count = 1,
	};
}

/*
 * The run of R in PROCESS: its GPU time and configuration, and its launch
 * latency when its launch (entered at ENTRY_NS, CT_NO_ENTRY if unknown) is
 * in the trace (LAUNCHED).
 */
static void count_run(struct kernels *k, struct ct_process *process,
                      const struct ct_ev_gpu_kernel *r, bool launched, int64_t entry_ns)
{
	struct kernel_row *row;

	if (launched)
		k->joined++;
	else
		k->unmatched++;
	/* with an NVTX filter, only the kernels launched inside the range */
	if (!launched && k->opts->nvtx_range)
		return;
	row = row_of(k, r->kernel_id, process);
	if (!row)
		return;
	/* the reader left a run whose end is unknown without one (check_gpu_end) */
	if (r->start && r->end >= r->start)
		ct_stat_add(&row->gpu, ct_sat_i64(r->end - r->start));
	else
		row->end_unknown++;
	note_config(row, r);
	if (launched && r->start && entry_ns != CT_NO_ENTRY) {
		int64_t latency = ct_sat_sub(ct_sat_i64(r->start), entry_ns);

		ct_stat_add(&row->latency, latency);
		ct_stat_add(&k->latency, latency);
	}
}

static void on_gpu_kernel(struct kernels *k, const struct ct_event *ev)
{
	const struct ct_ev_gpu_kernel *r = &ev->u.gpu_kernel;
	struct kern_process *kp;
	struct record_early *early;

	if (ev->joined) {
		count_run(k, ev->process, r, true, ev->joined_entry_ns);
		return;
	}
	kp = kern_process_of(k, ev->process);
	/* a second record of one id does not wait: the first does */
	if (ct_corr_map_find(&kp->early, r->correlation_id)) {
		count_run(k, ev->process, r, false, CT_NO_ENTRY);
		return;
	}
	early = ct_corr_map_insert(&kp->early, r->correlation_id, ev->time_ns);
	early->record = *r;
}

static void note_site(struct kernel_row *row, const struct ct_event *ev)
{
	struct launch_site site = {
		.process = ev->process,
		.path = ev->site,
		.stack_id = ev->thread->op_stack_id,
		.api = ev->u.launch.api,
		.launches = 1,
	};

	for (uint32_t i = 0; i < row->site_count; i++) {
		struct launch_site *s = &row->sites[i];

		if (s->process == site.process && s->path == site.path &&
		    s->stack_id == site.stack_id && s->api.domain == site.api.domain &&
		    s->api.cbid == site.api.cbid) {
			s->launches++;
			return;
		}
	}
	if (row->site_count == SITES_KEPT)
		row->other_site_launches++;
	else
		row->sites[row->site_count++] = site;
}

static void on_launch(struct kernels *k, const struct ct_event *ev)
{
	struct kern_process *kp = ev->process->slot[k->slot];
	struct kernel_row *row = row_of(k, ev->u.launch.kernel_id, ev->process);
	struct record_early *early;

	row->launches++;
	note_site(row, ev);
	/* the record that came before it; else the reader joins the one to come */
	if (!kp || !ct_corr_map_waiting(&kp->early))
		return;
	early = ct_corr_map_find(&kp->early, ev->u.launch.api.correlation_id);
	if (early) {
		count_run(k, ev->process, &early->record, true,
		          ev->has_call ? ev->call.entry_ns : CT_NO_ENTRY);
		ct_corr_map_remove(&kp->early, early);
	}
}

static void kernels_event(void *state, const struct ct_event *ev)
{
	struct kernels *k = state;

	switch (ev->type) {
	case CT_EV_LAUNCH:
		on_launch(k, ev);
		break;
	case CT_EV_GPU_KERNEL:
		on_gpu_kernel(k, ev);
		break;
	default:
		break;
	}
}

static void count_unlaunched(void *entry, void *data)
{
	struct kern_process *kp = data;
	const struct record_early *early = entry;

	count_run(kp->kernels, kp->process, &early->record, false, CT_NO_ENTRY);
}

static enum ct_analysis_status kernels_finish(void *state, int64_t end_ns)
{
	struct kernels *k = state;

	(void)end_ns;
	/* the records still waiting: their launch is not in the trace */
	for (size_t p = 0; p < ct_context_process_count(k->ctx); p++) {
		struct kern_process *kp = ct_context_process_at(k->ctx, p)->slot[k->slot];

		if (!kp)
			continue;
		ct_corr_map_foreach(&kp->early, count_unlaunched, kp);
		k->unmatched += kp->early.evicted;
		ct_corr_map_release(&kp->early);
		ct_corr_map_init(&kp->early, sizeof(struct record_early));
	}
	return CT_ANALYSIS_OK;
}

/* ------------------------------------------------------------ report */

static int by_total_time(const void *pa, const void *pb, void *data)
{
	const struct kernels *k = data;
	const struct kernel_row *a = row_at(k, *(const uint32_t *)pa);
	const struct kernel_row *b = row_at(k, *(const uint32_t *)pb);

	if (a->gpu.sum != b->gpu.sum)
		return a->gpu.sum < b->gpu.sum ? 1 : -1;
	if (a->launches != b->launches)
		return a->launches < b->launches ? 1 : -1;
	return a->kernel_id < b->kernel_id ? -1 : a->kernel_id > b->kernel_id;
}

static void write_dim3(struct ct_doc *doc, const char *key, const int32_t *v, bool known)
{
	if (!known) {
		ct_doc_null(doc, key);
		return;
	}
	ct_doc_object(doc, key, NULL);
	ct_doc_i64(doc, "x", v[0], CT_UNIT_NONE);
	ct_doc_i64(doc, "y", v[1], CT_UNIT_NONE);
	ct_doc_i64(doc, "z", v[2], CT_UNIT_NONE);
	ct_doc_end(doc);
}

/* The configuration most runs used. */
static const struct launch_config *main_config(const struct kernel_row *row)
{
	const struct launch_config *best = NULL;

	for (uint32_t i = 0; i < row->config_count; i++)
		if (!best || row->configs[i].count > best->count)
			best = &row->configs[i];
	return best;
}

/* The site of most launches of ROW, NULL when none was seen. */
static const struct launch_site *main_site(const struct kernel_row *row)
{
	const struct launch_site *best = NULL;

	for (uint32_t i = 0; i < row->site_count; i++)
		if (!best || row->sites[i].launches > best->launches)
			best = &row->sites[i];
	return best;
}

static void write_site(const struct kernels *k, struct ct_doc *doc, const struct launch_site *s)
{
	char site[1024];

	if (!s) {
		ct_doc_null(doc, "launch_site");
		ct_doc_u64(doc, "launch_site_launches", 0, CT_UNIT_NONE);
		return;
	}
	ct_call_site_format(k->ctx, s->process, s->path, &s->api, s->stack_id, site, sizeof(site));
	ct_doc_string(doc, "launch_site", site);
	ct_doc_u64(doc, "launch_site_launches", s->launches, CT_UNIT_NONE);
}

static void write_row(const struct kernels *k, struct ct_doc *doc, const struct kernel_row *row,
                      int64_t total_ns)
{
	const char *name = ct_context_kernel_name(row->process, row->kernel_id);
	const struct launch_config *config = main_config(row);
	char *demangled = ct_demangle(name);
	char id[32];

	snprintf(id, sizeof(id), "0x%016" PRIx64, row->kernel_id);
	ct_doc_object(doc, NULL, NULL);
	ct_doc_string(doc, "name", demangled ? demangled : name ? name : id);
	ct_doc_string(doc, "mangled_name", name);
	ct_doc_string(doc, "kernel_id", id);
	free(demangled);
	ct_doc_u64(doc, "launches", row->launches, CT_UNIT_NONE);
	write_site(k, doc, main_site(row));
	ct_doc_u64(doc, "launch_sites", row->site_count + (row->other_site_launches ? 1 : 0),
	           CT_UNIT_NONE);
	ct_stat_write(doc, "", &row->gpu, CT_UNIT_DURATION);
	ct_doc_u64(doc, "runs_end_unknown", row->end_unknown, CT_UNIT_NONE);
	ct_doc_ratio(doc, "time_share", (double)row->gpu.sum, (double)total_ns);
	write_dim3(doc, "grid", config ? config->grid : NULL, config != NULL);
	write_dim3(doc, "block", config ? config->block : NULL, config != NULL);
	ct_doc_u64(doc, "configurations", row->config_count + (row->other_configs ? 1 : 0),
	           CT_UNIT_NONE);
	ct_doc_u64(doc, "registers_per_thread", row->registers, CT_UNIT_NONE);
	ct_doc_u64(doc, "shared_mem_bytes", row->shared_mem, CT_UNIT_BYTES);
	ct_stat_write(doc, "launch_latency_", &row->latency, CT_UNIT_DURATION);
	ct_doc_end(doc);
}

static void write_kernels(const struct kernels *k, struct ct_doc *doc)
{
	uint32_t *order = ct_analysis_rank(k->rows->len, by_total_time, (void *)k);
	int64_t total_ns = 0;
	size_t shown;

	for (guint r = 0; r < k->rows->len; r++)
		total_ns = ct_sat_add(total_ns, row_at(k, r)->gpu.sum);
	shown = k->rows->len < k->opts->max_rows ? k->rows->len : k->opts->max_rows;
	ct_doc_array(doc, "kernels", "Kernels, by total GPU time");
	for (size_t i = 0; i < shown; i++)
		write_row(k, doc, row_at(k, order[i]), total_ns);
	ct_doc_end(doc);
	g_free(order);
}

static void write_gaps(struct ct_doc *doc, const struct ct_gpu_timeline *tl, size_t max_rows)
{
	size_t shown = tl->gaps_kept < max_rows ? tl->gaps_kept : max_rows;

	ct_doc_array(doc, "idle_gaps", "Longest idle gaps");
	for (size_t i = 0; i < shown; i++) {
		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "start_ns", tl->gaps[i].start, CT_UNIT_TIME);
		ct_doc_i64(doc, "end_ns", tl->gaps[i].end, CT_UNIT_TIME);
		ct_doc_i64(doc, "duration_ns", tl->gaps[i].end - tl->gaps[i].start,
		           CT_UNIT_DURATION);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_series(struct ct_doc *doc, const struct ct_busy_series *s)
{
	ct_doc_array(doc, "timeline", "Busy over time");
	for (guint i = 0; i < s->busy->len; i++) {
		int64_t busy = g_array_index(s->busy, int64_t, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "time_ns", s->origin_ns + (int64_t)i * s->width_ns, CT_UNIT_TIME);
		ct_doc_i64(doc, "width_ns", s->width_ns, CT_UNIT_DURATION);
		ct_doc_i64(doc, "busy_ns", busy, CT_UNIT_DURATION);
		ct_doc_double(doc, "utilization", (double)busy / (double)s->width_ns,
		              CT_UNIT_RATIO);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_device(const struct kernels *k, struct ct_doc *doc,
                         const struct ct_process *process, unsigned device,
                         const struct ct_gpu_timeline *tl)
{
	int64_t span = tl->started ? tl->run_end - tl->first_ns : 0;

	/* busy time is a union of intervals inside the span */
	CT_ASSERT(tl->busy_ns >= 0 && tl->busy_ns <= span);
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", process->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", process->procname);
	ct_doc_u64(doc, "device", device, CT_UNIT_ID);
	ct_doc_u64(doc, "gpu_records", tl->intervals, CT_UNIT_NONE);
	ct_doc_i64(doc, "first_ns", tl->first_ns, CT_UNIT_TIME);
	ct_doc_i64(doc, "last_ns", tl->run_end, CT_UNIT_TIME);
	ct_doc_i64(doc, "span_ns", span, CT_UNIT_DURATION);
	ct_doc_i64(doc, "busy_ns", tl->busy_ns, CT_UNIT_DURATION);
	ct_doc_i64(doc, "idle_ns", span - tl->busy_ns, CT_UNIT_DURATION);
	ct_doc_ratio(doc, "utilization", (double)tl->busy_ns, (double)span);
	ct_doc_u64(doc, "idle_gap_count", tl->gap_count, CT_UNIT_NONE);
	ct_doc_u64(doc, "late_records", tl->late, CT_UNIT_NONE);
	write_gaps(doc, tl, k->opts->max_rows);
	write_series(doc, &tl->series);
	ct_doc_end(doc);
}

static void write_gpu(const struct kernels *k, struct ct_doc *doc)
{
	uint64_t launches = 0;

	/* every launch event counts in its kernel's row */
	for (guint i = 0; i < k->rows->len; i++)
		launches += row_at(k, i)->launches;
	ct_doc_object(doc, "gpu", "GPU activity");
	ct_stat_write(doc, "launch_latency_", &k->latency, CT_UNIT_DURATION);
	ct_doc_u64(doc, "kernels_without_launch", k->unmatched, CT_UNIT_NONE);
	/* a launch is joined to one record at most */
	ct_doc_u64(doc, "launches_without_kernel", launches > k->joined ? launches - k->joined : 0,
	           CT_UNIT_NONE);
	ct_doc_array(doc, "devices", "Busy and idle, by process and device");
	for (size_t p = 0; p < ct_context_process_count(k->ctx); p++) {
		const struct ct_process *process = ct_context_process_at(k->ctx, p);

		for (unsigned d = 0; d < 256; d++)
			if (process->busy[d] && process->busy[d]->started)
				write_device(k, doc, process, d, process->busy[d]);
	}
	ct_doc_end(doc);
	ct_doc_end(doc);
}

/* The analysis is its own result: the sections are written from its rows and the timelines. */
static enum ct_analysis_status kernels_result(void *state, const void **result)
{
	struct kernels *k = state;

	*result = k;
	return CT_ANALYSIS_OK;
}

/* Two top-level keys, one writer: "kernels", then "gpu". */
static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	const struct kernels *k = ct_result_of(results, count, CT_ANALYSIS_KERNELS);

	write_kernels(k, doc);
	write_gpu(k, doc);
}

const struct ct_section_class ct_kernels_section = {
	.name = "kernels",
	.write = write_section,
};

/* --------------------------------------------------------- lifecycle */

static enum ct_analysis_status kernels_create(struct ct_context *ctx, const struct ct_options *opts,
                                              void **state)
{
	struct kernels *k = g_new0(struct kernels, 1);

	*state = k;
	k->rows = g_ptr_array_new_with_free_func(row_free);
	k->by_kernel = g_hash_table_new(g_int64_hash, g_int64_equal);
	k->ctx = ctx;
	k->opts = opts;
	k->slot = ct_analysis_slot(ctx);
	return k->slot < 0 ? CT_ANALYSIS_NO_SLOT : CT_ANALYSIS_OK;
}

static void free_process_slot(struct kernels *k, struct ct_process *process)
{
	struct kern_process *kp = process->slot[k->slot];

	if (!kp)
		return;
	ct_corr_map_release(&kp->early);
	g_free(kp);
	process->slot[k->slot] = NULL;
}

static void kernels_destroy(void *state)
{
	struct kernels *k = state;

	if (!k)
		return;
	if (k->slot >= 0) {
		for (size_t p = 0; p < ct_context_process_count(k->ctx); p++)
			free_process_slot(k, ct_context_process_at(k->ctx, p));
	}
	g_hash_table_destroy(k->by_kernel);
	g_ptr_array_free(k->rows, TRUE);
	ct_stat_release(&k->latency);
	g_free(k);
}

const struct ct_analysis_class ct_kernels_analysis = {
	.name = "kernels",
	.id = CT_ANALYSIS_KERNELS,
	.section = &ct_kernels_section,
	.wants = CT_EV_BIT(CT_EV_LAUNCH) | CT_EV_BIT(CT_EV_GPU_KERNEL),
	.uses = CT_SHARED_API_CALLS | CT_SHARED_GPU_ACTIVITY | CT_SHARED_GPU_JOINS,
	.create = kernels_create,
	.event = kernels_event,
	.finish = kernels_finish,
	.result = kernels_result,
	.destroy = kernels_destroy,
};
