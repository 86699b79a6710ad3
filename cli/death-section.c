/* SPDX-License-Identifier: MIT */
/*
 * death-section.c - the "process_end" section of the report, from
 * cudatrace.info (death-section.h).
 */
#include <stdio.h>

#include <glib.h>

#include "death-section.h"
#include "death.h"
#include "trace-info.h"

/* A count the notes may not know (-1): null then. */
static void known_count(struct ct_doc *doc, const char *key, int value)
{
	if (value < 0)
		ct_doc_null(doc, key);
	else
		ct_doc_u64(doc, key, (uint64_t)value, CT_UNIT_NONE);
}

/* Bytes the notes may not know (0): null then. */
static void known_bytes(struct ct_doc *doc, const char *key, uint64_t value)
{
	if (!value)
		ct_doc_null(doc, key);
	else
		ct_doc_u64(doc, key, value, CT_UNIT_BYTES);
}

static void write_host(struct ct_doc *doc, const struct trace_info *info)
{
	ct_doc_object(doc, "host_memory", "Host memory of the program");
	known_bytes(doc, "rss_last_bytes", info->host_rss_bytes);
	known_bytes(doc, "rss_peak_bytes", info->host_rss_peak_bytes);
	known_bytes(doc, "anon_peak_bytes", info->host_anon_peak_bytes);
	known_bytes(doc, "limit_bytes", info->host_limit_bytes);
	ct_doc_string(doc, "limit_of",
	              !info->host_limit_bytes   ? NULL
	              : info->host_limit_cgroup ? "cgroup"
	                                        : "machine");
	ct_doc_string(doc, "cgroup", info->cgroup_version ? info->cgroup : NULL);
	if (info->cgroup_version)
		ct_doc_u64(doc, "cgroup_version", (uint64_t)info->cgroup_version, CT_UNIT_NONE);
	else
		ct_doc_null(doc, "cgroup_version");
	known_count(doc, "oom_kills", info->oom_kills);
	if (info->oom_logged < 0)
		ct_doc_null(doc, "oom_in_kernel_log");
	else
		ct_doc_bool(doc, "oom_in_kernel_log", info->oom_logged == 1);
	ct_doc_end(doc);
}

/* What its last lines on standard error said: its framework's out-of-memory message. */
static void write_words(struct ct_doc *doc, const struct trace_info *info)
{
	ct_doc_string(doc, "framework_oom", info->framework_oom[0] ? info->framework_oom : NULL);
	known_bytes(doc, "framework_oom_bytes", info->framework_oom_bytes);
}

/* The last CUDA call of the process that failed, as FACTS have it; null when none did. */
static void write_failed_call(struct ct_doc *doc, const struct ct_death_facts *facts)
{
	if (!facts->failed_known) {
		ct_doc_null(doc, "failed_call");
		return;
	}
	ct_doc_object(doc, "failed_call", NULL);
	ct_doc_string(doc, "api", facts->failed_api);
	ct_doc_string(doc, "error", facts->failed_error);
	ct_doc_i64(doc, "code", facts->failed_code, CT_UNIT_NONE);
	ct_doc_string(doc, "site", facts->failed_site);
	ct_doc_i64(doc, "before_end_ns", facts->failed_before_end_ns, CT_UNIT_DURATION);
	ct_doc_end(doc);
}

/*
 * How it ended, in the words of the diagnosis (g_free): the facts of INFO,
 * and what the report's trace section (in DOC already) and the analyses'
 * RESULTS (COUNT of them) add to them, in FACTS.
 */
static char *summary_of(const struct ct_doc *doc, const struct ct_result *results, size_t count,
                        const struct trace_info *info, struct ct_death_facts *facts)
{
	struct ct_death_words words;
	char *text;

	death_facts_of(info, facts);
	ct_death_facts_from_report(ct_doc_root(doc), info->pid, facts);
	ct_death_facts_from_results(results, count, info->pid, facts);
	ct_death_word(info->death, facts, &words);
	text = ct_death_text(&words);
	ct_death_words_clear(&words);
	return text;
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count,
                          const struct trace_info *info)
{
	struct ct_death_facts facts;
	char *text = summary_of(doc, results, count, info, &facts);

	ct_doc_object(doc, "process_end", "How the program ended");
	ct_doc_string(doc, "cause", ct_death_name(info->death));
	ct_doc_string(doc, "summary", text);
	g_free(text);
	ct_doc_string(doc, "program", info->program);
	/* the name the trace knows its pid by: a wrapper record ran (env, a
	 * shell script, cudasim-env) may have exec'd the program */
	ct_doc_string(doc, "process", facts.program);
	ct_doc_i64(doc, "pid", info->pid, CT_UNIT_ID);
	if (info->end == TRACE_KILLED) {
		ct_doc_null(doc, "exit_status");
		ct_doc_i64(doc, "signal", info->end_code, CT_UNIT_NONE);
		ct_doc_string(doc, "signal_name", sigabbrev_np(info->end_code));
	} else {
		ct_doc_i64(doc, "exit_status", info->end_code, CT_UNIT_NONE);
		ct_doc_null(doc, "signal");
		ct_doc_null(doc, "signal_name");
	}
	ct_doc_string(doc, "cuda_error", info->cuda_error[0] ? info->cuda_error : NULL);
	ct_doc_string(doc, "cuda_error_api",
	              info->cuda_error[0] && info->cuda_error_api[0] ? info->cuda_error_api : NULL);
	known_bytes(doc, "gpu_failed_bytes", info->gpu_failed_bytes);
	ct_doc_string(doc, "gpu_verdict", info->gpu_failed_bytes ? info->gpu_verdict : NULL);
	ct_doc_string(doc, "exception", info->exception[0] ? info->exception : NULL);
	ct_doc_string(doc, "exception_site", info->exception[0] ? info->exception_site : NULL);
	ct_doc_string(doc, "exception_message",
	              info->exception[0] ? info->exception_message : NULL);
	write_failed_call(doc, &facts);
	write_words(doc, info);
	write_host(doc, info);
	ct_doc_end(doc);
}

void death_section_write(struct ct_doc *doc, const struct ct_result *results, size_t count,
                         char *const *paths, size_t path_count)
{
	for (size_t i = 0; i < path_count; i++) {
		struct trace_info info;

		if (trace_info_read(paths[i], &info) == 0 && info.death != CT_DEATH_NOT_JUDGED) {
			write_section(doc, results, count, &info);
			return;
		}
	}
}

void death_section_write_info(struct ct_doc *doc, const struct ct_result *results, size_t count,
                              const struct trace_info *info)
{
	if (info->death != CT_DEATH_NOT_JUDGED)
		write_section(doc, results, count, info);
}
