/* SPDX-License-Identifier: MIT */
/*
 * diag.c - one-line messages on stderr for the record, list and jupyter
 * verbs. Each line is formatted first and written with one call, so that
 * it is not interleaved with the traced program's output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "diag.h"

static const char *prefix = "cudatrace";
static int quiet;

void diag_set_prefix(const char *p)
{
	prefix = p;
}

const char *diag_prefix(void)
{
	return prefix;
}

void diag_set_quiet(int q)
{
	quiet = q;
}

static void emit(const char *kind, const char *fmt, va_list ap)
{
	char line[2048];
	int head = snprintf(line, sizeof(line), "%s: %s", prefix, kind);
	int len;

	if (head < 0 || (size_t)head >= sizeof(line))
		return;
	len = vsnprintf(line + head, sizeof(line) - (size_t)head, fmt, ap);
	if (len < 0)
		return;
	len += head;
	if ((size_t)len >= sizeof(line) - 1)
		len = (int)sizeof(line) - 2;
	line[len++] = '\n';
	/* stderr is unbuffered: one write keeps the line whole. */
	fflush(stderr);
	if (write(STDERR_FILENO, line, (size_t)len) < 0)
		return;
}

void diag_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("warning: ", fmt, ap);
	va_end(ap);
}

void diag_note(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}
