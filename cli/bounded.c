/* SPDX-License-Identifier: MIT */
/*
 * bounded.c - a call in a child process, killed at its deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bounded.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void run_child(int fd, int (*fn)(void *, void *), void *arg, size_t out_len)
{
	static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	void *out = calloc(1, out_len ? out_len : 1);
	sigset_t none;
	int ret;

	/* Signals meant for the traced program are not this child's to pass on. */
	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		signal(handled[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (!out)
		_exit(1);
	ret = fn(arg, out);
	if (write_all(fd, &ret, sizeof(ret)) < 0 || write_all(fd, out, out_len) < 0)
		_exit(1);
	_exit(0);
}

/* Reads LEN bytes from FD before DEADLINE (ms). 0, or -1 (EOF, error) or -2 (time). */
static int read_until(int fd, void *buf, size_t len, long long deadline)
{
	char *p = buf;

	while (len > 0) {
		long long left = deadline - now_ms();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (left <= 0)
			return -2;
		r = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int bounded_call(unsigned timeout_ms, int (*fn)(void *arg, void *out), void *arg, void *out,
                 size_t out_len)
{
	long long deadline = now_ms() + timeout_ms;
	char *answer = NULL;
	int fds[2], ret, got;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return BOUNDED_FAILED;
	/* Nothing buffered may be written twice, by the child as well. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return BOUNDED_FAILED;
	}
	if (pid == 0) {
		close(fds[0]);
		run_child(fds[1], fn, arg, out_len);
	}
	close(fds[1]);
	answer = malloc(out_len ? out_len : 1);
	got = answer ? read_until(fds[0], &ret, sizeof(ret), deadline) : -1;
	if (got == 0)
		got = read_until(fds[0], answer, out_len, deadline);
	close(fds[0]);
	if (got == -2)
		kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (got == 0 && out_len)
		memcpy(out, answer, out_len);
	free(answer);
	if (got == -2)
		return BOUNDED_TIMEOUT;
	return got == 0 ? ret : BOUNDED_FAILED;
}
