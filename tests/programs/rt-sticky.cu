/* SPDX-License-Identifier: MIT */
/*
 * rt-sticky.cu - allocations that fail for another reason than memory,
 * for tests/cli/record-deaths.sh:
 *
 *   rt-sticky fault     allocates 1 MiB, launches scale<<<4, 256>>> from
 *                       run_step (CUDASIM_KERNEL_FAULT=1 makes it fault),
 *                       synchronizes, then asks 64 MiB from grow: the
 *                       sticky error comes back from both
 *   rt-sticky argument  allocates 1 MiB, then cudaMalloc with no pointer to
 *                       set, from grow
 *
 * The functions are kept out of line, so that a call stack names them
 * without debugging information. Prints each call's error by name ("sync
 * cudaErrorIllegalAddress"), and exits 1 when the last call failed.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= 2;
}

static __attribute__((noinline)) void run_step(float *x)
{
	scale<<<4, 256>>>(x, 1024);
}

static __attribute__((noinline)) cudaError_t grow(float **p, size_t bytes)
{
	return cudaMalloc(p, bytes);
}

static cudaError_t said(const char *what, cudaError_t status)
{
	printf("%s %s\n", what, cudaGetErrorName(status));
	return status;
}

int main(int argc, char **argv)
{
	float *a = NULL, *b = NULL;

	if (argc < 2 || (strcmp(argv[1], "fault") && strcmp(argv[1], "argument"))) {
		fprintf(stderr, "usage: rt-sticky fault|argument\n");
		return 2;
	}
	if (said("first", cudaMalloc(&a, 1 << 20)) != cudaSuccess)
		return 1;
	if (!strcmp(argv[1], "argument"))
		return said("malloc", grow(NULL, 1 << 20)) != cudaSuccess;
	run_step(a);
	said("sync", cudaDeviceSynchronize());
	return said("malloc", grow(&b, 64 << 20)) != cudaSuccess;
}
