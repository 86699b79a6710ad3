/* SPDX-License-Identifier: MIT */
/*
 * rt12-workload.c - a runtime API program built against the CUDA 12
 * headers and linked against libcudart.so.12, as programs built with a
 * CUDA 12 toolkit are (built with a C compiler: a kernel comes from a PTX
 * library). It calls what the CUDA 12 runtime has that CUDA 13 changed:
 * cudaGetDeviceProperties (cudaGetDeviceProperties_v2 under the CUDA 12
 * headers) and its CUDA 12 members; cudaMemPrefetchAsync and cudaMemAdvise
 * with a device ordinal, and cudaMemPrefetchAsync_v2 with a location;
 * cudaEventElapsedTime and its _v2; cudaStreamGetCaptureInfo (its _v2) in
 * a stream capture. Around them, the usual work: device, pinned, managed
 * and stream-ordered allocations, copies both ways, synchronous and
 * asynchronous, memsets, a kernel launch, a graph launch, and one
 * allocation too large for the device. Prints each step; exits 1 if a call
 * that should succeed fails.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt-check.h"

#define BYTES (1 << 20)

/* A kernel in PTX, which the driver compiles when the library is loaded. */
static const char fill_ptx[] = ".version 8.0\n"
                               ".target sm_52\n"
                               ".address_size 64\n"
                               ".visible .entry fill(.param .u64 data, .param .u32 count)\n"
                               "{\n"
                               "\tret;\n"
                               "}\n";

/* rt_check, naming this program; counts the failures. */
static int failures;

static int check(cudaError_t status, const char *what)
{
	int failed = rt_check("rt12-workload", status, what);

	failures += failed;
	return failed;
}

static void device_properties(void)
{
	struct cudaDeviceProp prop;
	int driver = 0, runtime = 0;

	check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
	check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
	printf("driver %d, runtime %d\n", driver, runtime);
	if (check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties"))
		return;
	/* multiProcessorCount and warpSize are where CUDA 12's struct has them. */
	printf("device 0: %s, compute capability %d.%d, %zu bytes, %d SMs, warp %d\n", prop.name,
	       prop.major, prop.minor, prop.totalGlobalMem, prop.multiProcessorCount,
	       prop.warpSize);
}

static void copies(cudaStream_t stream)
{
	char *pageable = malloc(BYTES);
	void *pinned = NULL, *device = NULL;
	cudaEvent_t start, end;
	float ms = -1, ms2 = -1;

	if (!pageable)
		return;
	memset(pageable, 0x5a, BYTES);
	if (check(cudaMalloc(&device, BYTES), "cudaMalloc") ||
	    check(cudaMallocHost(&pinned, BYTES), "cudaMallocHost"))
		goto out;
	printf("cudaMalloc %d bytes, cudaMallocHost %d bytes\n", BYTES, BYTES);
	check(cudaMemset(device, 0, BYTES), "cudaMemset");
	check(cudaMemcpy(device, pageable, BYTES, cudaMemcpyHostToDevice), "cudaMemcpy HtoD");
	memset(pageable, 0, BYTES);
	check(cudaMemcpy(pageable, device, BYTES, cudaMemcpyDeviceToHost), "cudaMemcpy DtoH");
	printf("round trip of pageable memory: %s\n",
	       pageable[BYTES - 1] == 0x5a ? "same" : "DIFFERS");

	check(cudaEventCreate(&start), "cudaEventCreate");
	check(cudaEventCreate(&end), "cudaEventCreate");
	check(cudaEventRecord(start, stream), "cudaEventRecord");
	check(cudaMemcpyAsync(device, pinned, BYTES, cudaMemcpyHostToDevice, stream),
	      "cudaMemcpyAsync HtoD");
	check(cudaMemsetAsync(device, 1, BYTES / 2, stream), "cudaMemsetAsync");
	check(cudaMemcpyAsync(pinned, device, BYTES, cudaMemcpyDeviceToHost, stream),
	      "cudaMemcpyAsync DtoH");
	check(cudaEventRecord(end, stream), "cudaEventRecord");
	check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	check(cudaEventElapsedTime(&ms, start, end), "cudaEventElapsedTime");
	check(cudaEventElapsedTime_v2(&ms2, start, end), "cudaEventElapsedTime_v2");
	printf("async copies of pinned memory: elapsed time %s, the same by _v2: %s\n",
	       ms > 0 ? "positive" : "NOT POSITIVE", ms == ms2 ? "yes" : "NO");
	check(cudaEventDestroy(start), "cudaEventDestroy");
	check(cudaEventDestroy(end), "cudaEventDestroy");
out:
	if (pinned)
		check(cudaFreeHost(pinned), "cudaFreeHost");
	if (device)
		check(cudaFree(device), "cudaFree");
	free(pageable);
	printf("freed\n");
}

static void managed(cudaStream_t stream)
{
	struct cudaMemLocation on_device = { cudaMemLocationTypeDevice, 0 };
	char *data = NULL;

	if (check(cudaMallocManaged((void **)&data, BYTES, cudaMemAttachGlobal),
	          "cudaMallocManaged"))
		return;
	memset(data, 7, BYTES);
	printf("cudaMallocManaged %d bytes\n", BYTES);
	check(cudaMemAdvise(data, BYTES, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId),
	      "cudaMemAdvise(cudaCpuDeviceId)");
	check(cudaMemPrefetchAsync(data, BYTES, 0, stream), "cudaMemPrefetchAsync(device 0)");
	check(cudaMemPrefetchAsync(data, BYTES, cudaCpuDeviceId, stream),
	      "cudaMemPrefetchAsync(cudaCpuDeviceId)");
	check(cudaMemPrefetchAsync_v2(data, BYTES, on_device, 0, stream),
	      "cudaMemPrefetchAsync_v2(device 0)");
	check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	printf("advised and prefetched to the host and the device\n");
	check(cudaFree(data), "cudaFree(managed)");
}

static void stream_ordered(cudaStream_t stream)
{
	void *a = NULL, *b = NULL;

	if (check(cudaMallocAsync(&a, BYTES, stream), "cudaMallocAsync") ||
	    check(cudaMallocAsync(&b, 4 * BYTES, stream), "cudaMallocAsync"))
		return;
	check(cudaMemsetAsync(b, 0, 4 * BYTES, stream), "cudaMemsetAsync");
	check(cudaFreeAsync(a, stream), "cudaFreeAsync");
	check(cudaFreeAsync(b, stream), "cudaFreeAsync");
	check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	printf("stream-ordered: %d and %d bytes allocated and freed\n", BYTES, 4 * BYTES);
}

static void kernel(cudaStream_t stream)
{
	cudaLibrary_t library;
	cudaKernel_t fill;
	void *data = NULL;
	unsigned int count = BYTES / 4;
	void *args[2];

	if (check(cudaLibraryLoadData(&library, fill_ptx, NULL, NULL, 0, NULL, NULL, 0),
	          "cudaLibraryLoadData"))
		return;
	if (!check(cudaLibraryGetKernel(&fill, library, "fill"), "cudaLibraryGetKernel") &&
	    !check(cudaMalloc(&data, BYTES), "cudaMalloc")) {
		args[0] = &data;
		args[1] = &count;
		check(cudaLaunchKernel((const void *)fill, (dim3){ 256, 1, 1 },
		                       (dim3){ 1024, 1, 1 }, args, 0, stream),
		      "cudaLaunchKernel");
		check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
		printf("kernel fill launched, 256 x 1024\n");
		check(cudaFree(data), "cudaFree");
	}
	check(cudaLibraryUnload(library), "cudaLibraryUnload");
}

static void graph(cudaStream_t stream)
{
	enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
	unsigned long long id = 0;
	cudaGraph_t captured = NULL;
	cudaGraphExec_t exec = NULL;
	void *data = NULL;

	if (check(cudaMalloc(&data, BYTES), "cudaMalloc"))
		return;
	check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal),
	      "cudaStreamBeginCapture");
	check(cudaStreamGetCaptureInfo(stream, &status, &id, NULL, NULL, NULL),
	      "cudaStreamGetCaptureInfo");
	printf("capturing: %s\n",
	       status == cudaStreamCaptureStatusActive ? "active" : "NOT ACTIVE");
	check(cudaMemsetAsync(data, 3, BYTES, stream), "cudaMemsetAsync (captured)");
	if (!check(cudaStreamEndCapture(stream, &captured), "cudaStreamEndCapture") &&
	    !check(cudaGraphInstantiate(&exec, captured, 0), "cudaGraphInstantiate")) {
		check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
		check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
		printf("graph of one memset captured and launched\n");
		check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
	}
	if (captured)
		check(cudaGraphDestroy(captured), "cudaGraphDestroy");
	check(cudaFree(data), "cudaFree");
}

static void too_large(void)
{
	void *huge = NULL;
	cudaError_t status = cudaMalloc(&huge, (size_t)1 << 44);

	printf("cudaMalloc %zu bytes -> %s\n", (size_t)1 << 44, cudaGetErrorName(status));
	if (status != cudaErrorMemoryAllocation)
		failures++;
	/* The failure is not sticky: the last error is reset and work goes on. */
	cudaGetLastError();
}

int main(void)
{
	cudaStream_t stream;

	device_properties();
	if (check(cudaStreamCreate(&stream), "cudaStreamCreate"))
		return 1;
	copies(stream);
	managed(stream);
	stream_ordered(stream);
	kernel(stream);
	graph(stream);
	too_large();
	check(cudaStreamDestroy(stream), "cudaStreamDestroy");
	printf("%s\n", failures ? "FAILED" : "done");
	return failures ? 1 : 0;
}
