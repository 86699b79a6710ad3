/* SPDX-License-Identifier: MIT */
/*
 * death.c - the facts of cudatrace.info for the judgement of the
 * program's end and its words (death.h).
 */
#include <glib.h>

#include "death.h"

void death_facts_of(const struct trace_info *info, struct ct_death_facts *f)
{
	bool killed = info->end == TRACE_KILLED;

	*f = (struct ct_death_facts){
		.program = info->program,
		.killed = killed,
		.status = killed ? 0 : info->end_code,
		.signal = killed ? info->end_code : 0,
		.oom_kills = info->oom_kills,
		.oom_logged = info->oom_logged,
		.cgroup = info->cgroup,
		.rss_last_bytes = info->host_rss_bytes,
		.rss_peak_bytes = info->host_rss_peak_bytes,
		.anon_peak_bytes = info->host_anon_peak_bytes,
		.limit_bytes = info->host_limit_bytes,
		.limit_cgroup = info->host_limit_cgroup,
		.cuda_error = info->cuda_error,
		.cuda_error_api = info->cuda_error_api,
		.gpu_failed_bytes = info->gpu_failed_bytes,
		.gpu_verdict = info->gpu_verdict,
		.exception = info->exception,
		.exception_site = info->exception_site,
		.exception_message = info->exception_message,
		/* what the trace held, when record read it */
		.gpu_known = info->has_summary,
		.gpu_failures = info->failures,
		.gpu_peak_bytes = info->peak_bytes,
		/* what its last lines said */
		.framework = info->framework_oom,
		.framework_requested_bytes = info->framework_oom_bytes,
	};
}

void death_judge(struct trace_info *info, const struct death_facts *facts)
{
	struct ct_death_facts f;

	death_facts_of(info, &f);
	f.jupyter = facts->jupyter;
	f.cuda_error_ns = facts->sticky_ns;
	f.gpu_failed_ns = facts->failure_ns;
	info->death = ct_death_judge(&f);
}

char *death_describe(const struct trace_info *info)
{
	struct ct_death_facts f;
	struct ct_death_words w;
	char *text;

	if (info->death == CT_DEATH_NOT_JUDGED)
		return NULL;
	death_facts_of(info, &f);
	ct_death_word(info->death, &f, &w);
	text = ct_death_text(&w);
	ct_death_words_clear(&w);
	return text;
}
