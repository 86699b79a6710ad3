/* SPDX-License-Identifier: MIT */
/*
 * cuda-error-names.c - CUDA's names of its error codes (cuda-error-names.h).
 */
#include <stddef.h>

#include "cuda-error-names.h"
#include "event.h"

/* A code and its names in the two enums (NULL: none there). */
static const struct {
	int32_t code;
	const char *driver, *runtime;
} names[] = {
	{ 1, "CUDA_ERROR_INVALID_VALUE", "cudaErrorInvalidValue" },
	{ 2, "CUDA_ERROR_OUT_OF_MEMORY", "cudaErrorMemoryAllocation" },
	{ 3, "CUDA_ERROR_NOT_INITIALIZED", "cudaErrorInitializationError" },
	{ 4, "CUDA_ERROR_DEINITIALIZED", "cudaErrorCudartUnloading" },
	{ 35, NULL, "cudaErrorInsufficientDriver" },
	{ 98, NULL, "cudaErrorInvalidDeviceFunction" },
	{ 100, "CUDA_ERROR_NO_DEVICE", "cudaErrorNoDevice" },
	{ 101, "CUDA_ERROR_INVALID_DEVICE", "cudaErrorInvalidDevice" },
	{ 200, "CUDA_ERROR_INVALID_IMAGE", NULL },
	{ 201, "CUDA_ERROR_INVALID_CONTEXT", NULL },
	{ 209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "cudaErrorNoKernelImageForDevice" },
	{ 226, "CUDA_ERROR_CONTAINED", "cudaErrorContained" },
	{ 400, "CUDA_ERROR_INVALID_HANDLE", "cudaErrorInvalidResourceHandle" },
	{ 500, "CUDA_ERROR_NOT_FOUND", "cudaErrorSymbolNotFound" },
	{ 600, "CUDA_ERROR_NOT_READY", "cudaErrorNotReady" },
	{ 700, "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress" },
	{ 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "cudaErrorLaunchOutOfResources" },
	{ 702, "CUDA_ERROR_LAUNCH_TIMEOUT", "cudaErrorLaunchTimeout" },
	{ 714, "CUDA_ERROR_HARDWARE_STACK_ERROR", "cudaErrorHardwareStackError" },
	{ 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "cudaErrorIllegalInstruction" },
	{ 716, "CUDA_ERROR_MISALIGNED_ADDRESS", "cudaErrorMisalignedAddress" },
	{ 717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "cudaErrorInvalidAddressSpace" },
	{ 718, "CUDA_ERROR_INVALID_PC", "cudaErrorInvalidPc" },
	{ 719, "CUDA_ERROR_LAUNCH_FAILED", "cudaErrorLaunchFailure" },
	{ 911, "CUDA_ERROR_EXTERNAL_DEVICE", "cudaErrorExternalDevice" },
	{ 999, "CUDA_ERROR_UNKNOWN", "cudaErrorUnknown" },
};

const char *ct_cuda_error_name(unsigned domain, int32_t code)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == code)
			return domain == CT_DOMAIN_DRIVER ? names[i].driver : names[i].runtime;
	return NULL;
}
