/* SPDX-License-Identifier: MIT */
/*
 * stream-priorities.c - stream priorities through the runtime and the
 * driver, as cuda_runtime_api.h and cuda.h document them:
 *
 *   - cudaDeviceGetStreamPriorityRange / cuCtxGetStreamPriorityRange give
 *     [greatest, least] with greatest < least ("lower numbers imply
 *     greater priorities"), either pointer may be NULL, and the device
 *     says it supports priorities (cudaDevAttrStreamPrioritiesSupported);
 *   - cudaStreamCreateWithPriority / cuStreamCreateWithPriority keep a
 *     priority in that range, and clamp one outside it to the nearest end,
 *     which cudaStreamGetPriority / cuStreamGetPriority then return;
 *   - a stream created without one has priority 0, and so have the
 *     default streams;
 *   - cudaStreamGetPriority without an out pointer is
 *     cudaErrorInvalidValue.
 *
 * Prints TAP, "# fact pid=N" and the "# expect" lines of the calls that
 * fail, for the ledger.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <unistd.h>

#include "tap.h"

/* Not declared unless the program is built for per-thread default streams. */
extern cudaError_t CUDARTAPI cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority);

/* The priority of a stream, or 12345 when the query fails. */
static int runtime_priority(cudaStream_t stream)
{
	int priority = 12345;

	if (cudaStreamGetPriority(stream, &priority) != cudaSuccess)
		return 12345;
	return priority;
}

/* A stream created with PRIORITY (NULL when that fails), and the priority
 * it then has. */
static cudaStream_t runtime_stream(unsigned int flags, int priority, int *got)
{
	cudaStream_t stream = NULL;

	*got = 12345;
	if (cudaStreamCreateWithPriority(&stream, flags, priority) != cudaSuccess)
		return NULL;
	*got = runtime_priority(stream);
	return stream;
}

static void check_runtime(void)
{
	int least = 1, greatest = 1, supported = 0, got = 0;
	cudaStream_t high, low, above, below, plain = NULL;
	unsigned int flags = 0;

	tap_ok(cudaDeviceGetAttribute(&supported, cudaDevAttrStreamPrioritiesSupported, 0) ==
	               cudaSuccess &&
	           supported == 1,
	       "the device supports stream priorities");
	tap_ok(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess,
	       "cudaDeviceGetStreamPriorityRange succeeds");
	tap_ok(least == 0 && greatest == -5, "its range is [-5, 0] (got [%d, %d])", greatest,
	       least);
	least = 1;
	tap_ok(cudaDeviceGetStreamPriorityRange(&least, NULL) == cudaSuccess && least == 0,
	       "... with NULL for the greatest");
	greatest = 1;
	tap_ok(cudaDeviceGetStreamPriorityRange(NULL, &greatest) == cudaSuccess && greatest == -5,
	       "... with NULL for the least");
	tap_ok(cudaDeviceGetStreamPriorityRange(NULL, NULL) == cudaSuccess,
	       "... with NULL for both");

	high = runtime_stream(cudaStreamNonBlocking, -5, &got);
	tap_ok(high && got == -5,
	       "cudaStreamCreateWithPriority at the greatest priority: cudaStreamGetPriority "
	       "gives it (got %d)",
	       got);
	tap_ok(cudaStreamGetFlags(high, &flags) == cudaSuccess && flags == cudaStreamNonBlocking,
	       "... and its flags are kept");
	low = runtime_stream(cudaStreamDefault, -2, &got);
	tap_ok(low && got == -2, "a priority inside the range is kept (got %d)", got);
	above = runtime_stream(cudaStreamDefault, -100, &got);
	tap_ok(above && got == -5, "a priority greater than the greatest is clamped to it (got %d)",
	       got);
	below = runtime_stream(cudaStreamDefault, 7, &got);
	tap_ok(below && got == 0, "a priority less than the least is clamped to it (got %d)", got);
	got = 12345;
	if (cudaStreamCreate(&plain) == cudaSuccess)
		got = runtime_priority(plain);
	tap_ok(got == 0, "a stream created without a priority has 0 (got %d)", got);
	tap_ok(runtime_priority(0) == 0 && runtime_priority(cudaStreamLegacy) == 0 &&
	           runtime_priority(cudaStreamPerThread) == 0,
	       "the default streams have 0");
	if (cudaStreamGetPriority_ptsz(high, &got) != cudaSuccess)
		got = 12345;
	tap_ok(got == -5, "cudaStreamGetPriority_ptsz gives the same (got %d)", got);
	tap_ok(cudaStreamGetPriority(high, NULL) == cudaErrorInvalidValue &&
	           cudaGetLastError() == cudaErrorInvalidValue,
	       "cudaStreamGetPriority without an out pointer is cudaErrorInvalidValue");
	tap_expect("op=error api=cudaStreamGetPriority result=cudaErrorInvalidValue");
	cudaStreamDestroy(high);
	cudaStreamDestroy(low);
	cudaStreamDestroy(above);
	cudaStreamDestroy(below);
	cudaStreamDestroy(plain);
}

/* cuStreamCreateWithPriority, then cuStreamGetPriority, as runtime_stream. */
static CUstream driver_stream(unsigned int flags, int priority, int *got)
{
	CUstream stream = NULL;

	*got = 12345;
	if (cuStreamCreateWithPriority(&stream, flags, priority) != CUDA_SUCCESS)
		return NULL;
	if (cuStreamGetPriority(stream, got) != CUDA_SUCCESS)
		*got = 12345;
	return stream;
}

static void check_driver(void)
{
	int least = 1, greatest = 1, got = 0;
	CUstream high, below;

	if (cuCtxGetStreamPriorityRange(&least, &greatest) != CUDA_SUCCESS)
		least = greatest = 12345;
	tap_ok(least == 0 && greatest == -5,
	       "cuCtxGetStreamPriorityRange gives [-5, 0] (got [%d, %d])", greatest, least);
	high = driver_stream(CU_STREAM_NON_BLOCKING, -5, &got);
	tap_ok(high && got == -5,
	       "cuStreamCreateWithPriority at the greatest priority: cuStreamGetPriority gives it "
	       "(got %d)",
	       got);
	below = driver_stream(CU_STREAM_DEFAULT, 3, &got);
	tap_ok(below && got == 0, "... a priority less than the least is clamped to it (got %d)",
	       got);
	cuStreamDestroy(high);
	cuStreamDestroy(below);
}

int main(void)
{
	printf("# fact pid=%d\n", (int)getpid());
	check_runtime();
	check_driver();
	return tap_done();
}
