/* SPDX-License-Identifier: MIT */
/*
 * host-memory.c - resident host memory of a process, and of the machine
 * (host-memory.h). /proc/PID/status gives both the resident set and its
 * high water mark without a walk of the process's mappings (as
 * smaps_rollup would do).
 */
#include <stdio.h>

#include "host-memory.h"

int host_memory_rss(pid_t pid, uint64_t *rss, uint64_t *peak)
{
	char file[64], line[256];
	unsigned long long kib;
	int found = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/status", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -1;
	while (found != 3 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmHWM: %llu kB", &kib) == 1) {
			*peak = (uint64_t)kib << 10;
			found |= 1;
		} else if (sscanf(line, "VmRSS: %llu kB", &kib) == 1) {
			*rss = (uint64_t)kib << 10;
			found |= 2;
		}
	}
	fclose(f);
	return found == 3 ? 0 : -1;
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
