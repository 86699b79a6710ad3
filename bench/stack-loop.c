/* SPDX-License-Identifier: MIT */
/*
 * stack-loop - cudaMalloc and cudaFree from DEPTH frames of the program's
 * own code, ROUNDS times, for the cost of the call stacks the tracer takes
 * (bench/stack-bench.sh). Built -O2 -fomit-frame-pointer, as programs are.
 *
 *   stack-loop ROUNDS DEPTH
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

/* DEPTH more frames, then the allocation and its free; noinline and the
 * volatile sum keep each frame a real one. */
__attribute__((noinline)) static int nest(int depth)
{
	volatile int keep = depth;
	void *p;
	int status;

	if (depth > 0)
		return nest(depth - 1) + keep - depth;
	if (cudaMalloc(&p, 1u << 20) != cudaSuccess)
		return 1;
	status = cudaFree(p) != cudaSuccess;
	return status + keep;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	int depth = argc > 2 ? atoi(argv[2]) : 0;

	for (int i = 0; i < rounds; i++)
		if (nest(depth)) {
			fprintf(stderr, "stack-loop: allocation failed\n");
			return 1;
		}
	return 0;
}
