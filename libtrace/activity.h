/* SPDX-License-Identifier: MIT */
/*
 * activity.h - CUPTI activity buffers: GPU-side records, flushed
 * periodically, at context teardown and at exit.
 */
#ifndef CUDATRACE_ACTIVITY_H
#define CUDATRACE_ACTIVITY_H

#include <stdbool.h>
#include <stdint.h>

/* Register the clock and the buffer callbacks, enable the configured kinds
 * and start the flush thread. Returns 0, or -1 if no kind could be
 * enabled (host events still work). */
int activity_start(void);

/* Enable the configured kinds whose events a session enables, disable the
 * others (DEVICE stays on). From one thread at a time. */
void activity_follow_sessions(void);

/* Hand back buffers now; forced also returns records of unfinished work.
 * Only from driver/runtime API callbacks or cudatrace's own threads. */
void activity_flush(bool forced);

/* At exit: stop the flush thread, disable the kinds, forced flush. */
void activity_stop(void);

/* Buffers handed to CUPTI and not handed back yet (their records are not
 * in the trace). */
unsigned activity_buffers_out(void);

#endif /* CUDATRACE_ACTIVITY_H */
