/* SPDX-License-Identifier: MIT */
/*
 * log.c - the analyzers' messages (see log.h).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "log.h"
#include "format.h"

/* Longest message kept; longer ones are cut. */
#define LOG_LINE_MAX 1024

static ct_log_handler log_handler;
static void *log_data;

void ct_log_set_handler(ct_log_handler handler, void *data)
{
	log_handler = handler;
	log_data = data;
}

/* The messages ct_log_once sent (owned strings), under its lock. */
static GHashTable *sent_once;
static GMutex sent_once_lock;

/* Whether RAW is new to ct_log_once (and now known). */
static bool first_time(const char *raw)
{
	bool first = true;

	g_mutex_lock(&sent_once_lock);
	if (!sent_once)
		sent_once = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	if (g_hash_table_contains(sent_once, raw))
		first = false;
	else if (g_hash_table_size(sent_once) < CT_LOG_ONCE_MAX)
		g_hash_table_add(sent_once, g_strdup(raw));
	g_mutex_unlock(&sent_once_lock);
	return first;
}

static void vlog(enum ct_log_level level, bool once, const char *fmt, va_list ap)
{
	char raw[LOG_LINE_MAX], message[LOG_LINE_MAX];

	if (!log_handler)
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	if (once && !first_time(raw))
		return;
	/* messages name traces and what is in them: one line, safe for a terminal */
	log_handler(level, ct_format_text(raw, message, sizeof(message)), log_data);
}

void ct_log(enum ct_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, false, fmt, ap);
	va_end(ap);
}

void ct_log_once(enum ct_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, true, fmt, ap);
	va_end(ap);
}

/* The length of the longest start of S of at most N bytes that ends between characters. */
static size_t whole_chars(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

const char *ct_shown_path(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path), half = len > 8 ? (len - 4) / 2 : 0, head, tail;

	if (n < len || !half) {
		snprintf(buf, len, "%s", path);
		return buf;
	}
	head = whole_chars(path, half - 1);
	tail = n - half + 1;
	while (tail < n && ((unsigned char)path[tail] & 0xc0) == 0x80)
		tail++;
	snprintf(buf, len, "%.*s...%s", (int)head, path, path + tail);
	return buf;
}
