/* SPDX-License-Identifier: MIT */
/*
 * rt-managed.cu - managed memory through the runtime as the CUDA
 * Programming Guide's "Unified Memory" examples use it: cudaMallocManaged,
 * filled on the host, advised (cudaMemAdvise), prefetched to the device
 * before a kernel and back to the host after it on the same stream
 * (cudaMemPrefetchAsync with CUDA 13's cudaMemLocation), the range
 * attributes read back (cudaMemRangeGetAttribute(s)), and the documented
 * errors: memory that is not managed, a device that does not exist.
 *
 * Prints TAP, "# fact pid=N" and "# expect" lines for the ledger.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#define N     (1 << 20) /* floats: 4 MiB, 2 MiB aligned */
#define BYTES (N * sizeof(float))

extern "C" __global__ void managed_scale(float *a, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		a[i] *= 2.0f;
}

__managed__ int managed_counter;

static bool rt_ok(cudaError_t r, const char *what)
{
	return tap_ok(r == cudaSuccess, "%s (%s)", what, cudaGetErrorName(r));
}

static bool rt_fails(cudaError_t r, cudaError_t want, const char *api, const char *what)
{
	cudaError_t last = cudaGetLastError();

	if (r != cudaSuccess)
		tap_expect("op=error api=%s result=%s", api, cudaGetErrorName(r));
	return tap_ok(r == want && last == want, "%s returns %s (got %s, last error %s)", what,
	              cudaGetErrorName(want), cudaGetErrorName(r), cudaGetErrorName(last));
}

static cudaMemLocation device(int id)
{
	cudaMemLocation loc;

	loc.type = cudaMemLocationTypeDevice;
	loc.id = id;
	return loc;
}

static cudaMemLocation host(void)
{
	cudaMemLocation loc;

	loc.type = cudaMemLocationTypeHost;
	loc.id = 0;
	return loc;
}

static int range_int(const void *p, size_t bytes, enum cudaMemRangeAttribute attribute)
{
	int value = -100;

	if (cudaMemRangeGetAttribute(&value, sizeof(value), attribute, p, bytes) != cudaSuccess)
		return -100;
	return value;
}

int main(void)
{
	cudaStream_t s;
	float *a = NULL, *d = NULL;
	bool intact = true;

	printf("# fact pid=%d\n", (int)getpid());
	rt_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
	if (!rt_ok(cudaMallocManaged(&a, BYTES), "cudaMallocManaged"))
		return tap_done();
	tap_expect("op=alloc kind=managed size=%zu api=cudaMallocManaged", BYTES);
	rt_ok(cudaMalloc(&d, 4096), "cudaMalloc");
	tap_expect("op=alloc kind=device size=4096 api=cudaMalloc");
	for (size_t i = 0; i < N; i++)
		a[i] = (float)i;

	rt_ok(cudaMemAdvise(a, BYTES, cudaMemAdviseSetPreferredLocation, device(0)),
	      "cudaMemAdviseSetPreferredLocation device 0");
	rt_ok(cudaMemAdvise(a, BYTES, cudaMemAdviseSetAccessedBy, host()),
	      "cudaMemAdviseSetAccessedBy the host");
	tap_ok(range_int(a, BYTES, cudaMemRangeAttributePreferredLocation) == 0,
	       "cudaMemRangeAttributePreferredLocation is device 0");

	rt_ok(cudaMemPrefetchAsync(a, BYTES, device(0), 0, s), "prefetch to device 0");
	tap_expect("op=prefetch addr=0x%llx bytes=%zu dst=0 htod=%zu dtoh=0 dtod=0 "
	           "api=cudaMemPrefetchAsync",
	           (unsigned long long)(uintptr_t)a, BYTES, BYTES);
	managed_scale<<<N / 256, 256, 0, s>>>(a, N);
	rt_ok(cudaGetLastError(), "managed_scale launched after it on the stream");
	tap_expect("op=launch name=managed_scale grid=%d,1,1 block=256,1,1", N / 256);
	rt_ok(cudaMemPrefetchAsync(a, BYTES, host(), 0, s), "prefetch back to the host");
	tap_expect("op=prefetch addr=0x%llx bytes=%zu dst=host htod=0 dtoh=%zu dtod=0 "
	           "api=cudaMemPrefetchAsync",
	           (unsigned long long)(uintptr_t)a, BYTES, BYTES);
	rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
	tap_ok(range_int(a, BYTES, cudaMemRangeAttributeLastPrefetchLocation) == cudaCpuDeviceId,
	       "cudaMemRangeAttributeLastPrefetchLocation is cudaCpuDeviceId");
	for (size_t i = 0; i < N && intact; i++)
		intact = a[i] == (float)i;
	tap_ok(intact, "the host reads the data back (the kernel does nothing here)");

	{
		int read_mostly = -1, last = -1;
		void *data[2] = { &read_mostly, &last };
		size_t sizes[2] = { 4, 4 };
		enum cudaMemRangeAttribute attrs[2] = { cudaMemRangeAttributeReadMostly,
			                                cudaMemRangeAttributeLastPrefetchLocation };

		rt_ok(cudaMemRangeGetAttributes(data, sizes, attrs, 2, a, BYTES),
		      "cudaMemRangeGetAttributes");
		tap_ok(read_mostly == 0 && last == cudaCpuDeviceId,
		       "not read-mostly, last prefetched to the CPU (%d, %d)", read_mostly, last);
	}

	/* A __managed__ variable is managed memory too, allocated at its
	 * first use from the host. */
	managed_counter = 1;
	tap_expect("op=alloc kind=managed size=%zu", sizeof(int));
	rt_ok(cudaMemPrefetchAsync(&managed_counter, sizeof(int), device(0), 0, s),
	      "prefetch a __managed__ variable");
	tap_expect("op=prefetch dst=0 api=cudaMemPrefetchAsync");

	rt_fails(cudaMemPrefetchAsync(d, 4096, device(0), 0, s), cudaErrorInvalidValue,
	         "cudaMemPrefetchAsync", "prefetching cudaMalloc memory");
	rt_fails(cudaMemPrefetchAsync(a, BYTES, device(5), 0, s), cudaErrorInvalidDevice,
	         "cudaMemPrefetchAsync", "prefetching to device 5");
	rt_fails(cudaMemAdvise(a, BYTES, cudaMemAdviseSetAccessedBy, device(5)),
	         cudaErrorInvalidDevice, "cudaMemAdvise", "accessed by device 5");

	rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
	rt_ok(cudaFree(a), "cudaFree(managed)");
	tap_expect("op=free kind=managed size=%zu api=cudaFree", BYTES);
	rt_ok(cudaFree(d), "cudaFree(device)");
	tap_expect("op=free kind=device size=4096 api=cudaFree");
	rt_ok(cudaStreamDestroy(s), "cudaStreamDestroy");
	return tap_done();
}
