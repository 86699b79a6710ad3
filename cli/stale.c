/* SPDX-License-Identifier: MIT */
/*
 * stale.c - finding and closing the sessions of dead recorders.
 *
 * A recorder is identified by its pid and its start time (field 22 of
 * /proc/PID/stat), so that a new process that got the same pid is not
 * taken for it. A session with the prefix but no pid file is left alone:
 * cudatrace cannot tell whose it is.
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

#include "diag.h"
#include "make-dirs.h"
#include "session.h"
#include "sessiond.h"
#include "stale.h"
#include "trace-info.h"

struct pid_record {
	long pid;
	unsigned long long start; /* clock ticks after boot; 0 if unknown */
	char mode[16];
	char output[4096];
};

/* Start time of PID, 0 when it does not exist. */
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
	/* P is now the space before field 3; the start time is field 22. */
	p++;
	for (int field = 3; field < 22 && p; field++)
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

void stale_unregister(const char *name)
{
	char path[4096];

	if (pid_path(name, path, sizeof(path)) == 0)
		unlink(path);
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
	}
	fclose(f);
	return rec->pid > 0 ? 0 : -1;
}

static bool recorder_alive(const struct pid_record *rec)
{
	unsigned long long start = process_start(rec->pid);

	if (start == 0)
		return false;
	/* A pid file without a start time: trust the pid alone. */
	return rec->start == 0 || rec->start == start;
}

static bool session_listed(const struct lttng_session *sessions, int count, const char *name)
{
	for (int i = 0; i < count; i++) {
		if (strcmp(sessions[i].name, name) == 0)
			return true;
	}
	return false;
}

/* The trace directory keeps the record's notes: say how it ended. */
static void mark_abandoned(const char *output)
{
	struct trace_info info;

	if (!output[0] || trace_info_read(output, &info) < 0 || info.end != TRACE_RUNNING)
		return;
	info.end = TRACE_ABANDONED;
	(void)trace_info_write(output, &info);
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
	if (rec->output[0])
		make_private_tree(rec->output);
	mark_abandoned(rec->output);
	if (rec->output[0])
		diag_note("closed the session %s left by a cudatrace record that died (pid %ld); "
		          "its trace is in %s",
		          name, rec->pid, rec->output);
	else
		diag_note("closed the session %s left by a cudatrace record that died (pid %ld)",
		          name, rec->pid);
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
	if (count < 0) {
		closedir(d);
		return 0;
	}
	while ((de = readdir(d))) {
		char name[256], path[4400];
		struct pid_record rec;
		size_t n = strlen(de->d_name);

		if (n <= 4 || strcmp(de->d_name + n - 4, ".pid") != 0 || n - 4 >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 4), de->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (strncmp(name, STALE_SESSION_PREFIX, strlen(STALE_SESSION_PREFIX)) != 0)
			continue;
		if (read_pid_file(path, &rec) < 0 || recorder_alive(&rec))
			continue;
		if (session_listed(sessions, count, name)) {
			close_stale(name, &rec);
			closed++;
		} else {
			mark_abandoned(rec.output);
		}
		unlink(path);
	}
	closedir(d);
	free(sessions);
	return closed;
}
