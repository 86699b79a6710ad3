/* SPDX-License-Identifier: MIT */
/*
 * fragmentation.c - fragmentation and the out-of-memory post-mortem. At
 * every failed allocation, at the peak and at the end of the trace (for a
 * killed process: its last event), it puts side by side what was asked,
 * what was free (NVML, all processes), what this process held, the
 * largest free block and the external fragmentation 1 - largest_free /
 * total_free over the address ranges the trace shows, pool reserved vs
 * used and granularity waste; and gives each failure a verdict:
 *
 *   fragmented      enough memory was free in total, none of it in one
 *                   block large enough;
 *   pool_cached     the request would have fit but for what this
 *                   process's memory pools keep cached (freed memory,
 *                   reserved but unused);
 *   held_elsewhere  the request would have fit but for memory held by
 *                   others: other processes or contexts;
 *   out_of_memory   this process's own allocations and the request do not
 *                   fit on the device;
 *   unknown         the trace has no free/total for the device;
 *   cuda_error      the call returned another error than out of memory
 *                   (a sticky error, a bad argument): no memory verdict.
 *
 * Address ranges "as seen": live allocations are kept in address order per
 * (process, device) and region (the device heap: device, pitch, managed;
 * the stream-ordered pools; VMM mappings), each extended to its rounded
 * size (512-byte alignment; 2 MiB granularity from 1 MiB); the heap spans
 * from the lowest to the highest address ever seen. Free memory NVML
 * reports beyond what the gaps account for is outside the seen span and
 * counted as one block. All of it is O(1) per snapshot and O(log n) per
 * event (range-map.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/accounting.h"
#include "analysis.h"
#include "contract/assert.h"
#include "fragmentation.h"
#include "common/cuda-error-names.h"
#include "common/format.h"
#include "common/range-map.h"
#include "common/saturate.h"

#define MIB         (UINT64_C(1) << 20)
#define ALIGNMENT   UINT64_C(512)
#define GRANULARITY (2 * MIB)
#define SMALL_LIMIT MIB
/* Failures kept with their full state; later ones are only counted. */
#define FAILURES_MAX 1024
/*
 * Memory a process holds that no allocation shows: its CUDA context (100 to
 * 560 MiB on real drivers), capped at half the device. Memory held
 * elsewhere counts for a verdict only beyond it: a trace cannot tell a
 * context from another process's memory, and a context is no one's fault.
 */
#define CONTEXT_ALLOWANCE (600 * MIB)

/* Where an allocation's address lies. */
enum region {
	REGION_HEAP, /* device, pitch, managed */
	REGION_POOL, /* async */
	REGION_VMM,  /* vmm_map: mapped virtual ranges */
	REGION_PHYS, /* vmm_physical: keyed by handle, no geometry */
	REGION_COUNT,
	REGION_NONE = REGION_COUNT, /* host memory: not ours */
};

/*
 * A stream-ordered memory pool as CUPTI's records describe it (MEMORY_POOL
 * records of its creation, destruction and trimming; the pool figures of
 * the MEMORY2 records of its allocations). Records arrive late and not in
 * order: each carries its GPU time, and only a newer one changes the
 * values. A pool is not its address, which a record may give as 0 (a pool
 * with no memory yet) and a new pool may reuse: it is one of its device's
 * pools, numbered in order of first record, created by a created record
 * (a new pool, even at an address a live one had) and gone with its
 * destroyed record.
 *
 * CUPTI records no release of pool memory at a synchronisation (and the
 * simulator makes none): at each synchronisation of its device, a pool
 * whose reserved memory exceeds the larger of its release threshold and
 * the memory backing its allocations (their bytes in 2 MiB steps) goes
 * down to that, marked as derived.
 */
struct frag_pool {
	uint32_t number;  /* 1, 2, ... on its device */
	uint64_t address; /* the last non-zero base address a record gave, 0 if none */
	bool created_seen;
	uint64_t created_ns;
	uint64_t reserved;
	uint64_t used;
	uint64_t release_threshold;
	uint64_t state_ns; /* GPU time of the record the values come from */
	bool derived;      /* reserved lowered by a release at a synchronisation since */
	bool destroyed;
	uint64_t destroyed_ns;
};

/* What a snapshot holds of one pool, kept up to date by records that arrive after it. */
struct pool_view {
	uint32_t number;
	bool present; /* the pool existed at the snapshot */
	uint64_t reserved;
	uint64_t used;
	uint64_t release_threshold;
	uint64_t state_ns;
	bool derived;
};

/* Pools a snapshot follows one by one; more share their values as taken. */
#define POOL_VIEWS 8

/* The state of one (process, device) at one moment. */
struct frag_snapshot {
	int64_t time_ns;
	uint64_t live_bytes; /* device kinds, requested */
	uint64_t heap_span;
	uint64_t heap_free_seen;   /* gaps inside the span */
	uint64_t heap_largest_gap; /* largest of them */
	uint64_t granularity_waste;
	uint64_t pool_reserved; /* sums of the pools' (as_known) */
	uint64_t pool_used;
	bool pool_derived; /* some pool's reserved bytes are derived */
	struct pool_view pools[POOL_VIEWS];
	unsigned pool_views;
	uint64_t other_reserved, other_used; /* of the pools beyond POOL_VIEWS */
	int64_t last_sync_ns;                /* the device's last synchronisation before it */
	uint64_t pool_live;                  /* async bytes live (host view) */
	uint64_t vmm_physical;
	uint64_t vmm_mapped;
	uint64_t vmm_gaps;
	int nvml_known;
	uint64_t nvml_free;
	uint64_t nvml_total;
	uint64_t device_total; /* device_info, 0 if unknown */
	/* The device's before_window bytes then (accounting.h): those learned of later count too. */
	int64_t before_window[CT_ACCT_KINDS];
};

/* One failed allocation with the state at that moment. */
/* The processes NVML lists on a failure's device, at most this many kept. */
#define FRAG_HOLDERS_MAX 8

/* A process NVML listed on the device right after a failure (nvml_process). */
struct frag_holder {
	uint32_t pid;
	uint64_t bytes; /* UINT64_MAX: NVML could not say */
	bool self;
	char name[16]; /* its comm, "" when unknown */
};

struct frag_failure {
	int64_t time_ns;
	struct ct_process *process;     /* borrowed */
	const struct ct_thread *thread; /* borrowed */
	uint8_t device;
	uint8_t kind;
	uint64_t requested;
	int32_t result;
	struct ct_api_ref api;
	uint32_t site;
	uint64_t stack_id;
	struct frag_snapshot state;
	/* The allocation that made up for it (recovered_of), 0: none. */
	uint64_t recovered_bytes;
	int64_t recovered_ns;
	/* Who held the device then, as NVML listed it. */
	struct frag_holder holders[FRAG_HOLDERS_MAX];
	unsigned holder_count;
};

/* A list NVML gave that is no failure's (struct ct_frag_listing). */
struct frag_listing {
	int64_t time_ns;
	int64_t pid;
	uint8_t device;
	struct frag_holder holders[FRAG_HOLDERS_MAX];
	unsigned holder_count;
};

/* What the analysis keeps of one (process, device), beside the accountant's. */
struct frag_device {
	struct ct_acct_device *acct; /* the accountant's state of it; borrowed */
	struct ct_range_map regions[REGION_COUNT];
	uint64_t heap_lo, heap_hi;    /* span ever seen, heap_hi 0: none */
	struct frag_snapshot at_peak; /* when acct->has_peak */
	GArray *pools;                /* struct frag_pool, in order of first record; owned */
	int64_t last_sync_ns;         /* its last synchronisation, INT64_MIN: none */
	struct frag_failure
	    *last_failure;           /* borrowed from the failure list; until its NVML reading */
	struct frag_failure *latest; /* the same, kept after it: its holders, its recovery */
};

struct fragmentation {
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	struct ct_acct *acct;          /* the pass's */
	struct ct_acct_sub *sub;       /* its subscription to it */
	GPtrArray *failures;           /* struct frag_failure, the first FAILURES_MAX; owned */
	GArray *listings;              /* struct frag_listing, the first LISTINGS_MAX */
	uint64_t failures_total;
	int64_t end_ns;
	struct ct_fragmentation_result result; /* owned, once computed */
};

/* ------------------------------------------------------------- state */

static const char *intern(struct fragmentation *f, const char *text)
{
	return text ? g_string_chunk_insert_const(f->result.strings, text) : NULL;
}

static struct frag_device *device_of(struct fragmentation *f, struct ct_process *process,
                                     unsigned device)
{
	return ct_acct_own(f->sub, ct_acct_device_of(f->acct, process, device));
}

/* The state of (PROCESS, DEVICE), NULL if it has none. */
static struct frag_device *frag_at(const struct fragmentation *f, const struct ct_process *process,
                                   unsigned device)
{
	return ct_acct_own(f->sub, ct_acct_device_at(f->acct, process, device));
}

static void hook_device_init(void *data, struct ct_acct_device *dev, void *own)
{
	struct frag_device *fd = own;

	fd->acct = dev;
	for (int r = 0; r < REGION_COUNT; r++)
		ct_range_map_init(&fd->regions[r]);
	fd->pools = g_array_new(FALSE, FALSE, sizeof(struct frag_pool));
	fd->last_sync_ns = INT64_MIN;
}

static void hook_device_release(void *data, struct ct_acct_device *dev, void *own)
{
	struct frag_device *fd = own;

	for (int r = 0; r < REGION_COUNT; r++)
		ct_range_map_release(&fd->regions[r]);
	g_array_unref(fd->pools);
}

static enum region region_of(unsigned kind)
{
	switch (kind) {
	case CT_MEM_DEVICE:
	case CT_MEM_PITCH:
	case CT_MEM_MANAGED:
		return REGION_HEAP;
	case CT_MEM_ASYNC:
		return REGION_POOL;
	case CT_MEM_VMM_MAP:
		return REGION_VMM;
	case CT_MEM_VMM_PHYSICAL:
		return REGION_PHYS;
	default:
		return REGION_NONE;
	}
}

static uint64_t round_up(uint64_t size, uint64_t to)
{
	return (size + to - 1) / to * to;
}

/* The bytes an allocation of SIZE takes in REGION. */
static uint64_t extent_of(enum region region, uint64_t size)
{
	if (region == REGION_HEAP)
		return size < SMALL_LIMIT ? round_up(size, ALIGNMENT) : round_up(size, GRANULARITY);
	if (region == REGION_POOL)
		return round_up(size, ALIGNMENT);
	return size;
}

/* ------------------------------------------------------------ snapshots */

/* The pool figures of S from its views. */
static void pool_sums(struct frag_snapshot *s)
{
	s->pool_reserved = s->other_reserved;
	s->pool_used = s->other_used;
	s->pool_derived = false;
	for (unsigned i = 0; i < s->pool_views; i++) {
		if (!s->pools[i].present)
			continue;
		s->pool_reserved += s->pools[i].reserved;
		s->pool_used += s->pools[i].used;
		s->pool_derived |= s->pools[i].derived;
	}
}

static void snapshot(struct fragmentation *f, const struct frag_device *fd, int64_t time_ns,
                     struct frag_snapshot *s)
{
	struct ct_range_stats heap, pool, vmm, phys;
	const struct ct_device *dev = fd->acct->process->devices[fd->acct->device];

	ct_range_map_stats(&fd->regions[REGION_HEAP], &heap);
	ct_range_map_stats(&fd->regions[REGION_POOL], &pool);
	ct_range_map_stats(&fd->regions[REGION_VMM], &vmm);
	ct_range_map_stats(&fd->regions[REGION_PHYS], &phys);
	*s = (struct frag_snapshot){ .time_ns = time_ns,
		                     .live_bytes = (uint64_t)fd->acct->on_device };
	if (fd->heap_hi) {
		s->heap_span = fd->heap_hi - fd->heap_lo;
		s->heap_free_seen =
		    s->heap_span - (heap.covered < s->heap_span ? heap.covered : s->heap_span);
		if (heap.count) {
			uint64_t below = heap.lowest - fd->heap_lo;
			uint64_t above = fd->heap_hi - heap.highest;

			s->heap_largest_gap = heap.largest_gap;
			s->heap_largest_gap =
			    below > s->heap_largest_gap ? below : s->heap_largest_gap;
			s->heap_largest_gap =
			    above > s->heap_largest_gap ? above : s->heap_largest_gap;
		} else {
			s->heap_largest_gap = s->heap_span;
		}
	}
	s->granularity_waste = heap.covered - heap.requested + pool.covered - pool.requested;
	s->pool_live = pool.requested;
	s->last_sync_ns = fd->last_sync_ns;
	for (guint i = 0; i < fd->pools->len; i++) {
		const struct frag_pool *p = &g_array_index(fd->pools, struct frag_pool, i);
		struct pool_view *v;

		if (p->destroyed)
			continue;
		if (s->pool_views == POOL_VIEWS) {
			s->other_reserved += p->reserved;
			s->other_used += p->used;
			continue;
		}
		v = &s->pools[s->pool_views++];
		*v = (struct pool_view){
			.number = p->number,
			.present = true,
			.reserved = p->reserved,
			.used = p->used,
			.release_threshold = p->release_threshold,
			.state_ns = p->state_ns,
			.derived = p->derived,
		};
	}
	pool_sums(s);
	s->vmm_physical = phys.requested;
	s->vmm_mapped = vmm.requested;
	s->vmm_gaps = vmm.count ? (vmm.highest - vmm.lowest) - vmm.covered : 0;
	if (dev && dev->nvml_time_ns && dev->nvml_total) {
		s->nvml_known = 1;
		s->nvml_free = dev->nvml_free;
		s->nvml_total = dev->nvml_total;
	}
	s->device_total = dev ? dev->global_memory : 0;
	memcpy(s->before_window, fd->acct->before_window, sizeof(s->before_window));
}

/*
 * S as the end of the trace knows it: allocations made before the window
 * and learned of since S was taken were live at S too. Says whether the
 * heap's ranges at S miss some of them (their addresses were not seen then).
 */
static bool as_known(const struct frag_device *fd, struct frag_snapshot *s)
{
	bool heap_missed = false;

	for (unsigned k = 0; k < CT_ACCT_KINDS; k++) {
		int64_t later = fd->acct->before_window[k] - s->before_window[k];

		if (!later)
			continue;
		if (ct_mem_kind_on_device(k))
			s->live_bytes += (uint64_t)later;
		if (k == CT_MEM_ASYNC)
			s->pool_live += (uint64_t)later;
		else if (k == CT_MEM_VMM_PHYSICAL)
			s->vmm_physical += (uint64_t)later;
		else if (region_of(k) == REGION_HEAP)
			heap_missed = true;
		s->before_window[k] = fd->acct->before_window[k];
	}
	return heap_missed;
}

/* Free bytes, the largest free block, and whether free is known from NVML. */
struct free_view {
	int known;
	uint64_t total_free;
	uint64_t largest;
	double external; /* 1 - largest/total_free */
};

static void free_view_of(const struct frag_snapshot *s, struct free_view *v)
{
	*v = (struct free_view){ .known = s->nvml_known };
	if (s->nvml_known) {
		uint64_t seen = s->heap_free_seen < s->nvml_free ? s->heap_free_seen : s->nvml_free;
		/* what NVML counts free beyond the gaps lies outside the seen span: one block */
		uint64_t unseen = s->nvml_free - seen;

		v->total_free = s->nvml_free;
		v->largest = s->heap_largest_gap < seen ? s->heap_largest_gap : seen;
		if (unseen > v->largest)
			v->largest = unseen;
	} else {
		v->total_free = s->heap_free_seen;
		v->largest = s->heap_largest_gap;
	}
	if (v->largest > v->total_free)
		v->largest = v->total_free;
	v->external = v->total_free ? 1.0 - (double)v->largest / (double)v->total_free : 0.0;
}

/* ------------------------------------------------------------ events */

static void hook_peak(void *data, struct ct_acct_device *dev, void *own, const struct ct_event *ev)
{
	struct frag_device *fd = own;

	snapshot(data, fd, dev->peak_ns, &fd->at_peak);
	/* a first peak at the window's start, from allocations made before it, holds those only */
	fd->at_peak.live_bytes = (uint64_t)dev->peak_bytes;
}

/*
 * How soon an allocator that was refused must ask again, and get at least
 * half of what it asked, for the refusal to be one it recovered from:
 * PyTorch's caching allocator frees its cache and asks again for as much;
 * XLA's BFC allocator asks again for less (its pool at 90 %, then
 * smaller). Either way the program went on with the memory.
 */
#define RECOVERY_NS (1000 * 1000 * 1000LL)

/* Whether A, made by EV's thread, makes up for FL, refused on the same device. */
static bool recovered_by(const struct frag_failure *fl, const struct ct_acct_alloc *a,
                         const struct ct_event *ev)
{
	return fl && !fl->recovered_bytes && fl->thread && fl->thread == ev->thread &&
	       ev->time_ns >= fl->time_ns && ev->time_ns - fl->time_ns <= RECOVERY_NS &&
	       a->size >= fl->requested / 2;
}

static void hook_added(void *data, struct ct_acct_device *dev, void *own,
                       const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct frag_device *fd = own;
	enum region region = region_of(a->kind);
	uint64_t end = a->address + extent_of(region, a->size);

	if (recovered_by(fd->latest, a, ev)) {
		fd->latest->recovered_bytes = a->size;
		fd->latest->recovered_ns = ev->time_ns;
	}

	if (region == REGION_NONE)
		return;
	ct_range_map_insert(&fd->regions[region], a->address, end, a->size);
	if (region == REGION_HEAP) {
		if (!fd->heap_hi || a->address < fd->heap_lo)
			fd->heap_lo = a->address;
		if (end > fd->heap_hi)
			fd->heap_hi = end;
	}
}

static void hook_removed(void *data, struct ct_acct_device *dev, void *own,
                         const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct frag_device *fd = own;
	enum region region = region_of(a->kind);

	if (region != REGION_NONE)
		ct_range_map_remove(&fd->regions[region], a->address, NULL);
}

static void hook_process_release(void *data, void *user)
{
	g_hash_table_destroy(user);
}

static const struct ct_acct_hooks hooks = {
	.device_size = sizeof(struct frag_device),
	.process_release = hook_process_release,
	.device_init = hook_device_init,
	.device_release = hook_device_release,
	.added = hook_added,
	.removed = hook_removed,
	.peak = hook_peak,
};

static void on_failure(struct fragmentation *f, const struct ct_event *ev)
{
	const struct ct_ev_mem_alloc_failed *e = &ev->u.mem_alloc_failed;
	struct frag_device *fd = device_of(f, ev->process, e->device);
	struct frag_failure *failure;

	f->failures_total++;
	if (f->failures->len == FAILURES_MAX)
		return;
	failure = g_new(struct frag_failure, 1);
	g_ptr_array_add(f->failures, failure);
	*failure = (struct frag_failure){
		.time_ns = ev->time_ns,
		.process = ev->process,
		.thread = ev->thread,
		.device = e->device,
		.kind = e->kind,
		.requested = e->size,
		.result = e->result,
		.api = e->api,
		.site = ev->site,
		.stack_id = e->stack_id,
	};
	snapshot(f, fd, ev->time_ns, &failure->state);
	/* the event's own NVML reading is the one taken at the failure */
	if (e->total) {
		failure->state.nvml_known = 1;
		failure->state.nvml_free = e->free;
		failure->state.nvml_total = e->total;
	}
	fd->last_failure = failure;
	fd->latest = failure;
}

/*
 * How soon after its failure the tracer lists the device's processes: at
 * once, on the same thread (alloc.c); a listing later is another's.
 */
#define HOLDERS_NS (1000 * 1000 * 1000LL)

/* H: the process E says NVML listed. */
static void holder_set(struct frag_holder *h, const struct ct_ev_nvml_process *e)
{
	*h = (struct frag_holder){ .pid = e->pid, .bytes = e->used, .self = e->self != 0 };
	snprintf(h->name, sizeof(h->name), "%.*s", e->name ? (int)e->name_len : 0,
	         e->name ? e->name : "");
}

/* NVML's lists that are no failure's, at most this many kept; one list's
 * processes come one after the other, within LISTING_NS of its first. */
#define LISTINGS_MAX 64
#define LISTING_NS   (100 * 1000 * 1000LL)

/* E, listed by the process of EV when no failure was: added to the last
 * listing when it is the same one, else to a new one. */
static void listing_add(struct fragmentation *f, const struct ct_event *ev,
                        const struct ct_ev_nvml_process *e)
{
	GArray *all = f->listings;
	struct frag_listing *last =
	    all->len ? &g_array_index(all, struct frag_listing, all->len - 1) : NULL;
	struct frag_holder *h;

	if (!last || last->pid != ev->process->pid || last->device != e->device ||
	    ev->time_ns < last->time_ns || ev->time_ns - last->time_ns > LISTING_NS) {
		struct frag_listing fresh = {
			.time_ns = ev->time_ns,
			.pid = ev->process->pid,
			.device = e->device,
		};

		if (all->len == LISTINGS_MAX)
			return;
		g_array_append_val(all, fresh);
		last = &g_array_index(all, struct frag_listing, all->len - 1);
	}
	if (last->holder_count == FRAG_HOLDERS_MAX)
		return;
	h = &last->holders[last->holder_count++];
	holder_set(h, e);
}

/* A process NVML listed right after the failure of its device joins the
 * failure's holders; one listed when no failure was, a listing. */
static void on_nvml_process(struct fragmentation *f, const struct ct_event *ev)
{
	const struct ct_ev_nvml_process *e = &ev->u.nvml_process;
	struct frag_device *fd = frag_at(f, ev->process, e->device);
	struct frag_failure *fl = fd ? fd->latest : NULL;

	if (!fl || ev->time_ns < fl->time_ns || ev->time_ns - fl->time_ns > HOLDERS_NS) {
		listing_add(f, ev, e);
		return;
	}
	if (fl->holder_count == FRAG_HOLDERS_MAX)
		return;
	holder_set(&fl->holders[fl->holder_count++], e);
}

/* The nvml_sample that follows a failure completes it when the failure had no reading. */
static void on_nvml(struct fragmentation *f, const struct ct_event *ev)
{
	const struct ct_ev_nvml_sample *e = &ev->u.nvml_sample;
	struct frag_device *fd = frag_at(f, ev->process, e->device);

	if (!fd || !fd->last_failure || e->reason != 2 || !e->total)
		return;
	if (!fd->last_failure->state.nvml_known) {
		fd->last_failure->state.nvml_known = 1;
		fd->last_failure->state.nvml_free = e->free;
		fd->last_failure->state.nvml_total = e->total;
	}
	fd->last_failure = NULL;
}

/* ------------------------------------------------------------ pools */

/* What a pool's record, or a synchronisation, says: the values of a pool at a time. */
struct pool_state {
	uint64_t reserved;
	uint64_t used;
	uint64_t release_threshold;
	uint64_t state_ns;
};

/* The memory backing USED bytes of allocations in a pool: 2 MiB steps. */
static uint64_t backing(uint64_t used)
{
	return round_up(used, GRANULARITY);
}

/* RESERVED after a synchronisation: at most the threshold, or what backs the allocations. */
static bool release_at_sync(uint64_t *reserved, uint64_t used, uint64_t threshold)
{
	uint64_t keep = threshold > backing(used) ? threshold : backing(used);

	if (*reserved <= keep)
		return false;
	*reserved = keep;
	return true;
}

/*
 * A record of time STATE_NS for the pool of view V, taken at a snapshot
 * whose device's last synchronisation was LAST_SYNC: newer than what V
 * holds, it replaces it, and a synchronisation after it releases.
 */
static void view_update(struct pool_view *v, const struct pool_state *st, int64_t last_sync)
{
	if (st->state_ns < v->state_ns)
		return;
	v->present = true;
	v->reserved = st->reserved;
	v->used = st->used;
	v->release_threshold = st->release_threshold;
	v->state_ns = st->state_ns;
	v->derived = false;
	if (last_sync >= (int64_t)st->state_ns)
		v->derived = release_at_sync(&v->reserved, v->used, v->release_threshold);
}

/* POOL's view in S, made when S took none of it and there is room; NULL if none. */
static struct pool_view *view_of(struct frag_snapshot *s, const struct frag_pool *pool)
{
	for (unsigned i = 0; i < s->pool_views; i++)
		if (s->pools[i].number == pool->number)
			return &s->pools[i];
	if (s->pool_views == POOL_VIEWS)
		return NULL;
	s->pools[s->pool_views] = (struct pool_view){ .number = pool->number };
	return &s->pools[s->pool_views++];
}

/* Calls FN on every snapshot of FD taken at or after TIME_NS: its peak, its failures. */
static void foreach_snapshot_since(struct fragmentation *f, struct frag_device *fd, int64_t time_ns,
                                   void (*fn)(struct frag_snapshot *s, void *data), void *data)
{
	if (fd->acct->has_peak && fd->at_peak.time_ns >= time_ns)
		fn(&fd->at_peak, data);
	/* failures are in time order: the recent ones only */
	for (guint i = f->failures->len; i-- > 0;) {
		struct frag_failure *fl = g_ptr_array_index(f->failures, i);

		if (fl->time_ns < time_ns)
			break;
		if (fl->process == fd->acct->process && fl->device == fd->acct->device)
			fn(&fl->state, data);
	}
}

struct record_update {
	const struct frag_pool *pool;
	const struct pool_state *state;
	bool destroyed;
};

static void snapshot_record(struct frag_snapshot *s, void *data)
{
	const struct record_update *u = data;
	struct pool_view *v = view_of(s, u->pool);

	if (!v)
		return;
	if (u->destroyed) {
		if (u->state->state_ns >= v->state_ns) {
			v->present = false;
			v->state_ns = u->state->state_ns;
		}
	} else {
		view_update(v, u->state, s->last_sync_ns);
	}
	pool_sums(s);
}

/*
 * POOL's record ST (DESTROYED: its destruction): the pool's values if the
 * record is newer, and those of the snapshots taken since it, which it
 * came too late for.
 */
static void pool_record(struct fragmentation *f, struct frag_device *fd, struct frag_pool *pool,
                        const struct pool_state *st, bool destroyed)
{
	struct record_update u = { pool, st, destroyed };

	if (st->state_ns >= pool->state_ns) {
		pool->state_ns = st->state_ns;
		if (destroyed) {
			pool->destroyed = true;
			pool->destroyed_ns = st->state_ns;
		} else {
			pool->reserved = st->reserved;
			pool->used = st->used;
			pool->release_threshold = st->release_threshold;
			pool->derived = false;
			if (fd->last_sync_ns >= (int64_t)st->state_ns)
				pool->derived = release_at_sync(&pool->reserved, pool->used,
				                                pool->release_threshold);
		}
	}
	foreach_snapshot_since(f, fd, (int64_t)st->state_ns, snapshot_record, &u);
}

/*
 * The pool a record of time TIME_NS at ADDRESS is about, NULL when it is
 * about a destroyed one (a late record). OPERATION 1 (created) makes a new
 * one. Valid until the next new pool; a device has few.
 */
static struct frag_pool *pool_for(struct frag_device *fd, uint64_t time_ns, uint64_t address,
                                  unsigned operation)
{
	struct frag_pool *live_at = NULL, *no_address = NULL, *only = NULL, fresh;
	unsigned live = 0, without = 0;

	for (guint i = 0; i < fd->pools->len; i++) {
		struct frag_pool *p = &g_array_index(fd->pools, struct frag_pool, i);

		if (p->destroyed) {
			/* a record from before its destruction: stale */
			if (address && p->address == address && time_ns < p->destroyed_ns &&
			    operation != 1)
				return NULL;
			continue;
		}
		live++;
		only = p;
		if (address && p->address == address)
			live_at = p;
		if (!p->address) {
			without++;
			no_address = p;
		}
	}
	if (operation == 1) {
		/* a live pool at that address was destroyed unseen */
		if (live_at) {
			live_at->destroyed = true;
			live_at->destroyed_ns = time_ns;
		}
	} else if (live_at) {
		return live_at;
	} else if (without == 1 || live == 1) {
		/* its address was not known, or changed */
		struct frag_pool *p = without == 1 ? no_address : only;

		if (address)
			p->address = address;
		return p;
	} else if (!address && without) {
		return no_address;
	}
	fresh = (struct frag_pool){
		.number = fd->pools->len + 1,
		.address = address,
		.created_seen = operation == 1,
		.created_ns = time_ns,
	};
	g_array_append_val(fd->pools, fresh);
	return &g_array_index(fd->pools, struct frag_pool, fd->pools->len - 1);
}

static void on_pool(struct fragmentation *f, const struct ct_event *ev)
{
	const struct ct_ev_gpu_memory_pool *e = &ev->u.gpu_memory_pool;
	struct frag_device *fd = device_of(f, ev->process, e->device);
	struct frag_pool *pool = pool_for(fd, e->timestamp, e->address, e->operation);
	struct pool_state st = {
		.reserved = e->size,
		.used = e->utilized,
		.release_threshold = e->release_threshold,
		.state_ns = e->timestamp,
	};

	if (pool)
		pool_record(f, fd, pool, &st, e->operation == 2);
}

static void on_gpu_memory(struct fragmentation *f, const struct ct_event *ev)
{
	const struct ct_ev_gpu_memory *e = &ev->u.gpu_memory;
	struct frag_device *fd;
	struct frag_pool *pool;
	struct pool_state st = {
		.reserved = e->pool_size,
		.used = e->pool_utilized,
		.release_threshold = e->pool_release_threshold,
		.state_ns = e->timestamp,
	};

	if (!e->pool_type)
		return;
	fd = device_of(f, ev->process, e->device);
	pool = pool_for(fd, e->timestamp, e->pool_address, 0);
	if (pool)
		pool_record(f, fd, pool, &st, false);
}

static void snapshot_sync(struct frag_snapshot *s, void *data)
{
	int64_t time_ns = *(const int64_t *)data;

	if (time_ns > s->last_sync_ns)
		s->last_sync_ns = time_ns;
	for (unsigned i = 0; i < s->pool_views; i++) {
		struct pool_view *v = &s->pools[i];

		if (v->present && (int64_t)v->state_ns <= time_ns)
			v->derived |= release_at_sync(&v->reserved, v->used, v->release_threshold);
	}
	pool_sums(s);
}

/* FD's device was synchronised at TIME_NS: its pools release what exceeds what they keep. */
static void device_synced(struct fragmentation *f, struct frag_device *fd, int64_t time_ns)
{
	if (time_ns > fd->last_sync_ns)
		fd->last_sync_ns = time_ns;
	for (guint i = 0; i < fd->pools->len; i++) {
		struct frag_pool *p = &g_array_index(fd->pools, struct frag_pool, i);

		if (!p->destroyed && (int64_t)p->state_ns <= time_ns)
			p->derived |= release_at_sync(&p->reserved, p->used, p->release_threshold);
	}
	/* a record of the GPU's comes late: snapshots taken after it were synchronised too */
	foreach_snapshot_since(f, fd, time_ns, snapshot_sync, &time_ns);
}

/* The device of context CONTEXT in PROCESS (context_create), CT_DEVICE_NONE if unknown. */
static unsigned device_of_context(struct fragmentation *f, struct ct_process *process,
                                  uint32_t context)
{
	GHashTable *contexts = *ct_acct_process_data(f->sub, process);
	gpointer device;

	if (!contexts ||
	    !g_hash_table_lookup_extended(contexts, GUINT_TO_POINTER(context), NULL, &device))
		return CT_DEVICE_NONE;
	return GPOINTER_TO_UINT(device);
}

static void on_context_create(struct fragmentation *f, const struct ct_event *ev)
{
	void **contexts = ct_acct_process_data(f->sub, ev->process);

	if (!*contexts)
		*contexts = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_hash_table_insert(*contexts, GUINT_TO_POINTER(ev->u.context.context),
	                    GUINT_TO_POINTER(ev->u.context.device));
}

/* A host synchronisation (sync) or the GPU's record of one (gpu_sync). */
static void on_sync(struct fragmentation *f, const struct ct_event *ev)
{
	unsigned device;
	int64_t time_ns;
	struct frag_device *fd;

	if (ev->type == CT_EV_SYNC) {
		device = ev->u.sync.device;
		time_ns = ev->time_ns;
	} else {
		/* 2 is cudaStreamWaitEvent: the GPU waits, not the host */
		if (ev->u.gpu_sync.type == 2 || !ev->u.gpu_sync.end)
			return;
		device = device_of_context(f, ev->process, ev->u.gpu_sync.context);
		time_ns = (int64_t)ev->u.gpu_sync.end;
	}
	if (device == CT_DEVICE_NONE)
		return;
	fd = frag_at(f, ev->process, device);
	if (fd)
		device_synced(f, fd, time_ns);
}

static void fragmentation_event(void *state, const struct ct_event *ev)
{
	struct fragmentation *f = state;

	switch (ev->type) {
	case CT_EV_MEM_ALLOC_FAILED:
		on_failure(f, ev);
		break;
	case CT_EV_NVML_SAMPLE:
		on_nvml(f, ev);
		break;
	case CT_EV_NVML_PROCESS:
		on_nvml_process(f, ev);
		break;
	case CT_EV_GPU_MEMORY_POOL:
		on_pool(f, ev);
		break;
	case CT_EV_GPU_MEMORY:
		on_gpu_memory(f, ev);
		break;
	case CT_EV_SYNC:
	case CT_EV_GPU_SYNC:
		on_sync(f, ev);
		break;
	case CT_EV_CONTEXT_CREATE:
		on_context_create(f, ev);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ verdicts */

/* The verdict on a failure and the numbers behind it. */
struct verdict {
	const char *name;
	char reason[512];
	uint64_t request;        /* rounded as the allocator would */
	uint64_t used;           /* total - free */
	uint64_t held_elsewhere; /* used - this process's live bytes */
	uint64_t pool_cached;    /* reserved - used in this process's pools */
	struct free_view free;
	const char *withheld; /* the verdict the figures would give, when they cannot support it */
	/* What the verdict rests on besides NVML: this process's live bytes, its pools' records. */
	bool on_live_bytes;
	bool on_pools;
};

static const char *host_kind(unsigned kind)
{
	return kind == CT_MEM_HOST_PINNED || kind == CT_MEM_HOST_REGISTERED ? "host" : NULL;
}

/*
 * BYTES for a sentence, as the rest of the report writes sizes ("704.00
 * MiB"): with fewer digits, a request can read as large as what was free.
 * Returns BUF.
 */
static char *human(char *buf, size_t len, uint64_t bytes)
{
	return ct_format_bytes((double)bytes, buf, len);
}

/* Sizes written into one sentence. */
struct words {
	char a[24], b[24], c[24], d[24];
};

/*
 * The verdict on FL from S, its state as the end of the trace knows it;
 * PARTIAL when S may miss allocations of the process that the trace does
 * not show, LOST when LTTng lost events before it (some may have been the
 * process's allocations).
 */
static void classify(const struct frag_failure *fl, const struct frag_snapshot *s, bool partial,
                     bool lost, struct verdict *v)
{
	uint64_t total = s->nvml_known ? s->nvml_total : s->device_total;
	uint64_t allowance = total / 2 < CONTEXT_ALLOWANCE ? total / 2 : CONTEXT_ALLOWANCE;
	struct words w;

	*v = (struct verdict){ .request = extent_of(region_of(fl->kind), fl->requested) };
	free_view_of(s, &v->free);
	v->pool_cached = s->pool_reserved > s->pool_used ? s->pool_reserved - s->pool_used : 0;
	if (fl->result && !ct_result_is_out_of_memory(fl->result)) {
		const char *error = ct_cuda_error_name(fl->api.domain, fl->result);

		/* what memory there was says nothing of why it failed */
		v->name = "cuda_error";
		snprintf(v->reason, sizeof(v->reason),
		         "it returned %s (%" PRId32 "), an error that is not a lack of memory",
		         error ? error : "an error", fl->result);
		return;
	}
	if (host_kind(fl->kind)) {
		v->name = "out_of_memory";
		snprintf(v->reason, sizeof(v->reason),
		         "%s of page-locked host memory could not be had",
		         human(w.a, sizeof(w.a), fl->requested));
		return;
	}
	if (!s->nvml_known) {
		v->name = total && s->live_bytes + v->request > total ? "out_of_memory" : "unknown";
		v->on_live_bytes = true;
		if (total)
			snprintf(v->reason, sizeof(v->reason),
			         "no NVML reading: this process held %s of %s and asked %s",
			         human(w.a, sizeof(w.a), s->live_bytes),
			         human(w.b, sizeof(w.b), total),
			         human(w.c, sizeof(w.c), v->request));
		else
			snprintf(
			    v->reason, sizeof(v->reason),
			    "no NVML reading and no device size: this process held %s and asked %s",
			    human(w.a, sizeof(w.a), s->live_bytes),
			    human(w.b, sizeof(w.b), v->request));
		return;
	}
	v->used = s->nvml_total > s->nvml_free ? s->nvml_total - s->nvml_free : 0;
	v->held_elsewhere = v->used > s->live_bytes ? v->used - s->live_bytes : 0;
	if (v->request > total) {
		v->name = "out_of_memory";
		snprintf(v->reason, sizeof(v->reason), "asked %s, more than the device's %s",
		         human(w.a, sizeof(w.a), v->request), human(w.b, sizeof(w.b), total));
	} else if (s->nvml_free >= v->request) {
		v->name = "fragmented";
		snprintf(v->reason, sizeof(v->reason),
		         "%s free in total, enough for the %s asked, but in no block that large "
		         "(the largest seen: %s)",
		         human(w.a, sizeof(w.a), s->nvml_free), human(w.b, sizeof(w.b), v->request),
		         human(w.c, sizeof(w.c), v->free.largest));
	} else if (v->pool_cached && s->nvml_free + v->pool_cached >= v->request) {
		v->name = "pool_cached";
		v->on_pools = true;
		snprintf(
		    v->reason, sizeof(v->reason),
		    "%s were free, and this process's memory pools keep %s reserved but unused; "
		    "with it, %s would be free for the %s asked",
		    human(w.d, sizeof(w.d), s->nvml_free), human(w.a, sizeof(w.a), v->pool_cached),
		    human(w.b, sizeof(w.b), s->nvml_free + v->pool_cached),
		    human(w.c, sizeof(w.c), v->request));
	} else if (v->held_elsewhere > allowance &&
	           s->live_bytes + v->request + allowance <= total && (partial || lost)) {
		/* what the trace does not show may be this process's own */
		v->name = "unknown";
		v->withheld = "held_elsewhere";
		v->on_live_bytes = true;
		snprintf(v->reason, sizeof(v->reason),
		         "cannot tell whose the %s of the %s in use that are not this process's "
		         "allocations as the trace shows them are: %s, which may be this process's "
		         "own; it held %s%s and asked %s",
		         human(w.a, sizeof(w.a), v->held_elsewhere),
		         human(w.b, sizeof(w.b), v->used),
		         partial ? "the trace began after the program had allocated memory it does "
		                   "not show"
		                 : "LTTng discarded events before the failure, allocations among "
		                   "them",
		         partial ? "at least " : "", human(w.c, sizeof(w.c), s->live_bytes),
		         human(w.d, sizeof(w.d), v->request));
	} else if (v->held_elsewhere > allowance &&
	           s->live_bytes + v->request + allowance <= total) {
		v->name = "held_elsewhere";
		v->on_live_bytes = true;
		snprintf(v->reason, sizeof(v->reason),
		         "%s of the %s in use are not this process's allocations (other processes, "
		         "contexts, caches); it held %s and asked %s",
		         human(w.a, sizeof(w.a), v->held_elsewhere),
		         human(w.b, sizeof(w.b), v->used), human(w.c, sizeof(w.c), s->live_bytes),
		         human(w.d, sizeof(w.d), v->request));
	} else {
		v->name = "out_of_memory";
		v->on_live_bytes = true;
		snprintf(v->reason, sizeof(v->reason),
		         "this process held %s of the device's %s; %s were free and it asked %s",
		         human(w.a, sizeof(w.a), s->live_bytes), human(w.b, sizeof(w.b), total),
		         human(w.c, sizeof(w.c), s->nvml_free),
		         human(w.d, sizeof(w.d), v->request));
	}
}

/* ------------------------------------------------------------ result */

static struct ct_frag_state state_of(const struct frag_snapshot *s)
{
	struct free_view v;

	free_view_of(s, &v);
	return (struct ct_frag_state){
		.time_ns = s->time_ns,
		.live_bytes = s->live_bytes,
		.free_known = s->nvml_known,
		.free_bytes = s->nvml_free,
		.total_known = s->nvml_known || s->device_total,
		.total_bytes = s->nvml_known ? s->nvml_total : s->device_total,
		.free_seen_bytes = s->heap_free_seen,
		.largest_free_bytes = v.largest,
		.external_fragmentation = v.external,
		.heap_span_bytes = s->heap_span,
		.granularity_waste_bytes = s->granularity_waste,
		.pool_reserved_bytes = s->pool_reserved,
		.pool_used_bytes = s->pool_used,
		.pool_live_bytes = s->pool_live,
		.vmm_physical_bytes = s->vmm_physical,
		.vmm_mapped_bytes = s->vmm_mapped,
		.vmm_gap_bytes = s->vmm_gaps,
	};
}

/* The COUNT holders of HOLDERS, as the result keeps them (an array to unref). */
static GArray *holders_of(struct fragmentation *f, const struct frag_holder *holders,
                          unsigned count)
{
	GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(struct ct_frag_holder), count);

	for (unsigned i = 0; i < count; i++) {
		const struct frag_holder *h = &holders[i];
		struct ct_frag_holder held = {
			.pid = h->pid,
			.process = intern(f, h->name),
			.bytes_known = h->bytes != UINT64_MAX,
			.bytes = h->bytes,
			.self = h->self,
		};

		g_array_append_val(out, held);
	}
	return out;
}

static void add_failure(struct fragmentation *f, const struct frag_failure *fl)
{
	const struct frag_device *fd = frag_at(f, fl->process, fl->device);
	struct frag_snapshot known = fl->state, *s = &known;
	bool heap_missed = as_known(fd, s);
	bool partial = ct_acct_partial_at(f->acct, fd->acct, fl->time_ns);
	bool lost = ct_acct_lost_before(f->acct, fl->time_ns);
	bool dropped = fl->process->dropped_records > 0;
	GArray *caveats = g_array_new(FALSE, FALSE, sizeof(struct ct_caveat));
	struct ct_frag_failure out;
	struct verdict v;
	char site[512];
	char path[512];

	classify(fl, s, partial, lost, &v);
	if (partial) {
		ct_caveat_add(caveats, "live_bytes", CT_CAVEAT_LOWER_BOUND, CT_CAUSE_BEFORE_WINDOW);
		ct_caveat_add(caveats, "held_elsewhere_bytes", CT_CAVEAT_UPPER_BOUND,
		              CT_CAUSE_BEFORE_WINDOW);
	}
	if (partial || heap_missed) {
		ct_caveat_add(caveats, "largest_free_bytes", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_BEFORE_WINDOW);
		ct_caveat_add(caveats, "external_fragmentation", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_BEFORE_WINDOW);
		ct_caveat_add(caveats, "free_seen_bytes", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_BEFORE_WINDOW);
	}
	if (v.withheld)
		ct_caveat_add(caveats, "verdict", CT_CAVEAT_WITHHELD,
		              partial ? CT_CAUSE_BEFORE_WINDOW : CT_CAUSE_DISCARDED);
	if (lost) {
		ct_caveat_add(caveats, "live_bytes", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DISCARDED);
		ct_caveat_add(caveats, "held_elsewhere_bytes", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_DISCARDED);
		ct_caveat_add(caveats, "largest_free_bytes", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_DISCARDED);
		ct_caveat_add(caveats, "external_fragmentation", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_DISCARDED);
		ct_caveat_add(caveats, "free_seen_bytes", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DISCARDED);
		ct_caveat_add(caveats, "pool_reserved_bytes", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_DISCARDED);
		ct_caveat_add(caveats, "pool_used_bytes", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DISCARDED);
		if (!v.withheld && (v.on_live_bytes || v.on_pools))
			ct_caveat_add(caveats, "verdict", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DISCARDED);
	}
	if (dropped) {
		ct_caveat_add(caveats, "pool_reserved_bytes", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_DROPPED);
		ct_caveat_add(caveats, "pool_used_bytes", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DROPPED);
		ct_caveat_add(caveats, "pool_cached_bytes", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DROPPED);
		if (v.on_pools)
			ct_caveat_add(caveats, "verdict", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DROPPED);
	}
	if (s->pool_derived) {
		ct_caveat_add(caveats, "pool_reserved_bytes", CT_CAVEAT_DERIVED,
		              CT_CAUSE_RELEASE_AT_SYNC);
		ct_caveat_add(caveats, "pool_cached_bytes", CT_CAVEAT_DERIVED,
		              CT_CAUSE_RELEASE_AT_SYNC);
	}
	out = (struct ct_frag_failure){
		.time_ns = fl->time_ns,
		.pid = fl->process->pid,
		.process = intern(f, fl->process->procname),
		.device = fl->device,
		.kind = fl->kind,
		.requested_bytes = fl->requested,
		.result = fl->result,
		.api = intern(f, ct_context_api_name(fl->process, fl->api.domain, fl->api.cbid)),
		.site = intern(f, ct_call_site_format(f->ctx, fl->process, fl->site, &fl->api,
		                                      fl->stack_id, site, sizeof(site))),
		.nvtx_path = intern(f, ct_path_format(f->ctx, fl->site, path, sizeof(path))),
		.stack =
		    ct_stack_copy(ct_call_stacks_get(fl->process, fl->stack_id), f->result.strings),
		.verdict = v.name,
		.explanation = intern(f, v.reason),
		.withheld_verdict = v.withheld,
		.live_bytes = s->live_bytes,
		.free_known = s->nvml_known,
		.free_bytes = s->nvml_free,
		.total_known = s->nvml_known || s->device_total,
		.total_bytes = s->nvml_known ? s->nvml_total : s->device_total,
		.used_bytes = v.used,
		.held_elsewhere_bytes = v.held_elsewhere,
		.pool_cached_bytes = v.pool_cached,
		.largest_free_bytes = v.free.largest,
		.external_fragmentation = v.free.external,
		.free_seen_bytes = s->heap_free_seen,
		.granularity_waste_bytes = s->granularity_waste,
		.pool_reserved_bytes = s->pool_reserved,
		.pool_used_bytes = s->pool_used,
		.recovered_bytes = fl->recovered_bytes,
		.recovered_ns = fl->recovered_ns,
		.holders = holders_of(f, fl->holders, fl->holder_count),
		.caveats = caveats,
	};
	g_array_append_val(f->result.failures, out);
}

static void add_device(struct fragmentation *f, const struct frag_device *fd)
{
	struct frag_snapshot end, peak = fd->at_peak;
	const struct ct_process *process = fd->acct->process;
	struct ct_frag_device out = {
		.pid = process->pid,
		.process = intern(f, process->procname),
		.device = fd->acct->device,
		.has_peak = fd->acct->has_peak,
		.pools = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_pool)),
		.caveats = g_array_new(FALSE, FALSE, sizeof(struct ct_caveat)),
	};
	const char *cause = CT_CAUSE_BEFORE_WINDOW;
	bool pools_derived = false;

	/* the end of a process is its last event (a killed one has no exit) */
	snapshot(f, fd, process->events ? process->last_ns : f->end_ns, &end);
	if (fd->acct->has_peak) {
		bool heap_missed = as_known(fd, &peak);

		out.at_peak = state_of(&peak);
		if (ct_acct_partial_ever(f->acct, fd->acct))
			ct_caveat_add(out.caveats, "at_peak.live_bytes", CT_CAVEAT_LOWER_BOUND,
			              cause);
		if (ct_acct_partial_ever(f->acct, fd->acct) || heap_missed) {
			ct_caveat_add(out.caveats, "at_peak.free_seen_bytes", CT_CAVEAT_UNCERTAIN,
			              cause);
			ct_caveat_add(out.caveats, "at_peak.largest_free_bytes",
			              CT_CAVEAT_UNCERTAIN, cause);
			ct_caveat_add(out.caveats, "at_peak.external_fragmentation",
			              CT_CAVEAT_UNCERTAIN, cause);
			ct_caveat_add(out.caveats, "at_peak.heap_span_bytes", CT_CAVEAT_UNCERTAIN,
			              cause);
		}
	}
	out.at_end = state_of(&end);
	if (ct_acct_partial_at_end(f->acct, fd->acct)) {
		ct_caveat_add(out.caveats, "at_end.live_bytes", CT_CAVEAT_LOWER_BOUND, cause);
		ct_caveat_add(out.caveats, "at_end.free_seen_bytes", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(out.caveats, "at_end.largest_free_bytes", CT_CAVEAT_UNCERTAIN, cause);
		ct_caveat_add(out.caveats, "at_end.external_fragmentation", CT_CAVEAT_UNCERTAIN,
		              cause);
		ct_caveat_add(out.caveats, "at_end.heap_span_bytes", CT_CAVEAT_UNCERTAIN, cause);
	}
	for (guint i = 0; i < fd->pools->len; i++) {
		const struct frag_pool *p = &g_array_index(fd->pools, struct frag_pool, i);
		struct ct_frag_pool pool = {
			.pool = p->number,
			.address = p->address,
			.created_known = p->created_seen,
			.created_ns = (int64_t)p->created_ns,
			.reserved_bytes = p->reserved,
			.used_bytes = p->used,
			.release_threshold_bytes = p->release_threshold,
			.reserved_derived = p->derived,
		};

		if (p->destroyed)
			continue;
		g_array_append_val(out.pools, pool);
		pools_derived |= p->derived;
	}
	if (fd->acct->has_peak && peak.pool_derived)
		ct_caveat_add(out.caveats, "at_peak.pool_reserved_bytes", CT_CAVEAT_DERIVED,
		              CT_CAUSE_RELEASE_AT_SYNC);
	if (end.pool_derived)
		ct_caveat_add(out.caveats, "at_end.pool_reserved_bytes", CT_CAVEAT_DERIVED,
		              CT_CAUSE_RELEASE_AT_SYNC);
	if (pools_derived)
		ct_caveat_add(out.caveats, "pools", CT_CAVEAT_DERIVED, CT_CAUSE_RELEASE_AT_SYNC);
	if (ct_acct_lost(f->acct, process)) {
		/* every figure of those states and pools */
		if (fd->acct->has_peak)
			ct_caveat_add(out.caveats, "at_peak", CT_CAVEAT_UNCERTAIN,
			              CT_CAUSE_DISCARDED);
		ct_caveat_add(out.caveats, "at_end", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DISCARDED);
		ct_caveat_add(out.caveats, "pools", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DISCARDED);
	}
	if (process->dropped_records) {
		if (fd->acct->has_peak) {
			ct_caveat_add(out.caveats, "at_peak.pool_reserved_bytes",
			              CT_CAVEAT_UNCERTAIN, CT_CAUSE_DROPPED);
			ct_caveat_add(out.caveats, "at_peak.pool_used_bytes", CT_CAVEAT_UNCERTAIN,
			              CT_CAUSE_DROPPED);
		}
		ct_caveat_add(out.caveats, "at_end.pool_reserved_bytes", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_DROPPED);
		ct_caveat_add(out.caveats, "at_end.pool_used_bytes", CT_CAVEAT_UNCERTAIN,
		              CT_CAUSE_DROPPED);
		ct_caveat_add(out.caveats, "pools", CT_CAVEAT_UNCERTAIN, CT_CAUSE_DROPPED);
	}
	g_array_append_val(f->result.devices, out);
}

static void any_derived(struct frag_snapshot *s, void *data)
{
	*(bool *)data |= s->pool_derived;
}

/* Whether a pool figure of PROCESS is derived: now, at a peak or at a failure. */
static bool pools_derived(struct fragmentation *f, const struct ct_process *process)
{
	bool derived = false;

	for (unsigned d = 0; d < 256 && !derived; d++) {
		struct frag_device *fd = frag_at(f, process, d);

		for (guint i = 0; fd && i < fd->pools->len; i++) {
			const struct frag_pool *p = &g_array_index(fd->pools, struct frag_pool, i);

			derived |= !p->destroyed && p->derived;
		}
		if (fd)
			foreach_snapshot_since(f, fd, INT64_MIN, any_derived, &derived);
	}
	return derived;
}

/* Why figures are not exact, once per process and cause. */
static void add_notes(struct fragmentation *f)
{
	for (size_t p = 0; p < ct_context_process_count(f->ctx); p++) {
		const struct ct_process *process = ct_context_process_at(f->ctx, p);
		const struct ct_caveat_note fresh = {
			.pid = process->pid,
			.process = intern(f, process->procname),
		};
		struct ct_caveat_note note = fresh;
		char text[1024];

		ct_acct_add_notes(f->acct, process, f->result.strings, f->result.notes);
		if (process->dropped_records) {
			snprintf(
			    text, sizeof(text),
			    "CUPTI dropped %" PRIu64
			    " activity records (its buffers were full): the pool figures, which "
			    "come from its gpu_memory_pool and gpu_memory records, may miss "
			    "updates; live bytes, peaks and leaks come from host events and do "
			    "not",
			    process->dropped_records);
			note.cause = CT_CAUSE_DROPPED;
			note.explanation = intern(f, text);
			ct_note_evidence(&note, "dropped_records");
			g_array_append_val(f->result.notes, note);
		}
		note = fresh;
		if (pools_derived(f, process)) {
			note.cause = CT_CAUSE_RELEASE_AT_SYNC;
			note.explanation = intern(
			    f,
			    "CUPTI records no release of a memory pool's memory at a "
			    "synchronisation: after each synchronisation of a device, a pool's "
			    "reserved bytes are taken down to the larger of its release threshold "
			    "and the memory backing its allocations (2 MiB steps), which the "
			    "driver may exceed");
			ct_note_evidence(&note, "no_release_record");
			g_array_append_val(f->result.notes, note);
		}
	}
}

static gint by_requested(gconstpointer pa, gconstpointer pb)
{
	const struct ct_frag_site *a = pa, *b = pb;

	if (a->requested_bytes != b->requested_bytes)
		return a->requested_bytes < b->requested_bytes ? 1 : -1;
	return strcmp(a->site ? a->site : "", b->site ? b->site : "");
}

/* The failures kept, grouped by site (interned: equal sites are one pointer). */
static GArray *failure_sites(const GArray *failures)
{
	GArray *sites = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_site));
	GHashTable *index = g_hash_table_new(g_direct_hash, g_direct_equal);

	for (guint i = 0; i < failures->len; i++) {
		const struct ct_frag_failure *fl =
		    &g_array_index(failures, struct ct_frag_failure, i);
		guint at = GPOINTER_TO_UINT(g_hash_table_lookup(index, fl->site));
		struct ct_frag_site *s;

		if (!at) {
			struct ct_frag_site fresh = { .site = fl->site };

			g_array_append_val(sites, fresh);
			at = sites->len;
			g_hash_table_insert(index, (gpointer)fl->site, GUINT_TO_POINTER(at));
		}
		s = &g_array_index(sites, struct ct_frag_site, at - 1);
		s->count++;
		s->requested_bytes = ct_sat_add_u64(s->requested_bytes, fl->requested_bytes);
	}
	g_hash_table_destroy(index);
	g_array_sort(sites, by_requested);
	return sites;
}

bool ct_frag_failure_not_memory(const struct ct_frag_failure *f)
{
	return !g_strcmp0(f->verdict, "cuda_error");
}

static enum ct_analysis_status fragmentation_result(void *state, const void **result)
{
	struct fragmentation *f = state;

	f->result.failure_count = f->failures_total;
	f->result.failures = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_failure));
	f->result.devices = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_device));
	f->result.notes = g_array_new(FALSE, FALSE, sizeof(struct ct_caveat_note));
	f->result.strings = g_string_chunk_new(4096);
	f->result.listings = g_array_new(FALSE, FALSE, sizeof(struct ct_frag_listing));
	for (guint i = 0; i < f->listings->len; i++) {
		const struct frag_listing *l = &g_array_index(f->listings, struct frag_listing, i);
		struct ct_frag_listing out = {
			.time_ns = l->time_ns,
			.pid = l->pid,
			.device = l->device,
			.holders = holders_of(f, l->holders, l->holder_count),
		};

		g_array_append_val(f->result.listings, out);
	}
	add_notes(f);
	for (guint i = 0; i < f->failures->len; i++)
		add_failure(f, g_ptr_array_index(f->failures, i));
	f->result.failure_sites = failure_sites(f->result.failures);
	for (size_t p = 0; p < ct_context_process_count(f->ctx); p++) {
		const struct ct_process *process = ct_context_process_at(f->ctx, p);

		for (unsigned d = 0; d < 256; d++) {
			const struct ct_acct_device *dev = ct_acct_device_at(f->acct, process, d);

			if (dev)
				add_device(f, ct_acct_own(f->sub, dev));
		}
	}
	*result = &f->result;
	return CT_ANALYSIS_OK;
}

static void result_release(struct ct_fragmentation_result *r)
{
	for (guint i = 0; r->devices && i < r->devices->len; i++) {
		g_array_unref(g_array_index(r->devices, struct ct_frag_device, i).pools);
		g_array_unref(g_array_index(r->devices, struct ct_frag_device, i).caveats);
	}
	for (guint i = 0; r->failures && i < r->failures->len; i++) {
		struct ct_frag_failure *fl = &g_array_index(r->failures, struct ct_frag_failure, i);

		g_array_unref(fl->caveats);
		if (fl->holders)
			g_array_unref(fl->holders);
		if (fl->stack)
			g_array_unref(fl->stack);
	}
	for (guint i = 0; r->listings && i < r->listings->len; i++)
		g_array_unref(g_array_index(r->listings, struct ct_frag_listing, i).holders);
	if (r->listings)
		g_array_unref(r->listings);
	if (r->notes)
		g_array_unref(r->notes);
	if (r->devices)
		g_array_unref(r->devices);
	if (r->failures)
		g_array_unref(r->failures);
	if (r->failure_sites)
		g_array_unref(r->failure_sites);
	if (r->strings)
		g_string_chunk_free(r->strings);
}

/* ----------------------------------------------------------- lifecycle */

static enum ct_analysis_status fragmentation_create(struct ct_context *ctx,
                                                    const struct ct_options *opts, void **state)
{
	struct fragmentation *f = g_new0(struct fragmentation, 1);

	*state = f;
	f->failures = g_ptr_array_new_with_free_func(g_free);
	f->listings = g_array_new(FALSE, FALSE, sizeof(struct frag_listing));
	f->ctx = ctx;
	f->opts = opts;
	f->acct = ct_context_accounting(ctx);
	f->sub = ct_acct_subscribe(f->acct, NULL, &hooks, f);
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status fragmentation_finish(void *state, int64_t end_ns)
{
	struct fragmentation *f = state;

	f->end_ns = end_ns;
	return CT_ANALYSIS_OK;
}

static void fragmentation_destroy(void *state)
{
	struct fragmentation *f = state;

	if (!f)
		return;
	ct_acct_unsubscribe(f->sub);
	result_release(&f->result);
	g_ptr_array_free(f->failures, TRUE);
	g_array_unref(f->listings);
	g_free(f);
}

const struct ct_analysis_class ct_fragmentation_analysis = {
	.name = "fragmentation",
	.id = CT_ANALYSIS_FRAGMENTATION,
	.section = &ct_memory_section,
	.wants = CT_EV_BIT(CT_EV_MEM_ALLOC_FAILED) | CT_EV_BIT(CT_EV_NVML_SAMPLE) |
	         CT_EV_BIT(CT_EV_NVML_PROCESS) | CT_EV_BIT(CT_EV_GPU_MEMORY_POOL) |
	         CT_EV_BIT(CT_EV_GPU_MEMORY) | CT_EV_BIT(CT_EV_SYNC) | CT_EV_BIT(CT_EV_GPU_SYNC) |
	         CT_EV_BIT(CT_EV_CONTEXT_CREATE),
	.uses = CT_SHARED_ACCOUNTING,
	.create = fragmentation_create,
	.event = fragmentation_event,
	.finish = fragmentation_finish,
	.result = fragmentation_result,
	.destroy = fragmentation_destroy,
};
