/* SPDX-License-Identifier: MIT */
/*
 * call-loop.cu - a copy- and launch-heavy workload for the benchmark: N
 * rounds of a small asynchronous upload from pinned memory and a kernel
 * launch on one stream, the pattern of a training loop feeding small
 * batches. Times the loop that issues the calls (not the final wait for
 * the GPU) and prints
 *
 *   calls=N ns=TOTAL ns_per_call=X
 *
 *   call-loop [ROUNDS]    default 20000 (two calls a round)
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime_api.h>

__global__ void consume(const int *batch, int *sum)
{
	if (threadIdx.x == 0)
		atomicAdd(sum, batch[0]);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void check(cudaError_t result, const char *what)
{
	if (result == cudaSuccess)
		return;
	fprintf(stderr, "call-loop: %s failed: %s\n", what, cudaGetErrorName(result));
	exit(1);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	cudaStream_t stream;
	int *host;
	int *batch;
	int *sum;
	unsigned long long start;
	unsigned long long elapsed;

	if (rounds <= 0) {
		fprintf(stderr, "usage: call-loop [ROUNDS]\n");
		return 2;
	}
	check(cudaStreamCreate(&stream), "cudaStreamCreate");
	check(cudaMallocHost(&host, 256), "cudaMallocHost");
	check(cudaMalloc(&batch, 256), "cudaMalloc");
	check(cudaMalloc(&sum, sizeof(int)), "cudaMalloc");
	/* One round before timing: first-call costs are not per-call costs. */
	check(cudaMemcpyAsync(batch, host, 256, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
	check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

	start = now_ns();
	for (long i = 0; i < rounds; i++) {
		cudaMemcpyAsync(batch, host, 256, cudaMemcpyHostToDevice, stream);
		consume<<<1, 32, 0, stream>>>(batch, sum);
	}
	elapsed = now_ns() - start;
	check(cudaGetLastError(), "the loop");
	check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	printf("calls=%ld ns=%llu ns_per_call=%.1f\n", 2 * rounds, elapsed,
	       (double)elapsed / (double)(2 * rounds));

	check(cudaFree(sum), "cudaFree");
	check(cudaFree(batch), "cudaFree");
	check(cudaFreeHost(host), "cudaFreeHost");
	check(cudaStreamDestroy(stream), "cudaStreamDestroy");
	return 0;
}
