/* SPDX-License-Identifier: MIT */
/*
 * kernel-log.h - whether the kernel's log (/dev/kmsg) says that the OOM
 * killer killed a process: its "Killed process PID (NAME)" line. The log
 * is often unreadable (it needs CAP_SYSLOG where dmesg_restrict is set)
 * and, in a PID namespace, names the process by its pid outside it: a
 * line not found proves nothing.
 */
#ifndef CUDATRACE_CLI_KERNEL_LOG_H
#define CUDATRACE_CLI_KERNEL_LOG_H

#include <sys/types.h>

enum kernel_log_oom {
	KERNEL_LOG_UNREADABLE = -1, /* the log could not be read */
	KERNEL_LOG_NOT_FOUND = 0,   /* read, and no such line for PID */
	KERNEL_LOG_KILLED = 1,      /* the OOM killer killed PID */
};

/* What the kernel log says of PID, reading what it holds now, without waiting. */
enum kernel_log_oom kernel_log_oom_killed(pid_t pid);

#endif
