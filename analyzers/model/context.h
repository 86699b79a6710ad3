/* SPDX-License-Identifier: MIT */
/*
 * context.h - what every analysis needs to know about the trace besides the
 * event in hand: its processes and threads, the NVTX range path each thread
 * is in, the names recorded once (API calls, kernels, NVTX domains) and the
 * devices. The reader updates it from each event before handing the event
 * to the analyses, so an analysis sees the state the event was emitted in.
 *
 * State grows with what the program has (processes, threads, distinct NVTX
 * paths, names), never with the number of events.
 */
#ifndef CUDATRACE_ANALYZERS_CONTEXT_H
#define CUDATRACE_ANALYZERS_CONTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

#include "call-stacks.h"
#include "common/event.h"
#include "gpu-timeline.h"

/* Per-process and per-thread pointers an analysis may own (see ct_context_slot). */
#define CT_SLOTS 8

/* NVTX path id 0: not inside any range. */
#define CT_PATH_NONE 0u

/* Distinct NVTX paths kept; beyond it new paths share one "…" path. */
#define CT_PATH_MAX 65536u

struct ct_device {
	uint8_t ordinal;
	char name[64];
	uint64_t global_memory;    /* bytes, 0 if unknown */
	uint64_t memory_bandwidth; /* bytes/s, 0 if unknown */
	uint8_t cc_major;
	uint8_t cc_minor;
	/* The last NVML sample of this device in this process (0: none yet). */
	int64_t nvml_time_ns;
	uint64_t nvml_free;
	uint64_t nvml_used;
	uint64_t nvml_total;
};

/*
 * A traced process: one (host, vpid). Owned by the context. A process
 * lttng-ust's statedump names before any cudatrace event of it (or
 * without one) is unlisted: it holds its loaded objects, for its call
 * stacks, but is not among ct_context_process_at's until a cudatrace
 * event names it.
 */
struct ct_process {
	uint32_t index; /* 0, 1, ... in order of first event; unlisted: none yet */
	bool listed;
	int64_t pid;          /* vpid */
	const char *hostname; /* owned by the context; "" if the trace names none */
	char procname[32];
	/* procname is the statedump's: a name a cudatrace event gives replaces it */
	bool procname_dumped;
	/* procname's changes, counted: a copy made at a count is the name while it holds */
	uint32_t procname_changes;
	int64_t first_ns; /* time of its first and last events */
	int64_t last_ns;
	uint64_t events;
	/* From tracer_info, "" and 0 before one is seen. */
	char tracer_version[32];
	uint32_t cupti_version;
	int32_t driver_version;
	/*
	 * Every call's return is in the trace: its tracer_info says api_call
	 * events are emitted and its trace declares them (the session enabled
	 * them). Set by the reader (pass/reader.c), which sees the trace.
	 */
	bool calls_recorded;
	/* Activity records CUPTI dropped (activity_dropped), and when the first drop was told. */
	uint64_t dropped_records;
	int64_t first_drop_ns; /* INT64_MAX: none */
	/* Devices this process's events named, by ordinal; NULL if none. Owned. */
	struct ct_device *devices[256];
	/* When each device was busy (gpu-activity.h), by ordinal; NULL until used. Owned. */
	struct ct_gpu_timeline *busy[256];
	/* Analyses' own per-process data: slot i belongs to the analysis given slot i. */
	void *slot[CT_SLOTS];
	/* Private to filters.c: 0 not decided yet, 1 kept, 2 filtered out. */
	int filter_state;
	/* Private to the context: the names it recorded. */
	struct ct_name_table *names;
	/*
	 * The children it forked (process_fork), struct ct_fork in order, at
	 * most CT_FORKS_KEPT; NULL if none. Owned. forks counts them all.
	 */
	GArray *forked;
	uint64_t forks;
	/* Its call stacks, cells and loaded objects (call-stacks.h); NULL until one is noted.
	 * Owned. */
	struct ct_process_stacks *stacks;
	/*
	 * Its threads whose latest Python stack is inside PyTorch's backward
	 * (ct_thread.in_backward), and the last to enter it: while it is the
	 * only one, what a thread without Python frames allocates is charged
	 * to its Python line (context.c's borrow_python_stack).
	 */
	unsigned threads_in_backward;
	struct ct_thread *backward_thread;
};

/* A child a process forked: its pid (0: unknown), and when. */
struct ct_fork {
	int64_t child_pid;
	int64_t time_ns;
};

#define CT_FORKS_KEPT 256

/* One frame of a thread's NVTX push/pop stack. */
struct ct_nvtx_frame {
	uint64_t domain;
	uint32_t path;     /* path id with this frame as innermost */
	uint64_t open_seq; /* ct_event.seq of the push */
	int64_t open_ns;
};

/* A traced thread: one (process, vtid). Owned by the context. */
struct ct_thread {
	struct ct_process *process;
	int64_t tid; /* vtid */
	/* Its NVTX push/pop stack, struct ct_nvtx_frame, outermost first. Owned. */
	GArray *nvtx;
	/* Its open API calls (api-calls.h), struct ct_open_call; NULL until the first. Owned. */
	GArray *calls;
	/*
	 * The stack its copies, memsets and launches come from, from its last
	 * call_site event on (ct_call_stacks_get); 0: not known.
	 */
	uint64_t op_stack_id;
	/*
	 * Whether its latest stack with Python frames (of a call_site or an
	 * allocation) was inside PyTorch's backward (CT_STACK_AUTOGRAD), and
	 * that stack: what the autograd engine's threads then work for.
	 */
	bool in_backward;
	uint64_t backward_stack_id;
	void *slot[CT_SLOTS];
};

/*
 * What LTTng lost in the trace (its discarded-events and discarded-packets
 * counts): any event may be among them, so every figure from after the
 * first loss is uncertain.
 */
struct ct_losses {
	uint64_t events;  /* discarded events */
	uint64_t packets; /* discarded packets: events lost, how many unknown */
	int64_t
	    first_ns; /* when the first loss began; INT64_MIN: before any event; INT64_MAX: none */
};

struct ct_context;
struct ct_acct;

struct ct_context *ct_context_create(void);
/* Frees everything the context owns; NULL is fine. Slots must be freed before. */
void ct_context_destroy(struct ct_context *ctx);

/* A slot index for the calling analysis, or -1 when all CT_SLOTS are taken. */
int ct_context_slot(struct ct_context *ctx);

/* The trace's call stacks and loaded objects (call-stacks.h); owned by the context. */
struct ct_call_stacks *ct_context_call_stacks(struct ct_context *ctx);

/*
 * The pass's accountant of allocations (accounting.h), which the analyses
 * that use it subscribe to; NULL until the pass sets it. Not the
 * context's: its owner frees it before the context.
 */
struct ct_acct *ct_context_accounting(const struct ct_context *ctx);
void ct_context_set_accounting(struct ct_context *ctx, struct ct_acct *acct);

/* The process (hostname, pid), created on first use; listed if it was not. */
struct ct_process *ct_context_process(struct ct_context *ctx, const char *hostname, int64_t pid);
/*
 * Names P NAME (NULL or "": nothing) unless something named it already:
 * the first cudatrace event or tracer_info to name it wins; a name from
 * lttng-ust's statedump (DUMPED) only stands until one of those comes.
 */
void ct_process_name(struct ct_process *p, const char *name, bool dumped);
/* The process (hostname, pid) that lttng-ust's statedump names, created
 * unlisted on first use (struct ct_process). */
struct ct_process *ct_context_statedump_process(struct ct_context *ctx, const char *hostname,
                                                int64_t pid);
/* The thread tid of PROCESS, created on first use. */
struct ct_thread *ct_context_thread(struct ct_context *ctx, struct ct_process *process,
                                    int64_t tid);
size_t ct_context_process_count(const struct ct_context *ctx);
/* Process number I (0 <= I < count), in order of first appearance. */
struct ct_process *ct_context_process_at(const struct ct_context *ctx, size_t i);
/* Calls FN on every thread, in the order they appeared. */
void ct_context_foreach_thread(struct ct_context *ctx, void (*fn)(struct ct_thread *, void *),
                               void *data);
/* Frees what every thread holds in slot SLOT (ct_slot_data), and leaves the slot NULL. */
void ct_context_free_thread_slots(struct ct_context *ctx, int slot);

/*
 * The data in a process's or thread's slot (&process->slot[i]), allocated
 * zeroed, SIZE bytes, on first use; freed with g_free.
 */
static inline void *ct_slot_data(void **slot, size_t size)
{
	if (!*slot)
		*slot = g_malloc0(size);
	return *slot;
}

/*
 * Updates the context from EV (names, devices, NVML samples, NVTX stacks,
 * tracer_info, CUPTI's dropped records) and fills in ev->site and, for NVTX push/pop, ev->u.nvtx.path
 * and depth. Returns 0, or 1 when the event must not be delivered (an
 * unmatched pop).
 */
int ct_context_update(struct ct_context *ctx, struct ct_event *ev);

/*
 * LTTng lost EVENTS events and PACKETS packets of the trace from TIME_NS on
 * (INT64_MIN when the trace does not say when). The reader calls it at
 * the loss's place in the pass, so an analysis knows at each event whether
 * a loss came before it.
 */
void ct_context_note_loss(struct ct_context *ctx, int64_t time_ns, uint64_t events,
                          uint64_t packets);
const struct ct_losses *ct_context_losses(const struct ct_context *ctx);

/* The device ORDINAL of PROCESS, created on first use. */
struct ct_device *ct_context_device(struct ct_process *process, unsigned ordinal);

/*
 * API name of (domain, cbid) in PROCESS: the api_name event's, else CUPTI's table, else NULL.
 * A name handed out stays as it is while the context lives, even once another replaces it
 * (and so does a kernel's).
 */
const char *ct_context_api_name(const struct ct_process *process, unsigned domain, unsigned cbid);
/* Kernel name of kernel_id in PROCESS, NULL if the trace never named it. */
const char *ct_context_kernel_name(const struct ct_process *process, uint64_t kernel_id);

/*
 * The name of an NVTX range whose MESSAGE is in TSL's TraceMe encoding
 * (TensorFlow's and XLA's ranges: "name#key=value,key=value#"): its name,
 * else, when it has none ("#edge_name=copy#"), its values ("copy"); in BUF
 * of SIZE bytes, cut to fit. Any other message is returned as it is.
 */
const char *ct_nvtx_name(const char *message, char *buf, size_t size);

/* Path id helpers: parent (CT_PATH_NONE for a top frame), depth, innermost message. */
uint32_t ct_path_parent(const struct ct_context *ctx, uint32_t path);
uint32_t ct_path_depth(const struct ct_context *ctx, uint32_t path);
const char *ct_path_message(const struct ct_context *ctx, uint32_t path);
/* Number of path ids handed out so far (ids are 1 .. count-1). */
uint32_t ct_path_count(const struct ct_context *ctx);
/* 1 if the path passes through a frame whose message is MESSAGE. */
int ct_path_contains(const struct ct_context *ctx, uint32_t path, const char *message);

/*
 * Writes the path's messages, outermost first, joined by "/", into BUF
 * (always NUL-terminated, cut if too long); "" for CT_PATH_NONE. Returns BUF.
 */
char *ct_path_format(const struct ct_context *ctx, uint32_t path, char *buf, size_t len);

/*
 * A call site as reports show it: the NVTX path, then ":" and the API name
 * ("train/step:cudaMalloc"), or the API name alone outside any range.
 * Returns BUF.
 */
char *ct_site_format(const struct ct_context *ctx, const struct ct_process *process, uint32_t path,
                     const struct ct_api_ref *api, char *buf, size_t len);
/*
 * Where a call was made, for people: its NVTX path and the site of its
 * call stack STACK_ID ("train/step:leak_here (train.c:35)", or without a
 * range "leak_here (train.c:35)"; ct_stack_site_format) when the trace
 * holds it and it has one, else ct_site_format's.
 */
char *ct_call_site_format(struct ct_context *ctx, const struct ct_process *process, uint32_t path,
                          const struct ct_api_ref *api, uint64_t stack_id, char *buf, size_t len);

/* CUPTI's callback names (generated from the CUDA headers), NULL if unknown. */
const char *ct_cupti_cbid_name(unsigned domain, unsigned cbid);
/* Drops a CUPTI version suffix ("cudaMalloc_v3020" -> "cudaMalloc"), in place. */
void ct_api_name_normalize(char *name);

#endif
