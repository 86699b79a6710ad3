/* SPDX-License-Identifier: MIT */
/*
 * death.h - why the traced program ended, judged from what record saw:
 * its exit status or signal, the kernel's count of OOM kills in its
 * memory cgroup (cgroup.h) and its log (kernel-log.h), its host memory,
 * and what the trace holds last (a sticky CUDA error, a failed GPU
 * allocation). The judgement goes into cudatrace.info (trace-info.h),
 * where `cudatrace report` finds it.
 *
 * The order of the causes is that of their certainty: the kernel's OOM
 * count and a fault signal are facts about the end itself; a sticky CUDA
 * error or a failed allocation followed by a failure status is what the
 * program last met before it gave up; a signal from outside is said as
 * such, with what is known of its sender. Where nothing explains the
 * end, it is said to be unknown.
 */
#ifndef CUDATRACE_CLI_DEATH_H
#define CUDATRACE_CLI_DEATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-info.h"

/* What the judgement rests on besides INFO's own facts. */
struct death_facts {
	bool exited; /* exited by itself with CODE, else killed by SIGNAL */
	int code;
	int signal;
	bool jupyter; /* the program is a Jupyter kernel (ipykernel) */
	/* From the trace: its first sticky CUDA error, its last failed allocation. */
	int64_t sticky_ns, failure_ns; /* trace clock; 0 when none */
};

/*
 * Sets INFO->death from FACTS and the host memory and OOM facts already in
 * INFO (oom_kills, oom_logged, cuda_error, gpu_failed_bytes).
 */
void death_judge(struct trace_info *info, const struct death_facts *facts);

/*
 * INFO's judgement in one or two plain sentences, into BUF ("" when not
 * judged): what ended the program, and the facts that say so.
 */
void death_describe(const struct trace_info *info, char *buf, size_t len);

/* What record saw of INFO's host memory, in one sentence into BUF ("" when nothing). */
void death_describe_host(const struct trace_info *info, char *buf, size_t len);

#endif
