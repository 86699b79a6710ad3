/* SPDX-License-Identifier: MIT */
/*
 * cudnn.c - the simulated libcudnn.so.9: cuDNN's context, version and error
 * functions, as cudnn_graph.h (cuDNN 9.26.0) documents them. The rest of
 * what the real library exports (libcudnn.exports) are stubs generated at
 * build time that return CUDNN_STATUS_NOT_SUPPORTED: no convolution, no
 * graph, no engine runs here.
 *
 * A handle holds the device that was current when it was made and its
 * stream (the legacy default stream, NULL, until cudnnSetStream). Like the
 * real library, cudnnCreate starts CUDA on the current device (the
 * runtime's cudaFree(NULL) makes its primary context current) and
 * cudnnDestroy synchronises the device: both calls are the program's CUDA
 * calls as CUPTI sees them. Each failure leaves its message for
 * cudnnGetLastErrorString, per thread.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cudnn-api.h"
#include "sim-hooks.h"

#define HANDLE_MAGIC 0x6375646e6e68646cull /* what a live handle holds */

struct cudnnContext {
	uint64_t magic;
	int device;
	cudaStream_t stream;
};

static __thread char last_error[256];

static cudnnStatus_t __attribute__((format(printf, 2, 3)))
fail(cudnnStatus_t status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return status;
}

static bool valid(cudnnHandle_t handle)
{
	return handle && handle->magic == HANDLE_MAGIC;
}

/* ------------------------------------------------------------ version */

SIM_EXPORT size_t cudnnGetVersion(void)
{
	return CUDNN_VERSION;
}

/* The runtime the library was built against: the simulated CUDA 13.0's, or
 * for the CUDA 12 flavour (cuda12/libcudnn.so.9) CUDA 12's, as NVIDIA's
 * nvidia-cudnn-cu13 and -cu12 builds of it say theirs. */
SIM_EXPORT size_t cudnnGetCudartVersion(void)
{
	return CUDART_VERSION;
}

/* MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL (library_types.h); anything else,
 * or no value, is CUDNN_STATUS_BAD_PARAM. */
SIM_EXPORT cudnnStatus_t cudnnGetProperty(libraryPropertyType type, int *value)
{
	if (!value)
		return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetProperty: value is NULL");
	switch (type) {
	case MAJOR_VERSION:
		*value = CUDNN_MAJOR;
		return CUDNN_STATUS_SUCCESS;
	case MINOR_VERSION:
		*value = CUDNN_MINOR;
		return CUDNN_STATUS_SUCCESS;
	case PATCH_LEVEL:
		*value = CUDNN_PATCHLEVEL;
		return CUDNN_STATUS_SUCCESS;
	}
	return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetProperty: unknown property %d", (int)type);
}

/* ------------------------------------------------------------ errors */

SIM_EXPORT const char *cudnnGetErrorString(cudnnStatus_t status)
{
	switch (status) {
#define NAME(s) \
	case s: \
		return #s
		NAME(CUDNN_STATUS_SUCCESS);
		NAME(CUDNN_STATUS_NOT_INITIALIZED);
		NAME(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH);
		NAME(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH);
		NAME(CUDNN_STATUS_DEPRECATED);
		NAME(CUDNN_STATUS_LICENSE_ERROR);
		NAME(CUDNN_STATUS_RUNTIME_IN_PROGRESS);
		NAME(CUDNN_STATUS_RUNTIME_FP_OVERFLOW);
		NAME(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED);
		NAME(CUDNN_STATUS_BAD_PARAM);
		NAME(CUDNN_STATUS_INVALID_VALUE);
		NAME(CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
		NAME(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER);
		NAME(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
		NAME(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND);
		NAME(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT);
		NAME(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH);
		NAME(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH);
		NAME(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES);
		NAME(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
		NAME(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH);
		NAME(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE);
		NAME(CUDNN_STATUS_NOT_SUPPORTED);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_SHAPE);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_PADDING);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API);
		NAME(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE);
		NAME(CUDNN_STATUS_INTERNAL_ERROR);
		NAME(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED);
		NAME(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE);
		NAME(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED);
		NAME(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED);
		NAME(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM);
		NAME(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED);
		NAME(CUDNN_STATUS_EXECUTION_FAILED);
		NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER);
		NAME(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS);
		NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDART);
		NAME(CUDNN_STATUS_EXECUTION_FAILED_CURAND);
#undef NAME
	}
	return "CUDNN_UNKNOWN_STATUS";
}

/* The calling thread's last failure, cut to max_size bytes with its NUL. */
SIM_EXPORT void cudnnGetLastErrorString(char *message, size_t max_size)
{
	if (!message || max_size == 0)
		return;
	snprintf(message, max_size, "%s", last_error);
}

/* ------------------------------------------------------------ handles */

SIM_EXPORT cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)
{
	struct cudnnContext *context;
	int device = 0;
	cudaError_t cuda;

	if (!handle)
		return fail(CUDNN_STATUS_BAD_PARAM, "cudnnCreate: handle is NULL");
	/* "CUDA runtime API initialization failed": NOT_INITIALIZED. */
	cuda = cudaGetDevice(&device);
	if (cuda == cudaSuccess)
		cuda = cudaFree(NULL);
	if (cuda != cudaSuccess)
		return fail(CUDNN_STATUS_NOT_INITIALIZED, "cudnnCreate: CUDA cannot start: %s",
		            cudaGetErrorName(cuda));
	context = calloc(1, sizeof(*context));
	if (!context)
		return fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
		            "cudnnCreate: out of host memory");
	context->magic = HANDLE_MAGIC;
	context->device = device;
	*handle = context;
	return CUDNN_STATUS_SUCCESS;
}

SIM_EXPORT cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)
{
	if (!valid(handle))
		return fail(CUDNN_STATUS_BAD_PARAM, "cudnnDestroy: not a cuDNN handle");
	/* "Calls cudaDeviceSynchronize" (cudnn_graph.h). */
	cudaDeviceSynchronize();
	handle->magic = 0;
	free(handle);
	return CUDNN_STATUS_SUCCESS;
}

SIM_EXPORT cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)
{
	if (!valid(handle))
		return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetStream: not a cuDNN handle");
	handle->stream = streamId;
	return CUDNN_STATUS_SUCCESS;
}

SIM_EXPORT cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId)
{
	if (!valid(handle))
		return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetStream: not a cuDNN handle");
	if (!streamId)
		return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetStream: streamId is NULL");
	*streamId = handle->stream;
	return CUDNN_STATUS_SUCCESS;
}
