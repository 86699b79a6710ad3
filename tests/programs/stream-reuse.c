/* SPDX-License-Identifier: MIT */
/*
 * stream-reuse.c - streams destroyed and created again, each used for a
 * copy, for tests/trace/stream-reuse.sh: a stream handle that CUDA gives
 * out again belongs to a new stream with an id of its own, which the
 * tracer must not take from what it remembered of the old one.
 *
 *   stream-reuse N
 *
 * N times: cudaStreamCreate, one cudaMemcpyAsync upload of 64 bytes on it
 * from pinned memory, cudaStreamSynchronize, cudaStreamDestroy. Prints
 * "stream I HANDLE" for each, then "reused=R": how many handles had been
 * given out before. Exits 1 if any call failed.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt-check.h"

#define COPY_BYTES  64
#define MAX_STREAMS 64

/* rt_check, naming this program. */
static int check(cudaError_t status, const char *what)
{
	return rt_check("stream-reuse", status, what);
}

/* Whether handle was given out before, among the first count of seen. */
static int seen_before(cudaStream_t *seen, int count, cudaStream_t handle)
{
	for (int i = 0; i < count; i++) {
		if (seen[i] == handle)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	cudaStream_t seen[MAX_STREAMS];
	void *host = NULL, *device = NULL;
	int n, reused = 0, failed = 0;

	if (argc != 2 || (n = atoi(argv[1])) < 1 || n > MAX_STREAMS) {
		fprintf(stderr, "usage: stream-reuse N (1 to %d)\n", MAX_STREAMS);
		return 2;
	}
	if (check(cudaMallocHost(&host, COPY_BYTES), "cudaMallocHost") ||
	    check(cudaMalloc(&device, COPY_BYTES), "cudaMalloc"))
		return 1;
	for (int i = 0; i < n; i++) {
		cudaStream_t stream;

		if (check(cudaStreamCreate(&stream), "cudaStreamCreate"))
			return 1;
		reused += seen_before(seen, i, stream);
		seen[i] = stream;
		printf("stream %d %p\n", i, (void *)stream);
		failed |=
		    check(cudaMemcpyAsync(device, host, COPY_BYTES, cudaMemcpyHostToDevice, stream),
		          "cudaMemcpyAsync");
		failed |= check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
		failed |= check(cudaStreamDestroy(stream), "cudaStreamDestroy");
	}
	failed |= check(cudaFree(device), "cudaFree");
	failed |= check(cudaFreeHost(host), "cudaFreeHost");
	printf("reused=%d\n", reused);
	return failed;
}
