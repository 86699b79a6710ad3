/* SPDX-License-Identifier: MIT */
/*
 * kernel-log.h - whether the kernel's log (/dev/kmsg) says that the OOM
 * killer killed a process: its "Killed process PID (NAME)" line, with the
 * process's name as the kernel has it, logged since the process started.
 * The log is often unreadable (it needs CAP_SYSLOG where dmesg_restrict
 * is set) and, in a PID namespace other than the first (a container's),
 * names the process by its pid outside it: there it is not read, for a
 * line not found would prove nothing. The name and the time keep an old
 * line of a reused pid from counting.
 */
#ifndef CUDATRACE_CLI_KERNEL_LOG_H
#define CUDATRACE_CLI_KERNEL_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum kernel_log_oom {
	KERNEL_LOG_UNREADABLE = -1, /* the log could not be read, or not for this PID namespace */
	KERNEL_LOG_NOT_FOUND = 0,   /* read, and no such line for PID */
	KERNEL_LOG_KILLED = 1,      /* the OOM killer killed PID */
};

/* PID's name as the kernel log gives it (/proc/PID/comm) into NAME. 0, or -1 when it is gone. */
int kernel_log_name(pid_t pid, char *name, size_t len);

/*
 * What the kernel log says of PID, called NAME, in the lines logged at
 * or after SINCE_US (CLOCK_MONOTONIC, microseconds, as the log stamps its
 * lines), reading what it holds now, without waiting.
 */
enum kernel_log_oom kernel_log_oom_killed(pid_t pid, const char *name, uint64_t since_us);

#endif
