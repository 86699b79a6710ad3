/* SPDX-License-Identifier: MIT */
/*
 * drv-roundtrip.c - the driver API end to end, as an ordinary gcc program
 * linked against the toolkit's stub libcuda: a created context, device
 * memory round trips, pinned host memory, streams, events, D8/D16/D32
 * memsets, a cubin module and cuLaunchKernel, virtual memory management,
 * the default memory pool, and out of memory.
 *
 * Prints TAP, plus "# fact" and "# expect" lines that tests/sim/drv-roundtrip.sh
 * compares with the simulator's ledger.
 *
 * Options:
 *   --cubin=PATH            the cubin of drv-kernels.cu (module tests fail
 *                           without it)
 *   --htod-pinned-bw=B --copy-latency-ns=L   as given to the simulator: the
 *                           events around a pinned copy must measure the
 *                           modelled time
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tap-cuda.h"

#define MIB          ((size_t)1 << 20)
#define BIG_BYTES    (3 * MIB) /* reserved as 4 MiB */
#define SMALL_BYTES  ((size_t)4096)
#define MEMSET_BYTES ((size_t)1536)

struct options {
	const char *cubin;
	double htod_pinned_bw;
	double copy_latency_ns;
};

struct state {
	CUdevice dev;
	CUcontext ctx;
	CUstream s;
	CUdeviceptr d_a, d_b, d_c;
	unsigned char *h_src, *h_dst; /* pageable */
	unsigned char *h_pin;         /* cuMemAllocHost, BIG_BYTES */
	unsigned char *h_pin2;        /* cuMemHostAlloc, SMALL_BYTES */
};

static unsigned long long haddr(const void *p)
{
	return (unsigned long long)(uintptr_t)p;
}

static int cu_is(CUresult r, CUresult want, const char *what)
{
	return tap_ok(r == want, "%s returns %d (got %d)", what, (int)want, (int)r);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 167 + seed * 13 + (i >> 9));
}

static size_t free_memory(void)
{
	size_t free_mem = 0, total = 0;

	if (cuMemGetInfo(&free_mem, &total) != CUDA_SUCCESS)
		return 0;
	return free_mem;
}

static void device_free(CUdeviceptr p, size_t size, const char *what)
{
	if (!p)
		return;
	if (cu_ok(cuMemFree(p), what))
		tap_expect("op=free kind=device dev=0 addr=0x%llx size=%zu api=cuMemFree_v2",
		           (unsigned long long)p, size);
}

static int test_init(struct state *st)
{
	int version = 0, count = 0;
	char name[128] = "";

	if (!cu_ok(cuInit(0), "cuInit"))
		return 0;
	cu_ok(cuDriverGetVersion(&version), "cuDriverGetVersion");
	tap_ok(version >= 13000, "the driver supports CUDA 13 (%d)", version);
	cu_ok(cuDeviceGetCount(&count), "cuDeviceGetCount");
	if (!tap_ok(count >= 1, "at least one device (%d)", count))
		return 0;
	cu_ok(cuDeviceGet(&st->dev, 0), "cuDeviceGet(0)");
	cu_ok(cuDeviceGetName(name, sizeof(name), st->dev), "cuDeviceGetName");
	tap_diag("device 0: %s", name);
	if (!cu_ok(cuCtxCreate(&st->ctx, NULL, 0, st->dev), "cuCtxCreate"))
		return 0;
	tap_expect("op=ctx_create dev=0 primary=0");
	return 1;
}

/* Pageable host -> device -> device -> host, with cuMemcpy for DtoD. */
static void test_roundtrip(struct state *st)
{
	size_t before = free_memory();

	if (cu_ok(cuMemAlloc(&st->d_a, BIG_BYTES), "cuMemAlloc(3 MiB)"))
		tap_expect("op=alloc kind=device dev=0 addr=0x%llx size=%zu reserved=%zu "
		           "api=cuMemAlloc_v2",
		           (unsigned long long)st->d_a, BIG_BYTES, 4 * MIB);
	tap_ok(before - free_memory() == 4 * MIB,
	       "3 MiB takes 4 MiB of free memory (2 MiB granularity)");
	if (cu_ok(cuMemAlloc(&st->d_b, BIG_BYTES), "cuMemAlloc(3 MiB) again"))
		tap_expect("op=alloc kind=device dev=0 addr=0x%llx size=%zu reserved=%zu "
		           "api=cuMemAlloc_v2",
		           (unsigned long long)st->d_b, BIG_BYTES, 4 * MIB);
	if (cu_ok(cuMemAlloc(&st->d_c, SMALL_BYTES), "cuMemAlloc(4096)"))
		tap_expect("op=alloc kind=device dev=0 addr=0x%llx size=%zu reserved=%zu "
		           "api=cuMemAlloc_v2",
		           (unsigned long long)st->d_c, SMALL_BYTES, SMALL_BYTES);

	fill(st->h_src, BIG_BYTES, 1);
	memset(st->h_dst, 0, BIG_BYTES);
	if (cu_ok(cuMemcpyHtoD(st->d_a, st->h_src, BIG_BYTES), "cuMemcpyHtoD"))
		tap_expect(
		    "op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "dev=0 stream=$legacy api=cuMemcpyHtoD_v2",
		    haddr(st->h_src), (unsigned long long)st->d_a, BIG_BYTES);
	if (cu_ok(cuMemcpyDtoD(st->d_b, st->d_a, BIG_BYTES), "cuMemcpyDtoD"))
		tap_expect("op=memcpy dir=DtoD src=0x%llx dst=0x%llx bytes=%zu host=none dev=0 "
		           "stream=$legacy api=cuMemcpyDtoD_v2",
		           (unsigned long long)st->d_a, (unsigned long long)st->d_b, BIG_BYTES);
	if (cu_ok(cuMemcpyDtoH(st->h_dst, st->d_b, BIG_BYTES), "cuMemcpyDtoH"))
		tap_expect(
		    "op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "dev=0 stream=$legacy api=cuMemcpyDtoH_v2",
		    (unsigned long long)st->d_b, haddr(st->h_dst), BIG_BYTES);
	tap_ok(memcmp(st->h_src, st->h_dst, BIG_BYTES) == 0,
	       "HtoD, DtoD, DtoH brings back every byte");

	/* cuMemcpy infers the direction from unified addresses. */
	if (cu_ok(cuMemcpy(st->d_c, st->d_a + 100, SMALL_BYTES), "cuMemcpy device to device"))
		tap_expect(
		    "op=memcpy dir=DtoD src=0x%llx dst=0x%llx bytes=%zu host=none api=cuMemcpy",
		    (unsigned long long)(st->d_a + 100), (unsigned long long)st->d_c, SMALL_BYTES);
	memset(st->h_dst, 0, SMALL_BYTES);
	if (cu_ok(cuMemcpy((CUdeviceptr)(uintptr_t)st->h_dst, st->d_c, SMALL_BYTES),
	          "cuMemcpy device to host"))
		tap_expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable "
		           "api=cuMemcpy",
		           (unsigned long long)st->d_c, haddr(st->h_dst), SMALL_BYTES);
	tap_ok(memcmp(st->h_dst, st->h_src + 100, SMALL_BYTES) == 0,
	       "cuMemcpy at an offset inside an allocation copies the right bytes");
}

static void test_host_memory(struct state *st)
{
	unsigned int flags = 0;

	if (cu_ok(cuMemAllocHost((void **)&st->h_pin, BIG_BYTES), "cuMemAllocHost"))
		tap_expect("op=alloc kind=host_pinned addr=0x%llx size=%zu api=cuMemAllocHost_v2",
		           haddr(st->h_pin), BIG_BYTES);
	if (cu_ok(cuMemHostAlloc((void **)&st->h_pin2, SMALL_BYTES, 0), "cuMemHostAlloc(0)"))
		tap_expect("op=alloc kind=host_pinned addr=0x%llx size=%zu api=cuMemHostAlloc",
		           haddr(st->h_pin2), SMALL_BYTES);
	if (!st->h_pin || !st->h_pin2)
		return;
	cu_ok(cuMemHostGetFlags(&flags, st->h_pin2), "cuMemHostGetFlags");
	tap_ok(flags & CU_MEMHOSTALLOC_DEVICEMAP,
	       "cuMemHostAlloc(0) memory reports CU_MEMHOSTALLOC_DEVICEMAP (0x%x)", flags);

	fill(st->h_pin, BIG_BYTES, 2);
	if (cu_ok(cuMemcpyHtoD(st->d_a, st->h_pin, BIG_BYTES), "cuMemcpyHtoD from pinned memory"))
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=1 "
		           "stream=$legacy api=cuMemcpyHtoD_v2",
		           haddr(st->h_pin), (unsigned long long)st->d_a, BIG_BYTES);
	memset(st->h_pin2, 0, SMALL_BYTES);
	if (cu_ok(cuMemcpyDtoH(st->h_pin2, st->d_a, SMALL_BYTES), "cuMemcpyDtoH to pinned memory"))
		tap_expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=1 "
		           "stream=$legacy api=cuMemcpyDtoH_v2",
		           (unsigned long long)st->d_a, haddr(st->h_pin2), SMALL_BYTES);
	tap_ok(memcmp(st->h_pin2, st->h_pin, SMALL_BYTES) == 0,
	       "pinned to device to pinned brings back every byte");
}

static void test_stream_copies(struct state *st)
{
	if (!cu_ok(cuStreamCreate(&st->s, CU_STREAM_NON_BLOCKING), "cuStreamCreate(NON_BLOCKING)"))
		return;
	tap_expect("op=stream_create dev=0 stream=$s flags=1");
	fill(st->h_pin, BIG_BYTES, 3);
	if (cu_ok(cuMemcpyHtoDAsync(st->d_b, st->h_pin, BIG_BYTES, st->s),
	          "cuMemcpyHtoDAsync pinned"))
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		           "stream=$s stream!=$legacy api=cuMemcpyHtoDAsync_v2",
		           haddr(st->h_pin), (unsigned long long)st->d_b, BIG_BYTES);
	memset(st->h_pin2, 0, SMALL_BYTES);
	if (cu_ok(cuMemcpyDtoHAsync(st->h_pin2, st->d_b + SMALL_BYTES, SMALL_BYTES, st->s),
	          "cuMemcpyDtoHAsync pinned"))
		tap_expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		           "stream=$s api=cuMemcpyDtoHAsync_v2",
		           (unsigned long long)(st->d_b + SMALL_BYTES), haddr(st->h_pin2),
		           SMALL_BYTES);
	if (cu_ok(cuMemcpyDtoDAsync(st->d_a, st->d_b, BIG_BYTES, st->s), "cuMemcpyDtoDAsync"))
		tap_expect("op=memcpy dir=DtoD src=0x%llx dst=0x%llx bytes=%zu host=none sync=0 "
		           "stream=$s api=cuMemcpyDtoDAsync_v2",
		           (unsigned long long)st->d_b, (unsigned long long)st->d_a, BIG_BYTES);
	cu_ok(cuStreamSynchronize(st->s), "cuStreamSynchronize");
	tap_ok(memcmp(st->h_pin2, st->h_pin + SMALL_BYTES, SMALL_BYTES) == 0,
	       "async HtoD then DtoH on one stream brings back every byte");
	cu_ok(cuStreamQuery(st->s), "cuStreamQuery on an idle stream");
}

static int words_are(const unsigned char *p, size_t bytes, const void *word, size_t size)
{
	for (size_t i = 0; i + size <= bytes; i += size)
		if (memcmp(p + i, word, size) != 0)
			return 0;
	return 1;
}

static void read_back(struct state *st, size_t bytes, const char *what)
{
	memset(st->h_dst, 0, bytes);
	if (cu_ok(cuMemcpyDtoH(st->h_dst, st->d_c, bytes), what))
		tap_expect(
		    "op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable sync=1 "
		    "api=cuMemcpyDtoH_v2",
		    (unsigned long long)st->d_c, haddr(st->h_dst), bytes);
}

static void test_memsets(struct state *st)
{
	const unsigned char b = 0xab;
	const unsigned short h = 0xbeef;
	const unsigned int w = 0xdeadbeefu, w2 = 0x01020304u;

	if (cu_ok(cuMemsetD8(st->d_c, b, MEMSET_BYTES), "cuMemsetD8"))
		tap_expect("op=memset dev=0 dst=0x%llx bytes=%zu value=%u elem=1 stream=$legacy "
		           "api=cuMemsetD8_v2",
		           (unsigned long long)st->d_c, MEMSET_BYTES, b);
	read_back(st, MEMSET_BYTES, "cuMemcpyDtoH after cuMemsetD8");
	tap_ok(words_are(st->h_dst, MEMSET_BYTES, &b, 1), "cuMemsetD8 wrote 0xab everywhere");

	if (cu_ok(cuMemsetD16(st->d_c, h, MEMSET_BYTES / 2), "cuMemsetD16"))
		tap_expect("op=memset dev=0 dst=0x%llx bytes=%zu value=%u elem=2 stream=$legacy "
		           "api=cuMemsetD16_v2",
		           (unsigned long long)st->d_c, MEMSET_BYTES, h);
	read_back(st, MEMSET_BYTES, "cuMemcpyDtoH after cuMemsetD16");
	tap_ok(words_are(st->h_dst, MEMSET_BYTES, &h, 2), "cuMemsetD16 wrote 0xbeef everywhere");

	if (cu_ok(cuMemsetD32(st->d_c, w, MEMSET_BYTES / 4), "cuMemsetD32"))
		tap_expect("op=memset dev=0 dst=0x%llx bytes=%zu value=%u elem=4 stream=$legacy "
		           "api=cuMemsetD32_v2",
		           (unsigned long long)st->d_c, MEMSET_BYTES, w);
	read_back(st, MEMSET_BYTES, "cuMemcpyDtoH after cuMemsetD32");
	tap_ok(words_are(st->h_dst, MEMSET_BYTES, &w, 4),
	       "cuMemsetD32 wrote 0xdeadbeef everywhere");

	if (!st->s)
		return;
	if (cu_ok(cuMemsetD32Async(st->d_c, w2, MEMSET_BYTES / 4, st->s), "cuMemsetD32Async"))
		tap_expect("op=memset dev=0 dst=0x%llx bytes=%zu value=%u elem=4 sync=0 stream=$s "
		           "api=cuMemsetD32Async",
		           (unsigned long long)st->d_c, MEMSET_BYTES, w2);
	cu_ok(cuStreamSynchronize(st->s), "cuStreamSynchronize after cuMemsetD32Async");
	read_back(st, MEMSET_BYTES, "cuMemcpyDtoH after cuMemsetD32Async");
	tap_ok(words_are(st->h_dst, MEMSET_BYTES, &w2, 4),
	       "cuMemsetD32Async wrote 0x01020304 everywhere");
}

static double modelled_ms(const struct options *opt)
{
	return (opt->copy_latency_ns + (double)BIG_BYTES * 1e9 / opt->htod_pinned_bw) / 1e6;
}

/* One pinned HtoD copy of BIG_BYTES on the stream, announced with its
 * modelled GPU time when the bandwidth is known. */
static void timed_copy(struct state *st, const struct options *opt, const char *what)
{
	if (!cu_ok(cuMemcpyHtoDAsync(st->d_a, st->h_pin, BIG_BYTES, st->s), what))
		return;
	if (opt->htod_pinned_bw > 0)
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		           "stream=$s api=cuMemcpyHtoDAsync_v2 @duration_ns=%.0f",
		           haddr(st->h_pin), (unsigned long long)st->d_a, BIG_BYTES,
		           modelled_ms(opt) * 1e6);
	else
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		           "stream=$s api=cuMemcpyHtoDAsync_v2",
		           haddr(st->h_pin), (unsigned long long)st->d_a, BIG_BYTES);
}

/* As in rt-roundtrip: a first copy keeps the stream busy, so that the events
 * bracket exactly the GPU time of the second. */
static void test_events(struct state *st, const struct options *opt)
{
	CUevent e0 = NULL, e1 = NULL;
	float ms = 0;

	if (!st->s)
		return;
	cu_ok(cuEventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate");
	cu_ok(cuEventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate again");
	timed_copy(st, opt, "cuMemcpyHtoDAsync before the events");
	cu_ok(cuEventRecord(e0, st->s), "cuEventRecord(e0)");
	timed_copy(st, opt, "cuMemcpyHtoDAsync between the events");
	cu_ok(cuEventRecord(e1, st->s), "cuEventRecord(e1)");
	if (opt->htod_pinned_bw > 0)
		cu_is(cuEventQuery(e1), CUDA_ERROR_NOT_READY,
		      "cuEventQuery while the copies are still running");
	cu_ok(cuEventSynchronize(e1), "cuEventSynchronize(e1)");
	cu_ok(cuEventQuery(e1), "cuEventQuery of a completed event");
	cu_ok(cuEventElapsedTime(&ms, e0, e1), "cuEventElapsedTime");
	tap_ok(ms > 0, "cuEventElapsedTime is positive (%.4f ms)", ms);
	/* Without --htod-pinned-bw the modelled copy time is unknown. */
	if (opt->htod_pinned_bw > 0)
		tap_ok(ms >= modelled_ms(opt) - 0.002 && ms <= modelled_ms(opt) + 0.002,
		       "the events measure the modelled copy time: %.4f ms for %.4f ms", ms,
		       modelled_ms(opt));
	cu_ok(cuEventDestroy(e0), "cuEventDestroy(e0)");
	cu_ok(cuEventDestroy(e1), "cuEventDestroy(e1)");
}

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *data = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0)
		goto end;
	data = malloc((size_t)n);
	if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
		free(data);
		data = NULL;
	}
	*size = (size_t)n;
end:
	fclose(f);
	return data;
}

static void launch_fill(struct state *st, CUfunction fill_fn)
{
	unsigned int n = SMALL_BYTES / 4, v = 0x5eed;
	CUdeviceptr ptr = st->d_c;
	void *args[] = { &ptr, &n, &v };

	if (cu_ok(cuLaunchKernel(fill_fn, 2, 1, 1, 64, 1, 1, 0, st->s, args, NULL),
	          "cuLaunchKernel(drv_fill) on the stream"))
		tap_expect(
		    "op=launch name=drv_fill dev=0 grid=2,1,1 block=64,1,1 shmem=0 stream=$s "
		    "api=cuLaunchKernel");
	cu_ok(cuStreamSynchronize(st->s), "cuStreamSynchronize after the launch");
}

static void launch_add(CUfunction add_fn, CUdeviceptr buf)
{
	unsigned int n = 16;
	float a = 1.5f;
	void *args[] = { &buf, &n, &a };

	if (cu_ok(cuLaunchKernel(add_fn, 3, 2, 2, 8, 4, 2, 128, NULL, args, NULL),
	          "cuLaunchKernel(drv_add) on the legacy stream"))
		tap_expect("op=launch name=drv_add dev=0 grid=3,2,2 block=8,4,2 shmem=128 "
		           "stream=$legacy api=cuLaunchKernel");
	cu_ok(cuCtxSynchronize(), "cuCtxSynchronize after the launch");
}

static void test_module(struct state *st, const struct options *opt)
{
	CUmodule mod = NULL, mod2 = NULL;
	CUfunction fill_fn = NULL, add_fn = NULL, missing = NULL;
	size_t size = 0;
	void *image;

	if (!opt->cubin) {
		tap_ok(0, "module tests: no cubin given (--cubin=PATH: drv-kernels.cu built with "
		          "nvcc -cubin)");
		return;
	}
	if (!cu_ok(cuModuleLoad(&mod, opt->cubin), "cuModuleLoad(drv-kernels.cubin)"))
		return;
	tap_expect("op=module_load");
	cu_ok(cuModuleGetFunction(&fill_fn, mod, "drv_fill"), "cuModuleGetFunction(drv_fill)");
	cu_is(cuModuleGetFunction(&missing, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND,
	      "cuModuleGetFunction of a missing kernel");
	if (fill_fn && st->s)
		launch_fill(st, fill_fn);
	cu_ok(cuModuleUnload(mod), "cuModuleUnload");

	image = read_file(opt->cubin, &size);
	if (!tap_ok(image != NULL, "read %s", opt->cubin))
		return;
	if (cu_ok(cuModuleLoadData(&mod2, image), "cuModuleLoadData of the same cubin")) {
		tap_expect("op=module_load");
		if (cu_ok(cuModuleGetFunction(&add_fn, mod2, "drv_add"),
		          "cuModuleGetFunction(drv_add)"))
			launch_add(add_fn, st->d_a);
		cu_ok(cuModuleUnload(mod2), "cuModuleUnload of the second module");
	}
	free(image);
}

/* Reserve, create, map, grant access, use, release while mapped, unmap. */
static void test_vmm(struct state *st)
{
	CUmemAllocationProp prop;
	CUmemAccessDesc access;
	CUmemGenericAllocationHandle handle = 0;
	CUdeviceptr va = 0;
	size_t gran = 0, size, before;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = st->dev;
	cu_ok(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
	      "cuMemGetAllocationGranularity");
	if (!tap_ok(gran == 2 * MIB, "the granularity is 2 MiB (%zu)", gran))
		return;
	size = 2 * gran;
	before = free_memory();
	if (!cu_ok(cuMemAddressReserve(&va, size, 0, 0, 0), "cuMemAddressReserve"))
		return;
	if (!cu_ok(cuMemCreate(&handle, size, &prop, 0), "cuMemCreate"))
		goto free_va;
	tap_expect("op=alloc kind=vmm_physical dev=0 size=%zu api=cuMemCreate", size);
	tap_ok(before - free_memory() == size, "cuMemCreate takes its size from free memory");
	if (!cu_ok(cuMemMap(va, size, 0, handle, 0), "cuMemMap"))
		goto release;
	tap_expect("op=alloc kind=vmm_map addr=0x%llx size=%zu api=cuMemMap",
	           (unsigned long long)va, size);
	memset(&access, 0, sizeof(access));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	cu_ok(cuMemSetAccess(va, size, &access, 1), "cuMemSetAccess(READWRITE)");

	fill(st->h_src, gran, 9);
	if (cu_ok(cuMemcpyHtoD(va + gran, st->h_src, gran), "cuMemcpyHtoD into the mapping"))
		tap_expect("op=memcpy dir=HtoD src=0x%llx dst=0x%llx bytes=%zu host=pageable "
		           "api=cuMemcpyHtoD_v2",
		           haddr(st->h_src), (unsigned long long)(va + gran), gran);
	/* cuda.h: the memory is freed once it is both released and unmapped. */
	cu_ok(cuMemRelease(handle), "cuMemRelease while still mapped");
	handle = 0;
	memset(st->h_dst, 0, gran);
	if (cu_ok(cuMemcpyDtoH(st->h_dst, va + gran, gran), "cuMemcpyDtoH after cuMemRelease"))
		tap_expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pageable "
		           "api=cuMemcpyDtoH_v2",
		           (unsigned long long)(va + gran), haddr(st->h_dst), gran);
	tap_ok(memcmp(st->h_src, st->h_dst, gran) == 0,
	       "a released but mapped allocation keeps its bytes");
	if (cu_ok(cuMemUnmap(va, size), "cuMemUnmap")) {
		tap_expect("op=free kind=vmm_map addr=0x%llx size=%zu", (unsigned long long)va,
		           size);
		tap_expect("op=free kind=vmm_physical dev=0 size=%zu", size);
	}
	tap_ok(free_memory() == before, "unmapped and released memory is free again");
release:
	if (handle)
		cu_ok(cuMemRelease(handle), "cuMemRelease");
free_va:
	cu_ok(cuMemAddressFree(va, size), "cuMemAddressFree");
}

/* Stream-ordered allocation from the default pool (release threshold 0). */
static void test_pool(struct state *st)
{
	CUmemoryPool pool = NULL;
	CUdeviceptr p = 0;
	cuuint64_t used = 1, reserved = 1;
	const unsigned int w = 0x01020304u;

	if (!st->s)
		return;
	cu_ok(cuDeviceGetDefaultMemPool(&pool, st->dev), "cuDeviceGetDefaultMemPool");
	if (!cu_ok(cuMemAllocAsync(&p, SMALL_BYTES, st->s), "cuMemAllocAsync"))
		return;
	tap_expect("op=alloc kind=async dev=0 addr=0x%llx size=%zu stream=$s api=cuMemAllocAsync",
	           (unsigned long long)p, SMALL_BYTES);
	if (cu_ok(cuMemsetD32Async(p, w, SMALL_BYTES / 4, st->s),
	          "cuMemsetD32Async on pool memory"))
		tap_expect("op=memset dst=0x%llx bytes=%zu value=%u elem=4 stream=$s "
		           "api=cuMemsetD32Async",
		           (unsigned long long)p, SMALL_BYTES, w);
	memset(st->h_pin2, 0, SMALL_BYTES);
	if (cu_ok(cuMemcpyDtoHAsync(st->h_pin2, p, SMALL_BYTES, st->s),
	          "cuMemcpyDtoHAsync from pool memory"))
		tap_expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu host=pinned sync=0 "
		           "stream=$s api=cuMemcpyDtoHAsync_v2",
		           (unsigned long long)p, haddr(st->h_pin2), SMALL_BYTES);
	if (cu_ok(cuMemFreeAsync(p, st->s), "cuMemFreeAsync"))
		tap_expect("op=free kind=async dev=0 addr=0x%llx size=%zu api=cuMemFreeAsync",
		           (unsigned long long)p, SMALL_BYTES);
	cu_ok(cuStreamSynchronize(st->s), "cuStreamSynchronize after cuMemFreeAsync");
	tap_ok(words_are(st->h_pin2, SMALL_BYTES, &w, 4),
	       "stream-ordered pool memory holds what the memset wrote");
	cu_ok(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used),
	      "cuMemPoolGetAttribute(USED_MEM_CURRENT)");
	tap_ok(used == 0, "the pool has nothing in use after the free (%llu)",
	       (unsigned long long)used);
	cu_ok(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved),
	      "cuMemPoolGetAttribute(RESERVED_MEM_CURRENT)");
	tap_ok(reserved == 0,
	       "with release threshold 0 the synchronisation released the pool's memory (%llu)",
	       (unsigned long long)reserved);
	tap_expect("op=pool_release dev=0 bytes>0");
}

static void test_out_of_memory(void)
{
	size_t free_mem = 0, total = 0;
	CUdeviceptr p = 0;

	cu_ok(cuMemGetInfo(&free_mem, &total), "cuMemGetInfo");
	printf("# fact total=%zu\n", total);
	CUresult r = cuMemAlloc(&p, total + 2 * MIB);
	cu_is(r, CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(total + 2 MiB)");
	if (r != CUDA_SUCCESS)
		tap_expect("op=alloc_failed kind=device dev=0 size=%zu total=%zu api=cuMemAlloc_v2",
		           total + 2 * MIB, total);
	else
		device_free(p, total + 2 * MIB, "cuMemFree of the impossible allocation");
}

static void teardown(struct state *st)
{
	device_free(st->d_a, BIG_BYTES, "cuMemFree(d_a)");
	device_free(st->d_b, BIG_BYTES, "cuMemFree(d_b)");
	device_free(st->d_c, SMALL_BYTES, "cuMemFree(d_c)");
	if (st->h_pin && cu_ok(cuMemFreeHost(st->h_pin), "cuMemFreeHost(cuMemAllocHost memory)"))
		tap_expect("op=free kind=host_pinned addr=0x%llx size=%zu api=cuMemFreeHost",
		           haddr(st->h_pin), BIG_BYTES);
	if (st->h_pin2 && cu_ok(cuMemFreeHost(st->h_pin2), "cuMemFreeHost(cuMemHostAlloc memory)"))
		tap_expect("op=free kind=host_pinned addr=0x%llx size=%zu api=cuMemFreeHost",
		           haddr(st->h_pin2), SMALL_BYTES);
	if (st->s && cu_ok(cuStreamDestroy(st->s), "cuStreamDestroy"))
		tap_expect("op=stream_destroy stream=$s");
	if (cu_ok(cuCtxDestroy(st->ctx), "cuCtxDestroy"))
		tap_expect("op=ctx_destroy dev=0 primary=0");
}

static void parse_options(int argc, char **argv, struct options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->copy_latency_ns = 1500;
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--cubin=", 8))
			opt->cubin = argv[i] + 8;
		else if (!strncmp(argv[i], "--htod-pinned-bw=", 17))
			opt->htod_pinned_bw = strtod(argv[i] + 17, NULL);
		else if (!strncmp(argv[i], "--copy-latency-ns=", 18))
			opt->copy_latency_ns = strtod(argv[i] + 18, NULL);
		else
			fprintf(stderr, "drv-roundtrip: ignoring '%s'\n", argv[i]);
	}
}

int main(int argc, char **argv)
{
	struct options opt;
	struct state st;

	memset(&st, 0, sizeof(st));
	parse_options(argc, argv, &opt);
	printf("# fact pid=%d\n", (int)getpid());
	st.h_src = malloc(BIG_BYTES);
	st.h_dst = malloc(BIG_BYTES);
	if (!st.h_src || !st.h_dst) {
		printf("Bail out! out of host memory\n");
		return 1;
	}
	if (!test_init(&st)) {
		printf("Bail out! no context\n");
		return 1;
	}
	test_roundtrip(&st);
	test_host_memory(&st);
	if (st.h_pin && st.h_pin2) {
		test_stream_copies(&st);
		test_memsets(&st);
		test_events(&st, &opt);
		test_module(&st, &opt);
		test_pool(&st);
	}
	test_vmm(&st);
	test_out_of_memory();
	teardown(&st);
	free(st.h_src);
	free(st.h_dst);
	return tap_done();
}
