/* SPDX-License-Identifier: MIT */
/*
 * reader.h - one pass over one or more cudatrace traces with
 * libbabeltrace2 (src.ctf.fs per trace directory -> flt.utils.muxer -> an
 * in-process sink; a graph per group of stream files, decoded in
 * parallel and merged in time order, decode-merge.h), each event decoded
 * once and handed to the analyses that asked for its type.
 *
 *	struct ct_reader *r = ct_reader_create(&opts);
 *	ct_reader_add(r, &ct_memory_analysis);       (for each analysis)
 *	status = ct_reader_read(r, paths, n);        (or ct_reader_feed())
 *	ct_reader_finish(r);                         (the analyses' results)
 *	ct_reader_report(r, doc);                    (trace section + analyses')
 *	...                                          (sections from elsewhere)
 *	ct_findings_write(doc);                      (the diagnosis, from them all)
 *	ct_reader_destroy(r);
 *
 * Field lookups are resolved once per event class (a cache keyed by the
 * class) and the hot path allocates nothing. LTTng's discarded events
 * (discarded-events messages) and CUPTI's dropped records
 * (activity_dropped events) are counted. Errors come back as statuses
 * with their message in the stats; warnings (a trace skipped) go to the
 * log handler (log.h).
 */
#ifndef CUDATRACE_ANALYZERS_READER_H
#define CUDATRACE_ANALYZERS_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/analysis.h"
#include "model/context.h"
#include "common/document.h"
#include "common/event.h"
#include "common/options.h"
#include "reader-stats.h"

enum ct_reader_status {
	CT_READER_OK = 0,
	/* the trace ends in an error (truncated, corrupt packet) after events were read:
	 * everything up to the last good event was analysed */
	CT_READER_TRUNCATED = 1,
	/* not a trace, corrupt, no cudatrace events, unknown event version */
	CT_READER_INPUT_ERROR = 2,
	/* out of memory, babeltrace2 plugins missing */
	CT_READER_ERROR = 3,
};

struct ct_reader;

/* OPTS must outlive the reader. */
struct ct_reader *ct_reader_create(const struct ct_options *opts);
/* Frees the reader, its analyses and its context. NULL is fine. */
void ct_reader_destroy(struct ct_reader *reader);

/* Creates an instance of CLS and subscribes it to its events. 0, or -1 (why: stats' error). */
int ct_reader_add(struct ct_reader *reader, const struct ct_analysis_class *cls);
/*
 * Subscribes CLS with a STATE its caller made (an analysis whose create
 * needs more than the context and options: an exporter and its output);
 * the reader owns STATE from then on, even on failure. 0, or -1 (why:
 * stats' error).
 */
int ct_reader_attach(struct ct_reader *reader, const struct ct_analysis_class *cls, void *state);

/*
 * Reads the traces under PATHS (trace directories, or directories holding
 * them, such as an LTTng session's output) in one pass. On
 * CT_READER_INPUT_ERROR and CT_READER_ERROR the message is in
 * ct_reader_stats()->error; on CT_READER_TRUNCATED too, and the analyses
 * have what was read.
 */
enum ct_reader_status ct_reader_read(struct ct_reader *reader, const char *const *paths,
                                     size_t count);

/*
 * Hands one event to the context, the filters and the analyses, as the
 * trace pass does (for tests and other sources). EV->process and
 * EV->thread must be set (ct_context_process/thread); seq and site are
 * filled in.
 */
void ct_reader_feed(struct ct_reader *reader, struct ct_event *ev);

/*
 * LTTng lost EVENTS events and PACKETS packets from TIME_NS on (INT64_MIN
 * when the trace does not say when): counted in the stats and told to the
 * context (ct_context_note_loss), as the trace pass does at the loss's
 * place (for tests and other sources).
 */
void ct_reader_note_loss(struct ct_reader *reader, int64_t time_ns, uint64_t events,
                         uint64_t packets);

/* Finishes every analysis and has it compute its result. 0, or -1 (why: stats' error). */
int ct_reader_finish(struct ct_reader *reader);

/*
 * The result of analysis CLS (the struct its header declares: memory.h,
 * fragmentation.h, transfers.h), valid until the reader is destroyed;
 * NULL when CLS was not added or the reader is not finished.
 */
const void *ct_reader_result(const struct ct_reader *reader, const struct ct_analysis_class *cls);

/*
 * The results of every analysis (COUNT of them, in the order they were
 * added; ct_result_of finds one), valid until the reader is destroyed;
 * none before the reader is finished. What the findings are drawn from.
 */
const struct ct_result *ct_reader_results(const struct ct_reader *reader, size_t *count);

/*
 * Writes the "trace" section, then each section of the analyses' results,
 * in the order the analyses were added. 0, or -1 (why: stats' error).
 * The findings are not among them: they read every section, those the
 * caller adds after these too (how the program ended), so the caller
 * writes them last (ct_findings_write).
 */
int ct_reader_report(struct ct_reader *reader, struct ct_doc *doc);

/*
 * The trace was cut before the program ended, as its recorder noted
 * beside it (cudatrace.info), for WHY: what LTTng wrote is whole, so the
 * reading cannot tell. Unless the reading found damage of its own, the
 * "trace" section then says the trace is incomplete, with WHY. Call it
 * before ct_reader_report().
 */
void ct_reader_note_cut(struct ct_reader *reader, const char *why);

struct ct_context *ct_reader_context(struct ct_reader *reader);
const struct ct_reader_stats *ct_reader_stats(const struct ct_reader *reader);

#endif
