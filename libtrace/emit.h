/* SPDX-License-Identifier: MIT */
/*
 * emit.h - emit a cudatrace event when a session enables it.
 */
#ifndef CUDATRACE_EMIT_H
#define CUDATRACE_EMIT_H

#include "cudatrace-tp.h"

/* The enabled()/do_tracepoint() pair of lttng-ust(3): the arguments are
 * only evaluated when a session enables the event. */
#define EMIT(event, ...)                                                        \
	do {                                                                    \
		if (lttng_ust_tracepoint_enabled(cudatrace, event))             \
			lttng_ust_do_tracepoint(cudatrace, event, __VA_ARGS__); \
	} while (0)

#endif /* CUDATRACE_EMIT_H */
