/* SPDX-License-Identifier: MIT */
/*
 * trace-info.c - reading and writing cudatrace.info, the record's own
 * notes beside a trace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "make-dirs.h"
#include "trace-info.h"

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

int trace_info_write(const char *dir, const struct trace_info *info)
{
	char path[4096], tmp[4096];
	FILE *f;
	int ok;

	if (snprintf(path, sizeof(path), "%s/%s", dir, TRACE_INFO_FILE) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, TRACE_INFO_FILE) >= (int)sizeof(tmp))
		return -1;
	f = open_private(tmp);
	if (!f)
		return -1;
	fprintf(f, "version=1\n");
	put(f, "session", info->session);
	put(f, "mode", info->mode);
	put(f, "host", info->host);
	put(f, "program", info->program);
	put(f, "command", info->command);
	fprintf(f, "start_ns=%lld\n", info->start_ns);
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
	ok = !ferror(f);
	if (fclose(f) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
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
	}
}

int trace_info_read(const char *dir, struct trace_info *info)
{
	char path[4096], line[2048];
	FILE *f;

	memset(info, 0, sizeof(*info));
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
