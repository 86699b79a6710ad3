/* SPDX-License-Identifier: MIT */
/*
 * record.c - `cudatrace record`: run a command with libcudatrace.so
 * injected into a tracing session of its own, then summarise the trace.
 *
 * The order matters: everything that can fail for a reason the user can
 * fix (the command, the library, the directory, the daemon, the session)
 * is checked before the command starts, so that a failed setup never
 * costs a run. Once it has started, the command's exit status is what
 * record exits with, whatever happens to the trace; problems with the
 * trace are reported, and what was recorded is kept.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "arg-check.h"
#include "audit-lib.h"
#include "bounded.h"
#include "../host/cgroup.h"
#include "child.h"
#include "common/compat.h"
#include "death.h"
#include "cuda-places.h"
#include "diag.h"
#include "event-size.h"
#include "exec-path.h"
#include "../host/host-memory.h"
#include "kernel-log.h"
#include "lib-probe.h"
#include "make-dirs.h"
#include "python-probe.h"
#include "record-options.h"
#include "recorded-read.h"
#include "session.h"
#include "sessiond.h"
#include "last-words-section.h"
#include "stale.h"
#include "stderr-relay.h"
#include "summary.h"
#include "trace-info.h"
#include "trace-scan.h"
#include "tracer-lib.h"
#include "verbs.h"
#include "watch.h"

/* The trace could not be set up, or the command line is wrong: the command did not run. */
#define EXIT_SETUP EXIT_USAGE

/* How long the session daemon has to stop tracing after a fault, and to close the session. */
#define STOP_TIMEOUT_MS   10000u
#define FINISH_TIMEOUT_MS 60000u
/* Free space below which a disk was filled by the trace's last writes. */
#define DISK_NEARLY_FULL (64u << 10)
/* How often LTTng and the disk are looked at while the program runs, in ms. */
#define WATCH_PERIOD_MS 100u
/* CUDATRACE_STATEDUMP_PERIOD_MS in flight-recorder mode. */
#define FLIGHT_STATEDUMP_PERIOD_MS "1000"

struct record {
	struct record_options opts;
	char **command; /* argv of the command, NULL-terminated */
	char command_path[PATH_MAX];
	char library[PATH_MAX];
	char python_probe[PATH_MAX]; /* the probe's directory (python-probe.h), "" none */
	char output[PATH_MAX];       /* local trace directory, "" when streamed */
	bool made_output;            /* created by this run: removed again if setup fails */
	char session[256];
	enum session_mode mode;
	struct trace_info info;
	struct child_result result;
	struct watch watch;  /* faults of LTTng and of the disk while the program runs */
	bool private_daemon; /* cudatrace's own session daemon is used (sessiond.h) */
	bool scanned;        /* scan holds what the trace's packets say */
	struct trace_scan scan;
	/* The program's memory cgroup, and its OOM-kill count when the program entered it. */
	struct cgroup_memory cgroup;
	bool oom_base_known;
	uint64_t oom_base;
	/* Its name as the kernel has it, last seen, and when it started (CLOCK_MONOTONIC, us). */
	char comm[32];
	uint64_t started_us;
	/* Trace facts of the end (summary.h), when the trace was read. */
	bool end_known;
	struct summary_end end;
	bool cause_said; /* the judgement of its end was printed */
	/* Its stderr through record, kept for the report; NULL: its own, untouched. */
	struct stderr_relay *relay;
};

static const char *mode_name(enum session_mode mode)
{
	static const char *const names[] = { "local", "snapshot", "network", "live" };

	return names[mode];
}

/* "20261122-101500", local time. */
static void timestamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, len, "%Y%m%d-%H%M%S", &tm);
}

/* --------------------------------------------------------------- checks */

static int find_command(struct record *r)
{
	int err = exec_path_find(r->command[0], r->command_path, sizeof(r->command_path));

	if (err == ENOENT) {
		diag_error("%s: command not found%s", r->command[0],
		           strchr(r->command[0], '/') ? "" : " in PATH");
		return -1;
	}
	if (err == EACCES) {
		diag_error("%s: permission denied: it is not an executable file", r->command[0]);
		return -1;
	}
	if (err == ENAMETOOLONG && arg_check_path("the command", r->command[0], 0) < 0)
		return -1;
	if (err) {
		diag_error("%s: %s", r->command[0], strerror(err));
		return -1;
	}
	return 0;
}

/* PATH, given with OPTION, as an absolute path into OUT. 0, or -1 after a message. */
static int make_absolute(const char *option, const char *path, char *out, size_t len)
{
	char cwd[PATH_MAX], shown[64];

	if (path[0] == '/' && snprintf(out, len, "%s", path) < (int)len)
		return 0;
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)) &&
	    snprintf(out, len, "%s/%s", cwd, path) < (int)len)
		return 0;
	diag_error("%s '%s': the path is too long once the current directory is put before it",
	           option, arg_shorten(path, shown, sizeof(shown)));
	return -1;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (de = readdir(d)))
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	return empty;
}

static void report_dir_error(const char *dir, int err)
{
	diag_error("cannot create the trace directory %s: %s: choose a writable directory with "
	           "-o or --trace-dir",
	           dir, strerror(err));
}

/* -o DIR: new, or empty. */
static int use_output(struct record *r, const char *dir)
{
	struct stat st;
	int err;

	if (make_absolute("-o", dir, r->output, sizeof(r->output)) < 0 ||
	    arg_check_path("-o", r->output, RECORD_OUTPUT_RESERVE) < 0)
		return -1;
	if (stat(r->output, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			diag_error("%s exists and is not a directory: choose another with -o",
			           r->output);
			return -1;
		}
		if (!dir_is_empty(r->output)) {
			diag_error(
			    "%s is not empty: choose a new directory with -o, so that traces "
			    "are not mixed",
			    r->output);
			return -1;
		}
	} else {
		r->made_output = true;
	}
	/* Private, whatever the umask: it will hold the program's command line and data. */
	err = make_dirs_mode(r->output, 0700);
	if (!err && !r->made_output && chmod(r->output, 0700) != 0)
		diag_warn("cannot make %s readable by you only: %s", r->output, strerror(errno));
	if (err) {
		report_dir_error(r->output, err);
		return -1;
	}
	if (access(r->output, W_OK | X_OK) != 0) {
		report_dir_error(r->output, errno);
		return -1;
	}
	return 0;
}

/* --trace-dir DIR (default: .): a new DIR/cudatrace-DATE-TIME, with -N when taken. */
static int make_dated_output(struct record *r, const char *parent)
{
	char base[PATH_MAX], stamp[32];
	int err;

	if (make_absolute("--trace-dir", parent, base, sizeof(base)) < 0 ||
	    arg_check_path("--trace-dir", base, RECORD_OUTPUT_RESERVE + 32) < 0)
		return -1;
	err = make_dirs_mode(base, 0700);
	if (err) {
		report_dir_error(base, err);
		return -1;
	}
	timestamp(stamp, sizeof(stamp));
	for (int n = 1; n < 1000; n++) {
		int len =
		    n == 1 ? snprintf(r->output, sizeof(r->output), "%s/cudatrace-%s", base, stamp)
		           : snprintf(r->output, sizeof(r->output), "%s/cudatrace-%s-%d", base,
		                      stamp, n);

		if (len >= (int)sizeof(r->output)) {
			diag_error("the trace directory %s: path too long", base);
			return -1;
		}
		if (mkdir(r->output, 0700) == 0) {
			r->made_output = true;
			if (chmod(r->output, 0700) != 0) {
				report_dir_error(r->output, errno);
				return -1;
			}
			return 0;
		}
		if (errno != EEXIST) {
			report_dir_error(r->output, errno);
			return -1;
		}
	}
	report_dir_error(r->output, EEXIST);
	return -1;
}

static int choose_output(struct record *r)
{
	if (r->opts.relayd)
		return 0;
	if (r->opts.output)
		return use_output(r, r->opts.output);
	return make_dated_output(r, r->opts.trace_dir ? r->opts.trace_dir : ".");
}

/* Setup failed: leave no empty directory behind. */
static void undo_output(struct record *r)
{
	if (r->made_output && r->output[0])
		(void)rmdir(r->output);
}

/* Removes PATH and the directories under it, if they hold no file. */
static void remove_empty_dirs(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char sub[PATH_MAX];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) < (int)sizeof(sub) &&
		    de->d_type == DT_DIR)
			remove_empty_dirs(sub);
	}
	closedir(d);
	(void)rmdir(path);
}

/*
 * The command did not start: remove the notes, and the directory with the
 * empty ones the session daemon made in it; a file in it stays.
 */
static void discard_output(struct record *r)
{
	char path[PATH_MAX + 32];

	if (!r->output[0] || !r->made_output)
		return;
	snprintf(path, sizeof(path), "%s/%s", r->output, TRACE_INFO_FILE);
	(void)unlink(path);
	remove_empty_dirs(r->output);
}

static void choose_session_name(struct record *r)
{
	char stamp[32];
	const char *name = r->opts.name;

	if (name && strncmp(name, STALE_SESSION_PREFIX, strlen(STALE_SESSION_PREFIX)) == 0)
		snprintf(r->session, sizeof(r->session), "%s", name);
	else if (name)
		snprintf(r->session, sizeof(r->session), STALE_SESSION_PREFIX "%s", name);
	else {
		timestamp(stamp, sizeof(stamp));
		snprintf(r->session, sizeof(r->session), STALE_SESSION_PREFIX "%s-%ld", stamp,
		         (long)getpid());
	}
}

/* ------------------------------------------------------------- session */

/*
 * Sizes the flight recorder's rings: SIZE bytes over all CPUs and both data
 * channels, in 4 sub-buffers each.
 */
static void flight_buffers(uint64_t size, uint64_t *subbuf, uint64_t *num)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t per_cpu = size / (uint64_t)(cpus > 0 ? cpus : 1) / SESSION_DATA_CHANNELS / 4;
	uint64_t s = 4096;

	while (s * 2 <= per_cpu)
		s *= 2;
	*subbuf = s;
	*num = 4;
}

/*
 * LTTng-UST discards an event larger than a sub-buffer, whatever the
 * mode, --blocking included: the sub-buffers must hold cudatrace's
 * largest event, whose strings are capped by CUDATRACE_MAX_STRING.
 */
static int check_event_size(const struct record *r, uint64_t subbuf_size)
{
	unsigned max_string = event_max_string();
	uint64_t need = event_max_size(max_string) + EVENT_PACKET_HEADER, size = 4096;

	if (subbuf_size >= need)
		return 0;
	while (size < need)
		size *= 2;
	if (r->mode == SESSION_SNAPSHOT)
		diag_error(
		    "--flight-recorder=%llu: its sub-buffers (%llu bytes) are smaller than "
		    "cudatrace's largest event (%llu bytes, with strings of up to %u bytes): "
		    "LTTng would discard every such event: give a larger size",
		    (unsigned long long)r->opts.flight_size, (unsigned long long)subbuf_size,
		    (unsigned long long)(need - EVENT_PACKET_HEADER), max_string);
	else
		diag_error(
		    "--subbuf-size=%llu is smaller than cudatrace's largest event (%llu bytes, "
		    "with strings of up to %u bytes, CUDATRACE_MAX_STRING): LTTng would "
		    "discard every such event, with --blocking too: give --subbuf-size=%lluK "
		    "or more",
		    (unsigned long long)subbuf_size,
		    (unsigned long long)(need - EVENT_PACKET_HEADER), max_string,
		    (unsigned long long)(size >> 10));
	return -1;
}

/* The sub-buffer size the session will have, checked against the largest event. */
static int effective_subbuf_size(const struct record *r)
{
	uint64_t subbuf = r->opts.subbuf_size, num;

	if (r->mode == SESSION_SNAPSHOT)
		flight_buffers(r->opts.flight_size, &subbuf, &num);
	return check_event_size(r, subbuf);
}

static int start_session(struct record *r)
{
	struct session_config cfg = {
		.name = r->session,
		.mode = r->mode,
		.output = r->output,
		.url = r->opts.relayd,
		.live_timer_us = (uint64_t)r->opts.live_period_ms * 1000,
		.subbuf_size = r->opts.subbuf_size,
		.num_subbuf = r->opts.num_subbuf,
		.blocking_timeout_us = r->opts.blocking ? (uint64_t)r->opts.blocking_ms * 1000 : 0,
		.snapshot_on_failure = true,
		.only_tree = r->opts.all_processes ? NULL : r->session,
	};
	int ret;

	if (r->opts.no_api)
		cfg.excluded_groups |= CT_GROUP_BIT(CT_GROUP_API);
	if (r->opts.no_nvtx)
		cfg.excluded_groups |= CT_GROUP_BIT(CT_GROUP_NVTX);
	if (r->mode == SESSION_SNAPSHOT)
		flight_buffers(r->opts.flight_size, &cfg.subbuf_size, &cfg.num_subbuf);
	if (stale_register(r->session, mode_name(r->mode), r->output) < 0)
		return -1;
	ret = session_setup(&cfg);
	if (ret < 0) {
		stale_unregister(r->session);
		return ret;
	}
	return 0;
}

/*
 * Its resident host memory, last and highest, while it runs (one small
 * file of /proc), and the most of it that was its own (anonymous): what
 * its cgroup's limit holds it to, which the kernel keeps no peak of.
 */
static int sample_host(struct record *r)
{
	uint64_t rss, peak, anon;

	if (host_memory_rss(r->info.pid, &rss, &peak) < 0 || !rss)
		return -1;
	r->info.host_rss_bytes = rss;
	if (peak > r->info.host_rss_peak_bytes)
		r->info.host_rss_peak_bytes = peak;
	if (host_memory_anon(r->info.pid, &anon) == 0 && anon > r->info.host_anon_peak_bytes)
		r->info.host_anon_peak_bytes = anon;
	return 0;
}

/* NOW is the memory cgroup the program is in: its OOM kills count from here. */
static void adopt_cgroup(struct record *r, const struct cgroup_memory *now)
{
	r->cgroup = *now;
	r->oom_base_known = now->oom_kills_known;
	r->oom_base = now->oom_kills;
}

/*
 * While it runs: its host memory, its name, and the memory cgroup it is
 * in (a program may move itself, or be moved, into another, whose OOM
 * kills then count from there). An exiting process is moved to the root
 * cgroup once its memory is gone: what is read before a look at its
 * memory that still finds it (sample_host) is of the program as it ran.
 */
static void watch_program(struct record *r)
{
	struct cgroup_memory now;
	char comm[sizeof(r->comm)];
	bool moved = cgroup_memory_of(r->info.pid, &now) == 0 && strcmp(now.dir, r->cgroup.dir);
	bool named = kernel_log_name(r->info.pid, comm, sizeof(comm)) == 0;

	if (sample_host(r) < 0)
		return;
	if (named)
		snprintf(r->comm, sizeof(r->comm), "%s", comm);
	if (moved)
		adopt_cgroup(r, &now);
}

/* CLOCK_MONOTONIC in microseconds, as the kernel log stamps its lines. */
static uint64_t monotonic_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * The program exists but has not run: noted for the stale-session
 * cleanup (its descendants are found there by their CUDATRACE_SESSION).
 */
static int on_started(pid_t pid, void *data)
{
	struct record *r = data;
	struct cgroup_memory now;

	stale_add_process(r->session, pid);
	r->info.pid = (int)pid;
	if (r->relay)
		stderr_relay_started(r->relay, pid);
	/* Less a second: the log's clock (the scheduler's) may be a little behind this one. */
	r->started_us = monotonic_us();
	r->started_us = r->started_us > 1000000u ? r->started_us - 1000000u : 0;
	/* Not yet run, it is still cudatrace's copy: its memory and name are not the program's. */
	if (cgroup_memory_of(pid, &now) == 0)
		adopt_cgroup(r, &now);
	return 0;
}

static void fault_seen(struct record *r, bool running);

/* While it runs: LTTng and the disk are watched. */
static void on_tick(void *data)
{
	struct record *r = data;

	if (watch_tick(&r->watch) != TRACE_CUT_NONE)
		fault_seen(r, true);
	if (r->info.pid > 0)
		watch_program(r);
}

/* --------------------------------------------------------- environment */

static int set_env(const char *name, const char *value)
{
	if (setenv(name, value, 1) != 0) {
		diag_error("cannot set %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

/* What the traced program inherits: the injection, and the tracer's settings. */
static int prepare_environment(struct record *r)
{
	const char *old = getenv("CUDA_INJECTION64_PATH");
	const struct record_options *o = &r->opts;

	if (old && *old && strcmp(old, r->library) != 0)
		diag_warn("CUDA_INJECTION64_PATH was %s: replaced by cudatrace's library", old);
	if (set_env("CUDA_INJECTION64_PATH", r->library) < 0)
		return -1;
	/* The session records the processes that carry its name (session.h). */
	if (set_env(CT_SESSION_ENV, r->session) < 0)
		return -1;
	if (!o->no_nvtx && set_env("NVTX_INJECTION64_PATH", r->library) < 0)
		return -1;
	if (o->no_api && set_env("CUDATRACE_API", "0") < 0)
		return -1;
	if (o->activity && set_env("CUDATRACE_ACTIVITY", o->activity) < 0)
		return -1;
	if (o->nvml_period_ms && set_env("CUDATRACE_NVML_PERIOD_MS", o->nvml_period_ms) < 0)
		return -1;
	if (o->flush_period_ms && set_env("CUDATRACE_FLUSH_PERIOD_MS", o->flush_period_ms) < 0)
		return -1;
	if (o->activity_buffer && set_env("CUDATRACE_BUFFER_SIZE", o->activity_buffer) < 0)
		return -1;
	/*
	 * A flight recorder's ring keeps the last seconds only: the live set
	 * is written again every second so that a snapshot holds one.
	 */
	if (r->mode == SESSION_SNAPSHOT && !getenv("CUDATRACE_STATEDUMP_PERIOD_MS") &&
	    set_env("CUDATRACE_STATEDUMP_PERIOD_MS", FLIGHT_STATEDUMP_PERIOD_MS) < 0)
		return -1;
	/* LTTng-UST only waits for room in a blocking channel when the program allows it. */
	if (o->blocking && set_env("LTTNG_UST_ALLOW_BLOCKING", "1") < 0)
		return -1;
	/* Without the list, a runtime that refuses the driver leaves nothing: a warning. */
	if (r->output[0])
		(void)audit_lib_prepare(r->library, r->output);
	/* Without the probe, Python processes are traced as any other: a warning. */
	if (!o->no_python_probe &&
	    python_probe_prepare(r->python_probe, sizeof(r->python_probe)) == 0)
		stale_add_probe(r->session, r->python_probe);
	if (o->tensor_sites && set_env("CUDATRACE_TENSOR_SITES", "1") < 0)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------- info */

/*
 * The driver the program will find, and the CUDA version it supports
 * (cuDriverGetVersion, no cuInit: no device is touched), for the report
 * of a program whose runtime refuses it: that runtime fails before the
 * driver loads the tracer. No driver is no error here: the program will
 * say so.
 */
static void probe_driver(struct trace_info *info)
{
	static const char *const names[] = { "libcuda.so.1", NULL };
	const char *which;
	void *cuda = lib_probe_open(names, &which, info->driver_path, sizeof(info->driver_path));

	if (!cuda)
		return;
	if (lib_probe_driver_version(cuda, &info->driver_cuda) != 0)
		info->driver_cuda = 0;
	dlclose(cuda);
}

/*
 * The tracer the driver can run (ct_compat_tracer_cupti): for a CUDA 12
 * driver, the one built against CUPTI 12 beside libcudatrace.so. Where
 * that one is not installed, or the driver is older than CUDA 12.0, a
 * warning, and libcudatrace.so is injected all the same: it says in one
 * line that CUPTI cannot be used, and the program runs untraced.
 * `cudatrace doctor` gives the rule in full.
 */
static void choose_tracer(struct record *r)
{
	char why[CT_COMPAT_TEXT], v[16];
	int major = ct_compat_tracer_cupti(r->info.driver_cuda, why, sizeof(why));

	/* A driver too old for every tracer (an unknown one is left to the
	 * tracer, which says what it finds). */
	if (major == 0 && r->info.driver_cuda > 0)
		diag_warn("no tracer of cudatrace runs on this driver: %s: the program will run "
		          "untraced",
		          why);
	if (major != 12)
		return;
	ct_cuda_version_text(r->info.driver_cuda, v, sizeof(v));
	if (tracer_lib_for_cupti(r->library, sizeof(r->library), major) == 0)
		diag_note("the driver supports CUDA %s, older than CUPTI 13 needs: tracing with "
		          "CUPTI 12 (%s)",
		          v, r->library);
	else
		diag_warn("the driver supports CUDA %s, older than CUPTI 13 needs, and the tracer "
		          "built against CUPTI 12 (" TRACER_LIB_CUDA12_NAME ") is not beside %s: "
		          "the program will run untraced (see cudatrace doctor)",
		          v, r->library);
}

/* Where the program's CUDA libraries are expected to come from, for the
 * report's unexpected-location rule. */
static void note_library_places(struct trace_info *info)
{
	const char *places[CUDA_PLACES_MAX];
	char toolkit[PATH_MAX] = "";
	size_t n, used = 0;

	if (!toolkit_find(toolkit, sizeof(toolkit)))
		toolkit[0] = '\0';
	n = cuda_places_expected(toolkit, places);
	for (size_t i = 0; i < n; i++) {
		int len = snprintf(info->library_places + used, sizeof(info->library_places) - used,
		                   "%s%s", used ? ":" : "", places[i]);

		if (len < 0 || (size_t)len >= sizeof(info->library_places) - used) {
			info->library_places[used] = '\0';
			break;
		}
		used += (size_t)len;
	}
}

static void write_info(struct record *r)
{
	if (!r->output[0])
		return;
	if (trace_info_write(r->output, &r->info) < 0)
		diag_warn("cannot write %s/%s: %s", r->output, TRACE_INFO_FILE, strerror(errno));
}

static void init_info(struct record *r)
{
	struct trace_info *info = &r->info;
	const char *base = strrchr(r->command[0], '/');

	memset(info, 0, sizeof(*info));
	snprintf(info->session, sizeof(info->session), "%s", r->session);
	snprintf(info->mode, sizeof(info->mode), "%s", mode_name(r->mode));
	if (gethostname(info->host, sizeof(info->host)) != 0)
		info->host[0] = '\0';
	info->host[sizeof(info->host) - 1] = '\0';
	snprintf(info->program, sizeof(info->program), "%s", base ? base + 1 : r->command[0]);
	trace_info_format_command(r->command, info->command, sizeof(info->command));
	info->recorder_pid = (int)getpid();
	info->end = TRACE_RUNNING;
	info->oom_kills = info->oom_logged = -1;
}

/* ---------------------------------------------------------------- after */

/* HOST of a relay URL such as net://HOST:5342/path or net://[::1]. */
static void url_host(const char *url, char *buf, size_t len)
{
	const char *p = strstr(url, "://");
	size_t n;

	p = p ? p + 3 : url;
	if (*p == '[') {
		const char *end = strchr(p, ']');

		n = end ? (size_t)(end - p + 1) : strlen(p);
	} else {
		n = strcspn(p, ":/");
	}
	snprintf(buf, len, "%.*s", (int)n, p);
}

static void announce(struct record *r)
{
	char host[256];

	if (r->mode == SESSION_LIVE) {
		url_host(r->opts.relayd, host, sizeof(host));
		diag_note("streaming live to %s; watch it with: cudatrace report --live "
		          "net://%s/host/%s/%s",
		          r->opts.relayd, host, r->info.host, r->session);
	} else if (r->mode == SESSION_NETWORK) {
		diag_note("streaming the trace to the relay daemon at %s (session %s)",
		          r->opts.relayd, r->session);
	} else if (r->opts.relayd) {
		diag_note("flight recorder: snapshots go to the relay daemon at %s (session %s)",
		          r->opts.relayd, r->session);
	} else {
		diag_note("tracing into %s%s", r->output,
		          r->mode == SESSION_SNAPSHOT ? " (flight recorder: written at the end)"
		                                      : "");
	}
}

static void describe_end(const struct record *r, char *buf, size_t len)
{
	const struct child_result *c = &r->result;

	if (c->exited)
		snprintf(buf, len, "%s exited with status %d", r->info.program, c->code);
	else
		snprintf(buf, len, "%s was killed by SIG%s%s", r->info.program,
		         sigabbrev_np(c->signal) ? sigabbrev_np(c->signal) : "?",
		         c->core ? " (core dumped)" : "");
}

/* Stop, snapshot, count and close. Returns 0, or -1 when the daemon failed us. */
/*
 * A fault cut the trace (r->watch.fault): said in one line, while the
 * program runs (RUNNING) or once it has ended. Tracing stops, so that the
 * program runs on untraced rather than against buffers that nobody
 * empties any more (and, with --blocking, never waits on them).
 */
static int stop_in_child(void *session, void *out)
{
	(void)out;
	session_stop_now(session);
	return 0;
}

static void fault_seen(struct record *r, bool running)
{
	const char *program = r->info.program;
	char where[PATH_MAX + 16], after[300] = "";

	if (r->output[0])
		snprintf(where, sizeof(where), ", in %s", r->output);
	else
		snprintf(where, sizeof(where), " on the relay daemon");
	if (running)
		snprintf(after, sizeof(after), "; %s runs on, untraced", program);
	switch (r->watch.fault) {
	case TRACE_CUT_DAEMON_DIED:
		diag_error("the LTTng session daemon stopped or failed while %s %s: the trace "
		           "keeps what was written until then%s%s",
		           program, running ? "runs" : "ran", where, after);
		break;
	case TRACE_CUT_CONSUMER_DIED:
		diag_error(
		    "LTTng's consumer daemon (lttng-consumerd), which writes the trace, died "
		    "while %s %s: the trace keeps what was written until then%s%s",
		    program, running ? "runs" : "ran", where, after);
		break;
	case TRACE_CUT_DISK_FULL:
		diag_error("the file system of %s is full: the trace keeps what was written until "
		           "then%s",
		           r->output, after);
		break;
	default:
		return;
	}
	/* What fails from here on because of it was said: no second message. */
	session_set_quiet(true);
	if (r->watch.fault != TRACE_CUT_DAEMON_DIED &&
	    bounded_call(STOP_TIMEOUT_MS, stop_in_child, r->session, NULL, 0) == BOUNDED_TIMEOUT)
		diag_error("the LTTng session daemon does not answer: it could not be told to stop "
		           "tracing within %u s",
		           STOP_TIMEOUT_MS / 1000);
}

/* Stop, snapshot, count and close, as far as the daemon still can. */
static void close_session(const struct record *r, uint64_t *discarded, uint64_t *lost)
{
	*discarded = *lost = 0;
	if (r->watch.fault == TRACE_CUT_DAEMON_DIED)
		return; /* a daemon that died took the session with it */
	if (session_stop(r->session) == 0 && r->mode == SESSION_SNAPSHOT &&
	    r->watch.fault == TRACE_CUT_NONE)
		(void)session_snapshot(r->session);
	if (session_discarded(r->session, discarded, lost) < 0)
		*discarded = *lost = 0;
	(void)session_destroy(r->session);
}

struct finish_counts {
	uint64_t discarded, lost;
};

static int close_in_child(void *arg, void *out)
{
	struct finish_counts *counts = out;

	close_session(arg, &counts->discarded, &counts->lost);
	return 0;
}

/*
 * close_session(), with FINISH_TIMEOUT_MS for it: a session daemon that
 * stops answering must not keep record, and the program's status, from
 * coming back.
 */
static void finish_session(struct record *r, uint64_t *discarded, uint64_t *lost)
{
	struct finish_counts counts = { 0 };
	int ret = bounded_call(FINISH_TIMEOUT_MS, close_in_child, r, &counts, sizeof(counts));

	*discarded = counts.discarded;
	*lost = counts.lost;
	if (ret == BOUNDED_TIMEOUT) {
		diag_error("the LTTng session daemon did not close the session %s within %u s: it "
		           "no longer answers (its consumer daemon may be stuck); the trace keeps "
		           "what was written",
		           r->session, FINISH_TIMEOUT_MS / 1000);
		if (r->watch.fault == TRACE_CUT_NONE) {
			r->watch.fault = TRACE_CUT_DAEMON_STUCK;
			r->watch.fault_ns = r->result.end_ns;
		}
	} else if (ret == BOUNDED_FAILED) {
		close_session(r, discarded, lost);
	}
	stale_unregister(r->session);
}

/*
 * What the kernel says of the program's end, once it has ended: the OOM
 * kills counted in its memory cgroup since it got there, and for a
 * SIGKILL, the kernel log; the limit its host memory had.
 */
static void observe_end(struct record *r)
{
	struct trace_info *info = &r->info;

	if (r->cgroup.version) {
		snprintf(info->cgroup, sizeof(info->cgroup), "%s", r->cgroup.dir);
		info->cgroup_version = r->cgroup.version;
		if (cgroup_memory_refresh(&r->cgroup) == 0 && r->oom_base_known)
			info->oom_kills = (int)(r->cgroup.oom_kills - r->oom_base);
	}
	if (!r->result.exited && r->result.signal == SIGKILL)
		info->oom_logged =
		    r->comm[0] ? (int)kernel_log_oom_killed(r->result.pid, r->comm, r->started_us)
		               : -1;
	info->host_limit_cgroup = r->cgroup.limit_known;
	info->host_limit_bytes =
	    r->cgroup.limit_known ? r->cgroup.limit_bytes : host_memory_total();
}

/* The judgement of the program's end (death.h), into the notes, and said unless all went well. */
static void judge_end(struct record *r)
{
	struct death_facts facts = {
		.jupyter = strstr(r->info.command, "ipykernel") != NULL,
	};
	struct ct_death_facts end;
	char *host;

	if (r->end_known) {
		snprintf(r->info.cuda_error, sizeof(r->info.cuda_error), "%s", r->end.error);
		snprintf(r->info.cuda_error_api, sizeof(r->info.cuda_error_api), "%s",
		         r->end.error_api);
		r->info.gpu_failed_bytes = r->end.failed_bytes;
		snprintf(r->info.gpu_verdict, sizeof(r->info.gpu_verdict), "%s", r->end.verdict);
		facts.sticky_ns = r->end.error_ns;
		facts.failure_ns = r->end.failure_ns;
		/* the probe's exception, else what its stderr said (last_words_note) */
		if (r->end.exception[0]) {
			snprintf(r->info.exception, sizeof(r->info.exception), "%s",
			         r->end.exception);
			snprintf(r->info.exception_site, sizeof(r->info.exception_site), "%s",
			         r->end.exception_site);
			snprintf(r->info.exception_message, sizeof(r->info.exception_message), "%s",
			         r->end.exception_message);
		}
	}
	death_judge(&r->info, &facts);
	if (r->opts.quiet || r->info.death != CT_DEATH_NONE)
		return;
	/* a death is said by the diagnosis, or else by conclude() */
	death_facts_of(&r->info, &end);
	host = ct_death_host(&end);
	if (host)
		diag_note("%s", host);
	g_free(host);
}

static void write_postmortem(struct record *r, const struct summary *s)
{
	char path[PATH_MAX + 32];
	FILE *f;

	if (!r->opts.quiet) {
		/* the diagnosis is on stderr already, in the summary just above */
		summary_print_postmortem(s, r->result.signal, !r->opts.no_report, stderr);
		r->cause_said = true;
	}
	snprintf(path, sizeof(path), "%s/postmortem.txt", r->output);
	f = open_private(path);
	if (!f) {
		diag_warn("cannot write %s: %s", path, strerror(errno));
		return;
	}
	summary_print_postmortem(s, r->result.signal, false, f);
	if (fclose(f) != 0)
		diag_warn("cannot write %s: %s", path, strerror(errno));
	else
		diag_note("post-mortem written to %s", path);
}

/*
 * Why nothing of the trace can be read, when that is known before reading
 * it: no trace at all, or no metadata. NULL when it looks readable.
 */
static const char *unreadable(const struct record *r)
{
	bool none = r->scan.traces == 0 || (r->scan.layout_known && r->scan.event_packets == 0);

	if (!r->scanned)
		return NULL;
	if (none && r->watch.fault != TRACE_CUT_NONE)
		return "no event had reached it when it was cut";
	if (none)
		return "no event was recorded: the program made no CUDA call, or its calls did "
		       "not reach the tracer";
	if (r->scan.metadata_bytes == 0)
		return "LTTng wrote none of its metadata, which says how to read its events";
	return NULL;
}

/* Whether a process of the run loaded CUDA's libraries (the audit
 * library's lists): then CUDA may have refused it. */
static bool loaded_cuda(const struct record *r)
{
	char *const paths[] = { (char *)r->output };
	struct ct_recorded recorded;
	bool found = false;

	if (recorded_read(paths, 1, &recorded) < 0)
		return false;
	for (size_t i = 0; i < recorded.count && !found; i++)
		found = ct_recorded_loaded_cuda(&recorded.processes[i]);
	recorded_free(&recorded);
	return found;
}

static void summarise(struct record *r)
{
	bool killed = !r->result.exited;
	const char *why = unreadable(r);
	struct summary *s;

	if (!r->output[0])
		return;
	if (why && r->watch.fault == TRACE_CUT_NONE && loaded_cuda(r)) {
		diag_warn(
		    "no event was recorded, though %s loaded CUDA's libraries: it made no CUDA "
		    "call, or CUDA refused to start before its driver loaded the tracer (as a "
		    "runtime newer than the driver does); `cudatrace report %s` names the driver "
		    "and the runtime",
		    r->info.program, r->output);
		return;
	}
	if (why) {
		diag_warn("nothing can be read in the trace in %s: %s", r->output, why);
		return;
	}
	if (r->opts.no_report && !killed)
		return;
	s = summary_read(r->output);
	if (!s)
		return;
	if (r->info.has_complete && !r->info.complete)
		summary_note_cut(s);
	r->info.has_counts = true;
	r->info.events = summary_numbers(s)->events;
	r->info.has_summary = true;
	r->info.peak_bytes = summary_numbers(s)->peak_bytes;
	r->info.failures = summary_numbers(s)->failures;
	summary_end_facts(s, r->result.pid, &r->end);
	r->end_known = true;
	judge_end(r);
	/* record's judgement of the end goes into the report: its diagnosis leads with it */
	summary_conclude(s, &r->info);
	if (!r->opts.quiet && !r->opts.no_report) {
		fflush(stdout);
		summary_print_report(s, stderr);
		r->cause_said = true;
	}
	if (killed)
		write_postmortem(r, s);
	summary_destroy(s);
}

/*
 * The discarded events and lost packets, as the trace's packet headers
 * count them (the session daemon's own count can be wrong: it adds 2^63
 * when a packet arrives with a lower count than the one before it). For a
 * trace on a relay daemon, the daemon's count when it looks sane. What no
 * reader can use (partial packets a dying consumer or a full disk left)
 * is cut off the trace's files first.
 */
static void count_discarded(struct record *r, uint64_t daemon_discarded, uint64_t daemon_lost)
{
	r->info.discarded_known = false;
	if (r->output[0]) {
		r->scanned = trace_scan(r->output, true, &r->scan) == 0;
		if (r->scanned && r->scan.layout_known) {
			r->info.discarded_known = true;
			r->info.discarded = r->scan.discarded;
			r->info.lost_packets = r->scan.lost_packets;
		}
		return;
	}
	if (!(daemon_discarded >> 63) && !(daemon_lost >> 63)) {
		r->info.discarded_known = true;
		r->info.discarded = daemon_discarded;
		r->info.lost_packets = daemon_lost;
	}
}

/* "1.25 s" */
static void seconds(long long ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f s", ns > 0 ? (double)ns / 1e9 : 0.0);
}

/*
 * Whether the trace holds all the program did (discarded events aside),
 * into the notes; said when it does not.
 */
static void judge_completeness(struct record *r)
{
	struct trace_info *info = &r->info;
	char into[32], total[32], cut[128] = "";

	info->has_complete = true;
	info->cut = r->watch.fault;
	info->cut_ns = r->watch.fault_ns;
	if (r->scanned) {
		info->cut_bytes = r->scan.partial_bytes;
		if (info->cut == TRACE_CUT_NONE &&
		    (r->scan.partial_streams || !r->scan.metadata_whole))
			info->cut = TRACE_CUT_PARTIAL;
	}
	info->complete = info->cut == TRACE_CUT_NONE;
	if (info->complete)
		return;
	if (r->scanned && r->scan.dropped_bytes)
		snprintf(cut, sizeof(cut),
		         "; the packet%s LTTng was writing then (%llu bytes) could not be kept",
		         r->scan.partial_streams > 1 ? "s" : "",
		         (unsigned long long)r->scan.dropped_bytes);
	seconds(r->result.end_ns - r->result.start_ns, total, sizeof(total));
	if (info->cut_ns && info->cut_ns < r->result.end_ns) {
		seconds(info->cut_ns - r->result.start_ns, into, sizeof(into));
		diag_warn("the trace is incomplete: it ends about %s into %s's %s run, where %s%s",
		          into, info->program, total, trace_info_cut_reason(info->cut), cut);
	} else {
		diag_warn("the trace is incomplete: %s before its end was written%s",
		          trace_info_cut_reason(info->cut), cut);
	}
}

static void conclude(struct record *r)
{
	uint64_t discarded = 0, lost = 0;
	char end[512], count[32] = "?";
	struct stat st;

	/* What it said last, before anything of record's: then what that says of its end. */
	if (r->relay && stderr_relay_save(r->relay) == 0)
		last_words_note(&r->info, r->output);
	/* A fault since the last look, or one the program's end revealed. */
	if (watch_check(&r->watch) != TRACE_CUT_NONE)
		fault_seen(r, false);
	finish_session(r, &discarded, &lost);
	count_discarded(r, discarded, lost);
	/* LTTng is done with the trace: what it made group-readable becomes private. */
	if (r->output[0])
		make_private_tree(r->output);
	r->info.pid = (int)r->result.pid;
	r->info.start_ns = r->result.start_ns;
	r->info.end_ns = r->result.end_ns;
	r->info.end = r->result.exited ? TRACE_EXITED : TRACE_KILLED;
	r->info.end_code = r->result.exited ? r->result.code : r->result.signal;
	describe_end(r, end, sizeof(end));
	diag_note("%s", end);
	judge_completeness(r);
	if (r->info.discarded_known && (r->info.discarded || r->info.lost_packets))
		diag_warn("%llu events were discarded and %llu packets lost for want of buffer "
		          "room: use --blocking, or larger --subbuf-size/--num-subbuf",
		          (unsigned long long)r->info.discarded,
		          (unsigned long long)r->info.lost_packets);
	if (r->info.discarded_known)
		snprintf(count, sizeof(count), "%llu", (unsigned long long)r->info.discarded);
	observe_end(r);
	summarise(r);
	if (r->info.death == CT_DEATH_NOT_JUDGED)
		judge_end(r);
	if (!r->cause_said && r->info.death != CT_DEATH_NONE && !r->opts.quiet) {
		char *cause = death_describe(&r->info);

		diag_note("%s", cause);
		g_free(cause);
	}
	write_info(r);
	session_set_quiet(false);
	if (!r->output[0]) {
		diag_note("the trace is on the relay daemon at %s, session %s (%s events "
		          "discarded)",
		          r->opts.relayd, r->session, count);
		return;
	}
	/* Only a directory that is there is named. */
	if (stat(r->output, &st) != 0)
		return;
	if (r->info.has_counts)
		diag_note("%llu events, %s discarded; trace in %s",
		          (unsigned long long)r->info.events, count, r->output);
	if (!unreadable(r))
		diag_note("full report: cudatrace report %s", r->output);
}

/* ---------------------------------------------------------------- verb */

static enum session_mode choose_mode(const struct record_options *o)
{
	if (o->live)
		return SESSION_LIVE;
	if (o->flight_recorder)
		return SESSION_SNAPSHOT;
	if (o->relayd)
		return SESSION_NETWORK;
	return SESSION_LOCAL;
}

/* "1.50 MiB" */
static void mebibytes(uint64_t bytes, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f MiB", (double)bytes / (1 << 20));
}

/*
 * A trace written as it is recorded needs room on its disk: at least what
 * record keeps free for LTTng (watch.h) and 1 MiB of trace. Without it,
 * the program would run for a trace cut at once.
 */
static int check_room(const struct record *r)
{
	uint64_t margin = watch_disk_margin(r->opts.subbuf_size, r->opts.num_subbuf);
	uint64_t free_bytes, need = margin + (1u << 20);
	char have[32], want[32];

	if (r->mode != SESSION_LOCAL || !r->output[0])
		return 0;
	free_bytes = watch_disk_free(r->output);
	if (free_bytes >= need)
		return 0;
	mebibytes(free_bytes, have, sizeof(have));
	mebibytes(need, want, sizeof(want));
	diag_error("the file system of %s has %s free: a trace there needs %s (room for LTTng "
	           "to write out its buffers, and 1 MiB of events): free some room, choose "
	           "another directory with -o, or give smaller --subbuf-size or --num-subbuf",
	           r->output, have, want);
	return -1;
}

/*
 * The session daemon answers but cannot record: its consumer daemon died,
 * and it never starts another. Record with cudatrace's own, and say so.
 */
static int use_private_daemon(struct record *r)
{
	char home[PATH_MAX];
	bool started;

	if (sessiond_use_private(r->opts.sessiond_timeout_s * 1000u, &started, home, sizeof(home)) <
	    0)
		return -1;
	r->private_daemon = true;
	diag_warn("the LTTng session daemon cannot record any more: its consumer daemon "
	          "(lttng-consumerd) died; %s cudatrace's own session daemon, in %s%s",
	          started ? "started" : "using", home,
	          started ? " (it keeps running for the next runs)" : "");
	return 0;
}

/*
 * In the program's child: back where cudatrace was before it used its own
 * daemon, its stderr the relay's.
 */
static int before_exec(void *data)
{
	struct record *r = data;

	if (r->relay && stderr_relay_child(r->relay) < 0)
		return -1;
	return sessiond_before_exec();
}

static int setup(struct record *r)
{
	bool started;
	int ret;

	if (find_command(r) < 0 ||
	    tracer_lib_find(r->opts.library, r->library, sizeof(r->library)) < 0)
		return -1;
	if (effective_subbuf_size(r) < 0 || choose_output(r) < 0)
		return -1;
	if (check_room(r) < 0)
		goto error;
	if (sessiond_ensure(r->opts.sessiond_timeout_s * 1000u, &started) < 0)
		goto error;
	if (started)
		diag_note("started an LTTng session daemon (it keeps running for the next runs)");
	if (sessiond_consumer_state() == SESSIOND_CONSUMER_DEAD && use_private_daemon(r) < 0)
		goto error;
	stale_cleanup();
	choose_session_name(r);
	ret = start_session(r);
	if (ret == SESSION_NO_CONSUMER && !r->private_daemon) {
		/* Its consumer died as the session was set up. */
		if (use_private_daemon(r) < 0)
			goto error;
		stale_cleanup();
		ret = start_session(r);
	}
	if (ret == SESSION_NO_CONSUMER)
		diag_error("cannot create the cudatrace channels: the LTTng session daemon has no "
		           "consumer daemon for userspace tracing: install LTTng tools built with "
		           "LTTng-UST (Debian: lttng-tools, liblttng-ust1)");
	if (ret < 0)
		goto error;
	init_info(r);
	probe_driver(&r->info);
	choose_tracer(r);
	note_library_places(&r->info);
	write_info(r);
	if (prepare_environment(r) < 0) {
		python_probe_remove(r->python_probe);
		(void)session_destroy(r->session);
		stale_unregister(r->session);
		goto error;
	}
	return 0;
error:
	undo_output(r);
	return -1;
}

int cmd_record(int argc, char **argv)
{
	struct child_hooks hooks = {
		.started = on_started,
		.before_exec = before_exec,
		.tick = on_tick,
		.tick_ms = WATCH_PERIOD_MS,
	};
	struct record r;
	int err, ran;

	memset(&r, 0, sizeof(r));
	diag_set_prefix("cudatrace record");
	/* A session daemon that hangs up must give liblttng-ctl an error, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	session_quiet_library();
	switch (record_options_parse(argc, argv, &r.opts)) {
	case RECORD_PARSE_HELP:
		return 0;
	case RECORD_PARSE_USAGE:
		return EXIT_SETUP;
	case RECORD_PARSE_OK:
		break;
	}
	diag_set_quiet(r.opts.quiet);
	r.command = argv + r.opts.command_index;
	r.mode = choose_mode(&r.opts);
	if (setup(&r) < 0)
		return EXIT_SETUP;
	announce(&r);
	watch_init(&r.watch, r.output, r.mode == SESSION_LOCAL,
	           watch_disk_margin(r.opts.subbuf_size, r.opts.num_subbuf));
	hooks.data = &r;
	/* A local trace directory keeps what the program says on stderr; a relay daemon, not. */
	if (!r.opts.no_stderr && r.output[0])
		r.relay = stderr_relay_open(r.output);
	ran = child_run(r.command_path, r.command, &hooks, &r.result, &err);
	python_probe_remove(r.python_probe);
	if (ran < 0) {
		stderr_relay_close(r.relay);
		/* Nothing ran: leave no trace directory behind. */
		finish_session(&r, &(uint64_t){ 0 }, &(uint64_t){ 0 });
		discard_output(&r);
		return EXIT_SETUP;
	}
	conclude(&r);
	/* the relay runs on for the program's descendants: only record's end of it goes */
	stderr_relay_close(r.relay);
	return child_exit_status(&r.result);
}
