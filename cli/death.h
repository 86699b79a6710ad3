/* SPDX-License-Identifier: MIT */
/*
 * death.h - why the traced program ended, from what record saw: its exit
 * status or signal, the kernel's count of OOM kills in its memory cgroup
 * (cgroup.h) and its log (kernel-log.h), its host memory, and what the
 * trace holds last (a sticky CUDA error, a failed GPU allocation). The
 * judgement and its words are the analyzers' (findings/death.h), so that
 * record and `cudatrace report` say the same; this file hands them the
 * facts of cudatrace.info (trace-info.h), where the judgement is kept
 * for the report.
 */
#ifndef CUDATRACE_CLI_DEATH_H
#define CUDATRACE_CLI_DEATH_H

#include <stdbool.h>
#include <stdint.h>

#include "findings/death.h"
#include "trace-info.h"

/* What the judgement rests on besides INFO's own facts. */
struct death_facts {
	bool jupyter; /* the program is a Jupyter kernel (ipykernel) */
	/* From the trace: its first sticky CUDA error, its last failed allocation. */
	int64_t sticky_ns, failure_ns; /* trace clock; 0 when none */
};

/* The facts of INFO, as death.h takes them (strings borrowed from INFO). */
void death_facts_of(const struct trace_info *info, struct ct_death_facts *facts);

/*
 * Sets INFO->death from its end (end, end_code), the host memory and OOM
 * facts already in it (oom_kills, oom_logged, cuda_error,
 * gpu_failed_bytes) and FACTS.
 */
void death_judge(struct trace_info *info, const struct death_facts *facts);

/*
 * INFO's judgement in a sentence or two, as the report words it: what
 * ended the program, and the facts that say so (g_free); NULL when not
 * judged.
 */
char *death_describe(const struct trace_info *info);

#endif
