/* SPDX-License-Identifier: MIT */
/*
 * log.c - cudatrace's own messages on stderr.
 *
 * Formatted into a stack buffer and written with one write(2), so that lines
 * of several threads never interleave and no stdio lock or buffer of the
 * program is touched.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define LOG_PREFIX   "cudatrace: "
#define LOG_LINE_MAX 512

static int log_level = LOG_NOTICE;

void log_set_level(int level)
{
	log_level = level;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	size_t prefix_len = sizeof(LOG_PREFIX) - 1;
	size_t len;
	int saved_errno = errno;
	va_list args;
	int n;

	if ((int)level > log_level)
		goto end;
	memcpy(line, LOG_PREFIX, prefix_len);
	va_start(args, fmt);
	n = vsnprintf(line + prefix_len, sizeof(line) - prefix_len - 1, fmt, args);
	va_end(args);
	if (n < 0)
		goto end;
	len = prefix_len + (size_t)n;
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	write_all(STDERR_FILENO, line, len);
end:
	errno = saved_errno;
}
