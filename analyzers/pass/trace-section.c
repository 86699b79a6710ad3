/* SPDX-License-Identifier: MIT */
/*
 * trace-section.c - the report's "trace" section (see trace-section.h).
 */
#include <inttypes.h>
#include <string.h>

#include "config.h"
#include "common/log.h"
#include "common/saturate.h"
#include "trace-section.h"

static void write_processes(struct ct_doc *doc, const struct ct_context *ctx)
{
	ct_doc_array(doc, "processes", "Processes");
	for (size_t i = 0; i < ct_context_process_count(ctx); i++) {
		const struct ct_process *p = ct_context_process_at(ctx, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", p->pid, CT_UNIT_ID);
		ct_doc_string(doc, "process", p->procname);
		ct_doc_string(doc, "hostname", p->hostname);
		ct_doc_u64(doc, "events", p->events, CT_UNIT_NONE);
		ct_doc_i64(doc, "first_ns", p->events ? p->first_ns : 0, CT_UNIT_TIME);
		ct_doc_i64(doc, "last_ns", p->events ? p->last_ns : 0, CT_UNIT_TIME);
		ct_doc_string(doc, "tracer_version", p->tracer_version);
		ct_doc_u64(doc, "forks", p->forks, CT_UNIT_NONE);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

/* Whether the trace holds a process PID of HOSTNAME's. */
static bool traced(const struct ct_context *ctx, const char *hostname, int64_t pid)
{
	for (size_t i = 0; i < ct_context_process_count(ctx); i++) {
		const struct ct_process *p = ct_context_process_at(ctx, i);

		if (p->pid == pid && !strcmp(p->hostname, hostname))
			return true;
	}
	return false;
}

/*
 * The children traced processes forked whose pid has no process in the
 * trace: forked without exec, they ran untraced (doc/events.md,
 * process_fork), and whatever CUDA work they did is not in the report. A
 * child that exec'd is traced under its pid, and not named. The first
 * CT_FORKS_KEPT children of each process are looked at (processes[].forks
 * counts them all).
 */
static void write_untraced_children(struct ct_doc *doc, const struct ct_context *ctx)
{
	uint64_t count = 0;

	ct_doc_array(doc, "untraced_children", "Children forked without exec, not traced");
	for (size_t i = 0; i < ct_context_process_count(ctx); i++) {
		const struct ct_process *p = ct_context_process_at(ctx, i);

		for (guint f = 0; p->forked && f < p->forked->len; f++) {
			const struct ct_fork *fork = &g_array_index(p->forked, struct ct_fork, f);

			if (fork->child_pid && traced(ctx, p->hostname, fork->child_pid))
				continue;
			count++;
			ct_doc_object(doc, NULL, NULL);
			ct_doc_i64(doc, "pid", p->pid, CT_UNIT_ID);
			if (fork->child_pid)
				ct_doc_i64(doc, "child_pid", fork->child_pid, CT_UNIT_ID);
			else
				ct_doc_null(doc, "child_pid");
			ct_doc_i64(doc, "time_ns", fork->time_ns, CT_UNIT_TIME);
			ct_doc_end(doc);
		}
	}
	ct_doc_end(doc);
	ct_doc_u64(doc, "untraced_child_count", count, CT_UNIT_NONE);
}

static void write_devices(struct ct_doc *doc, const struct ct_context *ctx)
{
	ct_doc_array(doc, "devices", "Devices");
	for (size_t i = 0; i < ct_context_process_count(ctx); i++) {
		const struct ct_process *p = ct_context_process_at(ctx, i);

		for (int d = 0; d < 256; d++) {
			const struct ct_device *dev = p->devices[d];

			if (!dev)
				continue;
			ct_doc_object(doc, NULL, NULL);
			ct_doc_i64(doc, "pid", p->pid, CT_UNIT_ID);
			ct_doc_u64(doc, "device", dev->ordinal, CT_UNIT_ID);
			ct_doc_string(doc, "name", dev->name);
			ct_doc_u64(doc, "memory_bytes", dev->global_memory, CT_UNIT_BYTES);
			ct_doc_u64(doc, "memory_bandwidth_bytes_per_s", dev->memory_bandwidth,
			           CT_UNIT_BANDWIDTH);
			ct_doc_end(doc);
		}
	}
	ct_doc_end(doc);
}

void ct_trace_section_write(struct ct_doc *doc, const struct ct_reader_stats *s,
                            const char *const *paths, size_t count, const struct ct_context *ctx)
{
	bool any = s->events > 0;
	const struct ct_losses *losses = ct_context_losses(ctx);

	ct_doc_object(doc, "trace", "Trace");
	/* doc/report-schema.md: a new field keeps the version, a changed one bumps it */
	ct_doc_u64(doc, "schema_version", CT_REPORT_SCHEMA_VERSION, CT_UNIT_ID);
	ct_doc_string(doc, "cudatrace_version", PACKAGE_VERSION);
	ct_doc_array(doc, "paths", "Trace directories");
	for (size_t i = 0; i < count; i++)
		ct_doc_string(doc, NULL, paths[i]);
	ct_doc_end(doc);
	if (any) {
		ct_doc_i64(doc, "start_ns", s->first_ns, CT_UNIT_TIME);
		ct_doc_i64(doc, "end_ns", s->last_ns, CT_UNIT_TIME);
		ct_doc_i64(doc, "duration_ns", ct_sat_sub(s->last_ns, s->first_ns),
		           CT_UNIT_DURATION);
		if (ct_sat_sub(s->last_ns, s->first_ns) > CT_IMPLAUSIBLE_NS)
			ct_log_warning("the trace's events span more than a year: an event's time "
			               "is damaged, and the report's times and durations with it");
	} else {
		ct_doc_null(doc, "start_ns");
		ct_doc_null(doc, "end_ns");
		ct_doc_null(doc, "duration_ns");
	}
	ct_doc_u64(doc, "events", s->events, CT_UNIT_NONE);
	ct_doc_u64(doc, "analysed_events", s->delivered, CT_UNIT_NONE);
	ct_doc_u64(doc, "other_events", s->foreign_events, CT_UNIT_NONE);
	ct_doc_u64(doc, "discarded_events", s->discarded_events, CT_UNIT_NONE);
	ct_doc_u64(doc, "discarded_packets", s->discarded_packets, CT_UNIT_NONE);
	/* analyses mark what comes after it (caveats of the memory section) */
	if (losses->events || losses->packets) {
		if (losses->first_ns != INT64_MIN)
			ct_doc_i64(doc, "discarded_from_ns", losses->first_ns, CT_UNIT_TIME);
		else if (any)
			ct_doc_i64(doc, "discarded_from_ns", s->first_ns, CT_UNIT_TIME);
		else
			ct_doc_null(doc, "discarded_from_ns");
	} else {
		ct_doc_null(doc, "discarded_from_ns");
	}
	ct_doc_u64(doc, "dropped_records", s->dropped_records, CT_UNIT_NONE);
	ct_doc_u64(doc, "unmatched_nvtx_pops", s->unmatched_pops, CT_UNIT_NONE);
	ct_doc_u64(doc, "unmatched_gpu_records", s->unmatched_gpu_records, CT_UNIT_NONE);
	ct_doc_u64(doc, "unmatched_repeats", s->unmatched_repeats, CT_UNIT_NONE);
	ct_doc_u64(doc, "gpu_end_unknown", s->gpu_end_unknown, CT_UNIT_NONE);
	if (s->gpu_end_unknown)
		ct_log_warning("%" PRIu64 " GPU operations had not finished when CUPTI handed "
		               "their records over (a forced flush): their end is unknown, and "
		               "they count without a duration",
		               s->gpu_end_unknown);
	ct_doc_bool(doc, "complete", !s->truncated);
	ct_doc_string(doc, "error", s->truncated ? s->error : NULL);
	write_processes(doc, ctx);
	write_untraced_children(doc, ctx);
	write_devices(doc, ctx);
	ct_doc_end(doc);
}
