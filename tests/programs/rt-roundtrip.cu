/* SPDX-License-Identifier: MIT */
/*
 * rt-roundtrip.cu - the runtime API end to end, as an ordinary nvcc program
 * (nvcc -cudart shared): <<<>>> launches, data through device memory byte
 * for byte, pinned and pageable host memory, async copies on streams,
 * events, out of memory and fragmentation.
 *
 * Prints TAP, plus "# fact" and "# expect" lines that tests/sim/rt-roundtrip.sh
 * compares with the simulator's ledger: one "# expect" line per operation
 * the program performs.
 *
 * Options: --htod-pinned-bw=B --copy-latency-ns=L  the bandwidth and latency
 * the simulator was given (CUDASIM_BW_HTOD_PINNED, CUDASIM_COPY_LATENCY_NS):
 * with them the events around a pinned copy must measure the modelled time.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#define MIB ((size_t)1 << 20)
/* Over 1 MiB: reserved as a 2 MiB multiple (README "Memory model"). */
#define BIG_BYTES (MIB + 3)
/* Under 1 MiB: rounded to 512 bytes. */
#define SMALL_BYTES ((size_t)1000)
#define REG_BYTES   ((size_t)64 << 10)
#define BLOCK_BYTES (2 * MIB)
#define MAX_BLOCKS  4096

extern "C" __global__ void fill_bytes(unsigned char *p, size_t n, unsigned char v)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		p[i] = v;
}

/* A C++ kernel: the ledger names it by its mangled name. */
__global__ void scale_floats(float *v, size_t n, float f)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		v[i] *= f;
}
#define SCALE_FLOATS_NAME "_Z12scale_floatsPfmf"

struct options {
	double htod_pinned_bw; /* bytes/s, 0 when not given */
	double copy_latency_ns;
};

struct state {
	unsigned char *h_src, *h_dst; /* pageable */
	unsigned char *h_pin, *h_pin2, *h_reg;
	unsigned char *d_a, *d_b, *d_c;
	cudaStream_t s1, s2;
	cudaEvent_t e0, e1;
};

static unsigned long long addr(const void *p)
{
	return (unsigned long long)(uintptr_t)p;
}

static size_t reserved_for(size_t n)
{
	size_t unit = n < MIB ? 512 : 2 * MIB;

	return (n + unit - 1) / unit * unit;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + seed * 7 + (i >> 8));
}

static bool all_equal(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

static bool rt_ok(cudaError_t r, const char *what)
{
	return tap_ok(r == cudaSuccess, "%s (%s)", what, cudaGetErrorName(r));
}

static double modelled_ns(const struct options *opt, size_t bytes)
{
	return opt->copy_latency_ns + (double)bytes * 1e9 / opt->htod_pinned_bw;
}

/* Pageable host -> device -> device -> host, byte for byte. */
static void test_device_roundtrip(struct state *st)
{
	size_t free_before = 0, free_after = 0, total = 0;

	rt_ok(cudaMemGetInfo(&free_before, &total), "cudaMemGetInfo");
	if (rt_ok(cudaMalloc((void **)&st->d_a, BIG_BYTES), "cudaMalloc(1 MiB + 3)"))
		tap_expect(
		    "op=alloc kind=device dev=0 addr=0x%llx size=%zu reserved=%zu api=cudaMalloc",
		    addr(st->d_a), BIG_BYTES, reserved_for(BIG_BYTES));
	rt_ok(cudaMemGetInfo(&free_after, &total), "cudaMemGetInfo after cudaMalloc");
	tap_ok(free_before - free_after == reserved_for(BIG_BYTES),
	       "free memory dropped by the 2 MiB reserved for 1 MiB + 3 bytes (%zu)",
	       free_before - free_after);
	tap_ok(((uintptr_t)st->d_a & 511) == 0, "device pointers are 512-byte aligned");
	if (rt_ok(cudaMalloc((void **)&st->d_b, BIG_BYTES), "cudaMalloc(1 MiB + 3) again"))
		tap_expect(
		    "op=alloc kind=device dev=0 addr=0x%llx size=%zu reserved=%zu api=cudaMalloc",
		    addr(st->d_b), BIG_BYTES, reserved_for(BIG_BYTES));
	if (rt_ok(cudaMalloc((void **)&st->d_c, SMALL_BYTES), "cudaMalloc(1000)"))
		tap_expect(
		    "op=alloc kind=device dev=0 addr=0x%llx size=%zu reserved=%zu api=cudaMalloc",
		    addr(st->d_c), SMALL_BYTES, reserved_for(SMALL_BYTES));
	tap_ok(((uintptr_t)st->d_c & 511) == 0, "a small allocation is 512-byte aligned");

	fill(st->h_src, BIG_BYTES, 1);
	memset(st->h_dst, 0, BIG_BYTES);
	if (rt_ok(cudaMemcpy(st->d_a, st->h_src, BIG_BYTES, cudaMemcpyHostToDevice),
	          "cudaMemcpy HtoD from pageable memory"))
		tap_expect(
		    "op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "dev=0 stream=$legacy api=cudaMemcpy",
		    addr(st->h_src), addr(st->d_a), BIG_BYTES);
	if (rt_ok(cudaMemcpy(st->d_b, st->d_a, BIG_BYTES, cudaMemcpyDeviceToDevice),
	          "cudaMemcpy DtoD"))
		tap_expect("op=memcpy dir=DtoD src=0x%llx dst=0x%llx bytes=%zu host=none dev=0 "
		           "stream=$legacy api=cudaMemcpy",
		           addr(st->d_a), addr(st->d_b), BIG_BYTES);
	if (rt_ok(cudaMemcpy(st->h_dst, st->d_b, BIG_BYTES, cudaMemcpyDeviceToHost),
	          "cudaMemcpy DtoH to pageable memory"))
		tap_expect(
		    "op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "dev=0 stream=$legacy api=cudaMemcpy",
		    addr(st->d_b), addr(st->h_dst), BIG_BYTES);
	tap_ok(memcmp(st->h_src, st->h_dst, BIG_BYTES) == 0,
	       "HtoD, DtoD, DtoH brings back every byte");
}

/* cudaMemcpyDefault infers the direction from the pointers (UVA). */
static void test_default_kind(struct state *st)
{
	fill(st->h_src, SMALL_BYTES, 2);
	memset(st->h_dst, 0, SMALL_BYTES);
	if (rt_ok(cudaMemcpy(st->d_c, st->h_src, SMALL_BYTES, cudaMemcpyDefault),
	          "cudaMemcpyDefault host to device"))
		tap_expect(
		    "op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "api=cudaMemcpy",
		    addr(st->h_src), addr(st->d_c), SMALL_BYTES);
	if (rt_ok(cudaMemcpy(st->h_dst, st->d_c, SMALL_BYTES, cudaMemcpyDefault),
	          "cudaMemcpyDefault device to host"))
		tap_expect(
		    "op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "api=cudaMemcpy",
		    addr(st->d_c), addr(st->h_dst), SMALL_BYTES);
	tap_ok(memcmp(st->h_src, st->h_dst, SMALL_BYTES) == 0,
	       "cudaMemcpyDefault round trip brings back every byte");
}

static void test_launches(struct state *st)
{
	fill_bytes<<<4, 128>>>(st->d_a, BIG_BYTES, 7);
	rt_ok(cudaGetLastError(), "fill_bytes<<<4, 128>>> launches");
	tap_expect(
	    "op=launch name=fill_bytes dev=0 grid=4,1,1 block=128,1,1 shmem=0 stream=$legacy");

	scale_floats<<<dim3(2, 3, 1), dim3(32, 2, 1), 256, st->s1>>>((float *)st->d_b,
	                                                             BIG_BYTES / 4, 2.0f);
	rt_ok(cudaGetLastError(), "scale_floats<<<(2,3,1), (32,2,1), 256, s1>>> launches");
	tap_expect("op=launch name=" SCALE_FLOATS_NAME " dev=0 grid=2,3,1 block=32,2,1 shmem=256 "
	           "stream=$s1");
	rt_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the launches");
}

/* cudaMallocHost, cudaHostAlloc and cudaHostRegister memory is pinned. */
static void test_pinned(struct state *st)
{
	if (rt_ok(cudaMallocHost((void **)&st->h_pin, BIG_BYTES), "cudaMallocHost"))
		tap_expect("op=alloc kind=host_pinned addr=0x%llx size=%zu api=cudaMallocHost",
		           addr(st->h_pin), BIG_BYTES);
	if (rt_ok(cudaHostAlloc((void **)&st->h_pin2, SMALL_BYTES, cudaHostAllocDefault),
	          "cudaHostAlloc"))
		tap_expect("op=alloc kind=host_pinned addr=0x%llx size=%zu api=cudaHostAlloc",
		           addr(st->h_pin2), SMALL_BYTES);
	if (rt_ok(cudaHostRegister(st->h_reg, REG_BYTES, cudaHostRegisterDefault),
	          "cudaHostRegister"))
		tap_expect(
		    "op=alloc kind=host_registered addr=0x%llx size=%zu api=cudaHostRegister",
		    addr(st->h_reg), REG_BYTES);
	if (!st->h_pin || !st->h_pin2)
		return;

	fill(st->h_pin, BIG_BYTES, 3);
	if (rt_ok(cudaMemcpy(st->d_a, st->h_pin, BIG_BYTES, cudaMemcpyHostToDevice),
	          "cudaMemcpy HtoD from cudaMallocHost memory"))
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=1 "
		           "stream=$legacy api=cudaMemcpy",
		           addr(st->h_pin), addr(st->d_a), BIG_BYTES);
	memset(st->h_reg, 0, REG_BYTES);
	if (rt_ok(cudaMemcpy(st->h_reg, st->d_a, REG_BYTES, cudaMemcpyDeviceToHost),
	          "cudaMemcpy DtoH into registered memory"))
		tap_expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=1 "
		           "stream=$legacy api=cudaMemcpy",
		           addr(st->d_a), addr(st->h_reg), REG_BYTES);
	tap_ok(memcmp(st->h_reg, st->h_pin, REG_BYTES) == 0,
	       "pinned to device to registered memory brings back every byte");
}

static void test_streams(struct state *st)
{
	rt_ok(cudaStreamCreate(&st->s1), "cudaStreamCreate");
	rt_ok(cudaStreamCreateWithFlags(&st->s2, cudaStreamNonBlocking),
	      "cudaStreamCreateWithFlags(cudaStreamNonBlocking)");
}

/* Async copies and memsets on created streams; pageable async is sync. */
static void test_async(struct state *st)
{
	fill(st->h_pin, BIG_BYTES, 4);
	if (rt_ok(cudaMemcpyAsync(st->d_b, st->h_pin, BIG_BYTES, cudaMemcpyHostToDevice, st->s1),
	          "cudaMemcpyAsync HtoD pinned on s1"))
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		           "stream=$s1 stream!=$legacy api=cudaMemcpyAsync",
		           addr(st->h_pin), addr(st->d_b), BIG_BYTES);
	memset(st->h_pin2, 0, SMALL_BYTES);
	if (rt_ok(cudaMemcpyAsync(st->h_pin2, st->d_b, SMALL_BYTES, cudaMemcpyDeviceToHost, st->s1),
	          "cudaMemcpyAsync DtoH pinned on s1"))
		tap_expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		           "stream=$s1 api=cudaMemcpyAsync",
		           addr(st->d_b), addr(st->h_pin2), SMALL_BYTES);
	if (rt_ok(cudaMemsetAsync(st->d_c, 0x5a, SMALL_BYTES, st->s2), "cudaMemsetAsync on s2"))
		tap_expect("op=memset dev=0 dst=0x%llx bytes=%zu value=90 elem=1 sync=0 stream=$s2 "
		           "stream!=$s1 api=cudaMemsetAsync",
		           addr(st->d_c), SMALL_BYTES);
	fill(st->h_src, SMALL_BYTES, 5);
	if (rt_ok(cudaMemcpyAsync(st->d_a, st->h_src, SMALL_BYTES, cudaMemcpyHostToDevice, st->s2),
	          "cudaMemcpyAsync HtoD from pageable memory on s2"))
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pageable "
		           "stream=$s2 api=cudaMemcpyAsync",
		           addr(st->h_src), addr(st->d_a), SMALL_BYTES);
	/* From pageable memory the async copy is synchronous (API sync
	 * behaviour): it and the memset queued before it have completed. */
	rt_ok(cudaStreamQuery(st->s2), "s2 is idle when the pageable cudaMemcpyAsync returns");
	rt_ok(cudaStreamSynchronize(st->s1), "cudaStreamSynchronize(s1)");
	rt_ok(cudaStreamSynchronize(st->s2), "cudaStreamSynchronize(s2)");
	tap_ok(memcmp(st->h_pin2, st->h_pin, SMALL_BYTES) == 0,
	       "async HtoD then DtoH on one stream brings back every byte");

	memset(st->h_dst, 0, SMALL_BYTES);
	if (rt_ok(cudaMemcpy(st->h_dst, st->d_c, SMALL_BYTES, cudaMemcpyDeviceToHost),
	          "cudaMemcpy DtoH of the memset buffer"))
		tap_expect(
		    "op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "api=cudaMemcpy",
		    addr(st->d_c), addr(st->h_dst), SMALL_BYTES);
	tap_ok(all_equal(st->h_dst, SMALL_BYTES, 0x5a), "cudaMemsetAsync wrote 0x5a everywhere");

	if (rt_ok(cudaMemset(st->d_c, 0xa5, SMALL_BYTES), "cudaMemset"))
		tap_expect("op=memset dev=0 dst=0x%llx bytes=%zu value=165 elem=1 stream=$legacy "
		           "api=cudaMemset",
		           addr(st->d_c), SMALL_BYTES);
	if (rt_ok(cudaMemcpy(st->h_dst, st->d_c, SMALL_BYTES, cudaMemcpyDeviceToHost),
	          "cudaMemcpy DtoH after cudaMemset"))
		tap_expect(
		    "op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "api=cudaMemcpy",
		    addr(st->d_c), addr(st->h_dst), SMALL_BYTES);
	tap_ok(all_equal(st->h_dst, SMALL_BYTES, 0xa5), "cudaMemset wrote 0xa5 everywhere");

	if (rt_ok(cudaMemcpy(st->h_dst, st->d_a, SMALL_BYTES, cudaMemcpyDeviceToHost),
	          "cudaMemcpy DtoH of the pageable async copy"))
		tap_expect(
		    "op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "api=cudaMemcpy",
		    addr(st->d_a), addr(st->h_dst), SMALL_BYTES);
	tap_ok(memcmp(st->h_dst, st->h_src, SMALL_BYTES) == 0,
	       "the pageable cudaMemcpyAsync delivered every byte");
}

/* One pinned HtoD copy of BIG_BYTES on s1, announced with its modelled
 * GPU time when the bandwidth is known. */
static void timed_copy(struct state *st, const struct options *opt, const char *what)
{
	if (!rt_ok(cudaMemcpyAsync(st->d_b, st->h_pin, BIG_BYTES, cudaMemcpyHostToDevice, st->s1),
	           what))
		return;
	if (opt->htod_pinned_bw > 0)
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		           "stream=$s1 api=cudaMemcpyAsync @duration_ns=%.0f",
		           addr(st->h_pin), addr(st->d_b), BIG_BYTES, modelled_ns(opt, BIG_BYTES));
	else
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		           "stream=$s1 api=cudaMemcpyAsync",
		           addr(st->h_pin), addr(st->d_b), BIG_BYTES);
}

/*
 * Events around one pinned copy measure its modelled GPU time. A first copy
 * keeps s1 busy, so that e0 completes when that copy ends and the timed copy
 * starts: the host's own delays do not enter the measurement.
 */
static void test_events(struct state *st, const struct options *opt)
{
	float ms = 0;
	cudaError_t r;

	rt_ok(cudaEventCreate(&st->e0), "cudaEventCreate");
	rt_ok(cudaEventCreate(&st->e1), "cudaEventCreate again");
	timed_copy(st, opt, "cudaMemcpyAsync HtoD pinned before the events");
	rt_ok(cudaEventRecord(st->e0, st->s1), "cudaEventRecord(e0, s1)");
	timed_copy(st, opt, "cudaMemcpyAsync HtoD pinned between the events");
	rt_ok(cudaEventRecord(st->e1, st->s1), "cudaEventRecord(e1, s1)");
	/* From pinned memory the copies are asynchronous: 20 ms still queued. */
	if (opt->htod_pinned_bw > 0) {
		r = cudaStreamQuery(st->s1);
		tap_ok(r == cudaErrorNotReady,
		       "s1 is busy right after the pinned cudaMemcpyAsync calls return (%s)",
		       cudaGetErrorName(r));
		cudaGetLastError();
	}
	rt_ok(cudaEventSynchronize(st->e1), "cudaEventSynchronize(e1)");
	rt_ok(cudaEventQuery(st->e1), "cudaEventQuery(e1) after it completed");
	r = cudaEventElapsedTime(&ms, st->e0, st->e1);
	rt_ok(r, "cudaEventElapsedTime");
	tap_ok(ms > 0, "cudaEventElapsedTime is positive (%.4f ms)", ms);
	/* Without --htod-pinned-bw the modelled copy time is unknown. */
	if (opt->htod_pinned_bw <= 0)
		return;
	double want = modelled_ns(opt, BIG_BYTES) / 1e6;
	/* cuda_runtime_api.h: a resolution of around 0.5 microseconds. */
	tap_ok(ms >= want - 0.002 && ms <= want + 0.002,
	       "the events measure the modelled copy time: %.4f ms for %.4f ms", ms, want);
}

/* More than the device has: cudaErrorMemoryAllocation, kept once. */
static void test_out_of_memory(void)
{
	size_t free_mem = 0, total = 0;
	void *p = NULL;

	rt_ok(cudaMemGetInfo(&free_mem, &total), "cudaMemGetInfo");
	printf("# fact total=%zu\n", total);
	size_t request = total + BLOCK_BYTES;
	cudaError_t r = cudaMalloc(&p, request);
	tap_ok(r == cudaErrorMemoryAllocation,
	       "cudaMalloc(total + 2 MiB) fails with cudaErrorMemoryAllocation (%s)",
	       cudaGetErrorName(r));
	if (r != cudaSuccess)
		tap_expect("op=alloc_failed kind=device dev=0 size=%zu total=%zu api=cudaMalloc",
		           request, total);
	else
		cudaFree(p);
	tap_ok(cudaPeekAtLastError() == cudaErrorMemoryAllocation,
	       "cudaPeekAtLastError returns the error");
	tap_ok(cudaPeekAtLastError() == cudaErrorMemoryAllocation,
	       "cudaPeekAtLastError does not reset it");
	tap_ok(cudaGetLastError() == cudaErrorMemoryAllocation,
	       "cudaGetLastError returns the error");
	tap_ok(cudaGetLastError() == cudaSuccess, "cudaGetLastError returns it only once");
	rt_ok(cudaMalloc(&p, SMALL_BYTES), "out of memory is not sticky: cudaMalloc works again");
	if (p) {
		tap_expect("op=alloc kind=device addr=0x%llx size=%zu api=cudaMalloc", addr(p),
		           SMALL_BYTES);
		if (rt_ok(cudaFree(p), "cudaFree"))
			tap_expect("op=free kind=device addr=0x%llx size=%zu api=cudaFree", addr(p),
			           SMALL_BYTES);
	}
}

static void free_device(void *p, size_t size, const char *what)
{
	if (!p)
		return;
	if (rt_ok(cudaFree(p), what))
		tap_expect("op=free kind=device dev=0 addr=0x%llx size=%zu api=cudaFree", addr(p),
		           size);
}

/* Free blocks first, first + 2, ...: one test for all of them. */
static void free_blocks(void **blocks, int n, int first, const char *which)
{
	int failed = 0;

	for (int i = first; i < n; i += 2) {
		cudaError_t r = cudaFree(blocks[i]);
		if (r == cudaSuccess)
			tap_expect("op=free kind=device dev=0 addr=0x%llx size=%zu api=cudaFree",
			           addr(blocks[i]), BLOCK_BYTES);
		else
			failed++;
	}
	tap_ok(failed == 0, "cudaFree of the %s blocks (%d failed)", which, failed);
}

/* Fill the device with 2 MiB blocks, free every other one: plenty of free
 * memory, no 4 MiB hole. */
static void test_fragmentation(void)
{
	static void *blocks[MAX_BLOCKS];
	size_t free_start = 0, free_holes = 0, free_end = 0, total = 0;
	int n = 0;
	cudaError_t r = cudaSuccess;
	void *p = NULL;

	rt_ok(cudaMemGetInfo(&free_start, &total), "cudaMemGetInfo before filling the device");
	while (n < MAX_BLOCKS) {
		r = cudaMalloc(&blocks[n], BLOCK_BYTES);
		if (r != cudaSuccess)
			break;
		tap_expect("op=alloc kind=device addr=0x%llx size=%zu reserved=%zu api=cudaMalloc",
		           addr(blocks[n]), BLOCK_BYTES, BLOCK_BYTES);
		n++;
	}
	tap_ok(r == cudaErrorMemoryAllocation && n >= 4,
	       "filling the device with 2 MiB blocks ends in cudaErrorMemoryAllocation after %d "
	       "blocks (%s)",
	       n, cudaGetErrorName(r));
	if (r != cudaSuccess)
		tap_expect("op=alloc_failed kind=device size=%zu api=cudaMalloc", BLOCK_BYTES);
	cudaGetLastError();
	free_blocks(blocks, n, 0, "even");

	rt_ok(cudaMemGetInfo(&free_holes, &total), "cudaMemGetInfo with holes");
	size_t request = 2 * BLOCK_BYTES;
	tap_ok(free_holes > request, "free memory (%zu) exceeds the 4 MiB request", free_holes);
	r = cudaMalloc(&p, request);
	tap_ok(r == cudaErrorMemoryAllocation,
	       "cudaMalloc(4 MiB) fails for want of a 4 MiB hole (%s)", cudaGetErrorName(r));
	if (r != cudaSuccess)
		tap_expect("op=alloc_failed kind=device dev=0 size=%zu free=%zu free>=%zu "
		           "largest_free<%zu total=%zu api=cudaMalloc",
		           request, free_holes, request, request, total);
	else
		free_device(p, request, "cudaFree of the unexpected block");
	tap_ok(cudaGetLastError() == cudaErrorMemoryAllocation,
	       "cudaGetLastError reports the fragmentation failure");
	free_blocks(blocks, n, 1, "odd");
	rt_ok(cudaMemGetInfo(&free_end, &total), "cudaMemGetInfo after freeing every block");
	tap_ok(free_end == free_start, "every block went back to the heap (%zu, was %zu)", free_end,
	       free_start);
}

static void teardown(struct state *st)
{
	if (st->h_reg && rt_ok(cudaHostUnregister(st->h_reg), "cudaHostUnregister"))
		tap_expect(
		    "op=free kind=host_registered addr=0x%llx size=%zu api=cudaHostUnregister",
		    addr(st->h_reg), REG_BYTES);
	if (st->h_pin && rt_ok(cudaFreeHost(st->h_pin), "cudaFreeHost(cudaMallocHost memory)"))
		tap_expect("op=free kind=host_pinned addr=0x%llx size=%zu api=cudaFreeHost",
		           addr(st->h_pin), BIG_BYTES);
	if (st->h_pin2 && rt_ok(cudaFreeHost(st->h_pin2), "cudaFreeHost(cudaHostAlloc memory)"))
		tap_expect("op=free kind=host_pinned addr=0x%llx size=%zu api=cudaFreeHost",
		           addr(st->h_pin2), SMALL_BYTES);
	rt_ok(cudaEventDestroy(st->e0), "cudaEventDestroy(e0)");
	rt_ok(cudaEventDestroy(st->e1), "cudaEventDestroy(e1)");
	rt_ok(cudaStreamDestroy(st->s1), "cudaStreamDestroy(s1)");
	rt_ok(cudaStreamDestroy(st->s2), "cudaStreamDestroy(s2)");
	rt_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

static void parse_options(int argc, char **argv, struct options *opt)
{
	opt->htod_pinned_bw = 0;
	opt->copy_latency_ns = 1500; /* the README's default */
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--htod-pinned-bw=", 17))
			opt->htod_pinned_bw = strtod(argv[i] + 17, NULL);
		else if (!strncmp(argv[i], "--copy-latency-ns=", 18))
			opt->copy_latency_ns = strtod(argv[i] + 18, NULL);
		else
			fprintf(stderr, "rt-roundtrip: ignoring '%s'\n", argv[i]);
	}
}

int main(int argc, char **argv)
{
	struct options opt;
	struct state st;
	int count = 0;

	memset(&st, 0, sizeof(st));
	parse_options(argc, argv, &opt);
	printf("# fact pid=%d\n", (int)getpid());
	st.h_src = (unsigned char *)malloc(BIG_BYTES);
	st.h_dst = (unsigned char *)malloc(BIG_BYTES);
	st.h_reg = (unsigned char *)aligned_alloc(4096, REG_BYTES);
	if (!st.h_src || !st.h_dst || !st.h_reg) {
		printf("Bail out! out of host memory\n");
		return 1;
	}

	if (!rt_ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount") || count < 1) {
		printf("Bail out! no simulated device\n");
		return 1;
	}
	rt_ok(cudaSetDevice(0), "cudaSetDevice(0)");
	rt_ok(cudaFree(0), "cudaFree(NULL) initialises the context and frees nothing");

	test_device_roundtrip(&st);
	test_default_kind(&st);
	test_streams(&st);
	test_launches(&st);
	test_pinned(&st);
	if (st.h_pin && st.h_pin2) {
		test_async(&st);
		test_events(&st, &opt);
	}
	test_out_of_memory();
	free_device(st.d_a, BIG_BYTES, "cudaFree(d_a)");
	free_device(st.d_b, BIG_BYTES, "cudaFree(d_b)");
	free_device(st.d_c, SMALL_BYTES, "cudaFree(d_c)");
	test_fragmentation();
	teardown(&st);

	free(st.h_src);
	free(st.h_dst);
	free(st.h_reg);
	return tap_done();
}
