/* SPDX-License-Identifier: MIT */
/*
 * trace-info.c - reading and writing cudatrace.info, the record's own
 * notes beside a trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace-info.h"

static const char *const cut_names[] = {
	[TRACE_CUT_NONE] = "",
	[TRACE_CUT_CONSUMER_DIED] = "consumer-died",
	[TRACE_CUT_DAEMON_DIED] = "daemon-died",
	[TRACE_CUT_DISK_FULL] = "disk-full",
	[TRACE_CUT_PARTIAL] = "partial-packets",
	[TRACE_CUT_SESSION_LOST] = "session-lost",
	[TRACE_CUT_DAEMON_STUCK] = "daemon-stuck",
};

static const char *const cut_reasons[] = {
	[TRACE_CUT_NONE] = "",
	[TRACE_CUT_CONSUMER_DIED] = "LTTng's consumer daemon died",
	[TRACE_CUT_DAEMON_DIED] = "the LTTng session daemon died",
	[TRACE_CUT_DISK_FULL] = "the file system filled up",
	[TRACE_CUT_PARTIAL] = "LTTng left partial packets",
	[TRACE_CUT_SESSION_LOST] = "its recorder died, then its session daemon, before the "
	                           "session was closed",
	[TRACE_CUT_DAEMON_STUCK] = "the LTTng session daemon stopped answering",
};

const char *trace_info_cut_name(enum trace_cut cut)
{
	return (size_t)cut < sizeof(cut_names) / sizeof(cut_names[0]) ? cut_names[cut] : "";
}

const char *trace_info_cut_reason(enum trace_cut cut)
{
	return (size_t)cut < sizeof(cut_reasons) / sizeof(cut_reasons[0]) ? cut_reasons[cut] : "";
}

bool trace_info_recorder_running(const struct trace_info *info)
{
	char host[256] = "";

	if (info->recorder_pid <= 0)
		return false;
	gethostname(host, sizeof(host) - 1);
	if (strcmp(host, info->host) != 0)
		return true; /* another machine's: cannot tell, assume it runs */
	return kill(info->recorder_pid, 0) == 0 || errno == EPERM;
}

static const char *const end_names[] = {
	[TRACE_RUNNING] = "running",
	[TRACE_EXITED] = "exited",
	[TRACE_KILLED] = "killed",
	[TRACE_ABANDONED] = "abandoned",
};

/* Values are one line: line breaks in them become spaces. */
static void put(FILE *f, const char *key, const char *value)
{
	fprintf(f, "%s=", key);
	for (const char *p = value; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
	fputc('\n', f);
}

/* Room kept for cudatrace.info beyond its end, for a rewrite on a full disk. */
#define INFO_ROOM 4096

static void format_death(FILE *f, const struct trace_info *info)
{
	if (info->death == CT_DEATH_NOT_JUDGED)
		return;
	fprintf(f, "death=%s\n", ct_death_name(info->death));
	if (info->cgroup_version) {
		put(f, "cgroup", info->cgroup);
		fprintf(f, "cgroup_version=%d\n", info->cgroup_version);
	}
	if (info->oom_kills >= 0)
		fprintf(f, "oom_kills=%d\n", info->oom_kills);
	if (info->oom_logged >= 0)
		fprintf(f, "oom_logged=%s\n", info->oom_logged ? "true" : "false");
	if (info->host_rss_bytes) {
		fprintf(f, "host_rss_bytes=%llu\n", (unsigned long long)info->host_rss_bytes);
		fprintf(f, "host_rss_peak_bytes=%llu\n",
		        (unsigned long long)info->host_rss_peak_bytes);
	}
	if (info->host_anon_peak_bytes)
		fprintf(f, "host_anon_peak_bytes=%llu\n",
		        (unsigned long long)info->host_anon_peak_bytes);
	if (info->host_limit_bytes) {
		fprintf(f, "host_limit_bytes=%llu\n", (unsigned long long)info->host_limit_bytes);
		fprintf(f, "host_limit=%s\n", info->host_limit_cgroup ? "cgroup" : "machine");
	}
	if (info->cuda_error[0]) {
		put(f, "cuda_error", info->cuda_error);
		put(f, "cuda_error_api", info->cuda_error_api);
	}
	if (info->gpu_failed_bytes) {
		fprintf(f, "gpu_failed_bytes=%llu\n", (unsigned long long)info->gpu_failed_bytes);
		put(f, "gpu_verdict", info->gpu_verdict);
	}
	if (info->exception[0]) {
		put(f, "exception", info->exception);
		put(f, "exception_site", info->exception_site);
		put(f, "exception_message", info->exception_message);
	}
	if (info->framework_oom[0]) {
		put(f, "framework_oom", info->framework_oom);
		fprintf(f, "framework_oom_bytes=%llu\n",
		        (unsigned long long)info->framework_oom_bytes);
	}
}

/* The notes as text, into F. */
static void format(FILE *f, const struct trace_info *info)
{
	fprintf(f, "version=1\n");
	put(f, "session", info->session);
	put(f, "mode", info->mode);
	put(f, "host", info->host);
	put(f, "program", info->program);
	put(f, "command", info->command);
	fprintf(f, "start_ns=%lld\n", info->start_ns);
	if (info->driver_cuda > 0)
		fprintf(f, "driver_cuda=%d\n", info->driver_cuda);
	if (info->driver_path[0])
		put(f, "driver_path", info->driver_path);
	if (info->library_places[0])
		put(f, "library_places", info->library_places);
	fprintf(f, "recorder_pid=%d\n", info->recorder_pid);
	fprintf(f, "pid=%d\n", info->pid);
	fprintf(f, "end=%s\n", end_names[info->end]);
	if (info->end != TRACE_RUNNING) {
		fprintf(f, "end_ns=%lld\n", info->end_ns);
		fprintf(f, "end_code=%d\n", info->end_code);
	}
	if (info->has_counts)
		fprintf(f, "events=%llu\n", (unsigned long long)info->events);
	if (info->discarded_known) {
		fprintf(f, "discarded=%llu\n", (unsigned long long)info->discarded);
		fprintf(f, "lost_packets=%llu\n", (unsigned long long)info->lost_packets);
	}
	if (info->has_summary) {
		fprintf(f, "peak_bytes=%llu\n", (unsigned long long)info->peak_bytes);
		fprintf(f, "failures=%llu\n", (unsigned long long)info->failures);
	}
	if (info->has_complete) {
		fprintf(f, "complete=%s\n", info->complete ? "true" : "false");
		if (!info->complete && info->cut != TRACE_CUT_NONE)
			fprintf(f, "incomplete=%s\n", trace_info_cut_name(info->cut));
		if (!info->complete && info->cut_ns)
			fprintf(f, "incomplete_ns=%lld\n", info->cut_ns);
		if (info->cut_bytes)
			fprintf(f, "partial_bytes=%llu\n", (unsigned long long)info->cut_bytes);
	}
	format_death(f, info);
}

static int write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Rewrites PATH in place with TEXT, within the room it already has. */
static int rewrite_in_place(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	int ok;

	if (fd < 0)
		return -1;
	ok = fchmod(fd, 0600) == 0 && write_all(fd, text, len) == 0 &&
	     ftruncate(fd, (off_t)len) == 0 && fsync(fd) == 0;
	if (close(fd) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

int trace_info_write(const char *dir, const struct trace_info *info)
{
	char path[4096], tmp[4096], *text = NULL;
	size_t len = 0;
	FILE *mem;
	int fd, err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, TRACE_INFO_FILE) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, TRACE_INFO_FILE) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	mem = open_memstream(&text, &len);
	if (!mem)
		return -1;
	format(mem, info);
	if (fclose(mem) != 0) {
		free(text);
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0) {
		int ok;

		/* Room for the next rewrite, should the disk be full by then. */
		(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, INFO_ROOM);
		ok = fchmod(fd, 0600) == 0 && write_all(fd, text, len) == 0;
		err = errno;
		if (close(fd) != 0 && ok) {
			ok = 0;
			err = errno;
		}
		if (ok && rename(tmp, path) == 0) {
			free(text);
			return 0;
		}
		if (ok)
			err = errno;
		unlink(tmp);
		errno = err;
	}
	/* No room for a new file: the old one, in the room it kept. */
	err = errno;
	if ((err == ENOSPC || err == EDQUOT) && rewrite_in_place(path, text, len) == 0) {
		free(text);
		return 0;
	}
	free(text);
	errno = err;
	return -1;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

static long long number(const char *s)
{
	return strtoll(s, NULL, 10);
}

static uint64_t unsigned_number(const char *s)
{
	return strtoull(s, NULL, 10);
}

/* What its last lines on standard error said (framework_oom=, framework_oom_bytes=). */
static void parse_words(struct trace_info *info, const char *key, const char *value)
{
	if (strcmp(key, "framework_oom") == 0)
		copy(info->framework_oom, sizeof(info->framework_oom), value);
	else if (strcmp(key, "framework_oom_bytes") == 0)
		info->framework_oom_bytes = unsigned_number(value);
}

static void parse_death(struct trace_info *info, const char *key, const char *value)
{
	if (strcmp(key, "death") == 0) {
		info->death = ct_death_of_name(value);
	} else if (strcmp(key, "cgroup") == 0) {
		copy(info->cgroup, sizeof(info->cgroup), value);
	} else if (strcmp(key, "cgroup_version") == 0) {
		info->cgroup_version = (int)number(value);
	} else if (strcmp(key, "oom_kills") == 0) {
		info->oom_kills = (int)number(value);
	} else if (strcmp(key, "oom_logged") == 0) {
		info->oom_logged = strcmp(value, "true") == 0;
	} else if (strcmp(key, "host_rss_bytes") == 0) {
		info->host_rss_bytes = unsigned_number(value);
	} else if (strcmp(key, "host_rss_peak_bytes") == 0) {
		info->host_rss_peak_bytes = unsigned_number(value);
	} else if (strcmp(key, "host_anon_peak_bytes") == 0) {
		info->host_anon_peak_bytes = unsigned_number(value);
	} else if (strcmp(key, "host_limit_bytes") == 0) {
		info->host_limit_bytes = unsigned_number(value);
	} else if (strcmp(key, "host_limit") == 0) {
		info->host_limit_cgroup = strcmp(value, "cgroup") == 0;
	} else if (strcmp(key, "cuda_error") == 0) {
		copy(info->cuda_error, sizeof(info->cuda_error), value);
	} else if (strcmp(key, "cuda_error_api") == 0) {
		copy(info->cuda_error_api, sizeof(info->cuda_error_api), value);
	} else if (strcmp(key, "gpu_failed_bytes") == 0) {
		info->gpu_failed_bytes = unsigned_number(value);
	} else if (strcmp(key, "gpu_verdict") == 0) {
		copy(info->gpu_verdict, sizeof(info->gpu_verdict), value);
	} else if (strcmp(key, "exception") == 0) {
		copy(info->exception, sizeof(info->exception), value);
	} else if (strcmp(key, "exception_site") == 0) {
		copy(info->exception_site, sizeof(info->exception_site), value);
	} else if (strcmp(key, "exception_message") == 0) {
		copy(info->exception_message, sizeof(info->exception_message), value);
	} else {
		parse_words(info, key, value);
	}
}

static void parse_line(struct trace_info *info, const char *key, const char *value)
{
	if (strcmp(key, "session") == 0) {
		copy(info->session, sizeof(info->session), value);
	} else if (strcmp(key, "mode") == 0) {
		copy(info->mode, sizeof(info->mode), value);
	} else if (strcmp(key, "host") == 0) {
		copy(info->host, sizeof(info->host), value);
	} else if (strcmp(key, "program") == 0) {
		copy(info->program, sizeof(info->program), value);
	} else if (strcmp(key, "command") == 0) {
		copy(info->command, sizeof(info->command), value);
	} else if (strcmp(key, "start_ns") == 0) {
		info->start_ns = number(value);
	} else if (strcmp(key, "driver_cuda") == 0) {
		info->driver_cuda = (int)number(value);
	} else if (strcmp(key, "driver_path") == 0) {
		copy(info->driver_path, sizeof(info->driver_path), value);
	} else if (strcmp(key, "library_places") == 0) {
		copy(info->library_places, sizeof(info->library_places), value);
	} else if (strcmp(key, "end_ns") == 0) {
		info->end_ns = number(value);
	} else if (strcmp(key, "recorder_pid") == 0) {
		info->recorder_pid = (int)number(value);
	} else if (strcmp(key, "pid") == 0) {
		info->pid = (int)number(value);
	} else if (strcmp(key, "end") == 0) {
		for (size_t i = 0; i < sizeof(end_names) / sizeof(end_names[0]); i++) {
			if (strcmp(value, end_names[i]) == 0)
				info->end = (enum trace_end)i;
		}
	} else if (strcmp(key, "end_code") == 0) {
		info->end_code = (int)number(value);
	} else if (strcmp(key, "events") == 0) {
		info->has_counts = true;
		info->events = unsigned_number(value);
	} else if (strcmp(key, "discarded") == 0) {
		info->discarded_known = true;
		info->discarded = unsigned_number(value);
	} else if (strcmp(key, "lost_packets") == 0) {
		info->lost_packets = unsigned_number(value);
	} else if (strcmp(key, "peak_bytes") == 0) {
		info->has_summary = true;
		info->peak_bytes = unsigned_number(value);
	} else if (strcmp(key, "failures") == 0) {
		info->failures = unsigned_number(value);
	} else if (strcmp(key, "complete") == 0) {
		info->has_complete = true;
		info->complete = strcmp(value, "false") != 0;
	} else if (strcmp(key, "incomplete") == 0) {
		for (size_t i = 1; i < sizeof(cut_names) / sizeof(cut_names[0]); i++) {
			if (strcmp(value, cut_names[i]) == 0)
				info->cut = (enum trace_cut)i;
		}
	} else if (strcmp(key, "incomplete_ns") == 0) {
		info->cut_ns = number(value);
	} else if (strcmp(key, "partial_bytes") == 0) {
		info->cut_bytes = unsigned_number(value);
	} else {
		parse_death(info, key, value);
	}
}

int trace_info_read(const char *dir, struct trace_info *info)
{
	char path[4096], line[2048];
	FILE *f;

	memset(info, 0, sizeof(*info));
	info->oom_kills = info->oom_logged = -1;
	if (snprintf(path, sizeof(path), "%s/%s", dir, TRACE_INFO_FILE) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		size_t n = strlen(line);

		if (n && line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (!eq)
			continue;
		*eq = '\0';
		parse_line(info, line, eq + 1);
	}
	fclose(f);
	return 0;
}

/* Arguments with nothing a shell would read specially are shown bare. */
static int needs_quotes(const char *arg)
{
	if (!*arg)
		return 1;
	for (const char *p = arg; *p; p++) {
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		            "_-./=:,+@%",
		            *p))
			return 1;
	}
	return 0;
}

void trace_info_format_command(char *const argv[], char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i] && used + 1 < len; i++) {
		const char *arg = argv[i];

		if (i > 0)
			buf[used++] = ' ';
		if (!needs_quotes(arg)) {
			used += (size_t)snprintf(buf + used, len - used, "%s", arg);
		} else {
			buf[used++] = '\'';
			for (const char *p = arg; *p && used + 5 < len; p++) {
				if (*p == '\'') {
					memcpy(buf + used, "'\\''", 4);
					used += 4;
				} else {
					buf[used++] = *p;
				}
			}
			if (used + 1 < len)
				buf[used++] = '\'';
		}
		if (used >= len)
			used = len - 1;
		buf[used] = '\0';
	}
}
