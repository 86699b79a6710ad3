/* SPDX-License-Identifier: MIT */
/*
 * inject.c - the entry points: InitializeInjection (CUDA_INJECTION64_PATH)
 * and InitializeInjectionNvtx2 (NVTX_INJECTION64_PATH). Whichever is called
 * first sets the tracer up, once.
 *
 * Start-up order (CUPTI's): subscribe, enable callbacks, then the activity
 * API (timestamp callback, thread id type, buffer callbacks, kinds). The
 * traced program comes first: when CUPTI cannot be had (another profiler
 * holds it, it fails to initialise) cudatrace says so in one line on stderr
 * and the program runs on untraced. A child forked from a traced process
 * never touches its parent's CUPTI state and runs untraced.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <cupti.h>

#include "activity.h"
#include "app-context.h"
#include "callbacks.h"
#include "config.h"
#include "cupti-compat.h"
#include "driver-info.h"
#include "emit.h"
#include "log.h"
#include "host-sampler.h"
#include "nvml.h"
#include "sessions.h"
#include "shutdown.h"
#include "state.h"
#include "statedump.h"
#include "tracer.h"
#include "ust-fork.h"

#define EXPORT __attribute__((visibility("default")))

#ifndef CUDATRACE_VERSION
#define CUDATRACE_VERSION "unknown"
#endif

/* NVTX's export-table getter (nvtxTypes.h), and CUPTI's NVTX entry point,
 * which libcupti exports but no header declares. */
typedef const void *(*nvtx_get_export_table_fn)(uint32_t export_table_id);
extern CUptiResult CUPTIAPI cuptiNvtxInitialize2(void *get_export_table);

EXPORT int InitializeInjection(void);
EXPORT int InitializeInjectionNvtx2(nvtx_get_export_table_fn get_export_table);

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static const char *result_text(CUptiResult status)
{
	const char *text = NULL;

	if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || !text)
		return "unknown CUPTI error";
	return text;
}

/* CUPTI cannot be used: say it once, record it, and stay out of the way. */
static void give_up(enum ct_tracer_error_kind kind, CUptiResult status, const char *what)
{
	char message[256];

	snprintf(message, sizeof(message), "%s (%s); the program runs untraced", what,
	         result_text(status));
	tracer_info_emit_once();
	tracer_report(LOG_NOTICE, kind, (int32_t)status, message);
}

static void in_child(void)
{
	tracer_set_running(false);
}

/*
 * The newest child of the calling thread: the last pid of
 * /proc/self/task/TID/children (proc(5); the kernel adds a child at the end
 * of its parent task's list, and the child fork() just made is not reaped
 * yet); 0 when the file is not there (a kernel without
 * CONFIG_PROC_CHILDREN).
 */
static int32_t newest_child(void)
{
	long pid, last = 0;
	/* /proc/thread-self is /proc/self/task/TID of the calling thread */
	FILE *f = fopen("/proc/thread-self/children", "re");

	if (!f)
		return 0;
	while (fscanf(f, "%ld", &pid) == 1)
		last = pid;
	fclose(f);
	return (int32_t)last;
}

/* A child forked: the trace says so, and which, for the report to name it
 * as untraced unless it execs (then it is traced on its own). */
static void in_parent(void)
{
	if (!tracer_active() || getpid() != tracer.pid)
		return;
	callbacks_flush_thread();
	EMIT(process_fork, &(struct ct_ev_process_fork){ .child_pid = newest_child() });
}

static int subscribe(void)
{
	char holder[256];
	CUptiResult status;
	char what[320];

	status = ct_cupti_subscribe(&tracer.subscriber, callbacks_dispatch, holder, sizeof(holder));
	if (status == CUPTI_SUCCESS)
		return 0;
	if (status == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		snprintf(what, sizeof(what), "CUPTI is already in use by %s",
		         holder[0] ? holder : "another profiler");
		give_up(CT_TRACER_ERROR_OTHER_SUBSCRIBER, status, what);
		return -1;
	}
	give_up(CT_TRACER_ERROR_CUPTI_INIT, status, "cannot subscribe to CUPTI");
	return -1;
}

/* The process's name as the kernel has it (what LTTng's procname context
 * records), without the newline. */
static void read_procname(char *name, size_t size)
{
	FILE *comm = fopen("/proc/self/comm", "re");

	name[0] = '\0';
	if (!comm)
		return;
	if (fgets(name, (int)size, comm))
		name[strcspn(name, "\n")] = '\0';
	fclose(comm);
}

/*
 * A random start for the samples of what uploads send (copy.c), kept in
 * memory and never written: a reader compares a process's samples with
 * each other, and a sample of a few bytes must not let anyone who reads
 * the trace find them by trying every value. The clock and the pid when
 * the kernel has no random bytes to give (a sample still tells a change).
 */
static uint64_t sample_key(void)
{
	struct timespec now;
	uint64_t key;

	if (getrandom(&key, sizeof(key), GRND_NONBLOCK) == (ssize_t)sizeof(key))
		return key;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 30) ^ (uint64_t)getpid();
}

static void fill_info(void)
{
	uint32_t cupti_version = 0;

	if (cuptiGetVersion(&cupti_version) != CUPTI_SUCCESS)
		cupti_version = 0;
	tracer.info = (struct ct_ev_tracer_info){
		.version = CUDATRACE_VERSION,
		.buffer_size = config.buffer_size,
		.cupti_version = cupti_version,
		.driver_version = nvml_driver_version(),
		.activity_kinds = config.activity_kinds,
		.flush_period_ms = config.flush_period_ms,
		.nvml_period_ms = config.nvml_period_ms,
		.host_memory_period_ms = config.host_memory_period_ms,
		.max_string = config.max_string,
		.api = config.api,
		.procname = tracer.procname,
	};
	read_procname(tracer.procname, sizeof(tracer.procname));
	driver_info_read();
}

/* The settings, each problem with them said and recorded. */
static void load_config(void)
{
	struct config_problems problems;

	config_read(&config, &problems);
	log_set_level(config.debug);
	for (unsigned i = 0; i < problems.count; i++)
		tracer_report(LOG_NOTICE, CT_TRACER_ERROR_CONFIG, 0, problems.message[i]);
}

static void init(void)
{
	CUptiResult status;

	load_config();
	/* Whether the process is traced or not: lttng-ust came with the
	 * tracer, and a fork must not leave its mutexes held. */
	if (ust_fork_register() < 0)
		log_warn("cannot register lttng-ust's fork handlers: a child forked without exec "
		         "may hang at exit");
	/* Before any event: a session's filter may select on it. */
	if (app_context_register() < 0)
		log_warn("cannot register the LTTng context $app.cudatrace:session");
	tracer.pid = getpid();
	tracer.sample_key = sample_key();
	fill_info();
	if (subscribe() < 0)
		return;
	tracer.subscribed = true;
	tracer_set_running(true);
	status = callbacks_enable();
	if (status != CUPTI_SUCCESS) {
		tracer_set_running(false);
		cuptiUnsubscribe(tracer.subscriber);
		tracer.subscribed = false;
		give_up(CT_TRACER_ERROR_CUPTI_INIT, status, "cannot enable CUPTI callbacks");
		return;
	}
	if (activity_start() < 0)
		log_warn("no activity kind could be enabled: GPU-side events are off");
	sessions_watch_start();
	if (statedump_start(config.statedump_period_ms) < 0)
		log_warn("cannot start the statedump thread");
	nvml_sampler_start(config.nvml_period_ms);
	host_sampler_start(config.host_memory_period_ms);
	if (shutdown_register() < 0)
		log_warn("cannot register the exit handlers: GPU events may be lost at exit");
	pthread_atfork(NULL, in_parent, in_child);
	tracer_info_emit_once();
	log_info("tracing process %d", (int)tracer.pid);
}

int InitializeInjection(void)
{
	pthread_once(&init_once, init);
	/* 1 even when untraced: the program must run on. */
	return 1;
}

int InitializeInjectionNvtx2(nvtx_get_export_table_fn get_export_table)
{
	pthread_once(&init_once, init);
	if (!tracer.subscribed || getpid() != tracer.pid)
		return 0; /* NVTX calls become no-ops for that module */
	return cuptiNvtxInitialize2((void *)get_export_table) == CUPTI_SUCCESS;
}
