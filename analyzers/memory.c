/* SPDX-License-Identifier: MIT */
/*
 * memory.c - the memory analysis: live bytes over time per process, device
 * and kind; the peak and the allocations live at it; what is still live at
 * the end (leaks); NVTX ranges whose allocations hold more memory each time they repeat;
 * a bounded time series for plots.
 *
 * State grows with live allocations only: a GHashTable of them by
 * (process, address space, address). The allocations live at the peak
 * are found without copying the live set at each new peak: an allocation
 * made before the peak and freed after it is kept aside (never more than
 * the allocations live at the peak), and at the end the peak set is the
 * live allocations made before the peak plus the ones kept aside.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "assert.h"
#include "memory.h"
#include "series.h"

_Static_assert(CT_ENUM_COUNT(mem_kind) <= UINT8_MAX, "memory kinds are kept in 8 bits");

/*
 * Address spaces: VMM physical handles are not addresses and mappings
 * alias the memory behind them, so each has a space of its own.
 */
enum addr_space {
	SPACE_MEMORY = 0,
	SPACE_VMM_HANDLE = 1,
	SPACE_VMM_MAP = 2,
};

/* A live allocation. Owned by the live table, or by the list of its device that keeps it for the peak. */
struct alloc {
	uint64_t address;
	uint64_t size;
	int64_t time_ns;          /* when allocated */
	uint64_t seq;             /* ct_event.seq of the allocation */
	struct ct_thread *thread; /* borrowed from the context */
	uint32_t process;         /* ct_process.index */
	uint32_t path;            /* NVTX path at the allocation */
	struct ct_api_ref api;
	uint8_t device;
	uint8_t kind;
	uint8_t space; /* enum addr_space */
};

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
	/* Allocations live at the peak and freed since, struct alloc; owned. */
	GPtrArray *freed_since_peak;
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
	GArray *ranges;                  /* struct range_stat, by path id; owned */
};

struct memory {
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	int slot;
	GHashTable *live; /* the live allocations, struct alloc, each its own key; owned */
	int64_t end_ns;
	struct ct_memory_result result; /* owned, once computed */
};

/* ------------------------------------------------------------- state */

static struct mem_process *mem_process_of(struct memory *m, struct ct_process *process)
{
	struct mem_process *mp = process->slot[m->slot];

	if (!mp) {
		mp = g_new0(struct mem_process, 1);
		mp->ranges = g_array_new(FALSE, TRUE, sizeof(struct range_stat));
		process->slot[m->slot] = mp;
	}
	return mp;
}

static struct mem_device *mem_device_of(struct memory *m, struct ct_process *process,
                                        unsigned device)
{
	struct mem_process *mp = mem_process_of(m, process);
	struct mem_device *md = mp->devices[device & 0xff];

	if (md)
		return md;
	md = g_new0(struct mem_device, 1);
	ct_series_init(&md->series, m->opts->series_points);
	md->process = process;
	md->device = (uint8_t)device;
	md->freed_since_peak = g_ptr_array_new_with_free_func(g_free);
	mp->devices[device & 0xff] = md;
	return md;
}

static void mem_device_free(struct mem_device *md)
{
	if (!md)
		return;
	ct_series_release(&md->series);
	g_ptr_array_free(md->freed_since_peak, TRUE);
	g_free(md);
}

static struct range_stat *range_stat_of(struct memory *m, struct ct_process *process, uint32_t path)
{
	GArray *ranges = mem_process_of(m, process)->ranges;

	/* the new ones are zeroed */
	if (path >= ranges->len)
		g_array_set_size(ranges, path + 1);
	return &g_array_index(ranges, struct range_stat, path);
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
		range_stat_of(m, process, path)->held += delta;
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

/* ------------------------------------------------------ allocations */

/* The address space of allocations of KIND (enum ct_mem_kind). */
static enum addr_space space_of(unsigned kind)
{
	if (kind == CT_MEM_VMM_PHYSICAL)
		return SPACE_VMM_HANDLE;
	if (kind == CT_MEM_VMM_MAP)
		return SPACE_VMM_MAP;
	return SPACE_MEMORY;
}

static guint alloc_hash(gconstpointer key)
{
	const struct alloc *a = key;
	uint64_t h = a->address ^ ((uint64_t)a->process << 40) ^ ((uint64_t)a->space << 60);

	/* splitmix64's finaliser: allocation addresses share their low bits */
	h ^= h >> 30;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 27;
	h *= UINT64_C(0x94d049bb133111eb);
	h ^= h >> 31;
	return (guint)h;
}

static gboolean alloc_equal(gconstpointer pa, gconstpointer pb)
{
	const struct alloc *a = pa, *b = pb;

	return a->address == b->address && a->process == b->process && a->space == b->space;
}

/* Takes the live allocation of (PROCESS, SPACE, ADDRESS) out of the table; NULL if none. */
static struct alloc *take_live(struct memory *m, uint32_t process, unsigned space, uint64_t address)
{
	struct alloc key = { .address = address, .process = process, .space = (uint8_t)space };
	gpointer found;

	if (!g_hash_table_steal_extended(m->live, &key, &found, NULL))
		return NULL;
	return found;
}

static void new_peak(struct memory *m, struct mem_device *md, const struct ct_event *ev)
{
	md->peak_bytes = md->on_device;
	md->peak_ns = ev->time_ns;
	md->peak_seq = ev->seq;
	memcpy(md->peak_kinds, md->live, sizeof(md->peak_kinds));
	/* those were freed before this new peak: not live at it */
	g_ptr_array_set_size(md->freed_since_peak, 0);
}

/* Accounts for the removal of A (freed, or replaced by a reuse of its address), now the caller's. */
static void release(struct memory *m, struct alloc *a, const struct ct_event *ev)
{
	struct ct_process *process = ct_context_process_at(m->ctx, a->process);
	struct mem_device *md = mem_device_of(m, process, a->device);

	range_hold(m, process, a->path, -(int64_t)a->size);
	md->live[a->kind] -= (int64_t)a->size;
	if (ct_mem_kind_on_device(a->kind))
		md->on_device -= (int64_t)a->size;
	/* only what was added is taken away */
	CT_ASSERT_DBG(md->live[a->kind] >= 0 && md->on_device >= 0);
	if (!ev->before_window) {
		md->frees++;
		ct_series_add(&md->series, ev->time_ns, md->on_device);
	}
	if (md->peak_seq && a->seq <= md->peak_seq && ct_mem_kind_on_device(a->kind))
		g_ptr_array_add(md->freed_since_peak, a);
	else
		g_free(a);
}

static void on_alloc(struct memory *m, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	struct mem_device *md;
	struct alloc *a, *old;

	/* a mapping is not memory of its own: vmm_physical carries the bytes */
	if (kind == CT_MEM_VMM_MAP)
		return;
	md = mem_device_of(m, ev->process, e->device);
	/* the address came back without a free we saw: the old one is gone */
	old = take_live(m, ev->process->index, space_of(kind), e->address);
	if (old)
		release(m, old, ev);
	a = g_new(struct alloc, 1);
	*a = (struct alloc){
		.address = e->address,
		.size = e->size,
		.time_ns = ev->time_ns,
		.seq = ev->seq,
		.thread = ev->thread,
		.process = ev->process->index,
		.path = ev->site,
		.api = e->api,
		.device = e->device,
		.kind = (uint8_t)kind,
		.space = (uint8_t)space_of(kind),
	};
	g_hash_table_add(m->live, a);
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
	struct alloc *a;

	if (kind == CT_MEM_VMM_MAP)
		return;
	a = take_live(m, ev->process->index, space_of(kind), e->address);
	if (!a) {
		struct mem_device *md = mem_device_of(m, ev->process, e->device);

		if (!ev->before_window)
			md->unknown_frees++;
		return;
	}
	release(m, a, ev);
}

static void on_failure(struct memory *m, const struct ct_event *ev)
{
	mem_device_of(m, ev->process, ev->u.mem_alloc_failed.device)->failures++;
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

/* ------------------------------------------------------------ result */

static gint by_size_then_time(gconstpointer pa, gconstpointer pb)
{
	const struct alloc *a = *(const struct alloc *const *)pa;
	const struct alloc *b = *(const struct alloc *const *)pb;

	if (a->size != b->size)
		return a->size < b->size ? 1 : -1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The live allocations of one (process, device) the result lists. */
struct device_gather {
	const struct mem_device *md;
	GPtrArray *leaks; /* live at the end; records borrowed from the map */
	GPtrArray *peak;  /* live at the peak; idem */
};

static void gather_one(gpointer key, gpointer value, gpointer data)
{
	const struct alloc *a = key;
	struct device_gather *g = data;
	const struct mem_device *md = g->md;

	if (a->process != md->process->index || a->device != md->device)
		return;
	g_ptr_array_add(g->leaks, (gpointer)a);
	if (md->peak_seq && a->seq <= md->peak_seq && ct_mem_kind_on_device(a->kind))
		g_ptr_array_add(g->peak, (gpointer)a);
}

/* Both lists of MD, largest first. */
static void gather(struct memory *m, struct device_gather *g)
{
	g->leaks = g_ptr_array_new();
	g->peak = g_ptr_array_new();
	g_hash_table_foreach(m->live, gather_one, g);
	for (guint i = 0; i < g->md->freed_since_peak->len; i++)
		g_ptr_array_add(g->peak, g_ptr_array_index(g->md->freed_since_peak, i));
	g_ptr_array_sort(g->leaks, by_size_then_time);
	g_ptr_array_sort(g->peak, by_size_then_time);
}

static const char *intern(struct memory *m, const char *text)
{
	return text ? g_string_chunk_insert_const(m->result.strings, text) : NULL;
}

static struct ct_memory_alloc alloc_of(struct memory *m, const struct alloc *a, int64_t at_ns)
{
	struct ct_process *process = ct_context_process_at(m->ctx, a->process);
	char site[512];
	char path[512];

	return (struct ct_memory_alloc){
		.address = a->address,
		.size = a->size,
		.kind = a->kind,
		.alloc_time_ns = a->time_ns,
		.age_ns = at_ns - a->time_ns,
		.site = intern(
		    m, ct_site_format(m->ctx, process, a->path, &a->api, site, sizeof(site))),
		.nvtx_path = intern(m, ct_path_format(m->ctx, a->path, path, sizeof(path))),
		.api = intern(m, ct_context_api_name(process, a->api.domain, a->api.cbid)),
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
	return strcmp(a->site, b->site);
}

/* LEAKS grouped by site, the most bytes first, at most max_rows of them. */
static GArray *leak_sites(struct memory *m, const GPtrArray *leaks)
{
	GArray *sites = g_array_new(FALSE, FALSE, sizeof(struct ct_memory_leak_site));
	/* site -> its index in SITES + 1; keys are the result's strings */
	GHashTable *index = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; i < leaks->len; i++) {
		const struct alloc *a = g_ptr_array_index(leaks, i);
		char text[512];
		const char *site =
		    intern(m, ct_site_format(m->ctx, ct_context_process_at(m->ctx, a->process),
		                             a->path, &a->api, text, sizeof(text)));
		guint at = GPOINTER_TO_UINT(g_hash_table_lookup(index, site));
		struct ct_memory_leak_site *s;

		if (!at) {
			struct ct_memory_leak_site fresh = { .site = site };

			g_array_append_val(sites, fresh);
			at = sites->len;
			g_hash_table_insert(index, (gpointer)site, GUINT_TO_POINTER(at));
		}
		s = &g_array_index(sites, struct ct_memory_leak_site, at - 1);
		s->count++;
		s->bytes += a->size;
	}
	g_hash_table_destroy(index);
	g_array_sort(sites, by_bytes);
	if (sites->len > m->opts->max_rows)
		g_array_set_size(sites, (guint)m->opts->max_rows);
	return sites;
}

static GArray *kinds_of(const struct mem_device *md)
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

static void add_device(struct memory *m, const struct mem_device *md)
{
	struct device_gather g = { .md = md };
	struct ct_memory_device d = {
		.pid = md->process->pid,
		.process = intern(m, md->process->procname),
		.hostname = intern(m, md->process->hostname),
		.device = md->device,
		.peak_bytes = md->peak_bytes,
		.has_peak = md->peak_seq != 0,
		.peak_time_ns = md->peak_ns,
		.live_at_end_bytes = md->on_device,
		.allocations = md->allocations,
		.frees = md->frees,
		.bytes_allocated = md->bytes_allocated,
		.unknown_frees = md->unknown_frees,
		.failures = md->failures,
		.kinds = kinds_of(md),
	};

	CT_ASSERT(md->on_device >= 0);
	gather(m, &g);
	d.peak_allocation_count = g.peak->len;
	d.peak_allocations = alloc_list(m, g.peak, md->peak_ns);
	d.leak_count = g.leaks->len;
	for (guint i = 0; i < g.leaks->len; i++)
		d.leaked_bytes += ((const struct alloc *)g_ptr_array_index(g.leaks, i))->size;
	/* the end of a process is its last event (a killed one has no exit) */
	d.leaks = alloc_list(m, g.leaks, md->process->events ? md->process->last_ns : m->end_ns);
	d.leak_sites = leak_sites(m, g.leaks);
	g_array_append_val(m->result.devices, d);
	g_ptr_array_free(g.leaks, TRUE);
	g_ptr_array_free(g.peak, TRUE);
}

static void add_growing_ranges(struct memory *m)
{
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
		struct ct_process *process = ct_context_process_at(m->ctx, p);
		struct mem_process *mp = process->slot[m->slot];

		for (guint path = 1; mp && path < mp->ranges->len; path++) {
			const struct range_stat *s =
			    &g_array_index(mp->ranges, struct range_stat, path);
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
                         const struct mem_device *md)
{
	for (size_t i = 0; i < md->series.points->len; i++) {
		const struct ct_series_point *pt = ct_series_at(&md->series, i);
		struct ct_memory_point point = {
			.pid = process->pid,
			.device = md->device,
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
	m->result.strings = g_string_chunk_new(4096);
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
		struct ct_process *process = ct_context_process_at(m->ctx, p);
		struct mem_process *mp = process->slot[m->slot];

		for (unsigned d = 0; mp && d < 256; d++)
			if (mp->devices[d])
				add_device(m, mp->devices[d]);
	}
	add_growing_ranges(m);
	for (size_t p = 0; p < ct_context_process_count(m->ctx); p++) {
		struct ct_process *process = ct_context_process_at(m->ctx, p);
		struct mem_process *mp = process->slot[m->slot];

		for (unsigned d = 0; mp && d < 256; d++)
			if (mp->devices[d])
				add_timeline(m, process, mp->devices[d]);
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
	}
	if (r->devices)
		g_array_unref(r->devices);
	if (r->growing_ranges)
		g_array_unref(r->growing_ranges);
	if (r->timeline)
		g_array_unref(r->timeline);
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
	/* each record is its own key, and the table owns it */
	m->live = g_hash_table_new_full(alloc_hash, alloc_equal, g_free, NULL);
	m->slot = ct_analysis_slot(ctx);
	return m->slot < 0 ? CT_ANALYSIS_NO_SLOT : CT_ANALYSIS_OK;
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

			for (unsigned d = 0; mp && d < 256; d++)
				mem_device_free(mp->devices[d]);
			if (mp)
				g_array_unref(mp->ranges);
			g_free(mp);
			process->slot[m->slot] = NULL;
		}
	}
	result_release(&m->result);
	g_hash_table_destroy(m->live);
	g_free(m);
}

const struct ct_analysis_class ct_memory_analysis = {
	.name = "memory",
	.section = &ct_memory_section,
	.wants = CT_EV_BIT(CT_EV_MEM_ALLOC) | CT_EV_BIT(CT_EV_MEM_FREE) |
	         CT_EV_BIT(CT_EV_MEM_ALLOC_FAILED) | CT_EV_BIT(CT_EV_NVTX_POP),
	.create = memory_create,
	.event = memory_event,
	.finish = memory_finish,
	.result = memory_result,
	.destroy = memory_destroy,
};
