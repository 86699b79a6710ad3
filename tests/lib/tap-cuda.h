/* SPDX-License-Identifier: MIT */
/*
 * tap-cuda.h - TAP test points for driver API results, for the test
 * programs that call the driver API directly (tap.h first). Header-only.
 */
#ifndef CUDATRACE_TESTS_TAP_CUDA_H
#define CUDATRACE_TESTS_TAP_CUDA_H

#include <cuda.h>

#include "tap.h"

/* ok when R is CUDA_SUCCESS; the point names the result. Returns whether it was. */
static inline int cu_ok(CUresult r, const char *what)
{
	const char *name = NULL;

	if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
		name = "an unknown error";
	return tap_ok(r == CUDA_SUCCESS, "%s (%s)", what, name);
}

/*
 * ok when R is WANT, an error of API's: the simulator's ledger then has
 * its op=error line, which the test expects (tap_expect).
 */
static inline int cu_fails(CUresult r, CUresult want, const char *api, const char *what)
{
	const char *name = NULL;

	cuGetErrorName(want, &name);
	if (r != CUDA_SUCCESS)
		tap_expect("op=error api=%s result=%s", api, name ? name : "?");
	return tap_ok(r == want, "%s returns %s (got %d)", what, name ? name : "?", (int)r);
}

#endif
