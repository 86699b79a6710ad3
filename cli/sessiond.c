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
 *
 * A session daemon whose consumer daemon died answers, but can record
 * nothing any more, and never starts another consumer: cudatrace then uses
 * a session daemon of its own, private to the user, whose home is
 * RUNDIR/cudatrace/sessiond (RUNDIR the user's LTTng run directory, see
 * sessiond_rundir()): LTTNG_HOME points there, for liblttng-ctl here and
 * for the traced program's tracer. Root's session daemon always lives in
 * /var/run/lttng, so for root cudatrace enters a mount namespace of its
 * own where that home's run directory is bound on /var/run/lttng, starts
 * or finds the daemon there, and runs the program back in the namespace
 * it came from (sessiond_before_exec()): the program sees the same files
 * as without cudatrace, and finds the daemon through LTTNG_HOME.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lttng/health.h>
#include <lttng/lttng.h>

#include "diag.h"
#include "exec-path.h"
#include "make-dirs.h"
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

/* Where root's session daemon always lives. */
#define ROOT_RUNDIR "/var/run/lttng"

/* The namespace, root and working directory the program runs in, when cudatrace left them. */
static int home_mntns = -1, home_root = -1, home_cwd = -1;

int sessiond_before_exec(void)
{
	if (home_mntns < 0)
		return 0;
	if (setns(home_mntns, CLONE_NEWNS) != 0 || fchdir(home_root) != 0 || chroot(".") != 0 ||
	    fchdir(home_cwd) != 0)
		return -1;
	return 0;
}

/* The home of cudatrace's own session daemon, from the user's run directory. */
static int private_home(char *buf, size_t len)
{
	char rundir[4096];

	if (sessiond_rundir(rundir, sizeof(rundir)) < 0)
		return -1;
	return snprintf(buf, len, "%s/cudatrace/sessiond", rundir) < (int)len ? 0 : -1;
}

/*
 * For root: a mount namespace of cudatrace's own, with HOME/.lttng bound on
 * /var/run/lttng; what is needed to run the program back where it was is
 * kept. 0, or -1 after a message.
 */
static int enter_private_rundir(const char *home)
{
	char rundir[4200];

	if (snprintf(rundir, sizeof(rundir), "%s/.lttng", home) >= (int)sizeof(rundir))
		return -1;
	home_mntns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	home_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	home_cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (home_mntns < 0 || home_root < 0 || home_cwd < 0) {
		diag_error("cannot start a session daemon of cudatrace's own: %s", strerror(errno));
		return -1;
	}
	/*
	 * A slave of the mounts here: what is mounted later where cudatrace
	 * came from (shared mounts, as systemd makes them) reaches the daemon
	 * that writes the traces; the binding made here does not go back.
	 */
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0 ||
	    mount(rundir, ROOT_RUNDIR, NULL, MS_BIND, NULL) != 0) {
		diag_error("cannot start a session daemon of cudatrace's own: a mount namespace "
		           "where %s is " ROOT_RUNDIR ": %s",
		           rundir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The pid in RUNDIR/lttng-sessiond.pid when it is a running lttng-sessiond; else 0. */
static pid_t daemon_pid(void)
{
	char rundir[4096], path[4200], comm[64] = "";
	long pid = 0;
	FILE *f;

	if (sessiond_rundir(rundir, sizeof(rundir)) < 0 ||
	    snprintf(path, sizeof(path), "%s/lttng-sessiond.pid", rundir) >= (int)sizeof(path))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	if (pid <= 0 || snprintf(path, sizeof(path), "/proc/%ld/comm", pid) >= (int)sizeof(path))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return strncmp(comm, "lttng-sessiond", 14) == 0 ? (pid_t)pid : 0;
}

/* Stops cudatrace's own daemon, whose consumer died: by its pid, 5 s to go, then killed. */
static void stop_private_daemon(void)
{
	pid_t pid = daemon_pid();
	long long deadline = now_ms() + 5000;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	while (kill(pid, 0) == 0 && now_ms() < deadline)
		sleep_ms(50);
	if (kill(pid, 0) == 0)
		kill(pid, SIGKILL);
	/* Its socket may stay until the kernel is done with it. */
	deadline = now_ms() + 2000;
	while (sessiond_alive() && now_ms() < deadline)
		sleep_ms(50);
}

int sessiond_use_private(unsigned timeout_ms, bool *started, char *home_out, size_t len)
{
	char home[4096], rundir[4200];

	*started = false;
	if (private_home(home, sizeof(home)) < 0 || strlen(home) >= len) {
		diag_error(
		    "cannot name a home for a session daemon of cudatrace's own: set HOME or "
		    "LTTNG_HOME");
		return -1;
	}
	strcpy(home_out, home);
	if (snprintf(rundir, sizeof(rundir), "%s/.lttng", home) >= (int)sizeof(rundir) ||
	    (errno = make_dirs_mode(rundir, 0700)) != 0) {
		diag_error("cannot create %s for a session daemon of cudatrace's own: %s", home,
		           strerror(errno));
		return -1;
	}
	if (geteuid() == 0 && enter_private_rundir(home) < 0)
		return -1;
	/* liblttng-ctl, the daemon started, and the traced program: all meet there. */
	if (setenv("LTTNG_HOME", home, 1) != 0) {
		diag_error("cannot set LTTNG_HOME: %s", strerror(errno));
		return -1;
	}
	if (sessiond_alive() && sessiond_consumer_state() == SESSIOND_CONSUMER_DEAD) {
		diag_warn("cudatrace's own session daemon in %s had lost its consumer daemon too: "
		          "restarting it",
		          home);
		stop_private_daemon();
	}
	return sessiond_ensure(timeout_ms, started);
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
