/* SPDX-License-Identifier: MIT */
/*
 * death.c - how a program ended, judged and worded once (death.h).
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "analyses/analysis.h"
#include "analyses/cuda-errors.h"
#include "analyses/fragmentation.h"
#include "analyses/framework.h"
#include "analyses/memory.h"
#include "common/document.h"
#include "common/format.h"
#include "death.h"

static const char *const names[] = {
	[CT_DEATH_NOT_JUDGED] = "",
	[CT_DEATH_NONE] = "none",
	[CT_DEATH_HOST_OOM] = "host-oom",
	[CT_DEATH_FAULT_SIGNAL] = "fault-signal",
	[CT_DEATH_CUDA_ERROR] = "cuda-error",
	[CT_DEATH_GPU_OOM] = "gpu-oom",
	[CT_DEATH_EXCEPTION] = "python-exception",
	[CT_DEATH_ABORT] = "abort",
	[CT_DEATH_JUPYTER_INTERRUPT] = "jupyter-interrupt",
	[CT_DEATH_JUPYTER_STOP] = "jupyter-stop",
	[CT_DEATH_KILLED] = "killed",
	[CT_DEATH_UNKNOWN] = "unknown",
	[CT_DEATH_FRAMEWORK_OOM] = "framework-oom",
};

const char *ct_death_name(enum ct_death death)
{
	return (size_t)death < G_N_ELEMENTS(names) ? names[death] : "";
}

enum ct_death ct_death_of_name(const char *word)
{
	for (size_t i = 1; word && i < G_N_ELEMENTS(names); i++)
		if (!strcmp(word, names[i]))
			return (enum ct_death)i;
	return CT_DEATH_NOT_JUDGED;
}

/* ------------------------------------------------------------ the facts */

/* KEY's number in OBJECT, NAN when absent or not a number. */
static double number(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = ct_node_get(object, key);

	return n ? ct_node_number(n) : NAN;
}

void ct_death_facts_from_report(const struct ct_node *root, int64_t pid, struct ct_death_facts *f)
{
	const struct ct_node *procs = ct_node_get(ct_node_get(root, "trace"), "processes");

	for (size_t i = 0; procs && i < ct_node_count(procs); i++) {
		const struct ct_node *p = ct_node_child(procs, i);
		const struct ct_node *n = ct_node_get(p, "process");

		if (number(p, "pid") == (double)pid && n && n->type == CT_NODE_STRING &&
		    n->value.str[0]) {
			f->program = n->value.str;
			break;
		}
	}
}

/* How a framework's pool began, from its figures (NULL: none). */
enum ct_pool_start ct_pool_start_of(const struct ct_framework_device *device)
{
	if (!device)
		return CT_POOL_UNKNOWN;
	return ct_framework_preallocated(device) ? CT_POOL_PREALLOCATED : CT_POOL_ON_DEMAND;
}

/* The last CUDA call of PID that failed, as the errors analysis (ERRORS, NULL: none) saw it. */
static void failed_call_of(const struct ct_cuda_errors_result *errors, int64_t pid,
                           struct ct_death_facts *f)
{
	for (guint i = 0; errors && errors->failed_calls && i < errors->failed_calls->len; i++) {
		const struct ct_cuda_failed_call *c =
		    &g_array_index(errors->failed_calls, struct ct_cuda_failed_call, i);

		if (c->pid != pid)
			continue;
		f->failed_known = true;
		f->failed_api = c->api[0] ? c->api : NULL;
		f->failed_error = c->error;
		f->failed_code = c->code;
		f->failed_site = c->site;
		f->failed_before_end_ns = c->before_end_ns;
		return;
	}
}

void ct_death_facts_from_results(const struct ct_result *results, size_t count, int64_t pid,
                                 struct ct_death_facts *f)
{
	const struct ct_memory_result *memory = ct_result_of(results, count, CT_ANALYSIS_MEMORY);
	const struct ct_fragmentation_result *frag =
	    ct_result_of(results, count, CT_ANALYSIS_FRAGMENTATION);

	f->framework_pool = ct_pool_start_of(ct_framework_device_of(
	    ct_result_of(results, count, CT_ANALYSIS_FRAMEWORK), pid, f->framework));
	failed_call_of(ct_result_of(results, count, CT_ANALYSIS_CUDA_ERRORS), pid, f);
	if (!memory && !frag)
		return;
	f->gpu_known = true;
	/* the failures the report lists */
	f->gpu_failures = frag ? frag->failures->len : 0;
	for (size_t i = f->gpu_failures; f->gpu_failed_bytes && i-- > 0;) {
		const struct ct_frag_failure *failure =
		    &g_array_index(frag->failures, struct ct_frag_failure, i);

		if (failure->requested_bytes == f->gpu_failed_bytes) {
			f->gpu_failed_total_bytes = failure->total_known ? failure->total_bytes : 0;
			break;
		}
	}
	f->gpu_peak_bytes = 0;
	for (guint i = 0; memory && i < memory->devices->len; i++) {
		int64_t peak =
		    g_array_index(memory->devices, struct ct_memory_device, i).peak_bytes;

		if (peak > 0 && (uint64_t)peak > f->gpu_peak_bytes)
			f->gpu_peak_bytes = (uint64_t)peak;
	}
}

/* ------------------------------------------------------------ the judgement */

static bool given(const char *s)
{
	return s && s[0];
}

static bool is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

/* The kernel's OOM killer killed it: a SIGKILL, and the cgroup's count or the kernel log. */
static bool host_oom(const struct ct_death_facts *f)
{
	return f->killed && f->signal == SIGKILL && (f->oom_logged == 1 || f->oom_kills > 0);
}

/*
 * It gave up by itself: a failure status, or an abort. Any other signal
 * (SIGKILL, SIGTERM, ...) was sent to it, whatever it met before: by
 * another process as a rule, but the trace cannot name the sender.
 */
static bool gave_up(const struct ct_death_facts *f)
{
	return !f->killed || f->signal == SIGABRT;
}

enum ct_death ct_death_judge(const struct ct_death_facts *f)
{
	bool sticky = given(f->cuda_error), gpu_oom = f->gpu_failed_bytes != 0;

	if (!f->killed && f->status == 0)
		return CT_DEATH_NONE;
	if (host_oom(f))
		return CT_DEATH_HOST_OOM;
	if (f->killed && is_fault(f->signal))
		return CT_DEATH_FAULT_SIGNAL;
	/* Of a sticky error and a failed allocation, the later one is what it last met. */
	if (gave_up(f) && sticky && (!gpu_oom || f->cuda_error_ns >= f->gpu_failed_ns))
		return CT_DEATH_CUDA_ERROR;
	if (gave_up(f) && gpu_oom)
		return CT_DEATH_GPU_OOM;
	/* what it said last, once the trace has nothing to say */
	if (!f->killed && given(f->framework))
		return CT_DEATH_FRAMEWORK_OOM;
	if (!f->killed && given(f->exception))
		return CT_DEATH_EXCEPTION;
	if (f->killed && f->signal == SIGABRT)
		return CT_DEATH_ABORT;
	if (f->killed && f->jupyter && f->signal == SIGINT)
		return CT_DEATH_JUPYTER_INTERRUPT;
	/*
	 * A server that restarts or shuts a kernel down signals its process
	 * group: a SIGKILL that way kills record too, which then judges
	 * nothing; one that reached the kernel alone came from elsewhere.
	 */
	if (f->killed && f->jupyter && (f->signal == SIGTERM || f->signal == SIGHUP))
		return CT_DEATH_JUPYTER_STOP;
	if (f->killed)
		return CT_DEATH_KILLED;
	return CT_DEATH_UNKNOWN;
}

/* ---------------------------------------------------------------- the words */

/* Whether VERDICT's advice (ct_framework_oom_advice) is one of a device full. */
static bool device_full(const char *verdict)
{
	return g_strcmp0(verdict, "too_large") && g_strcmp0(verdict, "limit_reached") &&
	       g_strcmp0(verdict, "fragmented");
}

/* The advice of a device full, for FRAMEWORK whose pool began as POOL; OTHERS: ", or free
 * the device of other processes", or "" when NVML listed none on it. */
static char *full_advice(const char *framework, enum ct_pool_start pool, const char *others)
{
	if (!g_strcmp0(framework, "pytorch"))
		return g_strdup_printf("hold less at the peak (a smaller batch, activation "
		                       "checkpointing, `del` what is no longer needed)%s",
		                       others);
	if (!g_strcmp0(framework, "tensorflow"))
		return g_strdup_printf(
		    "hold less at the peak (a smaller batch, mixed precision)%s%s", others,
		    *others ? "; TensorFlow takes the whole device at its start unless "
		              "TF_FORCE_GPU_ALLOW_GROWTH=true, which other processes on it need"
		            : "");
	/* JAX's documentation, "GPU memory allocation" */
	if (!g_strcmp0(framework, "jax") && pool == CT_POOL_ON_DEMAND)
		return g_strdup_printf("hold less at the peak (a smaller batch, jax.checkpoint)%s; "
		                       "JAX already allocates as needed here, which leaves its "
		                       "memory in more pieces than a preallocated pool",
		                       others);
	if (!g_strcmp0(framework, "jax") && pool == CT_POOL_PREALLOCATED)
		return g_strdup(
		    "hold less at the peak (a smaller batch, jax.checkpoint); JAX took its "
		    "pool at its start, 75 % of the device unless told: "
		    "XLA_PYTHON_CLIENT_MEM_FRACTION=.9 (say) lets it take more, when no "
		    "other process needs the rest");
	if (!g_strcmp0(framework, "jax"))
		return g_strdup(
		    "hold less at the peak (a smaller batch, jax.checkpoint); unless "
		    "XLA_PYTHON_CLIENT_PREALLOCATE=false, JAX's pool takes 75 % of the "
		    "device at its start: XLA_PYTHON_CLIENT_MEM_FRACTION=.9 (say) lets it "
		    "take more");
	return g_strdup_printf("hold less at the peak (a smaller batch)%s", others);
}

char *ct_framework_oom_advice(const char *framework, const char *verdict, enum ct_pool_start pool,
                              bool alone)
{
	if (device_full(verdict))
		return full_advice(framework, pool,
		                   alone ? "" : ", or free the device of other processes");
	if (!g_strcmp0(verdict, "too_large"))
		return g_strdup(
		    "allocate less at once: a smaller batch or model, or split the tensor; "
		    "no setting makes the device larger");
	/* JAX's documentation, "GPU memory allocation"; torch.cuda's */
	if (!g_strcmp0(verdict, "limit_reached") && !g_strcmp0(framework, "jax"))
		return g_strdup(
		    "hold less at the peak (a smaller batch, jax.checkpoint), or let JAX "
		    "use more of the device: XLA_PYTHON_CLIENT_MEM_FRACTION (.75 unless "
		    "set; .9, say), when no other process needs the rest");
	if (!g_strcmp0(verdict, "limit_reached"))
		return g_strdup(
		    "hold less at the peak (a smaller batch), or give the process a larger "
		    "share of the device (torch.cuda.set_per_process_memory_fraction)");
	if (!g_strcmp0(framework, "pytorch"))
		return g_strdup("set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, which lets "
		                "PyTorch's segments grow instead of leaving unusable pieces; or "
		                "allocate the large tensors first");
	if (!g_strcmp0(framework, "tensorflow"))
		return g_strdup(
		    "TF_GPU_ALLOCATOR=cuda_malloc_async leaves the pool to the driver, "
		    "which reuses freed memory better; or allocate the large buffers first");
	return g_strdup("allocate the large buffers first, before the pool is cut into pieces");
}

const char *ct_verdict_words(const char *verdict)
{
	if (!g_strcmp0(verdict, "out_of_memory"))
		return "out of memory";
	if (!g_strcmp0(verdict, "fragmented"))
		return "memory fragmented";
	if (!g_strcmp0(verdict, "held_elsewhere"))
		return "memory held by other processes";
	if (!g_strcmp0(verdict, "pool_cached"))
		return "memory kept cached by its own pools";
	if (!g_strcmp0(verdict, "cuda_error"))
		return "a CUDA error, not a lack of memory";
	return "cause unknown";
}

const char *ct_verdict_advice(const char *verdict)
{
	if (!g_strcmp0(verdict, "out_of_memory"))
		return "the device was full: free what is no longer needed before this point, "
		       "or need less here (smaller batches, lower precision), or use a device "
		       "with more memory";
	if (!g_strcmp0(verdict, "fragmented"))
		return "enough memory was free, but in pieces too small: allocate the large "
		       "buffers first and reuse them, or allocate from a pool "
		       "(cudaMallocAsync); PyTorch: PYTORCH_CUDA_ALLOC_CONF="
		       "expandable_segments:True";
	if (!g_strcmp0(verdict, "held_elsewhere"))
		return "other processes held the memory this one needed: see which "
		       "(nvidia-smi), stop them or run on another device (CUDA_VISIBLE_DEVICES)";
	if (!g_strcmp0(verdict, "pool_cached"))
		return "this process's memory pools kept freed memory reserved: release it before "
		       "this point (cudaMemPoolTrimTo, or a lower cudaMemPoolAttrReleaseThreshold; "
		       "PyTorch: torch.cuda.empty_cache()), or allocate this from the same pool "
		       "(cudaMallocAsync), which reuses what it keeps";
	if (!g_strcmp0(verdict, "cuda_error"))
		return "look up the error the call returned: freeing memory will not help; an "
		       "argument the call refuses, or an earlier error that every later call "
		       "returns (a kernel's fault), is the cause";
	return "the trace cannot tell why: record the program from its start, so that the "
	       "trace sees every allocation";
}

const char *ct_failure_advice(const char *verdict, uint64_t requested, uint64_t total,
                              bool holders_named)
{
	if (!g_strcmp0(verdict, "out_of_memory") && total && requested > total)
		return "the request alone is larger than the whole device, so no memory freed "
		       "would make room for it: ask for less at once (smaller batches or chunks, "
		       "lower precision), use a device with more memory, or check how its size is "
		       "computed";
	if (!g_strcmp0(verdict, "held_elsewhere") && holders_named)
		return "other processes held the memory this one needed (those NVML listed): "
		       "stop them or have them hold less, or run on another device "
		       "(CUDA_VISIBLE_DEVICES)";
	return ct_verdict_advice(verdict);
}

static const char *program_of(const struct ct_death_facts *f)
{
	return given(f->program) ? f->program : "the program";
}

static const char *bytes(uint64_t value, char *buf, size_t len)
{
	return ct_format_bytes((double)value, buf, len);
}

/*
 * How it ended, as the status says: "was killed by SIGKILL", "exited with
 * status 1", or "died of an uncaught KeyError at train.py:12 in step
 * (exit status 1)" when Python said why.
 */
static char *ending(const struct ct_death_facts *f)
{
	const char *abbrev = sigabbrev_np(f->signal);

	if (f->killed)
		return g_strdup_printf("was killed by SIG%s", abbrev ? abbrev : "?");
	if (given(f->exception) && f->status != 0)
		return g_strdup_printf("died of an uncaught %s%s%s (exit status %d)", f->exception,
		                       given(f->exception_site) ? " at " : "",
		                       given(f->exception_site) ? f->exception_site : "",
		                       f->status);
	return g_strdup_printf("exited with status %d", f->status);
}

/* " of 2.00 GiB, its cgroup's limit" (WORD "of"), "" when the limit is unknown. */
static void limit_text(const struct ct_death_facts *f, const char *word, char *buf, size_t len)
{
	char limit[32];

	buf[0] = '\0';
	if (f->limit_bytes)
		snprintf(buf, len, " %s %s, %s", word, bytes(f->limit_bytes, limit, sizeof(limit)),
		         f->limit_cgroup ? "its cgroup's limit" : "the machine's memory");
}

/* "its resident host memory was last seen at 1.90 GiB (peak 2.00 GiB) of ...", NULL if unknown. */
static char *host_clause(const struct ct_death_facts *f)
{
	char rss[32], peak[32], limit[96];

	if (!f->rss_last_bytes)
		return NULL;
	limit_text(f, "of", limit, sizeof(limit));
	return g_strdup_printf("its resident host memory was last seen at %s (peak %s)%s",
	                       bytes(f->rss_last_bytes, rss, sizeof(rss)),
	                       bytes(f->rss_peak_bytes, peak, sizeof(peak)), limit);
}

char *ct_death_host(const struct ct_death_facts *f)
{
	char *clause = host_clause(f), *text;

	if (!clause)
		return NULL;
	clause[0] = g_ascii_toupper(clause[0]);
	text = g_strdup_printf("%s.", clause);
	g_free(clause);
	return text;
}

/* TEXT, and "; " and MORE after it when there is MORE (both freed). */
static char *joined(char *text, char *more)
{
	char *both;

	if (!more)
		return text;
	if (!text)
		return more;
	both = g_strdup_printf("%s; %s", text, more);
	g_free(text);
	g_free(more);
	return both;
}

/* What the OOM kill rests on, and what it says of GPU memory. */
static char *host_oom_explanation(const struct ct_death_facts *f)
{
	GString *text = g_string_new(NULL);
	char peak[32];

	if (f->oom_kills > 0) {
		g_string_append_printf(text,
		                       "the OOM killer killed %d process%s of its memory cgroup "
		                       "%s while it ran, and it died of SIGKILL",
		                       f->oom_kills, f->oom_kills == 1 ? "" : "es",
		                       given(f->cgroup) ? f->cgroup : "");
		if (f->oom_logged == 1)
			g_string_append(text, "; the kernel log names it");
		else if (f->oom_logged < 0)
			g_string_append(text,
			                "; the kernel log, unreadable, cannot say it was this "
			                "process");
	} else {
		g_string_append(text, "the kernel log names it as killed by the OOM killer");
	}
	if (f->gpu_known && f->gpu_failures)
		g_string_append_printf(text, "; %" PRIu64 " GPU allocation%s failed too, see below",
		                       f->gpu_failures, f->gpu_failures == 1 ? "" : "s");
	else if (f->gpu_known && f->gpu_peak_bytes)
		g_string_append_printf(text,
		                       "; GPU memory was not the cause: no GPU allocation failed "
		                       "(its peak: %s)",
		                       bytes(f->gpu_peak_bytes, peak, sizeof(peak)));
	else if (f->gpu_known)
		g_string_append(text, "; GPU memory was not the cause: no GPU allocation failed");
	return g_string_free(text, FALSE);
}

/*
 * What its resident peak counts beside its own memory, when its own is
 * known: the pages of what it maps, which its cgroup may not be charged
 * for, so that a resident set above the limit is not read as impossible.
 */
static char *resident_clause(const struct ct_death_facts *f)
{
	char peak[32];

	if (!f->anon_peak_bytes || !f->rss_peak_bytes)
		return NULL;
	return g_strdup_printf(
	    "its resident set peaked at %s: that counts the files and shared memory it maps "
	    "(its libraries, the tracer's buffers)%s",
	    bytes(f->rss_peak_bytes, peak, sizeof(peak)),
	    f->limit_cgroup ? ", which its cgroup is charged for only where it brought them in"
	                    : "");
}

/*
 * Host memory ran out: what it held of its own (anonymous memory, what
 * its cgroup's limit holds it to) against the limit; a record without
 * that figure has the resident peak alone, which counts the files it
 * maps and may pass the limit.
 */
static void word_host_oom(const struct ct_death_facts *f, struct ct_death_words *w)
{
	char peak[32], limit[96];

	limit_text(f, f->anon_peak_bytes ? "of" : "against", limit, sizeof(limit));
	if (f->anon_peak_bytes)
		w->summary = g_strdup_printf(
		    "%s was killed by the kernel's OOM killer: host memory "
		    "ran out (the memory it allocated reached at least %s%s)",
		    program_of(f), bytes(f->anon_peak_bytes, peak, sizeof(peak)), limit);
	else if (f->rss_peak_bytes)
		w->summary = g_strdup_printf(
		    "%s was killed by the kernel's OOM killer: host memory "
		    "ran out (resident peak at least %s, the files it maps included%s%s)",
		    program_of(f), bytes(f->rss_peak_bytes, peak, sizeof(peak)),
		    limit[0] ? "," : "", limit);
	else
		w->summary = g_strdup_printf(
		    "%s was killed by the kernel's OOM killer: host memory ran out", program_of(f));
	w->explanation = joined(host_oom_explanation(f), resident_clause(f));
	w->advice = g_strdup_printf(
	    "%s, or need less host memory: fewer data loader workers (PyTorch DataLoader "
	    "num_workers) and less prefetching, fewer or smaller pinned buffers, data read in "
	    "pieces or memory-mapped rather than loaded whole",
	    f->limit_bytes && f->limit_cgroup
	        ? "raise the memory limit of its cgroup or container (docker run --memory, "
	          "Kubernetes resources.limits.memory, systemd MemoryMax=)"
	        : "run it on a machine with more memory");
	if (f->anon_peak_bytes || f->rss_peak_bytes) {
		w->certainty = "lower_bound";
		w->caveat = g_strdup("cudatrace record looks at its memory every 100 ms: what it "
		                     "held when it was killed may be more");
	}
}

/* What to do about fault SIGNAL. */
static const char *fault_advice(int signal)
{
	if (signal == SIGBUS)
		return "a file mapped into memory shrank, or a shared memory file system is full: "
		       "PyTorch DataLoader workers pass batches through /dev/shm, make it larger "
		       "(docker run --shm-size) or use fewer workers; else run it under gdb to "
		       "see where";
	if (signal == SIGILL)
		return "an instruction this CPU does not have: a binary or library built for "
		       "another CPU (-march=native elsewhere); run it under gdb to see which";
	if (signal == SIGFPE)
		return "an integer division by zero in host code: run it under gdb to see where";
	return "an invalid memory access in host code (a native extension, a buffer used "
	       "after it was freed): run it under gdb, or allow a core dump (ulimit -c "
	       "unlimited); Python: python -X faulthandler prints each thread's stack";
}

/* Who sent the signal that killed it, as far as is known. */
static char *sender(const struct ct_death_facts *f)
{
	if (f->signal != SIGKILL)
		return g_strdup("who sent it is not known");
	if (f->oom_kills == 0)
		return g_strdup_printf("who sent it is not known: the OOM killer killed no process "
		                       "of its memory cgroup %s while it ran",
		                       given(f->cgroup) ? f->cgroup : "");
	if (f->oom_logged == 0)
		return g_strdup("who sent it is not known: the OOM killer's count could not be "
		                "read, and the kernel log does not name it as killed by the OOM "
		                "killer");
	return g_strdup("who sent it is not known: the OOM killer's count could not be read, so "
	                "whether it was host memory cannot be told (dmesg may say)");
}

/*
 * What it met before a signal sent to it: a failed allocation or a
 * sticky error is a fact of its own, not what ended it.
 */
static char *met_before(const struct ct_death_facts *f)
{
	char size[32];

	if (f->gpu_failed_bytes)
		return g_strdup_printf(
		    "a GPU allocation of %s had failed before it (%s), but a program that gives up "
		    "on a failure exits or aborts",
		    bytes(f->gpu_failed_bytes, size, sizeof(size)),
		    ct_verdict_words(f->gpu_verdict));
	if (given(f->cuda_error))
		return g_strdup_printf(
		    "it had got %s from %s before it, a sticky CUDA error, but a program that "
		    "gives up on an error exits or aborts",
		    f->cuda_error, given(f->cuda_error_api) ? f->cuda_error_api : "a call");
	return NULL;
}

/* What is known of a kill: its sender, what came before it, the host memory. */
static char *outside_explanation(const struct ct_death_facts *f)
{
	return joined(joined(sender(f), met_before(f)), host_clause(f));
}

static void word_sticky(const struct ct_death_facts *f, const char *end, struct ct_death_words *w)
{
	w->summary = g_strdup_printf(
	    "%s got %s from %s, a sticky CUDA error: no CUDA call can succeed after it; then "
	    "it %s",
	    program_of(f), given(f->cuda_error) ? f->cuda_error : "an error",
	    given(f->cuda_error_api) ? f->cuda_error_api : "a call", end);
	w->advice = g_strdup("find the kernel at fault: run it with CUDA_LAUNCH_BLOCKING=1, "
	                     "or under compute-sanitizer (memcheck)");
}

static void word_gpu_oom(const struct ct_death_facts *f, const char *end, struct ct_death_words *w)
{
	char size[32];

	w->summary =
	    g_strdup_printf("a GPU allocation of %s failed (%s), and %s did not survive it: it %s",
	                    bytes(f->gpu_failed_bytes, size, sizeof(size)),
	                    ct_verdict_words(f->gpu_verdict), program_of(f), end);
	w->advice = g_strdup(ct_failure_advice(f->gpu_verdict, f->gpu_failed_bytes,
	                                       f->gpu_failed_total_bytes, false));
}

/* Quoted at most: a message can hold a whole tensor. */
#define QUOTE_MAX 300

char *ct_death_quote(const char *intro, const char *text)
{
	glong length = g_utf8_strlen(text ? text : "", -1);
	bool long_text = length > QUOTE_MAX;
	/* g_utf8_substring copies as many bytes as END characters take: never past the text */
	char *cut = g_utf8_substring(text ? text : "", 0, long_text ? QUOTE_MAX : length);
	char *quote = g_strdup_printf("%s: \"%s%s\"", intro, cut, long_text ? "..." : "");

	g_free(cut);
	return quote;
}

static void word_framework_oom(const struct ct_death_facts *f, const char *end,
                               struct ct_death_words *w)
{
	const char *name = ct_framework_name(f->framework);
	char size[32];

	if (f->framework_requested_bytes)
		w->summary = g_strdup_printf(
		    "%s ran out of GPU memory (it tried to allocate %s), and %s did not survive "
		    "it: it %s",
		    name, bytes(f->framework_requested_bytes, size, sizeof(size)), program_of(f),
		    end);
	else
		w->summary = g_strdup_printf("%s ran out of GPU memory, and %s did not survive it: "
		                             "it %s",
		                             name, program_of(f), end);
	w->explanation =
	    g_strdup_printf("its last lines on standard error say so; the trace "
	                    "shows no allocation of its own refused for lack of memory: "
	                    "%s's allocator "
	                    "refused it from what it held, or the trace began late",
	                    name);
	/* who else held the device is not known here */
	w->advice =
	    ct_framework_oom_advice(f->framework, "out_of_memory", f->framework_pool, false);
}

/*
 * A failed call this long before the process's last event may have been
 * what it gave up on; one earlier, it went on after it (a library that
 * probes what the driver offers, an error handled).
 */
#define FAILED_NEAR_END_NS (5 * 1000000000LL)

/* Whether the exception's message names the error of the last failed call. */
static bool message_names_failure(const struct ct_death_facts *f)
{
	return f->failed_known && f->failed_error && given(f->exception_message) &&
	       strstr(f->exception_message, f->failed_error);
}

/* Whether the last failed call is one to name in how the program ended. */
static bool failure_told(const struct ct_death_facts *f)
{
	return f->failed_known &&
	       (message_names_failure(f) || f->failed_before_end_ns <= FAILED_NEAR_END_NS);
}

/*
 * "; the last CUDA call that failed: cuLaunchKernelEx returned
 * CUDA_ERROR_INVALID_VALUE at train.py:14 in <module>" (g_free); "" when
 * none failed near the end. When the exception's message names that
 * error, it is said.
 */
static char *failed_call_text(const struct ct_death_facts *f)
{
	char code[32];
	const char *error = f->failed_error;
	bool named = message_names_failure(f);

	if (!failure_told(f))
		return g_strdup("");
	if (!error) {
		snprintf(code, sizeof(code), "error %d", (int)f->failed_code);
		error = code;
	}
	return g_strdup_printf("; %s: %s returned %s%s%s",
	                       named ? "its message names the error of the last CUDA call that "
	                               "failed"
	                             : "the last CUDA call that failed",
	                       given(f->failed_api) ? f->failed_api : "a CUDA call", error,
	                       given(f->failed_site) ? " at " : "",
	                       given(f->failed_site) ? f->failed_site : "");
}

/* What to do when the trace knows no more than ADVICE, or where a call failed. */
static char *failed_call_advice(const struct ct_death_facts *f, const char *advice)
{
	if (!failure_told(f) || !given(f->failed_site))
		return g_strdup(advice);
	return g_strdup_printf("start at %s, where %s failed; %s", f->failed_site,
	                       given(f->failed_api) ? f->failed_api : "a CUDA call", advice);
}

static void word_other(enum ct_death death, const struct ct_death_facts *f, const char *end,
                       struct ct_death_words *w)
{
	char *failed = failed_call_text(f);

	const char *program = program_of(f);

	switch (death) {
	case CT_DEATH_FAULT_SIGNAL:
		w->summary = g_strdup_printf("%s crashed: it %s, a fault of its own", program, end);
		w->advice = g_strdup(fault_advice(f->signal));
		break;
	case CT_DEATH_ABORT:
		w->summary = g_strdup_printf("%s aborted itself (SIGABRT): a failed assertion, an "
		                             "uncaught C++ exception or a library that gave up",
		                             program);
		w->explanation =
		    g_strdup_printf("the trace shows no %sCUDA error and no allocation "
		                    "refused for lack of memory before it%s",
		                    *failed ? "sticky " : "", failed);
		w->advice = failed_call_advice(
		    f, "its standard error says why, just before it ended; to see where, run it "
		       "under gdb or allow a core dump (ulimit -c unlimited)");
		break;
	case CT_DEATH_JUPYTER_INTERRUPT:
		w->summary = g_strdup_printf("Jupyter: the kernel %s, as an interrupt sends it, "
		                             "and ended",
		                             end);
		w->explanation = g_strdup("a kernel that dies of an interrupt rather than raising "
		                          "KeyboardInterrupt was in native code that does not "
		                          "handle it");
		w->advice =
		    g_strdup("the cell it ran did not finish: restart the kernel and run it "
		             "again");
		break;
	case CT_DEATH_JUPYTER_STOP:
		w->summary = g_strdup_printf("Jupyter: the kernel %s, as a restart or "
		                             "shutdown sends it",
		                             end);
		w->explanation = outside_explanation(f);
		w->advice = g_strdup("if nobody restarted it, the Jupyter server's log says who "
		                     "did: a shutdown, or idle culling (cull_idle_timeout)");
		break;
	case CT_DEATH_EXCEPTION: {
		/* its message quoted: it may end in its own period, or hold a tensor */
		char *said = given(f->exception_message)
		                 ? ct_death_quote("it said", f->exception_message)
		                 : NULL;

		w->summary = g_strdup_printf("%s %s", program, end);
		w->explanation =
		    g_strdup_printf("%s%sthe trace shows no sticky CUDA error and no "
		                    "allocation refused for lack of memory before it%s",
		                    said ? said : "", said ? "; " : "", failed);
		g_free(said);
		w->advice = failed_call_advice(f, "see what raised it there: the traceback Python "
		                                  "printed on its standard error shows the calls "
		                                  "that led to it");
		break;
	}
	case CT_DEATH_KILLED:
		w->summary = g_strdup_printf("%s %s", program, end);
		w->explanation = outside_explanation(f);
		w->advice = g_strdup("find the sender: a job scheduler's time or memory limit "
		                     "(Slurm, Kubernetes), a timeout, a person; the system log "
		                     "(journalctl) may say");
		break;
	default:
		w->summary = g_strdup_printf("%s %s; why is unknown", program, end);
		w->explanation = g_strdup_printf(
		    "the trace shows no sticky CUDA error and no allocation refused for lack of "
		    "memory, and no signal "
		    "ended it%s%s",
		    f->failures_told ? "; what went wrong before it, above, may be why" : "",
		    failed);
		w->advice = failed_call_advice(f, "its own output (its standard error, its last "
		                                  "lines) says why it gave up");
		break;
	}
	g_free(failed);
}

void ct_death_word(enum ct_death death, const struct ct_death_facts *f, struct ct_death_words *w)
{
	char *end = ending(f);

	*w = (struct ct_death_words){ .certainty = "exact" };
	w->then = g_strdup_printf("then %s %s", program_of(f), end);
	switch (death) {
	case CT_DEATH_NOT_JUDGED:
	case CT_DEATH_NONE:
		w->summary = g_strdup_printf("%s %s", program_of(f), end);
		w->explanation = host_clause(f);
		break;
	case CT_DEATH_HOST_OOM:
		word_host_oom(f, w);
		break;
	case CT_DEATH_CUDA_ERROR:
		word_sticky(f, end, w);
		break;
	case CT_DEATH_GPU_OOM:
		word_gpu_oom(f, end, w);
		break;
	case CT_DEATH_FRAMEWORK_OOM:
		word_framework_oom(f, end, w);
		break;
	default:
		word_other(death, f, end, w);
		break;
	}
	g_free(end);
}

void ct_death_words_clear(struct ct_death_words *w)
{
	g_free(w->summary);
	g_free(w->explanation);
	g_free(w->advice);
	g_free(w->caveat);
	g_free(w->then);
	*w = (struct ct_death_words){ 0 };
}

/*
 * S as a sentence of TEXT, a full stop after it; with CAPITAL, its first
 * letter a capital (a summary may start with a program's name, kept as is).
 */
static void sentence(GString *text, const char *s, bool capital)
{
	if (!given(s))
		return;
	if (text->len)
		g_string_append_c(text, ' ');
	g_string_append_c(text, capital ? g_ascii_toupper(s[0]) : s[0]);
	g_string_append(text, s + 1);
	if (s[strlen(s) - 1] != '.')
		g_string_append_c(text, '.');
}

char *ct_death_text(const struct ct_death_words *w)
{
	GString *text = g_string_new(NULL);

	sentence(text, w->summary, false);
	sentence(text, w->explanation, true);
	return g_string_free(text, FALSE);
}
