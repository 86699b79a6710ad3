/* SPDX-License-Identifier: MIT */
/*
 * two-devices.cu - work on two devices: a buffer on each, an upload to
 * each, a kernel on each, a peer copy from the first to the second, and
 * the frees. On the simulated GPU run it with CUDASIM_DEVICES=2.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime_api.h>
#include "example-check.h"

#define BYTES (2 << 20)

__global__ void fill(unsigned char *data, unsigned char value, int count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < count)
		data[i] = value;
}

int main(void)
{
	unsigned char *device[2];
	unsigned char *host;
	cudaStream_t stream[2];
	int count = 0;

	CHECK(cudaGetDeviceCount(&count));
	if (count < 2) {
		printf("needs two devices, found %d (on the simulator: CUDASIM_DEVICES=2)\n",
		       count);
		return 77;
	}
	CHECK(cudaMallocHost(&host, BYTES));
	memset(host, 3, BYTES);
	for (int d = 0; d < 2; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaStreamCreate(&stream[d]));
		CHECK(cudaMalloc(&device[d], BYTES));
		printf("device %d: cudaMalloc %d bytes -> %p\n", d, BYTES, (void *)device[d]);
		CHECK(cudaMemcpyAsync(device[d], host, BYTES, cudaMemcpyHostToDevice, stream[d]));
		printf("device %d: cudaMemcpyAsync HtoD %d bytes\n", d, BYTES);
		fill<<<BYTES / 256, 256, 0, stream[d]>>>(device[d], (unsigned char)d, BYTES);
		CHECK(cudaGetLastError());
		printf("device %d: launch fill <<<%d, 256>>>\n", d, BYTES / 256);
	}
	for (int d = 0; d < 2; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaStreamSynchronize(stream[d]));
	}
	CHECK(cudaMemcpyPeer(device[1], 1, device[0], 0, BYTES / 2));
	printf("cudaMemcpyPeer %d bytes from device 0 to device 1\n", BYTES / 2);
	CHECK(cudaSetDevice(1));
	CHECK(cudaMemcpy(host, device[1], BYTES, cudaMemcpyDeviceToHost));
	printf("device 1: cudaMemcpy DtoH %d bytes\n", BYTES);
	for (int d = 0; d < 2; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaStreamDestroy(stream[d]));
		CHECK(cudaFree(device[d]));
		printf("device %d: cudaFree %p\n", d, (void *)device[d]);
	}
	CHECK(cudaFreeHost(host));
	printf("done\n");
	return 0;
}
