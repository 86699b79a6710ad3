/* SPDX-License-Identifier: MIT */
/*
 * kernel-log.c - the OOM killer's line for a process in /dev/kmsg
 * (kernel-log.h). Each read() of /dev/kmsg returns one record,
 * "PRIORITY,SEQUENCE,MICROSECONDS,FLAGS;MESSAGE"; opened non-blocking, the
 * read after the last record fails with EAGAIN, so the search ends with
 * the log as it is, and never waits for more.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel-log.h"

/* Records read at most: the ring holds a few thousand; this bounds a log that keeps growing. */
#define MAX_RECORDS 100000

/* The inode of the first PID namespace, fixed since Linux 3.8. */
#define PROC_PID_INIT_INO 0xEFFFFFFCU

int kernel_log_name(pid_t pid, char *name, size_t len)
{
	char file[64];
	FILE *f;
	int ok;

	snprintf(file, sizeof(file), "/proc/%d/comm", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -1;
	ok = fgets(name, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	name[strcspn(name, "\n")] = '\0';
	return 0;
}

/* Whether RECORD is the OOM killer's line for NEEDLE, stamped at or after SINCE_US. */
static int matches(const char *record, const char *needle, uint64_t since_us)
{
	uint64_t stamp;

	/* "Out of memory: Killed process 1234 (python3) total-vm:..." (mm/oom_kill.c) */
	if (!strstr(record, needle) || sscanf(record, "%*u,%*u,%" SCNu64, &stamp) != 1)
		return 0;
	return stamp >= since_us;
}

/*
 * Whether the caller is in the first PID namespace, whose pids the kernel
 * log gives: its inode is the kernel's fixed PROC_PID_INIT_INO
 * (include/linux/proc_ns.h). Elsewhere, as in a container, a process's
 * pid is not the one the log names it by.
 */
static bool in_first_pid_namespace(void)
{
	struct stat ns;

	return stat("/proc/self/ns/pid", &ns) == 0 && ns.st_ino == PROC_PID_INIT_INO;
}

enum kernel_log_oom kernel_log_oom_killed(pid_t pid, const char *name, uint64_t since_us)
{
	char record[8192], needle[64];
	enum kernel_log_oom found = KERNEL_LOG_NOT_FOUND;
	int fd;

	if (!in_first_pid_namespace())
		return KERNEL_LOG_UNREADABLE;
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return KERNEL_LOG_UNREADABLE;
	snprintf(needle, sizeof(needle), "Killed process %d (%.16s)", (int)pid, name);
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
		if (matches(record, needle, since_us))
			found = KERNEL_LOG_KILLED;
	}
	close(fd);
	return found;
}
