/* SPDX-License-Identifier: MIT */
/*
 * statedump.h - the live set: a statedump_begin, one mem_live per
 * allocation the tracker holds, a statedump_end (doc/events.md, "The live
 * set"), so that a trace whose window starts after allocations still
 * accounts for them.
 */
#ifndef CUDATRACE_STATEDUMP_H
#define CUDATRACE_STATEDUMP_H

#include <stdint.h>

#include "contract/events.h"

/* Emit one dump now, if a session enables its events. From a thread of
 * cudatrace, never on the program's call path: it walks the whole map.
 * Dumps never interleave. */
void statedump_run(enum ct_statedump_reason reason);

/* Dump every period_ms (0: never) from a thread of cudatrace. Returns 0, or
 * -1 when the thread cannot be created. */
int statedump_start(uint32_t period_ms);

/* Stop that thread. */
void statedump_stop(void);

#endif /* CUDATRACE_STATEDUMP_H */
