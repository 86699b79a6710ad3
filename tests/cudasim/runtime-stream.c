/* SPDX-License-Identifier: MIT */
/*
 * runtime-stream.c - streams and events. cudaStream_t and cudaEvent_t are
 * the driver's CUstream and CUevent, and the special stream handles
 * (0, cudaStreamLegacy, cudaStreamPerThread) mean to the driver what they
 * mean to the runtime, so handles pass through; the _ptsz exports turn
 * stream 0 into cudaStreamPerThread. cudaStreamNonBlocking and the
 * cudaEvent* flags are the CU_STREAM_* and CU_EVENT_* values.
 */
#include <stddef.h>
#include "runtime-internal.h"

/* A NULL event is an invalid handle for every event call. */
#define RT_EVENT_OR_FAIL(event) ((event) ? cudaSuccess : cudaErrorInvalidResourceHandle)

static bool rt_special_stream(cudaStream_t stream)
{
	return stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

/* ------------------------------------------------------------ create */

static cudaError_t rt_stream_create(cudaStream_t *pStream, unsigned int flags, int priority,
                                    bool with_priority)
{
	cudaError_t result;
	CUresult cu;

	if (!pStream || (flags & ~(unsigned int)cudaStreamNonBlocking))
		return cudaErrorInvalidValue;
	result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	if (with_priority)
		cu = cuStreamCreateWithPriority(pStream, flags, priority);
	else
		cu = cuStreamCreate(pStream, flags);
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *pStream)
{
	cudaStreamCreate_v3020_params params = { pStream };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamCreate_v3020, "cudaStreamCreate", &params);
	return rt_exit(&call, rt_stream_create(pStream, cudaStreamDefault, 0, false));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream,
                                                           unsigned int flags)
{
	cudaStreamCreateWithFlags_v5000_params params = { pStream, flags };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamCreateWithFlags_v5000, "cudaStreamCreateWithFlags", &params);
	return rt_exit(&call, rt_stream_create(pStream, flags, 0, false));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t *pStream,
                                                              unsigned int flags, int priority)
{
	cudaStreamCreateWithPriority_v5050_params params = { pStream, flags, priority };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamCreateWithPriority_v5050, "cudaStreamCreateWithPriority", &params);
	return rt_exit(&call, rt_stream_create(pStream, flags, priority, true));
}

/* The default streams belong to the runtime: they cannot be destroyed. */
static cudaError_t rt_stream_destroy(cudaStream_t stream)
{
	cudaError_t result;

	if (rt_special_stream(stream))
		return cudaErrorInvalidResourceHandle;
	result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuStreamDestroy(stream));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream)
{
	cudaStreamDestroy_v5050_params params = { stream };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamDestroy_v5050, "cudaStreamDestroy", &params);
	return rt_exit(&call, rt_stream_destroy(stream));
}

/* ------------------------------------------------------------ use */

enum rt_stream_op { RT_STREAM_SYNC, RT_STREAM_QUERY };

/* cudaErrorNotReady from a query goes to the last-error slot like any
 * other failure (cuda-semantics.md §2, pytorch#18584). */
static cudaError_t rt_stream_op(cudaStream_t stream, enum rt_stream_op op)
{
	cudaError_t result = rt_context(NULL, NULL);
	CUresult cu;

	if (result != cudaSuccess)
		return result;
	if (op == RT_STREAM_SYNC)
		cu = cuStreamSynchronize(stream);
	else
		cu = cuStreamQuery(stream);
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream)
{
	cudaStreamSynchronize_v3020_params params = { stream };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamSynchronize_v3020, "cudaStreamSynchronize", &params);
	return rt_exit(&call, rt_stream_op(stream, RT_STREAM_SYNC));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
	cudaStreamSynchronize_ptsz_v7000_params params = { stream };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamSynchronize_ptsz_v7000, "cudaStreamSynchronize_ptsz", &params);
	return rt_exit(&call, rt_stream_op(rt_per_thread(stream), RT_STREAM_SYNC));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream)
{
	cudaStreamQuery_v3020_params params = { stream };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamQuery_v3020, "cudaStreamQuery", &params);
	return rt_exit(&call, rt_stream_op(stream, RT_STREAM_QUERY));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamQuery_ptsz(cudaStream_t stream)
{
	cudaStreamQuery_ptsz_v7000_params params = { stream };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamQuery_ptsz_v7000, "cudaStreamQuery_ptsz", &params);
	return rt_exit(&call, rt_stream_op(rt_per_thread(stream), RT_STREAM_QUERY));
}

/* flags: cudaEventWaitDefault (0) or cudaEventWaitExternal (1). */
static cudaError_t rt_stream_wait_event(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	cudaError_t result;

	if (flags & ~(unsigned int)cudaEventWaitExternal)
		return cudaErrorInvalidValue;
	result = RT_EVENT_OR_FAIL(event);
	if (result == cudaSuccess)
		result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuStreamWaitEvent(stream, event, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                                     unsigned int flags)
{
	cudaStreamWaitEvent_v3020_params params = { stream, event, flags };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent", &params);
	return rt_exit(&call, rt_stream_wait_event(stream, event, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                                          unsigned int flags)
{
	cudaStreamWaitEvent_ptsz_v7000_params params = { stream, event, flags };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamWaitEvent_ptsz_v7000, "cudaStreamWaitEvent_ptsz", &params);
	return rt_exit(&call, rt_stream_wait_event(rt_per_thread(stream), event, flags));
}

static cudaError_t rt_stream_get_flags(cudaStream_t stream, unsigned int *flags)
{
	cudaError_t result;

	if (!flags)
		return cudaErrorInvalidValue;
	result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuStreamGetFlags(stream, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
	cudaStreamGetFlags_v5050_params params = { hStream, flags };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamGetFlags_v5050, "cudaStreamGetFlags", &params);
	return rt_exit(&call, rt_stream_get_flags(hStream, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
	cudaStreamGetFlags_ptsz_v7000_params params = { hStream, flags };
	struct sim_api_call call;

	RT_ENTER(call, cudaStreamGetFlags_ptsz_v7000, "cudaStreamGetFlags_ptsz", &params);
	return rt_exit(&call, rt_stream_get_flags(rt_per_thread(hStream), flags));
}

/* ------------------------------------------------------------ events */

#define RT_EVENT_FLAGS (cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess)

/* cudaEventInterprocess requires cudaEventDisableTiming (driver_types.h). */
static bool rt_event_flags_valid(unsigned int flags)
{
	if (flags & ~(unsigned int)RT_EVENT_FLAGS)
		return false;
	return !(flags & cudaEventInterprocess) || (flags & cudaEventDisableTiming);
}

static cudaError_t rt_event_create(cudaEvent_t *event, unsigned int flags)
{
	cudaError_t result;

	if (!event || !rt_event_flags_valid(flags))
		return cudaErrorInvalidValue;
	result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuEventCreate(event, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event)
{
	cudaEventCreate_v3020_params params = { event };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventCreate_v3020, "cudaEventCreate", &params);
	return rt_exit(&call, rt_event_create(event, cudaEventDefault));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	cudaEventCreateWithFlags_v3020_params params = { event, flags };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventCreateWithFlags_v3020, "cudaEventCreateWithFlags", &params);
	return rt_exit(&call, rt_event_create(event, flags));
}

static cudaError_t rt_event_record(cudaEvent_t event, cudaStream_t stream, unsigned int flags,
                                   bool with_flags)
{
	cudaError_t result = RT_EVENT_OR_FAIL(event);
	CUresult cu;

	if (result == cudaSuccess)
		result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	if (with_flags)
		cu = cuEventRecordWithFlags(event, stream, flags);
	else
		cu = cuEventRecord(event, stream);
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	cudaEventRecord_v3020_params params = { event, stream };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventRecord_v3020, "cudaEventRecord", &params);
	return rt_exit(&call, rt_event_record(event, stream, 0, false));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
	cudaEventRecord_ptsz_v7000_params params = { event, stream };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventRecord_ptsz_v7000, "cudaEventRecord_ptsz", &params);
	return rt_exit(&call, rt_event_record(event, rt_per_thread(stream), 0, false));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                          unsigned int flags)
{
	cudaEventRecordWithFlags_v11010_params params = { event, stream, flags };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventRecordWithFlags_v11010, "cudaEventRecordWithFlags", &params);
	return rt_exit(&call, rt_event_record(event, stream, flags, true));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventRecordWithFlags_ptsz(cudaEvent_t event,
                                                               cudaStream_t stream,
                                                               unsigned int flags)
{
	cudaEventRecordWithFlags_ptsz_v11010_params params = { event, stream, flags };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventRecordWithFlags_ptsz_v11010, "cudaEventRecordWithFlags_ptsz",
	         &params);
	return rt_exit(&call, rt_event_record(event, rt_per_thread(stream), flags, true));
}

enum rt_event_op { RT_EVENT_QUERY, RT_EVENT_SYNC, RT_EVENT_DESTROY };

/* A never-recorded event queries as complete (the driver's answer). */
static cudaError_t rt_event_op(cudaEvent_t event, enum rt_event_op op)
{
	cudaError_t result = RT_EVENT_OR_FAIL(event);
	CUresult cu;

	if (result == cudaSuccess)
		result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	switch (op) {
	case RT_EVENT_QUERY:
		cu = cuEventQuery(event);
		break;
	case RT_EVENT_SYNC:
		cu = cuEventSynchronize(event);
		break;
	default:
		cu = cuEventDestroy(event);
		break;
	}
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event)
{
	cudaEventQuery_v3020_params params = { event };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventQuery_v3020, "cudaEventQuery", &params);
	return rt_exit(&call, rt_event_op(event, RT_EVENT_QUERY));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event)
{
	cudaEventSynchronize_v3020_params params = { event };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventSynchronize_v3020, "cudaEventSynchronize", &params);
	return rt_exit(&call, rt_event_op(event, RT_EVENT_SYNC));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event)
{
	cudaEventDestroy_v3020_params params = { event };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventDestroy_v3020, "cudaEventDestroy", &params);
	return rt_exit(&call, rt_event_op(event, RT_EVENT_DESTROY));
}

/*
 * Never recorded or DisableTiming: cudaErrorInvalidResourceHandle; not yet
 * complete: cudaErrorNotReady (cuda_runtime_api.h:2985-3029). The driver
 * tells both apart; cuda.h maps cuEventElapsedTime to its _v2, the CUDA 13
 * behaviour, as the runtime's CUDA 13 export (cbid 486) is.
 */
static cudaError_t rt_event_elapsed(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	cudaError_t result;

	if (!ms)
		return cudaErrorInvalidValue;
	result = RT_EVENT_OR_FAIL(start);
	if (result == cudaSuccess)
		result = RT_EVENT_OR_FAIL(end);
	if (result == cudaSuccess)
		result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuEventElapsedTime(ms, start, end));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	cudaEventElapsedTime_v12080_params params = { ms, start, end };
	struct sim_api_call call;

	RT_ENTER(call, cudaEventElapsedTime_v12080, "cudaEventElapsedTime", &params);
	return rt_exit(&call, rt_event_elapsed(ms, start, end));
}
