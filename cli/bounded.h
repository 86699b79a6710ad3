/* SPDX-License-Identifier: MIT */
/*
 * bounded.h - calls into liblttng-ctl that may never return, given a
 * deadline. A session daemon that stops answering (LTTng 2.13's does when
 * its consumer daemon spins) blocks its client in a read forever, and the
 * library keeps the blocked connection for its next call: the call runs in
 * a child process of its own, which is killed when the deadline passes,
 * so that record itself always goes on, and its own connections stay
 * clean.
 */
#ifndef CUDATRACE_CLI_BOUNDED_H
#define CUDATRACE_CLI_BOUNDED_H

#include <stddef.h>

/* bounded_call(): the call did not return in time (it was killed). */
#define BOUNDED_TIMEOUT (-1000)
/* bounded_call(): the child could not be run, or died without an answer. */
#define BOUNDED_FAILED (-1001)

/*
 * FN(ARG, OUT) in a child process, with TIMEOUT_MS to return: its result,
 * with the OUT_LEN bytes it left in OUT copied back; or BOUNDED_TIMEOUT or
 * BOUNDED_FAILED (OUT untouched). The child starts with the signals
 * cudatrace handles back at their defaults.
 */
int bounded_call(unsigned timeout_ms, int (*fn)(void *arg, void *out), void *arg, void *out,
                 size_t out_len);

#endif
