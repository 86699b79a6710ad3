/* SPDX-License-Identifier: MIT */
/*
 * accounting.h - the allocations live in each process and device as the
 * event contract defines them (doc/events.md): mem_alloc and mem_free,
 * mem_reclaim (memory CUDA freed by itself: a free the program did not
 * make) and mem_free_failed (a release that failed: its mem_free undone),
 * the live set of statedumps (statedump_begin, mem_live, statedump_end);
 * live bytes per kind, the peak of the device kinds and the allocations
 * live at it; and what the trace cannot know: allocations made before its
 * window that nothing in it shows. The pass keeps one accountant
 * (analysis.h, CT_SHARED_ACCOUNTING) and feeds it each event of the
 * CT_ACCT_EVENTS types once, before the analyses see the event; every
 * analysis or export that needs the allocations subscribes to it, so that
 * their figures agree and an allocation is accounted once. Each
 * subscriber sees what changes through its hooks, and keeps data of its
 * own in each (process, device) and each process.
 *
 * State grows with live allocations only: a GHashTable of them by
 * (process, address space, address). The allocations live at the peak
 * are found without copying the live set at each new peak: an allocation
 * made before the peak and freed after it is kept aside (a copy, never
 * more than the allocations live at the peak), and at the end the peak
 * set is the live allocations made before the peak plus the ones kept
 * aside.
 *
 * Usage, from the pass (pass/reader.c):
 *
 *	acct = ct_acct_create(ctx, opts, slot);                 (create)
 *	ct_context_set_accounting(ctx, acct);
 *	ct_acct_event(acct, ev);         (each event of the CT_ACCT_EVENTS types)
 *	ct_acct_finish(acct);                                   (the trace ended)
 *	ct_acct_destroy(acct);                                  (after the subscribers)
 *
 * from an analysis that uses CT_SHARED_ACCOUNTING:
 *
 *	acct = ct_context_accounting(ctx);                      (create)
 *	sub = ct_acct_subscribe(acct, &config, &hooks, analysis);
 *	dev = ct_acct_device_at(acct, process, device);         (result)
 *	mine = ct_acct_own(sub, dev);
 *	ct_acct_foreach_live(acct, fn, data);
 *	ct_acct_unsubscribe(sub);                               (destroy)
 */
#ifndef CUDATRACE_ANALYZERS_ACCOUNTING_H
#define CUDATRACE_ANALYZERS_ACCOUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "common/caveat.h"
#include "context.h"
#include "peak-bounds.h"
#include "common/event.h"
#include "common/options.h"

#define CT_ACCT_KINDS CT_ENUM_COUNT(mem_kind)

/* The event types an accountant wants (ct_acct_event). */
#define CT_ACCT_EVENTS                                                                           \
	(CT_EV_BIT(CT_EV_MEM_ALLOC) | CT_EV_BIT(CT_EV_MEM_FREE) | CT_EV_BIT(CT_EV_MEM_RECLAIM) | \
	 CT_EV_BIT(CT_EV_MEM_FREE_FAILED) | CT_EV_BIT(CT_EV_STATEDUMP_BEGIN) |                   \
	 CT_EV_BIT(CT_EV_MEM_LIVE) | CT_EV_BIT(CT_EV_STATEDUMP_END) |                            \
	 CT_EV_BIT(CT_EV_CONTEXT_CREATE) | CT_EV_BIT(CT_EV_CONTEXT_DESTROY) |                    \
	 CT_EV_BIT(CT_EV_TRACER_ERROR))

/*
 * Address spaces: VMM physical handles are not addresses and mappings
 * alias the memory behind them, so each has a space of its own.
 */
enum ct_acct_space {
	CT_ACCT_SPACE_MEMORY = 0,
	CT_ACCT_SPACE_VMM_HANDLE = 1,
	CT_ACCT_SPACE_VMM_MAP = 2,
};

/* How the trace knows of an allocation. */
enum ct_acct_origin {
	CT_ACCT_TRACED = 0, /* its mem_alloc */
	CT_ACCT_DUMPED,     /* a statedump's mem_live only */
	CT_ACCT_INFERRED,   /* its release only: made before the window, when is unknown */
};

/* An allocation. */
struct ct_acct_alloc {
	uint64_t id; /* unique in the accountant: tells a record from its copies */
	uint64_t address;
	uint64_t size;
	int64_t time_ns; /* when allocated, if time_known */
	bool time_known; /* false when known from its release only */
	uint8_t origin;  /* enum ct_acct_origin */
	int64_t seen_ns; /* when the trace first showed it */
	/*
	 * ct_event.seq of its allocation: orders it against the peak. 0 for
	 * one made before the window: live at every moment of it until freed.
	 */
	uint64_t seq;
	struct ct_thread *thread; /* borrowed from the context; NULL if unknown */
	uint32_t process;         /* ct_process.index */
	uint32_t path;            /* NVTX path of its allocation */
	struct ct_api_ref api;    /* the call that allocated it */
	uint64_t stack_id;        /* its call stack (call-stacks.h), 0: none */
	uint8_t device;
	uint8_t kind;  /* enum ct_mem_kind */
	uint8_t space; /* enum ct_acct_space */
	/* Once reclaimed (kept for the leak report): when, and by which call (domain 0: none). */
	int64_t end_ns;
	struct ct_api_ref end_api;
	/* The thread whose release of it has been entered and has not returned; NULL: none. */
	struct ct_thread *releasing;
};

/*
 * One (process, device), shared by the subscribers; each keeps its own
 * per-device state beside it (hooks.device_size, ct_acct_own).
 */
struct ct_acct_device {
	struct ct_process *process; /* borrowed from the context */
	uint8_t device;
	int64_t live[CT_ACCT_KINDS]; /* bytes live per kind */
	int64_t on_device;           /* bytes of the device kinds */
	int64_t kind_peak[CT_ACCT_KINDS];
	/* The peak of the device kinds in the window, when has_peak. */
	bool has_peak;
	int64_t peak_bytes;
	int64_t peak_ns;
	uint64_t peak_seq; /* allocations with a seq up to it were live at it, if still live */
	int64_t peak_kinds[CT_ACCT_KINDS];
	/*
	 * Bounds of the peak where calls of several threads overlapped
	 * (accounting.c): peak_low, the most bytes surely live at once (each
	 * release done at its call's entry); peak_high, the most that can have
	 * been (each allocation done at its call's entry). peak_low <=
	 * peak_bytes <= peak_high; all three are equal when no allocation or
	 * release overlapped another thread's.
	 */
	int64_t peak_low;
	int64_t peak_high;
	/* Bytes of the device kinds whose release was entered and has not returned. */
	int64_t releasing;
	struct ct_peak_bounds *bounds; /* owned */
	/* Copies of allocations live at the peak and freed since; owned; NULL unless asked. */
	GPtrArray *freed_since_peak;
	uint64_t allocations; /* seen in the window */
	uint64_t frees;
	uint64_t bytes_allocated;
	uint64_t unknown_frees; /* frees of addresses never seen allocated */
	uint64_t failed_frees;  /* releases that failed (mem_free_failed) */
	/*
	 * Releases whose call had not returned when the process's trace ended
	 * (a thread inside cudaFree as the process exited): not counted as
	 * frees, their allocations live at the end, as the driver left them.
	 */
	uint64_t unfinished_frees;
	uint64_t unfinished_bytes;
	/*
	 * Allocations made before the window that the trace learned of (from a
	 * statedump, or from their release): each counts, as of the window's
	 * start, in every figure until it was freed.
	 */
	uint64_t before_window_count;
	int64_t before_window[CT_ACCT_KINDS]; /* their bytes, by kind */
	uint64_t unsized_frees;   /* releases of memory the tracer never saw allocated: no size */
	int64_t unknown_until_ns; /* figures before it may miss allocations; INT64_MIN: none */
	int64_t first_event_ns;   /* its first allocation or release, INT64_MAX: none */
	int64_t context_ns;       /* its first context_create, INT64_MAX: none */
	/* Allocations CUDA reclaimed (mem_reclaim): never freed by the program. */
	uint64_t reclaimed_count;
	uint64_t reclaimed_bytes;
	GPtrArray *reclaimed; /* struct ct_acct_alloc, in order; owned; NULL unless asked */
};

/*
 * What a subscriber hears; every hook may be NULL. DATA is the
 * subscriber's, OWN its part of DEV (NULL when its device_size is 0).
 * Subscribers hear of a change in the order they subscribed.
 */
struct ct_acct_hooks {
	/* Size of the subscriber's own per-device state (ct_acct_own); 0: none. */
	size_t device_size;
	/* Frees what the subscriber kept for a process (ct_acct_process_data), when not NULL. */
	void (*process_release)(void *data, void *user);
	/* DEV was just made (zeroed, the accountant's part filled in; OWN zeroed). */
	void (*device_init)(void *data, struct ct_acct_device *dev, void *own);
	/* Before DEV is freed, or the subscriber leaves: what the subscriber owns in OWN. */
	void (*device_release)(void *data, struct ct_acct_device *dev, void *own);
	/* A became live (EV: the event that says so). */
	void (*added)(void *data, struct ct_acct_device *dev, void *own,
	              const struct ct_acct_alloc *a, const struct ct_event *ev);
	/* A is live no more (freed, reclaimed, or replaced by an allocation at its address). */
	void (*removed)(void *data, struct ct_acct_device *dev, void *own,
	                const struct ct_acct_alloc *a, const struct ct_event *ev);
	/* Live bytes of DEV changed at EV, in the window (after added/removed). */
	void (*changed)(void *data, struct ct_acct_device *dev, void *own,
	                const struct ct_event *ev);
	/* DEV reached a new peak at EV (before changed). */
	void (*peak)(void *data, struct ct_acct_device *dev, void *own, const struct ct_event *ev);
	/*
	 * A, made before the window, was just learned of: every figure of DEV
	 * since the window's start rises by its bytes (after added; the peak
	 * already did).
	 */
	void (*revealed)(void *data, struct ct_acct_device *dev, void *own,
	                 const struct ct_acct_alloc *a, const struct ct_event *ev);
};

/* What shows that a process's trace began after allocations it does not show. */
enum ct_acct_evidence {
	CT_ACCT_LATE_SESSION = 1u << 0, /* a statedump made as the session started while it ran */
	CT_ACCT_LATE_RELEASE = 1u << 1, /* releases of memory the trace never saw allocated */
	CT_ACCT_LATE_DUMP = 1u << 2,    /* a statedump gave allocations made before the window */
	CT_ACCT_LATE_CONTEXT =
	    1u << 3, /* memory events on a device before its context's creation */
};

/* What the trace knows of a process's allocations made before its window. */
struct ct_acct_window {
	unsigned evidence;        /* enum ct_acct_evidence bits: 0 when the window holds them all */
	unsigned dumps;           /* statedumps begun */
	bool complete_dump;       /* one of them gave the whole live set */
	int64_t complete_dump_ns; /* the first such one's statedump_begin */
	bool context_events;      /* the trace has the process's context events */
};

/* What an accountant keeps beyond the live bytes: what any of its subscribers asked. */
struct ct_acct_config {
	bool peak_set;  /* the copies of freed_since_peak, for the allocations live at the peak */
	bool reclaimed; /* the allocations CUDA reclaimed, for the leak report */
};

/* At most as many subscribers as the pass has analyses. */
#define CT_ACCT_SUBSCRIBERS 16

struct ct_acct;
struct ct_acct_sub;

/*
 * An accountant that keeps its per-process and per-thread state in
 * context slot SLOT. OPTS and CTX outlive it.
 */
struct ct_acct *ct_acct_create(struct ct_context *ctx, const struct ct_options *opts, int slot);
/*
 * Frees it, its devices (after the device_release of the subscribers still
 * there) and the slot's data. NULL is fine.
 */
void ct_acct_destroy(struct ct_acct *acct);

/*
 * Subscribes HOOKS, with DATA, to ACCT's changes, keeping what CONFIG asks
 * for too (NULL: nothing more). Before ACCT has a process or a device (the
 * analyses' create); at most CT_ACCT_SUBSCRIBERS. The subscription is
 * ACCT's, valid until it is destroyed.
 */
struct ct_acct_sub *ct_acct_subscribe(struct ct_acct *acct, const struct ct_acct_config *config,
                                      const struct ct_acct_hooks *hooks, void *data);
/*
 * SUB hears nothing more: its device_release is called on every device,
 * its process_release on what it kept per process. NULL is fine.
 */
void ct_acct_unsubscribe(struct ct_acct_sub *sub);
/* SUB's own part of DEV (hooks.device_size bytes); NULL when DEV is NULL or SUB keeps none. */
void *ct_acct_own(const struct ct_acct_sub *sub, const struct ct_acct_device *dev);

/* Accounts for EV, of a type of CT_ACCT_EVENTS: once, whoever subscribed. */
void ct_acct_event(struct ct_acct *acct, const struct ct_event *ev);
/*
 * EV records a traced call (has_call; before ct_acct_event when it is of
 * those types too): the releases its thread entered before it are done.
 */
void ct_acct_call(struct ct_acct *acct, const struct ct_event *ev);
/* The trace ended: closes the statedump still open, weighs the evidence. Once. */
void ct_acct_finish(struct ct_acct *acct);

/* What the trace knows of PROCESS's allocations made before its window (after finish). */
const struct ct_acct_window *ct_acct_window_of(const struct ct_acct *acct,
                                               const struct ct_process *process);
/*
 * Whether figures of DEV at TIME_NS may miss allocations the trace does not
 * show (they are lower bounds): the trace began after the program had
 * allocated and no complete statedump gives what was live, or a release
 * of memory of unknown size came after TIME_NS.
 */
bool ct_acct_partial_at(const struct ct_acct *acct, const struct ct_acct_device *dev,
                        int64_t time_ns);
/* ... at the end of the process. */
bool ct_acct_partial_at_end(const struct ct_acct *acct, const struct ct_acct_device *dev);
/* ... at some moment (so the peak, a maximum over all of them). */
bool ct_acct_partial_ever(const struct ct_acct *acct, const struct ct_acct_device *dev);
/*
 * Why PROCESS's figures may miss allocations made before the window, for
 * people, in BUF ("" when they miss none), and what shows it in NOTE's
 * evidence (NOTE may be NULL). Returns BUF.
 */
char *ct_acct_explain(const struct ct_acct *acct, const struct ct_process *process, char *buf,
                      size_t len, struct ct_caveat_note *note);
/*
 * Whether LTTng lost events of the trace (ct_context_losses) before
 * TIME_NS: an allocation or a free among them would change every figure
 * from then on.
 */
bool ct_acct_lost_before(const struct ct_acct *acct, int64_t time_ns);
/* ... before PROCESS's last event: some figure of it may be wrong. */
bool ct_acct_lost(const struct ct_acct *acct, const struct ct_process *process);
/*
 * The traced calls of PROCESS's other threads that had not returned when
 * its exit() gave up waiting for them (tracer_error exit_calls): what
 * they did may be missing, so its counts are bounds. 0: none.
 */
uint64_t ct_acct_exit_calls(const struct ct_acct *acct, const struct ct_process *process);
/* What LTTng lost that PROCESS's figures may miss, for people, in BUF ("" if nothing); NOTE
 * as for ct_acct_explain. */
char *ct_acct_explain_loss(const struct ct_acct *acct, const struct ct_process *process, char *buf,
                           size_t len, struct ct_caveat_note *note);
/*
 * Appends to NOTES (of struct ct_caveat_note) the caveats of PROCESS's
 * figures that come from the accounting: allocations before the window
 * (CT_CAUSE_BEFORE_WINDOW) and events LTTng lost (CT_CAUSE_DISCARDED),
 * with their texts in STRINGS and the process's name too.
 */
void ct_acct_add_notes(const struct ct_acct *acct, const struct ct_process *process,
                       GStringChunk *strings, GArray *notes);
/* Of DEV's before_window bytes, those of the device kinds. */
int64_t ct_acct_before_window_on_device(const struct ct_acct_device *dev);

/* The (PROCESS, DEVICE) state, created on first use. */
struct ct_acct_device *ct_acct_device_of(struct ct_acct *acct, struct ct_process *process,
                                         unsigned device);
/* Where subscriber SUB may keep data of its own for PROCESS (NULL at first). */
void **ct_acct_process_data(struct ct_acct_sub *sub, struct ct_process *process);
/* The state of (PROCESS, DEVICE), NULL if it has none. */
struct ct_acct_device *ct_acct_device_at(const struct ct_acct *acct,
                                         const struct ct_process *process, unsigned device);

/* Calls FN on every live allocation, in no order. */
void ct_acct_foreach_live(const struct ct_acct *acct,
                          void (*fn)(const struct ct_acct_alloc *a, void *data), void *data);

/* Whether A, still live, was live at DEV's peak. */
bool ct_acct_live_at_peak(const struct ct_acct_device *dev, const struct ct_acct_alloc *a);

/* The allocation space of KIND. */
enum ct_acct_space ct_acct_space_of(unsigned kind);

#endif
