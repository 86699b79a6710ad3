/* SPDX-License-Identifier: MIT */
/*
 * accounting.c - the live allocations of every process and device (see
 * accounting.h).
 */
#include <string.h>

#include "accounting.h"
#include "assert.h"

_Static_assert(CT_ACCT_KINDS <= UINT8_MAX, "memory kinds are kept in 8 bits");

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
	g_free(a);
	if (kind != CT_MEM_VMM_MAP)
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
	g_hash_table_destroy(acct->live);
	g_free(acct);
}
