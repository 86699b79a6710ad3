/* SPDX-License-Identifier: MIT */
/*
 * child.c - the traced program as a child process.
 *
 * The program stays in cudatrace's process group, so that whoever manages
 * that group (a shell, a batch system, a Jupyter server killing a kernel)
 * reaches it directly. Because of that, a signal meant for the whole group
 * arrives twice at the program if cudatrace passes it on as well; the
 * handler skips those it can recognise: the terminal's (si_code SI_KERNEL)
 * and those the program sent to its own group (ipykernel interrupts itself
 * that way).
 *
 * Two pipes connect parent and child before exec: the child waits on the
 * first until the parent has done what must happen before the program
 * runs (the started hook), and writes errno to the second, which is
 * close-on-exec, only when exec fails.
 *
 * The wait loop reaps every child of cudatrace, and ends when the
 * program is among them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "diag.h"

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
#define N_FORWARDED (sizeof(forwarded_signals) / sizeof(forwarded_signals[0]))

/* Written by the parent once the child exists; 0 in the child itself. */
static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t last_forwarded;

static void forward(int sig, siginfo_t *info, void *ucontext)
{
	int saved = errno;
	pid_t pid = (pid_t)child_pid;

	if (pid <= 0)
		goto end;
	if (info && (info->si_code == SI_KERNEL || info->si_pid == pid))
		goto end;
	if (kill(pid, sig) == 0)
		last_forwarded = sig;
end:
	errno = saved;
}

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void install_handlers(struct sigaction *saved)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded_signals[i], &sa, &saved[i]);
}

static void restore_handlers(const struct sigaction *saved)
{
	for (size_t i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded_signals[i], &saved[i], NULL);
}

/* In the child: wait for the go, back to the defaults the program expects, exec. */
static void exec_child(const char *path, char *const argv[], const sigset_t *mask, int go_fd,
                       int err_fd, const struct child_hooks *hooks)
{
	char go;
	int err;

	while (read(go_fd, &go, 1) < 0 && errno == EINTR)
		;
	close(go_fd);
	if (hooks && hooks->before_exec && hooks->before_exec(hooks->data) < 0) {
		err = errno;
		if (write(err_fd, &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	for (size_t i = 0; i < N_FORWARDED; i++)
		signal(forwarded_signals[i], SIG_DFL);
	/* cudatrace ignores SIGPIPE (liblttng-ctl's sockets); the program gets the default. */
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execv(path, argv);
	err = errno;
	if (write(err_fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* 0 if exec succeeded (EOF on the pipe), else the child's errno. */
static int exec_error(int fd)
{
	int err = 0;
	ssize_t n;

	do {
		n = read(fd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(err) ? err : 0;
}

static void fill_result(struct child_result *res, int status)
{
	res->end_ns = realtime_ns();
	res->exited = WIFEXITED(status);
	res->code = res->exited ? WEXITSTATUS(status) : 0;
	res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	res->core = WIFSIGNALED(status) && WCOREDUMP(status);
	res->forwarded = (int)last_forwarded;
}

/*
 * Reaps children until PID is among them (returns 1, its status in
 * *STATUS) or none is left to reap now (0).
 */
static int reap(pid_t pid, int *status)
{
	for (;;) {
		int st;
		pid_t got = waitpid(-1, &st, WNOHANG);

		if (got == pid) {
			*status = st;
			return 1;
		}
		if (got > 0)
			continue; /* another child of cudatrace's */
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == ECHILD) {
			*status = 0;
			return 1;
		}
		return 0;
	}
}

/* SIGCHLD is blocked: wait for it, TICK_MS at a time, running the tick hook. */
static int wait_program(pid_t pid, const struct child_hooks *hooks)
{
	unsigned ms = hooks && hooks->tick_ms ? hooks->tick_ms : 1000;
	struct timespec period = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };
	sigset_t chld;
	int status;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while (!reap(pid, &status)) {
		if (sigtimedwait(&chld, NULL, &period) < 0 && errno == EAGAIN && hooks &&
		    hooks->tick)
			hooks->tick(hooks->data);
	}
	return status;
}

/* Fork a child that waits for the go; returns its pid or -1 (errno set). */
static pid_t spawn(const char *path, char *const argv[], const sigset_t *old, int go[2], int err[2],
                   const struct child_hooks *hooks)
{
	pid_t pid = fork();

	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		exec_child(path, argv, old, go[0], err[1], hooks);
	}
	return pid;
}

static void close_pair(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	fds[0] = fds[1] = -1;
}

int child_run(const char *path, char *const argv[], const struct child_hooks *hooks,
              struct child_result *res, int *errno_out)
{
	struct sigaction saved[N_FORWARDED];
	int go[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };
	sigset_t all, old, wait_mask;
	int status, err;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	*errno_out = 0;
	if (pipe2(go, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
		*errno_out = errno;
		diag_error("cannot start %s: pipe: %s", argv[0], strerror(errno));
		close_pair(go);
		close_pair(err_pipe);
		return -1;
	}
	child_pid = 0;
	last_forwarded = 0;
	install_handlers(saved);
	/* No handler may run in the child before exec: block until it resets them. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	res->start_ns = realtime_ns();
	pid = spawn(path, argv, &old, go, err_pipe, hooks);
	err = errno;
	if (pid > 0)
		child_pid = pid;
	/* Everything but SIGCHLD again: wait_program() takes that one synchronously. */
	wait_mask = old;
	sigaddset(&wait_mask, SIGCHLD);
	sigprocmask(SIG_SETMASK, &wait_mask, NULL);
	close(go[0]);
	close(err_pipe[1]);
	go[0] = err_pipe[1] = -1;
	if (pid < 0) {
		diag_error("cannot start %s: fork: %s", argv[0], strerror(err));
		*errno_out = err;
		goto fail;
	}
	res->pid = pid;
	if (hooks && hooks->started && hooks->started(pid, hooks->data) < 0) {
		/* Unrun: it never got the go. */
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		goto fail;
	}
	if (write(go[1], "g", 1) != 1) {
		/* Closing the pipe below (EOF) lets the child go all the same. */
	}
	close_pair(go);
	err = exec_error(err_pipe[0]);
	close_pair(err_pipe);
	status = wait_program(pid, hooks);
	child_pid = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	restore_handlers(saved);
	if (err) {
		*errno_out = err;
		diag_error("cannot run %s: %s", argv[0], strerror(err));
		return -1;
	}
	fill_result(res, status);
	return 0;
fail:
	child_pid = 0;
	close_pair(go);
	close_pair(err_pipe);
	sigprocmask(SIG_SETMASK, &old, NULL);
	restore_handlers(saved);
	return -1;
}

int child_exit_status(const struct child_result *res)
{
	return res->exited ? res->code : 128 + res->signal;
}
