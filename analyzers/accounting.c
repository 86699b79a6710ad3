/* SPDX-License-Identifier: MIT */
/*
 * accounting.c - the live allocations of every process and device (see
 * accounting.h).
 *
 * A release's mem_free comes when the call is entered; if the call fails,
 * mem_free_failed undoes it at its exit, on the same thread, with the same
 * correlation id and address. So the records a thread's last release call
 * freed are kept on that thread until its next release call, and a
 * failure puts them back as they were.
 */
#include <string.h>

#include "accounting.h"
#include "assert.h"

_Static_assert(CT_ACCT_KINDS <= UINT8_MAX, "memory kinds are kept in 8 bits");

/* Per-thread state, in the analysis's slot: the allocations its last release call freed. */
struct acct_thread {
	uint32_t correlation_id;
	GPtrArray *freed; /* struct ct_acct_alloc; owned */
};

/* Per-process state, in the analysis's slot. */
struct acct_process {
	struct ct_acct_device *devices[256]; /* owned */
	void *user;                          /* the analysis's (ct_acct_process_data) */
};

struct ct_acct {
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	int slot;
	struct ct_acct_config config;
	struct ct_acct_hooks hooks;
	void *data;
	GHashTable *live; /* struct ct_acct_alloc, each its own key; owned */
	uint64_t next_id;
};

/* ------------------------------------------------------------- state */

static struct acct_process *process_of(struct ct_acct *acct, struct ct_process *process)
{
	return ct_slot_data(&process->slot[acct->slot], sizeof(struct acct_process));
}

struct ct_acct_device *ct_acct_device_of(struct ct_acct *acct, struct ct_process *process,
                                         unsigned device)
{
	struct acct_process *ap = process_of(acct, process);
	struct ct_acct_device *dev = ap->devices[device & 0xff];
	size_t size = acct->hooks.device_size;

	if (dev)
		return dev;
	CT_ASSERT(!size || size >= sizeof(struct ct_acct_device));
	dev = g_malloc0(size ? size : sizeof(struct ct_acct_device));
	dev->process = process;
	dev->device = (uint8_t)device;
	if (acct->config.peak_set)
		dev->freed_since_peak = g_ptr_array_new_with_free_func(g_free);
	if (acct->config.reclaimed)
		dev->reclaimed = g_ptr_array_new_with_free_func(g_free);
	ap->devices[device & 0xff] = dev;
	if (acct->hooks.device_init)
		acct->hooks.device_init(acct->data, dev);
	return dev;
}

void **ct_acct_process_data(struct ct_acct *acct, struct ct_process *process)
{
	return &process_of(acct, process)->user;
}

struct ct_acct_device *ct_acct_device_at(const struct ct_acct *acct,
                                         const struct ct_process *process, unsigned device)
{
	const struct acct_process *ap = process->slot[acct->slot];

	return ap ? ap->devices[device & 0xff] : NULL;
}

static void device_free(struct ct_acct *acct, struct ct_acct_device *dev)
{
	if (!dev)
		return;
	if (acct->hooks.device_release)
		acct->hooks.device_release(acct->data, dev);
	if (dev->freed_since_peak)
		g_ptr_array_free(dev->freed_since_peak, TRUE);
	if (dev->reclaimed)
		g_ptr_array_free(dev->reclaimed, TRUE);
	g_free(dev);
}

static unsigned clamp_kind(unsigned kind)
{
	return kind < CT_ACCT_KINDS ? kind : CT_MEM_UNKNOWN;
}

enum ct_acct_space ct_acct_space_of(unsigned kind)
{
	if (kind == CT_MEM_VMM_PHYSICAL)
		return CT_ACCT_SPACE_VMM_HANDLE;
	if (kind == CT_MEM_VMM_MAP)
		return CT_ACCT_SPACE_VMM_MAP;
	return CT_ACCT_SPACE_MEMORY;
}

/* The bytes A counts for: a mapping is not memory of its own. */
static int64_t bytes_of(const struct ct_acct_alloc *a)
{
	return a->kind == CT_MEM_VMM_MAP ? 0 : (int64_t)a->size;
}

static guint alloc_hash(gconstpointer key)
{
	const struct ct_acct_alloc *a = key;
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
	const struct ct_acct_alloc *a = pa, *b = pb;

	return a->address == b->address && a->process == b->process && a->space == b->space;
}

/* Takes the live allocation of (PROCESS, SPACE, ADDRESS) out of the table; NULL if none. */
static struct ct_acct_alloc *take_live(struct ct_acct *acct, uint32_t process, unsigned space,
                                       uint64_t address)
{
	struct ct_acct_alloc key = { .address = address,
		                     .process = process,
		                     .space = (uint8_t)space };
	gpointer found;

	if (!g_hash_table_steal_extended(acct->live, &key, &found, NULL))
		return NULL;
	return found;
}

bool ct_acct_live_at_peak(const struct ct_acct_device *dev, const struct ct_acct_alloc *a)
{
	return dev->has_peak && a->seq <= dev->peak_seq && ct_mem_kind_on_device(a->kind);
}

void ct_acct_foreach_live(const struct ct_acct *acct,
                          void (*fn)(const struct ct_acct_alloc *a, void *data), void *data)
{
	GHashTableIter it;
	gpointer key;

	g_hash_table_iter_init(&it, acct->live);
	while (g_hash_table_iter_next(&it, &key, NULL))
		fn(key, data);
}

/* ------------------------------------------------------------- changes */

static void new_peak(struct ct_acct *acct, struct ct_acct_device *dev, const struct ct_event *ev)
{
	dev->has_peak = true;
	dev->peak_bytes = dev->on_device;
	dev->peak_ns = ev->time_ns;
	dev->peak_seq = ev->seq;
	memcpy(dev->peak_kinds, dev->live, sizeof(dev->peak_kinds));
	/* those were freed before this new peak: not live at it */
	if (dev->freed_since_peak)
		g_ptr_array_set_size(dev->freed_since_peak, 0);
	if (acct->hooks.peak)
		acct->hooks.peak(acct->data, dev, ev);
}

static void changed(struct ct_acct *acct, struct ct_acct_device *dev, const struct ct_event *ev)
{
	if (!ev->before_window && acct->hooks.changed)
		acct->hooks.changed(acct->data, dev, ev);
}

/* A, now live, is counted in DEV's bytes. */
static void add_bytes(struct ct_acct_device *dev, const struct ct_acct_alloc *a)
{
	dev->live[a->kind] += bytes_of(a);
	if (ct_mem_kind_on_device(a->kind))
		dev->on_device += bytes_of(a);
}

/* Puts A (owned by the caller) in the table and in its device's bytes. */
static void insert(struct ct_acct *acct, struct ct_acct_device *dev, struct ct_acct_alloc *a,
                   const struct ct_event *ev)
{
	g_hash_table_add(acct->live, a);
	add_bytes(dev, a);
	if (acct->hooks.added)
		acct->hooks.added(acct->data, dev, a, ev);
}

/*
 * Accounts for the removal of A (no longer in the table), whose record
 * stays the caller's: its bytes, the hook, and a copy kept when it was
 * live at the peak.
 */
static void release(struct ct_acct *acct, struct ct_acct_device *dev, struct ct_acct_alloc *a,
                    const struct ct_event *ev)
{
	dev->live[a->kind] -= bytes_of(a);
	if (ct_mem_kind_on_device(a->kind))
		dev->on_device -= bytes_of(a);
	/* only what was added is taken away */
	CT_ASSERT_DBG(dev->live[a->kind] >= 0 && dev->on_device >= 0);
	if (acct->hooks.removed)
		acct->hooks.removed(acct->data, dev, a, ev);
	if (dev->freed_since_peak && ct_acct_live_at_peak(dev, a))
		g_ptr_array_add(dev->freed_since_peak, g_memdup2(a, sizeof(*a)));
}

/* The device of A. */
static struct ct_acct_device *device_of_alloc(struct ct_acct *acct, const struct ct_acct_alloc *a)
{
	return ct_acct_device_of(acct, ct_context_process_at(acct->ctx, a->process), a->device);
}

/* ------------------------------------------------------------- events */

static void on_alloc(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	struct ct_acct_device *dev = ct_acct_device_of(acct, ev->process, e->device);
	struct ct_acct_alloc *a, *old;

	/* the address came back without a free we saw: the old one is gone */
	old = take_live(acct, ev->process->index, ct_acct_space_of(kind), e->address);
	if (old) {
		release(acct, device_of_alloc(acct, old), old, ev);
		g_free(old);
	}
	a = g_new(struct ct_acct_alloc, 1);
	*a = (struct ct_acct_alloc){
		.id = ++acct->next_id,
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
		.space = (uint8_t)ct_acct_space_of(kind),
	};
	insert(acct, dev, a, ev);
	if (ev->before_window || kind == CT_MEM_VMM_MAP)
		return;
	dev->allocations++;
	dev->bytes_allocated += e->size;
	if (dev->live[kind] > dev->kind_peak[kind])
		dev->kind_peak[kind] = dev->live[kind];
	if (ct_mem_kind_on_device(kind) && dev->on_device > dev->peak_bytes)
		new_peak(acct, dev, ev);
	changed(acct, dev, ev);
}

static struct acct_thread *thread_of(struct ct_acct *acct, struct ct_thread *thread)
{
	struct acct_thread *at = thread->slot[acct->slot];

	if (!at) {
		at = g_new0(struct acct_thread, 1);
		at->freed = g_ptr_array_new_with_free_func(g_free);
		thread->slot[acct->slot] = at;
	}
	return at;
}

/* A, freed by EV, is kept on its thread until the thread's next release call. */
static void keep_freed(struct ct_acct *acct, struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct acct_thread *at = thread_of(acct, ev->thread);
	uint32_t correlation_id = ev->u.mem.api.correlation_id;

	/* another call (or one whose id is unknown): the last one did not fail */
	if (at->correlation_id != correlation_id || !correlation_id)
		g_ptr_array_set_size(at->freed, 0);
	at->correlation_id = correlation_id;
	g_ptr_array_add(at->freed, a);
}

static void on_free(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	struct ct_acct_device *dev;
	struct ct_acct_alloc *a;

	a = take_live(acct, ev->process->index, ct_acct_space_of(kind), e->address);
	if (!a) {
		dev = ct_acct_device_of(acct, ev->process, e->device);
		if (!ev->before_window && kind != CT_MEM_VMM_MAP)
			dev->unknown_frees++;
		return;
	}
	dev = device_of_alloc(acct, a);
	release(acct, dev, a, ev);
	if (!ev->before_window && kind != CT_MEM_VMM_MAP)
		dev->frees++;
	keep_freed(acct, a, ev);
	if (kind != CT_MEM_VMM_MAP)
		changed(acct, dev, ev);
}

/* CUDA freed the allocation itself, when its context was destroyed: never freed by the program. */
static void on_reclaim(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	struct ct_acct_device *dev;
	struct ct_acct_alloc *a;

	a = take_live(acct, ev->process->index, ct_acct_space_of(kind), e->address);
	if (!a) {
		dev = ct_acct_device_of(acct, ev->process, e->device);
		if (!ev->before_window && kind != CT_MEM_VMM_MAP)
			dev->unknown_frees++;
		return;
	}
	dev = device_of_alloc(acct, a);
	release(acct, dev, a, ev);
	if (kind == CT_MEM_VMM_MAP) {
		g_free(a);
		return;
	}
	a->end_ns = ev->time_ns;
	a->end_api = e->api;
	if (!ev->before_window) {
		dev->reclaimed_count++;
		dev->reclaimed_bytes += a->size;
	}
	if (dev->reclaimed && !ev->before_window)
		g_ptr_array_add(dev->reclaimed, a);
	else
		g_free(a);
	changed(acct, dev, ev);
}

/* Takes the copy of A out of the allocations live at DEV's peak and freed since. */
static void forget_freed_copy(struct ct_acct_device *dev, const struct ct_acct_alloc *a)
{
	for (guint i = 0; dev->freed_since_peak && i < dev->freed_since_peak->len; i++) {
		const struct ct_acct_alloc *copy = g_ptr_array_index(dev->freed_since_peak, i);

		if (copy->id == a->id) {
			g_ptr_array_remove_index_fast(dev->freed_since_peak, i);
			return;
		}
	}
}

/*
 * The release whose mem_free came at its entry failed: the allocation was
 * never freed, and is live again as it was.
 */
static void on_free_failed(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	unsigned space = ct_acct_space_of(kind);
	struct acct_thread *at = ev->thread->slot[acct->slot];
	struct ct_acct_alloc key = { .address = e->address,
		                     .process = ev->process->index,
		                     .space = (uint8_t)space };
	struct ct_acct_device *dev;
	struct ct_acct_alloc *a = NULL;

	if (g_hash_table_contains(acct->live, &key))
		return;
	for (guint i = 0; at && at->correlation_id == e->api.correlation_id && i < at->freed->len;
	     i++) {
		struct ct_acct_alloc *freed = g_ptr_array_index(at->freed, i);

		if (freed->address == e->address && freed->space == space) {
			a = g_ptr_array_steal_index(at->freed, i);
			break;
		}
	}
	if (!a)
		return;
	dev = device_of_alloc(acct, a);
	forget_freed_copy(dev, a);
	insert(acct, dev, a, ev);
	if (ev->before_window || kind == CT_MEM_VMM_MAP)
		return;
	if (dev->frees)
		dev->frees--;
	dev->failed_frees++;
	if (dev->live[kind] > dev->kind_peak[kind])
		dev->kind_peak[kind] = dev->live[kind];
	if (ct_mem_kind_on_device(kind) && dev->on_device > dev->peak_bytes)
		new_peak(acct, dev, ev);
	changed(acct, dev, ev);
}

void ct_acct_event(struct ct_acct *acct, const struct ct_event *ev)
{
	switch (ev->type) {
	case CT_EV_MEM_ALLOC:
		on_alloc(acct, ev);
		break;
	case CT_EV_MEM_FREE:
		on_free(acct, ev);
		break;
	case CT_EV_MEM_RECLAIM:
		on_reclaim(acct, ev);
		break;
	case CT_EV_MEM_FREE_FAILED:
		on_free_failed(acct, ev);
		break;
	default:
		break;
	}
}

/* ----------------------------------------------------------- lifecycle */

struct ct_acct *ct_acct_create(struct ct_context *ctx, const struct ct_options *opts, int slot,
                               const struct ct_acct_config *config,
                               const struct ct_acct_hooks *hooks, void *data)
{
	struct ct_acct *acct = g_new0(struct ct_acct, 1);

	CT_ASSERT(slot >= 0 && slot < CT_SLOTS);
	acct->ctx = ctx;
	acct->opts = opts;
	acct->slot = slot;
	acct->config = *config;
	acct->hooks = *hooks;
	acct->data = data;
	/* each record is its own key, and the table owns it */
	acct->live = g_hash_table_new_full(alloc_hash, alloc_equal, g_free, NULL);
	return acct;
}

static void thread_free(struct ct_thread *thread, void *data)
{
	int slot = *(const int *)data;
	struct acct_thread *at = thread->slot[slot];

	if (at) {
		g_ptr_array_free(at->freed, TRUE);
		g_free(at);
		thread->slot[slot] = NULL;
	}
}

void ct_acct_destroy(struct ct_acct *acct)
{
	if (!acct)
		return;
	for (size_t p = 0; p < ct_context_process_count(acct->ctx); p++) {
		struct ct_process *process = ct_context_process_at(acct->ctx, p);
		struct acct_process *ap = process->slot[acct->slot];

		for (unsigned d = 0; ap && d < 256; d++)
			device_free(acct, ap->devices[d]);
		if (ap && ap->user && acct->hooks.process_release)
			acct->hooks.process_release(acct->data, ap->user);
		g_free(ap);
		process->slot[acct->slot] = NULL;
	}
	ct_context_foreach_thread(acct->ctx, thread_free, &acct->slot);
	g_hash_table_destroy(acct->live);
	g_free(acct);
}
