/* SPDX-License-Identifier: MIT */
/*
 * driver-ledger.c - the ground-truth ledger (README.md, "The ledger") and
 * the simulator's clock.
 *
 * With CUDASIM_LEDGER=FILE every operation appends one line to FILE. Each
 * line is formatted whole and written with one write(2) on an O_APPEND
 * descriptor, so lines of concurrent threads and processes never
 * interleave and a SIGKILL leaves every finished line intact.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "driver-internal.h"

/* Most lines fit; longer ones (long kernel names) are formatted on the heap. */
#define LEDGER_LINE_MAX 1024

static pthread_once_t ledger_once = PTHREAD_ONCE_INIT;
static int ledger_fd = -1;
/* Lines written by this process; restarted in a forked child. */
static uint64_t ledger_seq;

SIM_EXPORT uint64_t sim_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* README: seq counts from 1 in each process, so a child starts again. */
static void ledger_after_fork_child(void)
{
	__atomic_store_n(&ledger_seq, 0, __ATOMIC_RELAXED);
}

static void ledger_open(void)
{
	const char *path = getenv("CUDASIM_LEDGER");
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(stderr, "cudasim: CUDASIM_LEDGER: cannot open '%s': %s\n", path,
		        strerror(errno));
		return;
	}
	pthread_atfork(NULL, NULL, ledger_after_fork_child);
	__atomic_store_n(&ledger_fd, fd, __ATOMIC_RELEASE);
}

static int ledger_descriptor(void)
{
	pthread_once(&ledger_once, ledger_open);
	return __atomic_load_n(&ledger_fd, __ATOMIC_ACQUIRE);
}

SIM_EXPORT int sim_ledger_enabled(void)
{
	return ledger_descriptor() >= 0;
}

/* Write all of a line; O_APPEND makes a short write of a regular file rare,
 * but a signal can still interrupt it. */
static void ledger_write(int fd, const char *line, size_t length)
{
	while (length > 0) {
		ssize_t written = write(fd, line, length);

		if (written < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		line += written;
		length -= (size_t)written;
	}
}

/* Prefix plus caller text plus newline into buf (size bytes); returns the
 * length the whole line needs, as vsnprintf does. */
__attribute__((format(printf, 4, 0))) static size_t
ledger_format(char *buf, size_t size, uint64_t seq, const char *fmt, va_list ap)
{
	int prefix = snprintf(buf, size, "seq=%llu t=%llu pid=%d tid=%d ", (unsigned long long)seq,
	                      (unsigned long long)sim_now_ns(), (int)getpid(), (int)gettid());
	size_t used = prefix > 0 ? (size_t)prefix : 0;
	int text =
	    vsnprintf(used < size ? buf + used : NULL, used < size ? size - used : 0, fmt, ap);

	if (text > 0)
		used += (size_t)text;
	if (used + 1 < size) {
		buf[used] = '\n';
		buf[used + 1] = '\0';
	}
	return used + 1;
}

SIM_EXPORT void sim_ledger(const char *fmt, ...)
{
	char stack_line[LEDGER_LINE_MAX];
	char *line = stack_line;
	int fd = ledger_descriptor();
	uint64_t seq;
	size_t length;
	va_list ap;

	if (fd < 0)
		return;
	seq = __atomic_add_fetch(&ledger_seq, 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	length = ledger_format(stack_line, sizeof(stack_line), seq, fmt, ap);
	va_end(ap);
	if (length >= sizeof(stack_line)) {
		/* Same seq and nearly the same t: the line is only longer. */
		line = malloc(length + 1);
		if (!line)
			return;
		va_start(ap, fmt);
		length = ledger_format(line, length + 1, seq, fmt, ap);
		va_end(ap);
	}
	ledger_write(fd, line, length);
	if (line != stack_line)
		free(line);
}
