/* SPDX-License-Identifier: MIT */
/*
 * tracer.c - tracer_info and tracer_error events. With tracer_info go
 * the events that describe the process's CUDA environment: driver_info
 * and a library_load for each object loaded, so that a session has them
 * whenever it has tracer_info.
 */
#include "driver-info.h"
#include "emit.h"
#include "loaded-objects.h"
#include "state.h"
#include "text.h"
#include "tracer.h"

/* tracer_info was emitted while enabled: a session has it. */
static bool info_emitted;

void tracer_error(enum ct_tracer_error_kind kind, int32_t code, const char *message)
{
	struct ct_ev_tracer_error e = {
		.kind = (uint8_t)kind,
		.code = code,
		.message = text_or_empty(message),
		.message_len = text_length(message),
	};

	EMIT(tracer_error, &e);
}

void tracer_report(enum log_level level, enum ct_tracer_error_kind kind, int32_t code,
                   const char *message)
{
	log_msg(level, "%s", message);
	tracer_error(kind, code, message);
}

void tracer_info_emit_once(void)
{
	if (__atomic_load_n(&info_emitted, __ATOMIC_RELAXED) ||
	    !lttng_ust_tracepoint_enabled(cudatrace, tracer_info))
		return;
	if (__atomic_exchange_n(&info_emitted, true, __ATOMIC_RELAXED))
		return;
	lttng_ust_do_tracepoint(cudatrace, tracer_info, &tracer.info);
	driver_info_emit();
	loaded_objects_announce();
}

void tracer_info_emit(void)
{
	EMIT(tracer_info, &tracer.info);
}

void tracer_info_announce_again(void)
{
	__atomic_store_n(&info_emitted, false, __ATOMIC_RELAXED);
}
