/* SPDX-License-Identifier: MIT */
/*
 * rt-kernel-attrs.cu - what the runtime says of kernels and the limits of
 * a device: cudaFuncGetAttributes of kernels with __launch_bounds__ and
 * static shared memory, cudaFuncSetAttribute and its documented limits,
 * cache and shared memory preferences, kernel handles, and
 * cudaDeviceSetLimit's rules for the malloc heap and the printf FIFO
 * (cuda_runtime_api.h). Built with uncompressed PTX for compute_90
 * (tests/Makefile.am), which the simulator reads the attributes from.
 *
 * Prints TAP, "# fact pid=N" and "# expect" lines for the ledger.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

extern "C" __global__ void rt_plain(float *p)
{
	if (p)
		p[threadIdx.x] = 0;
}

extern "C" __global__ void __launch_bounds__(256, 4) rt_bounds(float *p)
{
	__shared__ float buf[1024];

	buf[threadIdx.x] = p[threadIdx.x];
	__syncthreads();
	p[threadIdx.x] = buf[255 - threadIdx.x];
}

extern "C" __global__ void rt_heap(float *p)
{
	float *q = (float *)malloc(64);

	if (q) {
		q[0] = p[0];
		p[1] = q[0];
		free(q);
	}
}

extern "C" __global__ void rt_print(float *p)
{
	printf("%f\n", p[threadIdx.x]);
}

static void host_function(void)
{
}

static bool rt_ok(cudaError_t r, const char *what)
{
	return tap_ok(r == cudaSuccess, "%s (%s)", what, cudaGetErrorName(r));
}

/* r is the error want, also in the last-error slot; the ledger has it. */
static bool rt_fails(cudaError_t r, cudaError_t want, const char *api, const char *what)
{
	cudaError_t last = cudaGetLastError();

	if (r != cudaSuccess)
		tap_expect("op=error api=%s result=%s", api, cudaGetErrorName(r));
	return tap_ok(r == want && last == want, "%s returns %s (got %s, last error %s)", what,
	              cudaGetErrorName(want), cudaGetErrorName(r), cudaGetErrorName(last));
}

static void launched(const char *name, unsigned int block)
{
	cudaError_t r = cudaGetLastError();

	if (tap_ok(r == cudaSuccess, "%s<<<1, %u>>> launched (%s)", name, block,
	           cudaGetErrorName(r)))
		tap_expect("op=launch name=%s grid=1,1,1 block=%u,1,1 api=__cudaLaunchKernel", name,
		           block);
}

static void check_attributes(void)
{
	struct cudaFuncAttributes a;
	cudaKernel_t kernel = NULL;
	cudaFunction_t function = NULL;
	const char *name = NULL;
	int optin = 0;

	memset(&a, 0, sizeof(a));
	rt_ok(cudaFuncGetAttributes(&a, rt_plain), "cudaFuncGetAttributes(rt_plain)");
	tap_ok(a.maxThreadsPerBlock == 1024 && a.sharedSizeBytes == 0 && a.numRegs > 0,
	       "rt_plain: 1024 threads, no static shared memory, %d registers", a.numRegs);
	tap_ok(a.ptxVersion == 90 && a.binaryVersion == 90, "rt_plain: PTX %d, binary %d",
	       a.ptxVersion, a.binaryVersion);
	tap_ok(a.maxDynamicSharedSizeBytes == 49152 && a.preferredShmemCarveout == -1,
	       "rt_plain: 48 KiB of dynamic shared memory, no carveout preference");
	rt_ok(cudaFuncGetAttributes(&a, rt_bounds), "cudaFuncGetAttributes(rt_bounds)");
	tap_ok(a.maxThreadsPerBlock == 256, "rt_bounds: __launch_bounds__(256) (%d)",
	       a.maxThreadsPerBlock);
	tap_ok(a.sharedSizeBytes == 4096, "rt_bounds: __shared__ float[1024] is 4096 bytes (%zu)",
	       a.sharedSizeBytes);
	tap_ok(a.maxDynamicSharedSizeBytes == 49152 - 4096,
	       "rt_bounds: 48 KiB less the static for dynamic (%d)", a.maxDynamicSharedSizeBytes);
	rt_fails(cudaFuncGetAttributes(&a, (const void *)host_function),
	         cudaErrorInvalidDeviceFunction, "cudaFuncGetAttributes",
	         "cudaFuncGetAttributes of a host function");

	cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
	rt_ok(cudaFuncSetAttribute(rt_bounds, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           optin - 4096),
	      "rt_bounds: dynamic shared memory up to the opt-in maximum less its static");
	cudaFuncGetAttributes(&a, rt_bounds);
	tap_ok(a.maxDynamicSharedSizeBytes == optin - 4096, "it reads back (%d)",
	       a.maxDynamicSharedSizeBytes);
	rt_fails(cudaFuncSetAttribute(rt_bounds, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                              optin - 4096 + 1),
	         cudaErrorInvalidValue, "cudaFuncSetAttribute",
	         "one byte more than static + dynamic <= opt-in");
	rt_fails(cudaFuncSetAttribute(rt_plain, cudaFuncAttributePreferredSharedMemoryCarveout, -2),
	         cudaErrorInvalidValue, "cudaFuncSetAttribute", "a carveout of -2");
	rt_ok(cudaFuncSetAttribute(rt_plain, cudaFuncAttributePreferredSharedMemoryCarveout,
	                           cudaSharedmemCarveoutMaxShared),
	      "cudaSharedmemCarveoutMaxShared");
	rt_fails(cudaFuncSetAttribute((const void *)host_function,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, 0),
	         cudaErrorInvalidDeviceFunction, "cudaFuncSetAttribute",
	         "cudaFuncSetAttribute of a host function");
	rt_ok(cudaFuncSetCacheConfig(rt_plain, cudaFuncCachePreferShared),
	      "cudaFuncSetCacheConfig");
	rt_fails(cudaFuncSetCacheConfig(rt_plain, (enum cudaFuncCache)9), cudaErrorInvalidValue,
	         "cudaFuncSetCacheConfig", "cudaFuncSetCacheConfig(9)");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	rt_ok(cudaFuncSetSharedMemConfig(rt_plain, cudaSharedMemBankSizeFourByte),
	      "cudaFuncSetSharedMemConfig");
#pragma GCC diagnostic pop

	rt_ok(cudaFuncGetName(&name, rt_bounds), "cudaFuncGetName");
	tap_ok(name && !strcmp(name, "rt_bounds"), "names rt_bounds (%s)", name ? name : "NULL");
	rt_ok(cudaGetKernel(&kernel, rt_bounds), "cudaGetKernel(rt_bounds)");
	memset(&a, 0, sizeof(a));
	rt_ok(cudaFuncGetAttributes(&a, (const void *)kernel),
	      "cudaFuncGetAttributes of the cudaKernel_t");
	tap_ok(a.maxThreadsPerBlock == 256, "the same kernel (%d threads)", a.maxThreadsPerBlock);
	rt_ok(cudaGetFuncBySymbol(&function, (const void *)rt_bounds), "cudaGetFuncBySymbol");
	tap_ok(function != NULL, "gives a cudaFunction_t");
}

static void check_limits(float *d)
{
	size_t value = 0;
	enum cudaFuncCache cache = cudaFuncCachePreferNone;
	enum cudaSharedMemConfig banks = cudaSharedMemBankSizeDefault;

	rt_ok(cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize), "cudaDeviceGetLimit(heap)");
	tap_ok(value == 8u << 20, "the heap is 8 MiB by default (%zu)", value);
	rt_ok(cudaDeviceGetLimit(&value, cudaLimitPrintfFifoSize), "cudaDeviceGetLimit(printf)");
	tap_ok(value == 1u << 20, "the printf FIFO is 1 MiB by default (%zu)", value);
	rt_fails(cudaDeviceGetLimit(&value, cudaLimitDevRuntimeSyncDepth),
	         cudaErrorUnsupportedLimit, "cudaDeviceGetLimit",
	         "cudaLimitDevRuntimeSyncDepth on compute capability 9.0");
	rt_ok(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16u << 20), "a 16 MiB heap");
	rt_plain<<<1, 32>>>(d);
	launched("rt_plain", 32);
	rt_ok(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32u << 20),
	      "a 32 MiB heap after a kernel that does not call malloc");
	rt_heap<<<1, 32>>>(d);
	launched("rt_heap", 32);
	rt_fails(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 20), cudaErrorInvalidValue,
	         "cudaDeviceSetLimit", "the heap after a kernel that calls malloc ran");
	cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize);
	tap_ok(value == 32u << 20, "the heap stays 32 MiB (%zu)", value);
	rt_ok(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 2u << 20), "a 2 MiB printf FIFO");
	rt_print<<<1, 32>>>(d);
	launched("rt_print", 32);
	rt_fails(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4u << 20), cudaErrorInvalidValue,
	         "cudaDeviceSetLimit", "the printf FIFO after a kernel that calls printf ran");
	rt_ok(cudaDeviceSetLimit(cudaLimitStackSize, 2048), "the stack size after launches");
	cudaDeviceGetLimit(&value, cudaLimitStackSize);
	tap_ok(value == 2048, "the stack is 2 KiB (%zu)", value);

	rt_ok(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1), "cudaDeviceSetCacheConfig");
	rt_ok(cudaDeviceGetCacheConfig(&cache), "cudaDeviceGetCacheConfig");
	tap_ok(cache == cudaFuncCachePreferL1, "the cache preference reads back");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	rt_ok(cudaDeviceGetSharedMemConfig(&banks), "cudaDeviceGetSharedMemConfig");
#pragma GCC diagnostic pop
	tap_ok(banks == cudaSharedMemBankSizeFourByte, "banks are four bytes wide");
}

int main(void)
{
	float *d = NULL;

	printf("# fact pid=%d\n", (int)getpid());
	rt_ok(cudaMalloc(&d, 4096), "cudaMalloc");
	tap_expect("op=alloc kind=device size=4096 api=cudaMalloc");
	check_attributes();

	/* More threads than __launch_bounds__: "too many resources requested
	 * for launch" (driver_types.h, cudaErrorLaunchOutOfResources). */
	rt_bounds<<<1, 512>>>(d);
	{
		cudaError_t r = cudaGetLastError();

		tap_expect("op=error api=__cudaLaunchKernel result=cudaErrorLaunchOutOfResources");
		tap_ok(
		    r == cudaErrorLaunchOutOfResources,
		    "rt_bounds<<<1, 512>>> exceeds its bounds: cudaErrorLaunchOutOfResources (%s)",
		    cudaGetErrorName(r));
	}
	check_limits(d);
	rt_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	rt_ok(cudaFree(d), "cudaFree");
	tap_expect("op=free kind=device size=4096 api=cudaFree");
	return tap_done();
}
