/* SPDX-License-Identifier: MIT */
/*
 * log.h - cudatrace's own messages: one "cudatrace: " line on stderr each.
 *
 * The traced program owns stderr, so cudatrace stays quiet unless
 * CUDATRACE_DEBUG asks for more: only notices (another profiler holds CUPTI,
 * a bad setting) are printed by default.
 */
#ifndef CUDATRACE_LOG_H
#define CUDATRACE_LOG_H

enum log_level {
	LOG_NOTICE = 0, /* always printed */
	LOG_WARN = 1,
	LOG_INFO = 2,
	LOG_DEBUG = 3,
};

/* Messages above this level are dropped; set once by config_load(). */
void log_set_level(int level);

/* Write one line, prefixed and newline-terminated, with a single write(2).
 * errno is preserved. */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_warn(...)   log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)   log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)  log_msg(LOG_DEBUG, __VA_ARGS__)

#endif /* CUDATRACE_LOG_H */
