/* SPDX-License-Identifier: MIT */
/*
 * tracer.h - the tracer's process-wide state, set up by inject.c.
 */
#ifndef CUDATRACE_TRACER_H
#define CUDATRACE_TRACER_H

#include <stdbool.h>
#include <stdint.h>

#include "field-values.h"

/* True while this process traces: subscribed to CUPTI, and not a child
 * forked from the process that subscribed. Cheap: every callback asks. */
extern bool tracer_running;

static inline bool tracer_active(void)
{
	return __atomic_load_n(&tracer_running, __ATOMIC_RELAXED);
}

/* Emit tracer_info if no enabled session has had it yet. */
void tracer_info_emit_once(void);

/* Let tracer_info_emit_once emit it again. */
void tracer_info_announce_again(void);

/* Emit a tracer_error event. */
void tracer_error(enum ct_tracer_error_kind kind, int32_t code, const char *message);

#endif /* CUDATRACE_TRACER_H */
