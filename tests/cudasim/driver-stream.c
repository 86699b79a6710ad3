/* SPDX-License-Identifier: MIT */
/*
 * driver-stream.c - streams, events and the per-stream GPU timeline of the
 * simulated driver.
 *
 * Every stream keeps the GPU end of its last piece of work (its tail); new
 * work starts at max(submission, tail, dependencies), where the dependencies
 * are the legacy default stream rules (stream-sync-behavior): work on the
 * legacy stream waits for every blocking stream of its context, work on a
 * blocking stream (created without CU_STREAM_NON_BLOCKING, or a per-thread
 * stream) waits for the legacy stream. An event holds a time on that
 * timeline.
 *
 * Handles: a created stream or an event is named by (tag, slot, generation)
 * packed into the handle value, never by its address. Objects are recycled
 * through free lists, never freed, and a destroyed object's generation no
 * longer matches, so a stale handle is detected (CUDA_ERROR_INVALID_HANDLE)
 * without touching freed memory, and a stale struct pointer still points at
 * a valid object. With CUDASIM_REUSE_STREAM_HANDLES=1 a recycled stream
 * keeps its generation: the next stream created gets the handle of the
 * one destroyed last, as a real driver's freed stream pointer may be given
 * out again (a stale handle then names the new stream).
 *
 * One mutex guards all of it; it is never held while sleeping or while
 * calling the profiler, whose callbacks may call back into the driver.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "driver-internal.h"

/*
 * The pre-_v2 names the real driver still exports (cuda.h maps the plain
 * names onto _v2 with macros); same arguments, same behaviour here.
 */
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuEventElapsedTime
SIM_EXPORT CUresult CUDAAPI cuStreamDestroy(CUstream hStream);
SIM_EXPORT CUresult CUDAAPI cuEventDestroy(CUevent hEvent);
SIM_EXPORT CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);

/* ------------------------------------------------------------ objects */

enum stream_kind {
	STREAM_LEGACY,     /* NULL / CU_STREAM_LEGACY: one per context */
	STREAM_PER_THREAD, /* CU_STREAM_PER_THREAD: one per thread and context */
	STREAM_CREATED     /* cuStreamCreate* */
};

struct stream_set;

struct sim_stream {
	uint32_t slot;       /* index in stream_table, fixed for the object's life */
	uint32_t generation; /* bumped at every reuse; part of the handle */
	bool live;
	enum stream_kind kind;
	unsigned int flags;
	int priority;
	uint64_t owner;            /* per-thread streams: the owning thread's token */
	uint64_t id;               /* process-wide unique (cuStreamGetId, CUPTI) */
	uint64_t tail;             /* GPU end of the last work submitted */
	unsigned int host_pending; /* host functions queued, not yet finished */
	struct sim_graph *capture; /* graph being captured into, or NULL */
	bool capture_invalid;      /* the capture was invalidated */
	struct stream_set *set;
	struct sim_stream *prev, *next; /* live streams of the set, or the free list */
};

struct sim_event {
	uint32_t slot;
	uint32_t generation;
	bool live;
	unsigned int flags;
	uint32_t id; /* cudaEventId of the activity records */
	bool recorded;
	uint64_t time_ns;          /* when the captured work ends */
	uint64_t stream_id;        /* stream of the latest record */
	uint64_t record_sync_id;   /* cudaEventSyncId of the latest record */
	struct sim_graph *capture; /* recorded into this capture, or NULL */
	struct stream_set *set;
	struct sim_event *prev, *next;
};

/* What the streams and events of one context share. */
struct stream_set {
	bool live;
	struct sim_context *ctx;
	CUcontext handle;
	uint32_t ctx_id;
	int device;
	struct sim_stream *legacy;
	struct sim_stream *streams; /* every live stream, the legacy one included */
	struct sim_event *events;
	/* Tails of destroyed streams: their work still runs to its end. */
	uint64_t retired_tail;
	uint64_t retired_blocking_tail;
	struct stream_set *next; /* live sets, or the free list */
};

/* Objects by slot; they never move and are never freed. */
struct slot_table {
	void **objects;
	uint32_t count;
	uint32_t capacity;
};

#define HANDLE_TAG_SHIFT  56
#define HANDLE_SLOT_SHIFT 32
#define HANDLE_SLOT_MASK  0xffffffu
#define HANDLE_SLOT_LIMIT (HANDLE_SLOT_MASK + 1u)
/* Tags below 0x80 keep handles positive when a program stores them in an
 * intptr_t. */
#define STREAM_TAG 0x53u /* 'S' */
#define EVENT_TAG  0x45u /* 'E' */

static pthread_mutex_t timeline_lock = PTHREAD_MUTEX_INITIALIZER;
/* Broadcast whenever a host function finishes (host_pending drops). */
static pthread_cond_t host_done = PTHREAD_COND_INITIALIZER;
static struct slot_table stream_table;
static struct slot_table event_table;
static struct sim_stream *free_streams;
static struct sim_event *free_events;
static struct stream_set *live_sets;
static struct stream_set *free_sets;
static uint64_t next_stream_id = 1;
static uint32_t next_event_id = 1;
static uint64_t next_event_sync_id = 1;
static uint64_t next_thread_token = 1;
static __thread uint64_t thread_token;

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t add_saturated(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Unique for the thread's lifetime, unlike a tid, which the kernel reuses. */
static uint64_t current_thread_token_locked(void)
{
	if (thread_token == 0)
		thread_token = next_thread_token++;
	return thread_token;
}

static bool table_grow(struct slot_table *table)
{
	if (table->count < table->capacity)
		return true;
	if (table->capacity >= HANDLE_SLOT_LIMIT)
		return false;
	uint32_t capacity = table->capacity ? table->capacity * 2 : 64;
	if (capacity > HANDLE_SLOT_LIMIT)
		capacity = HANDLE_SLOT_LIMIT;
	void **objects = realloc(table->objects, capacity * sizeof(*objects));
	if (!objects)
		return false;
	table->objects = objects;
	table->capacity = capacity;
	return true;
}

static uintptr_t pack_handle(unsigned int tag, uint32_t slot, uint32_t generation)
{
	return ((uintptr_t)tag << HANDLE_TAG_SHIFT) | ((uintptr_t)slot << HANDLE_SLOT_SHIFT) |
	       generation;
}

/* The slot a handle names, or NULL when it is not one of this table's. */
static void *unpack_handle(const struct slot_table *table, unsigned int tag, const void *handle,
                           uint32_t *generation)
{
	uintptr_t value = (uintptr_t)handle;
	if ((value >> HANDLE_TAG_SHIFT) != tag)
		return NULL;
	uint32_t slot = (uint32_t)(value >> HANDLE_SLOT_SHIFT) & HANDLE_SLOT_MASK;
	if (slot >= table->count)
		return NULL;
	*generation = (uint32_t)value;
	return table->objects[slot];
}

static uint32_t next_generation(uint32_t generation)
{
	generation++;
	return generation ? generation : 1;
}

/* ------------------------------------------------------------ streams */

static CUstream stream_handle(const struct sim_stream *stream)
{
	return (CUstream)pack_handle(STREAM_TAG, stream->slot, stream->generation);
}

static struct sim_stream *stream_from_handle_locked(CUstream handle)
{
	uint32_t generation;
	struct sim_stream *stream = unpack_handle(&stream_table, STREAM_TAG, handle, &generation);
	if (!stream || !stream->live || stream->generation != generation)
		return NULL;
	return stream;
}

static bool stream_is_blocking(const struct sim_stream *stream)
{
	if (stream->kind == STREAM_PER_THREAD)
		return true;
	return stream->kind == STREAM_CREATED && !(stream->flags & CU_STREAM_NON_BLOCKING);
}

static struct sim_stream *stream_take_locked(void)
{
	struct sim_stream *stream = free_streams;
	if (stream) {
		free_streams = stream->next;
		return stream;
	}
	if (!table_grow(&stream_table))
		return NULL;
	stream = calloc(1, sizeof(*stream));
	if (!stream)
		return NULL;
	stream->slot = stream_table.count;
	stream_table.objects[stream_table.count++] = stream;
	return stream;
}

static struct sim_stream *stream_new_locked(struct stream_set *set, enum stream_kind kind,
                                            unsigned int flags, int priority)
{
	struct sim_stream *stream = stream_take_locked();
	if (!stream)
		return NULL;
	if (!sim_config()->reuse_stream_handles || !stream->generation)
		stream->generation = next_generation(stream->generation);
	stream->live = true;
	stream->kind = kind;
	stream->flags = flags;
	stream->priority = priority;
	stream->owner = kind == STREAM_PER_THREAD ? current_thread_token_locked() : 0;
	stream->id = next_stream_id++;
	stream->tail = 0;
	stream->set = set;
	stream->prev = NULL;
	stream->next = set->streams;
	if (set->streams)
		set->streams->prev = stream;
	set->streams = stream;
	return stream;
}

/* Unlink a stream from its set; the work it holds still counts for the
 * legacy stream and the device until it ends. */
static void stream_retire_locked(struct sim_stream *stream)
{
	struct stream_set *set = stream->set;
	set->retired_tail = max_u64(set->retired_tail, stream->tail);
	if (stream_is_blocking(stream))
		set->retired_blocking_tail = max_u64(set->retired_blocking_tail, stream->tail);
	if (stream->prev)
		stream->prev->next = stream->next;
	else
		set->streams = stream->next;
	if (stream->next)
		stream->next->prev = stream->prev;
	stream->live = false;
	stream->prev = NULL;
	stream->next = free_streams;
	free_streams = stream;
}

static struct stream_set *set_of_locked(const struct sim_context *ctx)
{
	if (!ctx || !ctx->streams)
		return NULL;
	struct stream_set *set = ctx->streams;
	if (!set->live || set->ctx != ctx)
		return NULL;
	return set;
}

static struct sim_stream *per_thread_stream_locked(struct stream_set *set)
{
	uint64_t token = current_thread_token_locked();
	for (struct sim_stream *s = set->streams; s; s = s->next)
		if (s->kind == STREAM_PER_THREAD && s->owner == token)
			return s;
	/* Created on first use, as the real driver does. */
	return stream_new_locked(set, STREAM_PER_THREAD, 0, 0);
}

static CUresult stream_resolve_locked(struct sim_context *ctx, CUstream handle,
                                      struct sim_stream **stream)
{
	if (handle == NULL || handle == CU_STREAM_LEGACY || handle == CU_STREAM_PER_THREAD) {
		struct stream_set *set = set_of_locked(ctx);
		if (!set)
			return CUDA_ERROR_INVALID_CONTEXT;
		if (handle == CU_STREAM_PER_THREAD) {
			*stream = per_thread_stream_locked(set);
			return *stream ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
		}
		*stream = set->legacy;
		return CUDA_SUCCESS;
	}
	*stream = stream_from_handle_locked(handle);
	return *stream ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* The earliest time the stream's next work may start, without "now". */
static uint64_t stream_ready_locked(const struct sim_stream *stream)
{
	uint64_t ready = stream->tail;
	const struct stream_set *set = stream->set;
	if (!stream->live || !set || !set->live)
		return ready;
	if (stream->kind == STREAM_LEGACY) {
		ready = max_u64(ready, set->retired_blocking_tail);
		for (const struct sim_stream *s = set->streams; s; s = s->next)
			if (stream_is_blocking(s))
				ready = max_u64(ready, s->tail);
	} else if (stream_is_blocking(stream)) {
		ready = max_u64(ready, set->legacy->tail);
	}
	return ready;
}

/* Whether a host function that work on the stream must wait for is still
 * queued or running: the stream's own, or (legacy stream rules, as
 * stream_ready_locked) those of the streams it synchronises with. */
static bool stream_host_blocked_locked(const struct sim_stream *stream)
{
	const struct stream_set *set = stream->set;
	if (stream->host_pending)
		return true;
	if (!stream->live || !set || !set->live)
		return false;
	if (stream->kind == STREAM_LEGACY) {
		for (const struct sim_stream *s = set->streams; s; s = s->next)
			if (stream_is_blocking(s) && s->host_pending)
				return true;
	} else if (stream_is_blocking(stream)) {
		return set->legacy->host_pending > 0;
	}
	return false;
}

/*
 * A host function blocks the work added after it (cuda.h, cuLaunchHostFunc:
 * "will block work added after it"), and its end is known only once it has
 * run: work submitted behind one waits, on the submitting thread, until it
 * has finished. Called with timeline_lock held; may release it while
 * waiting.
 */
static void stream_settle_locked(const struct sim_stream *stream)
{
	while (stream_host_blocked_locked(stream))
		pthread_cond_wait(&host_done, &timeline_lock);
}

HIDDEN CUresult sim_stream_resolve(struct sim_context *ctx, CUstream handle,
                                   struct sim_stream **stream)
{
	if (!stream)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&timeline_lock);
	CUresult result = stream_resolve_locked(ctx, handle, stream);
	pthread_mutex_unlock(&timeline_lock);
	return result;
}

HIDDEN uint64_t sim_stream_get_id(const struct sim_stream *stream)
{
	pthread_mutex_lock(&timeline_lock);
	uint64_t id = stream->id;
	pthread_mutex_unlock(&timeline_lock);
	return id;
}

HIDDEN uint32_t sim_stream_context_id(const struct sim_stream *stream)
{
	pthread_mutex_lock(&timeline_lock);
	uint32_t id = stream->set->ctx_id;
	pthread_mutex_unlock(&timeline_lock);
	return id;
}

HIDDEN int sim_stream_device(const struct sim_stream *stream)
{
	pthread_mutex_lock(&timeline_lock);
	int device = stream->set->device;
	pthread_mutex_unlock(&timeline_lock);
	return device;
}

HIDDEN void sim_stream_submit_at(struct sim_stream *stream, uint64_t earliest_ns,
                                 uint64_t duration_ns, uint64_t *start_ns, uint64_t *end_ns)
{
	pthread_mutex_lock(&timeline_lock);
	stream_settle_locked(stream);
	uint64_t start = max_u64(earliest_ns, stream_ready_locked(stream));
	uint64_t end = add_saturated(start, duration_ns);
	stream->tail = end;
	pthread_mutex_unlock(&timeline_lock);
	if (start_ns)
		*start_ns = start;
	if (end_ns)
		*end_ns = end;
}

HIDDEN void sim_stream_submit(struct sim_stream *stream, uint64_t duration_ns, uint64_t *start_ns,
                              uint64_t *end_ns)
{
	sim_stream_submit_at(stream, sim_now_ns(), duration_ns, start_ns, end_ns);
}

HIDDEN uint64_t sim_stream_tail(const struct sim_stream *stream)
{
	pthread_mutex_lock(&timeline_lock);
	uint64_t tail = stream->tail;
	pthread_mutex_unlock(&timeline_lock);
	return tail;
}

HIDDEN uint64_t sim_device_tail(int device)
{
	uint64_t tail = 0;
	pthread_mutex_lock(&timeline_lock);
	for (const struct stream_set *set = live_sets; set; set = set->next) {
		if (set->device != device)
			continue;
		/* Device and context synchronisation wait for host functions. */
		for (const struct sim_stream *s = set->streams; s; s = s->next)
			stream_settle_locked(s);
	}
	for (const struct stream_set *set = live_sets; set; set = set->next) {
		if (set->device != device)
			continue;
		tail = max_u64(tail, set->retired_tail);
		for (const struct sim_stream *s = set->streams; s; s = s->next)
			tail = max_u64(tail, s->tail);
	}
	pthread_mutex_unlock(&timeline_lock);
	return tail;
}

HIDDEN void sim_wait_until(uint64_t t_ns)
{
	struct timespec until = {
		.tv_sec = (time_t)(t_ns / 1000000000u),
		.tv_nsec = (long)(t_ns % 1000000000u),
	};
	while (sim_now_ns() < t_ns) {
		int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
		if (rc != 0 && rc != EINTR)
			break;
	}
}

/* ------------------------------------------------------------ contexts */

static struct stream_set *set_take_locked(void)
{
	struct stream_set *set = free_sets;
	if (set) {
		free_sets = set->next;
		memset(set, 0, sizeof(*set));
		return set;
	}
	return calloc(1, sizeof(*set));
}

HIDDEN CUresult sim_stream_create_legacy(struct sim_context *ctx, struct sim_stream **stream)
{
	if (!ctx || !stream)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult result = CUDA_SUCCESS;
	pthread_mutex_lock(&timeline_lock);
	struct stream_set *set = set_take_locked();
	if (!set) {
		result = CUDA_ERROR_OUT_OF_MEMORY;
		goto end;
	}
	set->ctx = ctx;
	set->handle = sim_ctx_handle(ctx);
	set->ctx_id = ctx->id;
	set->device = ctx->device;
	set->live = true;
	set->legacy = stream_new_locked(set, STREAM_LEGACY, 0, 0);
	if (!set->legacy) {
		set->live = false;
		set->next = free_sets;
		free_sets = set;
		result = CUDA_ERROR_OUT_OF_MEMORY;
		goto end;
	}
	set->next = live_sets;
	live_sets = set;
	ctx->streams = set;
	ctx->legacy = set->legacy;
	*stream = set->legacy;
end:
	pthread_mutex_unlock(&timeline_lock);
	return result;
}

static void event_release_locked(struct sim_event *event);

HIDDEN void sim_stream_destroy_all(struct sim_context *ctx)
{
	pthread_mutex_lock(&timeline_lock);
	struct stream_set *set = set_of_locked(ctx);
	if (!set)
		goto end;
	while (set->events)
		event_release_locked(set->events);
	while (set->streams)
		stream_retire_locked(set->streams);
	for (struct stream_set **link = &live_sets; *link; link = &(*link)->next) {
		if (*link == set) {
			*link = set->next;
			break;
		}
	}
	set->live = false;
	set->next = free_sets;
	free_sets = set;
	/* Later resolutions in this context fail instead of using a dead set. */
	ctx->streams = NULL;
	ctx->legacy = NULL;
end:
	pthread_mutex_unlock(&timeline_lock);
}

SIM_EXPORT int sim_stream_id(CUcontext ctx, CUstream stream, uint64_t *id)
{
	if (!id)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_context *context = ctx ? sim_ctx_from_handle(ctx) : sim_ctx_current();
	if (ctx && !context)
		return CUDA_ERROR_INVALID_CONTEXT;
	struct sim_stream *resolved;
	pthread_mutex_lock(&timeline_lock);
	CUresult result = stream_resolve_locked(context, stream, &resolved);
	/* A context given with a created stream must be the one owning it. */
	if (result == CUDA_SUCCESS && ctx && resolved->set->ctx != context)
		result = CUDA_ERROR_INVALID_HANDLE;
	if (result == CUDA_SUCCESS)
		*id = resolved->id;
	pthread_mutex_unlock(&timeline_lock);
	return result;
}

/* ------------------------------------------------------------ events */

static CUevent event_handle(const struct sim_event *event)
{
	return (CUevent)pack_handle(EVENT_TAG, event->slot, event->generation);
}

static struct sim_event *event_from_handle_locked(CUevent handle)
{
	uint32_t generation;
	struct sim_event *event = unpack_handle(&event_table, EVENT_TAG, handle, &generation);
	if (!event || !event->live || event->generation != generation)
		return NULL;
	return event;
}

static struct sim_event *event_new_locked(struct stream_set *set, unsigned int flags)
{
	struct sim_event *event = free_events;
	if (event) {
		free_events = event->next;
	} else {
		if (!table_grow(&event_table))
			return NULL;
		event = calloc(1, sizeof(*event));
		if (!event)
			return NULL;
		event->slot = event_table.count;
		event_table.objects[event_table.count++] = event;
	}
	event->generation = next_generation(event->generation);
	event->live = true;
	event->flags = flags;
	event->id = next_event_id++;
	event->recorded = false;
	event->time_ns = 0;
	event->stream_id = 0;
	event->record_sync_id = 0;
	event->set = set;
	event->prev = NULL;
	event->next = set->events;
	if (set->events)
		set->events->prev = event;
	set->events = event;
	return event;
}

static void event_release_locked(struct sim_event *event)
{
	struct stream_set *set = event->set;
	if (event->prev)
		event->prev->next = event->next;
	else
		set->events = event->next;
	if (event->next)
		event->next->prev = event->prev;
	event->live = false;
	event->prev = NULL;
	event->next = free_events;
	free_events = event;
}

/* ------------------------------------------------------------ reporting */

/* What a finished stream or event synchronisation reports. */
struct sync_report {
	CUpti_ActivitySynchronizationType type;
	CUcontext ctx_handle;
	CUstream stream_handle; /* stream syncs */
	uint32_t ctx_id;
	int device;
	uint64_t stream_id;     /* the stream waited for, or the event's stream */
	uint32_t event_id;      /* event syncs */
	uint64_t event_sync_id; /* event syncs */
	uint64_t wait_start_ns; /* when the host began waiting */
	uint64_t wait_end_ns;   /* when it stopped */
	uint64_t gpu_end_ns;    /* the GPU time waited for */
};

static void sync_record(const struct sync_report *report)
{
	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION))
		return;
	bool is_event = report->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
	CUpti_ActivitySynchronization2 record;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	record.type = report->type;
	record.start = report->wait_start_ns;
	record.end = report->wait_end_ns;
	record.correlationId = sim_current_correlation_id();
	record.contextId = report->ctx_id;
	/* cupti_activity.h: streamId is not valid for cuEventSynchronize, nor
	 * cudaEventId for cuStreamSynchronize. */
	record.streamId =
	    is_event ? CUPTI_SYNCHRONIZATION_INVALID_VALUE : (uint32_t)report->stream_id;
	record.cudaEventId = is_event ? report->event_id : CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	record.cudaEventSyncId =
	    is_event ? report->event_sync_id : CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	record.returnValue = CUDA_SUCCESS;
	sim_activity((const CUpti_Activity *)&record, report->wait_end_ns);
}

/* After the wait: pools release, then callback, ledger and record. */
static void sync_finish(const struct sync_report *report)
{
	bool is_event = report->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
	sim_pool_on_sync(report->device);
	/* The SYNCHRONIZE domain has no event id: only streams report there. */
	if (!is_event)
		sim_sync_callback(CUPTI_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED, report->ctx_handle,
		                  report->stream_handle);
	sim_ledger("op=sync what=%s stream=%" PRIu64 " gpu_end=%" PRIu64,
	           is_event ? "event" : "stream", report->stream_id, report->gpu_end_ns);
	sync_record(report);
}

static void event_record_activity(const struct sim_event *event, uint32_t ctx_id, int device,
                                  uint64_t stream_id)
{
	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_CUDA_EVENT))
		return;
	CUpti_ActivityCudaEvent2 record;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
	record.correlationId = sim_current_correlation_id();
	record.contextId = ctx_id;
	record.streamId = (uint32_t)stream_id;
	record.eventId = event->id;
	record.deviceId = (uint32_t)device;
	record.deviceTimestamp = event->time_ns;
	record.cudaEventSyncId = event->record_sync_id;
	sim_activity((const CUpti_Activity *)&record, event->time_ns);
}

/* ------------------------------------------------------------ API bodies */

static int clamp_priority(int priority)
{
	/* cuStreamCreateWithPriority: out-of-range priorities are clamped. */
	if (priority < SIM_STREAM_PRIORITY_GREATEST)
		return SIM_STREAM_PRIORITY_GREATEST;
	if (priority > SIM_STREAM_PRIORITY_LEAST)
		return SIM_STREAM_PRIORITY_LEAST;
	return priority;
}

static CUresult stream_create(CUstream *phStream, unsigned int flags, int priority)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	if (!phStream || (flags & ~(unsigned int)CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&timeline_lock);
	struct stream_set *set = set_of_locked(ctx);
	struct sim_stream *stream = NULL;
	if (!set)
		result = CUDA_ERROR_INVALID_CONTEXT;
	else if (!(stream =
	               stream_new_locked(set, STREAM_CREATED, flags, clamp_priority(priority))))
		result = CUDA_ERROR_OUT_OF_MEMORY;
	CUstream handle = stream ? stream_handle(stream) : NULL;
	uint64_t id = stream ? stream->id : 0;
	CUcontext ctx_handle = set ? set->handle : NULL;
	int device = set ? set->device : -1;
	pthread_mutex_unlock(&timeline_lock);
	if (result != CUDA_SUCCESS)
		return result;

	*phStream = handle;
	sim_ledger("op=stream_create stream=%" PRIu64 " dev=%d flags=%u", id, device, flags);
	sim_resource_callback(CUPTI_CBID_RESOURCE_STREAM_CREATED, ctx_handle, handle);
	return CUDA_SUCCESS;
}

static CUresult stream_destroy(CUstream hStream)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;

	/* The special handles name streams that cannot be destroyed. */
	pthread_mutex_lock(&timeline_lock);
	struct sim_stream *stream = stream_from_handle_locked(hStream);
	bool destroyable = stream && stream->kind == STREAM_CREATED;
	CUcontext ctx_handle = destroyable ? stream->set->handle : NULL;
	pthread_mutex_unlock(&timeline_lock);
	if (!destroyable)
		return CUDA_ERROR_INVALID_HANDLE;

	/* Reported while the handle is still valid, so that the subscriber can
	 * still ask CUPTI for its id. */
	sim_resource_callback(CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING, ctx_handle, hStream);

	pthread_mutex_lock(&timeline_lock);
	stream = stream_from_handle_locked(hStream);
	uint64_t id = stream ? stream->id : 0;
	int device = stream ? stream->set->device : -1;
	unsigned int flags = stream ? stream->flags : 0;
	/* Its host functions still run: the struct is not recycled under
	 * them. Pending work still completes: its tail stays with the
	 * context. */
	if (stream)
		stream_settle_locked(stream);
	if (stream)
		stream = stream_from_handle_locked(hStream);
	if (stream)
		stream_retire_locked(stream);
	pthread_mutex_unlock(&timeline_lock);
	if (!stream)
		return CUDA_ERROR_INVALID_HANDLE; /* destroyed meanwhile by another thread */

	sim_ledger("op=stream_destroy stream=%" PRIu64 " dev=%d flags=%u", id, device, flags);
	return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ capture */

HIDDEN struct sim_graph *sim_stream_capture_graph(struct sim_stream *stream)
{
	pthread_mutex_lock(&timeline_lock);
	struct sim_graph *graph = stream->capture;
	pthread_mutex_unlock(&timeline_lock);
	return graph;
}

/*
 * cuda.h, cuStreamBeginCapture / cudaStreamCaptureStatus: a call that is
 * not permitted on a capturing stream (synchronising it, a synchronous
 * copy) fails with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates
 * the capture: cuStreamEndCapture then returns
 * CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
 */
HIDDEN CUresult sim_stream_capture_violation(struct sim_stream *stream)
{
	pthread_mutex_lock(&timeline_lock);
	if (stream->capture)
		stream->capture_invalid = true;
	pthread_mutex_unlock(&timeline_lock);
	return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

static CUresult capture_violation_handle(CUstream handle)
{
	struct sim_context *ctx;
	struct sim_stream *stream;
	CUresult result = sim_ctx_enter(&ctx);
	if (result == CUDA_SUCCESS)
		result = sim_stream_resolve(ctx, handle, &stream);
	return result == CUDA_SUCCESS ? sim_stream_capture_violation(stream) : result;
}

HIDDEN CUresult sim_stream_capture_begin(struct sim_context *ctx, CUstream handle,
                                         struct sim_graph *graph, int mode)
{
	(void)mode;
	pthread_mutex_lock(&timeline_lock);
	struct sim_stream *stream;
	CUresult result = stream_resolve_locked(ctx, handle, &stream);
	/* cuda.h: "Capture may not be initiated if stream is
	 * CU_STREAM_LEGACY"; nor twice. */
	if (result == CUDA_SUCCESS && stream->kind == STREAM_LEGACY)
		result = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	else if (result == CUDA_SUCCESS && stream->capture)
		result = CUDA_ERROR_ILLEGAL_STATE;
	if (result == CUDA_SUCCESS) {
		stream->capture = graph;
		stream->capture_invalid = false;
	}
	pthread_mutex_unlock(&timeline_lock);
	return result;
}

HIDDEN CUresult sim_stream_capture_status(struct sim_context *ctx, CUstream handle,
                                          struct sim_graph **graph, bool *invalidated)
{
	pthread_mutex_lock(&timeline_lock);
	struct sim_stream *stream;
	CUresult result = stream_resolve_locked(ctx, handle, &stream);
	if (result == CUDA_SUCCESS) {
		*graph = stream->capture;
		*invalidated = stream->capture_invalid;
	}
	pthread_mutex_unlock(&timeline_lock);
	return result;
}

HIDDEN CUresult sim_stream_capture_end(struct sim_context *ctx, CUstream handle,
                                       struct sim_graph **graph, bool *invalidated)
{
	pthread_mutex_lock(&timeline_lock);
	struct sim_stream *stream;
	CUresult result = stream_resolve_locked(ctx, handle, &stream);
	if (result == CUDA_SUCCESS && !stream->capture)
		result = CUDA_ERROR_ILLEGAL_STATE;
	if (result == CUDA_SUCCESS) {
		*graph = stream->capture;
		*invalidated = stream->capture_invalid;
	}
	pthread_mutex_unlock(&timeline_lock);
	return result;
}

HIDDEN void sim_stream_capture_release(struct sim_graph *graph)
{
	pthread_mutex_lock(&timeline_lock);
	for (uint32_t i = 0; i < stream_table.count; i++) {
		struct sim_stream *s = stream_table.objects[i];
		if (s && s->capture == graph) {
			s->capture = NULL;
			s->capture_invalid = false;
		}
	}
	for (uint32_t i = 0; i < event_table.count; i++) {
		struct sim_event *e = event_table.objects[i];
		if (e && e->capture == graph)
			e->capture = NULL;
	}
	pthread_mutex_unlock(&timeline_lock);
}

/* A stream's identity and tail, read under the lock. */
struct stream_view {
	CUcontext ctx_handle;
	uint32_t ctx_id;
	int device;
	uint64_t id;
	unsigned int flags;
	int priority;
	uint64_t tail;
	bool host_pending; /* a host function it waits for has not finished */
	bool capturing;    /* stream capture is in progress */
};

static CUresult stream_view(CUstream handle, struct stream_view *view)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	struct sim_stream *stream;
	pthread_mutex_lock(&timeline_lock);
	result = stream_resolve_locked(ctx, handle, &stream);
	if (result == CUDA_SUCCESS) {
		view->ctx_handle = stream->set->handle;
		view->ctx_id = stream->set->ctx_id;
		view->device = stream->set->device;
		view->id = stream->id;
		view->flags = stream->flags;
		view->priority = stream->priority;
		view->tail = stream->tail;
		view->host_pending = stream_host_blocked_locked(stream);
		view->capturing = stream->capture != NULL;
	}
	pthread_mutex_unlock(&timeline_lock);
	return result;
}

/* Wait until the host functions the stream waits for have run. */
static void stream_wait_host(CUstream hStream)
{
	struct sim_context *ctx;
	struct sim_stream *stream;
	if (sim_ctx_enter(&ctx) != CUDA_SUCCESS)
		return;
	pthread_mutex_lock(&timeline_lock);
	if (stream_resolve_locked(ctx, hStream, &stream) == CUDA_SUCCESS)
		stream_settle_locked(stream);
	pthread_mutex_unlock(&timeline_lock);
}

static CUresult stream_synchronize(CUstream hStream)
{
	struct stream_view view;
	CUresult result = stream_view(hStream, &view);
	if (result != CUDA_SUCCESS)
		return result;
	if (view.capturing)
		return capture_violation_handle(hStream);
	if (view.host_pending) {
		stream_wait_host(hStream);
		result = stream_view(hStream, &view);
		if (result != CUDA_SUCCESS)
			return result;
	}
	struct sync_report report = {
		.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE,
		.ctx_handle = view.ctx_handle,
		.stream_handle = hStream,
		.ctx_id = view.ctx_id,
		.device = view.device,
		.stream_id = view.id,
		.wait_start_ns = sim_now_ns(),
		.gpu_end_ns = view.tail,
	};
	sim_wait_until(view.tail);
	report.wait_end_ns = sim_now_ns();
	sync_finish(&report);
	return CUDA_SUCCESS;
}

static CUresult stream_query(CUstream hStream)
{
	struct stream_view view;
	CUresult result = stream_view(hStream, &view);
	if (result != CUDA_SUCCESS)
		return result;
	if (view.capturing)
		return capture_violation_handle(hStream);
	return view.host_pending || view.tail > sim_now_ns() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

static void wait_event_record(uint64_t start_ns, uint32_t ctx_id, uint64_t stream_id,
                              uint32_t event_id, uint64_t event_sync_id)
{
	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION))
		return;
	CUpti_ActivitySynchronization2 record;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	record.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
	record.start = start_ns;
	record.end = sim_now_ns();
	record.correlationId = sim_current_correlation_id();
	record.contextId = ctx_id;
	record.streamId = (uint32_t)stream_id;
	record.cudaEventId = event_id;
	record.cudaEventSyncId = event_sync_id;
	record.returnValue = CUDA_SUCCESS;
	sim_activity((const CUpti_Activity *)&record, record.end);
}

static CUresult stream_wait_event(CUstream hStream, CUevent hEvent, unsigned int flags)
{
	uint64_t start_ns = sim_now_ns();
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	/* CU_EVENT_WAIT_EXTERNAL is valid only during stream capture, which
	 * the simulator does not do. */
	if (flags != CU_EVENT_WAIT_DEFAULT)
		return CUDA_ERROR_INVALID_VALUE;

	struct sim_stream *stream;
	pthread_mutex_lock(&timeline_lock);
	result = stream_resolve_locked(ctx, hStream, &stream);
	struct sim_event *event = event_from_handle_locked(hEvent);
	if (result == CUDA_SUCCESS && !event)
		result = CUDA_ERROR_INVALID_HANDLE;
	uint32_t ctx_id = 0, event_id = 0;
	uint64_t stream_id = 0, event_sync_id = 0;
	if (result == CUDA_SUCCESS) {
		/* The stream's next work starts after the event's work; an
		 * event never recorded captures nothing. The event may belong
		 * to another context or device. */
		if (event->capture && !stream->capture && stream->kind != STREAM_LEGACY)
			stream->capture = event->capture;
		else if (event->recorded && !stream->capture)
			stream->tail = max_u64(stream->tail, event->time_ns);
		ctx_id = stream->set->ctx_id;
		stream_id = stream->id;
		event_id = event->id;
		event_sync_id = event->record_sync_id;
	}
	pthread_mutex_unlock(&timeline_lock);
	if (result == CUDA_SUCCESS)
		wait_event_record(start_ns, ctx_id, stream_id, event_id, event_sync_id);
	return result;
}

/* The same, and a non-NULL out pointer: the prologue of the getters. */
static CUresult stream_view_for(CUstream handle, const void *out, struct stream_view *view)
{
	CUresult result = stream_view(handle, view);
	if (result != CUDA_SUCCESS)
		return result;
	return out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult stream_get_id(CUstream hStream, unsigned long long *streamId)
{
	struct stream_view view;
	CUresult result = stream_view_for(hStream, streamId, &view);
	if (result == CUDA_SUCCESS)
		*streamId = view.id;
	return result;
}

static CUresult stream_get_flags(CUstream hStream, unsigned int *flags)
{
	struct stream_view view;
	CUresult result = stream_view_for(hStream, flags, &view);
	if (result == CUDA_SUCCESS)
		*flags = view.flags;
	return result;
}

static CUresult stream_get_priority(CUstream hStream, int *priority)
{
	struct stream_view view;
	CUresult result = stream_view_for(hStream, priority, &view);
	if (result == CUDA_SUCCESS)
		*priority = view.priority;
	return result;
}

static CUresult stream_get_device(CUstream hStream, CUdevice *device)
{
	struct stream_view view;
	CUresult result = stream_view_for(hStream, device, &view);
	if (result == CUDA_SUCCESS)
		*device = view.device;
	return result;
}

static CUresult stream_get_ctx(CUstream hStream, CUcontext *pctx, CUgreenCtx *pGreenCtx)
{
	struct stream_view view;
	CUresult result = stream_view_for(hStream, pctx, &view);
	if (result != CUDA_SUCCESS)
		return result;
	*pctx = view.ctx_handle;
	/* No green contexts here. */
	if (pGreenCtx)
		*pGreenCtx = NULL;
	return CUDA_SUCCESS;
}

static CUresult event_create(CUevent *phEvent, unsigned int flags)
{
	const unsigned int valid =
	    CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	if (!phEvent || (flags & ~valid))
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h: CU_EVENT_INTERPROCESS must be specified along with
	 * CU_EVENT_DISABLE_TIMING. */
	if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING))
		return CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&timeline_lock);
	struct stream_set *set = set_of_locked(ctx);
	struct sim_event *event = NULL;
	if (!set)
		result = CUDA_ERROR_INVALID_CONTEXT;
	else if (!(event = event_new_locked(set, flags)))
		result = CUDA_ERROR_OUT_OF_MEMORY;
	if (event)
		*phEvent = event_handle(event);
	pthread_mutex_unlock(&timeline_lock);
	return result;
}

static CUresult event_record(CUevent hEvent, CUstream hStream, unsigned int flags)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	/* CU_EVENT_RECORD_EXTERNAL is valid only during stream capture. */
	if (flags != CU_EVENT_RECORD_DEFAULT)
		return CUDA_ERROR_INVALID_VALUE;

	struct sim_stream *stream;
	pthread_mutex_lock(&timeline_lock);
	struct sim_event *event = event_from_handle_locked(hEvent);
	result = event ? stream_resolve_locked(ctx, hStream, &stream) : CUDA_ERROR_INVALID_HANDLE;
	/* cuda.h: the event and the stream must be from the same context. */
	if (result == CUDA_SUCCESS && stream->set != event->set)
		result = CUDA_ERROR_INVALID_HANDLE;
	struct sim_event snapshot;
	uint32_t ctx_id = 0;
	int device = 0;
	uint64_t stream_id = 0;
	if (result == CUDA_SUCCESS) {
		/* A zero-length action on the stream: it completes once all work
		 * before it (legacy rules included) has, and no earlier than now. */
		/* Captured: the event marks a point of the graph, which a wait
		 * on another stream joins to the capture (cuda.h,
		 * cuStreamBeginCapture: cross-stream dependencies). */
		event->capture = stream->capture;
		if (!stream->capture)
			stream_settle_locked(stream);
		uint64_t when = stream->capture
		                    ? event->time_ns
		                    : max_u64(sim_now_ns(), stream_ready_locked(stream));
		if (!stream->capture)
			stream->tail = when;
		event->recorded = true;
		event->time_ns = when;
		event->stream_id = stream->id;
		event->record_sync_id = next_event_sync_id++;
		snapshot = *event;
		ctx_id = stream->set->ctx_id;
		device = stream->set->device;
		stream_id = stream->id;
	}
	pthread_mutex_unlock(&timeline_lock);
	if (result == CUDA_SUCCESS)
		event_record_activity(&snapshot, ctx_id, device, stream_id);
	return result;
}

/* An event's state, read under the lock. */
struct event_view {
	struct sim_event event;
	CUcontext ctx_handle;
	uint32_t ctx_id;
	int device;
};

static CUresult event_view(CUevent handle, struct event_view *view)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	pthread_mutex_lock(&timeline_lock);
	struct sim_event *event = event_from_handle_locked(handle);
	if (event) {
		view->event = *event;
		view->ctx_handle = event->set->handle;
		view->ctx_id = event->set->ctx_id;
		view->device = event->set->device;
	}
	pthread_mutex_unlock(&timeline_lock);
	return event ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult event_query(CUevent hEvent)
{
	struct event_view view;
	CUresult result = event_view(hEvent, &view);
	if (result != CUDA_SUCCESS)
		return result;
	/* Never recorded: it captures no work, so it is complete. */
	if (!view.event.recorded)
		return CUDA_SUCCESS;
	return view.event.time_ns > sim_now_ns() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

static CUresult event_synchronize(CUevent hEvent)
{
	struct event_view view;
	CUresult result = event_view(hEvent, &view);
	if (result != CUDA_SUCCESS)
		return result;
	uint64_t gpu_end = view.event.recorded ? view.event.time_ns : 0;
	struct sync_report report = {
		.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE,
		.ctx_handle = view.ctx_handle,
		.ctx_id = view.ctx_id,
		.device = view.device,
		.stream_id = view.event.stream_id,
		.event_id = view.event.id,
		.event_sync_id = view.event.recorded ? view.event.record_sync_id
		                                     : CUPTI_SYNCHRONIZATION_INVALID_VALUE,
		.wait_start_ns = sim_now_ns(),
		.gpu_end_ns = gpu_end,
	};
	sim_wait_until(gpu_end);
	report.wait_end_ns = sim_now_ns();
	sync_finish(&report);
	return CUDA_SUCCESS;
}

static CUresult event_elapsed_time(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	struct event_view start, end;
	CUresult result = event_view(hStart, &start);
	if (result != CUDA_SUCCESS)
		return result;
	result = event_view(hEnd, &end);
	if (result != CUDA_SUCCESS)
		return result;
	if (!pMilliseconds)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h: DISABLE_TIMING or never recorded -> INVALID_HANDLE; recorded
	 * but not complete -> NOT_READY. */
	if ((start.event.flags | end.event.flags) & CU_EVENT_DISABLE_TIMING)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!start.event.recorded || !end.event.recorded)
		return CUDA_ERROR_INVALID_HANDLE;
	uint64_t now = sim_now_ns();
	if (start.event.time_ns > now || end.event.time_ns > now)
		return CUDA_ERROR_NOT_READY;
	/* Milliseconds with a resolution of 0.5 microseconds. */
	double elapsed_ns = (double)end.event.time_ns - (double)start.event.time_ns;
	*pMilliseconds = (float)(round(elapsed_ns / 500.0) * 0.0005);
	return CUDA_SUCCESS;
}

static CUresult event_destroy(CUevent hEvent)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	pthread_mutex_lock(&timeline_lock);
	struct sim_event *event = event_from_handle_locked(hEvent);
	/* Pending work the event captured needs nothing from it here. */
	if (event)
		event_release_locked(event);
	pthread_mutex_unlock(&timeline_lock);
	return event ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* ------------------------------------------------------------ entry points */

SIM_EXPORT CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
	cuStreamCreate_params p = { phStream, Flags };
	SIM_DRIVER_CALL(cuStreamCreate, p, stream_create(phStream, Flags, 0));
}

SIM_EXPORT CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags,
                                                       int priority)
{
	cuStreamCreateWithPriority_params p = { phStream, flags, priority };
	SIM_DRIVER_CALL(cuStreamCreateWithPriority, p, stream_create(phStream, flags, priority));
}

SIM_EXPORT CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
	cuStreamDestroy_v2_params p = { hStream };
	SIM_DRIVER_CALL(cuStreamDestroy_v2, p, stream_destroy(hStream));
}

SIM_EXPORT CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
{
	cuStreamDestroy_params p = { hStream };
	SIM_DRIVER_CALL(cuStreamDestroy, p, stream_destroy(hStream));
}

SIM_EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
	cuStreamSynchronize_params p = { hStream };
	SIM_DRIVER_CALL(cuStreamSynchronize, p, stream_synchronize(hStream));
}

SIM_EXPORT CUresult CUDAAPI cuStreamQuery(CUstream hStream)
{
	cuStreamQuery_params p = { hStream };
	SIM_DRIVER_CALL(cuStreamQuery, p, stream_query(hStream));
}

SIM_EXPORT CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
	cuStreamWaitEvent_params p = { hStream, hEvent, Flags };
	SIM_DRIVER_CALL(cuStreamWaitEvent, p, stream_wait_event(hStream, hEvent, Flags));
}

SIM_EXPORT CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long *streamId)
{
	cuStreamGetId_params p = { hStream, streamId };
	SIM_DRIVER_CALL(cuStreamGetId, p, stream_get_id(hStream, streamId));
}

SIM_EXPORT CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
	cuStreamGetFlags_params p = { hStream, flags };
	SIM_DRIVER_CALL(cuStreamGetFlags, p, stream_get_flags(hStream, flags));
}

SIM_EXPORT CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int *priority)
{
	cuStreamGetPriority_params p = { hStream, priority };
	SIM_DRIVER_CALL(cuStreamGetPriority, p, stream_get_priority(hStream, priority));
}

SIM_EXPORT CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice *device)
{
	cuStreamGetDevice_params p = { hStream, device };
	SIM_DRIVER_CALL(cuStreamGetDevice, p, stream_get_device(hStream, device));
}

SIM_EXPORT CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
	cuStreamGetCtx_params p = { hStream, pctx };
	SIM_DRIVER_CALL(cuStreamGetCtx, p, stream_get_ctx(hStream, pctx, NULL));
}

SIM_EXPORT CUresult CUDAAPI cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx,
                                              CUgreenCtx *pGreenCtx)
{
	cuStreamGetCtx_v2_params p = { hStream, pCtx, pGreenCtx };
	SIM_DRIVER_CALL(cuStreamGetCtx_v2, p, stream_get_ctx(hStream, pCtx, pGreenCtx));
}

SIM_EXPORT CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	cuEventCreate_params p = { phEvent, Flags };
	SIM_DRIVER_CALL(cuEventCreate, p, event_create(phEvent, Flags));
}

SIM_EXPORT CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
	cuEventRecord_params p = { hEvent, hStream };
	SIM_DRIVER_CALL(cuEventRecord, p, event_record(hEvent, hStream, CU_EVENT_RECORD_DEFAULT));
}

SIM_EXPORT CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream,
                                                   unsigned int flags)
{
	cuEventRecordWithFlags_params p = { hEvent, hStream, flags };
	SIM_DRIVER_CALL(cuEventRecordWithFlags, p, event_record(hEvent, hStream, flags));
}

SIM_EXPORT CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
	cuEventQuery_params p = { hEvent };
	SIM_DRIVER_CALL(cuEventQuery, p, event_query(hEvent));
}

SIM_EXPORT CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
	cuEventSynchronize_params p = { hEvent };
	SIM_DRIVER_CALL(cuEventSynchronize, p, event_synchronize(hEvent));
}

SIM_EXPORT CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart,
                                                  CUevent hEnd)
{
	cuEventElapsedTime_v2_params p = { pMilliseconds, hStart, hEnd };
	SIM_DRIVER_CALL(cuEventElapsedTime_v2, p, event_elapsed_time(pMilliseconds, hStart, hEnd));
}

SIM_EXPORT CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	cuEventElapsedTime_params p = { pMilliseconds, hStart, hEnd };
	SIM_DRIVER_CALL(cuEventElapsedTime, p, event_elapsed_time(pMilliseconds, hStart, hEnd));
}

SIM_EXPORT CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
	cuEventDestroy_v2_params p = { hEvent };
	SIM_DRIVER_CALL(cuEventDestroy_v2, p, event_destroy(hEvent));
}

SIM_EXPORT CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
{
	cuEventDestroy_params p = { hEvent };
	SIM_DRIVER_CALL(cuEventDestroy, p, event_destroy(hEvent));
}

/* ------------------------------------------------------------ host functions */

/*
 * cuLaunchHostFunc and cuStreamAddCallback (cuda.h): the function is called
 * on a driver thread once the work enqueued before it has completed, and
 * blocks the work added after it until it returns. One simulator thread
 * runs every host function, in the order they were enqueued ("Host
 * functions without a mandated order ... may be serialized"). Its start is
 * when the stream's earlier work ends (legacy stream rules included); the
 * stream's tail becomes its end, so work after it starts no earlier.
 */
struct host_item {
	struct sim_stream *stream;
	CUstream handle; /* as given, for cuStreamAddCallback's callback */
	CUhostFn fn;
	CUstreamCallback callback; /* cuStreamAddCallback: called with a status */
	void *user_data;
	uint64_t stream_id;
	int device;
	const char *api; /* the outermost call, static */
	uint32_t correlation_id;
	struct host_item *next;
};

static struct host_item *host_head, *host_tail_item;
static pthread_cond_t host_queued = PTHREAD_COND_INITIALIZER;
static bool host_thread_started;

static void host_run(struct host_item *item)
{
	pthread_mutex_lock(&timeline_lock);
	uint64_t ready = stream_ready_locked(item->stream);
	pthread_mutex_unlock(&timeline_lock);
	sim_wait_until(ready);
	uint64_t start = sim_now_ns();
	if (item->callback)
		item->callback(item->handle, CUDA_SUCCESS, item->user_data);
	else
		item->fn(item->user_data);
	uint64_t end = sim_now_ns();
	sim_ledger("op=host_func dev=%d stream=%" PRIu64 " api=%s corr=%" PRIu32 " start=%" PRIu64
	           " end=%" PRIu64,
	           item->device, item->stream_id, item->api, item->correlation_id, start, end);
	pthread_mutex_lock(&timeline_lock);
	item->stream->tail = max_u64(item->stream->tail, end);
	item->stream->host_pending--;
	pthread_cond_broadcast(&host_done);
	pthread_mutex_unlock(&timeline_lock);
}

static void *host_thread(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&timeline_lock);
	for (;;) {
		while (!host_head)
			pthread_cond_wait(&host_queued, &timeline_lock);
		struct host_item *item = host_head;
		host_head = item->next;
		if (!host_head)
			host_tail_item = NULL;
		pthread_mutex_unlock(&timeline_lock);
		host_run(item);
		free(item);
		pthread_mutex_lock(&timeline_lock);
	}
	return NULL;
}

static CUresult host_enqueue(CUstream hStream, CUhostFn fn, CUstreamCallback callback,
                             void *user_data)
{
	struct sim_context *ctx;
	CUresult result = sim_ctx_enter(&ctx);
	if (result != CUDA_SUCCESS)
		return result;
	if (!fn && !callback)
		return CUDA_ERROR_INVALID_VALUE;
	struct host_item *item = calloc(1, sizeof(*item));
	if (!item)
		return CUDA_ERROR_OUT_OF_MEMORY;
	item->handle = hStream;
	item->fn = fn;
	item->callback = callback;
	item->user_data = user_data;
	item->api = sim_current_api_name();
	item->correlation_id = sim_current_correlation_id();
	pthread_mutex_lock(&timeline_lock);
	result = stream_resolve_locked(ctx, hStream, &item->stream);
	if (result == CUDA_SUCCESS && item->stream->capture) {
		/* Captured: a host node. cuStreamAddCallback cannot be
		 * captured (cuda.h, cuStreamAddCallback). */
		struct sim_stream *stream = item->stream;
		pthread_mutex_unlock(&timeline_lock);
		free(item);
		if (callback)
			return sim_stream_capture_violation(stream);
		struct sim_graph_node node = { .kind = SIM_NODE_HOST };
		node.u.host.fn = fn;
		node.u.host.user_data = user_data;
		return sim_graph_capture(stream, &node);
	}
	if (result == CUDA_SUCCESS && !host_thread_started) {
		pthread_t thread;
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&thread, &attr, host_thread, NULL) == 0)
			host_thread_started = true;
		else
			result = CUDA_ERROR_OUT_OF_MEMORY;
		pthread_attr_destroy(&attr);
	}
	if (result == CUDA_SUCCESS) {
		item->stream_id = item->stream->id;
		item->device = item->stream->set->device;
		item->stream->host_pending++;
		if (host_tail_item)
			host_tail_item->next = item;
		else
			host_head = item;
		host_tail_item = item;
		pthread_cond_signal(&host_queued);
	}
	pthread_mutex_unlock(&timeline_lock);
	if (result != CUDA_SUCCESS)
		free(item);
	return result;
}

SIM_EXPORT CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
	cuLaunchHostFunc_params p = { hStream, fn, userData };
	SIM_DRIVER_CALL(cuLaunchHostFunc, p, host_enqueue(hStream, fn, NULL, userData));
}

/* cuda.h: "flags - Reserved for future use, must be 0". */
static CUresult stream_add_callback(CUstream hStream, CUstreamCallback callback, void *userData,
                                    unsigned int flags)
{
	CUresult result = sim_init_status();
	if (result == CUDA_SUCCESS && flags != 0)
		result = CUDA_ERROR_INVALID_VALUE;
	if (result == CUDA_SUCCESS && !callback)
		result = CUDA_ERROR_INVALID_VALUE;
	if (result == CUDA_SUCCESS)
		result = host_enqueue(hStream, NULL, callback, userData);
	return result;
}

SIM_EXPORT CUresult CUDAAPI cuStreamAddCallback(CUstream hStream, CUstreamCallback callback,
                                                void *userData, unsigned int flags)
{
	cuStreamAddCallback_params p = { hStream, callback, userData, flags };
	SIM_DRIVER_CALL(cuStreamAddCallback, p,
	                stream_add_callback(hStream, callback, userData, flags));
}

/* A host node of a graph being launched: a host function on the stream. */
HIDDEN CUresult sim_host_node_run(const struct sim_graph_node *node, CUstream stream)
{
	return host_enqueue(stream, node->u.host.fn, NULL, node->u.host.user_data);
}
