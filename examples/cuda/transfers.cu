/* SPDX-License-Identifier: MIT */
/*
 * transfers.cu - copies in every direction from pageable and from pinned
 * host memory, synchronous and asynchronous, memsets, and kernel launches
 * on the legacy default stream and on a stream of their own. Prints each
 * operation as it is issued.
 *
 *   transfers [ROUNDS]    repeat the copy and launch round (default 1)
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime_api.h>
#include "example-check.h"

#define BYTES (1 << 20)

__global__ void scale(float *data, float factor, int count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < count)
		data[i] *= factor;
}

__global__ void reduce_rows(const float *in, float *out, int width)
{
	extern __shared__ float row[];

	row[threadIdx.x] = in[blockIdx.x * width + threadIdx.x];
	__syncthreads();
	if (threadIdx.x == 0)
		out[blockIdx.x] = row[0];
}

struct buffers {
	char *pageable;
	char *pinned;
	char *device;
	char *device2;
	cudaStream_t stream;
};

static const char *direction_name(cudaMemcpyKind kind)
{
	switch (kind) {
	case cudaMemcpyHostToDevice:
		return "HtoD";
	case cudaMemcpyDeviceToHost:
		return "DtoH";
	case cudaMemcpyDeviceToDevice:
		return "DtoD";
	case cudaMemcpyHostToHost:
		return "HtoH";
	default:
		return "default";
	}
}

static void copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, const char *what)
{
	CHECK(cudaMemcpy(dst, src, bytes, kind));
	printf("cudaMemcpy %s %zu bytes %s\n", direction_name(kind), bytes, what);
}

static void copy_async(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                       cudaStream_t stream, const char *what)
{
	CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
	printf("cudaMemcpyAsync %s %zu bytes %s\n", direction_name(kind), bytes, what);
}

static void synchronous_copies(struct buffers *b)
{
	copy(b->device, b->pageable, BYTES, cudaMemcpyHostToDevice, "from pageable memory");
	copy(b->device, b->pinned, BYTES, cudaMemcpyHostToDevice, "from pinned memory");
	copy(b->pageable, b->device, BYTES, cudaMemcpyDeviceToHost, "to pageable memory");
	copy(b->pinned, b->device, BYTES, cudaMemcpyDeviceToHost, "to pinned memory");
	copy(b->device2, b->device, BYTES, cudaMemcpyDeviceToDevice, "between two buffers");
	copy(b->pageable, b->pinned, 4096, cudaMemcpyHostToHost, "pinned to pageable");
	copy(b->device, b->pinned, 65536, cudaMemcpyDefault, "pinned to device (inferred)");
	copy(b->pageable, b->device2, 100, cudaMemcpyDefault, "device to pageable (inferred)");
}

static void asynchronous_copies(struct buffers *b)
{
	copy_async(b->device, b->pinned, BYTES, cudaMemcpyHostToDevice, b->stream,
	           "from pinned memory");
	copy_async(b->pinned, b->device, BYTES / 2, cudaMemcpyDeviceToHost, b->stream,
	           "to pinned memory");
	copy_async(b->device, b->pageable, 8192, cudaMemcpyHostToDevice, b->stream,
	           "from pageable memory (synchronous in effect)");
	copy_async(b->device2, b->device, 4096, cudaMemcpyDeviceToDevice, 0,
	           "on the legacy stream");
	CHECK(cudaMemcpy2DAsync(b->device2, 1024, b->pinned, 512, 512, 64, cudaMemcpyHostToDevice,
	                        b->stream));
	printf("cudaMemcpy2DAsync HtoD 512 x 64 from pinned memory\n");
	CHECK(cudaStreamSynchronize(b->stream));
	printf("cudaStreamSynchronize\n");
}

static void memsets(struct buffers *b)
{
	CHECK(cudaMemset(b->device, 0, BYTES));
	printf("cudaMemset %d bytes to 0\n", BYTES);
	CHECK(cudaMemsetAsync(b->device2, 0xff, 4096, b->stream));
	printf("cudaMemsetAsync 4096 bytes to 0xff\n");
	CHECK(cudaMemset2D(b->device2, 1024, 7, 256, 16));
	printf("cudaMemset2D 256 x 16 to 7\n");
}

static void launches(struct buffers *b)
{
	float *data = (float *)b->device;
	int count = BYTES / sizeof(float);
	void *args[] = { &data, NULL, &count };
	float factor = 2.0f;

	scale<<<(count + 255) / 256, 256>>>(data, 0.5f, count);
	CHECK(cudaGetLastError());
	printf("launch scale <<<%d, 256>>> on the legacy stream\n", (count + 255) / 256);
	reduce_rows<<<dim3(64, 2, 1), dim3(128, 1, 1), 128 * sizeof(float), b->stream>>>(
	    data, (float *)b->device2, 128);
	CHECK(cudaGetLastError());
	printf("launch reduce_rows <<<(64,2,1), (128,1,1), %zu>>> on a stream\n",
	       128 * sizeof(float));
	args[1] = &factor;
	CHECK(cudaLaunchKernel((const void *)scale, dim3(16), dim3(64), args, 0, b->stream));
	printf("cudaLaunchKernel scale <<<16, 64>>> on a stream\n");
	CHECK(cudaDeviceSynchronize());
	printf("cudaDeviceSynchronize\n");
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	struct buffers b;

	b.pageable = (char *)malloc(BYTES);
	if (!b.pageable) {
		perror("malloc");
		return 1;
	}
	memset(b.pageable, 1, BYTES);
	CHECK(cudaMallocHost(&b.pinned, BYTES));
	CHECK(cudaMalloc(&b.device, BYTES));
	CHECK(cudaMalloc(&b.device2, BYTES));
	CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
	printf("buffers: %d bytes pageable, pinned and twice on the device\n", BYTES);

	for (int round = 0; round < rounds; round++) {
		synchronous_copies(&b);
		asynchronous_copies(&b);
		memsets(&b);
		launches(&b);
	}

	CHECK(cudaStreamDestroy(b.stream));
	CHECK(cudaFree(b.device2));
	CHECK(cudaFree(b.device));
	CHECK(cudaFreeHost(b.pinned));
	free(b.pageable);
	printf("done\n");
	return 0;
}
