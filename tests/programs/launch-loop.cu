/* SPDX-License-Identifier: MIT */
/*
 * launch-loop.cu - a fixed number of <<<>>> launches of one kernel, for
 * tests that measure what each traced launch costs in trace bytes
 * (tests/cli/record-size.sh):
 *
 *   launch-loop N [PAUSE_US]
 *
 * launches an empty kernel N times with one configuration on a stream of
 * its own (PAUSE_US microseconds apart, default 0, each launch waited
 * for when there is a pause), synchronizes and destroys the stream. The setup and teardown
 * are the same whatever N, so the difference between two runs is N2 - N1
 * launches exactly. Prints "launches=N pid=PID": the launches the runtime
 * accepted, and its process id; exits 1 if any call failed.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__global__ void nothing(int *unused)
{
	(void)unused;
}

static int check(cudaError_t status, const char *what)
{
	if (status == cudaSuccess)
		return 0;
	fprintf(stderr, "launch-loop: %s: %s\n", what, cudaGetErrorString(status));
	return 1;
}

int main(int argc, char **argv)
{
	cudaStream_t stream = NULL;
	unsigned long n, pause_us = 0, launches = 0;
	char *end;
	int failed = 0;

	if (argc < 2 || argc > 3 || (n = strtoul(argv[1], &end, 10), *end || !*argv[1]) ||
	    (argc == 3 && (pause_us = strtoul(argv[2], &end, 10), *end || !*argv[2]))) {
		fprintf(stderr, "usage: launch-loop N [PAUSE_US]\n");
		return 2;
	}
	if (check(cudaStreamCreate(&stream), "cudaStreamCreate"))
		return 1;
	for (unsigned long i = 0; i < n; i++) {
		nothing<<<64, 256, 0, stream>>>(NULL);
		if (check(cudaGetLastError(), "nothing<<<64, 256>>>"))
			failed = 1;
		else
			launches++;
		if (pause_us) {
			failed |= check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
			usleep((useconds_t)pause_us);
		}
	}
	failed |= check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	failed |= check(cudaStreamDestroy(stream), "cudaStreamDestroy");
	printf("launches=%lu pid=%ld\n", launches, (long)getpid());
	return failed;
}
