/* SPDX-License-Identifier: MIT */
/*
 * last-words-section.c - the program's last words on standard error, in
 * the report and in record's notes (last-words-section.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "analyses/framework.h"
#include "common/last-words.h"
#include "common/stderr-log.h"
#include "findings/death.h"
#include "model/call-stacks.h"
#include "last-words-section.h"

/* The lines quoted: the last ones, a traceback that ends the output whole, within bounds. */
#define QUOTED_LINES 20
#define QUOTED_MAX   60

/* A figure the framework did not give (0): null. */
static void figure(struct ct_doc *doc, const char *key, uint64_t value)
{
	if (value)
		ct_doc_u64(doc, key, value, CT_UNIT_BYTES);
	else
		ct_doc_null(doc, key);
}

static void write_exception(struct ct_doc *doc, const struct ct_last_words *w)
{
	const struct ct_exception *e = &w->exception;

	if (!w->has_exception) {
		ct_doc_null(doc, "exception");
		return;
	}
	ct_doc_object(doc, "exception", "Uncaught exception");
	ct_doc_string(doc, "type", e->type);
	ct_doc_string(doc, "message", e->message);
	ct_doc_string(doc, "file", e->file);
	if (e->file)
		ct_doc_u64(doc, "line", (uint64_t)e->line, CT_UNIT_NONE);
	else
		ct_doc_null(doc, "line");
	ct_doc_string(doc, "function", e->function);
	ct_doc_end(doc);
}

static void write_oom(struct ct_doc *doc, const struct ct_stderr_log *log,
                      const struct ct_last_words *w)
{
	const struct ct_said_oom *o = &w->oom;

	if (!w->has_oom) {
		ct_doc_null(doc, "out_of_memory");
		return;
	}
	ct_doc_object(doc, "out_of_memory", "The framework's out-of-memory message");
	ct_doc_string(doc, "framework", ct_framework_label(o->framework));
	ct_doc_i64(doc, "time_ns", log->lines[o->line].ns, CT_UNIT_TIME);
	ct_doc_string(doc, "text", log->lines[o->line].text);
	if (o->device >= 0)
		ct_doc_u64(doc, "device", (uint64_t)o->device, CT_UNIT_ID);
	else
		ct_doc_null(doc, "device");
	figure(doc, "requested_bytes", o->requested_bytes);
	figure(doc, "in_use_bytes", o->in_use_bytes);
	figure(doc, "reserved_bytes", o->reserved_bytes);
	/* "0 bytes is reserved by PyTorch but unallocated" is a figure: known with its total */
	if (o->reserved_bytes)
		ct_doc_u64(doc, "reserved_unused_bytes", o->reserved_unused_bytes, CT_UNIT_BYTES);
	else
		ct_doc_null(doc, "reserved_unused_bytes");
	figure(doc, "device_free_bytes", o->device_free_bytes);
	figure(doc, "device_total_bytes", o->device_total_bytes);
	figure(doc, "limit_bytes", o->limit_bytes);
	figure(doc, "process_bytes", o->process_bytes);
	ct_doc_string(doc, "precision", o->rounded ? "rounded" : "exact");
	ct_doc_end(doc);
}

/* The first line quoted. */
static size_t first_quoted(const struct ct_stderr_log *log, const struct ct_last_words *w)
{
	size_t first = log->count > QUOTED_LINES ? log->count - QUOTED_LINES : 0;

	if (w->has_exception && w->exception.first < first)
		first = w->exception.first;
	if (log->count - first > QUOTED_MAX)
		first = log->count - QUOTED_MAX;
	return first;
}

static void write_lines(struct ct_doc *doc, const struct ct_stderr_log *log, size_t first)
{
	ct_doc_array(doc, "lines", "Its last lines");
	for (size_t i = first; i < log->count; i++) {
		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "time_ns", log->lines[i].ns, CT_UNIT_TIME);
		ct_doc_string(doc, "text", log->lines[i].text);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

/* The name the trace gives process PID (g_free); NULL when it has none. */
static char *process_name(const struct ct_doc *doc, int pid)
{
	struct ct_death_facts facts = { 0 };

	if (ct_doc_root(doc))
		ct_death_facts_from_report(ct_doc_root(doc), pid, &facts);
	return g_strdup(facts.program);
}

/*
 * Whether the Python probe saw process PID import FRAMEWORK (the
 * framework analysis's loads, among RESULTS; COUNT of them).
 */
static bool imported(const struct ct_result *results, size_t count, int pid,
                     enum ct_framework framework)
{
	const struct ct_framework_result *r = ct_result_of(results, count, CT_ANALYSIS_FRAMEWORK);

	for (guint i = 0; r && i < r->loads->len; i++) {
		const struct ct_framework_load *l =
		    &g_array_index(r->loads, struct ct_framework_load, i);

		if (l->pid == pid && l->framework == framework)
			return true;
	}
	return false;
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count,
                          const struct ct_stderr_log *log)
{
	char *process = process_name(doc, log->pid);
	struct ct_last_words w;

	ct_last_words_read(log, &w);
	/*
	 * XLA's allocator is TensorFlow's (TSL's BFC allocator), and says so in
	 * the same words: a process that imported JAX and not TensorFlow heard
	 * it from JAX.
	 */
	if (w.has_oom && w.oom.framework == CT_FRAMEWORK_TENSORFLOW &&
	    imported(results, count, log->pid, CT_FRAMEWORK_JAX) &&
	    !imported(results, count, log->pid, CT_FRAMEWORK_TENSORFLOW))
		w.oom.framework = CT_FRAMEWORK_JAX;
	ct_doc_object(doc, "last_words", "Its last words on standard error");
	ct_doc_i64(doc, "pid", log->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", process);
	g_free(process);
	ct_doc_bool(doc, "tty", log->tty);
	ct_doc_u64(doc, "bytes", log->bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "skipped_bytes", log->skipped, CT_UNIT_BYTES);
	write_exception(doc, &w);
	write_oom(doc, log, &w);
	write_lines(doc, log, first_quoted(log, &w));
	ct_doc_end(doc);
	ct_last_words_clear(&w);
}

void last_words_section_write(struct ct_doc *doc, const struct ct_result *results, size_t count,
                              char *const *paths, size_t path_count, char **bad)
{
	if (bad)
		*bad = NULL;
	for (size_t i = 0; i < path_count; i++) {
		struct ct_stderr_log log;
		enum ct_stderr_status status = ct_stderr_log_read(paths[i], &log);

		if (status == CT_STDERR_OK) {
			write_section(doc, results, count, &log);
			ct_stderr_log_clear(&log);
			return;
		}
		if (status != CT_STDERR_NONE && bad && !*bad)
			*bad = g_build_filename(paths[i], CT_STDERR_FILE, NULL);
	}
}

void last_words_note(struct trace_info *info, const char *dir)
{
	struct ct_stderr_log log;
	struct ct_last_words w;

	if (ct_stderr_log_read(dir, &log) != CT_STDERR_OK)
		return;
	ct_last_words_read(&log, &w);
	/* the Python probe's exception, when it saw one, replaces this (record.c) */
	if (w.has_exception) {
		snprintf(info->exception, sizeof(info->exception), "%s", w.exception.type);
		snprintf(info->exception_message, sizeof(info->exception_message), "%s",
		         w.exception.message);
		if (w.exception.file)
			ct_python_site_format(w.exception.file, (unsigned)w.exception.line,
			                      w.exception.function, info->exception_site,
			                      sizeof(info->exception_site));
	}
	if (w.has_oom) {
		snprintf(info->framework_oom, sizeof(info->framework_oom), "%s",
		         ct_framework_label(w.oom.framework));
		info->framework_oom_bytes = w.oom.requested_bytes;
	}
	ct_last_words_clear(&w);
	ct_stderr_log_clear(&log);
}
