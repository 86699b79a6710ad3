/* SPDX-License-Identifier: MIT */
/*
 * repeat-runs.h - a repeat_run event (doc/events.md) read as the repeats
 * it holds, one at a time, each at its own time (when its call returned)
 * and of its own thread: everything after the decoding sees a repeat a
 * call, as in a trace without runs. Its columns are read by index, as the
 * event decoder resolved them (event-decoder.h: CT_READ_COLUMN); a damaged
 * event's columns of different lengths are read up to the shortest.
 *
 *	ct_repeat_run_open(&run, info, event);
 *	while (ct_repeat_run_next(&run, &held))
 *		...
 */
#ifndef CUDATRACE_ANALYZERS_REPEAT_RUNS_H
#define CUDATRACE_ANALYZERS_REPEAT_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "event-decoder.h"
#include "held-event.h"

enum ct_repeat_run_column {
	CT_REPEAT_RUN_SHAPE,
	CT_REPEAT_RUN_CORRELATION_ID,
	CT_REPEAT_RUN_EXIT,
	CT_REPEAT_RUN_DURATION,
	CT_REPEAT_RUN_COLUMNS,
};

struct ct_repeat_run {
	uint64_t base;
	uint32_t tid;   /* the calls' thread; 0: the event's own */
	uint64_t count; /* the shortest column's length */
	uint64_t next;
	const bt_field *column[CT_REPEAT_RUN_COLUMNS]; /* borrowed from the event */
	/* the calls that moved their addresses (repeat_moved), five values
	 * each; NULL in a trace of an older tracer */
	const bt_field *moved; /* borrowed from the event */
	uint64_t moved_count;  /* calls */
	uint64_t moved_next;
};

/* Opens EVENT, a repeat_run whose class INFO resolved. */
void ct_repeat_run_open(struct ct_repeat_run *run, const struct ct_event_class_info *info,
                        const bt_event *event);

/* The next repeat or repeat_moved in H (its type, time and payload: every
 * member), false when none is left. */
bool ct_repeat_run_next(struct ct_repeat_run *run, struct ct_held_event *h);

#endif
