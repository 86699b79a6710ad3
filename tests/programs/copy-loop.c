/* SPDX-License-Identifier: MIT */
/*
 * copy-loop.c - a fixed number of small copies, for tests that measure
 * what each traced call costs in trace bytes (tests/cli/record-size.sh):
 *
 *   copy-loop N
 *
 * allocates a pinned host buffer and a device buffer of 64 bytes, makes N
 * cudaMemcpyAsync uploads on a stream of its own, synchronizes and frees
 * everything. The setup and teardown are the same whatever N, so the
 * difference between two runs is N2 - N1 copies exactly. Prints
 * "copies=N pid=PID": the number of copies the runtime accepted, and its
 * process id; exits 1 if any call failed.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rt-check.h"

#define COPY_BYTES 64

/* rt_check, naming this program. */
static int check(cudaError_t status, const char *what)
{
	return rt_check("copy-loop", status, what);
}

int main(int argc, char **argv)
{
	void *host = NULL, *device = NULL;
	cudaStream_t stream = NULL;
	unsigned long n, copies = 0;
	char *end;
	int failed = 0;

	if (argc != 2 || (n = strtoul(argv[1], &end, 10), *end || !*argv[1])) {
		fprintf(stderr, "usage: copy-loop N\n");
		return 2;
	}
	if (check(cudaMallocHost(&host, COPY_BYTES), "cudaMallocHost") ||
	    check(cudaMalloc(&device, COPY_BYTES), "cudaMalloc") ||
	    check(cudaStreamCreate(&stream), "cudaStreamCreate"))
		return 1;
	for (unsigned long i = 0; i < n; i++) {
		if (check(cudaMemcpyAsync(device, host, COPY_BYTES, cudaMemcpyHostToDevice, stream),
		          "cudaMemcpyAsync"))
			failed = 1;
		else
			copies++;
	}
	failed |= check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	failed |= check(cudaStreamDestroy(stream), "cudaStreamDestroy");
	failed |= check(cudaFree(device), "cudaFree");
	failed |= check(cudaFreeHost(host), "cudaFreeHost");
	printf("copies=%lu pid=%ld\n", copies, (long)getpid());
	return failed;
}
