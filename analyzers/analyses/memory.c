/* SPDX-License-Identifier: MIT */
/*
 * memory.c - the memory analysis: live bytes over time per process, device
 * and kind; the peak and the allocations live at it; what is still live at
 * the end (leaks); NVTX ranges whose allocations hold more memory each time they repeat;
 * call sites whose allocations accumulate over the run (growing_site says
 * when); a bounded time series for plots.
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

/*
 * What a process did, for growing sites: the kernels it launched, and its
 * acts, the clock of the run: a launch, a copy, a memset, an allocation
 * or free of the device kinds (CUDA's teardown is not its doing).
 */
struct work {
	uint64_t launches;
	uint64_t acts;
	/* Its Python interpreter began to exit (python_exit): what is freed
	 * from then on, the interpreter's teardown frees, not the program. */
	bool exiting;
};

/* What the analysis keeps of one (process, device), beside the accountant's. */
struct mem_device {
	struct ct_series series; /* on_device over time; points NULL until the first */
	uint64_t failures;
	/* struct site_key -> struct site_stat (both in one block); NULL until the first */
	GHashTable *sites;
	uint64_t frees; /* the program's frees of memory of the device kinds */
	/* Copies of the allocations the interpreter freed as it exited (struct ct_acct_alloc, owned). */
	GPtrArray *exit_freed;
	uint64_t exit_freed_bytes;
	/* The process's acts at the program's first allocation or free there. */
	bool active;
	uint64_t first_act;
};

/*
 * Where an allocation was made, as the pass knows it: NVTX path, call and
 * call stack. Sites are named (ct_call_site_format) at the end, when the
 * stacks are symbolized; two keys may then name the same site.
 */
struct site_key {
	uint64_t stack_id;
	uint32_t path;
	uint16_t cbid;
	uint8_t domain;
};

/*
 * The allocations of the device kinds made at one site (key), to tell
 * memory that grows over the run from memory held once (see
 * growing_site): what the site holds is the bytes of its allocations the
 * program has not freed (those CUDA reclaimed with the context included:
 * the program never gave them back); a rise, an allocation that takes it
 * to a new high; a step, a rise with memory freed on the device, or a
 * kernel launched by the process, since the rise before: the program
 * computed in between (copies alone load data, as start-up does).
 */
struct site_stat {
	struct site_key key;
	uint64_t allocations, freed, reclaimed;
	uint64_t smallest, largest;
	int64_t held, high, first_high;
	uint64_t rises, steps;
	uint64_t frees_seen;    /* the device's frees at its last rise */
	uint64_t launches_seen; /* the process's launches at its last rise */
	int64_t first_rise_ns, last_rise_ns;
	uint64_t first_rise_act, last_rise_act; /* the process's acts then */
	uint64_t risen_keys; /* of a site's keys taken together, those that rose */
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
	GArray *work;                   /* struct work by process index */
	struct ct_memory_result result; /* owned, once computed */
	GArray *holdings;               /* struct failure_holding, in time order; owned */
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

/* ------------------------------------------------ growth by call site */

static guint site_key_hash(gconstpointer p)
{
	const struct site_key *k = p;

	return (guint)(k->stack_id * 0x9e3779b97f4a7c15u) ^ k->path * 31u ^ (guint)k->cbid << 8 ^
	       k->domain;
}

static gboolean site_key_equal(gconstpointer pa, gconstpointer pb)
{
	const struct site_key *a = pa, *b = pb;

	return a->stack_id == b->stack_id && a->path == b->path && a->cbid == b->cbid &&
	       a->domain == b->domain;
}

/* Whether A counts for the growth of its site: seen allocated, of the device kinds. */
static bool site_counts(const struct ct_acct_alloc *a)
{
	return a->origin == CT_ACCT_TRACED && ct_mem_kind_on_device(a->kind);
}

/* The statistics of A's site in MD, made on first use. */
static struct site_stat *site_stat_of(struct mem_device *md, const struct ct_acct_alloc *a)
{
	struct site_key key = { .stack_id = a->stack_id,
		                .path = a->path,
		                .cbid = a->api.cbid,
		                .domain = a->api.domain };
	struct site_stat *s;

	if (!md->sites)
		md->sites = g_hash_table_new_full(site_key_hash, site_key_equal, NULL, g_free);
	s = g_hash_table_lookup(md->sites, &key);
	if (!s) {
		s = g_new0(struct site_stat, 1);
		s->key = key;
		s->smallest = UINT64_MAX;
		g_hash_table_insert(md->sites, &s->key, s);
	}
	return s;
}

/* What PROCESS did so far. */
static struct work *work_of(struct memory *m, const struct ct_process *process)
{
	if (process->index >= m->work->len)
		g_array_set_size(m->work, process->index + 1);
	return &g_array_index(m->work, struct work, process->index);
}

/* The program allocated or freed memory of the device kinds on DEV: its acts so far. */
static uint64_t site_activity(struct memory *m, struct mem_device *md,
                              const struct ct_acct_device *dev)
{
	struct work *w = work_of(m, dev->process);

	w->acts++;
	if (!md->active)
		md->first_act = w->acts;
	md->active = true;
	return w->acts;
}

static void site_allocated(struct memory *m, struct mem_device *md,
                           const struct ct_acct_device *dev, const struct ct_acct_alloc *a,
                           const struct ct_event *ev)
{
	struct site_stat *s = site_stat_of(md, a);
	uint64_t launches = work_of(m, dev->process)->launches, act;

	if (ev->type == CT_EV_MEM_FREE_FAILED) {
		/* its release failed: still held, as if never freed */
		s->freed -= s->freed > 0;
		s->held = ct_bytes_add(s->held, a->size);
		return;
	}
	act = site_activity(m, md, dev);
	s->allocations++;
	s->smallest = MIN(s->smallest, a->size);
	s->largest = MAX(s->largest, a->size);
	s->held = ct_bytes_add(s->held, a->size);
	if (s->held <= s->high)
		return;
	s->high = s->held;
	if (!s->rises++) {
		s->first_high = s->held;
		s->first_rise_ns = ev->time_ns;
		s->first_rise_act = act;
	}
	if (s->rises == 1 || md->frees > s->frees_seen || launches > s->launches_seen)
		s->steps++;
	s->frees_seen = md->frees;
	s->launches_seen = launches;
	s->last_rise_ns = ev->time_ns;
	s->last_rise_act = act;
}

/*
 * A released A of a counted site; AT_EXIT: the interpreter's teardown
 * freed it (python_exit), which held it to the end, as CUDA's does.
 */
static void site_released(struct memory *m, struct mem_device *md, const struct ct_acct_device *dev,
                          const struct ct_acct_alloc *a, const struct ct_event *ev, bool at_exit)
{
	struct site_stat *s = site_stat_of(md, a);

	if (ev->type == CT_EV_MEM_RECLAIM) {
		/* CUDA's teardown: the program never freed it, it held it to the end */
		s->reclaimed++;
		return;
	}
	if (at_exit)
		return;
	if (ev->type == CT_EV_MEM_FREE) {
		site_activity(m, md, dev);
		md->frees++;
	}
	s->freed++;
	s->held = ct_bytes_sub(s->held, a->size);
}

/* ------------------------------------------------ the accountant's hooks */

static void hook_added(void *data, struct ct_acct_device *dev, void *own,
                       const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct memory *m = data;

	/* a mapping is not memory of its own: vmm_physical carries the bytes */
	if (a->kind != CT_MEM_VMM_MAP)
		range_hold(m, dev->process, a->path, ct_sat_i64(a->size));
	if (site_counts(a))
		site_allocated(m, own, dev, a, ev);
}

/* A copy of A, which the interpreter freed as it exited, kept to be listed with the leaks. */
static void keep_exit_freed(struct mem_device *md, const struct ct_acct_alloc *a)
{
	if (!md->exit_freed)
		md->exit_freed = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(md->exit_freed, g_memdup2(a, sizeof(*a)));
	md->exit_freed_bytes = ct_sat_add_u64(md->exit_freed_bytes, a->size);
}

static void hook_removed(void *data, struct ct_acct_device *dev, void *own,
                         const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct memory *m = data;
	bool at_exit = ev->type == CT_EV_MEM_FREE && work_of(m, dev->process)->exiting;

	if (a->kind != CT_MEM_VMM_MAP)
		range_hold(m, dev->process, a->path, -ct_sat_i64(a->size));
	if (site_counts(a))
		site_released(m, own, dev, a, ev, at_exit);
	if (at_exit && a->kind != CT_MEM_VMM_MAP)
		keep_exit_freed(own, a);
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
	struct mem_device *md = own;

	ct_series_release(&md->series);
	if (md->sites)
		g_hash_table_destroy(md->sites);
	md->sites = NULL;
	if (md->exit_freed)
		g_ptr_array_free(md->exit_freed, TRUE);
	md->exit_freed = NULL;
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

/*
 * At a failed allocation, what each site of its process and device held
 * then, as the pass knows sites (struct site_key): they are named, and the
 * one that held the most chosen, at the end (holders_of), once the stacks
 * can be symbolized with every object the trace will say the process
 * loaded.
 */
struct held_key {
	struct site_key key;
	int64_t held;
	uint64_t live; /* its allocations then live */
};

struct failure_holding {
	struct ct_process *process; /* borrowed */
	uint8_t device;
	int64_t failure_ns;
	uint64_t process_bytes;
	GArray *keys; /* struct held_key, of the sites that held anything; owned */
};

/* What the sites of MD (of DEV) held as EV, an allocation, failed. */
static void note_holding(struct memory *m, const struct ct_acct_device *dev,
                         const struct mem_device *md, const struct ct_event *ev)
{
	struct failure_holding h = {
		.process = dev->process,
		.device = dev->device,
		.failure_ns = ev->time_ns,
		.process_bytes = dev->on_device > 0 ? (uint64_t)dev->on_device : 0,
	};
	GHashTableIter it;
	gpointer value;

	if (!md->sites || m->holdings->len >= CT_MEMORY_HOLDERS_MAX)
		return;
	h.keys = g_array_new(FALSE, FALSE, sizeof(struct held_key));
	g_hash_table_iter_init(&it, md->sites);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct site_stat *s = value;
		struct held_key k = { s->key, s->held, s->allocations - s->freed };

		if (s->held > 0)
			g_array_append_val(h.keys, k);
	}
	if (h.keys->len)
		g_array_append_val(m->holdings, h);
	else
		g_array_unref(h.keys);
}

static void on_failure(struct memory *m, const struct ct_event *ev)
{
	const struct ct_acct_device *dev =
	    ct_acct_device_of(m->acct, ev->process, ev->u.mem_alloc_failed.device);
	struct mem_device *md = ct_acct_own(m->sub, dev);

	md->failures++;
	note_holding(m, dev, md, ev);
}

static void memory_event(void *state, const struct ct_event *ev)
{
	struct memory *m = state;

	switch (ev->type) {
	case CT_EV_MEM_ALLOC_FAILED:
		on_failure(m, ev);
		break;
	case CT_EV_NVTX_POP:
		on_pop(m, ev);
		break;
	case CT_EV_PYTHON_EXIT:
		work_of(m, ev->process)->exiting = true;
		break;
	case CT_EV_LAUNCH:
	case CT_EV_GRAPH_LAUNCH:
	case CT_EV_MEMCPY:
	case CT_EV_MEMSET:
	case CT_EV_REPEAT: {
		struct work *w = work_of(m, ev->process);

		w->launches += ev->type == CT_EV_LAUNCH || ev->type == CT_EV_GRAPH_LAUNCH;
		w->acts++;
		break;
	}
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
	/* live at the end, or freed by the interpreter as it exited; records
	 * borrowed from the accountant and from struct mem_device */
	GPtrArray *leaks;
	GPtrArray *peak; /* live at the peak; idem */
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

/* Both lists of DEV (MD, this analysis's state of it), largest first. */
static void gather(struct memory *m, const struct mem_device *md, struct device_gather *g)
{
	g->leaks = g_ptr_array_new();
	g->peak = g_ptr_array_new();
	ct_acct_foreach_live(m->acct, gather_one, g);
	for (guint i = 0; md && md->exit_freed && i < md->exit_freed->len; i++)
		g_ptr_array_add(g->leaks, g_ptr_array_index(md->exit_freed, i));
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

	return ct_call_stacks_get(p, a->stack_id);
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
	if (ct_peak_bounds_apart(dev->peak_bytes, dev->peak_low, dev->peak_high)) {
		cause = CT_CAUSE_OVERLAPPING_CALLS;
		ct_caveat_add(list, "peak_bytes", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "peak_time_ns", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "peak_allocations", CT_CAVEAT_UNCERTAIN, cause);
	}
	if (dev->unfinished_frees || ct_acct_exit_calls(m->acct, dev->process)) {
		cause = CT_CAUSE_UNFINISHED_CALLS;
		ct_caveat_add(list, "allocations", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "frees", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(list, "live_at_end_bytes", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "leak_count", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "leaked_bytes", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(list, "leaks", CT_CAVEAT_POSSIBLE, cause);
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
		.peak_low_bytes = md->peak_low < md->peak_bytes ? md->peak_low : md->peak_bytes,
		.peak_high_bytes = md->peak_high > md->peak_bytes ? md->peak_high : md->peak_bytes,
		.has_peak = md->has_peak,
		.peak_time_ns = md->peak_ns,
		.live_at_end_bytes = md->on_device,
		.allocations = md->allocations,
		.frees = md->frees,
		.bytes_allocated = md->bytes_allocated,
		.unknown_frees = md->unknown_frees,
		.failed_frees = md->failed_frees,
		.unfinished_frees = md->unfinished_frees,
		.unfinished_bytes = md->unfinished_bytes,
		.failures = mem->failures,
		.kinds = kinds_of(md),
		.reclaimed_count = md->reclaimed_count,
		.reclaimed_bytes = md->reclaimed_bytes,
		.reclaimed = reclaimed_of(m, md),
		.before_window_allocations = md->before_window_count,
		.before_window_bytes = (uint64_t)ct_acct_before_window_on_device(md),
	};

	CT_ASSERT(md->on_device >= 0);
	gather(m, mem, &g);
	d.exit_freed_count = mem && mem->exit_freed ? mem->exit_freed->len : 0;
	d.exit_freed_bytes = mem ? mem->exit_freed_bytes : 0;
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

/* ------------------------------------------------ growing sites */

/*
 * When the allocations of a site (its keys taken together, S) are memory
 * that grows, not memory held once. Each test stands for one thing that
 * is not a leak:
 *
 * - GROWTH_MIN_STEPS steps at least: what it holds reached a new high
 *   that many times, each after memory was freed on the device, or a
 *   kernel launched, since the one before (the program computed in
 *   between, a step). A buffer allocated once, a pool a framework takes
 *   at start-up (JAX's 75 %, a caching allocator's first segments),
 *   weights allocated one after the other: one step, or a few.
 * - most of its allocations never freed, and most of its high still held
 *   at the end: memory freed before exit is not a leak.
 * - rising over the run: its rises span at least half of the run, from
 *   the program's first allocation or free on the device to the end, and
 *   the last comes in its last quarter. A cache that grows to a plateau
 *   in the first steps, what start-up loads: their rises end early. The run is counted in what the process
 *   did (struct work), not in time, which start-up (a framework's first
 *   CUDA call, its compilations) makes long for little done; and it ends
 *   with the process's work, not with its last allocation: a caching
 *   allocator that stops asking CUDA for memory leaves no memory event
 *   after that.
 * - what it grew by after its first rise, still held at the end, is at
 *   least GROWTH_MIN_PEAK_SHARE of the device's peak. Less does not weigh
 *   on what the device holds (the leaks by site still list it); and a big
 *   buffer held once does not make the small growth of its site (the same
 *   site without call stacks) weigh more.
 */
#define GROWTH_MIN_STEPS      4
#define GROWTH_MIN_PEAK_SHARE 0.01

static bool growing_site(const struct site_stat *s, const struct mem_device *md, uint64_t end,
                         int64_t peak)
{
	double span = end > md->first_act ? (double)(end - md->first_act) : 0;

	return s->steps >= GROWTH_MIN_STEPS && s->freed * 2 < s->allocations &&
	       s->held * 2 >= s->high && span > 0 &&
	       (double)(s->last_rise_act - s->first_rise_act) >= 0.5 * span &&
	       (double)(s->last_rise_act - md->first_act) >= 0.75 * span && peak > 0 &&
	       (double)(s->held - s->first_high) >= GROWTH_MIN_PEAK_SHARE * (double)peak;
}

/* S's figures added to SUM's: the keys of one site taken together. */
static void site_stat_merge(struct site_stat *sum, const struct site_stat *s)
{
	bool first = !sum->allocations;

	sum->allocations += s->allocations;
	sum->freed += s->freed;
	sum->reclaimed += s->reclaimed;
	sum->smallest = first ? s->smallest : MIN(sum->smallest, s->smallest);
	sum->largest = MAX(sum->largest, s->largest);
	sum->held = ct_sat_add(sum->held, s->held);
	sum->high = ct_sat_add(sum->high, s->high);
	sum->first_high = ct_sat_add(sum->first_high, s->first_high);
	if (s->rises) {
		sum->first_rise_ns =
		    sum->rises ? MIN(sum->first_rise_ns, s->first_rise_ns) : s->first_rise_ns;
		sum->first_rise_act =
		    sum->rises ? MIN(sum->first_rise_act, s->first_rise_act) : s->first_rise_act;
		sum->risen_keys++;
	}
	sum->rises += s->rises;
	sum->steps += s->steps;
	sum->last_rise_ns = MAX(sum->last_rise_ns, s->last_rise_ns);
	sum->last_rise_act = MAX(sum->last_rise_act, s->last_rise_act);
}

/* The name of the site of KEY in PROCESS, interned: at the end, when stacks are named. */
static const char *site_name(struct memory *m, struct ct_process *process,
                             const struct site_key *key)
{
	struct ct_api_ref api = { .domain = key->domain, .cbid = key->cbid };
	char site[512];

	return intern(m, ct_call_site_format(m->ctx, process, key->path, &api, key->stack_id, site,
	                                     sizeof(site)));
}

/* The sites of MD by name (-> struct site_stat, owned): the keys of each together. */
static GHashTable *sites_by_name(struct memory *m, struct ct_process *process,
                                 const struct mem_device *md)
{
	GHashTable *named = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	GHashTableIter it;
	gpointer value;

	g_hash_table_iter_init(&it, md->sites);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct site_stat *s = value;
		const char *name = site_name(m, process, &s->key);
		struct site_stat *sum = g_hash_table_lookup(named, name);

		if (!sum) {
			sum = g_new0(struct site_stat, 1);
			sum->key = s->key;
			g_hash_table_insert(named, (gpointer)name, sum);
		}
		site_stat_merge(sum, s);
	}
	return named;
}

static struct ct_memory_growing_site growing_site_of(struct memory *m, struct ct_process *process,
                                                     const struct ct_acct_device *dev,
                                                     const char *name, const struct site_stat *s)
{
	struct ct_memory_leak_site where = { 0 };
	const struct ct_stack *stack = ct_call_stacks_get(process, s->key.stack_id);
	uint64_t increments = s->rises - s->risen_keys; /* rises after each key's first */
	char path[512];

	site_stack(m, &where, stack);
	if (where.stack)
		g_array_unref(where.stack);
	return (struct ct_memory_growing_site){
		.pid = process->pid,
		.process = intern(m, process->procname),
		.device = dev->device,
		.site = name,
		.function = where.function,
		.file = where.file,
		.line = where.line,
		.nvtx_path = intern(m, ct_path_format(m->ctx, s->key.path, path, sizeof(path))),
		.api = intern(m, ct_context_api_name(process, s->key.domain, s->key.cbid)),
		.allocations = s->allocations,
		.freed = s->freed,
		.reclaimed = s->reclaimed,
		.smallest_bytes = s->smallest,
		.largest_bytes = s->largest,
		.held_at_end_bytes = s->held,
		.high_bytes = s->high,
		.rises = s->rises,
		.steps = s->steps,
		.growth_per_rise_bytes =
		    increments ? (s->high - s->first_high) / (int64_t)increments : 0,
		.first_ns = s->first_rise_ns,
		.last_rise_ns = s->last_rise_ns,
		.peak_share = dev->peak_bytes > 0 ? (double)s->held / (double)dev->peak_bytes : 0,
	};
}

static gint by_held(gconstpointer pa, gconstpointer pb)
{
	const struct ct_memory_growing_site *a = pa, *b = pb;

	if (a->held_at_end_bytes != b->held_at_end_bytes)
		return a->held_at_end_bytes < b->held_at_end_bytes ? 1 : -1;
	return strcmp(a->site, b->site);
}

/* The sites of DEV whose memory grows over the run. */
static void add_growing_sites(struct memory *m, struct ct_process *process,
                              const struct ct_acct_device *dev, const struct mem_device *md)
{
	uint64_t end = work_of(m, process)->acts;
	GHashTable *named;
	GHashTableIter it;
	gpointer name, value;

	if (!md->sites)
		return;
	named = sites_by_name(m, process, md);
	g_hash_table_iter_init(&it, named);
	while (g_hash_table_iter_next(&it, &name, &value)) {
		struct ct_memory_growing_site site;

		if (!growing_site(value, md, end, dev->peak_bytes))
			continue;
		site = growing_site_of(m, process, dev, name, value);
		g_array_append_val(m->result.growing_sites, site);
	}
	g_hash_table_destroy(named);
}

/* ------------------------------------------------ holders at failures */

/* The site that held the most at failure H, its keys named and taken together. */
static void add_holder(struct memory *m, const struct failure_holding *h)
{
	GHashTable *named = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	struct ct_memory_holder best = { 0 };
	GHashTableIter it;
	gpointer name, value;

	for (guint i = 0; i < h->keys->len; i++) {
		const struct held_key *k = &g_array_index(h->keys, struct held_key, i);
		const char *site = site_name(m, h->process, &k->key);
		struct held_key *sum = g_hash_table_lookup(named, site);

		if (!sum) {
			sum = g_new0(struct held_key, 1);
			g_hash_table_insert(named, (gpointer)site, sum);
		}
		sum->held = ct_sat_add(sum->held, k->held);
		sum->live += k->live;
	}
	g_hash_table_iter_init(&it, named);
	while (g_hash_table_iter_next(&it, &name, &value)) {
		const struct held_key *sum = value;

		if (!best.site || (uint64_t)sum->held > best.bytes ||
		    ((uint64_t)sum->held == best.bytes && strcmp(name, best.site) < 0)) {
			best.site = name;
			best.bytes = (uint64_t)sum->held;
			best.count = sum->live;
		}
	}
	g_hash_table_destroy(named);
	best.pid = h->process->pid;
	best.device = h->device;
	best.failure_ns = h->failure_ns;
	best.process_bytes = h->process_bytes;
	g_array_append_val(m->result.holders, best);
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
	m->result.growing_sites = g_array_new(FALSE, FALSE, sizeof(struct ct_memory_growing_site));
	m->result.notes = g_array_new(FALSE, FALSE, sizeof(struct ct_caveat_note));
	m->result.holders = g_array_new(FALSE, FALSE, sizeof(struct ct_memory_holder));
	m->result.strings = g_string_chunk_new(4096);
	for (guint i = 0; i < m->holdings->len; i++)
		add_holder(m, &g_array_index(m->holdings, struct failure_holding, i));
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

			if (dev) {
				add_timeline(m, process, dev, ct_acct_own(m->sub, dev));
				add_growing_sites(m, process, dev, ct_acct_own(m->sub, dev));
			}
		}
	}
	g_array_sort(m->result.growing_sites, by_held);
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
	if (r->growing_sites)
		g_array_unref(r->growing_sites);
	if (r->notes)
		g_array_unref(r->notes);
	if (r->holders)
		g_array_unref(r->holders);
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
	m->work = g_array_new(FALSE, TRUE, sizeof(struct work));
	m->holdings = g_array_new(FALSE, FALSE, sizeof(struct failure_holding));
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
	for (guint i = 0; i < m->holdings->len; i++)
		g_array_unref(g_array_index(m->holdings, struct failure_holding, i).keys);
	g_array_unref(m->holdings);
	g_array_unref(m->work);
	g_free(m);
}

const struct ct_analysis_class ct_memory_analysis = {
	.name = "memory",
	.id = CT_ANALYSIS_MEMORY,
	.section = &ct_memory_section,
	.wants = CT_EV_BIT(CT_EV_MEM_ALLOC_FAILED) | CT_EV_BIT(CT_EV_NVTX_POP) |
	         CT_EV_BIT(CT_EV_LAUNCH) | CT_EV_BIT(CT_EV_GRAPH_LAUNCH) | CT_EV_BIT(CT_EV_MEMCPY) |
	         CT_EV_BIT(CT_EV_MEMSET) | CT_EV_BIT(CT_EV_REPEAT) | CT_EV_BIT(CT_EV_PYTHON_EXIT),
	.uses = CT_SHARED_ACCOUNTING,
	.create = memory_create,
	.event = memory_event,
	.finish = memory_finish,
	.result = memory_result,
	.destroy = memory_destroy,
};
