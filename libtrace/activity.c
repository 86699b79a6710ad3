/* SPDX-License-Identifier: MIT */
/*
 * activity.c - CUPTI activity buffers.
 *
 * GPU times are put on LTTng's clock by a CLOCK_MONOTONIC timestamp
 * callback registered before any kind is enabled. CUPTI fills buffers of
 * CUDATRACE_BUFFER_SIZE bytes and hands them back on its own threads (or on
 * the thread that flushes); each record becomes one event, then the dropped
 * count is read (and reset). A thread of cudatrace flushes every
 * CUDATRACE_FLUSH_PERIOD_MS so that the GPU events of a program killed
 * later are already in LTTng's buffers. No lock of cudatrace is held while
 * calling CUPTI.
 *
 * A kind whose event no session enables is disabled (activity_follow_sessions),
 * so that CUPTI makes no record for nothing. Buffers come zeroed from
 * cudatrace (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER), so that CUPTI
 * does not clear megabytes on the program's thread when it asks for one:
 * fresh ones are new anonymous mappings, reused ones are cleared where
 * records were written, on the thread that handed them back, a kilobyte or
 * so at a time as the records are read (buffer_completed).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <cupti.h>

#include "activity.h"
#include "repeats.h"
#include "clock.h"
#include "emit.h"
#include "gpu-events.h"
#include "contract/assert.h"
#include "log.h"
#include "periodic.h"
#include "state.h"
#include "tracer.h"

static const struct {
	uint32_t bit;
	CUpti_ActivityKind kind;
	const char *name;
} kinds[] = {
	{ CT_ACT_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL" },
	{ CT_ACT_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY" },
	{ CT_ACT_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2" },
	{ CT_ACT_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET" },
	{ CT_ACT_MEMORY, CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2" },
	{ CT_ACT_MEMORY_POOL, CUPTI_ACTIVITY_KIND_MEMORY_POOL, "MEMORY_POOL" },
	{ CT_ACT_SYNC, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION" },
	{ CT_ACT_DEVICE, CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE" },
	{ CT_ACT_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD" },
};

#define KIND_COUNT (sizeof(kinds) / sizeof(kinds[0]))

/* Set at start-up and then by the session watcher only. */
static bool kind_enabled[KIND_COUNT];
static bool kind_failed[KIND_COUNT]; /* CUPTI refused it: not tried again */
static bool activity_on;

static void flush_tick(void);

static struct periodic flusher = PERIODIC_INIT(flush_tick);

/* CUPTI's timestamps on LTTng's clock (clock.h). */
static uint64_t CUPTIAPI monotonic_ns(void)
{
	return clock_now_ns();
}

/* Buffers handed back by CUPTI and kept for its next requests: fresh
 * multi-megabyte allocations cost page faults every time they are filled.
 * All are zero when kept. The lock only guards the list; CUPTI is never
 * called under it. */
#define SPARE_BUFFERS 8

static struct {
	pthread_mutex_t lock;
	void *buffers[SPARE_BUFFERS];
	unsigned count;
} spares = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* CUPTI was told that buffers come zeroed. */
static bool buffers_zeroed;

/* Buffers handed to CUPTI and not yet handed back. */
static unsigned buffers_out;

static void *buffer_take(void)
{
	void *memory = NULL;

	pthread_mutex_lock(&spares.lock);
	if (spares.count > 0)
		memory = spares.buffers[--spares.count];
	pthread_mutex_unlock(&spares.lock);
	if (memory)
		return memory;
	/* Page-aligned, and zero until written. */
	memory = mmap(NULL, config.buffer_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	              -1, 0);
	return memory == MAP_FAILED ? NULL : memory;
}

/* Clears [*CLEARED, TO), bytes CUPTI wrote records in and that were read,
 * when buffers are handed to CUPTI zeroed; *CLEARED becomes TO. */
static void clear_read(uint8_t **cleared, uint8_t *to)
{
	if (buffers_zeroed && to > *cleared)
		memset(*cleared, 0, (size_t)(to - *cleared));
	*cleared = to;
}

/* MEMORY, zero again where CUPTI wrote (clear_read), kept for CUPTI's next
 * request. */
static void buffer_give_back(void *memory)
{
	pthread_mutex_lock(&spares.lock);
	if (spares.count < SPARE_BUFFERS) {
		spares.buffers[spares.count++] = memory;
		memory = NULL;
	}
	pthread_mutex_unlock(&spares.lock);
	if (memory)
		munmap(memory, config.buffer_size);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	void *memory = buffer_take();

	*buffer = memory;
	*size = memory ? config.buffer_size : 0;
	*max_records = 0;
	if (memory)
		__atomic_add_fetch(&buffers_out, 1, __ATOMIC_RELAXED);
}

static void report_dropped(void)
{
	size_t dropped = 0;

	if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) != CUPTI_SUCCESS || dropped == 0)
		return;
	EMIT(activity_dropped, &(struct ct_ev_activity_dropped){ .count = (uint64_t)dropped });
}

/* The records read are cleared a kilobyte or so at a time: still in the
 * cache, and a few stores for each of their lines rather than a call for
 * each record. */
#define CLEAR_CHUNK 1024

/*
 * Each record is only looked at when its event is enabled (gpu-events.c):
 * records left from before a session stopped cost a walk, no more. CUPTI
 * wrote records in the first VALID_SIZE bytes only: those read are
 * cleared as the next ones are found (cuptiActivityGetNextRecord reads the
 * record it is given, none before it), while they are in the cache, rather
 * than the whole buffer swept again at the end.
 */
static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid_size)
{
	CUpti_Activity *record = NULL;
	/* For this buffer's records: all the kernel records of one kernel
	 * share its name (CUPTI's), valid while the buffer is read; copies'
	 * times wait for a batch. */
	struct gpu_events_reading reading = { 0 };
	uint8_t *cleared = buffer;

	/* CUPTI never reports more than it was given; past that, records and
	 * the clearing of the buffer would run off its end: the buffer is
	 * cleared whole. */
	if (!CT_CHECK(valid_size <= size && size <= config.buffer_size))
		valid_size = config.buffer_size;
	else if (tracer_active()) {
		while (valid_size > 0 &&
		       cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
			if ((uint8_t *)record - cleared >= CLEAR_CHUNK)
				clear_read(&cleared, (uint8_t *)record);
			gpu_events_record(record, &reading);
		}
		gpu_events_finish(&reading);
		report_dropped();
	}
	clear_read(&cleared, buffer + valid_size);
	buffer_give_back(buffer);
	__atomic_sub_fetch(&buffers_out, 1, __ATOMIC_RELAXED);
}

static void flush_tick(void)
{
	if (!tracer_active())
		return;
	/* the calls the threads kept, so that their records can be batched */
	repeats_flush_others();
	cuptiActivityFlushAll(0);
}

static void report_failure(const char *what, CUptiResult status)
{
	const char *text = NULL;
	char message[128];

	if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || !text)
		text = "unknown error";
	snprintf(message, sizeof(message), "%s: %s", what, text);
	log_warn("CUPTI activity %s", message);
	tracer_error(CT_TRACER_ERROR_ACTIVITY, (int32_t)status, message);
}

/* Enable or disable kind i; a kind CUPTI refuses is reported once and left
 * off. Returns whether it is on. */
static bool switch_kind(size_t i, bool on)
{
	CUptiResult status;

	if (!on) {
		if (kind_enabled[i])
			cuptiActivityDisable(kinds[i].kind);
		kind_enabled[i] = false;
		return false;
	}
	status = cuptiActivityEnable(kinds[i].kind);
	if (status != CUPTI_SUCCESS) {
		report_failure(kinds[i].name, status);
		kind_failed[i] = true;
		return false;
	}
	kind_enabled[i] = true;
	return true;
}

static bool kind_configured(size_t i)
{
	return (config.activity_kinds & kinds[i].bit) && !kind_failed[i];
}

void activity_follow_sessions(void)
{
	if (!activity_on)
		return;
	for (size_t i = 0; i < KIND_COUNT; i++) {
		bool wanted;

		if (!kind_configured(i))
			continue;
		wanted = gpu_events_wanted(kinds[i].kind);
		if (wanted != kind_enabled[i])
			switch_kind(i, wanted);
	}
}

static void set_zeroed_buffers(void)
{
	uint8_t zeroed = 1;
	size_t size = sizeof(zeroed);
	CUptiResult status = cuptiActivitySetAttribute(
	    CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed);

	buffers_zeroed = status == CUPTI_SUCCESS;
	if (!buffers_zeroed)
		log_debug("CUPTI clears activity buffers itself (%d)", status);
}

int activity_start(void)
{
	CUptiResult status;
	uint32_t version = 0;
	int enabled = 0;

	if (config.activity_kinds == 0)
		return 0;
	/* Records are read with the layouts of the headers cudatrace was built
	 * with: an older CUPTI may lay them out differently. */
	if (cuptiGetVersion(&version) != CUPTI_SUCCESS || version < CUPTI_API_VERSION) {
		char message[160];

		snprintf(message, sizeof(message),
		         "CUPTI %u is older than %u, which cudatrace was built for: GPU-side "
		         "events are off",
		         version, (unsigned)CUPTI_API_VERSION);
		tracer_report(LOG_NOTICE, CT_TRACER_ERROR_ACTIVITY, 0, message);
		return -1;
	}
	/* Before any kind: records made earlier would keep CUPTI's clock. */
	status = cuptiActivityRegisterTimestampCallback(monotonic_ns);
	if (status != CUPTI_SUCCESS)
		report_failure("timestamp callback", status);
	status = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (status != CUPTI_SUCCESS)
		log_debug("cuptiSetThreadIdType failed (%d)", status);
	/* Before the first buffer is asked for. */
	set_zeroed_buffers();
	status = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (status != CUPTI_SUCCESS) {
		report_failure("buffer callbacks", status);
		return -1;
	}
	/* Every configured kind once, so that what CUPTI refuses is said at
	 * start-up; activity_follow_sessions then keeps those that are wanted. */
	for (size_t i = 0; i < KIND_COUNT; i++) {
		if (kind_configured(i) && switch_kind(i, true))
			enabled++;
	}
	if (enabled == 0)
		return -1;
	activity_on = true;
	if (periodic_start(&flusher, config.flush_period_ms) < 0)
		log_warn("cannot start the activity flush thread");
	return 0;
}

void activity_flush(bool forced)
{
	if (activity_on)
		cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

unsigned activity_buffers_out(void)
{
	return __atomic_load_n(&buffers_out, __ATOMIC_RELAXED);
}

void activity_stop(void)
{
	if (!activity_on)
		return;
	periodic_stop(&flusher);
	for (size_t i = 0; i < KIND_COUNT; i++)
		switch_kind(i, false);
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	activity_on = false;
}
