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
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cupti.h>

#include "activity.h"
#include "config.h"
#include "cudatrace-tp.h"
#include "gpu-events.h"
#include "log.h"
#include "tracer.h"

static const struct {
	uint32_t bit;
	CUpti_ActivityKind kind;
	const char *name;
} kinds[] = {
	{ ACT_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL" },
	{ ACT_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY" },
	{ ACT_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2" },
	{ ACT_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET" },
	{ ACT_MEMORY, CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2" },
	{ ACT_MEMORY_POOL, CUPTI_ACTIVITY_KIND_MEMORY_POOL, "MEMORY_POOL" },
	{ ACT_SYNC, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION" },
	{ ACT_DEVICE, CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE" },
	{ ACT_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD" },
};

#define KIND_COUNT (sizeof(kinds) / sizeof(kinds[0]))

static bool kind_enabled[KIND_COUNT];
static bool activity_on;

static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool running;
	bool stop;
} flusher = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t CUPTIAPI monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Buffers handed back by CUPTI and kept for its next requests: fresh
 * multi-megabyte allocations cost page faults every time they are filled.
 * The lock only guards the list; CUPTI is never called under it. */
#define SPARE_BUFFERS 8

static struct {
	pthread_mutex_t lock;
	void *buffers[SPARE_BUFFERS];
	unsigned count;
} spares = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *buffer_take(void)
{
	void *memory = NULL;

	pthread_mutex_lock(&spares.lock);
	if (spares.count > 0)
		memory = spares.buffers[--spares.count];
	pthread_mutex_unlock(&spares.lock);
	if (!memory && posix_memalign(&memory, 8, config.buffer_size) != 0)
		memory = NULL;
	return memory;
}

static void buffer_give_back(void *memory)
{
	pthread_mutex_lock(&spares.lock);
	if (spares.count < SPARE_BUFFERS) {
		spares.buffers[spares.count++] = memory;
		memory = NULL;
	}
	pthread_mutex_unlock(&spares.lock);
	free(memory);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	void *memory = buffer_take();

	*buffer = memory;
	*size = memory ? config.buffer_size : 0;
	*max_records = 0;
}

static void report_dropped(void)
{
	size_t dropped = 0;

	if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) != CUPTI_SUCCESS || dropped == 0)
		return;
	if (lttng_ust_tracepoint_enabled(cudatrace, activity_dropped))
		lttng_ust_do_tracepoint(cudatrace, activity_dropped, (uint64_t)dropped);
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid_size)
{
	CUpti_Activity *record = NULL;

	if (!tracer_active())
		goto end;
	while (valid_size > 0 &&
	       cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS)
		gpu_events_record(record);
	report_dropped();
end:
	buffer_give_back(buffer);
}

static void deadline_after(struct timespec *deadline, uint32_t ms)
{
	clock_gettime(CLOCK_MONOTONIC, deadline);
	deadline->tv_sec += ms / 1000;
	deadline->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (deadline->tv_nsec >= 1000000000L) {
		deadline->tv_sec++;
		deadline->tv_nsec -= 1000000000L;
	}
}

static void *flusher_main(void *arg)
{
	struct timespec deadline;

	pthread_mutex_lock(&flusher.lock);
	while (!flusher.stop) {
		deadline_after(&deadline, config.flush_period_ms);
		while (!flusher.stop &&
		       pthread_cond_timedwait(&flusher.wake, &flusher.lock, &deadline) == 0)
			;
		if (flusher.stop)
			break;
		pthread_mutex_unlock(&flusher.lock);
		if (tracer_active())
			cuptiActivityFlushAll(0);
		pthread_mutex_lock(&flusher.lock);
	}
	pthread_mutex_unlock(&flusher.lock);
	return NULL;
}

static void flusher_start(void)
{
	pthread_condattr_t attr;
	sigset_t all, saved;

	if (config.flush_period_ms == 0)
		return;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&flusher.wake, &attr);
	pthread_condattr_destroy(&attr);
	/* The program's signals must not land on cudatrace's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	flusher.running = pthread_create(&flusher.thread, NULL, flusher_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (!flusher.running)
		log_warn("cannot start the activity flush thread");
}

static void flusher_stop(void)
{
	if (!flusher.running)
		return;
	pthread_mutex_lock(&flusher.lock);
	flusher.stop = true;
	pthread_cond_signal(&flusher.wake);
	pthread_mutex_unlock(&flusher.lock);
	pthread_join(flusher.thread, NULL);
	flusher.running = false;
}

static void report_failure(const char *what, CUptiResult status)
{
	const char *text = NULL;
	char message[128];

	if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || !text)
		text = "unknown error";
	snprintf(message, sizeof(message), "%s: %s", what, text);
	log_warn("CUPTI activity %s", message);
	tracer_error(TRACER_ERROR_ACTIVITY, (int32_t)status, message);
}

static int enable_kinds(void)
{
	int enabled = 0;

	for (size_t i = 0; i < KIND_COUNT; i++) {
		CUptiResult status;

		if (!(config.activity_kinds & kinds[i].bit))
			continue;
		status = cuptiActivityEnable(kinds[i].kind);
		if (status != CUPTI_SUCCESS) {
			report_failure(kinds[i].name, status);
			continue;
		}
		kind_enabled[i] = true;
		enabled++;
	}
	return enabled;
}

int activity_start(void)
{
	CUptiResult status;

	uint32_t version = 0;

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
		log_notice("%s", message);
		tracer_error(TRACER_ERROR_ACTIVITY, 0, message);
		return -1;
	}
	/* Before any kind: records made earlier would keep CUPTI's clock. */
	status = cuptiActivityRegisterTimestampCallback(monotonic_ns);
	if (status != CUPTI_SUCCESS)
		report_failure("timestamp callback", status);
	status = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (status != CUPTI_SUCCESS)
		log_debug("cuptiSetThreadIdType failed (%d)", status);
	status = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (status != CUPTI_SUCCESS) {
		report_failure("buffer callbacks", status);
		return -1;
	}
	if (enable_kinds() == 0)
		return -1;
	activity_on = true;
	flusher_start();
	return 0;
}

void activity_flush(bool forced)
{
	if (activity_on)
		cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void activity_stop(void)
{
	if (!activity_on)
		return;
	flusher_stop();
	for (size_t i = 0; i < KIND_COUNT; i++) {
		if (kind_enabled[i])
			cuptiActivityDisable(kinds[i].kind);
		kind_enabled[i] = false;
	}
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	activity_on = false;
}
