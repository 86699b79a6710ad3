/* SPDX-License-Identifier: MIT */
/*
 * diag.c - one-line messages on stderr for the record, list and jupyter
 * verbs. Each line is formatted first and written with one call, so that
 * it is not interleaved with the traced program's output.
 *
 * A message that would be longer than a line may be (a path of thousands
 * of bytes in it) loses its middle, not its end: the end says what to do.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

/* The longest line written, newline included; longer messages lose their middle. */
#define LINE_MAX_BYTES 2048
/* What is kept of a long message: its start and its end. */
#define KEEP_HEAD 640
#define KEEP_TAIL 1024

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

/* N moved back to the start of the UTF-8 character it falls in. */
static size_t char_start(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

size_t diag_elide(const char *text, size_t len, char *out, size_t out_len)
{
	size_t head, tail;
	int n;

	if (out_len == 0)
		return 0;
	if (len < out_len) {
		memcpy(out, text, len);
		out[len] = '\0';
		return len;
	}
	/* "HEAD [... N bytes left out ...] TAIL" */
	head = char_start(text, KEEP_HEAD < out_len / 3 ? KEEP_HEAD : out_len / 3);
	tail = KEEP_TAIL < out_len / 2 ? KEEP_TAIL : out_len / 2;
	tail = len - char_start(text, len - tail);
	n = snprintf(out, out_len, "%.*s [... %zu bytes left out ...] %.*s", (int)head, text,
	             len - head - tail, (int)tail, text + len - tail);
	if (n < 0)
		return 0;
	return (size_t)n < out_len ? (size_t)n : out_len - 1;
}

static void emit(const char *kind, const char *fmt, va_list ap)
{
	char line[LINE_MAX_BYTES];
	char *text = NULL;
	int head = snprintf(line, sizeof(line), "%s: %s", prefix, kind);
	int n = vasprintf(&text, fmt, ap);
	size_t len;

	if (head < 0 || (size_t)head >= sizeof(line) - 2 || n < 0)
		return;
	len = (size_t)head +
	      diag_elide(text, (size_t)n, line + head, sizeof(line) - 1 - (size_t)head);
	free(text);
	line[len++] = '\n';
	/* stderr is unbuffered: one write keeps the line whole. */
	fflush(stderr);
	if (write(STDERR_FILENO, line, len) < 0)
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
