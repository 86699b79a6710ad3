/* SPDX-License-Identifier: MIT */
/*
 * stderr-log.h - the traced program's standard error as `cudatrace
 * record` kept it beside the trace (DIR/stderr.log), with the time each
 * piece arrived, so that the report can quote its last words and place
 * them among the trace's events.
 *
 * What is kept is bounded: the first CT_STDERR_HEAD_BYTES (what the
 * program said of itself as it started: versions, devices, warnings) and
 * the last CT_STDERR_TAIL_BYTES (room for a deep Python traceback with a
 * framework's out-of-memory message and its allocator's figures); what
 * lies between is counted, not kept. Times are ns of CLOCK_MONOTONIC, the
 * clock of LTTng's events.
 *
 * The file (doc/cudatrace-record.1, FILES), its header lines first:
 *
 *     cudatrace-stderr 1
 *     clock monotonic
 *     pid PID            the program's pid
 *     tty 0|1            its fd 2 was a pseudo-terminal
 *     bytes N            all it wrote, kept or not
 *     skipped N          bytes not kept, between the head and the tail
 *
 * then pieces in the order they arrived:
 *
 *     chunk NS LEN       LEN bytes exactly as written, then a newline
 *     gap N              N bytes were not kept here
 *
 * and `end` on a line of its own. Pieces that arrive within a millisecond
 * of each other share one chunk.
 */
#ifndef CUDATRACE_COMMON_STDERR_LOG_H
#define CUDATRACE_COMMON_STDERR_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CT_STDERR_FILE       "stderr.log"
#define CT_STDERR_HEAD_BYTES 4096u
#define CT_STDERR_TAIL_BYTES 65536u

/* ------------------------------------------------------------ keeping */

struct ct_stderr_capture;

/* An empty capture; NULL when out of memory. */
struct ct_stderr_capture *ct_stderr_capture_new(void);
void ct_stderr_capture_free(struct ct_stderr_capture *capture);

/* LEN bytes of BUF arrived at NS: kept within the bounds, counted in any case. */
void ct_stderr_capture_add(struct ct_stderr_capture *capture, int64_t ns, const char *buf,
                           size_t len);

/* All bytes added so far. */
uint64_t ct_stderr_capture_bytes(const struct ct_stderr_capture *capture);

/*
 * Writes CAPTURE to PATH (readable by its owner only), for the program
 * PID whose fd 2 was a terminal when TTY. 0, or -1 with errno set.
 */
int ct_stderr_capture_write(const struct ct_stderr_capture *capture, const char *path, int pid,
                            bool tty);

/* ------------------------------------------------------------ reading */

/* One line as a terminal shows it: colours and cursor moves left out. */
struct ct_stderr_line {
	int64_t ns;      /* when its first byte arrived */
	char *text;      /* valid UTF-8, without its newline */
	bool after_gap;  /* bytes before it were not kept: it may be a line's end */
	bool unfinished; /* the program wrote no newline after it */
};

struct ct_stderr_log {
	int pid;
	bool tty;
	uint64_t bytes, skipped;
	struct ct_stderr_line *lines;
	size_t count;
};

enum ct_stderr_status {
	CT_STDERR_OK = 0,
	CT_STDERR_NONE,  /* no such file: the program was recorded without it */
	CT_STDERR_BAD,   /* not a file of this format, or damaged */
	CT_STDERR_ERROR, /* it could not be read: errno */
};

/* Reads DIR's stderr.log into LOG (cleared with ct_stderr_log_clear in any case). */
enum ct_stderr_status ct_stderr_log_read(const char *dir, struct ct_stderr_log *log);

void ct_stderr_log_clear(struct ct_stderr_log *log);

#endif
