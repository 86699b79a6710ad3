/* SPDX-License-Identifier: MIT */
/*
 * death.c - the cause of the program's end, judged and said (death.h).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/format.h"
#include "death.h"

static bool is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

static bool host_oom(const struct trace_info *info, const struct death_facts *f)
{
	if (f->exited || f->signal != SIGKILL)
		return false;
	return info->oom_logged == 1 || info->oom_kills > 0;
}

/* The program ended badly: a failure status, or a signal. */
static bool failed(const struct death_facts *f)
{
	return !f->exited || f->code != 0;
}

void death_judge(struct trace_info *info, const struct death_facts *f)
{
	bool sticky = info->cuda_error[0] != '\0', gpu_oom = info->gpu_failed_bytes != 0;

	if (!failed(f))
		info->death = TRACE_DEATH_NONE;
	else if (host_oom(info, f))
		info->death = TRACE_DEATH_HOST_OOM;
	else if (!f->exited && is_fault(f->signal))
		info->death = TRACE_DEATH_FAULT_SIGNAL;
	/* Of a sticky error and a failed allocation, the later one is what it last met. */
	else if (sticky && (!gpu_oom || f->sticky_ns >= f->failure_ns))
		info->death = TRACE_DEATH_CUDA_ERROR;
	else if (gpu_oom)
		info->death = TRACE_DEATH_GPU_OOM;
	else if (!f->exited && f->signal == SIGABRT)
		info->death = TRACE_DEATH_ABORT;
	else if (!f->exited && f->jupyter && f->signal == SIGINT)
		info->death = TRACE_DEATH_JUPYTER_INTERRUPT;
	/*
	 * A server that restarts or shuts a kernel down signals its process
	 * group: a SIGKILL that way kills record too, which then judges
	 * nothing; one that reached the kernel alone came from elsewhere.
	 */
	else if (!f->exited && f->jupyter && (f->signal == SIGTERM || f->signal == SIGHUP))
		info->death = TRACE_DEATH_JUPYTER_STOP;
	else if (!f->exited)
		info->death = TRACE_DEATH_KILLED;
	else
		info->death = TRACE_DEATH_UNKNOWN;
}

static const char *signame(int sig)
{
	const char *abbrev = sigabbrev_np(sig);

	return abbrev ? abbrev : "?";
}

/* How it ended, as the status says: "was killed by SIGKILL", "exited with status 1". */
static void ending(const struct trace_info *info, char *buf, size_t len)
{
	if (info->end == TRACE_KILLED)
		snprintf(buf, len, "was killed by SIG%s", signame(info->end_code));
	else
		snprintf(buf, len, "exited with status %d", info->end_code);
}

/* " Its resident host memory was last seen at 1.9 GiB (peak 2.0 GiB) of 2.0 GiB (...)." */
void death_describe_host(const struct trace_info *info, char *buf, size_t len)
{
	char rss[32], peak[32], limit[32];

	buf[0] = '\0';
	if (!info->host_rss_bytes)
		return;
	ct_format_bytes((double)info->host_rss_bytes, rss, sizeof(rss));
	ct_format_bytes((double)info->host_rss_peak_bytes, peak, sizeof(peak));
	if (info->host_limit_bytes)
		ct_format_bytes((double)info->host_limit_bytes, limit, sizeof(limit));
	snprintf(buf, len, " Its resident host memory was last seen at %s (peak %s)%s%s%s.", rss,
	         peak, info->host_limit_bytes ? " of " : "", info->host_limit_bytes ? limit : "",
	         !info->host_limit_bytes   ? ""
	         : info->host_limit_cgroup ? " (its cgroup's limit)"
	                                   : " (the machine's memory)");
}

/* What the kernel said of an OOM kill: the counter and the log. */
static void oom_evidence(const struct trace_info *info, char *buf, size_t len)
{
	const char *log = info->oom_logged == 1 ? "; the kernel log names it as killed" : "";

	if (info->oom_kills > 0)
		snprintf(
		    buf, len,
		    "the OOM killer killed %d process%s of its memory cgroup %s while it ran%s",
		    info->oom_kills, info->oom_kills == 1 ? "" : "es", info->cgroup, log);
	else
		snprintf(buf, len, "the kernel log names it as killed by the OOM killer");
}

/* Why a SIGKILL or SIGTERM from outside is not put on the OOM killer. */
static void outside(const struct trace_info *info, char *buf, size_t len)
{
	if (info->end_code != SIGKILL)
		snprintf(buf, len, "who sent it is not known");
	else if (info->oom_kills == 0)
		snprintf(buf, len,
		         "who sent it is not known: the OOM killer killed no process of its memory "
		         "cgroup %s while it ran",
		         info->cgroup);
	else
		snprintf(buf, len,
		         "who sent it is not known: the OOM killer's count could not be read, so "
		         "whether it was host memory cannot be told");
}

void death_describe(const struct trace_info *info, char *buf, size_t len)
{
	const char *program = info->program[0] ? info->program : "the program";
	char end[64], host[256], why[PATH_MAX + 512], size[32];

	buf[0] = '\0';
	ending(info, end, sizeof(end));
	death_describe_host(info, host, sizeof(host));
	switch (info->death) {
	case TRACE_DEATH_NOT_JUDGED:
		return;
	case TRACE_DEATH_NONE:
		snprintf(buf, len, "%s %s.%s", program, end, host);
		return;
	case TRACE_DEATH_HOST_OOM:
		oom_evidence(info, why, sizeof(why));
		snprintf(buf, len,
		         "Host memory: %s was killed by the kernel's OOM killer (SIGKILL): %s.%s",
		         program, why, host);
		return;
	case TRACE_DEATH_FAULT_SIGNAL:
		snprintf(buf, len, "%s crashed: it %s, a fault of its own.%s", program, end, host);
		return;
	case TRACE_DEATH_CUDA_ERROR:
		snprintf(buf, len,
		         "CUDA error: %s got %s from %s, a sticky error after which no CUDA call "
		         "can succeed, and then %s.",
		         program, info->cuda_error,
		         info->cuda_error_api[0] ? info->cuda_error_api : "a call", end);
		return;
	case TRACE_DEATH_GPU_OOM:
		ct_format_bytes((double)info->gpu_failed_bytes, size, sizeof(size));
		snprintf(buf, len, "GPU memory: an allocation of %s failed (%s), and then %s %s.%s",
		         size, info->gpu_verdict[0] ? info->gpu_verdict : "verdict unknown",
		         program, end, host);
		return;
	case TRACE_DEATH_ABORT:
		snprintf(buf, len,
		         "%s aborted itself (SIGABRT); the trace shows no CUDA error or "
		         "failed allocation before it.%s",
		         program, host);
		return;
	case TRACE_DEATH_JUPYTER_INTERRUPT:
		snprintf(buf, len, "Jupyter: the kernel %s, as an interrupt sends it.%s", end,
		         host);
		return;
	case TRACE_DEATH_JUPYTER_STOP:
		outside(info, why, sizeof(why));
		snprintf(buf, len,
		         "Jupyter: the kernel %s from outside, as a restart or shutdown "
		         "sends it; %s.%s",
		         end, why, host);
		return;
	case TRACE_DEATH_KILLED:
		outside(info, why, sizeof(why));
		snprintf(buf, len, "%s %s from outside; %s.%s", program, end, why, host);
		return;
	case TRACE_DEATH_UNKNOWN:
		snprintf(buf, len,
		         "%s %s; why is unknown: the trace shows no sticky CUDA error and no "
		         "failed allocation, and no signal ended it.%s",
		         program, end, host);
		return;
	}
}
