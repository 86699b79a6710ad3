/* SPDX-License-Identifier: MIT */
/*
 * threads.cu - several host threads using the device at once, each with a
 * stream of its own: allocate, upload from pinned memory, launch, download,
 * free, over and over. Each thread counts what it did; the totals are
 * printed once every thread has joined, so the output does not depend on
 * the interleaving.
 *
 *   threads [THREADS [ITERATIONS]]    default 4 threads, 50 iterations
 */
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <cuda_runtime_api.h>
#include "example-check.h"

__global__ void increment(int *data, int count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < count)
		data[i]++;
}

struct worker {
	int index;
	int iterations;
	long allocations;
	long copies;
	long launches;
	long bytes;
};

static void *work(void *arg)
{
	struct worker *w = (struct worker *)arg;
	cudaStream_t stream;
	int *host;
	int *device;

	CHECK(cudaSetDevice(0));
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CHECK(cudaMallocHost(&host, 64 << 10));
	for (int i = 0; i < w->iterations; i++) {
		/* Sizes differ from thread to thread and from step to step. */
		size_t bytes = (size_t)(1 + (w->index * 7 + i) % 16) << 12;
		int count = (int)(bytes / sizeof(int));

		CHECK(cudaMalloc(&device, bytes));
		w->allocations++;
		CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
		increment<<<(count + 127) / 128, 128, 0, stream>>>(device, count);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream));
		CHECK(cudaStreamSynchronize(stream));
		CHECK(cudaFree(device));
		w->copies += 2;
		w->launches++;
		w->bytes += 2 * (long)bytes;
	}
	CHECK(cudaFreeHost(host));
	CHECK(cudaStreamDestroy(stream));
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	int iterations = argc > 2 ? atoi(argv[2]) : 50;
	struct worker *workers;
	pthread_t *ids;

	if (threads < 1 || iterations < 0) {
		fprintf(stderr, "usage: threads [THREADS [ITERATIONS]]\n");
		return 2;
	}
	workers = (struct worker *)calloc(threads, sizeof(*workers));
	ids = (pthread_t *)calloc(threads, sizeof(*ids));
	if (!workers || !ids) {
		perror("calloc");
		return 1;
	}
	/* Initialise the runtime before the threads race to do it. */
	CHECK(cudaFree(0));
	for (int t = 0; t < threads; t++) {
		workers[t].index = t;
		workers[t].iterations = iterations;
		if (pthread_create(&ids[t], NULL, work, &workers[t]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(ids[t], NULL);
		printf("thread %d: %ld allocations, %ld copies (%ld bytes), %ld launches\n", t,
		       workers[t].allocations, workers[t].copies, workers[t].bytes,
		       workers[t].launches);
	}
	free(ids);
	free(workers);
	printf("done\n");
	return 0;
}
