/* SPDX-License-Identifier: MIT */
/*
 * shutdown.h - the end of the traced process: cudatrace's threads stopped
 * and CUPTI's activity buffers flushed once, in bounded time, whichever
 * thread calls exit() and however many do.
 */
#ifndef CUDATRACE_SHUTDOWN_H
#define CUDATRACE_SHUTDOWN_H

/* How long the flush at exit may take, in milliseconds: past that, the
 * process exits and a tracer_error says what was not flushed. */
#define SHUTDOWN_FLUSH_MS 5000

/* Register the exit handlers (after everything they stop is started).
 * Returns 0, or -1 when atexit(3) refuses. */
int shutdown_register(void);

#endif /* CUDATRACE_SHUTDOWN_H */
