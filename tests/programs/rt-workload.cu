/* SPDX-License-Identifier: MIT */
/*
 * rt-workload.cu - a small runtime-API workload for the CUPTI tests
 * (tests/sim/cupti-callbacks.sh): malloc, HtoD/DtoH copies, memsets,
 * <<<>>> launches, synchronisations, one failing cudaMalloc and frees, on
 * the main thread and, at the same time, on a second thread, so that
 * correlation ids and the nesting of callbacks are checked under
 * concurrency.
 *
 * Prints TAP, "# fact pid=N" and one "# expect" line per ledger operation.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#define BYTES         ((size_t)65536)
#define WORKER_ROUNDS 8

extern "C" __global__ void workload_touch(unsigned char *p, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		p[i] ^= 1;
}

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

/* Print one TAP line while the other thread may print too. */
#define LOCKED(stmt)                               \
	do {                                       \
		pthread_mutex_lock(&print_lock);   \
		stmt;                              \
		pthread_mutex_unlock(&print_lock); \
	} while (0)

static unsigned long long addr(const void *p)
{
	return (unsigned long long)(uintptr_t)p;
}

/* TAP and expectations come from two threads: one line at a time. */
static bool rt_ok(cudaError_t r, const char *what)
{
	pthread_mutex_lock(&print_lock);
	bool good = tap_ok(r == cudaSuccess, "%s (%s)", what, cudaGetErrorName(r));
	pthread_mutex_unlock(&print_lock);
	return good;
}

static void __attribute__((format(printf, 1, 2))) expect(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&print_lock);
	va_start(ap, fmt);
	tap_vexpect(fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&print_lock);
}

/* Alloc, upload, download, free: the second thread's loop. */
static void *worker(void *arg)
{
	unsigned char *host = (unsigned char *)malloc(BYTES);
	void *dev = NULL;
	bool good = host != NULL;

	(void)arg;
	for (int round = 0; good && round < WORKER_ROUNDS; round++) {
		memset(host, round, BYTES);
		good = rt_ok(cudaMalloc(&dev, BYTES), "worker: cudaMalloc");
		if (!good)
			break;
		expect("op=alloc kind=device addr=0x%llx size=%zu api=cudaMalloc", addr(dev),
		       BYTES);
		if (rt_ok(cudaMemcpy(dev, host, BYTES, cudaMemcpyHostToDevice),
		          "worker: cudaMemcpy HtoD"))
			expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu api=cudaMemcpy",
			       addr(host), addr(dev), BYTES);
		if (rt_ok(cudaMemcpy(host, dev, BYTES, cudaMemcpyDeviceToHost),
		          "worker: cudaMemcpy DtoH"))
			expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu api=cudaMemcpy",
			       addr(dev), addr(host), BYTES);
		if (rt_ok(cudaFree(dev), "worker: cudaFree"))
			expect("op=free kind=device addr=0x%llx size=%zu api=cudaFree", addr(dev),
			       BYTES);
	}
	free(host);
	return NULL;
}

int main(void)
{
	unsigned char *host = (unsigned char *)malloc(BYTES), *pinned = NULL;
	unsigned char *d_a = NULL, *d_b = NULL;
	void *impossible = NULL;
	size_t free_mem = 0, total = 0;
	cudaStream_t s = NULL;
	pthread_t thread;
	int started;

	printf("# fact pid=%d\n", (int)getpid());
	if (!host || !rt_ok(cudaSetDevice(0), "cudaSetDevice(0)")) {
		printf("Bail out! no device\n");
		return 1;
	}
	rt_ok(cudaFree(0), "cudaFree(NULL) creates the context");
	started = pthread_create(&thread, NULL, worker, NULL) == 0;
	LOCKED(tap_ok(started, "second thread started"));

	if (rt_ok(cudaMalloc((void **)&d_a, BYTES), "cudaMalloc(d_a)"))
		expect("op=alloc kind=device addr=0x%llx size=%zu api=cudaMalloc", addr(d_a),
		       BYTES);
	if (rt_ok(cudaMalloc((void **)&d_b, BYTES / 2), "cudaMalloc(d_b)"))
		expect("op=alloc kind=device addr=0x%llx size=%zu api=cudaMalloc", addr(d_b),
		       BYTES / 2);
	if (rt_ok(cudaMallocHost((void **)&pinned, BYTES), "cudaMallocHost"))
		expect("op=alloc kind=host_pinned addr=0x%llx size=%zu api=cudaMallocHost",
		       addr(pinned), BYTES);
	rt_ok(cudaStreamCreate(&s), "cudaStreamCreate");

	memset(host, 0x42, BYTES);
	if (rt_ok(cudaMemcpy(d_a, host, BYTES, cudaMemcpyHostToDevice), "cudaMemcpy HtoD"))
		expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pageable "
		       "api=cudaMemcpy",
		       addr(host), addr(d_a), BYTES);
	if (rt_ok(cudaMemset(d_b, 0x17, BYTES / 2), "cudaMemset"))
		expect("op=memset dst=0x%llx bytes=%zu value=23 api=cudaMemset", addr(d_b),
		       BYTES / 2);
	if (rt_ok(cudaMemsetAsync(d_b, 0x29, 512, s), "cudaMemsetAsync"))
		expect("op=memset dst=0x%llx bytes=512 value=41 api=cudaMemsetAsync", addr(d_b));
	workload_touch<<<BYTES / 256, 256>>>(d_a, BYTES);
	rt_ok(cudaGetLastError(), "workload_touch<<<256, 256>>>");
	expect("op=launch name=workload_touch grid=256,1,1 block=256,1,1 shmem=0");
	workload_touch<<<1, 32, 64, s>>>(d_b, 32);
	rt_ok(cudaGetLastError(), "workload_touch<<<1, 32, 64, s>>>");
	expect("op=launch name=workload_touch grid=1,1,1 block=32,1,1 shmem=64");
	if (pinned && rt_ok(cudaMemcpyAsync(pinned, d_a, BYTES, cudaMemcpyDeviceToHost, s),
	                    "cudaMemcpyAsync DtoH pinned"))
		expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		       "api=cudaMemcpyAsync",
		       addr(d_a), addr(pinned), BYTES);
	rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
	if (rt_ok(cudaMemcpy(host, d_a, BYTES, cudaMemcpyDeviceToHost), "cudaMemcpy DtoH"))
		expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable "
		       "api=cudaMemcpy",
		       addr(d_a), addr(host), BYTES);
	rt_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

	rt_ok(cudaMemGetInfo(&free_mem, &total), "cudaMemGetInfo");
	cudaError_t r = cudaMalloc(&impossible, total * 2);
	LOCKED(tap_ok(r == cudaErrorMemoryAllocation, "cudaMalloc(2 x total) fails (%s)",
	              cudaGetErrorName(r)));
	if (r != cudaSuccess)
		expect("op=alloc_failed size=%zu api=cudaMalloc", total * 2);
	else
		cudaFree(impossible);
	/* The last-error slot is per thread: the worker's calls do not clear it. */
	r = cudaGetLastError();
	LOCKED(tap_ok(r == cudaErrorMemoryAllocation, "cudaGetLastError reports the failure"));

	if (started)
		tap_ok(pthread_join(thread, NULL) == 0, "second thread joined");
	/* Alone from here on. */
	if (rt_ok(cudaFree(d_a), "cudaFree(d_a)"))
		expect("op=free kind=device addr=0x%llx size=%zu api=cudaFree", addr(d_a), BYTES);
	if (rt_ok(cudaFree(d_b), "cudaFree(d_b)"))
		expect("op=free kind=device addr=0x%llx size=%zu api=cudaFree", addr(d_b),
		       BYTES / 2);
	if (pinned && rt_ok(cudaFreeHost(pinned), "cudaFreeHost"))
		expect("op=free kind=host_pinned addr=0x%llx size=%zu api=cudaFreeHost",
		       addr(pinned), BYTES);
	rt_ok(cudaStreamDestroy(s), "cudaStreamDestroy");
	free(host);
	return tap_done();
}
