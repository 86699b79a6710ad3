/* SPDX-License-Identifier: MIT */
/*
 * death.h - how a program ended: judged and worded here alone, from a
 * typed account of the facts. `cudatrace record` judges the end it saw
 * (cudatrace.info keeps the judgement) and words it on its own line when
 * it prints no diagnosis; the report's process_end section and the
 * diagnosis (findings.c), which record's summary and post-mortem print
 * too, word it from the same facts read back: the same trace gets the
 * same words everywhere.
 *
 * The order of the causes is that of their certainty: the kernel's OOM
 * evidence and a fault signal are facts about the end itself; a sticky
 * CUDA error or a failed allocation is what the program last met before
 * it gave up, when it gave up by itself (a failure status, or an abort);
 * another signal is said as a kill, with what is known of its
 * sender, even after a failed allocation: a program does not send itself
 * SIGKILL. What the program said last comes after the trace's facts: a
 * framework's out-of-memory message on its standard error, then an
 * uncaught Python exception (the Python probe's, or its traceback on its
 * standard error), which also says how a program that exited by itself
 * ended ("died of an uncaught torch.OutOfMemoryError at train.py:12 in
 * step"). Where nothing explains the end, it is said to be
 * unknown.
 */
#ifndef CUDATRACE_FINDINGS_DEATH_H
#define CUDATRACE_FINDINGS_DEATH_H

#include <stdbool.h>
#include <stdint.h>

/* Why the program ended (cudatrace.info's death=, process_end.cause). */
enum ct_death {
	CT_DEATH_NOT_JUDGED = 0,    /* no judgement: an older record, or none saw the end */
	CT_DEATH_NONE,              /* it exited with status 0 */
	CT_DEATH_HOST_OOM,          /* the kernel's OOM killer killed it (host memory) */
	CT_DEATH_FAULT_SIGNAL,      /* a fault of its own: SIGSEGV, SIGBUS, SIGILL, SIGFPE */
	CT_DEATH_CUDA_ERROR,        /* a sticky CUDA error, then it gave up */
	CT_DEATH_GPU_OOM,           /* a GPU allocation failed, then it gave up */
	CT_DEATH_EXCEPTION,         /* it died of an uncaught Python exception */
	CT_DEATH_ABORT,             /* it aborted itself (SIGABRT) */
	CT_DEATH_JUPYTER_INTERRUPT, /* a Jupyter kernel ended by SIGINT */
	CT_DEATH_JUPYTER_STOP,      /* a Jupyter kernel ended by SIGTERM or SIGHUP */
	CT_DEATH_KILLED,            /* another signal, sender unknown */
	CT_DEATH_UNKNOWN,           /* a failure status, and no cause seen */
	CT_DEATH_FRAMEWORK_OOM, /* its framework said it ran out of GPU memory, then it gave up */
};

/* DEATH's word ("host-oom", ...), "" for CT_DEATH_NOT_JUDGED. */
const char *ct_death_name(enum ct_death death);

/* The death of WORD, CT_DEATH_NOT_JUDGED for a word not known (or NULL). */
enum ct_death ct_death_of_name(const char *word);

/*
 * How a framework's pool began: preallocated (JAX takes 75 % of each
 * device at its start unless told not to), or as its tensors needed; not
 * known without the Python probe's figures.
 */
enum ct_pool_start {
	CT_POOL_UNKNOWN = 0,
	CT_POOL_PREALLOCATED,
	CT_POOL_ON_DEMAND,
};

struct ct_framework_device;

/* How the pool of a framework's DEVICE figures began (NULL: none known). */
enum ct_pool_start ct_pool_start_of(const struct ct_framework_device *device);

/* What a death is judged and worded from. Strings are borrowed; NULL or "" is none. */
struct ct_death_facts {
	const char *program; /* its name: "the program" when none */
	bool killed;         /* killed by SIGNAL, else exited with STATUS */
	int status, signal;
	bool jupyter; /* it is a Jupyter kernel (ipykernel) */
	/* The kernel's evidence of an OOM kill. */
	int oom_kills;      /* processes of its memory cgroup the OOM killer killed; -1 unknown */
	int oom_logged;     /* the kernel log names it as killed: 1; not found 0; unreadable -1 */
	const char *cgroup; /* its memory cgroup's directory */
	/* Its host memory, as record saw it: 0 when unknown. */
	uint64_t rss_last_bytes, rss_peak_bytes, limit_bytes;
	/*
	 * The most of it that was its own (anonymous memory), as sampled: what
	 * its cgroup is charged for it. The resident set counts too the pages
	 * of the files and shared memory it maps, which may be charged to
	 * other cgroups: it can pass the cgroup's limit. 0 when unknown.
	 */
	uint64_t anon_peak_bytes;
	bool limit_cgroup; /* limit_bytes is its cgroup's, else the machine's memory */
	/* The first sticky CUDA error and the call that got it, when (trace clock; 0 unknown). */
	const char *cuda_error, *cuda_error_api;
	int64_t cuda_error_ns;
	/* The last failed GPU allocation: its size (0: none), verdict and time. */
	uint64_t gpu_failed_bytes;
	const char *gpu_verdict; /* "out_of_memory", "fragmented", "held_elsewhere", "unknown" */
	int64_t gpu_failed_ns;
	/* What the trace holds of GPU memory, when gpu_known: failures and the highest peak. */
	bool gpu_known;
	uint64_t gpu_failures, gpu_peak_bytes;
	/* The size of the device of the last failure of gpu_failed_bytes (0: unknown). */
	uint64_t gpu_failed_total_bytes;
	/* The uncaught Python exception it died of (python_exception): its type, NULL none. */
	const char *exception, *exception_message;
	const char *exception_site; /* "train.py:12 in step" */
	/* The diagnosis tells of other failures before it, which may be why. */
	bool failures_told;
	/*
	 * Its framework said on its standard error that it ran out of GPU
	 * memory (common/last-words.h): the framework's label ("pytorch"; NULL
	 * or "" none), and what it tried to allocate (0: unknown).
	 */
	const char *framework;
	uint64_t framework_requested_bytes;
	enum ct_pool_start framework_pool; /* how its pool began (the Python probe's figures) */
	/*
	 * The last CUDA call of the process that failed (cuda-errors.h), when
	 * failed_known: the call (NULL: the trace names none), its error's
	 * name (NULL: known by number only), its code, where it was called
	 * (NULL: unknown), and how long before the process's last event.
	 */
	bool failed_known;
	const char *failed_api, *failed_error, *failed_site;
	int32_t failed_code;
	int64_t failed_before_end_ns;
};

struct ct_node;
struct ct_result;

/*
 * What the report's "trace" section (ROOT's) adds to FACTS: the name of
 * PID's traced process, in place of the command's (which may have become
 * it by exec).
 */
void ct_death_facts_from_report(const struct ct_node *root, int64_t pid,
                                struct ct_death_facts *facts);

/*
 * What the analyses' RESULTS (COUNT of them) add to FACTS of process PID:
 * when the memory or the fragmentation analysis ran, the GPU allocations
 * that failed, the size of the device of the last of gpu_failed_bytes,
 * and the highest peak; when the framework analysis has its framework's
 * figures, how its pool began; when the errors analysis ran, the last
 * CUDA call of PID that failed.
 */
void ct_death_facts_from_results(const struct ct_result *results, size_t count, int64_t pid,
                                 struct ct_death_facts *facts);

/* Why the program ended, from FACTS; CT_DEATH_NONE after a status of 0. */
enum ct_death ct_death_judge(const struct ct_death_facts *facts);

/* A death in words, each owned (g_free): for a finding, or a line of its own. */
struct ct_death_words {
	char *summary;         /* what ended it, one sentence with its numbers */
	char *explanation;     /* what the judgement rests on; NULL if nothing more */
	char *advice;          /* what to do */
	const char *certainty; /* of the figures: "exact", or "lower_bound" (static) */
	char *caveat;          /* why not exact; NULL when exact */
	char *then;            /* "then train exited with status 1": the end after the
	                        * finding that tells its cause (a sticky error, a failure) */
};

/*
 * DEATH (not CT_DEATH_NOT_JUDGED) in words, from FACTS, into WORDS;
 * CT_DEATH_NONE: the end and the host memory, no advice.
 */
void ct_death_word(enum ct_death death, const struct ct_death_facts *facts,
                   struct ct_death_words *words);

/* Frees what WORDS holds. */
void ct_death_words_clear(struct ct_death_words *words);

/* WORDS as one paragraph: "summary. Explanation." (g_free). */
char *ct_death_text(const struct ct_death_words *words);

/*
 * What record saw of the host memory of FACTS, one sentence: "Its resident
 * host memory was last seen at ... ."; NULL when nothing (g_free).
 */
char *ct_death_host(const struct ct_death_facts *facts);

/*
 * What to do when FRAMEWORK ("pytorch", "tensorflow", "jax": the
 * contract's label), whose pool began as POOL, ran out of GPU memory, for
 * VERDICT: "too_large" (more than it may use of the device), "fragmented"
 * (its pool held enough unused, in pieces too small), "limit_reached" (it
 * held all its own limit lets it use, below the device's memory), else
 * the device was full: then ALONE, NVML listed no other process on it,
 * leaves out freeing the device of others. g_free it.
 */
char *ct_framework_oom_advice(const char *framework, const char *verdict, enum ct_pool_start pool,
                              bool alone);

/* "INTRO: \"TEXT\"", TEXT cut after 300 characters (g_free). */
char *ct_death_quote(const char *intro, const char *text);

/* A failed allocation's VERDICT for people ("out of memory"), and what to do about it. */
const char *ct_verdict_words(const char *verdict);
const char *ct_verdict_advice(const char *verdict);
/*
 * What to do about an allocation of REQUESTED bytes that failed with
 * VERDICT on a device of TOTAL bytes (0: unknown): a request larger than
 * the whole device is no device that was full, nothing freed would make
 * room for it; memory held by other processes that the words before it
 * name (HOLDERS_NAMED: NVML listed them) needs no tool to find them; else
 * ct_verdict_advice.
 */
const char *ct_failure_advice(const char *verdict, uint64_t requested, uint64_t total,
                              bool holders_named);

#endif
