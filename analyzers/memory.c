/* SPDX-License-Identifier: MIT */
/*
 * memory.c - the memory analysis: live bytes over time per process, device
 * and kind; the peak and the allocations live at it; what is still live at
 * the end (leaks); NVTX ranges whose allocations hold more memory each time they repeat;
 * a bounded time series for plots.
 *
 * State grows with live allocations only. The allocations live at the peak
 * are found without copying the live set at each new peak: an allocation
 * made before the peak and freed after it is kept aside (never more than
 * the allocations live at the peak), and at the end the peak set is the
 * live allocations made before the peak plus the ones kept aside.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc-map.h"
#include "analysis.h"
#include "assert.h"
#include "series.h"

/* One (process, device): live bytes, peak, counters. Owned by its mem_process. */
struct mem_device {
	struct ct_process *process; /* borrowed from the context */
	uint8_t device;
	int64_t live[CT_ENUM_COUNT(mem_kind)]; /* bytes live per kind */
	int64_t on_device;                     /* bytes of the device kinds */
	int64_t kind_peak[CT_ENUM_COUNT(mem_kind)];
	int64_t peak_bytes; /* of the device kinds */
	int64_t peak_ns;
	uint64_t peak_seq; /* 0: no peak yet */
	int64_t peak_kinds[CT_ENUM_COUNT(mem_kind)];
	struct ct_alloc *freed_since_peak; /* owned until recycled into the map */
	uint64_t allocations;
	uint64_t frees;
	uint64_t bytes_allocated;
	uint64_t unknown_frees; /* frees of addresses never seen allocated */
	uint64_t failures;
	struct ct_series series; /* owned: on_device over time */
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

/* Per-process state, in the process's slot. Owned by the analysis. */
struct mem_process {
	struct mem_device *devices[256]; /* owned */
	struct range_stat *ranges;       /* owned, indexed by path id */
	uint32_t range_capacity;
};

struct memory {
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	int slot;
	struct ct_alloc_map *live; /* owned */
	int64_t end_ns;
	int out_of_memory; /* an allocation failed: results are incomplete */
};

/* ------------------------------------------------------------- state */

static struct mem_process *mem_process_of(struct memory *m, struct ct_process *process)
{
	struct mem_process *mp = ct_slot_data(&process->slot[m->slot], sizeof(*mp));

	if (!mp)
		m->out_of_memory = 1;
	return mp;
}

static struct mem_device *mem_device_of(struct memory *m, struct ct_process *process,
                                        unsigned device)
{
	struct mem_process *mp = mem_process_of(m, process);
	struct mem_device *md;

	if (!mp)
		return NULL;
	md = mp->devices[device & 0xff];
	if (md)
		return md;
	md = calloc(1, sizeof(*md));
	if (!md || ct_series_init(&md->series, m->opts->series_points) < 0) {
		free(md);
		m->out_of_memory = 1;
		return NULL;
	}
	md->process = process;
	md->device = (uint8_t)device;
	mp->devices[device & 0xff] = md;
	return md;
}

static struct range_stat *range_stat_of(struct memory *m, struct ct_process *process, uint32_t path)
{
	struct mem_process *mp = mem_process_of(m, process);

	if (!mp)
		return NULL;
	if (path >= mp->range_capacity) {
		uint32_t capacity = mp->range_capacity ? mp->range_capacity : 64;
		struct range_stat *ranges;

		while (capacity <= path)
			capacity *= 2;
		ranges = realloc(mp->ranges, capacity * sizeof(*ranges));
		if (!ranges) {
			m->out_of_memory = 1;
			return NULL;
		}
		memset(ranges + mp->range_capacity, 0,
		       (capacity - mp->range_capacity) * sizeof(*ranges));
		mp->ranges = ranges;
		mp->range_capacity = capacity;
	}
	return &mp->ranges[path];
}

static unsigned clamp_kind(unsigned kind)
{
	return kind < CT_ENUM_COUNT(mem_kind) ? kind : CT_MEM_UNKNOWN;
}

/* ------------------------------------------------ NVTX range growth */

/* Adds DELTA to what PATH and the ranges around it hold in PROCESS. */
static void range_hold(struct memory *m, struct ct_process *process, uint32_t path, int64_t delta)
{
	for (; path != CT_PATH_NONE; path = ct_path_parent(m->ctx, path)) {
		struct range_stat *stat = range_stat_of(m, process, path);

		if (!stat)
			return;
		stat->held += delta;
	}
}

static void on_pop(struct memory *m, const struct ct_event *ev)
{
	struct range_stat *stat = range_stat_of(m, ev->process, ev->nvtx.path);

	if (!stat)
		return;
	if (stat->repetitions == 0)
		stat->first_held = stat->held;
	else if (stat->held > stat->last_held)
		stat->grew++;
	stat->last_held = stat->held;
	stat->repetitions++;
}

/* ------------------------------------------------------ allocations */

static void new_peak(struct memory *m, struct mem_device *md, const struct ct_event *ev)
{
	struct ct_alloc *a, *next;

	md->peak_bytes = md->on_device;
	md->peak_ns = ev->time_ns;
	md->peak_seq = ev->seq;
	memcpy(md->peak_kinds, md->live, sizeof(md->peak_kinds));
	/* those were freed before this new peak: not live at it */
	for (a = md->freed_since_peak; a; a = next) {
		next = a->next;
		ct_alloc_map_recycle(m->live, a);
	}
	md->freed_since_peak = NULL;
}

/* Accounts for the removal of A (freed, or replaced by a reuse of its address). */
static void release(struct memory *m, struct ct_alloc *a, const struct ct_event *ev)
{
	struct ct_process *process = ct_context_process_at(m->ctx, a->process);
	struct mem_device *md = mem_device_of(m, process, a->device);

	range_hold(m, process, a->path, -(int64_t)a->size);
	if (!md) {
		ct_alloc_map_recycle(m->live, a);
		return;
	}
	md->live[a->kind] -= (int64_t)a->size;
	if (ct_mem_kind_on_device(a->kind))
		md->on_device -= (int64_t)a->size;
	/* only what was added is taken away */
	CT_ASSERT_DBG(md->live[a->kind] >= 0 && md->on_device >= 0);
	if (!ev->before_window) {
		md->frees++;
		ct_series_add(&md->series, ev->time_ns, md->on_device);
	}
	if (md->peak_seq && a->seq <= md->peak_seq && ct_mem_kind_on_device(a->kind)) {
		a->next = md->freed_since_peak;
		md->freed_since_peak = a;
	} else {
		ct_alloc_map_recycle(m->live, a);
	}
}

static void on_alloc(struct memory *m, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	struct mem_device *md;
	struct ct_alloc *a;
	int replaced;

	/* a mapping is not memory of its own: vmm_physical carries the bytes */
	if (kind == CT_MEM_VMM_MAP)
		return;
	md = mem_device_of(m, ev->process, e->device);
	if (!md)
		return;
	a = ct_alloc_map_insert(m->live, ev->process->index, ct_addr_space_of(kind), e->address,
	                        &replaced);
	if (!a) {
		m->out_of_memory = 1;
		return;
	}
	if (replaced) {
		/* the address came back without a free we saw: the old one is gone */
		struct ct_alloc *old = ct_alloc_map_remove(m->live, ev->process->index,
		                                           ct_addr_space_of(kind), e->address);

		release(m, old, ev);
		a = ct_alloc_map_insert(m->live, ev->process->index, ct_addr_space_of(kind),
		                        e->address, &replaced);
		if (!a) {
			m->out_of_memory = 1;
			return;
		}
	}
	a->size = e->size;
	a->time_ns = ev->time_ns;
	a->seq = ev->seq;
	a->thread = ev->thread;
	a->path = ev->site;
	a->api = e->api;
	a->stream = e->stream;
	a->device = e->device;
	a->kind = (uint8_t)kind;
	md->live[kind] += (int64_t)e->size;
	if (ct_mem_kind_on_device(kind))
		md->on_device += (int64_t)e->size;
	range_hold(m, ev->process, a->path, (int64_t)e->size);
	if (ev->before_window)
		return;
	md->allocations++;
	md->bytes_allocated += e->size;
	if (md->live[kind] > md->kind_peak[kind])
		md->kind_peak[kind] = md->live[kind];
	if (ct_mem_kind_on_device(kind) && md->on_device > md->peak_bytes)
		new_peak(m, md, ev);
	ct_series_add(&md->series, ev->time_ns, md->on_device);
}

static void on_free(struct memory *m, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	struct ct_alloc *a;

	if (kind == CT_MEM_VMM_MAP)
		return;
	a = ct_alloc_map_remove(m->live, ev->process->index, ct_addr_space_of(kind), e->address);
	if (!a) {
		struct mem_device *md = mem_device_of(m, ev->process, e->device);

		if (md && !ev->before_window)
			md->unknown_frees++;
		return;
	}
	release(m, a, ev);
}

static void on_failure(struct memory *m, const struct ct_event *ev)
{
	struct mem_device *md = mem_device_of(m, ev->process, ev->u.mem_alloc_failed.device);

	if (md)
		md->failures++;
}

static void memory_event(void *state, const struct ct_event *ev)
{
	struct memory *m = state;

	switch (ev->type) {
	case CT_EV_MEM_ALLOC:
		on_alloc(m, ev);
		break;
	case CT_EV_MEM_FREE:
		on_free(m, ev);
		break;
	case CT_EV_MEM_ALLOC_FAILED:
		on_failure(m, ev);
		break;
	case CT_EV_NVTX_POP:
		on_pop(m, ev);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ report */

/* The allocations of one (process, device) gathered for the report. Owned by its user. */
struct alloc_list {
	const struct ct_alloc **items; /* owned array; records borrowed from the map */
	size_t count;
	size_t capacity;
};

static int alloc_list_add(struct alloc_list *list, const struct ct_alloc *a)
{
	if (list->count == list->capacity) {
		size_t capacity = list->capacity ? list->capacity * 2 : 64;
		const struct ct_alloc **items = realloc(list->items, capacity * sizeof(*items));

		if (!items)
			return -1;
		list->items = items;
		list->capacity = capacity;
	}
	list->items[list->count++] = a;
	return 0;
}

static int by_size_then_time(const void *pa, const void *pb)
{
	const struct ct_alloc *a = *(const struct ct_alloc *const *)pa;
	const struct ct_alloc *b = *(const struct ct_alloc *const *)pb;

	if (a->size != b->size)
		return a->size < b->size ? 1 : -1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* What one (process, device) entry of the report gathers from the live map. */
struct device_gather {
	const struct mem_device *md;
	struct alloc_list leaks; /* live at the end */
	struct alloc_list peak;  /* live at the peak */
	int failed;
};

static void gather_one(const struct ct_alloc *a, void *data)
{
	struct device_gather *g = data;
	const struct mem_device *md = g->md;

	if (a->process != md->process->index || a->device != md->device)
		return;
	if (alloc_list_add(&g->leaks, a) < 0)
		g->failed = 1;
	if (md->peak_seq && a->seq <= md->peak_seq && ct_mem_kind_on_device(a->kind) &&
	    alloc_list_add(&g->peak, a) < 0)
		g->failed = 1;
}

static int gather(struct memory *m, struct device_gather *g)
{
	ct_alloc_map_foreach(m->live, gather_one, g);
	for (const struct ct_alloc *a = g->md->freed_since_peak; a; a = a->next)
		if (alloc_list_add(&g->peak, a) < 0)
			g->failed = 1;
	if (g->failed)
		return -1;
	/* qsort's array must not be NULL, even when empty */
	if (g->leaks.count)
		qsort(g->leaks.items, g->leaks.count, sizeof(*g->leaks.items), by_size_then_time);
	if (g->peak.count)
		qsort(g->peak.items, g->peak.count, sizeof(*g->peak.items), by_size_then_time);
	return 0;
}

static void write_alloc(struct memory *m, struct ct_doc *doc, const struct ct_alloc *a,
                        int64_t at_ns)
{
	struct ct_process *process = ct_context_process_at(m->ctx, a->process);
	const char *api = ct_context_api_name(process, a->api.domain, a->api.cbid);
	char site[512];
	char path[512];

	ct_doc_object(doc, NULL, NULL);
	ct_doc_u64(doc, "address", a->address, CT_UNIT_ADDRESS);
	ct_doc_u64(doc, "size", a->size, CT_UNIT_BYTES);
	ct_doc_string(doc, "kind", ct_mem_kind_label(a->kind));
	ct_doc_i64(doc, "alloc_time_ns", a->time_ns, CT_UNIT_TIME);
	ct_doc_i64(doc, "age_ns", at_ns - a->time_ns, CT_UNIT_DURATION);
	ct_doc_string(doc, "site",
	              ct_site_format(m->ctx, process, a->path, &a->api, site, sizeof(site)));
	ct_doc_string(doc, "nvtx_path", ct_path_format(m->ctx, a->path, path, sizeof(path)));
	ct_doc_string(doc, "api", api);
	ct_doc_i64(doc, "tid", a->thread ? a->thread->tid : -1, CT_UNIT_ID);
	ct_doc_end(doc);
}

static void write_alloc_list(struct memory *m, struct ct_doc *doc, const char *key,
                             const char *title, const struct alloc_list *list, int64_t at_ns)
{
	size_t shown = list->count < m->opts->max_rows ? list->count : m->opts->max_rows;

	ct_doc_array(doc, key, title);
	for (size_t i = 0; i < shown; i++)
		write_alloc(m, doc, list->items[i], at_ns);
	ct_doc_end(doc);
}

/* A leak site: live allocations at the end grouped by where they were made. */
struct leak_site {
	char site[512];
	uint64_t count;
	uint64_t bytes;
};

static int by_bytes(const void *pa, const void *pb)
{
	const struct leak_site *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return strcmp(a->site, b->site);
}

/* Groups the leaks by site: quadratic in the number of distinct sites, which stays small. */
static int write_leak_sites(struct memory *m, struct ct_doc *doc, const struct alloc_list *leaks)
{
	struct leak_site *sites = NULL;
	size_t count = 0;
	size_t shown;

	if (leaks->count) {
		sites = calloc(leaks->count, sizeof(*sites));
		if (!sites)
			return -1;
	}
	for (size_t i = 0; i < leaks->count; i++) {
		const struct ct_alloc *a = leaks->items[i];
		char site[512];
		size_t j;

		ct_site_format(m->ctx, ct_context_process_at(m->ctx, a->process), a->path, &a->api,
		               site, sizeof(site));
		for (j = 0; j < count && strcmp(sites[j].site, site); j++)
			;
		if (j == count)
			snprintf(sites[count++].site, sizeof(sites->site), "%s", site);
		sites[j].count++;
		sites[j].bytes += a->size;
	}
	if (count)
		qsort(sites, count, sizeof(*sites), by_bytes);
	shown = count < m->opts->max_rows ? count : m->opts->max_rows;
	ct_doc_array(doc, "leak_sites", "Live at the end, by site");
	for (size_t i = 0; i < shown; i++) {
		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "site", sites[i].site);
		ct_doc_u64(doc, "count", sites[i].count, CT_UNIT_NONE);
		ct_doc_u64(doc, "bytes", sites[i].bytes, CT_UNIT_BYTES);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
	free(sites);
	return 0;
}

static void write_kinds(struct ct_doc *doc, const struct mem_device *md)
{
	ct_doc_array(doc, "kinds", "By kind");
	for (unsigned k = 0; k < CT_ENUM_COUNT(mem_kind); k++) {
		if (!md->kind_peak[k] && !md->live[k] && !md->peak_kinds[k])
			continue;
		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "kind", ct_mem_kind_label(k));
		ct_doc_i64(doc, "peak_bytes", md->kind_peak[k], CT_UNIT_BYTES);
		ct_doc_i64(doc, "at_device_peak_bytes", md->peak_kinds[k], CT_UNIT_BYTES);
		ct_doc_i64(doc, "live_at_end_bytes", md->live[k], CT_UNIT_BYTES);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static uint64_t sum_sizes(const struct alloc_list *list)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < list->count; i++)
		bytes += list->items[i]->size;
	return bytes;
}

static int write_device(struct memory *m, struct ct_doc *doc, const struct mem_device *md)
{
	struct device_gather g = { .md = md };
	int ret = -1;

	CT_ASSERT(md->on_device >= 0);
	if (gather(m, &g) < 0)
		goto end;
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", md->process->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", md->process->procname);
	ct_doc_string(doc, "hostname", md->process->hostname);
	ct_doc_u64(doc, "device", md->device, CT_UNIT_ID);
	ct_doc_i64(doc, "peak_bytes", md->peak_bytes, CT_UNIT_BYTES);
	if (md->peak_seq)
		ct_doc_i64(doc, "peak_time_ns", md->peak_ns, CT_UNIT_TIME);
	else
		ct_doc_null(doc, "peak_time_ns");
	ct_doc_i64(doc, "live_at_end_bytes", md->on_device, CT_UNIT_BYTES);
	ct_doc_u64(doc, "allocations", md->allocations, CT_UNIT_NONE);
	ct_doc_u64(doc, "frees", md->frees, CT_UNIT_NONE);
	ct_doc_u64(doc, "bytes_allocated", md->bytes_allocated, CT_UNIT_BYTES);
	ct_doc_u64(doc, "unknown_frees", md->unknown_frees, CT_UNIT_NONE);
	ct_doc_u64(doc, "failures", md->failures, CT_UNIT_NONE);
	write_kinds(doc, md);
	ct_doc_u64(doc, "peak_allocation_count", g.peak.count, CT_UNIT_NONE);
	write_alloc_list(m, doc, "peak_allocations", "Live at the peak", &g.peak, md->peak_ns);
	ct_doc_u64(doc, "leak_count", g.leaks.count, CT_UNIT_NONE);
	ct_doc_u64(doc, "leaked_bytes", sum_sizes(&g.leaks), CT_UNIT_BYTES);
	/* the end of a process is its last event (a killed one has no exit) */
	write_alloc_list(m, doc, "leaks", "Live at the end", &g.leaks,
	                 md->process->events ? md->process->last_ns : m->end_ns);
	if (write_leak_sites(m, doc, &g.leaks) < 0)
		goto end;
	ct_doc_end(doc);
	ret = 0;
end:
	free(g.leaks.items);
	free(g.peak.items);
	return ret;
}

static void write_growing_ranges(struct memory *m, struct ct_doc *doc)
{
	ct_doc_array(doc, "growing_ranges", "NVTX ranges that grow step after step");
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
		struct ct_process *process = ct_context_process_at(m->ctx, p);
		struct mem_process *mp = process->slot[m->slot];

		for (uint32_t path = 1; mp && path < mp->range_capacity; path++) {
			const struct range_stat *s = &mp->ranges[path];
			char name[512];

			/* growth is a pattern: most repetitions end holding more than the one before */
			if (s->repetitions < 2 || s->last_held <= s->first_held ||
			    s->grew * 2 < s->repetitions - 1)
				continue;
			ct_doc_object(doc, NULL, NULL);
			ct_doc_i64(doc, "pid", process->pid, CT_UNIT_ID);
			ct_doc_string(doc, "process", process->procname);
			ct_doc_string(doc, "range",
			              ct_path_format(m->ctx, path, name, sizeof(name)));
			ct_doc_u64(doc, "repetitions", s->repetitions, CT_UNIT_NONE);
			ct_doc_u64(doc, "growing_repetitions", s->grew, CT_UNIT_NONE);
			ct_doc_i64(doc, "held_after_first_bytes", s->first_held, CT_UNIT_BYTES);
			ct_doc_i64(doc, "held_after_last_bytes", s->last_held, CT_UNIT_BYTES);
			ct_doc_i64(doc, "growth_per_repetition_bytes",
			           (s->last_held - s->first_held) / (int64_t)(s->repetitions - 1),
			           CT_UNIT_BYTES);
			ct_doc_i64(doc, "held_at_end_bytes", s->held, CT_UNIT_BYTES);
			ct_doc_end(doc);
		}
	}
	ct_doc_end(doc);
}

static void write_timeline(struct memory *m, struct ct_doc *doc)
{
	ct_doc_array(doc, "timeline", "Device memory over time");
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
		struct ct_process *process = ct_context_process_at(m->ctx, p);
		struct mem_process *mp = process->slot[m->slot];

		for (unsigned d = 0; mp && d < 256; d++) {
			const struct mem_device *md = mp->devices[d];

			for (size_t i = 0; md && i < md->series.count; i++) {
				const struct ct_series_point *pt = &md->series.points[i];

				ct_doc_object(doc, NULL, NULL);
				ct_doc_i64(doc, "pid", process->pid, CT_UNIT_ID);
				ct_doc_u64(doc, "device", d, CT_UNIT_ID);
				ct_doc_i64(doc, "time_ns", pt->time_ns, CT_UNIT_TIME);
				ct_doc_i64(doc, "bytes", pt->last, CT_UNIT_BYTES);
				ct_doc_i64(doc, "min_bytes", pt->min, CT_UNIT_BYTES);
				ct_doc_i64(doc, "max_bytes", pt->max, CT_UNIT_BYTES);
				ct_doc_end(doc);
			}
		}
	}
	ct_doc_end(doc);
}

static enum ct_analysis_status memory_report(void *state, struct ct_doc *doc)
{
	struct memory *m = state;

	if (m->out_of_memory)
		return CT_ANALYSIS_MEMORY_ERROR;
	ct_doc_object(doc, "memory", "Memory");
	ct_doc_array(doc, "devices", "By process and device");
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
		struct mem_process *mp = ct_context_process_at(m->ctx, p)->slot[m->slot];

		for (unsigned d = 0; mp && d < 256; d++)
			if (mp->devices[d] && write_device(m, doc, mp->devices[d]) < 0)
				return CT_ANALYSIS_MEMORY_ERROR;
	}
	ct_doc_end(doc);
	write_growing_ranges(m, doc);
	write_timeline(m, doc);
	ct_doc_end(doc);
	return CT_ANALYSIS_OK;
}

/* ----------------------------------------------------------- lifecycle */

static enum ct_analysis_status memory_create(struct ct_context *ctx, const struct ct_options *opts,
                                             void **state)
{
	struct memory *m = calloc(1, sizeof(*m));

	*state = m;
	if (!m)
		goto oom;
	m->slot = -1;
	m->ctx = ctx;
	m->opts = opts;
	m->slot = ct_analysis_slot(ctx);
	if (m->slot < 0)
		return CT_ANALYSIS_NO_SLOT;
	m->live = ct_alloc_map_create();
	if (!m->live)
		goto oom;
	return CT_ANALYSIS_OK;
oom:
	return CT_ANALYSIS_MEMORY_ERROR;
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
	if (m->slot >= 0) {
		for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
			struct ct_process *process = ct_context_process_at(m->ctx, p);
			struct mem_process *mp = process->slot[m->slot];

			for (unsigned d = 0; mp && d < 256; d++) {
				if (mp->devices[d])
					ct_series_release(&mp->devices[d]->series);
				free(mp->devices[d]);
			}
			if (mp)
				free(mp->ranges);
			free(mp);
			process->slot[m->slot] = NULL;
		}
	}
	/* records kept aside for the peak belong to the map's pool */
	ct_alloc_map_destroy(m->live);
	free(m);
}

const struct ct_analysis_class ct_memory_analysis = {
	.name = "memory",
	.wants = CT_EV_BIT(CT_EV_MEM_ALLOC) | CT_EV_BIT(CT_EV_MEM_FREE) |
	         CT_EV_BIT(CT_EV_MEM_ALLOC_FAILED) | CT_EV_BIT(CT_EV_NVTX_POP),
	.create = memory_create,
	.event = memory_event,
	.finish = memory_finish,
	.report = memory_report,
	.destroy = memory_destroy,
};
