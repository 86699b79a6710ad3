/* SPDX-License-Identifier: MIT */
/*
 * call-loop.cu - copy- and launch-heavy workloads for the benchmark, two
 * calls a round, on one stream:
 *
 *   async   (the default) a small asynchronous upload from pinned memory
 *           and a kernel launch, the pattern of a training loop feeding
 *           small batches;
 *   copy    a synchronous 4-byte cudaMemcpy host-to-device, then one
 *           device-to-host, from pageable memory: a loop that reads back a
 *           flag or a loss;
 *   launch  two kernel launches, nothing else.
 *
 * Times the loop that issues the calls (not the final wait for the GPU)
 * and prints
 *
 *   calls=N ns=TOTAL ns_per_call=X
 *
 *   call-loop [ROUNDS [async|copy|launch]]    default 20000 rounds, async
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

/* The loops; each round makes two calls. */
static void async_round(cudaStream_t stream, int *host, int *batch, int *sum)
{
	cudaMemcpyAsync(batch, host, 256, cudaMemcpyHostToDevice, stream);
	consume<<<1, 32, 0, stream>>>(batch, sum);
}

static void copy_round(cudaStream_t stream, int *host, int *batch, int *sum)
{
	static int flag;

	(void)stream;
	(void)host;
	(void)sum;
	cudaMemcpy(batch, &flag, sizeof(flag), cudaMemcpyHostToDevice);
	cudaMemcpy(&flag, batch, sizeof(flag), cudaMemcpyDeviceToHost);
}

static void launch_round(cudaStream_t stream, int *host, int *batch, int *sum)
{
	(void)host;
	consume<<<1, 32, 0, stream>>>(batch, sum);
	consume<<<1, 32, 0, stream>>>(batch, sum);
}

typedef void round_fn(cudaStream_t stream, int *host, int *batch, int *sum);

/* The loop MODE names, or NULL. */
static round_fn *loop_named(const char *mode)
{
	if (strcmp(mode, "async") == 0)
		return async_round;
	if (strcmp(mode, "copy") == 0)
		return copy_round;
	if (strcmp(mode, "launch") == 0)
		return launch_round;
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	round_fn *round = loop_named(argc > 2 ? argv[2] : "async");
	cudaStream_t stream;
	int *host;
	int *batch;
	int *sum;
	unsigned long long start;
	unsigned long long elapsed;

	if (rounds <= 0 || !round || argc > 3) {
		fprintf(stderr, "usage: call-loop [ROUNDS [async|copy|launch]]\n");
		return 2;
	}
	check(cudaStreamCreate(&stream), "cudaStreamCreate");
	check(cudaMallocHost(&host, 256), "cudaMallocHost");
	check(cudaMalloc(&batch, 256), "cudaMalloc");
	check(cudaMalloc(&sum, sizeof(int)), "cudaMalloc");
	/* One round before timing: first-call costs are not per-call costs. */
	round(stream, host, batch, sum);
	check(cudaGetLastError(), "the first round");
	check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

	start = now_ns();
	for (long i = 0; i < rounds; i++)
		round(stream, host, batch, sum);
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
