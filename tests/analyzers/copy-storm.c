/* SPDX-License-Identifier: MIT */
/*
 * copy-storm.c - the transfer pattern the transfers analysis must rank
 * first: inside NVTX range "storm", 4000 synchronous 4 KiB uploads from
 * distinct places of a pageable buffer; then, inside range "bulk", one
 * 16 MiB asynchronous upload from pinned memory on a stream of its own.
 * The storm costs far more time than the single large copy.
 *
 * A plain C program on the CUDA runtime (linked against the toolkit's
 * libcudart, run on the simulator); exits non-zero if a call fails.
 */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_COPIES 4000
#define SMALL_BYTES  4096
#define LARGE_BYTES  (16u << 20)

#define CHECK(call)                                                                             \
	do {                                                                                    \
		cudaError_t err_ = (call);                                                      \
		if (err_ != cudaSuccess) {                                                      \
			fprintf(stderr, "copy-storm: %s: %s\n", #call, cudaGetErrorName(err_)); \
			return 1;                                                               \
		}                                                                               \
	} while (0)

static int storm(char *device, char *pageable)
{
	nvtxRangePushA("storm");
	for (size_t i = 0; i < SMALL_COPIES; i++)
		CHECK(cudaMemcpy(device + i * SMALL_BYTES, pageable + i * SMALL_BYTES, SMALL_BYTES,
		                 cudaMemcpyHostToDevice));
	nvtxRangePop();
	return 0;
}

static int bulk(char *device, char *pinned)
{
	cudaStream_t stream;

	nvtxRangePushA("bulk");
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CHECK(cudaMemcpyAsync(device, pinned, LARGE_BYTES, cudaMemcpyHostToDevice, stream));
	CHECK(cudaStreamSynchronize(stream));
	CHECK(cudaStreamDestroy(stream));
	nvtxRangePop();
	return 0;
}

int main(void)
{
	char *pageable = malloc(SMALL_COPIES * SMALL_BYTES);
	char *pinned, *device;

	if (!pageable) {
		perror("copy-storm");
		return 1;
	}
	memset(pageable, 7, SMALL_COPIES * SMALL_BYTES);
	CHECK(cudaMallocHost((void **)&pinned, LARGE_BYTES));
	memset(pinned, 9, LARGE_BYTES);
	CHECK(cudaMalloc((void **)&device, LARGE_BYTES));
	if (storm(device, pageable) || bulk(device, pinned))
		return 1;
	CHECK(cudaFree(device));
	CHECK(cudaFreeHost(pinned));
	free(pageable);
	printf("copy-storm: %d copies of %d bytes, then one of %u bytes\n", SMALL_COPIES,
	       SMALL_BYTES, LARGE_BYTES);
	return 0;
}
