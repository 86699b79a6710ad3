/* SPDX-License-Identifier: MIT */
/*
 * event.h - a cudatrace event as the analyses see it: decoded once by the
 * reader into a plain struct, with its process, thread and NVTX range path
 * already resolved. Fields and units are those of doc/events.md.
 *
 * Lifetime: an event and every string it points to are valid only during
 * the call that hands it to an analysis; copy what must outlive it.
 */
#ifndef CUDATRACE_ANALYZERS_EVENT_H
#define CUDATRACE_ANALYZERS_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "contract/events.h"

struct ct_process;
struct ct_thread;
struct ct_trace_desc;

/* A traced API call: as the event recording it gives it, or as the
 * api_entry of a wait opened it (then exit_ns is 0 and result unknown). */
struct ct_api_call {
	uint32_t correlation_id;
	uint8_t domain;
	uint16_t cbid;
	int32_t result;   /* 0 for a call a semantic event records */
	int64_t entry_ns; /* on the trace clock */
	int64_t exit_ns;  /* the recording event's time */
};

/* The entry of a call that is not known. */
#define CT_NO_ENTRY INT64_MIN

/* One decoded event. */
struct ct_event {
	enum ct_event_type type;
	/* Event time on the trace clock, ns from its origin (CLOCK_MONOTONIC for LTTng). */
	int64_t time_ns;
	/* Position of the event in the pass, from 1: orders events that share a time. */
	uint64_t seq;
	/* The emitting process and thread; owned by the context, never NULL. */
	struct ct_process *process;
	struct ct_thread *thread;
	/*
	 * The trace it was read from: its name, clock and environment
	 * (trace-desc.h), for what writes a trace of its own from events
	 * (the GPU-time trace); NULL when it was not read from a trace
	 * (ct_reader_feed's callers).
	 */
	const struct ct_trace_desc *trace;
	/*
	 * The thread's NVTX push/pop range path at the event (context.h); 0:
	 * none. An allocation of the autograd engine's thread charged to the
	 * thread waiting in backward (context.c) has that thread's path when
	 * its own thread is in no range.
	 */
	uint32_t site;
	/*
	 * Set when a time window is given and the event is before it: only
	 * what live bytes at the window's start need is delivered then
	 * (allocations and releases, statedumps, context lifecycles:
	 * filters.c);
	 * analyses must not count them otherwise.
	 */
	bool before_window;
	/*
	 * nvtx_push, nvtx_pop: the reader keeps the per-thread push/pop stacks
	 * (context.h) before the event is delivered, and sets path (push: the
	 * path the push opened; pop: the path it closed) and depth (the index
	 * in the thread's stack of the frame opened or closed). A pop that
	 * matches no push is counted and not delivered.
	 */
	struct {
		uint32_t path;
		uint32_t depth;
	} nvtx;
	/*
	 * When an analysis uses the API calls (api-calls.h): has_call is set
	 * on the event that records a traced call (an api_call, or a semantic
	 * event whose entry is not 0), and call is that call, entry to exit.
	 * Every traced call has exactly one such event; the others have
	 * has_call false.
	 */
	bool has_call;
	struct ct_api_call call;
	/*
	 * When an analysis uses the joins (CT_SHARED_GPU_JOINS, analysis.h),
	 * the reader joins each launch, memcpy and memset to its GPU record
	 * as it makes compact records whole (compact-events.h), so that the
	 * analysis needs no join of its own.
	 *
	 * On a memcpy or memset delivered to the analyses, note is where one
	 * analysis may leave two words for its GPU record (the transfers
	 * analysis, a copy's); NULL on the other events.
	 *
	 * On a GPU record whose host event was delivered before it, joined is
	 * set; then a gpu_kernel's joined_entry_ns is its launching call's
	 * entry (CT_NO_ENTRY when the launch records no call), and a
	 * gpu_memcpy's or gpu_memset's note holds the words left on its host
	 * event. A record whose host event comes after it, was filtered out
	 * or is not in the trace is not joined.
	 */
	uint64_t *note;
	bool joined;
	int64_t joined_entry_ns;
	/* The payload, by the layout of the event type (contract/events.def). */
	union {
#define CT_LAYOUT(name, fields) struct ct_ev_##name name;
#include "contract/events.def"
	} u;
};

/* "mem_alloc" for CT_EV_MEM_ALLOC; NULL out of range. */
const char *ct_event_type_name(enum ct_event_type type);
/* The group of an event type (contract/events.def). */
enum ct_event_group ct_event_type_group(enum ct_event_type type);
/* The event type called NAME (without "cudatrace:"), CT_EV_NONE if none. */
enum ct_event_type ct_event_type_from_name(const char *name);
/* ct_<enumeration>_label(value): "host_pinned" for ct_mem_kind_label(CT_MEM_HOST_PINNED);
 * "unknown" for a value the enumeration does not have. */
#define CT_ENUM(name, values) const char *ct_##name##_label(unsigned value);
#include "contract/events.def"

#endif
