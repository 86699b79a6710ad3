/* SPDX-License-Identifier: MIT */
/*
 * memory-workload.c - the memory situations `cudatrace report` must
 * explain, as a program makes them through the runtime API (run on the
 * simulated GPU; tests/analyzers/report-workloads.sh sizes the device):
 *
 *   fragment   fill the device with 64 MiB buffers, free every other one,
 *              ask 128 MiB: enough is free, no hole is large enough
 *   exhaust    fill the device with 64 MiB buffers until one fails
 *   elsewhere  hold 256 MiB and ask 1 GiB while other processes hold
 *              most of the device (CUDASIM_OTHER_PROCESSES)
 *   pooled     allocate and free 4 x 128 MiB from the device's default
 *              pool, which keeps them (release threshold UINT64_MAX), then
 *              ask cudaMalloc for 512 MiB: only the pool has room
 *   leak [N]   N steps (default 4) in NVTX ranges train/step, each
 *              freeing its activations but keeping 1 MiB
 *   pause N    the leak steps, then "paused after step N" and wait to be
 *              killed (SIGKILL test)
 *
 * Every failed allocation prints "failed SIZE"; the run exits 0 when the
 * situation was made as intended.
 */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB        ((size_t)1 << 20)
#define BLOCK      (64 * MIB)
#define MAX_BLOCKS 4096

static void *blocks[MAX_BLOCKS];

/* Allocates BLOCK-sized buffers until one fails; returns how many were made. */
static int fill(void)
{
	int n = 0;

	while (n < MAX_BLOCKS && cudaMalloc(&blocks[n], BLOCK) == cudaSuccess)
		n++;
	(void)cudaGetLastError();
	printf("failed %zu\n", BLOCK);
	return n;
}

static int fragment(void)
{
	int n = fill();
	void *big = NULL;

	for (int i = 1; i < n; i += 2)
		cudaFree(blocks[i]);
	if (cudaMalloc(&big, 2 * BLOCK) == cudaSuccess) {
		fprintf(stderr, "memory-workload: the 128 MiB request should have failed\n");
		return 1;
	}
	printf("failed %zu\n", 2 * BLOCK);
	return n >= 4 ? 0 : 1;
}

static int exhaust(void)
{
	return fill() >= 1 ? 0 : 1;
}

static int elsewhere(void)
{
	void *held = NULL, *big = NULL;

	if (cudaMalloc(&held, 256 * MIB) != cudaSuccess)
		return 1;
	if (cudaMalloc(&big, 1024 * MIB) == cudaSuccess) {
		fprintf(stderr, "memory-workload: the 1 GiB request should have failed\n");
		return 1;
	}
	printf("failed %zu\n", 1024 * MIB);
	return cudaFree(held) == cudaSuccess ? 0 : 1;
}

static int pooled(void)
{
	cudaMemPool_t pool;
	uint64_t keep_all = UINT64_MAX;
	void *held[4], *big = NULL;

	if (cudaDeviceGetDefaultMemPool(&pool, 0) != cudaSuccess ||
	    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all) !=
	        cudaSuccess)
		return 1;
	for (int i = 0; i < 4; i++)
		if (cudaMallocAsync(&held[i], 128 * MIB, 0) != cudaSuccess)
			return 1;
	for (int i = 0; i < 4; i++)
		cudaFreeAsync(held[i], 0);
	if (cudaStreamSynchronize(0) != cudaSuccess)
		return 1;
	if (cudaMalloc(&big, 512 * MIB) == cudaSuccess) {
		fprintf(stderr, "memory-workload: the 512 MiB request should have failed\n");
		return 1;
	}
	printf("failed %zu\n", 512 * MIB);
	return 0;
}

static int leak(int steps, int pause_at)
{
	void *batch = NULL;

	if (cudaMalloc(&batch, MIB / 2) != cudaSuccess)
		return 1;
	nvtxRangePushA("train");
	for (int step = 1; step <= steps; step++) {
		void *activations = NULL, *kept = NULL;

		nvtxRangePushA("step");
		if (cudaMalloc(&activations, 2 * MIB) != cudaSuccess ||
		    cudaMalloc(&kept, MIB) != cudaSuccess || cudaFree(activations) != cudaSuccess)
			return 1;
		nvtxRangePop();
		printf("step %d kept %p\n", step, kept);
		fflush(stdout);
		if (step == pause_at) {
			printf("paused after step %d\n", step);
			fflush(stdout);
			for (;;)
				pause();
		}
	}
	nvtxRangePop();
	return cudaFree(batch) == cudaSuccess ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 4;
	int ret;

	if (!strcmp(mode, "fragment"))
		ret = fragment();
	else if (!strcmp(mode, "exhaust"))
		ret = exhaust();
	else if (!strcmp(mode, "elsewhere"))
		ret = elsewhere();
	else if (!strcmp(mode, "pooled"))
		ret = pooled();
	else if (!strcmp(mode, "leak"))
		ret = leak(n, -1);
	else if (!strcmp(mode, "pause"))
		ret = leak(n + 10, n);
	else {
		fprintf(stderr,
		        "usage: memory-workload fragment|exhaust|elsewhere|pooled|leak [N]|pause "
		        "N\n");
		return 2;
	}
	cudaDeviceSynchronize();
	printf("done\n");
	return ret;
}
