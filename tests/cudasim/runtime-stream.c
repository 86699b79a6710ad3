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
	cudaError_t result = rt_begin(pStream && !(flags & ~(unsigned int)cudaStreamNonBlocking));
	CUresult cu;

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
	RT_CALL(cudaStreamCreate_v3020, "cudaStreamCreate", params,
	        rt_stream_create(pStream, cudaStreamDefault, 0, false));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream,
                                                           unsigned int flags)
{
	cudaStreamCreateWithFlags_v5000_params params = { pStream, flags };
	RT_CALL(cudaStreamCreateWithFlags_v5000, "cudaStreamCreateWithFlags", params,
	        rt_stream_create(pStream, flags, 0, false));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t *pStream,
                                                              unsigned int flags, int priority)
{
	cudaStreamCreateWithPriority_v5050_params params = { pStream, flags, priority };
	RT_CALL(cudaStreamCreateWithPriority_v5050, "cudaStreamCreateWithPriority", params,
	        rt_stream_create(pStream, flags, priority, true));
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
	RT_CALL(cudaStreamDestroy_v5050, "cudaStreamDestroy", params, rt_stream_destroy(stream));
}

/* ------------------------------------------------------------ use */

enum rt_stream_op { RT_STREAM_SYNC, RT_STREAM_QUERY };

/* cudaErrorNotReady from a query goes to the last-error slot like any
 * other failure (cuda_runtime_api.h:1116-1172; pytorch#18584). */
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
	RT_CALL(cudaStreamSynchronize_v3020, "cudaStreamSynchronize", params,
	        rt_stream_op(stream, RT_STREAM_SYNC));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream)
{
	cudaStreamQuery_v3020_params params = { stream };
	RT_CALL(cudaStreamQuery_v3020, "cudaStreamQuery", params,
	        rt_stream_op(stream, RT_STREAM_QUERY));
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
	RT_CALL(cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent", params,
	        rt_stream_wait_event(stream, event, flags));
}

static cudaError_t rt_stream_get_flags(cudaStream_t stream, unsigned int *flags)
{
	cudaError_t result = rt_begin(flags != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuStreamGetFlags(stream, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
	cudaStreamGetFlags_v5050_params params = { hStream, flags };
	RT_CALL(cudaStreamGetFlags_v5050, "cudaStreamGetFlags", params,
	        rt_stream_get_flags(hStream, flags));
}

/* ------------------------------------------------------------ priorities */

/*
 * Stream priorities are the driver's (cuda_runtime_api.h,
 * cudaDeviceGetStreamPriorityRange): lower numbers are greater priorities,
 * the meaningful range is [*greatestPriority, *leastPriority], either
 * pointer may be NULL, and a priority outside the range is clamped when
 * the stream is created (cudaStreamCreateWithPriority), so that
 * cudaStreamGetPriority returns the clamped value.
 */
static cudaError_t rt_priority_range(int *leastPriority, int *greatestPriority)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                                                  int *greatestPriority)
{
	cudaDeviceGetStreamPriorityRange_v5050_params params = { leastPriority, greatestPriority };
	RT_CALL(cudaDeviceGetStreamPriorityRange_v5050, "cudaDeviceGetStreamPriorityRange", params,
	        rt_priority_range(leastPriority, greatestPriority));
}

/* cudaErrorInvalidValue without priority, cudaErrorInvalidResourceHandle
 * for a stream that is not one (cuda_runtime_api.h, cudaStreamGetPriority). */
static cudaError_t rt_stream_get_priority(cudaStream_t stream, int *priority)
{
	cudaError_t result = rt_begin(priority != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuStreamGetPriority(stream, priority));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
	cudaStreamGetPriority_v5050_params params = { hStream, priority };
	RT_CALL(cudaStreamGetPriority_v5050, "cudaStreamGetPriority", params,
	        rt_stream_get_priority(hStream, priority));
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
	cudaError_t result = rt_begin(event && rt_event_flags_valid(flags));

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuEventCreate(event, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event)
{
	cudaEventCreate_v3020_params params = { event };
	RT_CALL(cudaEventCreate_v3020, "cudaEventCreate", params,
	        rt_event_create(event, cudaEventDefault));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	cudaEventCreateWithFlags_v3020_params params = { event, flags };
	RT_CALL(cudaEventCreateWithFlags_v3020, "cudaEventCreateWithFlags", params,
	        rt_event_create(event, flags));
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
	RT_CALL(cudaEventRecord_v3020, "cudaEventRecord", params,
	        rt_event_record(event, stream, 0, false));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                          unsigned int flags)
{
	cudaEventRecordWithFlags_v11010_params params = { event, stream, flags };
	RT_CALL(cudaEventRecordWithFlags_v11010, "cudaEventRecordWithFlags", params,
	        rt_event_record(event, stream, flags, true));
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
	RT_CALL(cudaEventQuery_v3020, "cudaEventQuery", params, rt_event_op(event, RT_EVENT_QUERY));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event)
{
	cudaEventSynchronize_v3020_params params = { event };
	RT_CALL(cudaEventSynchronize_v3020, "cudaEventSynchronize", params,
	        rt_event_op(event, RT_EVENT_SYNC));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event)
{
	cudaEventDestroy_v3020_params params = { event };
	RT_CALL(cudaEventDestroy_v3020, "cudaEventDestroy", params,
	        rt_event_op(event, RT_EVENT_DESTROY));
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

/*
 * CUDA 12.8 added cudaEventElapsedTime_v2, which, unlike the original, is
 * "not guaranteed to return the latest errors for pending work"; CUDA 13.0
 * exports it as cudaEventElapsedTime (cbid 486) and dropped the _v2 name
 * (CUDA 13.0 release notes,
 * https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-release-notes/;
 * https://docs.nvidia.com/cuda/archive/12.9.0/cuda-runtime-api/group__CUDART__EVENT.html).
 * Under CUDA 12's headers both are exported. The simulator does not tell
 * the two apart: both give the driver's answer, as the driver's
 * cuEventElapsedTime and its _v2 do (driver-stream.c).
 */
#if CUDART_VERSION >= 13000
SIM_EXPORT cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	cudaEventElapsedTime_v12080_params params = { ms, start, end };
	RT_CALL(cudaEventElapsedTime_v12080, "cudaEventElapsedTime", params,
	        rt_event_elapsed(ms, start, end));
}
#else
SIM_EXPORT cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	cudaEventElapsedTime_v3020_params params = { ms, start, end };
	RT_CALL(cudaEventElapsedTime_v3020, "cudaEventElapsedTime", params,
	        rt_event_elapsed(ms, start, end));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaEventElapsedTime_v2(float *ms, cudaEvent_t start,
                                                         cudaEvent_t end)
{
	cudaEventElapsedTime_v2_v12080_params params = { ms, start, end };
	RT_CALL(cudaEventElapsedTime_v2_v12080, "cudaEventElapsedTime_v2", params,
	        rt_event_elapsed(ms, start, end));
}
#endif

/* ------------------------------------------------------------ host functions */

/*
 * cudaLaunchHostFunc and cudaStreamAddCallback (cuda_runtime_api.h) are the
 * driver's cuLaunchHostFunc and cuStreamAddCallback: cudaHostFn_t is
 * CUhostFn, and cudaStreamCallback_t differs from CUstreamCallback only in
 * the enum of its status argument (cudaSuccess is CUDA_SUCCESS).
 */
static cudaError_t rt_launch_host_func(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
	cudaError_t result = rt_begin(fn != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuLaunchHostFunc(stream, fn, userData));
}

static cudaError_t rt_stream_add_callback(cudaStream_t stream, cudaStreamCallback_t callback,
                                          void *userData, unsigned int flags)
{
	CUstreamCallback cu_callback;
	cudaError_t result = rt_begin(callback != NULL && flags == 0);

	if (result != cudaSuccess)
		return result;
	*(void **)&cu_callback = *(void **)&callback;
	return rt_error_from_cu(cuStreamAddCallback(stream, cu_callback, userData, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn,
                                                    void *userData)
{
	cudaLaunchHostFunc_v10000_params params = { stream, fn, userData };
	RT_CALL(cudaLaunchHostFunc_v10000, "cudaLaunchHostFunc", params,
	        rt_launch_host_func(stream, fn, userData));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream,
                                                       cudaStreamCallback_t callback,
                                                       void *userData, unsigned int flags)
{
	cudaStreamAddCallback_v5000_params params = { stream, callback, userData, flags };
	RT_CALL(cudaStreamAddCallback_v5000, "cudaStreamAddCallback", params,
	        rt_stream_add_callback(stream, callback, userData, flags));
}
