/* SPDX-License-Identifier: MIT */
/*
 * accounting.c - the live allocations of every process and device (see
 * accounting.h).
 *
 * A release's mem_free comes when the call is entered, and the driver
 * frees the memory before the call returns: the release is done at the
 * call's exit (ct_acct_call: the event that records the call, or the
 * thread's next call), or earlier when another thread's allocation is
 * given its address, which it can be only once freed. An allocation is
 * dated at its call's exit, where its mem_alloc comes. So both are dated
 * late by about the same time, the exit callback's, and the order of an
 * allocation and a release on two threads is kept as well as the trace
 * can keep it: dating releases at their entry would count memory of one
 * thread freed while another's allocation is still being made, and the
 * peak under threads would come out low. Where calls of several threads
 * overlapped, the order is not known: the peak's bounds (peak_low,
 * peak_high, peak-bounds.h) say how far it can be off. A release whose
 * call never returned (its thread was inside cudaFree when the process
 * exited) is no free, as for the driver: the allocation stays live.
 *
 * If the release fails, mem_free_failed undoes it at its exit, on the same
 * thread, with the same correlation id and address: while the release is
 * pending it is dropped; once done, the records a thread's last release
 * call freed are kept on that thread until its next release call, and a
 * failure puts them back as they were.
 *
 * Allocations made before the trace's window (a session started while the
 * program ran, a flight recorder's ring buffer that wrapped) show up in a
 * statedump, or when they are released. Either way the allocation was live
 * from the window's start until then, so every figure since the start
 * rises by its bytes: the peak (a maximum over the window) by exactly
 * that, and the allocation, given seq 0, belongs to every peak set. A
 * statedump is applied as of its statedump_begin: an allocation released
 * after it is not live again when its mem_live comes later; a mem_live
 * whose address is live already, or whose mem_alloc comes after it (same
 * correlation id), is that allocation. A dumped allocation made inside
 * the window whose mem_alloc never comes is counted from its mem_live on,
 * and the figures before are lower bounds. When nothing but the evidence
 * says that allocations were made before the window (a session-start
 * statedump, releases of memory never seen allocated, memory events on a
 * device before its context was created), the figures are lower bounds
 * until a complete statedump gives the whole live set.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "accounting.h"
#include "contract/assert.h"
#include "common/saturate.h"

_Static_assert(CT_ACCT_KINDS <= UINT8_MAX, "memory kinds are kept in 8 bits");

/* A release entered (its mem_free, dated at the entry) whose call has not returned. */
struct pending_release {
	struct ct_acct_alloc *a; /* in the live table, a->releasing set */
	struct ct_event ev;      /* the mem_free; its strings are not used */
};

/*
 * Per-thread state, in the accountant's slot: the releases it entered and
 * that are not done yet, and the allocations its last release call freed.
 */
struct acct_thread {
	GArray *pending; /* struct pending_release, in order */
	uint32_t correlation_id;
	GPtrArray *freed; /* struct ct_acct_alloc; owned */
	/*
	 * The thread's last recorded call (its correlation id, 0: none, and
	 * entry): a second allocation of that call, whose event does not
	 * record it (entry 0: doc/events.md), began at that entry too.
	 */
	uint32_t call_id;
	int64_t call_entry_ns;
};

/* Per-process state, in the accountant's slot. */
struct acct_process {
	struct ct_acct_device *devices[256]; /* owned */
	struct ct_acct_window window;
	/* The statedump begun and not ended yet, if any. */
	bool dump_open;
	uint32_t dump;
	int64_t dump_ns;       /* its statedump_begin */
	uint64_t dump_entries; /* its mem_live events */
	/* Addresses (dump_key) released since it began; owned; NULL when none is open. */
	GHashTable *released_in_dump;
	/*
	 * An api_call of it was read: its calls' returns are in the trace
	 * (known sooner where the reader could tell: ct_process.calls_recorded).
	 */
	bool calls_recorded;
	/* Calls its exit() gave up waiting for (ct_acct_exit_calls). */
	uint64_t exit_calls;
	void *user[]; /* each subscriber's (ct_acct_process_data), by its index */
};

/* A subscriber: hooks.device_size 0 and no hook once it left. */
struct ct_acct_sub {
	struct ct_acct *acct;
	struct ct_acct_hooks hooks;
	void *data;
	size_t offset;  /* of its part in each device */
	unsigned index; /* of its data in each process */
};

struct ct_acct {
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	int slot;
	struct ct_acct_config config; /* what any subscriber asked */
	struct ct_acct_sub subs[CT_ACCT_SUBSCRIBERS];
	unsigned sub_count;
	/* The size of each device: struct ct_acct_device, then the subscribers' parts. */
	size_t device_bytes;
	bool started;     /* a process or a device was made: no subscriber joins any more */
	GHashTable *live; /* struct ct_acct_alloc, each its own key; owned */
	uint64_t next_id;
};

/* The end of ACCT's subscribers: acct->subs on, in the order they joined. */
static inline struct ct_acct_sub *subs_end(struct ct_acct *acct)
{
	return acct->subs + acct->sub_count;
}

/* The part of DEV subscriber S keeps, NULL if none. */
static inline void *own_of(const struct ct_acct_sub *s, const struct ct_acct_device *dev)
{
	return s->hooks.device_size ? (char *)dev + s->offset : NULL;
}

/* SIZE rounded up so that what follows it is aligned for any type. */
static size_t aligned(size_t size)
{
	size_t align = _Alignof(max_align_t);

	return (size + align - 1) / align * align;
}

/* ------------------------------------------------------------- state */

static struct acct_process *process_of(struct ct_acct *acct, struct ct_process *process)
{
	void **slot = &process->slot[acct->slot];

	if (!*slot)
		acct->started = true;
	return ct_slot_data(slot, sizeof(struct acct_process) + acct->sub_count * sizeof(void *));
}

struct ct_acct_device *ct_acct_device_of(struct ct_acct *acct, struct ct_process *process,
                                         unsigned device)
{
	struct acct_process *ap = process_of(acct, process);
	struct ct_acct_device *dev = ap->devices[device & 0xff];

	if (dev)
		return dev;
	dev = g_malloc0(acct->device_bytes);
	dev->process = process;
	dev->device = (uint8_t)device;
	dev->unknown_until_ns = INT64_MIN;
	dev->first_event_ns = INT64_MAX;
	dev->context_ns = INT64_MAX;
	if (acct->config.peak_set)
		dev->freed_since_peak = g_ptr_array_new_with_free_func(g_free);
	if (acct->config.reclaimed)
		dev->reclaimed = g_ptr_array_new_with_free_func(g_free);
	dev->bounds = ct_peak_bounds_new();
	ap->devices[device & 0xff] = dev;
	for (struct ct_acct_sub *s = acct->subs; s < subs_end(acct); s++)
		if (s->hooks.device_init)
			s->hooks.device_init(s->data, dev, own_of(s, dev));
	return dev;
}

void **ct_acct_process_data(struct ct_acct_sub *sub, struct ct_process *process)
{
	return &process_of(sub->acct, process)->user[sub->index];
}

void *ct_acct_own(const struct ct_acct_sub *sub, const struct ct_acct_device *dev)
{
	return dev ? own_of(sub, dev) : NULL;
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
	for (struct ct_acct_sub *s = acct->subs; s < subs_end(acct); s++)
		if (s->hooks.device_release)
			s->hooks.device_release(s->data, dev, own_of(s, dev));
	if (dev->freed_since_peak)
		g_ptr_array_free(dev->freed_since_peak, TRUE);
	if (dev->reclaimed)
		g_ptr_array_free(dev->reclaimed, TRUE);
	ct_peak_bounds_free(dev->bounds);
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
	return a->kind == CT_MEM_VMM_MAP ? 0 : ct_sat_i64(a->size);
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

/* The live allocation of (PROCESS, SPACE, ADDRESS), left in the table; NULL if none. */
static struct ct_acct_alloc *find_live(struct ct_acct *acct, uint32_t process, unsigned space,
                                       uint64_t address)
{
	struct ct_acct_alloc key = { .address = address,
		                     .process = process,
		                     .space = (uint8_t)space };

	return g_hash_table_lookup(acct->live, &key);
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

/* The subscribers hear that A became live at EV. */
static void tell_added(struct ct_acct *acct, struct ct_acct_device *dev,
                       const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	for (struct ct_acct_sub *s = acct->subs; s < subs_end(acct); s++)
		if (s->hooks.added)
			s->hooks.added(s->data, dev, own_of(s, dev), a, ev);
}

/* ... that A is live no more. */
static void tell_removed(struct ct_acct *acct, struct ct_acct_device *dev,
                         const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	for (struct ct_acct_sub *s = acct->subs; s < subs_end(acct); s++)
		if (s->hooks.removed)
			s->hooks.removed(s->data, dev, own_of(s, dev), a, ev);
}

/* ... that DEV reached a new peak. */
static void tell_peak(struct ct_acct *acct, struct ct_acct_device *dev, const struct ct_event *ev)
{
	for (struct ct_acct_sub *s = acct->subs; s < subs_end(acct); s++)
		if (s->hooks.peak)
			s->hooks.peak(s->data, dev, own_of(s, dev), ev);
}

/* ... that A, made before the window, was learned of. */
static void tell_revealed(struct ct_acct *acct, struct ct_acct_device *dev,
                          const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	for (struct ct_acct_sub *s = acct->subs; s < subs_end(acct); s++)
		if (s->hooks.revealed)
			s->hooks.revealed(s->data, dev, own_of(s, dev), a, ev);
}

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
	tell_peak(acct, dev, ev);
}

/* The live bytes of DEV changed at EV, in the window: the peak's bounds. */
static void bound(struct ct_acct_device *dev, const struct ct_event *ev)
{
	int64_t surely = dev->on_device - dev->releasing;

	if (surely > dev->peak_low)
		dev->peak_low = surely;
	ct_peak_bounds_step(dev->bounds, ev->time_ns, dev->on_device);
	dev->peak_high = ct_peak_bounds_high(dev->bounds);
	if (dev->peak_bytes > dev->peak_high)
		dev->peak_high = dev->peak_bytes;
}

static void changed(struct ct_acct *acct, struct ct_acct_device *dev, const struct ct_event *ev)
{
	if (ev->before_window)
		return;
	bound(dev, ev);
	for (struct ct_acct_sub *s = acct->subs; s < subs_end(acct); s++)
		if (s->hooks.changed)
			s->hooks.changed(s->data, dev, own_of(s, dev), ev);
}

/*
 * A dumped allocation made inside the window whose mem_alloc the trace
 * does not have was counted from its mem_live only: figures before that,
 * back to when it was made, miss it.
 */
static void unseen_until(struct ct_acct_device *dev, const struct ct_acct_alloc *a)
{
	if (a->origin == CT_ACCT_DUMPED && a->seq && a->seen_ns > dev->unknown_until_ns)
		dev->unknown_until_ns = a->seen_ns;
}

/* The key of an address in a statedump's set of released addresses. */
static uint64_t dump_key(unsigned space, uint64_t address)
{
	return address ^ ((uint64_t)space << 62);
}

/* A was released at EV: a statedump begun before must not make it live again. */
static void note_released(struct ct_acct *acct, const struct ct_acct_alloc *a,
                          const struct ct_event *ev)
{
	struct acct_process *ap = ev->process->slot[acct->slot];
	uint64_t key = dump_key(a->space, a->address);

	if (ap && ap->released_in_dump)
		g_hash_table_add(ap->released_in_dump, g_memdup2(&key, sizeof(key)));
}

/* A, now live, is counted in DEV's bytes. */
static void add_bytes(struct ct_acct_device *dev, const struct ct_acct_alloc *a)
{
	dev->live[a->kind] = ct_sat_add(dev->live[a->kind], bytes_of(a));
	if (ct_mem_kind_on_device(a->kind))
		dev->on_device = ct_sat_add(dev->on_device, bytes_of(a));
}

/* Puts A (owned by the caller) in the table and in its device's bytes. */
static void insert(struct ct_acct *acct, struct ct_acct_device *dev, struct ct_acct_alloc *a,
                   const struct ct_event *ev)
{
	g_hash_table_add(acct->live, a);
	add_bytes(dev, a);
	tell_added(acct, dev, a, ev);
}

/*
 * Accounts for the removal of A (no longer in the table), whose record
 * stays the caller's: its bytes, the hook, and a copy kept when it was
 * live at the peak.
 */
static void release(struct ct_acct *acct, struct ct_acct_device *dev, struct ct_acct_alloc *a,
                    const struct ct_event *ev)
{
	dev->live[a->kind] = ct_bytes_sub(dev->live[a->kind], (uint64_t)bytes_of(a));
	if (ct_mem_kind_on_device(a->kind))
		dev->on_device = ct_bytes_sub(dev->on_device, (uint64_t)bytes_of(a));
	/* only what was added is taken away */
	CT_ASSERT_DBG(dev->live[a->kind] >= 0 && dev->on_device >= 0);
	tell_removed(acct, dev, a, ev);
	/* made before the window: live at the first peak, even one not set yet */
	if (dev->freed_since_peak &&
	    (ct_acct_live_at_peak(dev, a) ||
	     (!dev->has_peak && !a->seq && ct_mem_kind_on_device(a->kind))))
		g_ptr_array_add(dev->freed_since_peak, g_memdup2(a, sizeof(*a)));
	unseen_until(dev, a);
	note_released(acct, a, ev);
}

/* The device of A. */
static struct ct_acct_device *device_of_alloc(struct ct_acct *acct, const struct ct_acct_alloc *a)
{
	return ct_acct_device_of(acct, ct_context_process_at(acct->ctx, a->process), a->device);
}

/* A new record of what EV (a mem layout) says, the caller's. */
static struct ct_acct_alloc *record_of(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	struct ct_acct_alloc *a = g_new(struct ct_acct_alloc, 1);

	*a = (struct ct_acct_alloc){
		.id = ++acct->next_id,
		.address = e->address,
		.size = e->size,
		.time_ns = ev->time_ns,
		.time_known = true,
		.origin = CT_ACCT_TRACED,
		.seen_ns = ev->time_ns,
		.seq = ev->seq,
		.thread = ev->thread,
		.process = ev->process->index,
		.path = ev->site,
		.api = e->api,
		.stack_id = e->stack_id,
		.device = e->device,
		.kind = (uint8_t)kind,
		.space = (uint8_t)ct_acct_space_of(kind),
	};
	return a;
}

/* After A became live at EV in the window: the kind's peak and the device's. */
static void check_peaks(struct ct_acct *acct, struct ct_acct_device *dev,
                        const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	if (ev->before_window || a->kind == CT_MEM_VMM_MAP)
		return;
	if (dev->live[a->kind] > dev->kind_peak[a->kind])
		dev->kind_peak[a->kind] = dev->live[a->kind];
	if (ct_mem_kind_on_device(a->kind) && dev->on_device > dev->peak_bytes)
		new_peak(acct, dev, ev);
}

/*
 * A, made before the window (seq 0), is learned of at EV: live from the
 * window's start on, it counts in every figure since, the peak included.
 */
static void reveal(struct ct_acct *acct, struct ct_acct_device *dev, struct ct_acct_alloc *a,
                   const struct ct_event *ev)
{
	int64_t bytes = bytes_of(a);
	unsigned kind = a->kind;

	a->seq = 0;
	insert(acct, dev, a, ev);
	if (kind == CT_MEM_VMM_MAP)
		return;
	dev->before_window_count++;
	dev->before_window[kind] = ct_sat_add(dev->before_window[kind], bytes);
	if (ev->before_window)
		return;
	/* the maxima over the window so far rise by its bytes */
	dev->kind_peak[kind] = ct_sat_add(dev->kind_peak[kind], bytes);
	if (dev->live[kind] > dev->kind_peak[kind])
		dev->kind_peak[kind] = dev->live[kind];
	if (ct_mem_kind_on_device(kind)) {
		dev->peak_low = ct_sat_add(dev->peak_low, bytes);
		ct_peak_bounds_raise(dev->bounds, bytes);
		if (dev->has_peak) {
			dev->peak_bytes = ct_sat_add(dev->peak_bytes, bytes);
			dev->peak_kinds[kind] = ct_sat_add(dev->peak_kinds[kind], bytes);
		} else {
			/* the first peak: the window's start, where all of those were live */
			dev->has_peak = true;
			dev->peak_bytes = ct_acct_before_window_on_device(dev);
			dev->peak_ns = dev->process->first_ns;
			dev->peak_seq = 0;
			for (unsigned k = 0; k < CT_ACCT_KINDS; k++)
				dev->peak_kinds[k] =
				    ct_mem_kind_on_device(k) ? dev->before_window[k] : 0;
			tell_peak(acct, dev, ev);
		}
	}
	tell_revealed(acct, dev, a, ev);
	check_peaks(acct, dev, a, ev);
	changed(acct, dev, ev);
}

/* Whether releases of memory never seen allocated say something of the window. */
static bool inferring(const struct ct_acct *acct)
{
	/* under an NVTX range filter, the allocations outside the range are not shown */
	return !acct->opts->nvtx_range;
}

/* The first allocation or release of DEV, for the context evidence. */
static void note_event(struct ct_acct_device *dev, const struct ct_event *ev)
{
	if (ev->time_ns < dev->first_event_ns)
		dev->first_event_ns = ev->time_ns;
}

/*
 * A release (EV) of an address the trace never saw allocated: made before
 * the window. With a size (the tracer knew it), it was live until now:
 * learned of, then released by the caller. Without one, the figures up to
 * now miss it. NULL when there is nothing to release.
 */
static struct ct_acct_alloc *unknown_released(struct ct_acct *acct, struct ct_acct_device *dev,
                                              const struct ct_event *ev)
{
	struct acct_process *ap = process_of(acct, ev->process);
	struct ct_acct_alloc *a;

	if (!ev->before_window)
		dev->unknown_frees++;
	if (!inferring(acct))
		return NULL;
	ap->window.evidence |= CT_ACCT_LATE_RELEASE;
	if (!ev->u.mem.size) {
		dev->unsized_frees++;
		if (ev->time_ns > dev->unknown_until_ns)
			dev->unknown_until_ns = ev->time_ns;
		return NULL;
	}
	a = record_of(acct, ev);
	a->origin = CT_ACCT_INFERRED;
	a->time_known = false;
	a->thread = NULL;
	a->path = CT_PATH_NONE;
	a->api = (struct ct_api_ref){ 0 };
	reveal(acct, dev, a, ev);
	/* the table holds it now: the caller takes it back out */
	return take_live(acct, a->process, a->space, a->address);
}

/*
 * A mem_alloc at the address of a dumped allocation with the same
 * correlation id: the same allocation, whose mem_alloc came after its
 * mem_live. It keeps its place; the call and site are the mem_alloc's.
 */
static bool merge_dumped(struct ct_acct *acct, struct ct_acct_device *dev,
                         struct ct_acct_alloc *old, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;

	if (old->origin != CT_ACCT_DUMPED || !e->api.correlation_id ||
	    old->api.correlation_id != e->api.correlation_id || old->size != e->size ||
	    old->device != e->device)
		return false;
	tell_removed(acct, dev, old, ev);
	old->origin = CT_ACCT_TRACED;
	old->thread = ev->thread;
	old->path = ev->site;
	old->api = e->api;
	g_hash_table_add(acct->live, old);
	tell_added(acct, dev, old, ev);
	if (!ev->before_window && old->kind != CT_MEM_VMM_MAP) {
		dev->allocations++;
		dev->bytes_allocated = ct_sat_add_u64(dev->bytes_allocated, old->size);
	}
	return true;
}

static void settle(struct ct_acct *acct, struct ct_acct_alloc *a, const struct ct_event *at);

/*
 * The entry of the call that made the allocation EV, into *ENTRY_NS:
 * its own when EV records the call, that of the call EV's thread last
 * recorded when EV is a second allocation of it. False: not known.
 */
static bool call_entry(const struct ct_acct *acct, const struct ct_event *ev, int64_t *entry_ns)
{
	const struct acct_thread *at = ev->thread->slot[acct->slot];
	uint32_t id = ev->u.mem.api.correlation_id;

	if (ev->has_call)
		*entry_ns = ev->call.entry_ns;
	else if (at && id && at->call_id == id)
		*entry_ns = at->call_entry_ns;
	else
		return false;
	return true;
}

static void on_alloc(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	unsigned space = ct_acct_space_of(kind);
	struct ct_acct_device *dev = ct_acct_device_of(acct, ev->process, e->device);
	struct ct_acct_alloc *a, *old;
	int64_t entry_ns;

	note_event(dev, ev);
	/* the driver gave out its address again: the release that freed it is done */
	old = find_live(acct, ev->process->index, space, e->address);
	if (old && old->releasing)
		settle(acct, old, ev);
	old = take_live(acct, ev->process->index, space, e->address);
	if (old && merge_dumped(acct, dev, old, ev))
		return;
	/* the address came back without a free we saw: the old one is gone */
	if (old) {
		release(acct, device_of_alloc(acct, old), old, ev);
		g_free(old);
	}
	a = record_of(acct, ev);
	/* made at the most from its call's entry on: the peak's high bound */
	if (!ev->before_window && call_entry(acct, ev, &entry_ns) && ct_mem_kind_on_device(kind))
		ct_peak_bounds_early(dev->bounds, entry_ns, bytes_of(a));
	insert(acct, dev, a, ev);
	if (ev->before_window || kind == CT_MEM_VMM_MAP)
		return;
	dev->allocations++;
	dev->bytes_allocated = ct_sat_add_u64(dev->bytes_allocated, e->size);
	check_peaks(acct, dev, a, ev);
	changed(acct, dev, ev);
}

static struct acct_thread *thread_of(struct ct_acct *acct, struct ct_thread *thread)
{
	struct acct_thread *at = thread->slot[acct->slot];

	if (!at) {
		at = g_new0(struct acct_thread, 1);
		at->pending = g_array_new(FALSE, FALSE, sizeof(struct pending_release));
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

/* Whether the release entered at EV is done only when its call returns. */
static bool deferred(struct ct_acct *acct, const struct ct_event *ev)
{
	/*
	 * Calls' ends are known only where the process's api_call events are
	 * in the trace (not under `record --no-api`): from its first event
	 * where its tracer_info and the trace's classes say so, else from its
	 * first api_call. And all of them are known only in the window and
	 * without an NVTX range filter. Else the release is done at once, as
	 * its mem_free says.
	 */
	return !ev->before_window && !acct->opts->nvtx_range &&
	       (ev->process->calls_recorded || process_of(acct, ev->process)->calls_recorded);
}

/*
 * The pending release P of its thread is done at AT (its call returned, a
 * later call of the thread began, or its address was given out again):
 * the allocation is freed then, as the mem_free said.
 */
static void release_done(struct ct_acct *acct, const struct pending_release *p,
                         const struct ct_event *at)
{
	struct ct_acct_alloc *a = p->a;
	struct ct_event ev = p->ev;
	struct ct_acct_device *dev;
	struct ct_acct_alloc *taken;

	ev.time_ns = at->time_ns > ev.time_ns ? at->time_ns : ev.time_ns;
	ev.seq = at->seq;
	a->releasing = NULL;
	taken = take_live(acct, a->process, a->space, a->address);
	CT_ASSERT(taken == a);
	dev = device_of_alloc(acct, a);
	if (ct_mem_kind_on_device(a->kind))
		dev->releasing = ct_bytes_sub(dev->releasing, (uint64_t)bytes_of(a));
	if (a->kind != CT_MEM_VMM_MAP)
		dev->frees++;
	release(acct, dev, a, &ev);
	keep_freed(acct, a, &ev);
	if (a->kind != CT_MEM_VMM_MAP)
		changed(acct, dev, &ev);
}

/* The index of A's release in AT's pending ones; -1: none. */
static int pending_index(const struct acct_thread *at, const struct ct_acct_alloc *a)
{
	for (guint i = 0; at && i < at->pending->len; i++)
		if (g_array_index(at->pending, struct pending_release, i).a == a)
			return (int)i;
	return -1;
}

/* A's pending release is done at AT. */
static void settle(struct ct_acct *acct, struct ct_acct_alloc *a, const struct ct_event *at)
{
	struct acct_thread *thread = a->releasing->slot[acct->slot];
	int i = pending_index(thread, a);
	struct pending_release p;

	CT_ASSERT(i >= 0);
	p = g_array_index(thread->pending, struct pending_release, (guint)i);
	g_array_remove_index(thread->pending, (guint)i);
	release_done(acct, &p, at);
}

/* A's release was entered at EV: done when its call returns. */
static void release_entered(struct ct_acct *acct, struct ct_acct_device *dev,
                            struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct acct_thread *at = thread_of(acct, ev->thread);
	struct pending_release p = { .a = a, .ev = *ev };

	a->releasing = ev->thread;
	g_array_append_val(at->pending, p);
	if (ct_mem_kind_on_device(a->kind))
		dev->releasing = ct_sat_add(dev->releasing, bytes_of(a));
}

static void on_free(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	unsigned space = ct_acct_space_of(kind);
	struct ct_acct_device *dev = ct_acct_device_of(acct, ev->process, e->device);
	struct ct_acct_alloc *a;

	note_event(dev, ev);
	a = find_live(acct, ev->process->index, space, e->address);
	/* released again while the last release had not returned: that one is done */
	if (a && a->releasing) {
		settle(acct, a, ev);
		a = NULL;
	}
	if (a && deferred(acct, ev)) {
		release_entered(acct, device_of_alloc(acct, a), a, ev);
		return;
	}
	a = take_live(acct, ev->process->index, space, e->address);
	if (a) {
		dev = device_of_alloc(acct, a);
		if (!ev->before_window && kind != CT_MEM_VMM_MAP)
			dev->frees++;
	} else if (kind != CT_MEM_VMM_MAP) {
		a = unknown_released(acct, dev, ev);
	}
	if (!a)
		return;
	release(acct, dev, a, ev);
	keep_freed(acct, a, ev);
	if (kind != CT_MEM_VMM_MAP)
		changed(acct, dev, ev);
}

/* CUDA freed the allocation itself, when its context was destroyed: never freed by the program. */
static void on_reclaim(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_mem *e = &ev->u.mem;
	unsigned kind = clamp_kind(e->kind);
	struct ct_acct_device *dev = ct_acct_device_of(acct, ev->process, e->device);
	struct ct_acct_alloc *a;

	note_event(dev, ev);
	a = find_live(acct, ev->process->index, ct_acct_space_of(kind), e->address);
	/* its release was under way: the program freed it, before CUDA could */
	if (a && a->releasing) {
		settle(acct, a, ev);
		return;
	}
	a = take_live(acct, ev->process->index, ct_acct_space_of(kind), e->address);
	if (a)
		dev = device_of_alloc(acct, a);
	else if (kind != CT_MEM_VMM_MAP)
		a = unknown_released(acct, dev, ev);
	if (!a)
		return;
	release(acct, dev, a, ev);
	if (kind == CT_MEM_VMM_MAP) {
		g_free(a);
		return;
	}
	a->end_ns = ev->time_ns;
	a->end_api = e->api;
	if (!ev->before_window) {
		dev->reclaimed_count++;
		dev->reclaimed_bytes = ct_sat_add_u64(dev->reclaimed_bytes, a->size);
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
 * never freed, and is live again as it was. One whose mem_free is not its
 * thread's last (lost, or before the trace) is live from now on, and the
 * figures before may miss it.
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
	struct ct_acct_alloc *a = g_hash_table_lookup(acct->live, &key);

	/* its release has not been done: it never is */
	if (a && a->releasing == ev->thread) {
		int i = pending_index(at, a);
		const struct pending_release *p =
		    i >= 0 ? &g_array_index(at->pending, struct pending_release, (guint)i) : NULL;

		if (p && p->ev.u.mem.api.correlation_id == e->api.correlation_id) {
			g_array_remove_index(at->pending, (guint)i);
			a->releasing = NULL;
			dev = device_of_alloc(acct, a);
			if (ct_mem_kind_on_device(a->kind))
				dev->releasing =
				    ct_bytes_sub(dev->releasing, (uint64_t)bytes_of(a));
			if (!ev->before_window && kind != CT_MEM_VMM_MAP)
				dev->failed_frees++;
			return;
		}
	}
	if (a)
		return;
	for (guint i = 0; at && at->correlation_id == e->api.correlation_id && i < at->freed->len;
	     i++) {
		struct ct_acct_alloc *freed = g_ptr_array_index(at->freed, i);

		if (freed->address == e->address && freed->space == space) {
			a = g_ptr_array_steal_index(at->freed, i);
			break;
		}
	}
	if (!a) {
		/* its free is not the thread's last: live now, since when unknown */
		if (kind == CT_MEM_VMM_MAP || !e->size || !inferring(acct))
			return;
		dev = ct_acct_device_of(acct, ev->process, e->device);
		a = record_of(acct, ev);
		a->origin = CT_ACCT_INFERRED;
		a->time_known = false;
		a->thread = NULL;
		a->path = CT_PATH_NONE;
		a->api = (struct ct_api_ref){ 0 };
		insert(acct, dev, a, ev);
		if (ev->time_ns > dev->unknown_until_ns)
			dev->unknown_until_ns = ev->time_ns;
		check_peaks(acct, dev, a, ev);
		changed(acct, dev, ev);
		return;
	}
	dev = device_of_alloc(acct, a);
	forget_freed_copy(dev, a);
	insert(acct, dev, a, ev);
	if (ev->before_window || kind == CT_MEM_VMM_MAP)
		return;
	if (dev->frees)
		dev->frees--;
	dev->failed_frees++;
	check_peaks(acct, dev, a, ev);
	changed(acct, dev, ev);
}

/* ------------------------------------------------------------ statedumps */

static void dump_close(struct acct_process *ap)
{
	ap->dump_open = false;
	if (ap->released_in_dump)
		g_hash_table_destroy(ap->released_in_dump);
	ap->released_in_dump = NULL;
}

static void on_dump_begin(struct ct_acct *acct, const struct ct_event *ev)
{
	struct acct_process *ap = process_of(acct, ev->process);

	/* one that never ended is not complete */
	dump_close(ap);
	ap->dump_open = true;
	ap->dump = ev->u.statedump_begin.dump;
	ap->dump_ns = ev->time_ns;
	ap->dump_entries = 0;
	ap->released_in_dump = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	ap->window.dumps++;
	if (ev->u.statedump_begin.reason == CT_STATEDUMP_SESSION_START)
		ap->window.evidence |= CT_ACCT_LATE_SESSION;
}

/* One allocation live as of the open dump's statedump_begin. */
static void on_mem_live(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_mem_live *e = &ev->u.mem_live;
	struct acct_process *ap = process_of(acct, ev->process);
	unsigned kind = clamp_kind(e->kind);
	unsigned space = ct_acct_space_of(kind);
	uint64_t key = dump_key(space, e->address);
	struct ct_acct_alloc probe = { .address = e->address,
		                       .process = ev->process->index,
		                       .space = (uint8_t)space };
	/* a time beyond INT64_MAX is none a clock gives: when it was made is unknown */
	bool known = e->alloc_time <= (uint64_t)INT64_MAX;
	struct ct_acct_device *dev;
	struct ct_acct_alloc *a;

	if (ap->dump_open && e->dump == ap->dump)
		ap->dump_entries++;
	/* live already: the same allocation */
	if (g_hash_table_contains(acct->live, &probe))
		return;
	/* released after the dump began: not live again */
	if (ap->released_in_dump && g_hash_table_contains(ap->released_in_dump, &key))
		return;
	dev = ct_acct_device_of(acct, ev->process, e->device);
	a = g_new(struct ct_acct_alloc, 1);
	*a = (struct ct_acct_alloc){
		.id = ++acct->next_id,
		.address = e->address,
		.size = e->size,
		.time_ns = known ? (int64_t)e->alloc_time : 0,
		.time_known = known,
		.origin = CT_ACCT_DUMPED,
		.seen_ns = ev->time_ns,
		.seq = ev->seq,
		.process = ev->process->index,
		.path = CT_PATH_NONE,
		.api = e->api,
		.device = e->device,
		.kind = (uint8_t)kind,
		.space = (uint8_t)space,
	};
	if (!known || (int64_t)e->alloc_time < ev->process->first_ns) {
		ap->window.evidence |= CT_ACCT_LATE_DUMP;
		reveal(acct, dev, a, ev);
		return;
	}
	/* made inside the window: its mem_alloc may yet come (merge_dumped) */
	insert(acct, dev, a, ev);
	check_peaks(acct, dev, a, ev);
	if (kind != CT_MEM_VMM_MAP)
		changed(acct, dev, ev);
}

static void on_dump_end(struct ct_acct *acct, const struct ct_event *ev)
{
	const struct ct_ev_statedump_end *e = &ev->u.statedump_end;
	struct acct_process *ap = process_of(acct, ev->process);

	if (!ap->dump_open || e->dump != ap->dump)
		return;
	/* every mem_live of it came (a device filter drops some: then take its word) */
	if (e->complete && !ap->window.complete_dump &&
	    (ap->dump_entries == e->entries || acct->opts->device_count)) {
		ap->window.complete_dump = true;
		ap->window.complete_dump_ns = ap->dump_ns;
	}
	dump_close(ap);
}

static void on_context(struct ct_acct *acct, const struct ct_event *ev)
{
	struct acct_process *ap = process_of(acct, ev->process);
	struct ct_acct_device *dev;

	ap->window.context_events = true;
	if (ev->type != CT_EV_CONTEXT_CREATE || ev->u.context.device == CT_DEVICE_NONE)
		return;
	dev = ct_acct_device_of(acct, ev->process, ev->u.context.device);
	if (ev->time_ns < dev->context_ns)
		dev->context_ns = ev->time_ns;
}

/* A tracer_error: the calls its exit() gave up waiting for. */
static void on_tracer_error(struct ct_acct *acct, const struct ct_event *ev)
{
	struct acct_process *ap;

	if (ev->u.tracer_error.kind != CT_TRACER_ERROR_EXIT_CALLS)
		return;
	ap = process_of(acct, ev->process);
	ap->exit_calls = ct_sat_add_u64(
	    ap->exit_calls, ev->u.tracer_error.code > 0 ? (uint64_t)ev->u.tracer_error.code : 1);
}

uint64_t ct_acct_exit_calls(const struct ct_acct *acct, const struct ct_process *process)
{
	const struct acct_process *ap = process->slot[acct->slot];

	return ap ? ap->exit_calls : 0;
}

void ct_acct_event(struct ct_acct *acct, const struct ct_event *ev)
{
	switch (ev->type) {
	case CT_EV_TRACER_ERROR:
		on_tracer_error(acct, ev);
		break;
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
	case CT_EV_STATEDUMP_BEGIN:
		on_dump_begin(acct, ev);
		break;
	case CT_EV_MEM_LIVE:
		on_mem_live(acct, ev);
		break;
	case CT_EV_STATEDUMP_END:
		on_dump_end(acct, ev);
		break;
	case CT_EV_CONTEXT_CREATE:
	case CT_EV_CONTEXT_DESTROY:
		on_context(acct, ev);
		break;
	default:
		break;
	}
}

void ct_acct_call(struct ct_acct *acct, const struct ct_event *ev)
{
	struct acct_thread *at = ev->thread->slot[acct->slot];
	const struct acct_process *ap = ev->process->slot[acct->slot];
	guint kept = 0;

	/* the process's slot made once, at its first recorded call */
	if (ev->type == CT_EV_API_CALL && (!ap || !ap->calls_recorded))
		process_of(acct, ev->process)->calls_recorded = true;
	if (!at)
		at = thread_of(acct, ev->thread);
	at->call_id = ev->call.correlation_id;
	at->call_entry_ns = ev->call.entry_ns;
	if (!at->pending->len)
		return;
	/*
	 * Done: the releases of this call (its id), and those entered before
	 * this call began (the thread returned from them first).
	 */
	for (guint i = 0; i < at->pending->len; i++) {
		struct pending_release p = g_array_index(at->pending, struct pending_release, i);

		if (p.ev.u.mem.api.correlation_id == ev->call.correlation_id ||
		    ev->call.entry_ns >= p.ev.time_ns) {
			release_done(acct, &p, ev);
			continue;
		}
		g_array_index(at->pending, struct pending_release, kept++) = p;
	}
	g_array_set_size(at->pending, kept);
}

/* ------------------------------------------------------------ what is known */

static void unseen_at_end(const struct ct_acct_alloc *a, void *data)
{
	struct ct_acct *acct = data;

	unseen_until(device_of_alloc(acct, a), a);
}

/*
 * The releases THREAD had entered when its trace ended. Unless a window
 * cut the trace short, the call never returned (the process exited or was
 * killed inside it): it is no free, and the memory stays live, though the
 * driver may have freed it before the process was gone. With a window,
 * the trace cannot tell: the release is done, as its mem_free says.
 */
static void releases_at_end(struct ct_thread *thread, void *data)
{
	struct ct_acct *acct = data;
	struct acct_thread *at = thread->slot[acct->slot];
	bool returned = acct->opts->has_to;

	for (guint i = 0; at && i < at->pending->len; i++) {
		struct pending_release p = g_array_index(at->pending, struct pending_release, i);
		struct ct_acct_device *dev = device_of_alloc(acct, p.a);
		struct ct_event end = p.ev;

		if (returned) {
			end.time_ns = thread->process->last_ns;
			release_done(acct, &p, &end);
			continue;
		}
		p.a->releasing = NULL;
		if (ct_mem_kind_on_device(p.a->kind))
			dev->releasing = ct_bytes_sub(dev->releasing, (uint64_t)bytes_of(p.a));
		if (p.a->kind != CT_MEM_VMM_MAP) {
			dev->unfinished_frees++;
			dev->unfinished_bytes = ct_sat_add_u64(dev->unfinished_bytes, p.a->size);
		}
	}
	if (at)
		g_array_set_size(at->pending, 0);
}

void ct_acct_finish(struct ct_acct *acct)
{
	ct_context_foreach_thread(acct->ctx, releases_at_end, acct);
	ct_acct_foreach_live(acct, unseen_at_end, acct);
	for (size_t p = 0; p < ct_context_process_count(acct->ctx); p++) {
		struct acct_process *ap = ct_context_process_at(acct->ctx, p)->slot[acct->slot];

		if (!ap)
			continue;
		dump_close(ap);
		/* with its context events recorded, a device's memory precedes its context */
		for (unsigned d = 0; ap->window.context_events && inferring(acct) && d < 256; d++) {
			const struct ct_acct_device *dev = ap->devices[d];

			if (dev && d != CT_DEVICE_NONE && dev->first_event_ns < dev->context_ns)
				ap->window.evidence |= CT_ACCT_LATE_CONTEXT;
		}
	}
}

const struct ct_acct_window *ct_acct_window_of(const struct ct_acct *acct,
                                               const struct ct_process *process)
{
	const struct acct_process *ap = process->slot[acct->slot];

	return ap ? &ap->window : NULL;
}

bool ct_acct_partial_at_end(const struct ct_acct *acct, const struct ct_acct_device *dev)
{
	const struct ct_acct_window *w = ct_acct_window_of(acct, dev->process);

	return w && w->evidence && !w->complete_dump;
}

bool ct_acct_partial_at(const struct ct_acct *acct, const struct ct_acct_device *dev,
                        int64_t time_ns)
{
	return ct_acct_partial_at_end(acct, dev) || time_ns < dev->unknown_until_ns;
}

bool ct_acct_partial_ever(const struct ct_acct *acct, const struct ct_acct_device *dev)
{
	return ct_acct_partial_at_end(acct, dev) || dev->unknown_until_ns != INT64_MIN;
}

/* Appends TEXT to BUF (LEN bytes, NUL-terminated), after "; " when BUF has something. */
static void append(char *buf, size_t len, const char *text)
{
	size_t used = strlen(buf);

	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

char *ct_acct_explain(const struct ct_acct *acct, const struct ct_process *process, char *buf,
                      size_t len, struct ct_caveat_note *note)
{
	const struct acct_process *ap = process->slot[acct->slot];
	const struct ct_acct_window *w = ap ? &ap->window : NULL;
	uint64_t unsized = 0, unseen = 0;
	char why[512] = "", part[128];

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!w)
		return buf;
	if (w->evidence && !w->complete_dump) {
		if (w->evidence & CT_ACCT_LATE_SESSION) {
			append(why, sizeof(why), "its session started while the program ran");
			ct_note_evidence(note, "session_start_statedump");
		}
		if (w->evidence & CT_ACCT_LATE_RELEASE) {
			append(why, sizeof(why),
			       "it has releases of memory it never saw allocated");
			ct_note_evidence(note, "release_of_unseen_memory");
		}
		if (w->evidence & CT_ACCT_LATE_DUMP) {
			append(why, sizeof(why),
			       "a statedump gave allocations made before it began");
			ct_note_evidence(note, "statedump_of_earlier_allocations");
		}
		if (w->evidence & CT_ACCT_LATE_CONTEXT) {
			append(why, sizeof(why),
			       "it has memory events on a device before that device's context was "
			       "created");
			ct_note_evidence(note, "memory_before_context");
		}
		if (w->dumps) {
			snprintf(part, sizeof(part), "none of its %u statedumps is complete",
			         w->dumps);
			append(why, sizeof(why), part);
			ct_note_evidence(note, "no_complete_statedump");
		} else {
			append(why, sizeof(why), "it has no statedump");
			ct_note_evidence(note, "no_statedump");
		}
		snprintf(buf, len,
		         "the trace began after the program had allocated memory it does not show "
		         "(%s): peaks, live bytes and leaks are lower bounds, and a failed "
		         "allocation is not blamed on other processes",
		         why);
		return buf;
	}
	for (unsigned d = 0; d < 256; d++) {
		const struct ct_acct_device *dev = ap->devices[d];

		if (dev && dev->unknown_until_ns != INT64_MIN) {
			unsized += dev->unsized_frees;
			unseen++;
		}
	}
	if (!unseen)
		return buf;
	if (unsized) {
		snprintf(buf, len,
		         "the trace has %" PRIu64
		         " releases of memory the tracer never saw allocated, whose sizes are "
		         "unknown: the figures before the last of them are lower bounds",
		         unsized);
		ct_note_evidence(note, "release_of_unknown_size");
	} else {
		snprintf(buf, len,
		         "the trace shows some allocations only after they were made (a statedump "
		         "without their mem_alloc, a failed release whose mem_free it does not "
		         "have): the figures before are lower bounds");
		ct_note_evidence(note, "allocation_seen_late");
	}
	return buf;
}

bool ct_acct_lost_before(const struct ct_acct *acct, int64_t time_ns)
{
	const struct ct_losses *losses = ct_context_losses(acct->ctx);

	return (losses->events || losses->packets) && losses->first_ns <= time_ns;
}

bool ct_acct_lost(const struct ct_acct *acct, const struct ct_process *process)
{
	return ct_acct_lost_before(acct, process->events ? process->last_ns : INT64_MAX);
}

char *ct_acct_explain_loss(const struct ct_acct *acct, const struct ct_process *process, char *buf,
                           size_t len, struct ct_caveat_note *note)
{
	const struct ct_losses *losses = ct_context_losses(acct->ctx);
	char when[64];

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!ct_acct_lost(acct, process))
		return buf;
	if (losses->events)
		ct_note_evidence(note, "discarded_events");
	if (losses->packets)
		ct_note_evidence(note, "discarded_packets");
	if (losses->first_ns == INT64_MIN || losses->first_ns <= process->first_ns)
		snprintf(when, sizeof(when), "from the start of its events");
	else
		snprintf(when, sizeof(when), "from %.6f s after its first event",
		         (double)(losses->first_ns - process->first_ns) / 1e9);
	snprintf(buf, len,
	         "LTTng discarded %" PRIu64 " events and %" PRIu64
	         " packets of the trace (its buffers were full), %s: an allocation or a free "
	         "among them would change every figure from then on, so the peak, live bytes, "
	         "the timeline and the state at later failures are uncertain, and the leaks are "
	         "possible leaks (their free may be among the lost events)",
	         losses->events, losses->packets, when);
	return buf;
}

/* Why PROCESS's peak is a range, in BUF ("" when it is not). */
static char *explain_overlaps(const struct ct_acct *acct, const struct ct_process *process,
                              char *buf, size_t len, struct ct_caveat_note *note)
{
	const struct acct_process *ap = process->slot[acct->slot];

	buf[0] = '\0';
	for (unsigned d = 0; ap && d < 256; d++) {
		const struct ct_acct_device *dev = ap->devices[d];

		if (!dev || !ct_peak_bounds_apart(dev->peak_bytes, dev->peak_low, dev->peak_high))
			continue;
		snprintf(
		    buf, len,
		    "calls of several threads overlapped: an allocation or a release is "
		    "dated at its call's end, and the driver made it somewhere between the "
		    "call's start and end, so the peak (peak_bytes, as the trace orders calls) "
		    "was between peak_low_bytes (each release done at its start) and "
		    "peak_high_bytes (each allocation done at its start)");
		ct_note_evidence(note, "overlapping_calls");
		break;
	}
	return buf;
}

/* Why PROCESS's figures at its end are uncertain, in BUF ("" when they are not). */
static char *explain_unfinished(const struct ct_acct *acct, const struct ct_process *process,
                                char *buf, size_t len, struct ct_caveat_note *note)
{
	const struct acct_process *ap = process->slot[acct->slot];
	uint64_t count = 0, bytes = 0;

	buf[0] = '\0';
	for (unsigned d = 0; ap && d < 256; d++) {
		const struct ct_acct_device *dev = ap->devices[d];

		if (dev) {
			count += dev->unfinished_frees;
			bytes = ct_sat_add_u64(bytes, dev->unfinished_bytes);
		}
	}
	if (count) {
		snprintf(buf, len,
		         "the process ended while %" PRIu64 " release%s of %" PRIu64
		         " bytes had not returned (threads inside cudaFree as it exited): they are "
		         "counted as still allocated, though the driver may have done them; an "
		         "allocation whose call had not returned is not in the trace",
		         count, count == 1 ? "" : "s", bytes);
		ct_note_evidence(note, "unfinished_releases");
		if (ct_acct_exit_calls(acct, process))
			ct_note_evidence(note, "exit_calls");
	} else if ((count = ct_acct_exit_calls(acct, process))) {
		snprintf(buf, len,
		         "the process ended while %" PRIu64 " call%s of other threads had not "
		         "returned (its exit() waited for them, then gave up): an allocation or a "
		         "release among them may have been done by the driver and not be in the "
		         "trace",
		         count, count == 1 ? "" : "s");
		ct_note_evidence(note, "exit_calls");
	}
	return buf;
}

void ct_acct_add_notes(const struct ct_acct *acct, const struct ct_process *process,
                       GStringChunk *strings, GArray *notes)
{
	/* Each cause, and what explains it for people ("" when it does not apply). */
	static const struct {
		const char *cause;
		char *(*explain)(const struct ct_acct *acct, const struct ct_process *process,
		                 char *buf, size_t len, struct ct_caveat_note *note);
	} causes[] = {
		{ CT_CAUSE_BEFORE_WINDOW, ct_acct_explain },
		{ CT_CAUSE_DISCARDED, ct_acct_explain_loss },
		{ CT_CAUSE_OVERLAPPING_CALLS, explain_overlaps },
		{ CT_CAUSE_UNFINISHED_CALLS, explain_unfinished },
	};
	char text[1024];

	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
		struct ct_caveat_note note = {
			.pid = process->pid,
			.process = g_string_chunk_insert_const(strings, process->procname),
			.cause = causes[i].cause,
		};

		if (!causes[i].explain(acct, process, text, sizeof(text), &note)[0])
			continue;
		note.explanation = g_string_chunk_insert_const(strings, text);
		g_array_append_val(notes, note);
	}
}

int64_t ct_acct_before_window_on_device(const struct ct_acct_device *dev)
{
	int64_t bytes = 0;

	for (unsigned k = 0; k < CT_ACCT_KINDS; k++)
		if (ct_mem_kind_on_device(k))
			bytes = ct_sat_add(bytes, dev->before_window[k]);
	return bytes;
}

/* ----------------------------------------------------------- lifecycle */

struct ct_acct *ct_acct_create(struct ct_context *ctx, const struct ct_options *opts, int slot)
{
	struct ct_acct *acct = g_new0(struct ct_acct, 1);

	CT_ASSERT(slot >= 0 && slot < CT_SLOTS);
	acct->ctx = ctx;
	acct->opts = opts;
	acct->slot = slot;
	acct->device_bytes = aligned(sizeof(struct ct_acct_device));
	/* each record is its own key, and the table owns it */
	acct->live = g_hash_table_new_full(alloc_hash, alloc_equal, g_free, NULL);
	return acct;
}

struct ct_acct_sub *ct_acct_subscribe(struct ct_acct *acct, const struct ct_acct_config *config,
                                      const struct ct_acct_hooks *hooks, void *data)
{
	struct ct_acct_sub *sub;

	/* the devices and processes made are sized for the subscribers then */
	CT_ASSERT(!acct->started);
	CT_ASSERT(acct->sub_count < CT_ACCT_SUBSCRIBERS);
	sub = &acct->subs[acct->sub_count];
	*sub = (struct ct_acct_sub){
		.acct = acct,
		.hooks = *hooks,
		.data = data,
		.offset = acct->device_bytes,
		.index = acct->sub_count,
	};
	acct->sub_count++;
	acct->device_bytes += aligned(hooks->device_size);
	if (config) {
		acct->config.peak_set |= config->peak_set;
		acct->config.reclaimed |= config->reclaimed;
	}
	return sub;
}

void ct_acct_unsubscribe(struct ct_acct_sub *sub)
{
	struct ct_acct *acct;

	if (!sub)
		return;
	acct = sub->acct;
	for (size_t p = 0; p < ct_context_process_count(acct->ctx); p++) {
		struct acct_process *ap = ct_context_process_at(acct->ctx, p)->slot[acct->slot];

		for (unsigned d = 0; ap && sub->hooks.device_release && d < 256; d++)
			if (ap->devices[d])
				sub->hooks.device_release(sub->data, ap->devices[d],
				                          own_of(sub, ap->devices[d]));
		if (ap && ap->user[sub->index] && sub->hooks.process_release)
			sub->hooks.process_release(sub->data, ap->user[sub->index]);
		if (ap)
			ap->user[sub->index] = NULL;
	}
	sub->hooks = (struct ct_acct_hooks){ 0 };
	sub->data = NULL;
}

static void thread_free(struct ct_thread *thread, void *data)
{
	int slot = *(const int *)data;
	struct acct_thread *at = thread->slot[slot];

	if (at) {
		g_array_free(at->pending, TRUE);
		g_ptr_array_free(at->freed, TRUE);
		g_free(at);
		thread->slot[slot] = NULL;
	}
}

void ct_acct_destroy(struct ct_acct *acct)
{
	if (!acct)
		return;
	for (unsigned i = 0; i < acct->sub_count; i++)
		ct_acct_unsubscribe(&acct->subs[i]);
	for (size_t p = 0; p < ct_context_process_count(acct->ctx); p++) {
		struct ct_process *process = ct_context_process_at(acct->ctx, p);
		struct acct_process *ap = process->slot[acct->slot];

		for (unsigned d = 0; ap && d < 256; d++)
			device_free(acct, ap->devices[d]);
		if (ap)
			dump_close(ap);
		g_free(ap);
		process->slot[acct->slot] = NULL;
	}
	ct_context_foreach_thread(acct->ctx, thread_free, &acct->slot);
	g_hash_table_destroy(acct->live);
	g_free(acct);
}
