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
 *   slices  copy's calls on successive slices of a host buffer, of 64 to
 *           160 bytes;
 *   launch  two kernel launches, nothing else;
 *   alloc   cudaMalloc of 4 KiB then its cudaFree: code that allocates in
 *           its loop instead of keeping a pool;
 *   event   cudaEventRecord then cudaEventQuery: a loop that polls for
 *           its work's end, as frameworks do before reusing a buffer;
 *   memset  cudaMemsetAsync of 256 bytes then cudaStreamSynchronize;
 *   query   cudaGetDevice then cudaGetLastError: calls that do no work,
 *           which frameworks make around every operation.
 *
 * Times the loop that issues the calls (not the final wait for the GPU)
 * and prints
 *
 *   calls=N ns=TOTAL ns_per_call=X
 *
 *   call-loop [ROUNDS [async|copy|slices|launch|alloc|event|memset|query]]
 *
 * default 20000 rounds, async.
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

/* Successive slices of a 1 MiB host buffer, 256 bytes apart, of 64 to
 * 160 bytes (batches of varying length), uploaded and read back: no two
 * rounds in a row copy the same addresses or size. */
static void slices_round(cudaStream_t stream, int *host, int *batch, int *sum)
{
	static char slices[1 << 20];
	static unsigned next;
	unsigned i = next++;
	char *slice = slices + (i % (sizeof(slices) / 256)) * 256;
	size_t bytes = 64 + (i % 4) * 32;

	(void)stream;
	(void)host;
	(void)sum;
	cudaMemcpy(batch, slice, bytes, cudaMemcpyHostToDevice);
	cudaMemcpy(slice, batch, bytes, cudaMemcpyDeviceToHost);
}

static void alloc_round(cudaStream_t stream, int *host, int *batch, int *sum)
{
	void *p = NULL;

	(void)stream;
	(void)host;
	(void)batch;
	(void)sum;
	cudaMalloc(&p, 4096);
	cudaFree(p);
}

static cudaEvent_t loop_event;

static void event_round(cudaStream_t stream, int *host, int *batch, int *sum)
{
	(void)host;
	(void)batch;
	(void)sum;
	cudaEventRecord(loop_event, stream);
	cudaEventQuery(loop_event);
}

static void memset_round(cudaStream_t stream, int *host, int *batch, int *sum)
{
	(void)host;
	(void)sum;
	cudaMemsetAsync(batch, 0, 256, stream);
	cudaStreamSynchronize(stream);
}

static void query_round(cudaStream_t stream, int *host, int *batch, int *sum)
{
	int device;

	(void)stream;
	(void)host;
	(void)batch;
	(void)sum;
	cudaGetDevice(&device);
	cudaGetLastError();
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
	if (strcmp(mode, "slices") == 0)
		return slices_round;
	if (strcmp(mode, "alloc") == 0)
		return alloc_round;
	if (strcmp(mode, "event") == 0)
		return event_round;
	if (strcmp(mode, "memset") == 0)
		return memset_round;
	if (strcmp(mode, "query") == 0)
		return query_round;
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
		fprintf(stderr, "usage: call-loop [ROUNDS "
		                "[async|copy|slices|launch|alloc|event|memset|query]]\n");
		return 2;
	}
	check(cudaStreamCreate(&stream), "cudaStreamCreate");
	check(cudaMallocHost(&host, 256), "cudaMallocHost");
	check(cudaMalloc(&batch, 256), "cudaMalloc");
	check(cudaMalloc(&sum, sizeof(int)), "cudaMalloc");
	check(cudaEventCreateWithFlags(&loop_event, cudaEventDisableTiming), "cudaEventCreate");
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

	check(cudaEventDestroy(loop_event), "cudaEventDestroy");
	check(cudaFree(sum), "cudaFree");
	check(cudaFree(batch), "cudaFree");
	check(cudaFreeHost(host), "cudaFreeHost");
	check(cudaStreamDestroy(stream), "cudaStreamDestroy");
	return 0;
}
