/* SPDX-License-Identifier: MIT */
/*
 * flush-running.c - copies still running when the tracer flushes CUPTI's
 * records with CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, for
 * tests/trace/flush-running.sh: a forced flush hands over the records of
 * unfinished work, whose end CUPTI does not know yet (0).
 *
 *   flush-running
 *
 * One upload of 4 KiB that the call waits for; then an asynchronous upload
 * of BYTES from pinned memory, then
 * cudaProfilerStop at once, then the stream synchronized; cudaProfilerStart,
 * a second upload, and cudaDeviceReset at once. Prints "copies=3 running=2":
 * the copies made, and those running when the call after them began (with
 * the bandwidth the test sets). Exits 1 if any call failed.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "rt-check.h"

#define BYTES ((size_t)64 << 20)

static int check(cudaError_t status, const char *what)
{
	return rt_check("flush-running", status, what);
}

int main(void)
{
	void *host = NULL, *device = NULL;
	cudaStream_t stream;
	int failed = 0;

	failed |= check(cudaMallocHost(&host, BYTES), "cudaMallocHost");
	failed |= check(cudaMalloc(&device, BYTES), "cudaMalloc");
	failed |= check(cudaStreamCreate(&stream), "cudaStreamCreate");
	if (failed)
		return 1;
	failed |= check(cudaMemcpy(device, host, 4096, cudaMemcpyHostToDevice), "cudaMemcpy");
	failed |= check(cudaMemcpyAsync(device, host, BYTES, cudaMemcpyHostToDevice, stream),
	                "the first cudaMemcpyAsync");
	failed |= check(cudaProfilerStop(), "cudaProfilerStop");
	failed |= check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	failed |= check(cudaProfilerStart(), "cudaProfilerStart");
	failed |= check(cudaMemcpyAsync(device, host, BYTES, cudaMemcpyHostToDevice, stream),
	                "the second cudaMemcpyAsync");
	failed |= check(cudaDeviceReset(), "cudaDeviceReset");
	printf("copies=3 running=2\n");
	return failed;
}
