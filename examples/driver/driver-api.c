/* SPDX-License-Identifier: MIT */
/*
 * driver-api.c - the same kinds of work as the runtime examples, through
 * the driver API alone (built with a C compiler, no nvcc): a context of its
 * own; device, pitched, pinned host, registered host, managed and
 * stream-ordered allocations, a pool of its own, and virtual memory
 * management (reserve, create, map, set access, unmap, release); copies in
 * every direction, synchronous and asynchronous; memsets; a kernel loaded
 * from PTX and launched; one allocation too large for the device. Prints
 * each step.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>
#include "driver-check.h"

#define BYTES (1 << 20)

/* A kernel in PTX, which the driver compiles when the module is loaded. */
static const char fill_ptx[] = ".version 8.0\n"
                               ".target sm_52\n"
                               ".address_size 64\n"
                               ".visible .entry fill(.param .u64 data, .param .u32 count)\n"
                               "{\n"
                               "\tret;\n"
                               "}\n";

struct state {
	CUdevice device;
	CUcontext context;
	CUstream stream;
	CUdeviceptr buffer;
	CUdeviceptr buffer2;
	void *pinned;
	char *pageable;
};

static void device_allocations(void)
{
	CUdeviceptr small;
	CUdeviceptr pitched;
	size_t pitch;
	CUdeviceptr huge;
	CUresult result;

	CHECK(cuMemAlloc(&small, 1000));
	printf("cuMemAlloc 1000 bytes -> 0x%llx\n", (unsigned long long)small);
	CHECK(cuMemAllocPitch(&pitched, &pitch, 1000, 100, 4));
	printf("cuMemAllocPitch 1000 x 100 -> 0x%llx, pitch %zu\n", (unsigned long long)pitched,
	       pitch);
	CHECK(cuMemFree(pitched));
	CHECK(cuMemFree(small));
	printf("cuMemFree both\n");

	result = cuMemAlloc(&huge, (size_t)1 << 44);
	printf("cuMemAlloc %zu bytes -> %s\n", (size_t)1 << 44,
	       result == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "unexpected");
	if (result != CUDA_ERROR_OUT_OF_MEMORY)
		exit(1);
}

static void host_allocations(void)
{
	const size_t registered_size = 128 << 10;
	void *portable;
	void *registered;
	CUdeviceptr managed;

	CHECK(cuMemHostAlloc(&portable, 64 << 10, CU_MEMHOSTALLOC_PORTABLE));
	printf("cuMemHostAlloc %d bytes -> %p\n", 64 << 10, portable);
	registered = aligned_alloc(4096, registered_size);
	if (!registered) {
		perror("aligned_alloc");
		exit(1);
	}
	memset(registered, 1, registered_size);
	CHECK(cuMemHostRegister(registered, registered_size, 0));
	printf("cuMemHostRegister %zu bytes at %p\n", registered_size, registered);
	CHECK(cuMemAllocManaged(&managed, 256 << 10, CU_MEM_ATTACH_GLOBAL));
	printf("cuMemAllocManaged %d bytes -> 0x%llx\n", 256 << 10, (unsigned long long)managed);

	CHECK(cuMemFree(managed));
	CHECK(cuMemHostUnregister(registered));
	free(registered);
	CHECK(cuMemFreeHost(portable));
	printf("freed the managed, registered and portable memory\n");
}

static void stream_ordered_allocations(struct state *s)
{
	CUmemPoolProps props;
	CUmemoryPool pool;
	CUdeviceptr from_default;
	CUdeviceptr from_pool;

	CHECK(cuMemAllocAsync(&from_default, 2 << 20, s->stream));
	printf("cuMemAllocAsync %d bytes -> 0x%llx\n", 2 << 20, (unsigned long long)from_default);
	CHECK(cuMemFreeAsync(from_default, s->stream));

	memset(&props, 0, sizeof(props));
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = (int)s->device;
	CHECK(cuMemPoolCreate(&pool, &props));
	CHECK(cuMemAllocFromPoolAsync(&from_pool, 100 << 10, pool, s->stream));
	printf("cuMemAllocFromPoolAsync %d bytes -> 0x%llx\n", 100 << 10,
	       (unsigned long long)from_pool);
	CHECK(cuMemFreeAsync(from_pool, s->stream));
	CHECK(cuStreamSynchronize(s->stream));
	CHECK(cuMemPoolDestroy(pool));
	printf("freed both, destroyed the pool\n");
}

static void virtual_memory(struct state *s)
{
	CUmemAllocationProp prop;
	CUmemAccessDesc access;
	CUmemGenericAllocationHandle handle;
	CUdeviceptr range;
	size_t granularity;
	size_t size;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = (int)s->device;
	CHECK(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	size = 2 * granularity;
	CHECK(cuMemAddressReserve(&range, size, 0, 0, 0));
	CHECK(cuMemCreate(&handle, size, &prop, 0));
	CHECK(cuMemMap(range, size, 0, handle, 0));
	memset(&access, 0, sizeof(access));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CHECK(cuMemSetAccess(range, size, &access, 1));
	printf("VMM: %zu bytes created and mapped at 0x%llx\n", size, (unsigned long long)range);
	CHECK(cuMemsetD8(range, 0x11, size));
	CHECK(cuMemUnmap(range, size));
	CHECK(cuMemRelease(handle));
	CHECK(cuMemAddressFree(range, size));
	printf("VMM: unmapped, released, address range freed\n");
}

static void copies_and_memsets(struct state *s)
{
	CHECK(cuMemcpyHtoD(s->buffer, s->pageable, BYTES));
	printf("cuMemcpyHtoD %d bytes from pageable memory\n", BYTES);
	CHECK(cuMemcpyHtoD(s->buffer, s->pinned, BYTES));
	printf("cuMemcpyHtoD %d bytes from pinned memory\n", BYTES);
	CHECK(cuMemcpyDtoH(s->pageable, s->buffer, BYTES));
	printf("cuMemcpyDtoH %d bytes to pageable memory\n", BYTES);
	CHECK(cuMemcpyDtoD(s->buffer2, s->buffer, BYTES));
	printf("cuMemcpyDtoD %d bytes\n", BYTES);
	CHECK(cuMemcpy(s->buffer2, (CUdeviceptr)(uintptr_t)s->pinned, 4096));
	printf("cuMemcpy 4096 bytes, pinned to device (unified addressing)\n");
	CHECK(cuMemcpyHtoDAsync(s->buffer, s->pinned, BYTES, s->stream));
	printf("cuMemcpyHtoDAsync %d bytes from pinned memory\n", BYTES);
	CHECK(cuMemcpyDtoHAsync(s->pinned, s->buffer2, 8192, s->stream));
	printf("cuMemcpyDtoHAsync 8192 bytes to pinned memory\n");
	CHECK(cuMemsetD8(s->buffer, 0, BYTES));
	printf("cuMemsetD8 %d bytes\n", BYTES);
	CHECK(cuMemsetD32Async(s->buffer2, 0xdeadbeef, 1024, s->stream));
	printf("cuMemsetD32Async 1024 words\n");
	CHECK(cuStreamSynchronize(s->stream));
}

static void launch(struct state *s)
{
	CUmodule module;
	CUfunction fill;
	unsigned int count = BYTES / 4;
	void *args[] = { &s->buffer, &count };

	CHECK(cuModuleLoadData(&module, fill_ptx));
	CHECK(cuModuleGetFunction(&fill, module, "fill"));
	CHECK(cuLaunchKernel(fill, count / 256, 1, 1, 256, 1, 1, 0, s->stream, args, NULL));
	printf("cuLaunchKernel fill <<<%u, 256>>> on a stream\n", count / 256);
	CHECK(cuLaunchKernel(fill, 4, 2, 1, 32, 2, 1, 512, NULL, args, NULL));
	printf("cuLaunchKernel fill <<<(4,2,1), (32,2,1), 512>>> on the legacy stream\n");
	CHECK(cuCtxSynchronize());
	printf("cuCtxSynchronize\n");
	CHECK(cuModuleUnload(module));
}

int main(void)
{
	struct state s;

	memset(&s, 0, sizeof(s));
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&s.device, 0));
	CHECK(cuCtxCreate(&s.context, NULL, 0, s.device));
	CHECK(cuStreamCreate(&s.stream, CU_STREAM_NON_BLOCKING));
	printf("context and stream created on device 0\n");

	device_allocations();
	host_allocations();
	stream_ordered_allocations(&s);
	virtual_memory(&s);

	s.pageable = malloc(BYTES);
	if (!s.pageable) {
		perror("malloc");
		return 1;
	}
	memset(s.pageable, 2, BYTES);
	CHECK(cuMemAllocHost(&s.pinned, BYTES));
	CHECK(cuMemAlloc(&s.buffer, BYTES));
	CHECK(cuMemAlloc(&s.buffer2, BYTES));
	copies_and_memsets(&s);
	launch(&s);
	CHECK(cuMemFree(s.buffer2));
	CHECK(cuMemFree(s.buffer));
	CHECK(cuMemFreeHost(s.pinned));
	free(s.pageable);

	CHECK(cuStreamDestroy(s.stream));
	CHECK(cuCtxDestroy(s.context));
	printf("done\n");
	return 0;
}
