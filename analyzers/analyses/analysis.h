/* SPDX-License-Identifier: MIT */
/*
 * analysis.h - the interface every analysis implements. The reader makes
 * one pass over the trace and hands each event to the analyses that asked
 * for its type; at the end each analysis finishes and gives its result,
 * and each section of the report is written from the results of the
 * analyses that feed it.
 *
 * Life of an analysis (each step called once, in this order):
 *
 *   create(ctx, opts, &state)  allocate the state. CTX outlives the state;
 *                              take slots (ct_analysis_slot) and subscribe
 *                              to the pass's accountant
 *                              (CT_SHARED_ACCOUNTING) here.
 *   event(state, ev)           for each event whose type is in `wants`, in
 *                              trace order (by time, then stream); the
 *                              context is already updated for EV. This is
 *                              the hot path: no allocation per event, no
 *                              string formatting, no output.
 *   finish(state, end_ns)      the trace ended (END_NS: time of its last
 *                              event): close what is still open. The
 *                              shared accountant (CT_SHARED_ACCOUNTING)
 *                              finished already.
 *   result(state, &result)     after every analysis finished and the
 *                              shared GPU timelines (CT_SHARED_GPU_ACTIVITY)
 *                              answered their last probes: compute what
 *                              needs the whole trace into the result, the
 *                              struct the analysis's header declares (for
 *                              memory, fragmentation and transfers: the
 *                              typed results of memory.h, fragmentation.h,
 *                              transfers.h), valid until destroy.
 *   destroy(state)             free everything, the result and slots
 *                              included; also called after a failed step,
 *                              with whatever state exists (may be NULL).
 *
 * create, finish and result return CT_ANALYSIS_OK or the reason they
 * failed, which the reader turns into its error message. Analyses never
 * abort the program and never print: what they have to say is in the
 * report.
 *
 * Sections: each top-level section of the report has one writer, a
 * struct ct_section_class, which writes it from the results of the
 * analyses whose `section` it is (the "memory" section from the memory
 * and fragmentation results). Sizes are in bytes, times in ns on the
 * trace clock; the schema is doc/report-schema.md.
 *
 * Adding an analysis: write analyzers/analyses/NAME.c defining a
 * `const struct ct_analysis_class ct_NAME_analysis`, declare it below and
 * list it in registry/analyses.c (the order there is the report's order).
 */
#ifndef CUDATRACE_ANALYZERS_ANALYSIS_H
#define CUDATRACE_ANALYZERS_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "model/context.h"
#include "common/document.h"
#include "common/event.h"
#include "common/options.h"

enum ct_analysis_status {
	CT_ANALYSIS_OK = 0,
	CT_ANALYSIS_NO_SLOT, /* every context slot is taken (too many analyses) */
};

/*
 * What the pass computes once, for every analysis that uses it, before
 * the analyses see an event.
 */
enum ct_shared {
	/* the traced calls, and the open waits per thread: ct_event.call (api-calls.h) */
	CT_SHARED_API_CALLS = 1u << 0,
	/* each device's busy timeline, per process: ct_process.busy (gpu-activity.h) */
	CT_SHARED_GPU_ACTIVITY = 1u << 1,
	/*
	 * the allocations live per process and device, fed the CT_ACCT_EVENTS
	 * events: the pass's accountant, ct_context_accounting (accounting.h),
	 * which the analysis subscribes to in its create
	 */
	CT_SHARED_ACCOUNTING = 1u << 2,
	/*
	 * GPU records joined to their launch, memcpy or memset: ct_event.joined,
	 * joined_entry_ns and note (event.h); the calls too, for a launch's entry
	 */
	CT_SHARED_GPU_JOINS = 1u << 3,
};

/*
 * Which analysis a class is. A section writer finds the results it is
 * written from by their id, never by their class, so that an analysis
 * (which names its section) and its section do not refer to each other.
 */
enum ct_analysis_id {
	CT_ANALYSIS_OTHER = 0, /* not found by any section (an exporter, a test's) */
	CT_ANALYSIS_ENVIRONMENT,
	CT_ANALYSIS_MEMORY,
	CT_ANALYSIS_HOST_MEMORY,
	CT_ANALYSIS_FRAGMENTATION,
	CT_ANALYSIS_CELLS,
	CT_ANALYSIS_TRANSFERS,
	CT_ANALYSIS_KERNELS,
	CT_ANALYSIS_API,
	CT_ANALYSIS_CUDA_ERRORS,
	CT_ANALYSIS_FRAMEWORK,
};

struct ct_analysis_class;

/* The result of an analysis that ran, for the section writers. */
struct ct_result {
	const struct ct_analysis_class *cls;
	const void *result; /* the analysis's result struct */
};

/* The writer of one top-level section of the report. */
struct ct_section_class {
	const char *name; /* its key in the report: "memory" */
	/*
	 * Writes the section from RESULTS (COUNT of them, in the order the
	 * analyses were added: ct_result_of finds one) into DOC.
	 */
	void (*write)(struct ct_doc *doc, const struct ct_result *results, size_t count);
};

struct ct_analysis_class {
	const char *name; /* "memory": also what --analysis selects */
	enum ct_analysis_id id;
	/* the section its result goes into; NULL for one that writes elsewhere (an exporter) */
	const struct ct_section_class *section;
	ct_ev_set wants; /* CT_EV_BIT() of every event type it wants */
	unsigned uses;   /* enum ct_shared bits */
	enum ct_analysis_status (*create)(struct ct_context *ctx, const struct ct_options *opts,
	                                  void **state);
	void (*event)(void *state, const struct ct_event *ev);
	enum ct_analysis_status (*finish)(void *state, int64_t end_ns);
	enum ct_analysis_status (*result)(void *state, const void **result);
	void (*destroy)(void *state);
};

extern const struct ct_analysis_class ct_memory_analysis;
extern const struct ct_analysis_class ct_fragmentation_analysis;
extern const struct ct_analysis_class ct_cells_analysis;
extern const struct ct_analysis_class ct_transfers_analysis;
extern const struct ct_analysis_class ct_kernels_analysis;
extern const struct ct_analysis_class ct_api_analysis;
extern const struct ct_analysis_class ct_environment_analysis;
extern const struct ct_analysis_class ct_cuda_errors_analysis;
extern const struct ct_analysis_class ct_host_memory_analysis;
extern const struct ct_analysis_class ct_framework_analysis;

/* The sections the analyses' results go into. */
extern const struct ct_section_class ct_memory_section; /* memory and fragmentation */
extern const struct ct_section_class ct_cells_section;
extern const struct ct_section_class ct_transfers_section;
extern const struct ct_section_class ct_kernels_section; /* "kernels" and "gpu" */
extern const struct ct_section_class ct_api_section;
extern const struct ct_section_class ct_environment_section;
extern const struct ct_section_class ct_cuda_errors_section;
extern const struct ct_section_class ct_host_memory_section;
extern const struct ct_section_class ct_framework_section;

/* What the analyses share (analysis.c). */

/* What went wrong, for people: "no context slot left". */
const char *ct_analysis_status_text(enum ct_analysis_status status);

/* A context slot for the calling analysis (create), or -1 when none is left. */
int ct_analysis_slot(struct ct_context *ctx);

/* The result of analysis ID among RESULTS (the first if it ran twice), NULL if it did not run. */
const void *ct_result_of(const struct ct_result *results, size_t count, enum ct_analysis_id id);
/* The index of ID's first result among RESULTS, COUNT if it did not run. */
size_t ct_result_index(const struct ct_result *results, size_t count, enum ct_analysis_id id);

/*
 * The indices 0 .. COUNT-1 sorted by CMP (qsort_r, DATA passed on), for
 * the rows of a report; an array the caller frees with g_free.
 */
uint32_t *ct_analysis_rank(uint32_t count, int (*cmp)(const void *, const void *, void *),
                           void *data);

#endif
