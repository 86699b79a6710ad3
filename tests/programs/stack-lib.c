/* SPDX-License-Identifier: MIT */
/* stack-lib.c - libstack-lib.so: an allocation made inside a shared library. */
#include <cuda_runtime_api.h>

#include "stack-lib.h"

int lib_leak(unsigned *line)
{
	void *p;

	*line = __LINE__ + 1;
	return cudaMalloc(&p, STACK_LIB_SIZE) == cudaSuccess ? 0 : 1;
}
