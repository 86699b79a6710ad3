/* SPDX-License-Identifier: MIT */
/*
 * zero-copy.c - copies and memsets of no bytes, for tests/trace/zero-copy.sh:
 * the runtime returns success and does nothing (no GPU work, no activity
 * record, no line in the simulator's ledger), so the trace must hold the
 * calls but no operation for them.
 *
 *   zero-copy
 *
 * cudaMalloc, then with 0 bytes: cudaMemcpy, cudaMemcpyAsync,
 * cudaMemcpy2D (no width), cudaMemset and cudaMemsetAsync; then one
 * 64-byte cudaMemcpy and one 64-byte cudaMemset, and cudaFree. Prints
 * "copies=1 memsets=1": the operations that moved bytes. Exits 1 if any
 * call failed.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "rt-check.h"

static int check(cudaError_t status, const char *what)
{
	return rt_check("zero-copy", status, what);
}

int main(void)
{
	static char host[256];
	void *device = NULL;
	int failed = 0;

	failed |= check(cudaMalloc(&device, sizeof(host)), "cudaMalloc");
	if (failed)
		return 1;
	failed |= check(cudaMemcpy(device, host, 0, cudaMemcpyHostToDevice), "cudaMemcpy of 0");
	failed |= check(cudaMemcpyAsync(device, host, 0, cudaMemcpyHostToDevice, NULL),
	                "cudaMemcpyAsync of 0");
	failed |= check(cudaMemcpy2D(device, 16, host, 16, 0, 4, cudaMemcpyHostToDevice),
	                "cudaMemcpy2D of no width");
	failed |= check(cudaMemset(device, 0, 0), "cudaMemset of 0");
	failed |= check(cudaMemsetAsync(device, 0, 0, NULL), "cudaMemsetAsync of 0");
	failed |= check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	failed |= check(cudaMemcpy(device, host, 64, cudaMemcpyHostToDevice), "cudaMemcpy of 64");
	failed |= check(cudaMemset(device, 1, 64), "cudaMemset of 64");
	failed |= check(cudaFree(device), "cudaFree");
	printf("copies=1 memsets=1\n");
	return failed;
}
