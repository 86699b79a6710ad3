/* SPDX-License-Identifier: MIT */
/*
 * tracer.h - the events about the tracing itself: tracer_info, which
 * describes the tracer (state.h holds its payload), and tracer_error.
 */
#ifndef CUDATRACE_TRACER_H
#define CUDATRACE_TRACER_H

#include <stdint.h>

#include "contract/events.h"
#include "log.h"

/* Emit tracer_info, with driver_info and the library_load events, if no
 * enabled session has had it yet. */
void tracer_info_emit_once(void);

/* Emit tracer_info alone, now: a statedump's, for a snapshot whose ring
 * buffer lost the first one (the process's name is recorded nowhere else;
 * the session has no procname context). */
void tracer_info_emit(void);

/* Let tracer_info_emit_once emit it again. */
void tracer_info_announce_again(void);

/* Emit a tracer_error event. */
void tracer_error(enum ct_tracer_error_kind kind, int32_t code, const char *message);

/* A problem of the tracer's: one line on stderr at level, and a
 * tracer_error event. */
void tracer_report(enum log_level level, enum ct_tracer_error_kind kind, int32_t code,
                   const char *message);

#endif /* CUDATRACE_TRACER_H */
