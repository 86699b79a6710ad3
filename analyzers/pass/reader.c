/* SPDX-License-Identifier: MIT */
/*
 * reader.c - the trace pass (see reader.h). The reader orchestrates:
 * discovery.h finds the traces under the user's paths, decode-merge.h
 * splits their stream files into groups (stream-groups.h), builds a
 * babeltrace2 graph per group (trace-graph.h) and runs each on a thread
 * of its own (decode-thread.h) that turns each cudatrace event into a
 * struct ct_event (event-decoder.h, its class resolved once through
 * class-cache.h), and this thread, in time order, finds its process
 * and thread, updates the context,
 * applies the filters, computes what the analyses share (api-calls.h,
 * gpu-activity.h, the accounting of allocations: accounting.h) and calls
 * the analyses. At the end it has them give
 * their results and writes the report: trace-section.h what the pass
 * counted, then each section once, from the results that feed it (the
 * diagnosis, findings.h, is its caller's to add once the document holds
 * every section).
 *
 * Types nobody wants are counted, not decoded.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "model/accounting.h"
#include "model/api-calls.h"
#include "contract/assert.h"
#include "read/compact-events.h"
#include "config.h"
#include "read/decode-merge.h"
#include "read/discovery.h"
#include "read/event-decoder.h"
#include "read/filters.h"
#include "read/trace-desc.h"
#include "model/gpu-activity.h"
#include "reader.h"
#include "common/saturate.h"
#include "read/trace-graph.h"
#include "trace-section.h"
#include "common/format.h"

#define MAX_ANALYSES 16

_Static_assert(MAX_ANALYSES <= CT_ACCT_SUBSCRIBERS,
               "every analysis may subscribe to the accounting");

/* Types the context or the reader itself needs decoded, whoever else wants them. */
#define ALWAYS_DECODED                                                                             \
	(CT_EV_BIT(CT_EV_API_NAME) | CT_EV_BIT(CT_EV_KERNEL_NAME) | CT_EV_BIT(CT_EV_NVTX_PUSH) |   \
	 CT_EV_BIT(CT_EV_NVTX_POP) | CT_EV_BIT(CT_EV_DEVICE_INFO) | CT_EV_BIT(CT_EV_NVML_SAMPLE) | \
	 CT_EV_BIT(CT_EV_TRACER_INFO) | CT_EV_BIT(CT_EV_ACTIVITY_DROPPED) |                        \
	 CT_EV_BIT(CT_EV_CALL_STACK) | CT_EV_BIT(CT_EV_LIBRARY_LOAD) |                             \
	 CT_EV_BIT(CT_EV_CELL_BEGIN) | CT_EV_BIT(CT_EV_PROCESS_FORK) | CT_EV_BIT(CT_EV_CALL_SITE))

struct instance {
	const struct ct_analysis_class *cls;
	void *state;
};

struct ct_reader {
	const struct ct_options *opts; /* borrowed */
	struct ct_context *ctx;        /* owned */
	struct ct_acct *acct;          /* owned: the accounting the analyses share */
	struct ct_filter filter;
	bool filtering;
	struct instance instances[MAX_ANALYSES];
	size_t instance_count;
	/* results[i]: instance i's, owned by its state, once finished */
	struct ct_result results[MAX_ANALYSES];
	/* dispatch[type]: the instances that want it, NULL-terminated */
	struct instance *dispatch[CT_EV_COUNT][MAX_ANALYSES + 1];
	ct_ev_set wanted;                  /* union of the analyses' wants */
	unsigned uses;                     /* union of the analyses' uses (enum ct_shared) */
	struct ct_compact_events *compact; /* owned */
	struct ct_origins origins;
	uint64_t seq;
	bool started;
	bool finished; /* the analyses gave their results */
	int fatal;     /* set by the sink: stop the pass */
	enum ct_reader_status fatal_status;
	GPtrArray *paths; /* owned strings: the traces read */
	struct ct_reader_stats stats;
};

/* ------------------------------------------------------------ lifecycle */

struct ct_reader *ct_reader_create(const struct ct_options *opts)
{
	struct ct_reader *r = g_new0(struct ct_reader, 1);

	r->opts = opts;
	r->ctx = ct_context_create();
	r->acct = ct_acct_create(r->ctx, opts, ct_context_slot(r->ctx));
	ct_context_set_accounting(r->ctx, r->acct);
	ct_call_stacks_set_debug_dirs(ct_context_call_stacks(r->ctx), opts->debug_dirs);
	r->compact = ct_compact_events_create();
	r->paths = g_ptr_array_new_with_free_func(g_free);
	ct_origins_init(&r->origins, r->ctx);
	ct_filter_init(&r->filter, opts);
	r->filtering = !ct_filter_is_empty(&r->filter);
	r->stats.first_ns = INT64_MAX;
	r->stats.last_ns = INT64_MIN;
	return r;
}

void ct_reader_destroy(struct ct_reader *r)
{
	if (!r)
		return;
	for (size_t i = r->instance_count; i-- > 0;)
		r->instances[i].cls->destroy(r->instances[i].state);
	/* after its subscribers */
	ct_acct_destroy(r->acct);
	ct_compact_events_destroy(r->compact);
	ct_origins_clear(&r->origins);
	ct_context_destroy(r->ctx);
	g_ptr_array_free(r->paths, TRUE);
	g_free(r);
}

/* Says in the stats why analysis CLS failed. */
static void analysis_failed(struct ct_reader *r, const struct ct_analysis_class *cls,
                            enum ct_analysis_status status)
{
	snprintf(r->stats.error, sizeof(r->stats.error), "%s analysis: %s", cls->name,
	         ct_analysis_status_text(status));
}

int ct_reader_add(struct ct_reader *r, const struct ct_analysis_class *cls)
{
	enum ct_analysis_status status;
	void *state = NULL;

	status = cls->create(r->ctx, r->opts, &state);
	if (status != CT_ANALYSIS_OK) {
		analysis_failed(r, cls, status);
		cls->destroy(state);
		return -1;
	}
	return ct_reader_attach(r, cls, state);
}

int ct_reader_attach(struct ct_reader *r, const struct ct_analysis_class *cls, void *state)
{
	struct instance *in;

	if (r->instance_count == MAX_ANALYSES) {
		snprintf(r->stats.error, sizeof(r->stats.error), "too many analyses");
		cls->destroy(state);
		return -1;
	}
	in = &r->instances[r->instance_count];
	in->cls = cls;
	in->state = state;
	r->instance_count++;
	for (unsigned t = 1; t < CT_EV_COUNT; t++) {
		size_t n = 0;

		if (!(cls->wants & CT_EV_BIT(t)))
			continue;
		while (r->dispatch[t][n])
			n++;
		CT_ASSERT(n < MAX_ANALYSES);
		r->dispatch[t][n] = in;
	}
	r->wanted |= cls->wants;
	r->uses |= cls->uses;
	/* the accountant dates releases at their calls' ends; a launch's join gives its entry */
	if (r->uses & (CT_SHARED_ACCOUNTING | CT_SHARED_GPU_JOINS))
		r->uses |= CT_SHARED_API_CALLS;
	return 0;
}

void ct_reader_note_cut(struct ct_reader *r, const char *why)
{
	if (r->stats.truncated)
		return;
	r->stats.truncated = true;
	snprintf(r->stats.error, sizeof(r->stats.error), "%s", why);
}

struct ct_context *ct_reader_context(struct ct_reader *r)
{
	return r->ctx;
}

const struct ct_reader_stats *ct_reader_stats(const struct ct_reader *r)
{
	return &r->stats;
}

/* ------------------------------------------------------------ delivery */

static void set_fatal(struct ct_reader *r, enum ct_reader_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The stats' error, from FMT: it names traces and what is in them (a
 * version string), so it is made one line, safe for a terminal.
 */
static void set_error(struct ct_reader *r, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void set_error(struct ct_reader *r, const char *fmt, va_list ap)
{
	char raw[sizeof(r->stats.error)];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	ct_format_text(raw, r->stats.error, sizeof(r->stats.error));
}

static void set_note(struct ct_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Why the pass read less than all: the error of a pass that goes on. */
static void set_note(struct ct_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(r, fmt, ap);
	va_end(ap);
}

static void set_fatal(struct ct_reader *r, enum ct_reader_status status, const char *fmt, ...)
{
	va_list ap;

	if (r->fatal)
		return;
	r->fatal = 1;
	r->fatal_status = status;
	va_start(ap, fmt);
	set_error(r, fmt, ap);
	va_end(ap);
}

/* The major number of a version string ("0.1.0" -> 0), -1 if none. */
static long version_major(const char *version)
{
	char *end;
	long major;

	if (!version)
		return -1;
	major = strtol(version, &end, 10);
	return end == version ? -1 : major;
}

static void check_tracer_version(struct ct_reader *r, const struct ct_event *ev)
{
	long theirs = version_major(ev->u.tracer_info.version);
	long ours = version_major(PACKAGE_VERSION);

	if (theirs > ours)
		set_fatal(r, CT_READER_INPUT_ERROR,
		          "the trace was recorded by cudatrace %s, newer than this reader (%s): "
		          "its events may mean something else; use cudatrace %ld.x to read it",
		          ev->u.tracer_info.version, PACKAGE_VERSION, theirs);
}

/*
 * Whether the calls of TRACER_INFO's process all have their api_call: the
 * tracer emits them (its `api`) and the session recorded them (the trace
 * declares the class; `record --no-api` leaves it out). The accountant
 * then knows from the process's first event that a release is done when
 * its call returns, not only from its first api_call.
 */
static void note_calls_recorded(struct ct_event *ev)
{
	if (ev->u.tracer_info.api && ev->trace && ev->trace->declares_api_call)
		ev->process->calls_recorded = true;
}

/* EV's time counts for the trace's first and last event. */
static void note_time(struct ct_reader *r, int64_t time_ns)
{
	if (time_ns < r->stats.first_ns)
		r->stats.first_ns = time_ns;
	if (time_ns > r->stats.last_ns)
		r->stats.last_ns = time_ns;
}

/*
 * A GPU record's END, read as unknown (0) when CUPTI could not time it: a
 * forced flush (cudaProfilerStop, cudaDeviceReset, cuCtxDestroy, the exit)
 * "returns all the activity buffers including the ones which have one or
 * more incomplete activity records" (cupti_activity.h, cuptiActivityFlushAll;
 * CUPTI_ACTIVITY_FLAG_FLUSH_FORCED: "whether finished or not"), whose times
 * not reached yet are CUPTI_TIMESTAMP_UNKNOWN, 0 ("an invalid/unknown
 * timestamp for a start, end, ..."): work still running has its start
 * and no end, work not begun neither. An end before the start is no end
 * either. Such an operation still counts, with no duration, and the trace
 * section says how many there were. Traces of every tracer version are
 * read so.
 */
static void check_gpu_end(struct ct_reader *r, uint64_t start, uint64_t *end)
{
	if (start && *end && *end >= start)
		return;
	*end = 0;
	r->stats.gpu_end_unknown++;
}

static void check_gpu_times(struct ct_reader *r, struct ct_event *ev)
{
	switch (ev->type) {
	case CT_EV_GPU_KERNEL:
		check_gpu_end(r, ev->u.gpu_kernel.start, &ev->u.gpu_kernel.end);
		break;
	case CT_EV_GPU_MEMCPY:
		check_gpu_end(r, ev->u.gpu_memcpy.start, &ev->u.gpu_memcpy.end);
		break;
	case CT_EV_GPU_MEMSET:
		check_gpu_end(r, ev->u.gpu_memset.start, &ev->u.gpu_memset.end);
		break;
	default:
		break;
	}
}

void ct_reader_feed(struct ct_reader *r, struct ct_event *ev)
{
	enum ct_filter_verdict verdict = CT_FILTER_KEEP;

	CT_ASSERT_DBG(ev->type > CT_EV_NONE && ev->type < CT_EV_COUNT);
	CT_ASSERT_DBG(ev->process && ev->thread && ev->thread->process == ev->process);
	ev->seq = ++r->seq;
	if (!r->started) {
		r->started = true;
		if (ct_filter_start(&r->filter, ev->time_ns) < 0)
			set_fatal(r, CT_READER_INPUT_ERROR,
			          "the window ends before it starts: --from is at %" PRId64
			          " ns and --to at %" PRId64 " ns on the trace clock (its first "
			          "event is at %" PRId64 " ns)",
			          r->filter.from_ns, r->filter.to_ns, ev->time_ns);
	}
	note_time(r, ev->time_ns);
	r->stats.events++;
	/* compact events are made whole before anyone sees them */
	if (!ct_compact_events_take(r->compact, ev)) {
		r->stats.unmatched_gpu_records = ct_compact_events_unmatched(r->compact);
		r->stats.unmatched_repeats = ct_compact_events_unresolved(r->compact);
		return;
	}
	check_gpu_times(r, ev);
	if (ct_context_update(r->ctx, ev) > 0) {
		r->stats.unmatched_pops++;
		return;
	}
	if (ev->type == CT_EV_ACTIVITY_DROPPED)
		r->stats.dropped_records =
		    ct_sat_add_u64(r->stats.dropped_records, ev->u.activity_dropped.count);
	else if (ev->type == CT_EV_TRACER_INFO) {
		check_tracer_version(r, ev);
		note_calls_recorded(ev);
	}
	if (r->filtering) {
		verdict = ct_filter_event(&r->filter, r->ctx, ev);
		if (verdict == CT_FILTER_DROP)
			return;
	}
	ev->before_window = verdict == CT_FILTER_BEFORE;
	r->stats.delivered++;
	/* what the analyses share is computed from what they are given, before they see it */
	if (r->uses & CT_SHARED_API_CALLS)
		ct_api_calls_update(ev);
	/* its GPU record is joined to it: entry, note and all */
	if ((r->uses & CT_SHARED_GPU_JOINS) &&
	    (ev->type == CT_EV_LAUNCH || ev->type == CT_EV_MEMCPY || ev->type == CT_EV_MEMSET))
		ct_compact_events_delivered(r->compact, ev);
	if (r->uses & CT_SHARED_GPU_ACTIVITY)
		ct_gpu_activity_update(ev, r->opts->series_points);
	if (r->uses & CT_SHARED_ACCOUNTING) {
		if (ev->has_call)
			ct_acct_call(r->acct, ev);
		if (CT_ACCT_EVENTS & CT_EV_BIT(ev->type))
			ct_acct_event(r->acct, ev);
	}
	for (struct instance *const *in = r->dispatch[ev->type]; *in; in++)
		(*in)->cls->event((*in)->state, ev);
}

/* ------------------------------------------------------------ the sink */

/* The event types to decode: the analyses', the shared state's and the reader's own. */
static ct_ev_set decoded_types(const struct ct_reader *r)
{
	ct_ev_set types = r->wanted | ALWAYS_DECODED;

	if (r->uses & CT_SHARED_API_CALLS)
		types |= CT_API_CALLS_EVENTS;
	if (r->uses & CT_SHARED_GPU_ACTIVITY)
		types |= CT_GPU_ACTIVITY_EVENTS;
	if (r->uses & CT_SHARED_ACCOUNTING)
		types |= CT_ACCT_EVENTS;
	return types | ct_compact_events_needed(types);
}

/* An event of a type nobody wants: counted for its process and the trace, not analysed. */
static void count_only(struct ct_reader *r, struct ct_process *p, int64_t time_ns)
{
	r->seq++;
	r->stats.events++;
	p->events++;
	if (time_ns < p->first_ns)
		p->first_ns = time_ns;
	if (time_ns > p->last_ns)
		p->last_ns = time_ns;
	note_time(r, time_ns);
}

void ct_reader_note_loss(struct ct_reader *r, int64_t time_ns, uint64_t events, uint64_t packets)
{
	r->stats.discarded_events = ct_sat_add_u64(r->stats.discarded_events, events);
	r->stats.discarded_packets = ct_sat_add_u64(r->stats.discarded_packets, packets);
	ct_context_note_loss(r->ctx, time_ns, events, packets);
}

/*
 * A stream ends in data that cannot be decoded: the trace is counted as
 * cut short there.
 */
static void decoding_stopped(struct ct_reader *r)
{
	/* a repaired copy's cut ends so: what was repaired is said already */
	if (r->stats.truncated)
		return;
	r->stats.truncated = true;
	set_note(r, "event data that cannot be decoded (corrupt, or cut short) ends a stream: "
	            "analysed up to the last event read there");
}

/* One record of the decoding thread, in the graph's order. */
static void take_record(struct ct_reader *r, struct ct_record *rec)
{
	struct ct_event *ev = &rec->ev;

	switch (rec->kind) {
	case CT_RECORD_EVENT:
		ev->process = ct_origins_process(&r->origins, &rec->origin, rec->lane);
		if (!rec->decoded) {
			count_only(r, ev->process, ev->time_ns);
			break;
		}
		ev->thread = ct_origins_thread(&r->origins, &rec->origin, ev->process);
		ct_reader_feed(r, ev);
		break;
	case CT_RECORD_UST_STATEDUMP:
		ct_ust_statedump_apply(&rec->statedump, r->ctx);
		break;
	case CT_RECORD_LOSS:
		ct_reader_note_loss(r, rec->loss.time_ns, rec->loss.events, rec->loss.packets);
		break;
	case CT_RECORD_STOPPED:
		decoding_stopped(r);
		break;
	case CT_RECORD_FATAL:
		set_fatal(r, rec->fatal.input ? CT_READER_INPUT_ERROR : CT_READER_ERROR, "%s",
		          rec->fatal.why);
		break;
	case CT_RECORD_HELD:
		CT_ASSERT(!"the merge makes held events whole");
		break;
	}
}

/* ------------------------------------------------------------ the pass */

/* The reader's status for a graph's. */
static enum ct_reader_status graph_failed(enum ct_trace_graph_status status)
{
	return status == CT_TRACE_GRAPH_INPUT_ERROR ? CT_READER_INPUT_ERROR : CT_READER_ERROR;
}

/*
 * What a run that stopped in an error means, now that the events read are
 * counted. babeltrace2's own message (WHY) names its internals, not the
 * trace's: it is not shown.
 */
static enum ct_reader_status run_failed(struct ct_reader *r, enum ct_trace_graph_status status,
                                        const char *why)
{
	char damage[sizeof(r->stats.error)] = "";

	(void)why;
	if (r->fatal) {
		/* our own reason: babeltrace2's error only says the sink failed */
		return r->fatal_status;
	}
	if (status == CT_TRACE_GRAPH_MEMORY_ERROR) {
		set_fatal(r, CT_READER_ERROR, "out of memory");
		return CT_READER_ERROR;
	}
	if (r->stats.truncated)
		snprintf(damage, sizeof(damage), "%s", r->stats.error);
	if (r->stats.events == 0 && r->stats.foreign_events == 0) {
		set_fatal(r, CT_READER_INPUT_ERROR,
		          "cannot read the trace: its first events cannot be decoded (corrupt "
		          "data)%s%.300s",
		          damage[0] ? "; " : "", damage);
		return CT_READER_INPUT_ERROR;
	}
	/* events were read: a trace cut short or corrupt, analysed up to its last good event */
	if (!r->stats.truncated)
		set_note(r, "event data that cannot be decoded (corrupt, or cut short) ends the "
		            "trace: analysed up to the last event read");
	r->stats.truncated = true;
	return CT_READER_TRUNCATED;
}

/*
 * Reads the traces in r->paths through a graph per group of stream files,
 * each run on a decoding thread (decode-merge.h), while this one analyses
 * what they decoded, in time order.
 */
static enum ct_reader_status run_pass(struct ct_reader *r)
{
	struct ct_decode_merge *merge;
	enum ct_trace_graph_status status;
	struct ct_record *rec;
	char why[512];

	status = ct_decode_merge_create((const char *const *)r->paths->pdata, r->paths->len,
	                                decoded_types(r), &merge, why, sizeof(why));
	if (status != CT_TRACE_GRAPH_OK) {
		set_fatal(r, graph_failed(status), "%s", why);
		return graph_failed(status);
	}
	r->stats.traces = ct_decode_merge_traces(merge);
	if (ct_decode_merge_damage(merge)[0]) {
		r->stats.truncated = true;
		set_note(r, "%s", ct_decode_merge_damage(merge));
	}
	while (!r->fatal && (rec = ct_decode_merge_next(merge)))
		take_record(r, rec);
	if (r->fatal)
		ct_decode_merge_stop(merge);
	r->stats.foreign_events += ct_decode_merge_foreign_events(merge);
	status = ct_decode_merge_join(merge, why, sizeof(why));
	ct_decode_merge_destroy(merge);
	/* the run may have ended before it saw the stop */
	if (r->fatal)
		return r->fatal_status;
	if (status != CT_TRACE_GRAPH_OK)
		return run_failed(r, status, why);
	return r->stats.truncated ? CT_READER_TRUNCATED : CT_READER_OK;
}

enum ct_reader_status ct_reader_read(struct ct_reader *r, const char *const *paths, size_t count)
{
	enum ct_reader_status status;
	char why[512];

	if (ct_discover_traces(paths, count, r->paths, why, sizeof(why)) != CT_DISCOVERY_OK) {
		set_fatal(r, CT_READER_INPUT_ERROR, "%s", why);
		return CT_READER_INPUT_ERROR;
	}
	status = run_pass(r);
	if ((status == CT_READER_OK || status == CT_READER_TRUNCATED) && r->stats.events == 0) {
		if (r->stats.truncated)
			set_fatal(r, CT_READER_INPUT_ERROR, "no event could be read: %s",
			          r->stats.error);
		else if (r->stats.foreign_events)
			set_fatal(r, CT_READER_INPUT_ERROR,
			          "the trace has no cudatrace events (%llu events of other "
			          "providers): was the program run under cudatrace record?",
			          (unsigned long long)r->stats.foreign_events);
		else
			set_fatal(r, CT_READER_INPUT_ERROR,
			          "the trace has no events: was the program run under cudatrace "
			          "record, and did it make CUDA calls?");
		return CT_READER_INPUT_ERROR;
	}
	return status;
}

/* ------------------------------------------------------------ finish and report */

int ct_reader_finish(struct ct_reader *r)
{
	int64_t end = r->stats.last_ns == INT64_MIN ? 0 : r->stats.last_ns;
	enum ct_analysis_status status;
	size_t i;

	if (r->uses & CT_SHARED_ACCOUNTING)
		ct_acct_finish(r->acct);
	for (i = 0; i < r->instance_count; i++) {
		struct instance *in = &r->instances[i];

		status = in->cls->finish(in->state, end);
		if (status != CT_ANALYSIS_OK)
			goto error;
	}
	/* after the analyses' finish: the transfers analysis probes the timelines in its own */
	if (r->uses & CT_SHARED_GPU_ACTIVITY)
		ct_gpu_activity_finish(r->ctx);
	for (i = 0; i < r->instance_count; i++) {
		struct instance *in = &r->instances[i];

		r->results[i].cls = in->cls;
		status = in->cls->result(in->state, &r->results[i].result);
		if (status != CT_ANALYSIS_OK)
			goto error;
		CT_ASSERT(r->results[i].result);
	}
	r->finished = true;
	return 0;
error:
	analysis_failed(r, r->instances[i].cls, status);
	return -1;
}

const void *ct_reader_result(const struct ct_reader *r, const struct ct_analysis_class *cls)
{
	for (size_t i = 0; r->finished && i < r->instance_count; i++)
		if (r->results[i].cls == cls)
			return r->results[i].result;
	return NULL;
}

/* Whether SECTION is written already by an analysis before instance I. */
static bool written_before(const struct ct_reader *r, size_t i,
                           const struct ct_section_class *section)
{
	while (i-- > 0)
		if (r->instances[i].cls->section == section)
			return true;
	return false;
}

const struct ct_result *ct_reader_results(const struct ct_reader *r, size_t *count)
{
	*count = r->finished ? r->instance_count : 0;
	return r->results;
}

int ct_reader_report(struct ct_reader *r, struct ct_doc *doc)
{
	CT_ASSERT(r->finished);
	ct_trace_section_write(doc, &r->stats, (const char *const *)r->paths->pdata, r->paths->len,
	                       r->ctx);
	/* each section once, where the first analysis that feeds it was added; none for
	 * an analysis that writes elsewhere (an exporter) */
	for (size_t i = 0; i < r->instance_count; i++) {
		const struct ct_section_class *section = r->instances[i].cls->section;

		if (section && !written_before(r, i, section))
			section->write(doc, r->results, r->instance_count);
	}
	if (ct_doc_error(doc)) {
		set_note(r, "cannot build the report: %s", ct_doc_error(doc));
		return -1;
	}
	return 0;
}
