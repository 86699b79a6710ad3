/* SPDX-License-Identifier: MIT */
/*
 * rt-graphs.cu - CUDA graphs and host functions through the runtime, as
 * NVIDIA's samples use them: a stream capture of copies, a memset, kernels
 * and a host function, instantiated and launched twice (the copies replay:
 * the data arrives); a graph built node by node; a capture that forks to a
 * second stream through an event and joins back, which the second stream
 * leaves when its origin ends it; host functions that run
 * after the preceding work in stream order and before the work after them;
 * capture status and the errors of a capture that is broken.
 *
 * Prints TAP, "# fact pid=N" and "# fact graph_corr=N" lines.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#define N     4096
#define BYTES (N * sizeof(unsigned int))

extern "C" __global__ void graph_step(unsigned int *p, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		p[i] += 1;
}

static bool rt_ok(cudaError_t r, const char *what)
{
	return tap_ok(r == cudaSuccess, "%s (%s)", what, cudaGetErrorName(r));
}

/* What a host function saw when it ran. */
struct host_probe {
	const unsigned int *watch; /* pinned host memory a copy before it fills */
	unsigned int seen;         /* *watch when it ran */
	int order;                 /* its place among the host functions */
};

static int host_calls;

static void CUDART_CB probe(void *data)
{
	struct host_probe *p = (struct host_probe *)data;

	p->seen = p->watch ? p->watch[N - 1] : 0;
	p->order = ++host_calls;
}

static void CUDART_CB stream_callback(cudaStream_t stream, cudaError_t status, void *data)
{
	(void)stream;
	*(int *)data = status == cudaSuccess ? ++host_calls : -1;
}

static void fill(unsigned int *p, unsigned int v)
{
	for (size_t i = 0; i < N; i++)
		p[i] = v;
}

int main(void)
{
	cudaStream_t s;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	unsigned int *d_a, *d_b, *h_in, *h_out;
	enum cudaStreamCaptureStatus status;
	struct host_probe captured = { 0, 0, 0 };

	printf("# fact pid=%d\n", (int)getpid());
	rt_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
	rt_ok(cudaMalloc(&d_a, BYTES), "cudaMalloc(d_a)");
	rt_ok(cudaMalloc(&d_b, BYTES), "cudaMalloc(d_b)");
	rt_ok(cudaMallocHost(&h_in, BYTES), "cudaMallocHost(h_in)");
	rt_ok(cudaMallocHost(&h_out, BYTES), "cudaMallocHost(h_out)");

	/* ---------------------------------------------------- capture */
	rt_ok(cudaStreamIsCapturing(s, &status), "cudaStreamIsCapturing before capture");
	tap_ok(status == cudaStreamCaptureStatusNone,
	       "not capturing before cudaStreamBeginCapture");
	rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
	rt_ok(cudaStreamIsCapturing(s, &status), "cudaStreamIsCapturing during capture");
	tap_ok(status == cudaStreamCaptureStatusActive, "capturing after cudaStreamBeginCapture");
	fill(h_in, 7);
	fill(h_out, 0);
	rt_ok(cudaMemsetAsync(d_b, 0, BYTES, s), "captured cudaMemsetAsync");
	rt_ok(cudaMemcpyAsync(d_a, h_in, BYTES, cudaMemcpyHostToDevice, s),
	      "captured cudaMemcpyAsync HtoD");
	graph_step<<<N / 256, 256, 0, s>>>(d_a, N);
	rt_ok(cudaGetLastError(), "captured graph_step<<<16, 256>>>");
	rt_ok(cudaMemcpyAsync(d_b, d_a, BYTES, cudaMemcpyDeviceToDevice, s),
	      "captured cudaMemcpyAsync DtoD");
	graph_step<<<N / 256, 256, 0, s>>>(d_b, N);
	rt_ok(cudaMemcpyAsync(h_out, d_b, BYTES, cudaMemcpyDeviceToHost, s),
	      "captured cudaMemcpyAsync DtoH");
	captured.watch = h_out;
	rt_ok(cudaLaunchHostFunc(s, probe, &captured), "captured cudaLaunchHostFunc");
	/* Nothing ran during capture. */
	tap_ok(h_out[0] == 0 && host_calls == 0, "capture runs nothing");
	rt_ok(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
	{
		size_t count = 0;
		rt_ok(cudaGraphGetNodes(graph, NULL, &count), "cudaGraphGetNodes");
		tap_ok(count == 7, "the graph has the 7 captured operations as nodes (%zu)", count);
	}
	rt_ok(cudaStreamIsCapturing(s, &status), "cudaStreamIsCapturing after capture");
	tap_ok(status == cudaStreamCaptureStatusNone, "not capturing after cudaStreamEndCapture");
	rt_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");

	/* Launch: the copies move the data (kernels do nothing here). */
	fill(h_in, 42);
	rt_ok(cudaGraphLaunch(exec, s), "cudaGraphLaunch");
	printf("# fact graph_launch=1\n");
	rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize after cudaGraphLaunch");
	tap_ok(h_out[0] == 42 && h_out[N - 1] == 42,
	       "the graph's copies brought h_in through d_a and d_b to h_out (%u)", h_out[0]);
	tap_ok(captured.order == 1 && captured.seen == 42,
	       "the graph's host node ran after the copy before it (saw %u)", captured.seen);
	fill(h_in, 43);
	rt_ok(cudaGraphLaunch(exec, s), "cudaGraphLaunch again");
	rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize after the second launch");
	tap_ok(h_out[N - 1] == 43, "the second launch replays the copies again (%u)", h_out[N - 1]);
	rt_ok(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
	rt_ok(cudaGraphDestroy(graph), "cudaGraphDestroy");

	/* ---------------------------------------------------- explicit nodes */
	{
		cudaGraphNode_t memset_node, kernel_node, copy_node, host_node;
		struct cudaMemsetParams mp;
		struct cudaKernelNodeParams kp;
		struct cudaHostNodeParams hp;
		struct host_probe built = { h_out, 0, 0 };
		size_t n = N;
		void *args[] = { &d_a, &n };
		enum cudaGraphNodeType type;

		rt_ok(cudaGraphCreate(&graph, 0), "cudaGraphCreate");
		memset(&mp, 0, sizeof(mp));
		mp.dst = d_a;
		mp.value = 0x01010101u;
		mp.elementSize = 4;
		mp.width = N;
		mp.height = 1;
		rt_ok(cudaGraphAddMemsetNode(&memset_node, graph, NULL, 0, &mp),
		      "cudaGraphAddMemsetNode");
		kp = cudaKernelNodeParams{};
		kp.func = (void *)graph_step;
		kp.gridDim = dim3(N / 256);
		kp.blockDim = dim3(256);
		kp.kernelParams = args;
		rt_ok(cudaGraphAddKernelNode(&kernel_node, graph, &memset_node, 1, &kp),
		      "cudaGraphAddKernelNode");
		rt_ok(cudaGraphAddMemcpyNode1D(&copy_node, graph, &kernel_node, 1, h_out, d_a,
		                               BYTES, cudaMemcpyDeviceToHost),
		      "cudaGraphAddMemcpyNode1D");
		hp.fn = probe;
		hp.userData = &built;
		rt_ok(cudaGraphAddHostNode(&host_node, graph, &copy_node, 1, &hp),
		      "cudaGraphAddHostNode");
		rt_ok(cudaGraphNodeGetType(kernel_node, &type), "cudaGraphNodeGetType");
		tap_ok(type == cudaGraphNodeTypeKernel,
		       "a kernel node has type cudaGraphNodeTypeKernel");
		rt_ok(cudaGraphInstantiate(&exec, graph, 0),
		      "cudaGraphInstantiate of the built graph");
		host_calls = 0;
		rt_ok(cudaGraphLaunch(exec, s), "cudaGraphLaunch of the built graph");
		printf("# fact graph_launch=2\n");
		rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
		tap_ok(h_out[7] == 0x01010101u, "the built graph's memset and copy arrived (%#x)",
		       h_out[7]);
		tap_ok(built.order == 1 && built.seen == 0x01010101u,
		       "its host node ran after its copy (saw %#x)", built.seen);
		rt_ok(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
		rt_ok(cudaGraphDestroy(graph), "cudaGraphDestroy");
	}

	/* ---------------------------------------------------- fork and join */
	{
		cudaStream_t s2;
		cudaEvent_t fork, join;
		size_t count = 0;

		rt_ok(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking),
		      "cudaStreamCreate(s2)");
		rt_ok(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming),
		      "cudaEventCreate(fork)");
		rt_ok(cudaEventCreateWithFlags(&join, cudaEventDisableTiming),
		      "cudaEventCreate(join)");
		rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal),
		      "cudaStreamBeginCapture (fork and join)");
		rt_ok(cudaEventRecord(fork, s), "cudaEventRecord(fork, s) in the capture");
		rt_ok(cudaStreamWaitEvent(s2, fork, 0), "cudaStreamWaitEvent(s2, fork)");
		rt_ok(cudaStreamIsCapturing(s2, &status), "cudaStreamIsCapturing(s2)");
		tap_ok(status == cudaStreamCaptureStatusActive,
		       "s2 joined the capture by waiting for its event");
		rt_ok(cudaMemcpyAsync(d_b, d_a, BYTES, cudaMemcpyDeviceToDevice, s2),
		      "captured cudaMemcpyAsync on s2");
		graph_step<<<N / 256, 256, 0, s2>>>(d_b, N);
		rt_ok(cudaGetLastError(), "captured graph_step<<<16, 256>>> on s2");
		rt_ok(cudaEventRecord(join, s2), "cudaEventRecord(join, s2)");
		rt_ok(cudaStreamWaitEvent(s, join, 0), "cudaStreamWaitEvent(s, join)");
		rt_ok(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture of the origin");
		rt_ok(cudaGraphGetNodes(graph, NULL, &count), "cudaGraphGetNodes");
		tap_ok(count >= 2, "the work on s2 is in the graph (%zu nodes)", count);
		rt_ok(cudaStreamIsCapturing(s2, &status),
		      "cudaStreamIsCapturing(s2) after the end");
		tap_ok(status == cudaStreamCaptureStatusNone,
		       "s2 left the capture when its origin ended it");
		rt_ok(cudaMemcpyAsync(d_b, d_a, BYTES, cudaMemcpyDeviceToDevice, s2),
		      "cudaMemcpyAsync on s2 after the capture");
		rt_ok(cudaStreamSynchronize(s2), "cudaStreamSynchronize(s2)");
		rt_ok(cudaGraphDestroy(graph), "cudaGraphDestroy");
		rt_ok(cudaEventDestroy(fork), "cudaEventDestroy(fork)");
		rt_ok(cudaEventDestroy(join), "cudaEventDestroy(join)");
		rt_ok(cudaStreamDestroy(s2), "cudaStreamDestroy(s2)");
	}

	/* ---------------------------------------------------- host functions */
	{
		struct host_probe first = { h_out, 0, 0 };
		int callback_order = 0;

		host_calls = 0;
		fill(h_in, 5);
		fill(h_out, 0);
		rt_ok(cudaMemcpyAsync(d_a, h_in, BYTES, cudaMemcpyHostToDevice, s),
		      "cudaMemcpyAsync HtoD");
		rt_ok(cudaMemcpyAsync(h_out, d_a, BYTES, cudaMemcpyDeviceToHost, s),
		      "cudaMemcpyAsync DtoH");
		rt_ok(cudaLaunchHostFunc(s, probe, &first), "cudaLaunchHostFunc");
		rt_ok(cudaStreamAddCallback(s, stream_callback, &callback_order, 0),
		      "cudaStreamAddCallback");
		tap_ok(cudaStreamAddCallback(s, stream_callback, &callback_order, 1) ==
		           cudaErrorInvalidValue,
		       "cudaStreamAddCallback with flags != 0 is cudaErrorInvalidValue");
		cudaGetLastError();
		rt_ok(cudaStreamSynchronize(s),
		      "cudaStreamSynchronize waits for the host functions");
		tap_ok(first.order == 1 && first.seen == 5,
		       "the host function ran after the copies before it (saw %u)", first.seen);
		tap_ok(callback_order == 2, "the stream callback ran second, with cudaSuccess");
	}

	/* ---------------------------------------------------- broken capture */
	rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), "cudaStreamBeginCapture");
	tap_ok(cudaStreamSynchronize(s) == cudaErrorStreamCaptureUnsupported,
	       "cudaStreamSynchronize of a capturing stream is cudaErrorStreamCaptureUnsupported");
	tap_ok(cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated && !graph,
	       "the capture is invalidated: cudaErrorStreamCaptureInvalidated and no graph");
	cudaGetLastError();
	tap_ok(cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal) ==
	           cudaErrorStreamCaptureUnsupported,
	       "the legacy stream cannot be captured");
	cudaGetLastError();

	rt_ok(cudaFree(d_a), "cudaFree(d_a)");
	rt_ok(cudaFree(d_b), "cudaFree(d_b)");
	rt_ok(cudaFreeHost(h_in), "cudaFreeHost(h_in)");
	rt_ok(cudaFreeHost(h_out), "cudaFreeHost(h_out)");
	rt_ok(cudaStreamDestroy(s), "cudaStreamDestroy");
	return tap_done();
}
