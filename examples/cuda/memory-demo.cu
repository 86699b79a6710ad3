/* SPDX-License-Identifier: MIT */
/*
 * memory-demo.cu - a small, ordinary CUDA runtime program of the kind
 * cudatrace is meant to explain: it allocates device buffers, uploads a
 * batch from pageable and from pinned host memory, runs two named kernels,
 * downloads the results, frees everything, and prints what it did with a
 * checksum of the data that made the round trip.
 *
 * Build: nvcc -cudart shared -o memory-demo memory-demo.cu
 * Run on the simulated GPU: cudasim-env ./memory-demo (or `make demo`).
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_FLOATS ((size_t)1 << 20) /* 4 MiB per batch */
#define BATCH_BYTES  (BATCH_FLOATS * sizeof(float))
#define THREADS      256

#define CHECK(call)                                                                    \
	do {                                                                           \
		cudaError_t err_ = (call);                                             \
		if (err_ != cudaSuccess) {                                             \
			fprintf(stderr, "memory-demo: %s failed: %s (%s:%d)\n", #call, \
			        cudaGetErrorString(err_), __FILE__, __LINE__);         \
			goto end;                                                      \
		}                                                                      \
	} while (0)

__global__ void normalize(float *v, size_t n, float scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		v[i] *= scale;
}

__global__ void accumulate(const float *a, const float *b, float *out, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = a[i] + b[i];
}

/* FNV-1a over the bytes: equal data, equal checksum. */
static uint64_t checksum(const void *data, size_t bytes)
{
	const unsigned char *p = (const unsigned char *)data;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < bytes; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static void fill_batch(float *v, size_t n, float seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = seed + (float)(i % 1000) * 0.001f;
}

int main(void)
{
	float *pageable = NULL, *pinned = NULL, *result = NULL;
	float *d_a = NULL, *d_b = NULL, *d_out = NULL;
	cudaStream_t stream = NULL;
	cudaEvent_t start = NULL, stop = NULL;
	size_t free_before = 0, free_during = 0, total = 0;
	uint64_t sent = 0, received = 0;
	float stream_ms = 0;
	unsigned blocks = (unsigned)((BATCH_FLOATS + THREADS - 1) / THREADS);
	int status = 1;

	pageable = (float *)malloc(BATCH_BYTES);
	result = (float *)malloc(BATCH_BYTES);
	if (!pageable || !result) {
		fprintf(stderr, "memory-demo: out of host memory\n");
		goto end;
	}
	CHECK(cudaMemGetInfo(&free_before, &total));
	CHECK(cudaMallocHost((void **)&pinned, BATCH_BYTES));
	CHECK(cudaMalloc((void **)&d_a, BATCH_BYTES));
	CHECK(cudaMalloc((void **)&d_b, BATCH_BYTES));
	CHECK(cudaMalloc((void **)&d_out, BATCH_BYTES));
	CHECK(cudaMemGetInfo(&free_during, &total));
	printf(
	    "allocated 3 device buffers of %zu MiB: free device memory %zu -> %zu MiB of %zu MiB\n",
	    BATCH_BYTES >> 20, free_before >> 20, free_during >> 20, total >> 20);

	fill_batch(pageable, BATCH_FLOATS, 1.0f);
	fill_batch(pinned, BATCH_FLOATS, 2.0f);
	sent = checksum(pageable, BATCH_BYTES);

	CHECK(cudaStreamCreate(&stream));
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));
	/* The pageable upload is synchronous; the pinned one overlaps on a stream. */
	CHECK(cudaMemcpy(d_a, pageable, BATCH_BYTES, cudaMemcpyHostToDevice));
	CHECK(cudaEventRecord(start, stream));
	CHECK(cudaMemcpyAsync(d_b, pinned, BATCH_BYTES, cudaMemcpyHostToDevice, stream));
	printf("uploaded 2 batches of %zu MiB: one from pageable, one from pinned memory\n",
	       BATCH_BYTES >> 20);

	normalize<<<blocks, THREADS, 0, stream>>>(d_b, BATCH_FLOATS, 0.5f);
	CHECK(cudaGetLastError());
	accumulate<<<blocks, THREADS, 0, stream>>>(d_a, d_b, d_out, BATCH_FLOATS);
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(stop, stream));
	printf("launched normalize and accumulate, %u blocks of %d threads each\n", blocks,
	       THREADS);

	CHECK(cudaStreamSynchronize(stream));
	CHECK(cudaEventElapsedTime(&stream_ms, start, stop));
	CHECK(cudaMemcpy(result, d_out, BATCH_BYTES, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(result, d_a, BATCH_BYTES, cudaMemcpyDeviceToHost));
	printf("the pinned upload and both kernels took %.3f ms between the stream's events\n",
	       stream_ms);
	printf("downloaded 2 batches\n");

	received = checksum(result, BATCH_BYTES);
	printf("round-trip checksum %016llx (%s)\n", (unsigned long long)received,
	       received == sent ? "matches the upload" : "DIFFERS from the upload");
	status = received == sent ? 0 : 1;
end:
	if (start)
		cudaEventDestroy(start);
	if (stop)
		cudaEventDestroy(stop);
	if (stream)
		cudaStreamDestroy(stream);
	cudaFree(d_a);
	cudaFree(d_b);
	cudaFree(d_out);
	cudaFreeHost(pinned);
	free(pageable);
	free(result);
	if (status == 0)
		printf("freed everything\n");
	return status;
}
