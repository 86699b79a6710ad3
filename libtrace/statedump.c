/* SPDX-License-Identifier: MIT */
/*
 * statedump.c - the live set (statedump.h), lttng-ust's statedump being the
 * model: a session that starts while the program runs, or a flight
 * recorder whose ring buffer has wrapped, still learns of the allocations
 * made before its window.
 *
 * The live set is copied out of the tracker in one pass under its locks
 * (tracker_snapshot), then emitted with no lock held: the program's
 * allocations and releases wait for the copy, never for the trace. The
 * copy is taken after statedump_begin, and the tracker holds an allocation
 * before its mem_alloc is emitted and no longer when its mem_free is: so
 * an allocation live at statedump_begin is either in the dump or freed
 * after statedump_begin, as doc/events.md tells readers.
 */
#include <pthread.h>
#include <stdlib.h>
#include <cupti.h>

#include "emit.h"
#include "names.h"
#include "periodic.h"
#include "state.h"
#include "statedump.h"
#include "tracer.h"
#include "tracker.h"

/* Room beyond the tracker's count for allocations made while the array is
 * allocated, and how many times the copy is tried before the dump says
 * it is incomplete. */
#define SNAPSHOT_SLACK 64
#define SNAPSHOT_TRIES 3

static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t dumps; /* under dump_lock */

static void periodic_dump(void);

static struct periodic dumper = PERIODIC_INIT(periodic_dump);

static bool dump_wanted(void)
{
	return lttng_ust_tracepoint_enabled(cudatrace, statedump_begin) ||
	       lttng_ust_tracepoint_enabled(cudatrace, mem_live) ||
	       lttng_ust_tracepoint_enabled(cudatrace, statedump_end);
}

/* The live set into a fresh array (*live, freed by the caller); returns how
 * many, and whether that is all of it. */
static size_t take_live_set(struct tracker_entry **live, bool *complete)
{
	size_t max = 0, total = 0;

	*live = NULL;
	*complete = false;
	for (int try = 0; try < SNAPSHOT_TRIES; try++) {
		/* The last try's count, or the tracker's, and some room. */
		size_t want = (total > tracker_count() ? total : tracker_count()) + SNAPSHOT_SLACK;

		free(*live);
		*live = malloc(want * sizeof(**live));
		if (!*live)
			return 0;
		max = want;
		total = tracker_snapshot(*live, max);
		if (total <= max) {
			*complete = true;
			return total;
		}
	}
	return max;
}

/* Name the calls the dump refers to, each once, whether or not they were
 * named before: a snapshot that holds the dump may have lost the first
 * api_name of each. */
static void name_calls(const struct tracker_entry *live, size_t count)
{
	/* A bit per callback id of the driver and runtime domains. */
	uint64_t named[2][1024 / 64] = { { 0 } };

	if (!lttng_ust_tracepoint_enabled(cudatrace, api_name))
		return;
	for (size_t i = 0; i < count; i++) {
		const struct ct_api_ref *api = &live[i].api;
		unsigned d = api->domain - CUPTI_CB_DOMAIN_DRIVER_API;
		const char *name = NULL;
		uint64_t bit;

		if (d > 1 || api->cbid >= 1024)
			continue;
		bit = UINT64_C(1) << (api->cbid % 64);
		if (named[d][api->cbid / 64] & bit)
			continue;
		named[d][api->cbid / 64] |= bit;
		/* CUPTI's name of the call (with its version suffix); none
		 * is better than an empty one. */
		if (cuptiGetCallbackName((CUpti_CallbackDomain)api->domain, api->cbid, &name) ==
		        CUPTI_SUCCESS &&
		    name)
			names_emit_api(api->domain, api->cbid, name);
	}
}

static void emit_live(uint32_t dump, const struct tracker_entry *e)
{
	struct ct_ev_mem_live live = {
		.dump = dump,
		.address = e->start,
		.size = e->size,
		.alloc_time = e->alloc_time,
		.stream = e->stream,
		.device = e->device,
		.kind = e->kind,
		.api = e->api,
	};

	lttng_ust_do_tracepoint(cudatrace, mem_live, &live);
}

void statedump_run(enum ct_statedump_reason reason)
{
	struct tracker_entry *live;
	uint32_t dump;
	bool complete;
	size_t count;

	if (!tracer_active() || !dump_wanted())
		return;
	pthread_mutex_lock(&dump_lock);
	/* a window that misses the names' first events (a flight recorder's
	 * ring) gets them again before their next use after each dump */
	if (reason == CT_STATEDUMP_PERIODIC)
		names_announce_again();
	dump = ++dumps;
	EMIT(statedump_begin,
	     &(struct ct_ev_statedump_begin){ .dump = dump, .reason = (uint8_t)reason });
	tracer_info_emit();
	count = take_live_set(&live, &complete);
	if (lttng_ust_tracepoint_enabled(cudatrace, mem_live)) {
		name_calls(live, count);
		for (size_t i = 0; i < count; i++)
			emit_live(dump, &live[i]);
	}
	EMIT(statedump_end, &(struct ct_ev_statedump_end){
	                        .dump = dump,
	                        .entries = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count,
	                        .complete = complete,
	                    });
	free(live);
	pthread_mutex_unlock(&dump_lock);
}

static void periodic_dump(void)
{
	statedump_run(CT_STATEDUMP_PERIODIC);
}

int statedump_start(uint32_t period_ms)
{
	return periodic_start(&dumper, period_ms);
}

void statedump_stop(void)
{
	periodic_stop(&dumper);
}
