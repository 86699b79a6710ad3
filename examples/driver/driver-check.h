/* SPDX-License-Identifier: MIT */
/*
 * driver-check.h - error checking for the driver-API examples: a failed
 * call prints what failed, where, and the driver's name for the error,
 * then ends the program with status 1.
 */
#ifndef CUDATRACE_DRIVER_CHECK_H
#define CUDATRACE_DRIVER_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda.h>

static inline void driver_check(CUresult result, const char *call, const char *file, int line)
{
	const char *name = NULL;

	if (result == CUDA_SUCCESS)
		return;
	if (cuGetErrorName(result, &name) != CUDA_SUCCESS)
		name = "unknown error";
	fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, name, (int)result);
	exit(1);
}

#define CHECK(call) driver_check((call), #call, __FILE__, __LINE__)

#endif /* CUDATRACE_DRIVER_CHECK_H */
