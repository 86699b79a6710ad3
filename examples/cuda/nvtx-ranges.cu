/* SPDX-License-Identifier: MIT */
/*
 * nvtx-ranges.cu - a training loop annotated with NVTX ranges, the way
 * frameworks annotate theirs: nested push/pop ranges per epoch and phase,
 * a start/end range spanning the loop, marks, and a domain of its own with
 * registered strings. The copies and launches inside the ranges are what a
 * trace attributes to them. NVTX reaches a tool through
 * NVTX_INJECTION64_PATH; without one every NVTX call does nothing.
 *
 *   nvtx-ranges [EPOCHS]    default 2
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include "example-check.h"

#define BATCH_BYTES (256 << 10)

__global__ void step(float *weights, const float *batch, int count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < count)
		weights[i] -= 0.01f * batch[i];
}

struct model {
	float *host_batch;
	float *batch;
	float *weights;
	nvtxDomainHandle_t domain;
	nvtxStringHandle_t optimizer_name;
};

/* A push of a registered string in the example's own domain. */
static void push_registered(const struct model *m)
{
	nvtxEventAttributes_t attributes;

	memset(&attributes, 0, sizeof(attributes));
	attributes.version = NVTX_VERSION;
	attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	attributes.message.registered = m->optimizer_name;
	nvtxDomainRangePushEx(m->domain, &attributes);
}

static void train_step(const struct model *m, int index)
{
	int count = BATCH_BYTES / sizeof(float);

	nvtxRangePushA("forward");
	CHECK(cudaMemcpy(m->batch, m->host_batch, BATCH_BYTES, cudaMemcpyHostToDevice));
	step<<<(count + 255) / 256, 256>>>(m->weights, m->batch, count);
	CHECK(cudaGetLastError());
	nvtxRangePop();
	printf("  step %d: forward (upload %d bytes, one launch)\n", index, BATCH_BYTES);

	push_registered(m);
	CHECK(cudaMemset(m->batch, 0, BATCH_BYTES));
	CHECK(cudaDeviceSynchronize());
	nvtxDomainRangePop(m->domain);
	printf("  step %d: optimizer (one memset, synchronize)\n", index);
}

int main(int argc, char **argv)
{
	int epochs = argc > 1 ? atoi(argv[1]) : 2;
	struct model m;
	nvtxRangeId_t whole_run;
	char name[32];

	m.domain = nvtxDomainCreateA("cudatrace-example");
	m.optimizer_name = nvtxDomainRegisterStringA(m.domain, "optimizer");
	whole_run = nvtxRangeStartA("training");
	m.host_batch = (float *)calloc(1, BATCH_BYTES);
	if (!m.host_batch) {
		perror("calloc");
		return 1;
	}
	CHECK(cudaMalloc(&m.batch, BATCH_BYTES));
	CHECK(cudaMalloc(&m.weights, BATCH_BYTES));
	nvtxMarkA("model ready");
	printf("model ready: two buffers of %d bytes\n", BATCH_BYTES);

	for (int epoch = 0; epoch < epochs; epoch++) {
		snprintf(name, sizeof(name), "epoch %d", epoch);
		nvtxRangePushA(name);
		printf("%s\n", name);
		for (int i = 0; i < 2; i++)
			train_step(&m, i);
		nvtxRangePop();
	}

	CHECK(cudaFree(m.weights));
	CHECK(cudaFree(m.batch));
	free(m.host_batch);
	nvtxRangeEnd(whole_run);
	nvtxDomainDestroy(m.domain);
	printf("done\n");
	return 0;
}
