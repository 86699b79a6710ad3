/* SPDX-License-Identifier: MIT */
/*
 * stack-late.c - libstack-late.so: an allocation made inside a shared
 * library that stack-alloc loads with dlopen once CUDA is running, after
 * lttng-ust's statedump: its addresses are named from library_load.
 */
#include <cuda_runtime_api.h>

#include "stack-lib.h"

int late_leak(unsigned *line)
{
	cudaStream_t stream;
	void *p;

	/* a resource event: the tracer looks at the loaded objects again */
	if (cudaStreamCreate(&stream) != cudaSuccess || cudaStreamDestroy(stream) != cudaSuccess)
		return 1;
	*line = __LINE__ + 1;
	return cudaMalloc(&p, STACK_LATE_SIZE) == cudaSuccess ? 0 : 1;
}
