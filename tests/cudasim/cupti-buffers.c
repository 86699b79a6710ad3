/* SPDX-License-Identifier: MIT */
/*
 * cupti-buffers.c - the activity buffer protocol (cupti_activity.h): CUPTI
 * asks the client for buffers (bufferRequested) on the thread that produces
 * a record, fills them, and hands them back (bufferCompleted) from its
 * worker thread once full and complete, or on the caller's thread in
 * cuptiActivityFlushAll. No lock is held while a client callback runs: the
 * client may call cuptiActivityGetNextRecord and friends from inside.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cupti-internal.h"

/* A record whose GPU work had not ended when it was stored. */
struct pending {
	size_t offset;        /* of the record in the buffer */
	uint64_t complete_ns; /* CLOCK_MONOTONIC */
	int64_t clock_offset; /* added to its timestamps */
};

struct buffer {
	uint8_t *data;      /* the client's */
	size_t size;        /* as the client gave it */
	size_t max_records; /* 0: as many as fit */
	size_t used;        /* bytes from data: alignment pad, then records */
	size_t records;
	size_t overhead_records;
	uint64_t complete_ns; /* when the last of its records completes */
	struct pending *pending;
	size_t pending_count, pending_capacity;
	struct buffer *next;
};

static pthread_mutex_t buffers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t worker_wake;   /* CLOCK_MONOTONIC */
static pthread_cond_t delivery_done; /* a worker delivery ended */
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static CUpti_BuffersCallbackRequestFunc request_callback;
static CUpti_BuffersCallbackCompleteFunc complete_callback;

static struct buffer *current;               /* being filled */
static struct buffer *spares;                /* received, not used yet */
static struct buffer *full_head, *full_tail; /* waiting for delivery */

static bool worker_running;
static bool worker_stopping;       /* the process is exiting */
static unsigned worker_deliveries; /* buffers the worker is handing back now */
static uint32_t flush_period_ms;

/* Depth of client buffer callbacks on this thread. */
static __thread unsigned in_client_callback;

/* ------------------------------------------------------------ setup */

/* After fork() only the forking thread exists in the child: no worker, no
 * delivery in flight, nothing to wait for (HPCToolkit issues 195 and 326: a
 * flush in a forked child waits forever on threads it does not have). The lock is
 * held across fork() so that the child's copy is consistent. */
static void before_fork(void)
{
	pthread_mutex_lock(&buffers_lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&buffers_lock);
}

static void init_conditions(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&worker_wake, &attr);
	pthread_condattr_destroy(&attr);
	pthread_cond_init(&delivery_done, NULL);
}

static void after_fork_child(void)
{
	worker_running = false;
	worker_deliveries = 0;
	init_conditions();
	pthread_mutex_unlock(&buffers_lock);
}

static void setup(void)
{
	init_conditions();
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static void lock_buffers(void)
{
	pthread_once(&setup_once, setup);
	pthread_mutex_lock(&buffers_lock);
}

static void unlock_buffers(void)
{
	pthread_mutex_unlock(&buffers_lock);
}

/* ------------------------------------------------------------ buffers */

static size_t valid_size(const struct buffer *buffer)
{
	return buffer->records ? buffer->used : 0;
}

static bool fits(const struct buffer *buffer, size_t size)
{
	if (buffer->max_records && buffer->records >= buffer->max_records)
		return false;
	return buffer->used <= buffer->size && size <= buffer->size - buffer->used;
}

static bool is_full(const struct buffer *buffer)
{
	return !fits(buffer, cupti_record_min_size());
}

static void free_buffer(struct buffer *buffer)
{
	free(buffer->pending);
	free(buffer);
}

/* Remember a record that is not complete yet. Out of memory, the record is
 * only not expired by a forced flush. */
static void add_pending(struct buffer *buffer, size_t offset, uint64_t complete_ns,
                        int64_t clock_offset)
{
	if (buffer->pending_count == buffer->pending_capacity) {
		size_t capacity = buffer->pending_capacity ? buffer->pending_capacity * 2 : 64;
		struct pending *grown = realloc(buffer->pending, capacity * sizeof(*grown));

		if (!grown)
			return;
		buffer->pending = grown;
		buffer->pending_capacity = capacity;
	}
	buffer->pending[buffer->pending_count++] =
	    (struct pending){ offset, complete_ns, clock_offset };
}

static void write_record(struct buffer *buffer, const void *record, size_t size,
                         uint64_t complete_ns, int64_t clock_offset)
{
	const CUpti_Activity *header = record;

	memcpy(buffer->data + buffer->used, record, size);
	if (complete_ns > cupti_monotonic_ns())
		add_pending(buffer, buffer->used, complete_ns, clock_offset);
	buffer->used += size;
	buffer->records++;
	if (header->kind == CUPTI_ACTIVITY_KIND_OVERHEAD)
		buffer->overhead_records++;
	if (complete_ns > buffer->complete_ns)
		buffer->complete_ns = complete_ns;
}

/* ------------------------------------------------------------ worker */

static void stop_worker_at_exit(void)
{
	lock_buffers();
	worker_stopping = true;
	pthread_cond_broadcast(&worker_wake);
	unlock_buffers();
}

/* The worker may still run when the process exits or the library is
 * closed: keep the code mapped. */
static void pin_library(void)
{
	Dl_info info;

	if (dladdr((void *)pin_library, &info) && info.dli_fname)
		dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static void *worker_main(void *unused);

/* Caller holds the lock. Signals stay with the application's threads. */
static void start_worker(void)
{
	static bool exit_hook;
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;

	if (worker_running || worker_stopping)
		return;
	if (!exit_hook)
		exit_hook = atexit(stop_worker_at_exit) == 0;
	pin_library();
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&thread, &attr, worker_main, NULL) == 0)
		worker_running = true;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

/* Caller holds the lock: the buffer joins the delivery queue. */
static void retire(struct buffer *buffer)
{
	buffer->next = NULL;
	if (full_tail)
		full_tail->next = buffer;
	else
		full_head = buffer;
	full_tail = buffer;
	start_worker();
	pthread_cond_broadcast(&worker_wake);
}

static void retire_current(void)
{
	struct buffer *buffer = current;

	current = NULL;
	if (buffer)
		retire(buffer);
}

/* Caller holds the lock. First queued buffer complete by now, or NULL. */
static struct buffer *take_complete(uint64_t now)
{
	struct buffer **link = &full_head, *previous = NULL;

	for (struct buffer *buffer = full_head; buffer; buffer = buffer->next) {
		if (buffer->complete_ns <= now) {
			*link = buffer->next;
			if (full_tail == buffer)
				full_tail = previous;
			buffer->next = NULL;
			return buffer;
		}
		previous = buffer;
		link = &buffer->next;
	}
	return NULL;
}

/* Earliest completion among queued buffers, UINT64_MAX if none. */
static uint64_t next_completion(void)
{
	uint64_t earliest = UINT64_MAX;

	for (struct buffer *buffer = full_head; buffer; buffer = buffer->next)
		if (buffer->complete_ns < earliest)
			earliest = buffer->complete_ns;
	return earliest;
}

static void emit_flush_overhead(uint64_t start_ns, uint64_t end_ns)
{
	CUpti_ActivityOverhead3 record;

	if (!cupti_activity_enabled(CUPTI_ACTIVITY_KIND_OVERHEAD))
		return;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	record.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
	record.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	record.objectId.pt.processId = (uint32_t)getpid();
	record.objectId.pt.threadId = cupti_thread_id();
	record.start = start_ns;
	record.end = end_ns;
	cupti_activity_emit((const CUpti_Activity *)&record, end_ns);
}

/*
 * Hand one buffer back, with no lock held: "context ... will always be
 * NULL", "streamId ... will always be NULL" (cupti_activity.h). One
 * OVERHEAD record per flush, except for buffers of overhead records only,
 * which would otherwise feed each other forever.
 */
static void deliver(struct buffer *buffer, CUpti_BuffersCallbackCompleteFunc complete)
{
	uint64_t start_ns = cupti_monotonic_ns();
	bool overhead = buffer->records > buffer->overhead_records;

	if (complete) {
		in_client_callback++;
		complete(NULL, 0, buffer->data, buffer->size, valid_size(buffer));
		in_client_callback--;
	}
	if (overhead && complete)
		emit_flush_overhead(start_ns, cupti_monotonic_ns());
	free_buffer(buffer);
}

static void wait_until(uint64_t deadline_ns)
{
	struct timespec deadline;

	if (deadline_ns == UINT64_MAX) {
		pthread_cond_wait(&worker_wake, &buffers_lock);
		return;
	}
	deadline.tv_sec = (time_t)(deadline_ns / 1000000000u);
	deadline.tv_nsec = (long)(deadline_ns % 1000000000u);
	pthread_cond_timedwait(&worker_wake, &buffers_lock, &deadline);
}

/*
 * Full buffers go back as soon as their records are complete; with a flush
 * period, only at each period ("Periodic flush can return only those
 * activity buffers which are full and have all the activity records
 * completed", cupti_activity.h).
 */
static void *worker_main(void *unused)
{
	uint64_t next_tick = 0;

	lock_buffers();
	while (!worker_stopping) {
		uint64_t now = cupti_monotonic_ns();
		uint64_t deadline = next_completion();
		struct buffer *buffer = NULL;

		if (flush_period_ms == 0 || now >= next_tick)
			buffer = take_complete(now);
		if (buffer) {
			CUpti_BuffersCallbackCompleteFunc complete = complete_callback;

			worker_deliveries++;
			unlock_buffers();
			deliver(buffer, complete);
			lock_buffers();
			worker_deliveries--;
			pthread_cond_broadcast(&delivery_done);
			continue;
		}
		if (flush_period_ms) {
			if (now >= next_tick)
				next_tick = now + (uint64_t)flush_period_ms * 1000000u;
			deadline = next_tick;
		}
		wait_until(deadline);
	}
	worker_running = false;
	unlock_buffers();
	return NULL;
}

/* ------------------------------------------------------------ intake */

/*
 * CUDASIM_CUPTI_CHECK_ZEROED=1: a client that set
 * CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER promised buffers that are
 * zero ("CUPTI will skip zeroing out the buffer"), and a real CUPTI's
 * records would then carry whatever it left in them. Each buffer it hands
 * over is read whole, and one that is not zero ends the process with a
 * line on stderr. A test's check: reading megabytes at every request is
 * not what CUPTI does.
 */
static void check_zeroed(const uint8_t *data, size_t size)
{
	const char *text = getenv("CUDASIM_CUPTI_CHECK_ZEROED");

	if (!text || strcmp(text, "1") != 0)
		return;
	for (size_t i = 0; i < size; i++) {
		if (data[i] == 0)
			continue;
		fprintf(stderr,
		        "cudasim: a buffer handed to CUPTI as zeroed has byte %zu of %zu "
		        "not zero\n",
		        i, size);
		abort();
	}
}

/* Ask the client, with no lock held. NULL: no buffer, the record drops. */
static struct buffer *request_buffer(CUpti_BuffersCallbackRequestFunc request)
{
	uint8_t *data = NULL;
	size_t size = 0, max_records = 0;
	struct buffer *buffer;

	in_client_callback++;
	request(&data, &size, &max_records);
	in_client_callback--;
	if (!data || size == 0)
		return NULL;
	if (cupti_activity_zeroes_buffers())
		memset(data, 0, size);
	else
		check_zeroed(data, size);
	buffer = calloc(1, sizeof(*buffer));
	if (!buffer)
		return NULL;
	buffer->data = data;
	buffer->size = size;
	buffer->max_records = max_records;
	/* records are 8-byte aligned, as GetNextRecord expects */
	buffer->used = (size_t)(-(uintptr_t)data & 7);
	return buffer;
}

/*
 * A buffer that cannot take the record is retired (given back even when
 * empty, so that the client gets its memory back); a spare or a new buffer
 * replaces it. At most one request per record.
 */
bool cupti_buffers_append(const void *record, size_t size, uint64_t complete_ns,
                          int64_t clock_offset)
{
	bool requested = false;

	lock_buffers();
	for (;;) {
		CUpti_BuffersCallbackRequestFunc request = request_callback;
		struct buffer *fresh;

		if (!request)
			break;
		if (current && fits(current, size)) {
			write_record(current, record, size, complete_ns, clock_offset);
			if (is_full(current))
				retire_current();
			unlock_buffers();
			return true;
		}
		retire_current();
		if (spares) {
			current = spares;
			spares = spares->next;
			current->next = NULL;
			continue;
		}
		if (requested)
			break;
		unlock_buffers();
		fresh = request_buffer(request);
		requested = true;
		lock_buffers();
		if (!fresh)
			break;
		fresh->next = spares;
		spares = fresh;
	}
	unlock_buffers();
	return false;
}

/* ------------------------------------------------------------ flushing */

/*
 * GPU timestamps not reached yet read 0: a forced flush hands back records
 * whose work has not finished. cupti_activity.h: FLUSH_FORCED flushes "all
 * records in the buffer, whether finished or not", and cuptiActivityFlushAll
 * then "returns all the activity buffers including the ones which have one
 * or more incomplete activity records"; an unknown start or end time is
 * CUPTI_TIMESTAMP_UNKNOWN (0). A copy still running has its start and no
 * end; work not begun has neither.
 */
static void expire_incomplete(struct buffer *buffer, uint64_t now)
{
	for (size_t i = 0; i < buffer->pending_count; i++) {
		const struct pending *pending = &buffer->pending[i];
		uint8_t *record = buffer->data + pending->offset;
		const struct cupti_record_layout *layout;

		if (pending->complete_ns <= now)
			continue;
		layout = cupti_record_layout(((const CUpti_Activity *)record)->kind);
		for (unsigned t = 0; layout && t < layout->timestamp_count; t++) {
			uint64_t ns;

			memcpy(&ns, record + layout->timestamps[t], sizeof(ns));
			if (ns != 0 && ns - (uint64_t)pending->clock_offset > now) {
				ns = 0;
				memcpy(record + layout->timestamps[t], &ns, sizeof(ns));
			}
		}
	}
}

static void push_list(struct buffer **list, struct buffer *buffer)
{
	buffer->next = *list;
	*list = buffer;
}

/* Caller holds the lock. What FlushAll hands back: complete buffers, part
 * filled ones too; forced, everything (empty spares included). */
static struct buffer *collect(bool forced, uint64_t now)
{
	struct buffer *list = NULL, *buffer;

	while ((buffer = take_complete(forced ? UINT64_MAX : now)))
		push_list(&list, buffer);
	if (current && (forced || (current->records && current->complete_ns <= now))) {
		push_list(&list, current);
		current = NULL;
	}
	while (forced && spares) {
		buffer = spares;
		spares = spares->next;
		push_list(&list, buffer);
	}
	return list;
}

static void wait_for_worker(void)
{
	lock_buffers();
	while (worker_running && worker_deliveries > 0)
		pthread_cond_wait(&delivery_done, &buffers_lock);
	unlock_buffers();
}

/*
 * On the calling thread. A second round hands back the OVERHEAD records the
 * first one made; then wait for a delivery the worker has in progress, so
 * that every complete record has reached the client on return.
 */
CUptiResult cupti_buffers_flush_all(uint32_t flag)
{
	bool forced = flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;
	CUpti_BuffersCallbackCompleteFunc complete;
	struct buffer *list;

	if (in_client_callback)
		return CUPTI_ERROR_INVALID_OPERATION;
	for (int round = 0; round < 2; round++) {
		uint64_t now;

		lock_buffers();
		complete = complete_callback;
		if (!complete) {
			unlock_buffers();
			return CUPTI_ERROR_INVALID_OPERATION;
		}
		now = cupti_monotonic_ns();
		list = collect(forced, now);
		unlock_buffers();
		if (!list)
			break;
		while (list) {
			struct buffer *buffer = list;

			list = list->next;
			if (forced)
				expire_incomplete(buffer, now);
			deliver(buffer, complete);
		}
	}
	wait_for_worker();
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	return cupti_status(cupti_buffers_flush_all(flag));
}

/* Deprecated: "CONTEXT and STREAMID will be ignored". */
SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityFlush(CUcontext context, uint32_t streamId,
                                                   uint32_t flag)
{
	return cupti_status(cupti_buffers_flush_all(flag));
}

/* "Setting time to zero disables the periodic flush and restores the
 * default behavior" (cupti_activity.h). */
SIM_EXPORT CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t time)
{
	lock_buffers();
	flush_period_ms = time;
	if (time)
		start_worker();
	pthread_cond_broadcast(&worker_wake);
	unlock_buffers();
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI
cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                               CUpti_BuffersCallbackCompleteFunc funcBufferCompleted)
{
	if (!funcBufferRequested || !funcBufferCompleted)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	lock_buffers();
	request_callback = funcBufferRequested;
	complete_callback = funcBufferCompleted;
	unlock_buffers();
	return CUPTI_SUCCESS;
}

void cupti_buffers_finalize(void)
{
	if (!in_client_callback)
		cupti_buffers_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	lock_buffers();
	request_callback = NULL;
	complete_callback = NULL;
	flush_period_ms = 0;
	unlock_buffers();
}
