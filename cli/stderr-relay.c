/* SPDX-License-Identifier: MIT */
/*
 * stderr-relay.c - the program's standard error through a relay process
 * of record's (stderr-relay.h).
 *
 * The relay is a process rather than a thread of record's, so that it
 * outlives record: a record killed with SIGKILL leaves the program
 * writing on, and its descendants that outlive it too, into a relay that
 * still reads. It ignores the signals a terminal or a job scheduler sends
 * the whole process group, and ends when nothing holds the program's
 * stderr open any more.
 *
 * Record talks to it through two pipes: on the first, 'P' and the
 * program's pid once it exists, 'S' once the program has ended (drain,
 * write stderr.log, answer), or 'X' when the program never started (end,
 * write nothing); its end (record is gone) means write stderr.log at the
 * end of the input. On the second, the relay answers 'D' once stderr.log is written,
 * 'F' when it could not be.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
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
/* How long record waits for the relay's answer beyond that, in ms. */
#define ANSWER_MS 3000

struct stderr_relay {
	int read_fd;  /* the relay's end: the pseudo-terminal's master, or the pipe's */
	int child_fd; /* the program's fd 2 to be, -1 once record closed its copy */
	int ctl_fd;   /* record's end of the first pipe; -1 once closed */
	int answer_fd;
	bool tty;
	char *dir;
};

/* ------------------------------------------------------- the relay process */

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
 * Signals the terminal or a scheduler send the whole process group are
 * the program's and record's business: the relay stays until the
 * program's stderr is closed. A window size change is followed.
 */
static void relay_signals(const struct stderr_relay *r)
{
	static const int ignored[] = {
		SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE
	};
	struct sigaction sa;
	sigset_t none;

	for (size_t i = 0; i < G_N_ELEMENTS(ignored); i++)
		signal(ignored[i], SIG_IGN);
	if (r->tty) {
		winch_fd = r->read_fd;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_winch;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGWINCH, &sa, NULL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * Every descriptor but stderr and the KEEP (N of them, ascending) closed;
 * stdin and stdout become /dev/null: whoever waits for the end of
 * record's output does not wait for the relay.
 */
static void close_others(const int *keep, size_t n)
{
	unsigned from = 3;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		(void)dup2(null, STDIN_FILENO);
		(void)dup2(null, STDOUT_FILENO);
	}

	for (size_t i = 0; i < n; i++) {
		if ((unsigned)keep[i] > from)
			(void)close_range(from, (unsigned)keep[i] - 1, 0);
		from = (unsigned)keep[i] + 1;
	}
	(void)close_range(from, ~0u, 0);
}

static int ascending(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
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

/* What the relay process knows. */
struct relay_state {
	struct ct_stderr_capture *capture;
	bool eof, saved, broken;
	int pid;          /* the program's, from record's 'P'; 0 before */
	int64_t asked_ns; /* when record asked for stderr.log; 0: not yet */
	int64_t last_ns;  /* when the last bytes came */
};

/* Writes stderr.log, says so on the answer pipe (record may be gone). */
static void save(const struct stderr_relay *r, struct relay_state *s)
{
	char *path = g_build_filename(r->dir, CT_STDERR_FILE, NULL);
	char answer = 'D';

	if (ct_stderr_capture_write(s->capture, path, s->pid, r->tty) < 0) {
		diag_warn("cannot write %s: %s", path, strerror(errno));
		answer = 'F';
	}
	s->saved = true;
	if (write(r->answer_fd, &answer, 1) < 0) {
		/* record is gone: nobody waits for the answer */
	}
	g_free(path);
}

static void read_input(const struct stderr_relay *r, struct relay_state *s)
{
	char buf[65536];
	ssize_t n = read(r->read_fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	/* EOF from a pipe, EIO from a master whose every slave is closed */
	if (n <= 0) {
		s->eof = true;
		return;
	}
	pass_on(buf, (size_t)n, &s->broken);
	s->last_ns = monotonic_ns();
	if (!s->saved)
		ct_stderr_capture_add(s->capture, s->last_ns, buf, (size_t)n);
}

/* Record's word: false when it says to end without a file. */
static bool read_control(const struct stderr_relay *r, struct relay_state *s, bool *open)
{
	char cmd;
	int pid;

	if (read(r->ctl_fd, &cmd, 1) != 1) {
		*open = false; /* record is gone: the file is written at the end */
		return true;
	}
	if (cmd == 'X')
		return false;
	if (cmd == 'P' && read(r->ctl_fd, &pid, sizeof(pid)) == (ssize_t)sizeof(pid))
		s->pid = pid;
	if (cmd == 'S')
		s->asked_ns = monotonic_ns();
	return true;
}

/* Record asked, and the bytes on their way came: the end, or a quiet moment, or enough waiting. */
static bool drained(const struct relay_state *s)
{
	int64_t now = monotonic_ns();

	return s->asked_ns &&
	       (s->eof || now - MAX(s->last_ns, s->asked_ns) >= QUIET_MS * 1000000LL ||
	        now - s->asked_ns >= DRAIN_MS * 1000000LL);
}

/*
 * Until the end of the input, and record's word: stderr.log is written
 * when record asks (once drained), or at the end of the input when
 * record is gone; never when record says the program did not start.
 */
static void relay_main(const struct stderr_relay *r)
{
	struct relay_state s = { .capture = ct_stderr_capture_new() };
	bool open = true;

	while (open || !s.eof) {
		struct pollfd p[2];
		nfds_t n = 0, input = 2, control = 2;
		int timeout = s.asked_ns && !s.saved ? 20 : -1;

		if (!s.eof) {
			input = n;
			p[n++] = (struct pollfd){ .fd = r->read_fd, .events = POLLIN };
		}
		if (open) {
			control = n;
			p[n++] = (struct pollfd){ .fd = r->ctl_fd, .events = POLLIN };
		}
		if (poll(p, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (input < n && p[input].revents)
			read_input(r, &s);
		if (control < n && p[control].revents && !read_control(r, &s, &open))
			_exit(0);
		if (!s.saved && drained(&s))
			save(r, &s);
	}
	if (!s.saved)
		save(r, &s);
	_exit(0);
}

/* ----------------------------------------------------------------- record */

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

static int open_pipe(int fds[2])
{
	return pipe2(fds, O_CLOEXEC);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void free_relay(struct stderr_relay *r)
{
	close_fd(&r->read_fd);
	close_fd(&r->child_fd);
	close_fd(&r->ctl_fd);
	close_fd(&r->answer_fd);
	g_free(r->dir);
	g_free(r);
}

/*
 * The relay process, with the far ends of the pipes CTL and ANSWER. It
 * is no child of record's (a child's child, whose parent ends at once):
 * record's children are the program alone, as whoever looks at them (a
 * job scheduler, a test) expects. 0, or -1 with errno.
 */
static int start(struct stderr_relay *r, int ctl[2], int answer[2])
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int keep[3] = { r->read_fd, ctl[0], answer[1] };
		pid_t relay = fork();

		if (relay != 0)
			_exit(relay < 0 ? 1 : 0);

		close(r->child_fd);
		close(ctl[1]);
		close(answer[0]);
		r->ctl_fd = ctl[0];
		r->answer_fd = answer[1];
		qsort(keep, 3, sizeof(keep[0]), ascending);
		close_others(keep, 3);
		relay_signals(r);
		relay_main(r);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(ctl[0]);
	close(answer[1]);
	r->ctl_fd = ctl[1];
	r->answer_fd = answer[0];
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		errno = EAGAIN;
		return -1;
	}
	return 0;
}

struct stderr_relay *stderr_relay_open(const char *dir)
{
	struct stderr_relay *r = g_new0(struct stderr_relay, 1);
	int ctl[2] = { -1, -1 }, answer[2] = { -1, -1 }, data[2];
	const char *what;

	r->read_fd = r->child_fd = r->ctl_fd = r->answer_fd = -1;
	r->dir = g_strdup(dir);
	r->tty = isatty(STDERR_FILENO) == 1;
	what = r->tty ? "a pseudo-terminal" : "a pipe";
	if (r->tty ? open_pty(r) != 0 : open_pipe(data) != 0)
		goto fail;
	if (!r->tty) {
		r->read_fd = data[0];
		r->child_fd = data[1];
	}
	what = "a relay process";
	if (open_pipe(ctl) != 0 || open_pipe(answer) != 0 || start(r, ctl, answer) != 0)
		goto fail;
	return r;
fail:
	diag_warn("cannot pass the program's standard error through %s (%s): it writes to this "
	          "one directly, and the report will not quote it",
	          what, strerror(errno));
	close_fd(&ctl[0]);
	close_fd(&ctl[1]);
	close_fd(&answer[0]);
	close_fd(&answer[1]);
	free_relay(r);
	return NULL;
}

int stderr_relay_child(const struct stderr_relay *r)
{
	return dup2(r->child_fd, STDERR_FILENO) < 0 ? -1 : 0;
}

void stderr_relay_started(struct stderr_relay *r, pid_t pid)
{
	char msg[1 + sizeof(int)] = { 'P' };
	int program = (int)pid;

	close_fd(&r->child_fd);
	/* the relay alone reads: record's copy would keep nothing from it */
	close_fd(&r->read_fd);
	memcpy(msg + 1, &program, sizeof(program));
	if (write(r->ctl_fd, msg, sizeof(msg)) < 0) {
		/* a relay that is gone cannot be told: its file names no pid */
	}
}

bool stderr_relay_tty(const struct stderr_relay *r)
{
	return r->tty;
}

int stderr_relay_save(struct stderr_relay *r)
{
	struct pollfd p = { .fd = r->answer_fd, .events = POLLIN };
	char answer = 0;

	/* a relay that ended already (nothing held the stderr any more) answered then */
	if (write(r->ctl_fd, "S", 1) < 0) {
		/* EPIPE: its answer is in the pipe */
	}
	while (poll(&p, 1, DRAIN_MS + ANSWER_MS) < 0 && errno == EINTR)
		;
	if (!(p.revents & (POLLIN | POLLHUP)) || read(r->answer_fd, &answer, 1) != 1) {
		diag_warn("the relay of the program's standard error did not write %s/%s in time",
		          r->dir, CT_STDERR_FILE);
		return -1;
	}
	/* the relay goes on passing bytes of the program's descendants, until they end */
	close_fd(&r->ctl_fd);
	return answer == 'D' ? 0 : -1;
}

void stderr_relay_close(struct stderr_relay *r)
{
	if (!r)
		return;
	if (r->ctl_fd >= 0 && write(r->ctl_fd, "X", 1) < 0) {
		/* it ended already */
	}
	free_relay(r);
}
