/* SPDX-License-Identifier: MIT */
/*
 * host-memory.c - resident host memory of a process, and of the machine
 * (host-memory.h). /proc/PID/status gives both the resident set and its
 * high water mark without a walk of the process's mappings (as
 * smaps_rollup would do).
 */
#include <stdio.h>
#include <string.h>

#include "host-memory.h"

/*
 * The N fields KEYS of /proc/PID/status ("VmRSS", ...), in kB there, in
 * bytes into VALUES. 0, or -1 when one of them cannot be read.
 */
static int read_status(pid_t pid, const char *const *keys, uint64_t *values, size_t n)
{
	char file[64], line[256];
	unsigned long long kib;
	size_t found = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/status", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -1;
	while (found < n && fgets(line, sizeof(line), f)) {
		size_t colon = strcspn(line, ":");

		for (size_t i = 0; i < n; i++)
			if (strlen(keys[i]) == colon && !strncmp(line, keys[i], colon) &&
			    sscanf(line + colon + 1, " %llu kB", &kib) == 1) {
				values[i] = (uint64_t)kib << 10;
				found++;
			}
	}
	fclose(f);
	return found == n ? 0 : -1;
}

int host_memory_rss(pid_t pid, uint64_t *rss, uint64_t *peak)
{
	static const char *const keys[] = { "VmRSS", "VmHWM" };
	uint64_t values[2];

	if (read_status(pid, keys, values, 2) < 0)
		return -1;
	*rss = values[0];
	*peak = values[1];
	return 0;
}

int host_memory_anon(pid_t pid, uint64_t *anon)
{
	static const char *const keys[] = { "RssAnon" };

	return read_status(pid, keys, anon, 1);
}

uint64_t host_memory_total(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return (uint64_t)kib << 10;
}
