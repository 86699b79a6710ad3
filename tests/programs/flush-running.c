/* SPDX-License-Identifier: MIT */
/*
 * flush-running.c - copies unfinished when the tracer flushes CUPTI's
 * records with CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, for
 * tests/trace/flush-running.sh: a forced flush hands over the records of
 * unfinished work, whose times CUPTI does not know yet (0).
 *
 *   flush-running
 *
 * One upload of 4 KiB that the call waits for; then two asynchronous
 * uploads of BYTES from pinned memory on one stream (the second waits for
 * the first), cudaProfilerStop at once, and the stream synchronized; then
 * cudaProfilerStart, a third upload, and cudaDeviceReset at once. Prints
 * "copies=4 unfinished=3": the copies made, and those running or waiting
 * to run when the call after them began (with the bandwidth the test
 * sets). Exits 1 if any call failed.
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

static int upload(void *device, const void *host, cudaStream_t stream, const char *what)
{
	return check(cudaMemcpyAsync(device, host, BYTES, cudaMemcpyHostToDevice, stream), what);
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
	failed |= upload(device, host, stream, "the first cudaMemcpyAsync");
	failed |= upload(device, host, stream, "the second cudaMemcpyAsync");
	failed |= check(cudaProfilerStop(), "cudaProfilerStop");
	failed |= check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	failed |= check(cudaProfilerStart(), "cudaProfilerStart");
	failed |= upload(device, host, stream, "the third cudaMemcpyAsync");
	failed |= check(cudaDeviceReset(), "cudaDeviceReset");
	printf("copies=4 unfinished=3\n");
	return failed;
}
