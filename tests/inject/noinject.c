/* SPDX-License-Identifier: MIT */
/*
 * noinject.c - a shared library without InitializeInjection, for
 * tests/sim/injection.sh: named by CUDA_INJECTION64_PATH, the driver loads
 * it, finds no entry point, and the program must run as if it were unset.
 */

#define EXPORT __attribute__((visibility("default")))

EXPORT int NotTheInjectionEntryPoint(void);

int NotTheInjectionEntryPoint(void)
{
	return 1;
}
