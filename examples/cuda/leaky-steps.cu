/* SPDX-License-Identifier: MIT */
/*
 * leaky-steps.cu - a training loop that leaks: each step allocates its
 * activations and frees them, but also keeps a 1 MiB buffer it never frees,
 * so device memory grows step after step until the process dies. This is
 * what a notebook kernel that "restarts" looks like from the inside.
 *
 *   leaky-steps [STEPS [PAUSE_AT]]
 *
 * Runs STEPS steps (default 8). With PAUSE_AT, stops after that step,
 * prints "paused after step N" and waits to be killed: the trace tests kill
 * it there with SIGKILL, as the OOM killer or a Jupyter restart would.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "example-check.h"

#define BATCH_BYTES      (512 << 10)
#define ACTIVATION_BYTES (2 << 20)
#define LEAKED_BYTES     (1 << 20)

__global__ void forward(float *activations, const float *batch, int count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < count)
		activations[i] = batch[i % 1024] * 2.0f;
}

static void run_step(int index, float *host_batch, float *batch, long *leaked)
{
	int count = ACTIVATION_BYTES / sizeof(float);
	float *activations;
	void *kept;
	float loss;

	CHECK(cudaMemcpy(batch, host_batch, BATCH_BYTES, cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&activations, ACTIVATION_BYTES));
	forward<<<(count + 255) / 256, 256>>>(activations, batch, count);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(&loss, activations, sizeof(loss), cudaMemcpyDeviceToHost));
	/* The bug: a per-step cache entry that nothing ever frees. */
	CHECK(cudaMalloc(&kept, LEAKED_BYTES));
	CHECK(cudaMemset(kept, 0, LEAKED_BYTES));
	*leaked += LEAKED_BYTES;
	CHECK(cudaFree(activations));
	printf("step %d: upload %d bytes, %d bytes of activations, leaked %ld bytes so far\n",
	       index, BATCH_BYTES, ACTIVATION_BYTES, *leaked);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 8;
	int pause_at = argc > 2 ? atoi(argv[2]) : -1;
	float *host_batch;
	float *batch;
	long leaked = 0;

	host_batch = (float *)calloc(1, BATCH_BYTES);
	if (!host_batch) {
		perror("calloc");
		return 1;
	}
	CHECK(cudaMalloc(&batch, BATCH_BYTES));
	for (int i = 1; i <= steps; i++) {
		run_step(i, host_batch, batch, &leaked);
		if (i == pause_at) {
			printf("paused after step %d\n", i);
			fflush(stdout);
			for (;;)
				pause();
		}
	}
	CHECK(cudaFree(batch));
	free(host_batch);
	printf("done: %ld bytes never freed\n", leaked);
	return 0;
}
