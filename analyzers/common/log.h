/* SPDX-License-Identifier: MIT */
/*
 * log.h - the analyzers' messages for people. The library never writes to
 * stderr itself. A failure comes back as a status code, with its message
 * where the caller looks for it (the reader's stats); the rest goes to the
 * handler the program installs, which prints it: warnings (a trace
 * skipped, a context missing) and the message that goes with the -1 of a
 * writer or of the plots. Without a handler these messages are dropped.
 *
 *	static void print(enum ct_log_level level, const char *message, void *data)
 *	{
 *		fprintf(stderr, "cudatrace: %s%s\n",
 *		        level == CT_LOG_WARNING ? "warning: " : "", message);
 *	}
 *	ct_log_set_handler(print, NULL);
 */
#ifndef CUDATRACE_ANALYZERS_LOG_H
#define CUDATRACE_ANALYZERS_LOG_H

#include <stddef.h>

enum ct_log_level {
	CT_LOG_WARNING,
	CT_LOG_ERROR,
};

/*
 * MESSAGE is one line without its newline, valid during the call only,
 * its control characters escaped (ct_format_text, writer.h).
 */
typedef void (*ct_log_handler)(enum ct_log_level level, const char *message, void *data);

/* Sends the messages to HANDLER (NULL: drop them), with DATA. */
void ct_log_set_handler(ct_log_handler handler, void *data);

void ct_log(enum ct_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The same, but a message already sent by ct_log_once is not sent again
 * (up to CT_LOG_ONCE_MAX distinct messages; beyond, all are sent): for
 * what several readers of one trace find alike, such as the babeltrace2
 * graphs of its groups of stream files (stream-groups.h) refusing its
 * metadata. Safe from any thread.
 */
void ct_log_once(enum ct_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#define CT_LOG_ONCE_MAX 1024

/* The size of a buffer for ct_shown_path(). */
#define CT_SHOWN_PATH_MAX 256

/*
 * PATH as messages show it, in BUF (LEN bytes): whole when it fits, else
 * its beginning and its end around "...", so that a message about a very
 * long path still says what happened to it. Returns BUF.
 */
const char *ct_shown_path(const char *path, char *buf, size_t len);

#define ct_log_warning(...) ct_log(CT_LOG_WARNING, __VA_ARGS__)
#define ct_log_error(...)   ct_log(CT_LOG_ERROR, __VA_ARGS__)

#endif
