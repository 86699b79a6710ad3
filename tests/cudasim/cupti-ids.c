/* SPDX-License-Identifier: MIT */
/*
 * cupti-ids.c - ids: cuptiGetVersion, the context, device and stream ids the
 * driver also puts in activity records (cuptiGetContextId, cuptiGetDeviceId,
 * cuptiGetStreamId[Ex]), and the thread id type of activity records
 * (cuptiSetThreadIdType / cuptiGetThreadIdType).
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cupti-internal.h"

static CUpti_ActivityThreadIdType thread_id_type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;

SIM_EXPORT CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version)
{
	if (!version)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	*version = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

/* How the id queries begin: INVALID_PARAMETER without an out pointer, then
 * the driver, or NOT_INITIALIZED when it is not the simulator's. */
static CUptiResult need_driver(const void *out, const struct cupti_driver **driver)
{
	if (!out)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	*driver = cupti_driver();
	if (!*driver)
		return cupti_status(CUPTI_ERROR_NOT_INITIALIZED);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t *contextId)
{
	const struct cupti_driver *driver;
	CUptiResult result = need_driver(contextId, &driver);

	if (result != CUPTI_SUCCESS)
		return result;
	/* "The context is NULL or not valid" (cupti_activity.h). */
	if (!context || driver->context_id(context, contextId) != 0)
		return cupti_status(CUPTI_ERROR_INVALID_CONTEXT);
	return CUPTI_SUCCESS;
}

/* A NULL context names the calling thread's current one (cupti_activity.h);
 * sim_context_device resolves it. */
SIM_EXPORT CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *deviceId)
{
	const struct cupti_driver *driver;
	CUptiResult result = need_driver(deviceId, &driver);

	if (result != CUPTI_SUCCESS)
		return result;
	if (driver->context_device(context, deviceId) != 0)
		return cupti_status(CUPTI_ERROR_INVALID_DEVICE);
	return CUPTI_SUCCESS;
}

/*
 * perThreadStream: the program was built for per-thread default streams, so
 * a NULL stream is the calling thread's per-thread stream. A non-NULL
 * context must own the stream (CUPTI_ERROR_INVALID_STREAM otherwise).
 */
SIM_EXPORT CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream,
                                                   uint8_t perThreadStream, uint32_t *streamId)
{
	const struct cupti_driver *driver;
	CUptiResult result = need_driver(streamId, &driver);
	uint64_t id;

	if (result != CUPTI_SUCCESS)
		return result;
	if (!stream && perThreadStream)
		stream = CU_STREAM_PER_THREAD;
	if (driver->stream_id(context, stream, &id) != 0)
		return cupti_status(CUPTI_ERROR_INVALID_STREAM);
	*streamId = (uint32_t)id;
	return CUPTI_SUCCESS;
}

/* Deprecated since CUDA 8.0 in favour of cuptiGetStreamIdEx. */
SIM_EXPORT CUptiResult CUPTIAPI cuptiGetStreamId(CUcontext context, CUstream stream,
                                                 uint32_t *streamId)
{
	return cuptiGetStreamIdEx(context, stream, 0, streamId);
}

/* DEFAULT is pthread_self() and SYSTEM is SYS_gettid on Linux
 * (CUpti_ActivityThreadIdType); records keep the low 32 bits. */
uint32_t cupti_thread_id(void)
{
	if (__atomic_load_n(&thread_id_type, __ATOMIC_RELAXED) ==
	    CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
		return (uint32_t)syscall(SYS_gettid);
	return (uint32_t)(uintptr_t)pthread_self();
}

void cupti_ids_finalize(void)
{
	__atomic_store_n(&thread_id_type, CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT, __ATOMIC_RELAXED);
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
	if (type != CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT &&
	    type != CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
		return cupti_status(CUPTI_ERROR_NOT_SUPPORTED);
	__atomic_store_n(&thread_id_type, type, __ATOMIC_RELAXED);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiGetThreadIdType(CUpti_ActivityThreadIdType *type)
{
	if (!type)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	*type = __atomic_load_n(&thread_id_type, __ATOMIC_RELAXED);
	return CUPTI_SUCCESS;
}
