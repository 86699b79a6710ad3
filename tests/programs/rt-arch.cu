/* SPDX-License-Identifier: MIT */
/*
 * rt-arch.cu - a kernel launch whose device code the device may or may
 * not run. tests/Makefile.am builds it twice: for sm_90 only
 * (rt-arch-sm90) and with compute_80 PTX beside the sm_90 cubin
 * (rt-arch-ptx80).
 *
 *   rt-arch runs ARCHS CHOSEN JIT     the launch works; the ledger's
 *                                     module_load line has these values
 *   rt-arch no-image ARCHS DEVICE     the launch fails with
 *                                     cudaErrorNoKernelImageForDevice (209)
 *
 * Either way the error is no sticky one: allocations go on working. Prints
 * TAP, "# fact pid=N" and the "# expect" lines for the ledger.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

__global__ void touch(int *p)
{
	if (p)
		*p = 1;
}

int main(int argc, char **argv)
{
	bool runs = argc == 5 && !strcmp(argv[1], "runs");
	cudaDeviceProp prop;
	cudaError_t result;
	int *d = NULL, *e = NULL;

	if (!runs && !(argc == 4 && !strcmp(argv[1], "no-image"))) {
		fprintf(stderr, "usage: rt-arch runs ARCHS CHOSEN JIT | no-image ARCHS DEVICE\n");
		return 2;
	}
	printf("# fact pid=%d\n", (int)getpid());
	result = cudaGetDeviceProperties(&prop, 0);
	tap_ok(result == cudaSuccess, "cudaGetDeviceProperties (%s): compute capability %d.%d",
	       cudaGetErrorName(result), prop.major, prop.minor);
	result = cudaMalloc(&d, sizeof(*d));
	tap_ok(result == cudaSuccess, "cudaMalloc (%s)", cudaGetErrorName(result));
	tap_expect("op=alloc kind=device size=4 api=cudaMalloc");

	touch<<<1, 1>>>(d);
	result = cudaGetLastError();
	if (runs) {
		tap_ok(result == cudaSuccess, "touch<<<1, 1>>> launches (%s)",
		       cudaGetErrorName(result));
		tap_expect("op=module_load archs=%s chosen=%s jit=%s", argv[2], argv[3], argv[4]);
		tap_expect("op=launch name=_Z5touchPi api=__cudaLaunchKernel");
		result = cudaDeviceSynchronize();
		tap_ok(result == cudaSuccess, "cudaDeviceSynchronize (%s)",
		       cudaGetErrorName(result));
	} else {
		tap_ok(result == cudaErrorNoKernelImageForDevice,
		       "touch<<<1, 1>>> fails: cudaErrorNoKernelImageForDevice (%s)",
		       cudaGetErrorName(result));
		tap_ok(!strcmp(cudaGetErrorString(result),
		               "no kernel image is available for execution on the device"),
		       "its message: '%s'", cudaGetErrorString(result));
		tap_expect("op=module_load_failed archs=%s device=%s "
		           "result=CUDA_ERROR_NO_BINARY_FOR_GPU api=__cudaLaunchKernel",
		           argv[2], argv[3]);
		tap_expect(
		    "op=error api=__cudaLaunchKernel result=cudaErrorNoKernelImageForDevice");
		tap_expect("op=error api=cudaGetLastError result=cudaErrorNoKernelImageForDevice");
	}
	/* Not sticky: the context works on. */
	result = cudaMalloc(&e, sizeof(*e));
	tap_ok(result == cudaSuccess, "cudaMalloc after the launch (%s)", cudaGetErrorName(result));
	tap_expect("op=alloc kind=device size=4 api=cudaMalloc");
	cudaFree(e);
	tap_expect("op=free kind=device size=4 api=cudaFree");
	cudaFree(d);
	tap_expect("op=free kind=device size=4 api=cudaFree");
	return tap_done();
}
