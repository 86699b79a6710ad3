/* SPDX-License-Identifier: MIT */
/*
 * cupti-result.c - result strings (cuptiGetResultString,
 * cuptiGetErrorMessage), the per-thread last error (cuptiGetLastError) and
 * callback names (cuptiGetCallbackName, from the generated cbid tables).
 */
#include "cupti-internal.h"

/* "Returns the last error that has been produced by any of the cupti api
 * calls or the callback in the same host thread" (cupti_activity.h). */
static __thread CUptiResult last_error = CUPTI_SUCCESS;

#define RESULT_NAME(code) [code] = #code

/* Every enumerator of cupti_result.h below CUPTI_ERROR_UNKNOWN. */
static const char *const result_names[] = {
	RESULT_NAME(CUPTI_SUCCESS),
	RESULT_NAME(CUPTI_ERROR_INVALID_PARAMETER),
	RESULT_NAME(CUPTI_ERROR_INVALID_DEVICE),
	RESULT_NAME(CUPTI_ERROR_INVALID_CONTEXT),
	RESULT_NAME(CUPTI_ERROR_INVALID_EVENT_DOMAIN_ID),
	RESULT_NAME(CUPTI_ERROR_INVALID_EVENT_ID),
	RESULT_NAME(CUPTI_ERROR_INVALID_EVENT_NAME),
	RESULT_NAME(CUPTI_ERROR_INVALID_OPERATION),
	RESULT_NAME(CUPTI_ERROR_OUT_OF_MEMORY),
	RESULT_NAME(CUPTI_ERROR_HARDWARE),
	RESULT_NAME(CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT),
	RESULT_NAME(CUPTI_ERROR_API_NOT_IMPLEMENTED),
	RESULT_NAME(CUPTI_ERROR_MAX_LIMIT_REACHED),
	RESULT_NAME(CUPTI_ERROR_NOT_READY),
	RESULT_NAME(CUPTI_ERROR_NOT_COMPATIBLE),
	RESULT_NAME(CUPTI_ERROR_NOT_INITIALIZED),
	RESULT_NAME(CUPTI_ERROR_INVALID_METRIC_ID),
	RESULT_NAME(CUPTI_ERROR_INVALID_METRIC_NAME),
	RESULT_NAME(CUPTI_ERROR_QUEUE_EMPTY),
	RESULT_NAME(CUPTI_ERROR_INVALID_HANDLE),
	RESULT_NAME(CUPTI_ERROR_INVALID_STREAM),
	RESULT_NAME(CUPTI_ERROR_INVALID_KIND),
	RESULT_NAME(CUPTI_ERROR_INVALID_EVENT_VALUE),
	RESULT_NAME(CUPTI_ERROR_DISABLED),
	RESULT_NAME(CUPTI_ERROR_INVALID_MODULE),
	RESULT_NAME(CUPTI_ERROR_INVALID_METRIC_VALUE),
	RESULT_NAME(CUPTI_ERROR_HARDWARE_BUSY),
	RESULT_NAME(CUPTI_ERROR_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE),
	RESULT_NAME(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES),
	RESULT_NAME(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS),
	RESULT_NAME(CUPTI_ERROR_CDP_TRACING_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE),
	RESULT_NAME(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
	RESULT_NAME(CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED),
	RESULT_NAME(CUPTI_ERROR_OPENACC_UNDEFINED_ROUTINE),
	RESULT_NAME(CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES),
	RESULT_NAME(CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED),
	RESULT_NAME(CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED),
#if SIM_CUPTI_MAJOR >= 13
	RESULT_NAME(CUPTI_ERROR_INVALID_CHIP_NAME),
#endif
};

CUptiResult cupti_status(CUptiResult result)
{
	if (result != CUPTI_SUCCESS)
		last_error = result;
	return result;
}

/* The enumerator name, or NULL for a value cupti_result.h does not define. */
static const char *result_name(CUptiResult result)
{
	size_t index = (size_t)result;

	if (result == CUPTI_ERROR_UNKNOWN)
		return "CUPTI_ERROR_UNKNOWN";
	if (index >= sizeof(result_names) / sizeof(result_names[0]))
		return NULL;
	return result_names[index];
}

/* The real library answers "<unknown>" with INVALID_PARAMETER for a value it
 * does not know (checked against libcupti.so.13 of CUDA 13.0). */
static CUptiResult describe(CUptiResult result, const char **str)
{
	const char *name;

	if (!str)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	name = result_name(result);
	if (!name) {
		*str = "<unknown>";
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	}
	*str = name;
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
	return describe(result, str);
}

/* The 13.0 library returns the enumerator name here too. */
SIM_EXPORT CUptiResult CUPTIAPI cuptiGetErrorMessage(CUptiResult result, const char **str)
{
	return describe(result, str);
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiGetLastError(void)
{
	CUptiResult result = last_error;

	last_error = CUPTI_SUCCESS;
	return result;
}

/* "Names are available only for the DRIVER and RUNTIME domains"
 * (cupti_callbacks.h); cbid 0 is "INVALID", as the real library says. */
SIM_EXPORT CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                                     const char **name)
{
	const char *found = NULL;

	if (!name)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < cupti_driver_cbid_names_count)
		found = cupti_driver_cbid_names[cbid];
	else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < cupti_runtime_cbid_names_count)
		found = cupti_runtime_cbid_names[cbid];
	*name = found;
	if (!found)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	return CUPTI_SUCCESS;
}
