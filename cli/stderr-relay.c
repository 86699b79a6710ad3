/* SPDX-License-Identifier: MIT */
/*
 * stderr-relay.c - the program's standard error through record
 * (stderr-relay.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "common/stderr-log.h"
#include "diag.h"
#include "stderr-relay.h"

/* After the program's end, how long the relay waits for more, and in all at most, in ms. */
#define QUIET_MS 200
#define DRAIN_MS 2000

struct stderr_relay {
	int read_fd;  /* record's end: the pseudo-terminal's master, or the pipe's */
	int child_fd; /* the program's fd 2 to be, -1 once record closed its copy */
	bool tty;
	pthread_t thread;
	pthread_mutex_t lock; /* guards what follows */
	pthread_cond_t changed;
	struct ct_stderr_capture *capture;
	bool eof;
	int64_t last_ns; /* when the last bytes came */
};

/* The master whose window follows record's terminal; -1 when none. */
static volatile sig_atomic_t winch_fd = -1;

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Record's terminal's window size onto the program's (async-signal-safe). */
static void copy_window(int master)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(master, TIOCSWINSZ, &ws);
}

static void on_winch(int sig)
{
	int saved = errno;

	(void)sig;
	if (winch_fd >= 0)
		copy_window((int)winch_fd);
	errno = saved;
}

/*
 * LEN bytes of BUF to record's stderr, whole: where it would block, the
 * relay waits as the program would have. A stderr that is gone (closed,
 * a broken pipe) takes nothing more; the capture goes on.
 */
static void pass_on(const char *buf, size_t len, bool *broken)
{
	while (len && !*broken) {
		ssize_t n = write(STDERR_FILENO, buf, len);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = STDERR_FILENO, .events = POLLOUT };

			(void)poll(&p, 1, -1);
		} else if (n < 0 && errno != EINTR) {
			*broken = true;
		}
	}
}

static void *relay_thread(void *arg)
{
	struct stderr_relay *r = arg;
	bool broken = false;
	char buf[65536];

	for (;;) {
		ssize_t n = read(r->read_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		/* EOF from a pipe, EIO from a master whose every slave is closed */
		if (n <= 0)
			break;
		pass_on(buf, (size_t)n, &broken);
		pthread_mutex_lock(&r->lock);
		r->last_ns = monotonic_ns();
		ct_stderr_capture_add(r->capture, r->last_ns, buf, (size_t)n);
		pthread_cond_broadcast(&r->changed);
		pthread_mutex_unlock(&r->lock);
	}
	pthread_mutex_lock(&r->lock);
	r->eof = true;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/*
 * A pseudo-terminal like record's: its window size, output passed
 * unprocessed. 0, or -1 with errno set.
 */
static int open_pty(struct stderr_relay *r)
{
	struct termios t;
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), slave;

	if (master < 0)
		return -1;
	if (grantpt(master) != 0 || unlockpt(master) != 0)
		goto fail;
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		goto fail;
	/* record's terminal does its own output processing: none twice */
	if (tcgetattr(STDERR_FILENO, &t) == 0 || tcgetattr(slave, &t) == 0) {
		t.c_oflag &= ~(tcflag_t)OPOST;
		(void)tcsetattr(slave, TCSANOW, &t);
	}
	copy_window(master);
	r->read_fd = master;
	r->child_fd = slave;
	return 0;
fail:
	close(master);
	return -1;
}

static int open_pipe(struct stderr_relay *r)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	r->read_fd = fds[0];
	r->child_fd = fds[1];
	return 0;
}

/* The thread, with every signal blocked: the handlers are the main thread's. */
static int start_thread(struct stderr_relay *r)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&r->thread, NULL, relay_thread, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

static void free_relay(struct stderr_relay *r)
{
	if (r->read_fd >= 0)
		close(r->read_fd);
	if (r->child_fd >= 0)
		close(r->child_fd);
	ct_stderr_capture_free(r->capture);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->changed);
	g_free(r);
}

struct stderr_relay *stderr_relay_open(void)
{
	struct stderr_relay *r = g_new0(struct stderr_relay, 1);
	struct sigaction sa;
	int err;

	r->read_fd = r->child_fd = -1;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->changed, NULL);
	r->capture = ct_stderr_capture_new();
	r->tty = isatty(STDERR_FILENO) == 1;
	if ((r->tty ? open_pty(r) : open_pipe(r)) != 0) {
		diag_warn("cannot pass the program's standard error through a %s (%s): it "
		          "writes to this one directly, and the report will not quote it",
		          r->tty ? "pseudo-terminal" : "pipe", strerror(errno));
		goto fail;
	}
	err = start_thread(r);
	if (err) {
		diag_warn("cannot start the thread that passes on the program's standard error "
		          "(%s): it writes to this one directly, and the report will not quote it",
		          strerror(err));
		goto fail;
	}
	if (r->tty) {
		winch_fd = r->read_fd;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_winch;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGWINCH, &sa, NULL);
	}
	return r;
fail:
	free_relay(r);
	return NULL;
}

int stderr_relay_child(const struct stderr_relay *r)
{
	return dup2(r->child_fd, STDERR_FILENO) < 0 ? -1 : 0;
}

void stderr_relay_started(struct stderr_relay *r)
{
	close(r->child_fd);
	r->child_fd = -1;
}

bool stderr_relay_tty(const struct stderr_relay *r)
{
	return r->tty;
}

/*
 * Until the end of the input, or QUIET_MS without a byte since the
 * program ended, DRAIN_MS at most: what a program wrote as it ended may
 * still be on its way, and its descendants may hold its stderr open.
 */
static void drain(struct stderr_relay *r)
{
	int64_t start = monotonic_ns();

	pthread_mutex_lock(&r->lock);
	for (;;) {
		int64_t now = monotonic_ns();
		struct timespec until;

		if (r->eof || now - MAX(r->last_ns, start) >= QUIET_MS * 1000000LL ||
		    now - start >= DRAIN_MS * 1000000LL)
			break;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 20 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&r->changed, &r->lock, &until);
	}
	pthread_mutex_unlock(&r->lock);
}

int stderr_relay_save(struct stderr_relay *r, const char *dir, pid_t pid)
{
	char *path = g_build_filename(dir, CT_STDERR_FILE, NULL);
	int ret;

	drain(r);
	pthread_mutex_lock(&r->lock);
	ret = ct_stderr_capture_write(r->capture, path, (int)pid, r->tty);
	if (ret < 0)
		diag_warn("cannot write %s: %s", path, strerror(errno));
	pthread_mutex_unlock(&r->lock);
	g_free(path);
	return ret;
}

void stderr_relay_close(struct stderr_relay *r)
{
	if (!r)
		return;
	winch_fd = -1;
	signal(SIGWINCH, SIG_DFL);
	if (r->child_fd >= 0) {
		close(r->child_fd);
		r->child_fd = -1;
	}
	/* no writer is left: the thread sees the end at once */
	pthread_join(r->thread, NULL);
	free_relay(r);
}
