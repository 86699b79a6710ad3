/* SPDX-License-Identifier: MIT */
/*
 * stale.c - finding and closing the sessions of dead recorders.
 *
 * A recorder is identified by its pid and its start time (field 22 of
 * /proc/PID/stat), so that a new process that got the same pid is not
 * taken for it. A session with the prefix but no pid file is left alone:
 * cudatrace cannot tell whose it is.
 *
 * The program a session records is noted in the pid file too, the same
 * way, and its descendants are found by the CUDATRACE_SESSION they
 * inherit: a session whose recorder died while its program still runs
 * goes on recording it, and is left alone until the whole tree is gone,
 * so that its trace is not cut.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "contract/events.h"
#include "diag.h"
#include "make-dirs.h"
#include "python-probe.h"
#include "session.h"
#include "sessiond.h"
#include "stale.h"
#include "trace-info.h"
#include "trace-scan.h"

/* A process: its pid and start time (clock ticks after boot; 0 if unknown). */
struct process {
	long pid;
	unsigned long long start;
};

struct pid_record {
	long pid;
	unsigned long long start;
	char mode[16];
	char output[4096];
	char probe[4096];       /* the Python probe's directory, "" none */
	struct process *traced; /* owned: the processes the session records */
	size_t traced_count;
};

/* The kernel's PF_EXITING (include/linux/sched.h): the task is in do_exit(). */
#define TASK_EXITING 0x4u

/*
 * Start time of PID, 0 when it does not exist or has ended: a zombie, or
 * a task already exiting (killed, say, with the recorder that dies at the
 * same moment, as a Jupyter server kills a kernel's process group; tearing
 * down a large address space can take a while).
 */
static unsigned long long process_start(long pid)
{
	char path[64], buf[1024];
	unsigned long long start = 0;
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	/* The name may hold spaces and parentheses: count fields after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* P is now the space before field 3 (the state); the start time is field 22. */
	p++;
	/* A zombie's program has ended: it only waits for its parent to reap it. */
	if (p[1] == 'Z' || p[1] == 'X')
		return 0;
	for (int field = 3; field < 9 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || (strtoul(p + 1, NULL, 10) & TASK_EXITING))
		return 0;
	for (int field = 9; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

static int pid_dir(char *buf, size_t len)
{
	char rundir[4096];

	if (sessiond_rundir(rundir, sizeof(rundir)) < 0)
		return -1;
	return snprintf(buf, len, "%s/cudatrace", rundir) < (int)len ? 0 : -1;
}

static int pid_path(const char *name, char *buf, size_t len)
{
	char dir[4096];

	if (pid_dir(dir, sizeof(dir)) < 0)
		return -1;
	return snprintf(buf, len, "%s/%s.pid", dir, name) < (int)len ? 0 : -1;
}

int stale_register(const char *name, const char *mode, const char *output)
{
	char dir[4096], path[4096];
	FILE *f;
	long pid = (long)getpid();

	if (pid_dir(dir, sizeof(dir)) < 0 || pid_path(name, path, sizeof(path)) < 0) {
		diag_error("cannot name the LTTng run directory: set HOME or LTTNG_HOME");
		return -1;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		diag_error("cannot create %s: %s: check that the LTTng run directory is writable",
		           dir, strerror(errno));
		return -1;
	}
	f = open_private(path);
	if (!f) {
		diag_error("cannot write %s: %s: check that the LTTng run directory is writable",
		           path, strerror(errno));
		return -1;
	}
	fprintf(f, "pid=%ld\nstart=%llu\nmode=%s\noutput=%s\n", pid, process_start(pid), mode,
	        output);
	if (fclose(f) != 0) {
		diag_error("cannot write %s: %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

/* Appends "KEY=VALUE" to NAME's pid file; a note that cannot be written is lost. */
static void note(const char *name, const char *key, const char *value)
{
	char path[4096];
	FILE *f;

	if (pid_path(name, path, sizeof(path)) < 0)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s=%s\n", key, value);
	fclose(f);
}

void stale_add_process(const char *name, pid_t pid)
{
	char value[64];

	snprintf(value, sizeof(value), "%ld:%llu", (long)pid, process_start((long)pid));
	note(name, "traced", value);
}

void stale_add_probe(const char *name, const char *dir)
{
	if (dir[0])
		note(name, "probe", dir);
}

void stale_unregister(const char *name)
{
	char path[4096];

	if (pid_path(name, path, sizeof(path)) == 0)
		unlink(path);
}

static void add_traced(struct pid_record *rec, const char *value)
{
	struct process *grown;
	char *colon;

	grown = realloc(rec->traced, (rec->traced_count + 1) * sizeof(*grown));
	if (!grown)
		return;
	rec->traced = grown;
	rec->traced[rec->traced_count].pid = strtol(value, &colon, 10);
	rec->traced[rec->traced_count].start = *colon == ':' ? strtoull(colon + 1, NULL, 10) : 0;
	if (rec->traced[rec->traced_count].pid > 0)
		rec->traced_count++;
}

static int read_pid_file(const char *path, struct pid_record *rec)
{
	char line[4200];
	FILE *f = fopen(path, "r");

	memset(rec, 0, sizeof(*rec));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (n && line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (strncmp(line, "pid=", 4) == 0)
			rec->pid = strtol(line + 4, NULL, 10);
		else if (strncmp(line, "start=", 6) == 0)
			rec->start = strtoull(line + 6, NULL, 10);
		else if (strncmp(line, "mode=", 5) == 0)
			snprintf(rec->mode, sizeof(rec->mode), "%.15s", line + 5);
		else if (strncmp(line, "output=", 7) == 0)
			snprintf(rec->output, sizeof(rec->output), "%.4095s", line + 7);
		else if (strncmp(line, "probe=", 6) == 0)
			snprintf(rec->probe, sizeof(rec->probe), "%.4095s", line + 6);
		else if (strncmp(line, "traced=", 7) == 0)
			add_traced(rec, line + 7);
	}
	fclose(f);
	return rec->pid > 0 ? 0 : -1;
}

static bool alive(long pid, unsigned long long noted_start)
{
	unsigned long long start = process_start(pid);

	if (start == 0)
		return false;
	/* A pid noted without a start time: trust the pid alone. */
	return noted_start == 0 || noted_start == start;
}

static bool recorder_alive(const struct pid_record *rec)
{
	return alive(rec->pid, rec->start);
}

/*
 * Whether the environment of PID holds NEEDLE (a whole "NAME=VALUE\0"),
 * read in chunks so that a huge environment costs no memory.
 */
static bool environ_holds(long pid, const char *needle, size_t len)
{
	char path[64], buf[8192];
	size_t kept = 0;
	ssize_t got;
	bool found = false;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* buf[0] is a NUL, so that a match at the very start is a whole entry. */
	buf[0] = '\0';
	kept = 1;
	while (!found && (got = read(fd, buf + kept, sizeof(buf) - kept)) > 0) {
		size_t n = kept + (size_t)got;

		found = memmem(buf, n, needle, len) != NULL;
		/* Keep the tail that could begin a match across the next read. */
		kept = n < len ? n : len - 1;
		memmove(buf, buf + n - kept, kept);
	}
	close(fd);
	return found;
}

/*
 * A process of the session's tree that still runs, found by the
 * CUDATRACE_SESSION=NAME it inherited (record.c): its pid, or 0. Only
 * processes of this user can be read, and only theirs can be recorded.
 */
static long tree_member_alive(const char *name)
{
	char needle[300];
	struct dirent *de;
	long found = 0, self = (long)getpid();
	int len;
	DIR *d;

	len = snprintf(needle, sizeof(needle), "%c%s=%s%c", '\0', CT_SESSION_ENV, name, '\0');
	if (len < 0 || (size_t)len >= sizeof(needle))
		return 0;
	d = opendir("/proc");
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		if (environ_holds(pid, needle, (size_t)len) && process_start(pid))
			found = pid;
	}
	closedir(d);
	return found;
}

/* A process the session records that still runs (its pid), or 0. */
static long traced_alive(const char *name, const struct pid_record *rec)
{
	for (size_t i = 0; i < rec->traced_count; i++) {
		if (alive(rec->traced[i].pid, rec->traced[i].start))
			return rec->traced[i].pid;
	}
	return tree_member_alive(name);
}

static bool session_listed(const struct lttng_session *sessions, int count, const char *name)
{
	for (int i = 0; i < count; i++) {
		if (strcmp(sessions[i].name, name) == 0)
			return true;
	}
	return false;
}

/*
 * The trace directory keeps the record's notes: say how it ended, and
 * whether the trace holds all the program did (CUT: why not; the session
 * was closed after its program ended, TRACE_CUT_NONE). What the trace's
 * packets say is counted, and partial packets are cut off, as record does.
 */
static void mark_abandoned(const char *output, enum trace_cut cut)
{
	struct trace_info info;
	struct trace_scan scan;

	if (!output[0] || trace_info_read(output, &info) < 0 || info.end != TRACE_RUNNING)
		return;
	info.end = TRACE_ABANDONED;
	info.has_complete = true;
	info.cut = cut;
	if (trace_scan(output, true, &scan) == 0) {
		if (scan.layout_known) {
			info.discarded_known = true;
			info.discarded = scan.discarded;
			info.lost_packets = scan.lost_packets;
		}
		info.cut_bytes = scan.partial_bytes;
		if (info.cut == TRACE_CUT_NONE && (scan.partial_streams || !scan.metadata_whole))
			info.cut = TRACE_CUT_PARTIAL;
	}
	info.complete = info.cut == TRACE_CUT_NONE;
	(void)trace_info_write(output, &info);
}

/* The trace is named only when its directory is there. */
static bool exists(const char *path)
{
	struct stat st;

	return path[0] && stat(path, &st) == 0;
}

static void close_stale(const char *name, const struct pid_record *rec)
{
	/* A flight recorder's data is only in memory: write it before it goes. */
	if (strcmp(rec->mode, "snapshot") == 0) {
		(void)lttng_stop_tracing(name);
		if (lttng_snapshot_record(name, NULL, 1) < 0)
			diag_warn("the flight recorder of stale session %s had nothing to save",
			          name);
	}
	if (session_destroy(name) < 0)
		return;
	if (exists(rec->output))
		make_private_tree(rec->output);
	/* Its program was gone before the session was closed: nothing was cut. */
	mark_abandoned(rec->output, TRACE_CUT_NONE);
	if (exists(rec->output))
		diag_note("closed the session %s left by a cudatrace record that died (pid %ld); "
		          "its trace is in %s",
		          name, rec->pid, rec->output);
	else
		diag_note("closed the session %s left by a cudatrace record that died (pid %ld)",
		          name, rec->pid);
}

void stale_cleanup_before_reading(void)
{
	char dir[4096];
	struct stat st;

	/* no pid file directory: no record ever ran here, nothing to ask the daemon */
	if (pid_dir(dir, sizeof(dir)) < 0 || stat(dir, &st) != 0)
		return;
	stale_cleanup();
}

int stale_cleanup(void)
{
	struct lttng_session *sessions = NULL;
	char dir[4096];
	struct dirent *de;
	int count, closed = 0;
	DIR *d;

	if (pid_dir(dir, sizeof(dir)) < 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	count = lttng_list_sessions(&sessions);
	/* No daemon: the sessions it held are gone with it (a command that reads traces
	 * runs without one) */
	if (count == -LTTNG_ERR_NO_SESSIOND) {
		count = 0;
		sessions = NULL;
	}
	if (count < 0) {
		closedir(d);
		return 0;
	}
	while ((de = readdir(d))) {
		char name[256], path[4400];
		struct pid_record rec;
		size_t n = strlen(de->d_name);
		bool listed;
		long running;

		if (n <= 4 || strcmp(de->d_name + n - 4, ".pid") != 0 || n - 4 >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 4), de->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (strncmp(name, STALE_SESSION_PREFIX, strlen(STALE_SESSION_PREFIX)) != 0)
			continue;
		if (read_pid_file(path, &rec) < 0 || recorder_alive(&rec)) {
			free(rec.traced);
			continue;
		}
		listed = session_listed(sessions, count, name);
		running = traced_alive(name, &rec);
		if (listed && running) {
			/* Still recording its program: closing it now would cut the trace. */
			diag_note("left the session %s of a cudatrace record that died (pid %ld) "
			          "alone: it still records its program (pid %ld)",
			          name, rec.pid, running);
		} else {
			if (listed) {
				close_stale(name, &rec);
				closed++;
			} else {
				/* Its daemon went away before it was closed: what it held then is lost. */
				if (exists(rec.output))
					make_private_tree(rec.output);
				mark_abandoned(rec.output, TRACE_CUT_SESSION_LOST);
			}
			/* No interpreter of its tree is left to start from it. */
			python_probe_remove(rec.probe);
			unlink(path);
		}
		free(rec.traced);
	}
	closedir(d);
	free(sessions);
	return closed;
}
