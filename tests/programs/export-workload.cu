/* SPDX-License-Identifier: MIT */
/*
 * export-workload.cu - the workload of the export tests
 * (tests/analyzers/export-perfetto.sh): kernels on two streams, copies of
 * each direction (HtoD, DtoH, DtoD; synchronous ones too, whose GPU work
 * starts before they return; small ones of several sizes in turn),
 * memsets, NVTX push/pop ranges, an allocation
 * from the stream-ordered pool and one allocation that fails, all on
 * device 0.
 *
 * Prints TAP, "# fact pid=N" and, for what the simulator's ledger does not
 * record, one "# nvtx NAME N" line per NVTX range name pushed N times.
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "tap.h"

#define BYTES  ((size_t)1 << 20)
#define ROUNDS 3

extern "C" __global__ void export_scale(float *v, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		v[i] *= 2.0f;
}

extern "C" __global__ void export_shift(float *v, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		v[i] += 1.0f;
}

static bool rt_ok(cudaError_t r, const char *what)
{
	return tap_ok(r == cudaSuccess, "%s (%s)", what, cudaGetErrorName(r));
}

/* One round: upload and scale on S1; clear, copy and shift on S2; download on S1. */
static void round_of_work(cudaStream_t s1, cudaStream_t s2, float *host, float *d_a, float *d_b)
{
	size_t n = BYTES / sizeof(float);

	nvtxRangePushA("round");
	rt_ok(cudaMemcpyAsync(d_a, host, BYTES, cudaMemcpyHostToDevice, s1), "HtoD on s1");
	export_scale<<<(unsigned)(n / 256), 256, 0, s1>>>(d_a, n);
	rt_ok(cudaGetLastError(), "export_scale on s1");
	rt_ok(cudaMemsetAsync(d_b, 0, BYTES, s2), "memset on s2");
	rt_ok(cudaStreamSynchronize(s1), "s1 synchronised");
	rt_ok(cudaMemcpyAsync(d_b, d_a, BYTES, cudaMemcpyDeviceToDevice, s2), "DtoD on s2");
	export_shift<<<(unsigned)(n / 256), 256, 0, s2>>>(d_b, n);
	rt_ok(cudaGetLastError(), "export_shift on s2");
	rt_ok(cudaStreamSynchronize(s2), "s2 synchronised");
	rt_ok(cudaMemcpyAsync(host, d_b, BYTES, cudaMemcpyDeviceToHost, s1), "DtoH on s1");
	rt_ok(cudaStreamSynchronize(s1), "s1 synchronised");
	nvtxRangePop();
}

int main(void)
{
	float *host = NULL, *d_a = NULL, *d_b = NULL;
	void *impossible = NULL;
	cudaStream_t s1 = NULL, s2 = NULL;

	printf("# fact pid=%d\n", (int)getpid());
	nvtxRangePushA("setup");
	if (!rt_ok(cudaMallocHost((void **)&host, BYTES), "cudaMallocHost") ||
	    !rt_ok(cudaMalloc((void **)&d_a, BYTES), "cudaMalloc(d_a)") ||
	    !rt_ok(cudaMalloc((void **)&d_b, BYTES), "cudaMalloc(d_b)") ||
	    !rt_ok(cudaStreamCreate(&s1), "cudaStreamCreate(s1)") ||
	    !rt_ok(cudaStreamCreate(&s2), "cudaStreamCreate(s2)")) {
		printf("Bail out! no device\n");
		return 1;
	}
	nvtxRangePop();
	for (size_t i = 0; i < BYTES / sizeof(float); i++)
		host[i] = (float)i;
	nvtxRangePushA("work");
	for (int r = 0; r < ROUNDS; r++)
		round_of_work(s1, s2, host, d_a, d_b);
	nvtxRangePop();
	/* from the device's default memory pool, which CUPTI reports */
	void *pooled = NULL;
	if (rt_ok(cudaMallocAsync(&pooled, BYTES, s1), "cudaMallocAsync on s1"))
		rt_ok(cudaFreeAsync(pooled, s1), "cudaFreeAsync on s1");
	rt_ok(cudaStreamSynchronize(s1), "s1 synchronised");
	/* more than any device has: fails with cudaErrorMemoryAllocation */
	tap_ok(cudaMalloc(&impossible, (size_t)1 << 50) == cudaErrorMemoryAllocation,
	       "cudaMalloc(1 PiB) fails");
	cudaGetLastError();
	rt_ok(cudaMemset(d_a, 1, BYTES), "cudaMemset on the default stream");
	/* synchronous: their GPU work starts, and ends, before they return */
	rt_ok(cudaMemcpy(d_b, host, BYTES, cudaMemcpyHostToDevice), "cudaMemcpy HtoD");
	rt_ok(cudaMemcpy(host, d_a, BYTES, cudaMemcpyDeviceToHost), "cudaMemcpy DtoH");
	/* batches of varying length, as a loop over slices of a buffer copies
	 * them: each way and cleared, sizes in turn, so that every slice is
	 * named by its own size and direction, never a neighbour's */
	for (int r = 0; r < 2; r++) {
		for (size_t bytes = 64; bytes <= 160; bytes += 32) {
			rt_ok(cudaMemcpy(d_b, host, bytes, cudaMemcpyHostToDevice),
			      "cudaMemcpy HtoD of a batch");
			rt_ok(cudaMemset(d_b, 0, bytes), "cudaMemset of a batch");
			rt_ok(cudaMemcpy(host, d_a, bytes, cudaMemcpyDeviceToHost),
			      "cudaMemcpy DtoH of a batch");
		}
	}
	rt_ok(cudaStreamDestroy(s1), "cudaStreamDestroy(s1)");
	rt_ok(cudaStreamDestroy(s2), "cudaStreamDestroy(s2)");
	rt_ok(cudaFree(d_b), "cudaFree(d_b)");
	rt_ok(cudaFree(d_a), "cudaFree(d_a)");
	rt_ok(cudaFreeHost(host), "cudaFreeHost");
	printf("# nvtx setup 1\n# nvtx work 1\n# nvtx round %d\n", ROUNDS);
	return tap_done();
}
