/* SPDX-License-Identifier: MIT */
/*
 * test-death.c - how a program ended, judged and worded by one function
 * (findings/death.h) for record and the report alike: each cause from the
 * facts that make it, in the words a user reads; a kill by signal
 * after a failed allocation or a sticky error is said as such, the
 * failure a fact of its own, unless the OOM killer's evidence says host
 * memory; the report's facts (the traced process's name, GPU memory)
 * added to record's; and what process_end shows of a clean exit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "analyses/analysis.h"
#include "analyses/fragmentation.h"
#include "analyses/memory.h"
#include "common/document.h"
#include "findings/death.h"
#include "report/table-format.h"

#define MIB (UINT64_C(1) << 20)

#define HOST                                                                                     \
	"its resident host memory was last seen at 150.00 MiB (peak 155.00 MiB) of 160.00 MiB, " \
	"its cgroup's limit"

/* train, in cgroup job with a limit of 160 MiB, that the OOM killer spared: it exited with 1. */
static struct ct_death_facts base(void)
{
	return (struct ct_death_facts){
		.program = "train",
		.status = 1,
		.oom_kills = 0,
		.oom_logged = -1,
		.cgroup = "/sys/fs/cgroup/job",
		.rss_last_bytes = 150 * MIB,
		.rss_peak_bytes = 155 * MIB,
		.limit_bytes = 160 * MIB,
		.limit_cgroup = true,
	};
}

static void kill_by(struct ct_death_facts *f, int signal)
{
	f->killed = true;
	f->status = 0;
	f->signal = signal;
}

static void failed_alloc(struct ct_death_facts *f)
{
	f->gpu_failed_bytes = 64 * MIB;
	f->gpu_verdict = "out_of_memory";
	f->gpu_failed_ns = 2000;
}

static void sticky(struct ct_death_facts *f)
{
	f->cuda_error = "cudaErrorIllegalAddress";
	f->cuda_error_api = "cudaStreamSynchronize";
	f->cuda_error_ns = 1000;
}

/* F judged as DEATH, worded SUMMARY and EXPLANATION (NULL: none). */
static void check(const struct ct_death_facts *f, enum ct_death death, const char *summary,
                  const char *explanation)
{
	struct ct_death_words w;

	assert_string_equal(ct_death_name(ct_death_judge(f)), ct_death_name(death));
	ct_death_word(death, f, &w);
	assert_string_equal(w.summary, summary);
	if (explanation)
		assert_string_equal(w.explanation, explanation);
	else
		assert_null(w.explanation);
	assert_true(death == CT_DEATH_NONE || (w.advice && w.advice[0]));
	ct_death_words_clear(&w);
}

/* The advice for F's death holds WORDS. */
static void check_advice(const struct ct_death_facts *f, const char *words)
{
	struct ct_death_words w;

	ct_death_word(ct_death_judge(f), f, &w);
	assert_non_null(strstr(w.advice, words));
	ct_death_words_clear(&w);
}

static void test_names(void **unused)
{
	(void)unused;
	for (int d = CT_DEATH_NONE; d <= CT_DEATH_FRAMEWORK_OOM; d++)
		assert_int_equal(ct_death_of_name(ct_death_name((enum ct_death)d)), d);
	assert_string_equal(ct_death_name(CT_DEATH_NOT_JUDGED), "");
	assert_int_equal(ct_death_of_name("drowned"), CT_DEATH_NOT_JUDGED);
	assert_int_equal(ct_death_of_name(NULL), CT_DEATH_NOT_JUDGED);
}

static void test_clean_exit(void **unused)
{
	struct ct_death_facts f = base();
	char *host;

	(void)unused;
	f.status = 0;
	check(&f, CT_DEATH_NONE, "train exited with status 0", HOST);
	/* a clean exit after a failed allocation it survived is still one */
	failed_alloc(&f);
	check(&f, CT_DEATH_NONE, "train exited with status 0", HOST);
	host = ct_death_host(&f);
	assert_string_equal(host, "Its resident host memory was last seen at 150.00 MiB (peak "
	                          "155.00 MiB) of 160.00 MiB, its cgroup's limit.");
	g_free(host);
	f.rss_last_bytes = 0;
	assert_null(ct_death_host(&f));
}

/*
 * Host memory ran out: what it allocated against the limit; its resident
 * set, which counts the files it maps, beside it (above a cgroup's limit
 * it is not what the limit held); a record without the first says the
 * second is so.
 */
static void test_host_oom(void **unused)
{
	struct ct_death_facts f = base();
	struct ct_death_words w;

	(void)unused;
	kill_by(&f, SIGKILL);
	f.oom_kills = 1;
	f.oom_logged = 1;
	f.gpu_known = true;
	f.gpu_peak_bytes = 512 * MIB;
	f.anon_peak_bytes = 150 * MIB;
	f.rss_peak_bytes = 190 * MIB;
	check(&f, CT_DEATH_HOST_OOM,
	      "train was killed by the kernel's OOM killer: host memory ran out (the memory it "
	      "allocated reached at least 150.00 MiB of 160.00 MiB, its cgroup's limit)",
	      "the OOM killer killed 1 process of its memory cgroup /sys/fs/cgroup/job while it "
	      "ran, and it died of SIGKILL; the kernel log names it; GPU memory was not the "
	      "cause: no GPU allocation failed (its peak: 512.00 MiB); its resident set peaked "
	      "at 190.00 MiB: that counts the files and shared memory it maps (its libraries, the "
	      "tracer's buffers), which its cgroup is charged for only where it brought them in");
	check_advice(&f, "raise the memory limit of its cgroup");
	ct_death_word(CT_DEATH_HOST_OOM, &f, &w);
	assert_string_equal(w.certainty, "lower_bound");
	assert_non_null(strstr(w.caveat, "every 100 ms"));
	ct_death_words_clear(&w);
	/* the kernel log alone, unreadable count; a failed allocation told apart */
	f.oom_kills = -1;
	f.limit_cgroup = false;
	f.gpu_failures = 2;
	failed_alloc(&f);
	check(&f, CT_DEATH_HOST_OOM,
	      "train was killed by the kernel's OOM killer: host memory ran out (the memory it "
	      "allocated reached at least 150.00 MiB of 160.00 MiB, the machine's memory)",
	      "the kernel log names it as killed by the OOM killer; 2 GPU allocations failed "
	      "too, see below; its resident set peaked at 190.00 MiB: that counts the files and "
	      "shared memory it maps (its libraries, the tracer's buffers)");
	check_advice(&f, "run it on a machine with more memory");
	/* the count, and a kernel log that could not be read; a record of the resident set alone */
	f.oom_kills = 3;
	f.oom_logged = -1;
	f.gpu_known = false;
	f.anon_peak_bytes = 0;
	f.limit_cgroup = true;
	check(&f, CT_DEATH_HOST_OOM,
	      "train was killed by the kernel's OOM killer: host memory ran out (resident peak at "
	      "least 190.00 MiB, the files it maps included, against 160.00 MiB, its cgroup's "
	      "limit)",
	      "the OOM killer killed 3 processes of its memory cgroup /sys/fs/cgroup/job while it "
	      "ran, and it died of SIGKILL; the kernel log, unreadable, cannot say it was this "
	      "process");
	ct_death_word(CT_DEATH_HOST_OOM, &f, &w);
	assert_string_equal(w.certainty, "lower_bound");
	ct_death_words_clear(&w);
}

static void test_faults(void **unused)
{
	struct ct_death_facts f = base();

	(void)unused;
	kill_by(&f, SIGSEGV);
	/* a fault is its own, whatever came before */
	failed_alloc(&f);
	sticky(&f);
	check(&f, CT_DEATH_FAULT_SIGNAL,
	      "train crashed: it was killed by SIGSEGV, a fault of its own", NULL);
	check_advice(&f, "python -X faulthandler");
	kill_by(&f, SIGBUS);
	check_advice(&f, "/dev/shm");
	kill_by(&f, SIGILL);
	check_advice(&f, "-march=native");
	kill_by(&f, SIGFPE);
	check_advice(&f, "division by zero");
}

static void test_gave_up(void **unused)
{
	struct ct_death_facts f = base();
	struct ct_death_words w;

	(void)unused;
	sticky(&f);
	check(&f, CT_DEATH_CUDA_ERROR,
	      "train got cudaErrorIllegalAddress from cudaStreamSynchronize, a sticky CUDA error: "
	      "no CUDA call can succeed after it; then it exited with status 1",
	      NULL);
	check_advice(&f, "CUDA_LAUNCH_BLOCKING=1");
	/* the later of a sticky error and a failed allocation is what it last met */
	failed_alloc(&f);
	check(&f, CT_DEATH_GPU_OOM,
	      "a GPU allocation of 64.00 MiB failed (out of memory), and train did not survive "
	      "it: it exited with status 1",
	      NULL);
	check_advice(&f, "the device was full");
	/* more than the whole device: no memory freed would have made room */
	f.gpu_failed_total_bytes = 32 * MIB;
	check_advice(&f, "larger than the whole device");
	f.gpu_failed_total_bytes = 0;
	ct_death_word(CT_DEATH_GPU_OOM, &f, &w);
	assert_string_equal(w.then, "then train exited with status 1");
	ct_death_words_clear(&w);
	f.cuda_error_ns = 3000;
	assert_int_equal(ct_death_judge(&f), CT_DEATH_CUDA_ERROR);
	/* an abort after a failure is how it gave up on it */
	kill_by(&f, SIGABRT);
	f.cuda_error = NULL;
	f.gpu_verdict = "fragmented";
	check(&f, CT_DEATH_GPU_OOM,
	      "a GPU allocation of 64.00 MiB failed (memory fragmented), and train did not "
	      "survive it: it was killed by SIGABRT",
	      NULL);
	check_advice(&f, "expandable_segments:True");
	f.gpu_failed_bytes = 0;
	check(
	    &f, CT_DEATH_ABORT,
	    "train aborted itself (SIGABRT): a failed assertion, an uncaught C++ exception or a "
	    "library that gave up",
	    "the trace shows no CUDA error and no allocation refused for lack of memory before it");
}

static void test_jupyter(void **unused)
{
	struct ct_death_facts f = base();

	(void)unused;
	f.jupyter = true;
	f.rss_last_bytes = 0;
	kill_by(&f, SIGINT);
	check(&f, CT_DEATH_JUPYTER_INTERRUPT,
	      "Jupyter: the kernel was killed by SIGINT, as an interrupt sends it, and ended",
	      "a kernel that dies of an interrupt rather than raising KeyboardInterrupt was in "
	      "native code that does not handle it");
	kill_by(&f, SIGTERM);
	check(&f, CT_DEATH_JUPYTER_STOP,
	      "Jupyter: the kernel was killed by SIGTERM, as a restart or shutdown "
	      "sends it",
	      "who sent it is not known");
	check_advice(&f, "cull_idle_timeout");
	/* not a Jupyter kernel: a kill, its sender unknown */
	f.jupyter = false;
	check(&f, CT_DEATH_KILLED, "train was killed by SIGTERM", "who sent it is not known");
}

/* A kill after an out-of-memory (a test driver's) is not put on it. */
static void test_killed_after_failure(void **unused)
{
	struct ct_death_facts f = base();
	struct ct_death_words w;
	char *text;

	(void)unused;
	failed_alloc(&f);
	kill_by(&f, SIGKILL);
	check(
	    &f, CT_DEATH_KILLED, "train was killed by SIGKILL",
	    "who sent it is not known: the OOM killer killed no process of its memory cgroup "
	    "/sys/fs/cgroup/job while it ran; a GPU allocation of 64.00 MiB had failed before "
	    "it (out of memory), but a program that gives up on a failure exits or aborts; " HOST);
	check_advice(&f, "find the sender");
	ct_death_word(CT_DEATH_KILLED, &f, &w);
	text = ct_death_text(&w);
	assert_string_equal(text, "train was killed by SIGKILL. Who sent it is not "
	                          "known: the OOM killer killed no process of its memory cgroup "
	                          "/sys/fs/cgroup/job while it ran; a GPU allocation of 64.00 MiB "
	                          "had failed before it (out of memory), but a program that gives "
	                          "up on a failure exits or aborts; " HOST ".");
	g_free(text);
	ct_death_words_clear(&w);
	/* SIGTERM, after a sticky error alone */
	f.gpu_failed_bytes = 0;
	sticky(&f);
	kill_by(&f, SIGTERM);
	f.rss_last_bytes = 0;
	check(&f, CT_DEATH_KILLED, "train was killed by SIGTERM",
	      "who sent it is not known; it had got cudaErrorIllegalAddress from "
	      "cudaStreamSynchronize before it, a sticky CUDA error, but a program that gives up "
	      "on an error exits or aborts");
	/* the OOM killer's evidence says host memory: then it is that */
	failed_alloc(&f);
	kill_by(&f, SIGKILL);
	f.oom_logged = 1;
	assert_int_equal(ct_death_judge(&f), CT_DEATH_HOST_OOM);
}

/* What is known of the sender of a SIGKILL, from the OOM killer's evidence. */
static void test_sender(void **unused)
{
	struct ct_death_facts f = base();

	(void)unused;
	kill_by(&f, SIGKILL);
	f.rss_last_bytes = 0;
	f.oom_kills = -1;
	check(&f, CT_DEATH_KILLED, "train was killed by SIGKILL",
	      "who sent it is not known: the OOM killer's count could not be read, so whether it "
	      "was host memory cannot be told (dmesg may say)");
	f.oom_logged = 0;
	check(&f, CT_DEATH_KILLED, "train was killed by SIGKILL",
	      "who sent it is not known: the OOM killer's count could not be read, and the "
	      "kernel log does not name it as killed by the OOM killer");
	f.program = NULL;
	check(&f, CT_DEATH_KILLED, "the program was killed by SIGKILL",
	      "who sent it is not known: the OOM killer's count could not be read, and the "
	      "kernel log does not name it as killed by the OOM killer");
}

static void test_unknown(void **unused)
{
	struct ct_death_facts f = base();

	(void)unused;
	check(&f, CT_DEATH_UNKNOWN, "train exited with status 1; why is unknown",
	      "the trace shows no sticky CUDA error and no allocation refused for lack of memory, "
	      "and no signal "
	      "ended it");
	check_advice(&f, "its standard error");
	f.failures_told = true;
	check(&f, CT_DEATH_UNKNOWN, "train exited with status 1; why is unknown",
	      "the trace shows no sticky CUDA error and no allocation refused for lack of memory, "
	      "and no signal "
	      "ended it; what went wrong before it, above, may be why");
}

/*
 * An uncaught Python exception: the cause when nothing the trace saw
 * explains it, named in how it ended whatever the cause; a signal is
 * still a signal.
 */
static void test_exception(void **unused)
{
	struct ct_death_facts f = base();
	struct ct_death_words w;

	(void)unused;
	f.exception = "KeyError";
	f.exception_site = "train.py:12 in load";
	f.exception_message = "'weights'";
	check(&f, CT_DEATH_EXCEPTION,
	      "train died of an uncaught KeyError at train.py:12 in load (exit status 1)",
	      "it said: \"'weights'\"; the trace shows no sticky CUDA error and no allocation "
	      "refused for lack of memory before it");
	check_advice(&f, "traceback");
	f.exception_message = NULL;
	f.exception_site = NULL;
	check(&f, CT_DEATH_EXCEPTION, "train died of an uncaught KeyError (exit status 1)",
	      "the trace shows no sticky CUDA error and no allocation refused for lack of memory "
	      "before it");
	/* what the trace saw comes first; the exception is how it ended */
	f.exception = "torch.OutOfMemoryError";
	f.exception_site = "train.py:30 in step";
	failed_alloc(&f);
	assert_int_equal(ct_death_judge(&f), CT_DEATH_GPU_OOM);
	ct_death_word(CT_DEATH_GPU_OOM, &f, &w);
	assert_string_equal(w.then, "then train died of an uncaught torch.OutOfMemoryError at "
	                            "train.py:30 in step (exit status 1)");
	ct_death_words_clear(&w);
	kill_by(&f, SIGKILL);
	assert_int_equal(ct_death_judge(&f), CT_DEATH_KILLED);
	f = base();
	f.status = 0;
	f.exception = "SystemExit";
	assert_int_equal(ct_death_judge(&f), CT_DEATH_NONE);
}

/*
 * The last CUDA call that failed is named where nothing else explains the
 * end (an uncaught exception, which may name its error; an abort; an exit
 * for no reason the trace shows), and what to do begins at its site.
 */
static void test_failed_call(void **unused)
{
	struct ct_death_facts f = base();

	(void)unused;
	f.failed_known = true;
	f.failed_api = "cuLaunchKernelEx";
	f.failed_error = "CUDA_ERROR_INVALID_VALUE";
	f.failed_code = 1;
	f.failed_site = "train.py:14 in <module>";
	check(&f, CT_DEATH_UNKNOWN, "train exited with status 1; why is unknown",
	      "the trace shows no sticky CUDA error and no allocation refused for lack of memory, "
	      "and no signal "
	      "ended it; the last CUDA call that failed: cuLaunchKernelEx returned "
	      "CUDA_ERROR_INVALID_VALUE at train.py:14 in <module>");
	check_advice(&f, "start at train.py:14 in <module>, where cuLaunchKernelEx failed; its "
	                 "own output");
	f.exception = "cuda.core._utils.cuda_utils.CUDAError";
	f.exception_site = "train.py:14 in <module>";
	f.exception_message = "CUDA_ERROR_INVALID_VALUE: This indicates that one or more of the "
	                      "parameters passed to the API call is not within an acceptable "
	                      "range of values.";
	check(&f, CT_DEATH_EXCEPTION,
	      "train died of an uncaught cuda.core._utils.cuda_utils.CUDAError at train.py:14 in "
	      "<module> (exit status 1)",
	      "it said: \"CUDA_ERROR_INVALID_VALUE: This indicates that one or more of the "
	      "parameters passed to the API call is not within an acceptable range of values.\"; "
	      "the trace shows no sticky CUDA error and no allocation refused for lack of memory "
	      "before it; its "
	      "message names the error of the last CUDA call that failed: cuLaunchKernelEx "
	      "returned CUDA_ERROR_INVALID_VALUE at train.py:14 in <module>");
	/* an error known by number only, a call the trace does not name, no site */
	f = base();
	kill_by(&f, SIGABRT);
	f.failed_known = true;
	f.failed_code = 42;
	check(&f, CT_DEATH_ABORT,
	      "train aborted itself (SIGABRT): a failed assertion, an uncaught C++ exception or a "
	      "library that gave up",
	      "the trace shows no sticky CUDA error and no allocation refused for lack of memory "
	      "before it; the last "
	      "CUDA call that failed: a CUDA call returned error 42");
	check_advice(&f, "its standard error says why");
	/* a failure long before the end, which the program went on after, is not named */
	f = base();
	f.failed_known = true;
	f.failed_api = "cuGetProcAddress_v2";
	f.failed_error = "CUDA_ERROR_NOT_FOUND";
	f.failed_code = 500;
	f.failed_site = "train.py:3 in <module>";
	f.failed_before_end_ns = 60 * 1000000000LL;
	check(&f, CT_DEATH_UNKNOWN, "train exited with status 1; why is unknown",
	      "the trace shows no sticky CUDA error and no allocation refused for lack of memory, "
	      "and no signal "
	      "ended it");
	check_advice(&f, "its own output");
	/* ... unless the exception's message names its error */
	f.exception = "RuntimeError";
	f.exception_message = "CUDA_ERROR_NOT_FOUND";
	check_advice(&f, "start at train.py:3 in <module>, where cuGetProcAddress_v2 failed");
}

/* The report's trace section adds the traced process's name (after an exec). */
static void test_from_report(void **unused)
{
	struct ct_doc *doc = ct_doc_create();
	struct ct_death_facts f = base();

	(void)unused;
	f.program = "train.sh";
	ct_doc_object(doc, "trace", NULL);
	ct_doc_array(doc, "processes", NULL);
	for (int64_t pid = 41; pid <= 42; pid++) {
		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", pid, CT_UNIT_ID);
		ct_doc_string(doc, "process", pid == 42 ? "train" : "other");
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
	ct_doc_end(doc);
	assert_null(ct_doc_error(doc));
	ct_death_facts_from_report(ct_doc_root(doc), 43, &f);
	assert_string_equal(f.program, "train.sh");
	ct_death_facts_from_report(ct_doc_root(doc), 42, &f);
	assert_string_equal(f.program, "train");
	assert_false(f.gpu_known);
	ct_doc_destroy(doc);
}

/*
 * The results add its GPU memory: the failures the report lists, the
 * size of the device of the last failure of the size it died of, and the
 * highest peak of its devices.
 */
static void test_from_results(void **unused)
{
	const struct ct_memory_device devices[] = { { .peak_bytes = 100 * MIB },
		                                    { .peak_bytes = 300 * MIB } };
	const struct ct_frag_failure failures[] = {
		{ .requested_bytes = 64 * MIB, .total_known = true, .total_bytes = 1024 * MIB },
		{ .requested_bytes = 64 * MIB, .total_known = true, .total_bytes = 2048 * MIB },
		{ .requested_bytes = 32 * MIB },
	};
	struct ct_memory_result memory = {
		.devices = g_array_new(FALSE, TRUE, sizeof(struct ct_memory_device)),
	};
	struct ct_fragmentation_result frag = {
		.failures = g_array_new(FALSE, TRUE, sizeof(struct ct_frag_failure)),
	};
	const struct ct_result results[] = { { &ct_memory_analysis, &memory },
		                             { &ct_fragmentation_analysis, &frag } };
	struct ct_death_facts f = base();

	(void)unused;
	g_array_append_vals(memory.devices, devices, G_N_ELEMENTS(devices));
	g_array_append_vals(frag.failures, failures, G_N_ELEMENTS(failures));
	ct_death_facts_from_results(results, 0, 42, &f);
	assert_false(f.gpu_known);
	f.gpu_failed_bytes = 64 * MIB;
	ct_death_facts_from_results(results, G_N_ELEMENTS(results), 42, &f);
	assert_true(f.gpu_known);
	assert_int_equal(f.gpu_failures, 3);
	assert_int_equal(f.gpu_failed_total_bytes, 2048 * MIB);
	assert_int_equal(f.gpu_peak_bytes, 300 * MIB);
	g_array_unref(memory.devices);
	g_array_unref(frag.failures);
}

/*
 * After a clean exit, process_end shows no signal, no CUDA error, no
 * uncaught exception and no framework's out-of-memory message as
 * "unknown": none; and no two of its keys share a label.
 */
static void test_clean_exit_shown(void **unused)
{
	static const char *const none[] = {
		"exit_status",       "signal",         "signal_name",
		"cuda_error",        "cuda_error_api", "gpu_failed_bytes",
		"gpu_verdict",       "exception",      "exception_site",
		"exception_message", "framework_oom",  "framework_oom_bytes",
		"out_of_memory",
	};
	struct ct_doc *doc = ct_doc_create();
	const struct ct_node *pe;

	(void)unused;
	ct_doc_object(doc, "process_end", NULL);
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		ct_doc_null(doc, none[i]);
	ct_doc_end(doc);
	pe = ct_node_get(ct_doc_root(doc), "process_end");
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		char *value = ct_table_value(ct_node_get(pe, none[i]), 0);

		assert_string_equal(value, "none");
		g_free(value);
		for (size_t j = 0; j < i; j++) {
			char *a = ct_table_label(none[i]), *b = ct_table_label(none[j]);

			assert_string_not_equal(a, b);
			g_free(a);
			g_free(b);
		}
	}
	ct_doc_destroy(doc);
}

/* Whether FRAMEWORK's advice for VERDICT (POOL, ALONE) has WANT, as PRESENT says. */
static void advice_says(const char *framework, const char *verdict, enum ct_pool_start pool,
                        bool alone, const char *want, bool present)
{
	char *advice = ct_framework_oom_advice(framework, verdict, pool, alone);

	if (present)
		assert_non_null(strstr(advice, want));
	else
		assert_null(strstr(advice, want));
	g_free(advice);
}

/*
 * Its framework's out-of-memory message on its standard error: the cause
 * once the trace has none, before an uncaught exception, which says how
 * it ended; a kill by signal stays one.
 */
static void test_framework_oom(void **unused)
{
	struct ct_death_facts f = base();

	(void)unused;
	f.exception = "torch.OutOfMemoryError";
	f.exception_site = "train.py:12 in step";
	f.framework = "pytorch";
	f.framework_requested_bytes = 64 * MIB;
	check(&f, CT_DEATH_FRAMEWORK_OOM,
	      "PyTorch ran out of GPU memory (it tried to allocate 64.00 MiB), and train did not "
	      "survive it: it died of an uncaught torch.OutOfMemoryError at train.py:12 in step "
	      "(exit status 1)",
	      "its last lines on standard error say so; the trace shows no allocation of its own "
	      "refused for lack of memory: PyTorch's allocator refused it from what it held, or "
	      "the trace began late");
	check_advice(&f, "a smaller batch");
	f.framework = "jax";
	check_advice(&f, "XLA_PYTHON_CLIENT_MEM_FRACTION");
	f.framework = "tensorflow";
	check_advice(&f, "TF_FORCE_GPU_ALLOW_GROWTH");
	advice_says("pytorch", "fragmented", CT_POOL_UNKNOWN, false, "expandable_segments", true);
	advice_says("tensorflow", "fragmented", CT_POOL_UNKNOWN, false, "cuda_malloc_async", true);
	advice_says("jax", "too_large", CT_POOL_UNKNOWN, false, "no setting", true);
	/* JAX's advice is for the pool it took at start only when it took one */
	advice_says("jax", "out_of_memory", CT_POOL_PREALLOCATED, false,
	            "XLA_PYTHON_CLIENT_MEM_FRACTION", true);
	advice_says("jax", "out_of_memory", CT_POOL_ON_DEMAND, false, "XLA_PYTHON_CLIENT", false);
	advice_says("jax", "out_of_memory", CT_POOL_UNKNOWN, false,
	            "unless XLA_PYTHON_CLIENT_PREALLOCATE=false", true);
	/* other processes, unless NVML listed none on the device */
	advice_says("pytorch", "out_of_memory", CT_POOL_UNKNOWN, false, "other processes", true);
	advice_says("pytorch", "out_of_memory", CT_POOL_UNKNOWN, true, "other processes", false);
	advice_says("pytorch", "out_of_memory", CT_POOL_UNKNOWN, true, "a smaller batch", true);
	advice_says("tensorflow", "out_of_memory", CT_POOL_UNKNOWN, true, "other processes", false);
	advice_says("jax", "out_of_memory", CT_POOL_ON_DEMAND, true, "other processes", false);
	advice_says("jax", "out_of_memory", CT_POOL_ON_DEMAND, true, "allocates as needed", true);
	advice_says(NULL, "out_of_memory", CT_POOL_UNKNOWN, true, "other processes", false);

	/* the trace's failed allocation comes first */
	failed_alloc(&f);
	assert_int_equal(ct_death_judge(&f), CT_DEATH_GPU_OOM);
	/* killed: whatever it said before */
	f.gpu_failed_bytes = 0;
	kill_by(&f, SIGTERM);
	assert_int_equal(ct_death_judge(&f), CT_DEATH_KILLED);
}

/* A quote is cut after 300 characters, never within one. */
static void test_quote(void **unused)
{
	GString *long_text = g_string_new(NULL);
	char *quote;

	(void)unused;
	for (int i = 0; i < 400; i++)
		g_string_append(long_text, "\xc3\xa9");
	quote = ct_death_quote("said", long_text->str);
	assert_true(g_utf8_validate(quote, -1, NULL));
	assert_int_equal(g_utf8_strlen(quote, -1), strlen("said: \"") + 300 + strlen("...\""));
	g_free(quote);
	quote = ct_death_quote("said", "short");
	assert_string_equal(quote, "said: \"short\"");
	g_free(quote);
	g_string_free(long_text, TRUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_clean_exit),
		cmocka_unit_test(test_host_oom),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_gave_up),
		cmocka_unit_test(test_jupyter),
		cmocka_unit_test(test_killed_after_failure),
		cmocka_unit_test(test_sender),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_exception),
		cmocka_unit_test(test_failed_call),
		cmocka_unit_test(test_from_report),
		cmocka_unit_test(test_from_results),
		cmocka_unit_test(test_clean_exit_shown),
		cmocka_unit_test(test_framework_oom),
		cmocka_unit_test(test_quote),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
