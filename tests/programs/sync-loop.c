/* SPDX-License-Identifier: MIT */
/*
 * sync-loop.c - a loop that waits for its work each round, as a training
 * step that reads its loss back does, for tests of the records of
 * synchronisations and memsets (tests/trace/sync-records.sh):
 *
 *   sync-loop N
 *
 * on a stream of its own, N rounds of a 256-byte cudaMemsetAsync then
 * cudaStreamSynchronize; then one cudaEventRecord and
 * cudaEventSynchronize, and one cudaDeviceSynchronize. Prints
 * "rounds=N syncs=S": the rounds whose calls all succeeded, and the
 * synchronising calls made; exits 1 if any call failed.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt-check.h"

#define MEMSET_BYTES 256

/* rt_check, naming this program. */
static int check(cudaError_t status, const char *what)
{
	return rt_check("sync-loop", status, what);
}

int main(int argc, char **argv)
{
	void *device = NULL;
	cudaStream_t stream = NULL;
	cudaEvent_t event = NULL;
	unsigned long n, rounds = 0, syncs = 0;
	char *end;
	int failed = 0;

	if (argc != 2 || (n = strtoul(argv[1], &end, 10), *end || !*argv[1])) {
		fprintf(stderr, "usage: sync-loop N\n");
		return 2;
	}
	if (check(cudaMalloc(&device, MEMSET_BYTES), "cudaMalloc") ||
	    check(cudaStreamCreate(&stream), "cudaStreamCreate") ||
	    check(cudaEventCreate(&event), "cudaEventCreate"))
		return 1;
	for (unsigned long i = 0; i < n; i++) {
		int bad = check(cudaMemsetAsync(device, (int)(i & 0xff), MEMSET_BYTES, stream),
		                "cudaMemsetAsync");

		bad |= check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
		syncs++;
		failed |= bad;
		rounds += !bad;
	}
	failed |= check(cudaEventRecord(event, stream), "cudaEventRecord");
	failed |= check(cudaEventSynchronize(event), "cudaEventSynchronize");
	failed |= check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	syncs += 2;
	failed |= check(cudaEventDestroy(event), "cudaEventDestroy");
	failed |= check(cudaStreamDestroy(stream), "cudaStreamDestroy");
	failed |= check(cudaFree(device), "cudaFree");
	printf("rounds=%lu syncs=%lu\n", rounds, syncs);
	return failed;
}
