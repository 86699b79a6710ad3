/* SPDX-License-Identifier: MIT */
/*
 * fake-cupti.c - the CUPTI entry points libtrace calls that the unit tests
 * linking it (test-sessions, test-shutdown) do not look at: each answers
 * as a CUPTI with nothing to report would. The entry points a test checks
 * (callbacks and domains enabled, activity kinds, flushes, callback
 * names) are faked in the test itself.
 */
#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version)
{
	*version = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc func)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t *size,
                                               void *value)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                    CUpti_BuffersCallbackCompleteFunc completed)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
                                                CUpti_Activity **record)
{
	return CUPTI_ERROR_MAX_LIMIT_REACHED;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t stream,
                                                       size_t *dropped)
{
	*dropped = 0;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t *id)
{
	return CUPTI_ERROR_NOT_INITIALIZED;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *device)
{
	return CUPTI_ERROR_NOT_INITIALIZED;
}

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t per_thread,
                                        uint32_t *id)
{
	return CUPTI_ERROR_NOT_INITIALIZED;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **text)
{
	*text = "fake";
	return CUPTI_SUCCESS;
}
