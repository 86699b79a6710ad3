/* SPDX-License-Identifier: MIT */
/*
 * rt-check.h - a runtime API result checked, for the small test programs
 * that say on stderr which call failed and exit 1. Header-only.
 */
#ifndef CUDATRACE_TESTS_RT_CHECK_H
#define CUDATRACE_TESTS_RT_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>

/* 0 when status is cudaSuccess; otherwise 1, and "PROGRAM: WHAT: ERROR"
 * on stderr. */
static inline int rt_check(const char *program, cudaError_t status, const char *what)
{
	if (status == cudaSuccess)
		return 0;
	fprintf(stderr, "%s: %s: %s\n", program, what, cudaGetErrorName(status));
	return 1;
}

#endif
