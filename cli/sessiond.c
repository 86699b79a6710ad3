/* SPDX-License-Identifier: MIT */
/*
 * sessiond.c - finding or starting the user's LTTng session daemon.
 *
 * liblttng-ctl only talks to a daemon; it never starts one. Like the lttng
 * command, cudatrace starts `lttng-sessiond --daemonize` when none answers:
 * that process returns once the daemon is ready, and the daemon then
 * outlives cudatrace so that the next run finds it. Kernel tracing is left
 * off: cudatrace only needs the userspace tracer, and probing for kernel
 * modules costs time and prints warnings.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lttng/health.h>
#include <lttng/lttng.h>

#include "diag.h"
#include "exec-path.h"
#include "sessiond.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int sessiond_alive(void)
{
	return lttng_session_daemon_alive() == 1;
}

enum sessiond_consumer sessiond_consumer_state(void)
{
	char rundir[4096], path[4200], pidfile[4200];
	struct lttng_health *health;
	struct stat st, started;
	int ret;

	/*
	 * The consumer makes its health socket when it starts, and one that is
	 * killed leaves it behind: there but not answering. A socket older
	 * than the daemon's pid file is a dead consumer's of an earlier
	 * daemon: the one that answers now has not started its own yet.
	 */
	if (sessiond_rundir(rundir, sizeof(rundir)) < 0 ||
	    snprintf(path, sizeof(path), "%s/ustconsumerd64/health", rundir) >= (int)sizeof(path) ||
	    snprintf(pidfile, sizeof(pidfile), "%s/lttng-sessiond.pid", rundir) >=
	        (int)sizeof(pidfile) ||
	    stat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
		return SESSIOND_CONSUMER_NONE;
	if (stat(pidfile, &started) == 0 && (st.st_mtim.tv_sec < started.st_mtim.tv_sec ||
	                                     (st.st_mtim.tv_sec == started.st_mtim.tv_sec &&
	                                      st.st_mtim.tv_nsec < started.st_mtim.tv_nsec)))
		return SESSIOND_CONSUMER_NONE;
	health = lttng_health_create_consumerd(LTTNG_HEALTH_CONSUMERD_UST_64);
	if (!health)
		return SESSIOND_CONSUMER_ALIVE; /* out of memory: cannot tell, assume the best */
	ret = lttng_health_query(health);
	lttng_health_destroy(health);
	return ret == 0 ? SESSIOND_CONSUMER_ALIVE : SESSIOND_CONSUMER_DEAD;
}

int sessiond_rundir(char *buf, size_t len)
{
	const char *home;
	int n;

	if (geteuid() == 0) {
		n = snprintf(buf, len, "/var/run/lttng");
	} else {
		home = getenv("LTTNG_HOME");
		if (!home || !*home)
			home = getenv("HOME");
		if (!home || !*home)
			return -1;
		n = snprintf(buf, len, "%s/.lttng", home);
	}
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The daemon's executable: $LTTNG_SESSIOND_PATH (as the lttng command), else $PATH. */
static int find_daemon(char *path, size_t len)
{
	const char *env = getenv("LTTNG_SESSIOND_PATH");
	int err;

	if (env && *env) {
		err = exec_path_find(env, path, len);
		if (err) {
			diag_error("LTTNG_SESSIOND_PATH names '%s', which is %s: correct it or "
			           "unset it",
			           env, err == EACCES ? "not executable" : "not there");
			return -1;
		}
		return 0;
	}
	err = exec_path_find("lttng-sessiond", path, len);
	if (err) {
		diag_error("LTTng is not installed: no lttng-sessiond in PATH. Install LTTng "
		           "tools 2.13 or later (Debian: apt install lttng-tools), or name the "
		           "daemon with LTTNG_SESSIOND_PATH");
		return -1;
	}
	return 0;
}

/* Reads what is there on FD (non-blocking) into BUF, keeping it NUL-terminated. */
static void drain(int fd, char *buf, size_t len, size_t *used)
{
	for (;;) {
		ssize_t n;

		if (*used + 1 >= len) {
			char sink[256];

			/* Keep the first part, throw away the rest. */
			if (read(fd, sink, sizeof(sink)) <= 0)
				return;
			continue;
		}
		n = read(fd, buf + *used, len - 1 - *used);
		if (n <= 0)
			return;
		*used += (size_t)n;
		buf[*used] = '\0';
	}
}

/* The daemon's own error output, on one line, for a message. */
static void flatten(char *text)
{
	size_t n = strlen(text);

	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	for (char *p = text; *p; p++) {
		if (*p == '\n')
			*p = ' ';
	}
}

static pid_t spawn_daemon(const char *path, int err_fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null_fd = open("/dev/null", O_RDWR);

		if (null_fd >= 0) {
			dup2(null_fd, STDIN_FILENO);
			dup2(null_fd, STDOUT_FILENO);
		}
		dup2(err_fd, STDERR_FILENO);
		/* What the daemon creates itself (its notes, pid file) is the user's alone. */
		umask(077);
		execl(path, "lttng-sessiond", "--daemonize", "--no-kernel", (char *)NULL);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	return pid;
}

/*
 * Waits until the starter process PID exits (reading its stderr from
 * ERR_FD) or DEADLINE passes. Returns its wait status, or -1 on timeout.
 */
static int wait_starter(pid_t pid, int err_fd, long long deadline, char *err, size_t len)
{
	size_t used = 0;
	int status;

	err[0] = '\0';
	for (;;) {
		struct pollfd pfd = { .fd = err_fd, .events = POLLIN };
		pid_t got = waitpid(pid, &status, WNOHANG);

		drain(err_fd, err, len, &used);
		if (got == pid)
			return status;
		if (got < 0 && errno != EINTR)
			return -1;
		if (now_ms() >= deadline)
			return -1;
		(void)poll(&pfd, 1, 50);
	}
}

static int start_daemon(unsigned timeout_ms)
{
	char path[4096];
	char err[1024];
	int fds[2];
	long long deadline = now_ms() + timeout_ms;
	pid_t pid;
	int status;

	if (find_daemon(path, sizeof(path)) < 0)
		return -1;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
		diag_error("cannot start the LTTng session daemon: pipe: %s", strerror(errno));
		return -1;
	}
	pid = spawn_daemon(path, fds[1]);
	close(fds[1]);
	if (pid < 0) {
		diag_error("cannot start the LTTng session daemon: fork: %s", strerror(errno));
		close(fds[0]);
		return -1;
	}
	status = wait_starter(pid, fds[0], deadline, err, sizeof(err));
	close(fds[0]);
	flatten(err);
	if (status == -1) {
		/* Ours, and not yet a daemon: stop it rather than leave it half started. */
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		diag_error("the LTTng session daemon will not start: %s did not get ready within "
		           "%u s%s%s. Check that /dev/shm and the LTTng run directory are writable",
		           path, timeout_ms / 1000, err[0] ? ": " : "", err);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		diag_error("the LTTng session daemon will not start (%s %s %d)%s%s", path,
		           WIFEXITED(status) ? "exited with status" : "was killed by signal",
		           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		           err[0] ? ": " : "", err);
		return -1;
	}
	/* The starter returned: the daemon should answer at once, but bound the wait. */
	while (!sessiond_alive()) {
		if (now_ms() >= deadline) {
			diag_error("the LTTng session daemon was started (%s) but does not answer "
			           "after %u s: check LTTNG_HOME and the LTTng run directory",
			           path, timeout_ms / 1000);
			return -1;
		}
		sleep_ms(50);
	}
	return 0;
}

int sessiond_ensure(unsigned timeout_ms, bool *started)
{
	*started = false;
	if (sessiond_alive())
		return 0;
	if (start_daemon(timeout_ms) < 0)
		return -1;
	*started = true;
	return 0;
}
