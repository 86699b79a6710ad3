/* SPDX-License-Identifier: MIT */
/*
 * kernel-log.c - the OOM killer's line for a process in /dev/kmsg
 * (kernel-log.h). Each read() of /dev/kmsg returns one record; opened
 * non-blocking, the read after the last record fails with EAGAIN, so the
 * search ends with the log as it is, and never waits for more.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernel-log.h"

/* Records read at most: the ring holds a few thousand; this bounds a log that keeps growing. */
#define MAX_RECORDS 100000

enum kernel_log_oom kernel_log_oom_killed(pid_t pid)
{
	char record[8192], needle[64];
	enum kernel_log_oom found = KERNEL_LOG_NOT_FOUND;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return KERNEL_LOG_UNREADABLE;
	/* "Out of memory: Killed process 1234 (python3) total-vm:..." (mm/oom_kill.c) */
	snprintf(needle, sizeof(needle), "Killed process %d (", (int)pid);
	for (int i = 0; i < MAX_RECORDS && found == KERNEL_LOG_NOT_FOUND; i++) {
		ssize_t n = read(fd, record, sizeof(record) - 1);

		if (n < 0 && errno == EPIPE)
			continue; /* records were overwritten as we read: go on with the next */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && i == 0)
				found = KERNEL_LOG_UNREADABLE;
			break;
		}
		record[n] = '\0';
		if (strstr(record, needle))
			found = KERNEL_LOG_KILLED;
	}
	close(fd);
	return found;
}
