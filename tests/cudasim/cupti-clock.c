/* SPDX-License-Identifier: MIT */
/*
 * cupti-clock.c - the clock of activity records. The driver stamps
 * everything with CLOCK_MONOTONIC; CUPTI reports CLOCK_REALTIME by default
 * ("Linux ... uses clock_gettime(CLOCK_REALTIME)", cupti_activity.h) or the
 * clock of the callback given to cuptiActivityRegisterTimestampCallback.
 * Both are a fixed offset from CLOCK_MONOTONIC, sampled once, as CUPTI maps
 * GPU timestamps to CPU time by interpolation.
 */
#include <pthread.h>
#include <time.h>
#include "cupti-internal.h"

/* offset_ready is set (release) after clock_offset is stored; writers hold
 * offset_lock so that a registration is never overwritten by a first use. */
static pthread_mutex_t offset_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t clock_offset;
static bool offset_ready;

uint64_t cupti_monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static uint64_t CUPTIAPI realtime_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/*
 * other() - CLOCK_MONOTONIC, read between two monotonic reads; the
 * narrowest of a few tries bounds the error to a few tens of ns.
 */
static int64_t sample_offset(CUpti_TimestampCallbackFunc other)
{
	uint64_t best_width = UINT64_MAX;
	int64_t offset = 0;

	for (int attempt = 0; attempt < 8; attempt++) {
		uint64_t before = cupti_monotonic_ns();
		uint64_t theirs = other();
		uint64_t after = cupti_monotonic_ns();
		uint64_t width = after - before;

		if (width < best_width) {
			best_width = width;
			/* The true offset lies in [theirs - after, theirs - before].
			 * When that holds 0, the clocks cannot be told apart: a
			 * CLOCK_MONOTONIC callback must give records unshifted. */
			if (theirs >= before && theirs <= after)
				offset = 0;
			else
				offset = (int64_t)(theirs - (before + width / 2));
		}
	}
	return offset;
}

/* replace: a registration; otherwise only the first sample is kept. */
static void set_offset(int64_t offset, bool replace)
{
	pthread_mutex_lock(&offset_lock);
	if (replace || !offset_ready) {
		__atomic_store_n(&clock_offset, offset, __ATOMIC_RELAXED);
		__atomic_store_n(&offset_ready, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&offset_lock);
}

int64_t cupti_clock_offset(void)
{
	if (!__atomic_load_n(&offset_ready, __ATOMIC_ACQUIRE))
		set_offset(sample_offset(realtime_ns), false);
	return __atomic_load_n(&clock_offset, __ATOMIC_RELAXED);
}

void cupti_clock_finalize(void)
{
	pthread_mutex_lock(&offset_lock);
	__atomic_store_n(&offset_ready, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&offset_lock);
}

/*
 * The header asks for registration before any kind is enabled, and says
 * that a later change leaves the records made before it on the previous
 * clock: a later call is accepted, and records are converted when CUPTI
 * takes them (cupti_activity.h, cuptiActivityRegisterTimestampCallback).
 * The callback runs here only, on the caller's thread, with no lock held.
 */
SIM_EXPORT CUptiResult CUPTIAPI
cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp)
{
	if (!funcTimestamp)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	set_offset(sample_offset(funcTimestamp), true);
	return CUPTI_SUCCESS;
}

/* "normalized to correspond with the start and end timestamps reported in
 * the CUPTI activity records" (cupti_activity.h). */
SIM_EXPORT CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp)
{
	if (!timestamp)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	*timestamp = cupti_monotonic_ns() + (uint64_t)cupti_clock_offset();
	return CUPTI_SUCCESS;
}
