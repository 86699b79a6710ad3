/* SPDX-License-Identifier: MIT */
/*
 * watch.h - what can cut a trace while its program runs, seen as it
 * happens: the session daemon dies, its consumer daemon dies (the one that
 * writes the trace), or the trace's file system fills up. record checks
 * the daemons twice a second and the disk ten times a second, says what
 * happened in one line, stops the session so that the program runs on
 * untraced (and never waits on buffers nobody empties), and writes in the
 * trace's notes where it was cut.
 *
 * A disk counts as full while it still has room for what LTTng holds in
 * memory (the disk margin, see watch_disk_margin()): stopping then lets
 * the last of the buffers and the metadata be written whole. LTTng 2.13's
 * consumer daemon spins forever, and its session daemon stops answering,
 * when it fails to write metadata; with the margin it does not come to
 * that.
 */
#ifndef CUDATRACE_CLI_WATCH_H
#define CUDATRACE_CLI_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "trace-info.h"

/* How many watch_tick() calls between two looks at the daemons. */
#define WATCH_EVERY 5

struct watch {
	const char *output;   /* the local trace directory, or NULL */
	bool check_disk;      /* the trace is written to OUTPUT as it is recorded */
	uint64_t disk_margin; /* free bytes below which OUTPUT's file system is full */
	enum trace_cut fault;
	long long fault_ns; /* CLOCK_REALTIME when the fault was seen */
	unsigned ticks;
};

/*
 * The room LTTng needs to write the last of a session whose data channels
 * have NUM_SUBBUF sub-buffers of SUBBUF_SIZE bytes per CPU, and its metadata:
 * its buffers, within [1 MiB, 64 MiB] (buffers are seldom all full), and
 * 1 MiB.
 */
uint64_t watch_disk_margin(uint64_t subbuf_size, uint64_t num_subbuf);

/*
 * OUTPUT: the local trace directory, NULL for a trace on a relay daemon;
 * CHECK_DISK: it is written while the program runs, MARGIN from
 * watch_disk_margin().
 */
void watch_init(struct watch *w, const char *output, bool check_disk, uint64_t margin);

/*
 * One tick of the program's run (every 100 ms): looks for a fault, the
 * daemons every WATCH_EVERY ticks. Returns the fault when it is seen for
 * the first time, else TRACE_CUT_NONE.
 */
enum trace_cut watch_tick(struct watch *w);

/* Looks for any fault now, as watch_tick() does. */
enum trace_cut watch_check(struct watch *w);

/* Free bytes in DIR's file system for this user; UINT64_MAX when unknown. */
uint64_t watch_disk_free(const char *dir);

#endif
