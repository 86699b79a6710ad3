/* SPDX-License-Identifier: MIT */
/*
 * log.c - the analyzers' messages (see log.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

/* Longest message kept; longer ones are cut. */
#define LOG_LINE_MAX 1024

static ct_log_handler log_handler;
static void *log_data;

void ct_log_set_handler(ct_log_handler handler, void *data)
{
	log_handler = handler;
	log_data = data;
}

void ct_log(enum ct_log_level level, const char *fmt, ...)
{
	char message[LOG_LINE_MAX];
	va_list ap;

	if (!log_handler)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	log_handler(level, message, log_data);
}
