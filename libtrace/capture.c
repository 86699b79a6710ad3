/* SPDX-License-Identifier: MIT */
/*
 * capture.c - stream capture, followed from the calls that change it
 * (capture.h): begin, join and end.
 *
 * cuda.h, cuStreamBeginCapture: a capture begins on one stream (its
 * origin); an event recorded on a capturing stream marks a point of the
 * capture, and a stream that waits for it joins the capture
 * (cross-stream dependencies); cuStreamEndCapture on the origin ends the
 * capture of every stream joined to it, and so does an end that reports
 * the capture invalidated or a fork left unjoined. cudatrace may not ask
 * CUDA (cuStreamIsCapturing) from a callback: it follows these calls at
 * their EXIT instead, once they have succeeded.
 *
 * The calls stay traced whether or not a session records anything, as
 * allocations do, so that a capture begun while no session ran is known
 * when one starts. The state is two small tables under a lock: capturing
 * streams (CUPTI stream ids) and events recorded in a capture. A capture
 * beyond them is not followed (its work is recorded as if it ran), which
 * the debug log says. A count of capturing streams, read without the
 * lock, keeps the question free while nothing captures: the common case.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <cupti.h>

#include "api-call.h"
#include "capture.h"
#include "log.h"

#define STREAMS_MAX 64
#define EVENTS_MAX  128

/* A capture is known by the number its begin was given; 0: none. */
struct capturing_stream {
	uint32_t stream;
	uint32_t capture;
};

struct capture_event {
	uint64_t event; /* CUevent handle */
	uint32_t capture;
};

static struct {
	pthread_mutex_t lock;
	uint32_t last_capture;
	struct capturing_stream streams[STREAMS_MAX];
	struct capture_event events[EVENTS_MAX];
} captures = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Entries of captures.streams in use, for the lock-free fast path. */
static unsigned capturing_count;

/* The capture the thread began last (it may have ended since). */
static __thread uint32_t thread_capture;

/* ----------------------------------------------------------- the tables */

static struct capturing_stream *stream_slot_locked(uint32_t stream)
{
	for (unsigned i = 0; i < STREAMS_MAX; i++) {
		if (captures.streams[i].capture && captures.streams[i].stream == stream)
			return &captures.streams[i];
	}
	return NULL;
}

static uint32_t capture_of_stream_locked(uint32_t stream)
{
	const struct capturing_stream *slot = stream_slot_locked(stream);

	return slot ? slot->capture : 0;
}

static void stream_join_locked(uint32_t stream, uint32_t capture)
{
	for (unsigned i = 0; i < STREAMS_MAX; i++) {
		if (captures.streams[i].capture)
			continue;
		captures.streams[i] = (struct capturing_stream){ stream, capture };
		__atomic_add_fetch(&capturing_count, 1, __ATOMIC_RELEASE);
		return;
	}
	log_debug("more than %d capturing streams: the work of stream %u is recorded as run",
	          STREAMS_MAX, stream);
}

static struct capture_event *event_slot_locked(uint64_t event)
{
	for (unsigned i = 0; i < EVENTS_MAX; i++) {
		if (captures.events[i].capture && captures.events[i].event == event)
			return &captures.events[i];
	}
	return NULL;
}

static struct capture_event *event_free_slot_locked(void)
{
	for (unsigned i = 0; i < EVENTS_MAX; i++) {
		if (!captures.events[i].capture)
			return &captures.events[i];
	}
	return NULL;
}

/* The event now marks a point of capture (0: of none). */
static void event_set_locked(uint64_t event, uint32_t capture)
{
	struct capture_event *slot = event_slot_locked(event);

	if (!capture) {
		if (slot)
			slot->capture = 0;
		return;
	}
	if (!slot)
		slot = event_free_slot_locked();
	if (!slot) {
		log_debug("more than %d events recorded in captures: a wait for one joins no "
		          "capture",
		          EVENTS_MAX);
		return;
	}
	*slot = (struct capture_event){ event, capture };
}

static void capture_end_locked(uint32_t capture)
{
	for (unsigned i = 0; i < STREAMS_MAX; i++) {
		if (captures.streams[i].capture != capture)
			continue;
		captures.streams[i].capture = 0;
		__atomic_sub_fetch(&capturing_count, 1, __ATOMIC_RELEASE);
	}
	for (unsigned i = 0; i < EVENTS_MAX; i++) {
		if (captures.events[i].capture == capture)
			captures.events[i].capture = 0;
	}
}

/* ----------------------------------------------------------- the changes */

static void capture_begin(uint32_t stream)
{
	uint32_t stale;

	pthread_mutex_lock(&captures.lock);
	/* A stream in a capture cannot begin one: if it seemed to be, that
	 * capture ended unseen (an end whose result was misread). */
	stale = capture_of_stream_locked(stream);
	if (stale)
		capture_end_locked(stale);
	thread_capture = ++captures.last_capture;
	if (!thread_capture)
		thread_capture = ++captures.last_capture;
	stream_join_locked(stream, thread_capture);
	pthread_mutex_unlock(&captures.lock);
}

static void capture_end(uint32_t stream)
{
	uint32_t capture;

	pthread_mutex_lock(&captures.lock);
	capture = capture_of_stream_locked(stream);
	if (capture)
		capture_end_locked(capture);
	pthread_mutex_unlock(&captures.lock);
}

static void event_recorded(uint64_t event, uint32_t stream)
{
	pthread_mutex_lock(&captures.lock);
	event_set_locked(event, capture_of_stream_locked(stream));
	pthread_mutex_unlock(&captures.lock);
}

static void event_waited(uint32_t stream, uint64_t event)
{
	const struct capture_event *slot;

	pthread_mutex_lock(&captures.lock);
	slot = event_slot_locked(event);
	if (slot && !capture_of_stream_locked(stream))
		stream_join_locked(stream, slot->capture);
	pthread_mutex_unlock(&captures.lock);
}

/* ----------------------------------------------------------- questions */

static bool anything_capturing(void)
{
	return __atomic_load_n(&capturing_count, __ATOMIC_ACQUIRE) != 0;
}

bool capture_stream_is_capturing(const struct api_call *call, CUstream stream)
{
	uint32_t id;
	bool capturing;

	if (!anything_capturing())
		return false;
	id = call_stream(call, stream);
	if (id == CT_STREAM_NONE)
		return false;
	pthread_mutex_lock(&captures.lock);
	capturing = capture_of_stream_locked(id) != 0;
	pthread_mutex_unlock(&captures.lock);
	return capturing;
}

bool capture_thread_is_capturing(void)
{
	bool capturing = false;

	if (!anything_capturing() || !thread_capture)
		return false;
	pthread_mutex_lock(&captures.lock);
	for (unsigned i = 0; i < STREAMS_MAX && !capturing; i++)
		capturing = captures.streams[i].capture == thread_capture;
	pthread_mutex_unlock(&captures.lock);
	return capturing;
}

/* ----------------------------------------------------------- handlers */

/* Every form of begin and end takes the stream first; every event record
 * takes the event then the stream, every wait the stream then the event. */
_Static_assert(offsetof(cuStreamBeginCapture_v2_params, hStream) == 0 &&
                   offsetof(cuStreamBeginCaptureToGraph_params, hStream) == 0 &&
                   offsetof(cudaStreamBeginCapture_v10000_params, stream) == 0 &&
                   offsetof(cudaStreamBeginCaptureToGraph_v12030_params, stream) == 0 &&
                   offsetof(cuStreamEndCapture_params, hStream) == 0 &&
                   offsetof(cudaStreamEndCapture_v10000_params, stream) == 0 &&
                   sizeof(cudaStream_t) == sizeof(CUstream),
               "the stream comes first in every begin and end of a capture");
_Static_assert(offsetof(cuEventRecordWithFlags_params, hEvent) ==
                       offsetof(cudaEventRecord_v3020_params, event) &&
                   offsetof(cuEventRecordWithFlags_params, hStream) ==
                       offsetof(cudaEventRecord_v3020_params, stream) &&
                   offsetof(cuEventRecord_params, hStream) ==
                       offsetof(cuEventRecordWithFlags_params, hStream) &&
                   offsetof(cudaEventRecordWithFlags_v11010_params, stream) ==
                       offsetof(cuEventRecordWithFlags_params, hStream) &&
                   sizeof(cudaEvent_t) == sizeof(CUevent),
               "every event record takes the event, then the stream");
_Static_assert(offsetof(cuStreamWaitEvent_params, hStream) ==
                       offsetof(cudaStreamWaitEvent_v3020_params, stream) &&
                   offsetof(cuStreamWaitEvent_params, hEvent) ==
                       offsetof(cudaStreamWaitEvent_v3020_params, event),
               "every wait takes the stream, then the event");

/* The stream a begin or end names, as its first parameter. */
static uint32_t first_stream(const struct api_call *call)
{
	const cuStreamEndCapture_params *p = call_params(call);

	return call_stream(call, p->hStream);
}

static void begin_exit(struct api_call *call)
{
	uint32_t stream;

	if (call_failed(call))
		return;
	stream = first_stream(call);
	if (stream != CT_STREAM_NONE)
		capture_begin(stream);
}

/* cuda.h, cudaStreamEndCapture: the capture ends with its graph, or with
 * none when it was invalidated or a fork was not joined back; any other
 * error (another thread, not the origin) leaves it going. */
static bool capture_ended(int32_t result)
{
	return result == CUDA_SUCCESS || result == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED ||
	       result == CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
}

static void end_exit(struct api_call *call)
{
	uint32_t stream;

	if (!capture_ended(call->result))
		return;
	stream = first_stream(call);
	if (stream != CT_STREAM_NONE)
		capture_end(stream);
}

static void record_exit(struct api_call *call)
{
	const cuEventRecord_params *p = call_params(call);
	uint32_t stream;

	/* With nothing capturing, no event marks a capture either. */
	if (call_failed(call) || !anything_capturing())
		return;
	stream = call_stream(call, p->hStream);
	event_recorded(PTR(p->hEvent), stream);
}

static void wait_exit(struct api_call *call)
{
	const cuStreamWaitEvent_params *p = call_params(call);
	uint32_t stream;

	if (call_failed(call) || !anything_capturing())
		return;
	stream = call_stream(call, p->hStream);
	if (stream != CT_STREAM_NONE)
		event_waited(stream, PTR(p->hEvent));
}

static const struct api_binding capture_bindings[] = {
	BIND_RUNTIME_PT(cudaStreamBeginCapture, v10000, ptsz_v10000, 0, NULL, begin_exit),
	BIND_RUNTIME_PT(cudaStreamBeginCaptureToGraph, v12030, ptsz_v12030, 0, NULL, begin_exit),
	BIND_RUNTIME_PT(cudaStreamEndCapture, v10000, ptsz_v10000, 0, NULL, end_exit),
	BIND_RUNTIME_PT(cudaEventRecord, v3020, ptsz_v7000, 0, NULL, record_exit),
	BIND_RUNTIME_PT(cudaEventRecordWithFlags, v11010, ptsz_v11010, 0, NULL, record_exit),
	BIND_RUNTIME_PT(cudaStreamWaitEvent, v3020, ptsz_v7000, 0, NULL, wait_exit),

	BIND_DRIVER_PT(cuStreamBeginCapture, ptsz, 0, NULL, begin_exit),
	BIND_DRIVER_PT(cuStreamBeginCapture_v2, ptsz, 0, NULL, begin_exit),
	BIND_DRIVER_PT(cuStreamBeginCaptureToGraph, ptsz, 0, NULL, begin_exit),
	BIND_DRIVER_PT(cuStreamEndCapture, ptsz, 0, NULL, end_exit),
	BIND_DRIVER_PT(cuEventRecord, ptsz, 0, NULL, record_exit),
	BIND_DRIVER_PT(cuEventRecordWithFlags, ptsz, 0, NULL, record_exit),
	BIND_DRIVER_PT(cuStreamWaitEvent, ptsz, 0, NULL, wait_exit),
	BIND_END,
};

const struct api_family capture_family = { .bindings = capture_bindings };
