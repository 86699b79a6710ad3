/* SPDX-License-Identifier: MIT */
/*
 * child.h - running the traced program: exec (never through a shell),
 * signals forwarded while it runs, its end collected.
 */
#ifndef CUDATRACE_CLI_CHILD_H
#define CUDATRACE_CLI_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

/* How the program ended. */
struct child_result {
	pid_t pid;
	bool exited;                /* exited by itself, with status `code` */
	int code;                   /* exit status, when exited */
	int signal;                 /* the signal that killed it, when !exited */
	bool core;                  /* it dumped core */
	int forwarded;              /* the last signal cudatrace passed on to it, 0 if none */
	long long start_ns, end_ns; /* CLOCK_REALTIME */
};

/* What the caller does around the program's life. Any may be NULL. */
struct child_hooks {
	/*
	 * The program exists (PID) but has not run any of its code yet: it
	 * waits until this returns. Returning -1 kills it unrun.
	 */
	int (*started)(pid_t pid, void *data);
	/*
	 * In the child, just before exec: what the program must have that
	 * cudatrace has not (its mount namespace back). Returning -1 (errno
	 * set) fails the run as an exec that failed.
	 */
	int (*before_exec)(void *data);
	/* Called every TICK_MS while the program runs. */
	void (*tick)(void *data);
	unsigned tick_ms;
	void *data;
};

/*
 * Runs the program PATH with ARGV (argv[0] as the user wrote it) in the
 * current environment and waits for it. SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 * SIGUSR1 and SIGUSR2 sent to cudatrace alone are passed on to the program;
 * those the program already got (from the terminal, or sent by the program
 * to its own process group) are not sent twice. The program starts with
 * SIGPIPE at its default.
 *
 * Returns 0 once the program has ended (RES filled in); -1 after a message
 * when it could not be started (ERRNO_OUT set to why: ENOENT, EACCES, ...,
 * or 0 when the started hook refused it).
 */
int child_run(const char *path, char *const argv[], const struct child_hooks *hooks,
              struct child_result *res, int *errno_out);

/* The exit status cudatrace passes on for RES: the program's, or 128 + signal. */
int child_exit_status(const struct child_result *res);

#endif
