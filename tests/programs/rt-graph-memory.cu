/* SPDX-License-Identifier: MIT */
/*
 * rt-graph-memory.cu - graph memory nodes as the CUDA C++ Programming
 * Guide's "Graph Memory Nodes" uses them: an allocation node, work on the
 * allocation and a free node, built node by node and captured from
 * cudaMallocAsync / cudaFreeAsync; the address fixed across launches;
 * allocations left unfreed by their graph, freed by cudaFreeAsync,
 * cudaFree or an AUTO_FREE_ON_LAUNCH relaunch, and the launch refused
 * while one is live (cuda.h, cuGraphLaunch); the documented errors of
 * free nodes and of a second instantiation; the graph memory attributes.
 *
 * Prints TAP, "# fact pid=N" and "# expect" lines: every allocation and
 * free a launch or a free call makes (kind=graph), and the work of the
 * launches.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#define BIG   ((size_t)1 << 20) /* reserved as 2 MiB */
#define SMALL ((size_t)4096)    /* reserved as 4096 */

extern "C" __global__ void touch(unsigned char *p, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		p[i] ^= 0;
}

static bool rt_ok(cudaError_t r, const char *what)
{
	return tap_ok(r == cudaSuccess, "%s (%s)", what, cudaGetErrorName(r));
}

static bool rt_fails(cudaError_t r, cudaError_t want, const char *api, const char *what)
{
	cudaError_t last = cudaGetLastError();

	if (r != cudaSuccess)
		tap_expect("op=error api=%s result=%s", api, cudaGetErrorName(r));
	return tap_ok(r == want && last == want, "%s returns %s (got %s, last error %s)", what,
	              cudaGetErrorName(want), cudaGetErrorName(r), cudaGetErrorName(last));
}

static unsigned long long addr(const void *p)
{
	return (unsigned long long)(uintptr_t)p;
}

static unsigned long long graph_attr(enum cudaGraphMemAttributeType attr)
{
	unsigned long long value = ~0ull;

	cudaDeviceGetGraphMemAttribute(0, attr, &value);
	return value;
}

/* What one launch of the built graph does, for the ledger. */
static void expect_built_launch(const void *d, const void *h)
{
	tap_expect("op=alloc kind=graph addr=0x%llx size=%zu reserved=%zu api=cudaGraphLaunch "
	           "graph>=1 node>=1",
	           addr(d), BIG, 2 * BIG);
	tap_expect("op=memset dst=0x%llx bytes=%zu api=cudaGraphLaunch", addr(d), BIG);
	tap_expect("op=launch name=touch api=cudaGraphLaunch");
	tap_expect("op=memcpy dir=DtoH src=0x%llx dst=0x%llx bytes=%zu api=cudaGraphLaunch",
	           addr(d), addr(h), BIG);
	tap_expect("op=free kind=graph addr=0x%llx size=%zu api=cudaGraphLaunch graph>=1 node>=1",
	           addr(d), BIG);
}

/* A graph built node by node: alloc, memset, kernel, copy out, free. */
static void check_built(cudaStream_t s, unsigned char *h)
{
	cudaGraph_t graph;
	cudaGraphExec_t exec, second;
	cudaGraphNode_t alloc, memset_node, kernel, copy, free_node, again;
	struct cudaMemAllocNodeParams ap, got;
	struct cudaMemsetParams mp;
	struct cudaKernelNodeParams kp;
	void *freed = NULL;
	size_t n = BIG;
	void *args[2];
	bool ok = true;

	rt_ok(cudaGraphCreate(&graph, 0), "cudaGraphCreate");
	memset(&ap, 0, sizeof(ap));
	ap.poolProps.allocType = cudaMemAllocationTypePinned;
	ap.poolProps.location.type = cudaMemLocationTypeDevice;
	ap.poolProps.location.id = 0;
	ap.bytesize = BIG;
	if (!rt_ok(cudaGraphAddMemAllocNode(&alloc, graph, NULL, 0, &ap),
	           "cudaGraphAddMemAllocNode(1 MiB)"))
		return;
	tap_ok(ap.dptr != NULL, "the allocation's address comes with the node (%p)", ap.dptr);
	memset(&mp, 0, sizeof(mp));
	mp.dst = ap.dptr;
	mp.value = 0x5a;
	mp.elementSize = 1;
	mp.width = BIG;
	mp.height = 1;
	rt_ok(cudaGraphAddMemsetNode(&memset_node, graph, &alloc, 1, &mp), "a memset node on it");
	args[0] = &ap.dptr;
	args[1] = &n;
	memset(&kp, 0, sizeof(kp));
	kp.func = (void *)touch;
	kp.gridDim = dim3(BIG / 256);
	kp.blockDim = dim3(256);
	kp.kernelParams = args;
	rt_ok(cudaGraphAddKernelNode(&kernel, graph, &memset_node, 1, &kp), "a kernel node");
	rt_ok(cudaGraphAddMemcpyNode1D(&copy, graph, &kernel, 1, h, ap.dptr, BIG,
	                               cudaMemcpyDeviceToHost),
	      "a copy out");
	rt_ok(cudaGraphAddMemFreeNode(&free_node, graph, &copy, 1, ap.dptr),
	      "cudaGraphAddMemFreeNode");
	rt_fails(cudaGraphAddMemFreeNode(&again, graph, &free_node, 1, ap.dptr),
	         cudaErrorInvalidValue, "cudaGraphAddMemFreeNode", "freeing it twice");
	rt_fails(cudaGraphAddMemFreeNode(&again, graph, &free_node, 1, h), cudaErrorInvalidValue,
	         "cudaGraphAddMemFreeNode", "an address no allocation node returned");

	memset(&got, 0, sizeof(got));
	rt_ok(cudaGraphMemAllocNodeGetParams(alloc, &got), "cudaGraphMemAllocNodeGetParams");
	tap_ok(got.dptr == ap.dptr && got.bytesize == BIG &&
	           got.poolProps.location.type == cudaMemLocationTypeDevice,
	       "its address, size and location");
	rt_ok(cudaGraphMemFreeNodeGetParams(free_node, &freed), "cudaGraphMemFreeNodeGetParams");
	tap_ok(freed == ap.dptr, "frees that address");

	rt_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
	rt_fails(cudaGraphInstantiate(&second, graph, 0), cudaErrorInvalidValue,
	         "cudaGraphInstantiate", "a second executable graph of a graph with memory nodes");
	for (int launch = 0; launch < 2; launch++) {
		memset(h, 0, BIG);
		if (rt_ok(cudaGraphLaunch(exec, s), "cudaGraphLaunch"))
			expect_built_launch(ap.dptr, h);
		rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
		ok = true;
		for (size_t i = 0; i < BIG && ok; i++)
			ok = h[i] == 0x5a;
		tap_ok(ok, "launch %d: the memset reached the host through the allocation", launch);
	}
	tap_ok(graph_attr(cudaGraphMemAttrUsedMemCurrent) == 0,
	       "no graph memory in use after the free nodes ran");
	tap_ok(graph_attr(cudaGraphMemAttrUsedMemHigh) == 2 * BIG,
	       "the high watermark is the 2 MiB it took (%llu)",
	       graph_attr(cudaGraphMemAttrUsedMemHigh));
	tap_ok(graph_attr(cudaGraphMemAttrReservedMemCurrent) >= 2 * BIG,
	       "2 MiB stay reserved for the graph");
	rt_fails(cudaFree(ap.dptr), cudaErrorInvalidValue, "cudaFree",
	         "freeing outside its graph an allocation the graph frees");
	rt_ok(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
	rt_ok(cudaGraphDestroy(graph), "cudaGraphDestroy");
}

/* Captured cudaMallocAsync/cudaFreeAsync become memory nodes. */
static void check_captured(cudaStream_t s, unsigned char *h)
{
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	cudaGraphNode_t nodes[8];
	enum cudaGraphNodeType types[8];
	size_t count = 8;
	void *p = NULL;

	rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
	rt_ok(cudaMallocAsync(&p, SMALL, s), "cudaMallocAsync in the capture");
	rt_ok(cudaMemsetAsync(p, 0x33, SMALL, s), "cudaMemsetAsync");
	rt_ok(cudaMemcpyAsync(h, p, SMALL, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
	rt_ok(cudaFreeAsync(p, s), "cudaFreeAsync in the capture");
	rt_ok(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
	rt_ok(cudaGraphGetNodes(graph, nodes, &count), "cudaGraphGetNodes");
	for (size_t i = 0; i < count; i++)
		cudaGraphNodeGetType(nodes[i], &types[i]);
	tap_ok(count == 4 && types[0] == cudaGraphNodeTypeMemAlloc &&
	           types[3] == cudaGraphNodeTypeMemFree,
	       "an allocation node, the work, a free node (%zu nodes)", count);
	rt_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
	memset(h, 0, SMALL);
	if (rt_ok(cudaGraphLaunch(exec, s), "cudaGraphLaunch")) {
		tap_expect("op=alloc kind=graph addr=0x%llx size=%zu api=cudaGraphLaunch graph>=1",
		           addr(p), SMALL);
		tap_expect("op=memset dst=0x%llx bytes=%zu api=cudaGraphLaunch", addr(p), SMALL);
		tap_expect("op=memcpy dir=DtoH src=0x%llx bytes=%zu api=cudaGraphLaunch", addr(p),
		           SMALL);
		tap_expect("op=free kind=graph addr=0x%llx size=%zu api=cudaGraphLaunch graph>=1",
		           addr(p), SMALL);
	}
	rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
	tap_ok(h[0] == 0x33 && h[SMALL - 1] == 0x33, "the captured memset arrived");
	rt_ok(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
	rt_ok(cudaGraphDestroy(graph), "cudaGraphDestroy");
}

/* An allocation the graph leaves to the program. */
static void check_unfreed(cudaStream_t s)
{
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	void *p = NULL;

	rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
	rt_ok(cudaMallocAsync(&p, SMALL, s), "cudaMallocAsync, never freed in the capture");
	rt_ok(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
	rt_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
	if (rt_ok(cudaGraphLaunch(exec, s), "first launch"))
		tap_expect("op=alloc kind=graph addr=0x%llx size=%zu api=cudaGraphLaunch", addr(p),
		           SMALL);
	tap_ok(graph_attr(cudaGraphMemAttrUsedMemCurrent) == SMALL,
	       "its 4096 bytes are in use after the launch (%llu)",
	       graph_attr(cudaGraphMemAttrUsedMemCurrent));
	rt_fails(cudaGraphLaunch(exec, s), cudaErrorInvalidValue, "cudaGraphLaunch",
	         "a relaunch while the allocation is unfreed");
	if (rt_ok(cudaFreeAsync(p, s), "cudaFreeAsync of the graph's allocation"))
		tap_expect("op=free kind=graph addr=0x%llx size=%zu api=cudaFreeAsync", addr(p),
		           SMALL);
	rt_fails(cudaFreeAsync(p, s), cudaErrorInvalidValue, "cudaFreeAsync", "freeing it again");
	if (rt_ok(cudaGraphLaunch(exec, s), "the relaunch after the free"))
		tap_expect("op=alloc kind=graph addr=0x%llx size=%zu api=cudaGraphLaunch", addr(p),
		           SMALL);
	rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
	if (rt_ok(cudaFree(p), "cudaFree of the graph's allocation"))
		tap_expect("op=free kind=graph addr=0x%llx size=%zu api=cudaFree", addr(p), SMALL);
	rt_ok(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");

	rt_ok(cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch),
	      "cudaGraphInstantiate(cudaGraphInstantiateFlagAutoFreeOnLaunch)");
	for (int launch = 0; launch < 2; launch++) {
		if (!rt_ok(cudaGraphLaunch(exec, s), "an AUTO_FREE_ON_LAUNCH launch"))
			continue;
		if (launch > 0)
			tap_expect("op=free kind=graph addr=0x%llx api=cudaGraphLaunch", addr(p));
		tap_expect("op=alloc kind=graph addr=0x%llx size=%zu api=cudaGraphLaunch", addr(p),
		           SMALL);
	}
	rt_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
	if (rt_ok(cudaFree(p), "cudaFree of what the last launch allocated"))
		tap_expect("op=free kind=graph addr=0x%llx size=%zu api=cudaFree", addr(p), SMALL);
	rt_ok(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
	rt_ok(cudaGraphDestroy(graph), "cudaGraphDestroy");
}

static void check_attributes(void)
{
	unsigned long long zero = 0, five = 5;

	rt_ok(cudaDeviceGraphMemTrim(0), "cudaDeviceGraphMemTrim");
	tap_ok(graph_attr(cudaGraphMemAttrReservedMemCurrent) == 0,
	       "with every graph gone, no graph memory is reserved (%llu)",
	       graph_attr(cudaGraphMemAttrReservedMemCurrent));
	rt_ok(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero),
	      "reset the used high watermark");
	tap_ok(graph_attr(cudaGraphMemAttrUsedMemHigh) == 0, "it is 0 now");
	rt_fails(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &five),
	         cudaErrorInvalidValue, "cudaDeviceSetGraphMemAttribute",
	         "a high watermark set to 5, not 0");
	rt_fails(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero),
	         cudaErrorInvalidValue, "cudaDeviceSetGraphMemAttribute",
	         "setting the current use");
}

int main(void)
{
	unsigned char *h = NULL;
	cudaStream_t s;

	printf("# fact pid=%d\n", (int)getpid());
	rt_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
	if (!rt_ok(cudaMallocHost(&h, BIG), "cudaMallocHost"))
		return tap_done();
	tap_expect("op=alloc kind=host_pinned size=%zu", BIG);
	check_built(s, h);
	check_captured(s, h);
	check_unfreed(s);
	check_attributes();
	rt_ok(cudaFreeHost(h), "cudaFreeHost");
	tap_expect("op=free kind=host_pinned size=%zu api=cudaFreeHost", BIG);
	rt_ok(cudaStreamDestroy(s), "cudaStreamDestroy");
	return tap_done();
}
