/* SPDX-License-Identifier: MIT */
/*
 * example-check.h - error checking for the runtime-API examples: a failed
 * call prints what failed, where, and the runtime's name for the error,
 * then ends the program with status 1.
 */
#ifndef CUDATRACE_EXAMPLE_CHECK_H
#define CUDATRACE_EXAMPLE_CHECK_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime_api.h>

static inline void example_check(cudaError_t result, const char *call, const char *file, int line)
{
	if (result == cudaSuccess)
		return;
	fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorName(result),
	        cudaGetErrorString(result));
	exit(1);
}

#define CHECK(call) example_check((call), #call, __FILE__, __LINE__)

#endif /* CUDATRACE_EXAMPLE_CHECK_H */
