/* SPDX-License-Identifier: MIT */
/*
 * memory.c - the memory analysis: live bytes over time per process, device
 * and kind; the peak and the allocations live at it; what is still live at
 * the end (leaks); NVTX ranges whose allocations hold more memory each time they repeat;
 * a bounded time series for plots.
 *
 * The live allocations and the peak are the pass's accountant's
 * (accounting.h), which this analysis subscribes to; it adds what they
 * mean for people: sites, ranges, the series.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/accounting.h"
#include "analysis.h"
#include "contract/assert.h"
#include "memory.h"
#include "common/saturate.h"
#include "common/series.h"

/* What the analysis keeps of one (process, device), beside the accountant's. */
struct mem_device {
	struct ct_series series; /* on_device over time; points NULL until the first */
	uint64_t failures;
};

/*
 * NVTX range statistics of one path in one process. Every allocation
 * counts for the range it was made in and the ranges around it; at each
 * end of the range, the bytes its allocations still hold are sampled:
 * memory that grows from one repetition to the next is a leak pattern,
 * memory a step frees in the next one is not.
 */
struct range_stat {
	uint64_t repetitions;
	uint64_t grew;      /* repetitions that ended with more held than the previous one */
	int64_t held;       /* bytes of the range's allocations live now */
	int64_t first_held; /* held at the end of the first repetition */
	int64_t last_held;  /* ... and of the last one */
};

struct memory {
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	struct ct_acct *acct;          /* the pass's */
	struct ct_acct_sub *sub;       /* its subscription to it */
	int64_t end_ns;
	struct ct_memory_result result; /* owned, once computed */
};

/* ------------------------------------------------------------- state */

/* The NVTX range statistics of PROCESS, struct range_stat by path id. */
static GArray *ranges_of(struct memory *m, struct ct_process *process)
{
	void **data = ct_acct_process_data(m->sub, process);

	if (!*data)
		*data = g_array_new(FALSE, TRUE, sizeof(struct range_stat));
	return *data;
}

static struct range_stat *range_stat_of(struct memory *m, struct ct_process *process, uint32_t path)
{
	GArray *ranges = ranges_of(m, process);

	/* the new ones are zeroed */
	if (path >= ranges->len)
		g_array_set_size(ranges, path + 1);
	return &g_array_index(ranges, struct range_stat, path);
}

/* ------------------------------------------------ NVTX range growth */

/* Adds DELTA to what PATH and the ranges around it hold in PROCESS. */
static void range_hold(struct memory *m, struct ct_process *process, uint32_t path, int64_t delta)
{
	for (; path != CT_PATH_NONE; path = ct_path_parent(m->ctx, path)) {
		int64_t *held = &range_stat_of(m, process, path)->held;

		*held = delta >= 0 ? ct_bytes_add(*held, (uint64_t)delta)
		                   : ct_bytes_sub(*held, (uint64_t)-delta);
	}
}

static void on_pop(struct memory *m, const struct ct_event *ev)
{
	struct range_stat *stat = range_stat_of(m, ev->process, ev->nvtx.path);

	if (stat->repetitions == 0)
		stat->first_held = stat->held;
	else if (stat->held > stat->last_held)
		stat->grew++;
	stat->last_held = stat->held;
	stat->repetitions++;
}

/* ------------------------------------------------ the accountant's hooks */

static void hook_added(void *data, struct ct_acct_device *dev, void *own,
                       const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct memory *m = data;

	/* a mapping is not memory of its own: vmm_physical carries the bytes */
	if (a->kind != CT_MEM_VMM_MAP)
		range_hold(m, dev->process, a->path, ct_sat_i64(a->size));
}

static void hook_removed(void *data, struct ct_acct_device *dev, void *own,
                         const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct memory *m = data;

	if (a->kind != CT_MEM_VMM_MAP)
		range_hold(m, dev->process, a->path, -ct_sat_i64(a->size));
}

static void hook_changed(void *data, struct ct_acct_device *dev, void *own,
                         const struct ct_event *ev)
{
	struct memory *m = data;
	struct mem_device *md = own;

	if (!md->series.points)
		ct_series_init(&md->series, m->opts->series_points);
	ct_series_add(&md->series, ev->time_ns, dev->on_device);
}

static void hook_revealed(void *data, struct ct_acct_device *dev, void *own,
                          const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct mem_device *md = own;

	/* made before the window: live at every moment the series has */
	if (ct_mem_kind_on_device(a->kind))
		ct_series_shift(&md->series, ct_sat_i64(a->size));
}

static void hook_device_release(void *data, struct ct_acct_device *dev, void *own)
{
	ct_series_release(&((struct mem_device *)own)->series);
}

static void hook_process_release(void *data, void *user)
{
	g_array_unref(user);
}

static const struct ct_acct_hooks hooks = {
	.device_size = sizeof(struct mem_device),
	.process_release = hook_process_release,
	.device_release = hook_device_release,
	.added = hook_added,
	.removed = hook_removed,
	.changed = hook_changed,
	.revealed = hook_revealed,
};

static void memory_event(void *state, const struct ct_event *ev)
{
	struct memory *m = state;

	switch (ev->type) {
	case CT_EV_MEM_ALLOC_FAILED:
		((struct mem_device *)ct_acct_own(
		     m->sub,
		     ct_acct_device_of(m->acct, ev->process, ev->u.mem_alloc_failed.device)))
		    ->failures++;
		break;
	case CT_EV_NVTX_POP:
		on_pop(m, ev);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ result */

static gint by_size_then_time(gconstpointer pa, gconstpointer pb)
{
	const struct ct_acct_alloc *a = *(const struct ct_acct_alloc *const *)pa;
	const struct ct_acct_alloc *b = *(const struct ct_acct_alloc *const *)pb;

	if (a->size != b->size)
		return a->size < b->size ? 1 : -1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The live allocations of one (process, device) the result lists. */
struct device_gather {
	const struct ct_acct_device *dev;
	GPtrArray *leaks; /* live at the end; records borrowed from the accountant */
	GPtrArray *peak;  /* live at the peak; idem */
};

static void gather_one(const struct ct_acct_alloc *a, void *data)
{
	struct device_gather *g = data;
	const struct ct_acct_device *dev = g->dev;

	if (a->process != dev->process->index || a->device != dev->device ||
	    a->kind == CT_MEM_VMM_MAP)
		return;
	g_ptr_array_add(g->leaks, (gpointer)a);
	if (ct_acct_live_at_peak(dev, a))
		g_ptr_array_add(g->peak, (gpointer)a);
}

/* Both lists of DEV, largest first. */
static void gather(struct memory *m, struct device_gather *g)
{
	g->leaks = g_ptr_array_new();
	g->peak = g_ptr_array_new();
	ct_acct_foreach_live(m->acct, gather_one, g);
	for (guint i = 0; i < g->dev->freed_since_peak->len; i++)
		g_ptr_array_add(g->peak, g_ptr_array_index(g->dev->freed_since_peak, i));
	g_ptr_array_sort(g->leaks, by_size_then_time);
	g_ptr_array_sort(g->peak, by_size_then_time);
}

static const char *intern(struct memory *m, const char *text)
{
	return text ? g_string_chunk_insert_const(m->result.strings, text) : NULL;
}

/* A's call stack, named; NULL when the trace has none. */
static const struct ct_stack *stack_of(struct memory *m, const struct ct_acct_alloc *a)
{
	const struct ct_process *p = ct_context_process_at(m->ctx, a->process);

	return ct_call_stacks_get(ct_context_call_stacks(m->ctx), p->hostname, p->pid, a->stack_id);
}

/* Where A was made (ct_call_site_format); NULL when the trace does not
 * say (one known from its release only). */
static const char *site_of(struct memory *m, const struct ct_acct_alloc *a)
{
	char site[512];

	if (a->origin == CT_ACCT_INFERRED)
		return NULL;
	return intern(m, ct_call_site_format(m->ctx, ct_context_process_at(m->ctx, a->process),
	                                     a->path, &a->api, a->stack_id, site, sizeof(site)));
}

static struct ct_memory_alloc alloc_of(struct memory *m, const struct ct_acct_alloc *a,
                                       int64_t at_ns)
{
	struct ct_process *process = ct_context_process_at(m->ctx, a->process);
	bool known = a->origin != CT_ACCT_INFERRED;
	char path[512];

	return (struct ct_memory_alloc){
		.address = a->address,
		.size = a->size,
		.kind = a->kind,
		.time_known = a->time_known,
		.alloc_time_ns = a->time_ns,
		/* a corrupt trace may date it after AT_NS, or at either end of the clock */
		.age_ns = a->time_known ? MAX(0, ct_sat_sub(at_ns, a->time_ns)) : 0,
		.site = site_of(m, a),
		.nvtx_path =
		    known ? intern(m, ct_path_format(m->ctx, a->path, path, sizeof(path))) : NULL,
		.api = known ? intern(m, ct_context_api_name(process, a->api.domain, a->api.cbid))
		             : NULL,
		.tid = a->thread ? a->thread->tid : -1,
	};
}

/* The first max_rows allocations of LIST, with their age at AT_NS. */
static GArray *alloc_list(struct memory *m, const GPtrArray *list, int64_t at_ns)
{
	guint shown = list->len < m->opts->max_rows ? list->len : (guint)m->opts->max_rows;
	GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(struct ct_memory_alloc), shown);

	for (guint i = 0; i < shown; i++) {
		struct ct_memory_alloc a = alloc_of(m, g_ptr_array_index(list, i), at_ns);

		g_array_append_val(out, a);
	}
	return out;
}

static gint by_bytes(gconstpointer pa, gconstpointer pb)
{
	const struct ct_memory_leak_site *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	/* the unknown site (NULL) last among equals */
	if (!a->site || !b->site)
		return !a->site - !b->site;
	return strcmp(a->site, b->site);
}

static void site_clear(gpointer p)
{
	struct ct_memory_leak_site *s = p;

	if (s->stack)
		g_array_unref(s->stack);
}

/* S's function, file:line and whole stack, from STACK. */
static void site_stack(struct memory *m, struct ct_memory_leak_site *s, const struct ct_stack *st)
{
	if (st && st->site < st->count) {
		s->function = intern(m, st->frames[st->site].symbol.function);
		s->file = intern(m, st->frames[st->site].symbol.file);
		s->line = st->frames[st->site].symbol.line;
	}
	s->stack = ct_stack_copy(st, m->result.strings);
}

/* ALLOCS grouped by site, the most bytes first, at most max_rows of them. */
static GArray *sites_of(struct memory *m, const GPtrArray *allocs)
{
	GArray *sites = g_array_new(FALSE, FALSE, sizeof(struct ct_memory_leak_site));
	/* site -> its index in SITES + 1; keys are the result's strings, "" for none */
	GHashTable *index = g_hash_table_new(g_str_hash, g_str_equal);

	g_array_set_clear_func(sites, site_clear);
	for (guint i = 0; i < allocs->len; i++) {
		const struct ct_acct_alloc *a = g_ptr_array_index(allocs, i);
		const char *site = site_of(m, a);
		const char *key = site ? site : "";
		guint at = GPOINTER_TO_UINT(g_hash_table_lookup(index, key));
		struct ct_memory_leak_site *s;

		if (!at) {
			struct ct_memory_leak_site fresh = { .site = site };

			if (a->origin != CT_ACCT_INFERRED)
				site_stack(m, &fresh, stack_of(m, a));
			g_array_append_val(sites, fresh);
			at = sites->len;
			g_hash_table_insert(index, (gpointer)key, GUINT_TO_POINTER(at));
		}
		s = &g_array_index(sites, struct ct_memory_leak_site, at - 1);
		s->count++;
		s->bytes = ct_sat_add_u64(s->bytes, a->size);
	}
	g_hash_table_destroy(index);
	g_array_sort(sites, by_bytes);
	if (sites->len > m->opts->max_rows)
		g_array_set_size(sites, (guint)m->opts->max_rows);
	return sites;
}

/* A note for people on a reclaimed allocation. */
static const char *reclaim_note(struct memory *m, const char *by)
{
	char note[256];

	if (by)
		snprintf(note, sizeof(note), "reclaimed by %s, never freed by the program", by);
	else
		snprintf(note, sizeof(note),
		         "reclaimed at context teardown, never freed by the program");
	return intern(m, note);
}

/* The allocations CUDA reclaimed on DEV, largest first, at most max_rows. */
static GArray *reclaimed_of(struct memory *m, const struct ct_acct_device *dev)
{
	GPtrArray *sorted = g_ptr_array_new();
	GArray *out;
	guint shown;

	for (guint i = 0; i < dev->reclaimed->len; i++)
		g_ptr_array_add(sorted, g_ptr_array_index(dev->reclaimed, i));
	g_ptr_array_sort(sorted, by_size_then_time);
	shown = sorted->len < m->opts->max_rows ? sorted->len : (guint)m->opts->max_rows;
	out = g_array_sized_new(FALSE, FALSE, sizeof(struct ct_memory_reclaimed), shown);
	for (guint i = 0; i < shown; i++) {
		const struct ct_acct_alloc *a = g_ptr_array_index(sorted, i);
		struct ct_process *process = ct_context_process_at(m->ctx, a->process);
		const char *by = a->end_api.domain ? ct_context_api_name(process, a->end_api.domain,
		                                                         a->end_api.cbid)
		                                   : NULL;
		struct ct_memory_reclaimed r = {
			.address = a->address,
			.size = a->size,
			.kind = a->kind,
			.time_known = a->time_known,
			.alloc_time_ns = a->time_ns,
			.reclaimed_ns = a->end_ns,
			.reclaimed_by = intern(m, by),
			.site = site_of(m, a),
			.tid = a->thread ? a->thread->tid : -1,
			.note = reclaim_note(m, by),
		};

		g_array_append_val(out, r);
	}
	g_ptr_array_free(sorted, TRUE);
	return out;
}

static GArray *kinds_of(const struct ct_acct_device *md)
{
	GArray *kinds = g_array_new(FALSE, FALSE, sizeof(struct ct_memory_kind));

	for (unsigned k = 0; k < CT_ENUM_COUNT(mem_kind); k++) {
		struct ct_memory_kind kind = {
			.kind = (uint8_t)k,
			.peak_bytes = md->kind_peak[k],
			.at_device_peak_bytes = md->peak_kinds[k],
			.live_at_end_bytes = md->live[k],
		};

		if (md->kind_peak[k] || md->live[k] || md->peak_kinds[k])
			g_array_append_val(kinds, kind);
	}
	return kinds;
}

/* The caveats of a device's figures on what the trace may not show. */
static GArray *caveats_of(struct memory *m, const struct ct_acct_device *dev,
                          struct ct_memory_device *d)
{
	GArray *list = g_array_new(FALSE, FALSE, sizeof(struct ct_caveat));
	const char *cause = CT_CAUSE_BEFORE_WINDOW;

	d->peak_lower_bound = ct_acct_partial_ever(m->acct, dev);
	d->end_lower_bound = ct_acct_partial_at_end(m->acct, dev);
	if (d->peak_lower_bound) {
		ct_caveat_add(list, "peak_bytes", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "peak_time_ns", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "peak_allocation_count", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "peak_allocations", CT_CAVEAT_INCOMPLETE, cause);
		ct_caveat_add(list, "kinds", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "timeline", CT_CAVEAT_LOWER_BOUND, cause);
	}
	if (d->end_lower_bound) {
		ct_caveat_add(list, "live_at_end_bytes", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "leak_count", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "leaked_bytes", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "leaks", CT_CAVEAT_INCOMPLETE, cause);
		ct_caveat_add(list, "leak_sites", CT_CAVEAT_INCOMPLETE, cause);
	}
	d->leaks_possible = ct_acct_lost(m->acct, dev->process);
	if (d->leaks_possible) {
		/* any event may be among the lost: every figure from the first loss on */
		cause = CT_CAUSE_DISCARDED;
		ct_caveat_add(list, "peak_bytes", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "peak_time_ns", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "peak_allocation_count", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "peak_allocations", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "kinds", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "live_at_end_bytes", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "allocations", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "frees", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "bytes_allocated", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "leak_count", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "leaked_bytes", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "leaks", CT_CAVEAT_POSSIBLE, cause);
		ct_caveat_add(list, "leak_sites", CT_CAVEAT_POSSIBLE, cause);
		ct_caveat_add(list, "reclaimed_count", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "reclaimed", CT_CAVEAT_INCOMPLETE, cause);
		ct_caveat_add(list, "timeline", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "growing_ranges", CT_CAVEAT_UNCERTAIN, cause);
	}
	return list;
}

static void add_device(struct memory *m, const struct ct_acct_device *md,
                       const struct mem_device *mem)
{
	struct device_gather g = { .dev = md };
	struct ct_memory_device d = {
		.pid = md->process->pid,
		.process = intern(m, md->process->procname),
		.hostname = intern(m, md->process->hostname),
		.device = md->device,
		.peak_bytes = md->peak_bytes,
		.has_peak = md->has_peak,
		.peak_time_ns = md->peak_ns,
		.live_at_end_bytes = md->on_device,
		.allocations = md->allocations,
		.frees = md->frees,
		.bytes_allocated = md->bytes_allocated,
		.unknown_frees = md->unknown_frees,
		.failed_frees = md->failed_frees,
		.failures = mem->failures,
		.kinds = kinds_of(md),
		.reclaimed_count = md->reclaimed_count,
		.reclaimed_bytes = md->reclaimed_bytes,
		.reclaimed = reclaimed_of(m, md),
		.before_window_allocations = md->before_window_count,
		.before_window_bytes = (uint64_t)ct_acct_before_window_on_device(md),
	};

	CT_ASSERT(md->on_device >= 0);
	gather(m, &g);
	d.peak_allocation_count = g.peak->len;
	d.peak_allocations = alloc_list(m, g.peak, md->peak_ns);
	d.leak_count = g.leaks->len;
	for (guint i = 0; i < g.leaks->len; i++)
		d.leaked_bytes = ct_sat_add_u64(
		    d.leaked_bytes,
		    ((const struct ct_acct_alloc *)g_ptr_array_index(g.leaks, i))->size);
	/* the end of a process is its last event (a killed one has no exit) */
	d.leaks = alloc_list(m, g.leaks, md->process->events ? md->process->last_ns : m->end_ns);
	d.leak_sites = sites_of(m, g.leaks);
	d.peak_sites = sites_of(m, g.peak);
	d.caveats = caveats_of(m, md, &d);
	g_array_append_val(m->result.devices, d);
	g_ptr_array_free(g.leaks, TRUE);
	g_ptr_array_free(g.peak, TRUE);
}

/* Why figures are not exact, once per process and cause. */
static void add_notes(struct memory *m)
{
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++)
		ct_acct_add_notes(m->acct, ct_context_process_at(m->ctx, p), m->result.strings,
		                  m->result.notes);
}

static void add_growing_ranges(struct memory *m)
{
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
		struct ct_process *process = ct_context_process_at(m->ctx, p);
		GArray *ranges = *ct_acct_process_data(m->sub, process);

		for (guint path = 1; ranges && path < ranges->len; path++) {
			const struct range_stat *s =
			    &g_array_index(ranges, struct range_stat, path);
			struct ct_memory_growing_range range;
			char name[512];

			/* growth is a pattern: most repetitions end holding more than the one before */
			if (s->repetitions < 2 || s->last_held <= s->first_held ||
			    s->grew * 2 < s->repetitions - 1)
				continue;
			range = (struct ct_memory_growing_range){
				.pid = process->pid,
				.process = intern(m, process->procname),
				.range =
				    intern(m, ct_path_format(m->ctx, path, name, sizeof(name))),
				.repetitions = s->repetitions,
				.growing_repetitions = s->grew,
				.held_after_first_bytes = s->first_held,
				.held_after_last_bytes = s->last_held,
				.growth_per_repetition_bytes =
				    (s->last_held - s->first_held) / (int64_t)(s->repetitions - 1),
				.held_at_end_bytes = s->held,
			};
			g_array_append_val(m->result.growing_ranges, range);
		}
	}
}

static void add_timeline(struct memory *m, const struct ct_process *process,
                         const struct ct_acct_device *dev, const struct mem_device *md)
{
	for (size_t i = 0; md->series.points && i < md->series.points->len; i++) {
		const struct ct_series_point *pt = ct_series_at(&md->series, i);
		struct ct_memory_point point = {
			.pid = process->pid,
			.device = dev->device,
			.time_ns = pt->time_ns,
			.bytes = pt->last,
			.min_bytes = pt->min,
			.max_bytes = pt->max,
		};

		g_array_append_val(m->result.timeline, point);
	}
}

static enum ct_analysis_status memory_result(void *state, const void **result)
{
	struct memory *m = state;

	m->result.devices = g_array_new(FALSE, FALSE, sizeof(struct ct_memory_device));
	m->result.growing_ranges =
	    g_array_new(FALSE, FALSE, sizeof(struct ct_memory_growing_range));
	m->result.timeline = g_array_new(FALSE, FALSE, sizeof(struct ct_memory_point));
	m->result.notes = g_array_new(FALSE, FALSE, sizeof(struct ct_caveat_note));
	m->result.strings = g_string_chunk_new(4096);
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
		struct ct_process *process = ct_context_process_at(m->ctx, p);

		for (unsigned d = 0; d < 256; d++) {
			const struct ct_acct_device *dev = ct_acct_device_at(m->acct, process, d);

			if (dev)
				add_device(m, dev, ct_acct_own(m->sub, dev));
		}
	}
	add_growing_ranges(m);
	add_notes(m);
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
		struct ct_process *process = ct_context_process_at(m->ctx, p);

		for (unsigned d = 0; d < 256; d++) {
			const struct ct_acct_device *dev = ct_acct_device_at(m->acct, process, d);

			if (dev)
				add_timeline(m, process, dev, ct_acct_own(m->sub, dev));
		}
	}
	*result = &m->result;
	return CT_ANALYSIS_OK;
}

static void result_release(struct ct_memory_result *r)
{
	for (guint i = 0; r->devices && i < r->devices->len; i++) {
		struct ct_memory_device *d = &g_array_index(r->devices, struct ct_memory_device, i);

		g_array_unref(d->kinds);
		g_array_unref(d->peak_allocations);
		g_array_unref(d->leaks);
		g_array_unref(d->leak_sites);
		g_array_unref(d->peak_sites);
		g_array_unref(d->reclaimed);
		g_array_unref(d->caveats);
	}
	if (r->devices)
		g_array_unref(r->devices);
	if (r->growing_ranges)
		g_array_unref(r->growing_ranges);
	if (r->timeline)
		g_array_unref(r->timeline);
	if (r->notes)
		g_array_unref(r->notes);
	if (r->strings)
		g_string_chunk_free(r->strings);
}

/* ----------------------------------------------------------- lifecycle */

static enum ct_analysis_status memory_create(struct ct_context *ctx, const struct ct_options *opts,
                                             void **state)
{
	struct memory *m = g_new0(struct memory, 1);

	*state = m;
	m->ctx = ctx;
	m->opts = opts;
	m->acct = ct_context_accounting(ctx);
	m->sub = ct_acct_subscribe(
	    m->acct, &(struct ct_acct_config){ .peak_set = true, .reclaimed = true }, &hooks, m);
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status memory_finish(void *state, int64_t end_ns)
{
	struct memory *m = state;

	m->end_ns = end_ns;
	return CT_ANALYSIS_OK;
}

static void memory_destroy(void *state)
{
	struct memory *m = state;

	if (!m)
		return;
	ct_acct_unsubscribe(m->sub);
	result_release(&m->result);
	g_free(m);
}

const struct ct_analysis_class ct_memory_analysis = {
	.name = "memory",
	.id = CT_ANALYSIS_MEMORY,
	.section = &ct_memory_section,
	.wants = CT_EV_BIT(CT_EV_MEM_ALLOC_FAILED) | CT_EV_BIT(CT_EV_NVTX_POP),
	.uses = CT_SHARED_ACCOUNTING,
	.create = memory_create,
	.event = memory_event,
	.finish = memory_finish,
	.result = memory_result,
	.destroy = memory_destroy,
};
