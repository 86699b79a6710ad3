/* SPDX-License-Identifier: MIT */
/*
 * drv-no-context.c - a driver API program that allocates before it makes
 * a context current: cuMemAlloc then returns CUDA_ERROR_INVALID_CONTEXT
 * ("no context bound to the current thread", CUDA Driver API, "Error
 * Handling"). It then retains device 0's primary context, makes it
 * current, allocates and frees 1 MiB, and exits 0; with the argument
 * "give-up", it exits 1 right after the refusal instead. Prints what each
 * call returned:
 *
 *   # fact no_context=RESULT
 *   # fact with_context=RESULT
 */
#include <stdio.h>
#include <string.h>

#include <cuda.h>

#define MIB (1u << 20)

int main(int argc, char **argv)
{
	CUdeviceptr p = 0;
	CUdevice device;
	CUcontext context;
	CUresult result;

	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS) {
		fprintf(stderr, "drv-no-context: no CUDA device\n");
		return 1;
	}
	result = cuMemAlloc(&p, 4 * MIB);
	printf("# fact no_context=%d\n", (int)result);
	if (argc > 1 && strcmp(argv[1], "give-up") == 0)
		return 1;
	if (cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
	    cuCtxSetCurrent(context) != CUDA_SUCCESS) {
		fprintf(stderr, "drv-no-context: no context\n");
		return 1;
	}
	result = cuMemAlloc(&p, MIB);
	printf("# fact with_context=%d\n", (int)result);
	if (result == CUDA_SUCCESS)
		cuMemFree(p);
	cuDevicePrimaryCtxRelease(device);
	return result == CUDA_SUCCESS ? 0 : 1;
}
