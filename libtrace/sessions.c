/* SPDX-License-Identifier: MIT */
/*
 * sessions.c - cudatrace does next to nothing while no session records
 * its events.
 *
 * lttng-ust tells each tracepoint whether a started session enables it,
 * but not when that changes; so a thread of cudatrace looks every
 * CUDATRACE_SESSION_POLL_MS (and once at start-up, before the program's
 * first traced call) and switches CUPTI to match: callback ids whose
 * events no session enables are disabled, and so are the activity kinds
 * whose gpu_* events none enables, so that neither CUPTI nor cudatrace
 * does any work for them. Allocations and releases stay traced, so that
 * the sizes of the allocations live when a session starts are known, and
 * a session that starts while the program runs gets them all in a
 * statedump (statedump.c) from this thread. A session started while the
 * program runs gets its first events up to one period later.
 */
#include "activity.h"
#include "callbacks.h"
#include "cudatrace-tp.h"
#include "kernel-shapes.h"
#include "loaded-objects.h"
#include "log.h"
#include "names.h"
#include "nvtx.h"
#include "call-stack.h"
#include "periodic.h"
#include "repeats.h"
#include "sessions.h"
#include "state.h"
#include "statedump.h"
#include "tracer.h"

static struct periodic watcher = PERIODIC_INIT(sessions_follow);

/* Ticks for which the events that name things (or, as a repeat does,
 * refer to what was written before), and those of the live set, have
 * been enabled, counted up to 2. */
static unsigned naming_ticks;
static unsigned state_ticks;

static bool naming_wanted(void)
{
	return lttng_ust_tracepoint_enabled(cudatrace, api_name) ||
	       lttng_ust_tracepoint_enabled(cudatrace, kernel_name) ||
	       lttng_ust_tracepoint_enabled(cudatrace, kernel_shape) ||
	       lttng_ust_tracepoint_enabled(cudatrace, repeat) ||
	       lttng_ust_tracepoint_enabled(cudatrace, call_stack) ||
	       lttng_ust_tracepoint_enabled(cudatrace, nvtx_domain_create) ||
	       lttng_ust_tracepoint_enabled(cudatrace, tracer_info);
}

/*
 * lttng-ust enables a session's tracepoints a moment before the session
 * records (it registers its channels with the session daemon in between):
 * a name emitted once in that moment is lost. So one period after the
 * naming events come on, every name (and tracer_info) is emitted again
 * before its next use.
 */
static void follow_naming(void)
{
	if (!naming_wanted()) {
		naming_ticks = 0;
		return;
	}
	if (naming_ticks < 2 && ++naming_ticks == 2) {
		names_announce_again();
		kernel_shapes_announce_again();
		repeats_announce_again();
		call_stack_announce_again();
		nvtx_announce_again();
		tracer_info_announce_again();
	}
}

static bool state_wanted(void)
{
	return lttng_ust_tracepoint_enabled(cudatrace, statedump_begin) ||
	       lttng_ust_tracepoint_enabled(cudatrace, mem_live) ||
	       lttng_ust_tracepoint_enabled(cudatrace, statedump_end);
}

/*
 * A session that starts while the program runs gets the live set, one
 * period after its events come on, for the reason names are emitted
 * again then (follow_naming). A session started while another one already
 * enables them is not seen: it gets the periodic dumps
 * (CUDATRACE_STATEDUMP_PERIOD_MS).
 */
static void follow_state(void)
{
	if (!state_wanted()) {
		state_ticks = 0;
		return;
	}
	if (state_ticks < 2 && ++state_ticks == 2)
		statedump_run(CT_STATEDUMP_SESSION_START);
}

void sessions_follow(void)
{
	if (!tracer_active())
		return;
	callbacks_follow_sessions();
	activity_follow_sessions();
	follow_naming();
	follow_state();
	/* A session started late gets tracer_info even before a call. */
	tracer_info_emit_once();
	/* Libraries loaded with no CUDA call since (a Python import). */
	loaded_objects_scan();
}

void sessions_watch_start(void)
{
	if (config.session_poll_ms == 0)
		return;
	/* A session started before the program records from its first event:
	 * nothing to emit again. */
	naming_ticks = naming_wanted() ? 2 : 0;
	state_ticks = state_wanted() ? 2 : 0;
	sessions_follow();
	if (periodic_start(&watcher, config.session_poll_ms) < 0)
		log_warn("cannot start the session watch thread");
}

void sessions_watch_stop(void)
{
	periodic_stop(&watcher);
}
