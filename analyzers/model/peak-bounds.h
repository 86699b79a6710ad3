/* SPDX-License-Identifier: MIT */
/*
 * peak-bounds.h - the most bytes that can have been live at once on a
 * device, when calls of several threads overlapped.
 *
 * The trace dates an allocation at its call's exit and a release at its
 * call's exit (accounting.c): the driver did either somewhere between the
 * call's entry and its exit. On one thread calls do not overlap, so the
 * order is exact; across threads an allocation that ran inside another
 * thread's call may have been made before something that call freed. The
 * highest the live bytes can have been is the peak of the curve in which
 * every allocation is made at its call's entry: this keeps that curve's
 * recent steps, adds each allocation to the steps its call spanned when
 * its exit comes, and keeps the maximum.
 *
 * Steps older than the ones kept (PEAK_BOUNDS_STEPS) are folded into one
 * maximum: an allocation whose call began before them raises it, so the
 * bound stays a bound, only looser.
 *
 * Usage, from the accountant, in time order:
 *
 *	b = ct_peak_bounds_new();
 *	ct_peak_bounds_early(b, entry_ns, bytes);  (an allocation, before its step)
 *	ct_peak_bounds_step(b, time_ns, live);     (the live bytes changed)
 *	ct_peak_bounds_raise(b, bytes);            (every moment held BYTES more)
 *	high = ct_peak_bounds_high(b);
 *	ct_peak_bounds_free(b);
 */
#ifndef CUDATRACE_ANALYZERS_PEAK_BOUNDS_H
#define CUDATRACE_ANALYZERS_PEAK_BOUNDS_H

#include <stdbool.h>
#include <stdint.h>

struct ct_peak_bounds;

/*
 * Whether a peak of PEAK bytes whose bounds are LOW and HIGH is stated as
 * a range (a caveat, a "Peak:" line on the first page): the bounds more
 * than 1 % of it apart. Closer, the order of overlapping calls does not
 * change what the user would do.
 */
static inline bool ct_peak_bounds_apart(int64_t peak, int64_t low, int64_t high)
{
	return high - low > peak / 100;
}

struct ct_peak_bounds *ct_peak_bounds_new(void);
void ct_peak_bounds_free(struct ct_peak_bounds *b);
/*
 * An allocation of BYTES whose call began at ENTRY_NS: live, at the most,
 * from then on. Before the step its exit makes (ct_peak_bounds_step).
 */
void ct_peak_bounds_early(struct ct_peak_bounds *b, int64_t entry_ns, int64_t bytes);
/* The live bytes, as the trace orders them, became LIVE at TIME_NS (not before the last step). */
void ct_peak_bounds_step(struct ct_peak_bounds *b, int64_t time_ns, int64_t live);
/* Every moment so far held BYTES more (an allocation made before the trace's window). */
void ct_peak_bounds_raise(struct ct_peak_bounds *b, int64_t bytes);
/* The most bytes that can have been live at once. */
int64_t ct_peak_bounds_high(const struct ct_peak_bounds *b);

#endif
