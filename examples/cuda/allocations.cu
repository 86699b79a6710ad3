/* SPDX-License-Identifier: MIT */
/*
 * allocations.cu - every kind of allocation the runtime API offers, each
 * freed again: device (cudaMalloc, cudaMallocPitch), pinned host
 * (cudaMallocHost, cudaHostAlloc), registered host (cudaHostRegister),
 * managed, stream-ordered (cudaMallocAsync) from the default pool and from
 * a pool of its own, and one request too large for the device, which fails.
 * Prints each allocation and free as it happens.
 *
 *   allocations [--leak]    --leak: keep the last device buffer allocated
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime_api.h>
#include "example-check.h"

static void device_memory(void)
{
	const size_t sizes[] = { 1000, 1 << 20, 3 << 20 };
	void *buffers[3];
	void *pitched;
	size_t pitch;

	for (int i = 0; i < 3; i++) {
		CHECK(cudaMalloc(&buffers[i], sizes[i]));
		printf("cudaMalloc %zu bytes -> %p\n", sizes[i], buffers[i]);
	}
	CHECK(cudaMallocPitch(&pitched, &pitch, 1000, 100));
	printf("cudaMallocPitch 1000 x 100 -> %p, pitch %zu\n", pitched, pitch);
	CHECK(cudaFree(pitched));
	printf("cudaFree %p\n", pitched);
	for (int i = 0; i < 3; i++) {
		CHECK(cudaFree(buffers[i]));
		printf("cudaFree %p\n", buffers[i]);
	}
}

static void host_memory(void)
{
	const size_t registered_size = 256 << 10;
	void *pinned;
	void *portable;
	void *registered;

	CHECK(cudaMallocHost(&pinned, 64 << 10));
	printf("cudaMallocHost %d bytes -> %p\n", 64 << 10, pinned);
	CHECK(cudaHostAlloc(&portable, 128 << 10, cudaHostAllocPortable | cudaHostAllocMapped));
	printf("cudaHostAlloc %d bytes (portable, mapped) -> %p\n", 128 << 10, portable);
	registered = aligned_alloc(4096, registered_size);
	if (!registered) {
		perror("aligned_alloc");
		exit(1);
	}
	memset(registered, 1, registered_size);
	CHECK(cudaHostRegister(registered, registered_size, cudaHostRegisterDefault));
	printf("cudaHostRegister %zu bytes at %p\n", registered_size, registered);

	CHECK(cudaHostUnregister(registered));
	printf("cudaHostUnregister %p\n", registered);
	free(registered);
	CHECK(cudaFreeHost(portable));
	printf("cudaFreeHost %p\n", portable);
	CHECK(cudaFreeHost(pinned));
	printf("cudaFreeHost %p\n", pinned);
}

static void managed_memory(void)
{
	void *managed;

	CHECK(cudaMallocManaged(&managed, 1 << 20, cudaMemAttachGlobal));
	printf("cudaMallocManaged %d bytes -> %p\n", 1 << 20, managed);
	memset(managed, 0x5a, 1 << 20);
	CHECK(cudaFree(managed));
	printf("cudaFree %p\n", managed);
}

static void stream_ordered_memory(void)
{
	cudaStream_t stream;
	cudaMemPool_t pool;
	cudaMemPoolProps props;
	void *from_default;
	void *from_pool;

	CHECK(cudaStreamCreate(&stream));
	CHECK(cudaMallocAsync(&from_default, 2 << 20, stream));
	printf("cudaMallocAsync %d bytes -> %p\n", 2 << 20, from_default);
	CHECK(cudaFreeAsync(from_default, stream));
	printf("cudaFreeAsync %p\n", from_default);

	memset(&props, 0, sizeof(props));
	props.allocType = cudaMemAllocationTypePinned;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = 0;
	CHECK(cudaMemPoolCreate(&pool, &props));
	printf("cudaMemPoolCreate on device 0\n");
	CHECK(cudaMallocFromPoolAsync(&from_pool, 300 << 10, pool, stream));
	printf("cudaMallocFromPoolAsync %d bytes -> %p\n", 300 << 10, from_pool);
	CHECK(cudaFreeAsync(from_pool, stream));
	printf("cudaFreeAsync %p\n", from_pool);
	CHECK(cudaStreamSynchronize(stream));
	CHECK(cudaMemPoolDestroy(pool));
	printf("cudaMemPoolDestroy\n");
	CHECK(cudaStreamDestroy(stream));
}

/* A request larger than any device: the call fails, the program goes on. */
static void failed_allocation(void)
{
	const size_t huge = (size_t)1 << 44;
	void *nothing = NULL;
	cudaError_t result = cudaMalloc(&nothing, huge);

	printf("cudaMalloc %zu bytes -> %s\n", huge, cudaGetErrorName(result));
	if (result != cudaErrorMemoryAllocation) {
		fprintf(stderr, "expected cudaErrorMemoryAllocation\n");
		exit(1);
	}
	(void)cudaGetLastError();
}

int main(int argc, char **argv)
{
	bool leak = argc > 1 && strcmp(argv[1], "--leak") == 0;

	device_memory();
	host_memory();
	managed_memory();
	stream_ordered_memory();
	failed_allocation();
	if (leak) {
		void *kept;

		CHECK(cudaMalloc(&kept, 4 << 20));
		printf("cudaMalloc %d bytes -> %p (never freed)\n", 4 << 20, kept);
	}
	CHECK(cudaDeviceSynchronize());
	printf("done\n");
	return 0;
}
