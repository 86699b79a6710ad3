/* SPDX-License-Identifier: MIT */
/*
 * runtime-graph.c - stream capture and graphs of the runtime
 * (cuda_runtime_api.h, "Graph Management" and the stream capture calls):
 * the driver's, through its public entry points. cudaGraph_t,
 * cudaGraphExec_t and cudaGraphNode_t are the driver's handles; the
 * cudaStreamCapture* and cudaGraphNodeType values are the CU_* ones. A
 * kernel node names a kernel by its host stub, as <<<>>> does.
 */
#include <stddef.h>
#include <string.h>
#include "runtime-internal.h"

/* ------------------------------------------------------------ capture */

static cudaError_t rt_capture_begin(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuStreamBeginCapture(stream, (CUstreamCaptureMode)mode));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t stream,
                                                        enum cudaStreamCaptureMode mode)
{
	cudaStreamBeginCapture_v10000_params params = { stream, mode };
	RT_CALL(cudaStreamBeginCapture_v10000, "cudaStreamBeginCapture", params,
	        rt_capture_begin(stream, mode));
}

static cudaError_t rt_capture_end(cudaStream_t stream, cudaGraph_t *pGraph)
{
	cudaError_t result = rt_begin(pGraph != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuStreamEndCapture(stream, pGraph));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
	cudaStreamEndCapture_v10000_params params = { stream, pGraph };
	RT_CALL(cudaStreamEndCapture_v10000, "cudaStreamEndCapture", params,
	        rt_capture_end(stream, pGraph));
}

static cudaError_t rt_is_capturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status)
{
	cudaError_t result = rt_begin(status != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuStreamIsCapturing(stream, (CUstreamCaptureStatus *)status));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream,
                                                       enum cudaStreamCaptureStatus *pCaptureStatus)
{
	cudaStreamIsCapturing_v10000_params params = { stream, pCaptureStatus };
	RT_CALL(cudaStreamIsCapturing_v10000, "cudaStreamIsCapturing", params,
	        rt_is_capturing(stream, pCaptureStatus));
}

static cudaError_t rt_capture_info(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                   unsigned long long *id, cudaGraph_t *graph,
                                   const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                   size_t *num_deps)
{
	cudaError_t result = rt_begin(status != NULL);

	if (result != cudaSuccess)
		return result;
	/* _v3 by name: CUDA 12's cuda.h makes cuStreamGetCaptureInfo its _v2. */
	return rt_error_from_cu(
	    cuStreamGetCaptureInfo_v3(stream, (CUstreamCaptureStatus *)status, (cuuint64_t *)id,
	                              graph, deps, (const CUgraphEdgeData **)edges, num_deps));
}

/*
 * CUDA 13.0 gave cudaStreamGetCaptureInfo the signature of CUDA 12.3's
 * cudaStreamGetCaptureInfo_v3 (the edge data of the dependencies) and
 * dropped the _v2 and _v3 names (CUDA 13.0 release notes,
 * https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-release-notes/).
 * CUDA 12's cuda_runtime_api.h defines cudaStreamGetCaptureInfo as
 * cudaStreamGetCaptureInfo_v2, CUDA 11.3's form without edge data
 * (https://docs.nvidia.com/cuda/archive/12.9.0/cuda-runtime-api/group__CUDART__STREAM.html):
 * under its headers the simulated libcudart.so.12 exports _v2 and _v3
 * (their _ptsz twins are generated: gen-twins.sh); the original of CUDA
 * 10.1 is a stub.
 */
#if CUDART_VERSION >= 13000
SIM_EXPORT cudaError_t CUDARTAPI cudaStreamGetCaptureInfo(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
	cudaStreamGetCaptureInfo_v12030_params params = {
		stream,       captureStatus_out,  id_out, graph_out, dependencies_out,
		edgeData_out, numDependencies_out
	};
	RT_CALL(cudaStreamGetCaptureInfo_v12030, "cudaStreamGetCaptureInfo", params,
	        rt_capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
	                        edgeData_out, numDependencies_out));
}
#else
SIM_EXPORT cudaError_t CUDARTAPI
cudaStreamGetCaptureInfo_v2(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                            unsigned long long *id_out, cudaGraph_t *graph_out,
                            const cudaGraphNode_t **dependencies_out, size_t *numDependencies_out)
{
	cudaStreamGetCaptureInfo_v2_v11030_params params = {
		stream, captureStatus_out, id_out, graph_out, dependencies_out, numDependencies_out
	};
	RT_CALL(cudaStreamGetCaptureInfo_v2_v11030, "cudaStreamGetCaptureInfo_v2", params,
	        rt_capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
	                        NULL, numDependencies_out));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaStreamGetCaptureInfo_v3(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
	cudaStreamGetCaptureInfo_v3_v12030_params params = {
		stream,       captureStatus_out,  id_out, graph_out, dependencies_out,
		edgeData_out, numDependencies_out
	};
	RT_CALL(cudaStreamGetCaptureInfo_v3_v12030, "cudaStreamGetCaptureInfo_v3", params,
	        rt_capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
	                        edgeData_out, numDependencies_out));
}
#endif

/* ------------------------------------------------------------ graphs */

static cudaError_t rt_graph_create(cudaGraph_t *pGraph, unsigned int flags)
{
	cudaError_t result = rt_begin(pGraph != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuGraphCreate(pGraph, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
	cudaGraphCreate_v10000_params params = { pGraph, flags };
	RT_CALL(cudaGraphCreate_v10000, "cudaGraphCreate", params, rt_graph_create(pGraph, flags));
}

static cudaError_t rt_graph_destroy(cudaGraph_t graph)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuGraphDestroy(graph));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph)
{
	cudaGraphDestroy_v10000_params params = { graph };
	RT_CALL(cudaGraphDestroy_v10000, "cudaGraphDestroy", params, rt_graph_destroy(graph));
}

static cudaError_t rt_instantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                  unsigned long long flags)
{
	cudaError_t result = rt_begin(pGraphExec != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t *pGraphExec,
                                                      cudaGraph_t graph, unsigned long long flags)
{
	cudaGraphInstantiate_v12000_params params = { pGraphExec, graph, flags };
	RT_CALL(cudaGraphInstantiate_v12000, "cudaGraphInstantiate", params,
	        rt_instantiate(pGraphExec, graph, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                                               cudaGraph_t graph,
                                                               unsigned long long flags)
{
	cudaGraphInstantiateWithFlags_v11040_params params = { pGraphExec, graph, flags };
	RT_CALL(cudaGraphInstantiateWithFlags_v11040, "cudaGraphInstantiateWithFlags", params,
	        rt_instantiate(pGraphExec, graph, flags));
}

static cudaError_t rt_exec_destroy(cudaGraphExec_t exec)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuGraphExecDestroy(exec));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
	cudaGraphExecDestroy_v10000_params params = { graphExec };
	RT_CALL(cudaGraphExecDestroy_v10000, "cudaGraphExecDestroy", params,
	        rt_exec_destroy(graphExec));
}

static cudaError_t rt_graph_launch(cudaGraphExec_t exec, cudaStream_t stream)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuGraphLaunch(exec, stream));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	cudaGraphLaunch_v10000_params params = { graphExec, stream };
	RT_CALL(cudaGraphLaunch_v10000, "cudaGraphLaunch", params,
	        rt_graph_launch(graphExec, stream));
}

static cudaError_t rt_graph_upload(cudaGraphExec_t exec, cudaStream_t stream)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuGraphUpload(exec, stream));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	cudaGraphUpload_v10000_params params = { graphExec, stream };
	RT_CALL(cudaGraphUpload_v10000, "cudaGraphUpload", params,
	        rt_graph_upload(graphExec, stream));
}

static cudaError_t rt_get_nodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
	cudaError_t result = rt_begin(numNodes != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuGraphGetNodes(graph, nodes, numNodes));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                                                   size_t *numNodes)
{
	cudaGraphGetNodes_v10000_params params = { graph, nodes, numNodes };
	RT_CALL(cudaGraphGetNodes_v10000, "cudaGraphGetNodes", params,
	        rt_get_nodes(graph, nodes, numNodes));
}

static cudaError_t rt_node_type(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
	cudaError_t result = rt_begin(pType != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuGraphNodeGetType(node, (CUgraphNodeType *)pType));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphNodeGetType(cudaGraphNode_t node,
                                                      enum cudaGraphNodeType *pType)
{
	cudaGraphNodeGetType_v10000_params params = { node, pType };
	RT_CALL(cudaGraphNodeGetType_v10000, "cudaGraphNodeGetType", params,
	        rt_node_type(node, pType));
}

/* ------------------------------------------------------------ nodes */

static cudaError_t rt_add_empty(cudaGraphNode_t *node, cudaGraph_t graph,
                                const cudaGraphNode_t *deps, size_t num_deps)
{
	cudaError_t result = rt_begin(node != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuGraphAddEmptyNode(node, graph, deps, num_deps));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode,
                                                       cudaGraph_t graph,
                                                       const cudaGraphNode_t *pDependencies,
                                                       size_t numDependencies)
{
	cudaGraphAddEmptyNode_v10000_params params = { pGraphNode, graph, pDependencies,
		                                       numDependencies };
	RT_CALL(cudaGraphAddEmptyNode_v10000, "cudaGraphAddEmptyNode", params,
	        rt_add_empty(pGraphNode, graph, pDependencies, numDependencies));
}

/* The kernel of a host stub, loaded in the current context. */
static cudaError_t rt_add_kernel(cudaGraphNode_t *node, cudaGraph_t graph,
                                 const cudaGraphNode_t *deps, size_t num_deps,
                                 const struct cudaKernelNodeParams *p)
{
	CUDA_KERNEL_NODE_PARAMS cu;
	struct rt_kernel *kernel;
	CUcontext ctx;
	int device;
	cudaError_t result = rt_begin(node != NULL && p != NULL);

	if (result == cudaSuccess)
		result = rt_context(&ctx, &device);
	if (result != cudaSuccess)
		return result;
	kernel = rt_kernel_find(p->func);
	if (!kernel)
		return cudaErrorInvalidDeviceFunction;
	memset(&cu, 0, sizeof(cu));
	result = rt_kernel_function(kernel, ctx, device, &cu.func);
	if (result != cudaSuccess)
		return result;
	cu.gridDimX = p->gridDim.x;
	cu.gridDimY = p->gridDim.y;
	cu.gridDimZ = p->gridDim.z;
	cu.blockDimX = p->blockDim.x;
	cu.blockDimY = p->blockDim.y;
	cu.blockDimZ = p->blockDim.z;
	cu.sharedMemBytes = p->sharedMemBytes;
	cu.kernelParams = p->kernelParams;
	cu.extra = p->extra;
	return rt_error_from_cu(cuGraphAddKernelNode(node, graph, deps, num_deps, &cu));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphAddKernelNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
    size_t numDependencies, const struct cudaKernelNodeParams *pNodeParams)
{
	cudaGraphAddKernelNode_v10000_params params = { pGraphNode, graph, pDependencies,
		                                        numDependencies, pNodeParams };
	RT_CALL(cudaGraphAddKernelNode_v10000, "cudaGraphAddKernelNode", params,
	        rt_add_kernel(pGraphNode, graph, pDependencies, numDependencies, pNodeParams));
}

static cudaError_t rt_add_memset(cudaGraphNode_t *node, cudaGraph_t graph,
                                 const cudaGraphNode_t *deps, size_t num_deps,
                                 const struct cudaMemsetParams *p)
{
	CUDA_MEMSET_NODE_PARAMS cu;
	CUcontext ctx;
	cudaError_t result = rt_begin(node != NULL && p != NULL);

	if (result == cudaSuccess)
		result = rt_context(&ctx, NULL);
	if (result != cudaSuccess)
		return result;
	memset(&cu, 0, sizeof(cu));
	cu.dst = (CUdeviceptr)p->dst;
	cu.pitch = p->pitch;
	cu.value = p->value;
	cu.elementSize = p->elementSize;
	cu.width = p->width;
	cu.height = p->height;
	return rt_error_from_cu(cuGraphAddMemsetNode(node, graph, deps, num_deps, &cu, ctx));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphAddMemsetNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
    size_t numDependencies, const struct cudaMemsetParams *pMemsetParams)
{
	cudaGraphAddMemsetNode_v10000_params params = { pGraphNode, graph, pDependencies,
		                                        numDependencies, pMemsetParams };
	RT_CALL(cudaGraphAddMemsetNode_v10000, "cudaGraphAddMemsetNode", params,
	        rt_add_memset(pGraphNode, graph, pDependencies, numDependencies, pMemsetParams));
}

static cudaError_t rt_add_host(cudaGraphNode_t *node, cudaGraph_t graph,
                               const cudaGraphNode_t *deps, size_t num_deps,
                               const struct cudaHostNodeParams *p)
{
	CUDA_HOST_NODE_PARAMS cu;
	cudaError_t result = rt_begin(node != NULL && p != NULL);

	if (result != cudaSuccess)
		return result;
	memset(&cu, 0, sizeof(cu));
	cu.fn = p->fn;
	cu.userData = p->userData;
	return rt_error_from_cu(cuGraphAddHostNode(node, graph, deps, num_deps, &cu));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode,
                                                      cudaGraph_t graph,
                                                      const cudaGraphNode_t *pDependencies,
                                                      size_t numDependencies,
                                                      const struct cudaHostNodeParams *pNodeParams)
{
	cudaGraphAddHostNode_v10000_params params = { pGraphNode, graph, pDependencies,
		                                      numDependencies, pNodeParams };
	RT_CALL(cudaGraphAddHostNode_v10000, "cudaGraphAddHostNode", params,
	        rt_add_host(pGraphNode, graph, pDependencies, numDependencies, pNodeParams));
}

/* A 1D copy: CUDA_MEMCPY3D of one row between unified addresses. */
static cudaError_t rt_add_memcpy_1d(cudaGraphNode_t *node, cudaGraph_t graph,
                                    const cudaGraphNode_t *deps, size_t num_deps, void *dst,
                                    const void *src, size_t count)
{
	CUDA_MEMCPY3D cu;
	CUcontext ctx;
	cudaError_t result = rt_begin(node != NULL);

	if (result == cudaSuccess)
		result = rt_context(&ctx, NULL);
	if (result != cudaSuccess)
		return result;
	memset(&cu, 0, sizeof(cu));
	cu.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
	cu.srcDevice = (CUdeviceptr)src;
	cu.srcPitch = count;
	cu.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
	cu.dstDevice = (CUdeviceptr)dst;
	cu.dstPitch = count;
	cu.WidthInBytes = count;
	cu.Height = 1;
	cu.Depth = 1;
	return rt_error_from_cu(cuGraphAddMemcpyNode(node, graph, deps, num_deps, &cu, ctx));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphAddMemcpyNode1D(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
    size_t numDependencies, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	cudaGraphAddMemcpyNode1D_v11010_params params = { pGraphNode,      graph, pDependencies,
		                                          numDependencies, dst,   src,
		                                          count,           kind };
	RT_CALL(
	    cudaGraphAddMemcpyNode1D_v11010, "cudaGraphAddMemcpyNode1D", params,
	    rt_add_memcpy_1d(pGraphNode, graph, pDependencies, numDependencies, dst, src, count));
}

/* ------------------------------------------------------------ memory nodes */

/* cudaMemAllocNodeParams is laid out as CUDA_MEM_ALLOC_NODE_PARAMS, with
 * cudaMemPoolProps and cudaMemAccessDesc as the driver's (driver_types.h,
 * cuda.h): the runtime passes it through, as cudaGraphMemAttributeType's
 * values are the CU_GRAPH_MEM_ATTR_* ones. */
_Static_assert(sizeof(struct cudaMemAllocNodeParams) == sizeof(CUDA_MEM_ALLOC_NODE_PARAMS) &&
                   offsetof(struct cudaMemAllocNodeParams, dptr) ==
                       offsetof(CUDA_MEM_ALLOC_NODE_PARAMS, dptr) &&
                   sizeof(struct cudaMemAccessDesc) == sizeof(CUmemAccessDesc),
               "cudaMemAllocNodeParams and CUDA_MEM_ALLOC_NODE_PARAMS differ");

static cudaError_t rt_add_mem_alloc(cudaGraphNode_t *node, cudaGraph_t graph,
                                    const cudaGraphNode_t *deps, size_t num_deps,
                                    struct cudaMemAllocNodeParams *p)
{
	cudaError_t result = rt_begin(node != NULL && p != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(
	    cuGraphAddMemAllocNode(node, graph, deps, num_deps, (CUDA_MEM_ALLOC_NODE_PARAMS *)p));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode,
                                                          cudaGraph_t graph,
                                                          const cudaGraphNode_t *pDependencies,
                                                          size_t numDependencies,
                                                          struct cudaMemAllocNodeParams *nodeParams)
{
	cudaGraphAddMemAllocNode_v11040_params params = { pGraphNode, graph, pDependencies,
		                                          numDependencies, nodeParams };
	RT_CALL(cudaGraphAddMemAllocNode_v11040, "cudaGraphAddMemAllocNode", params,
	        rt_add_mem_alloc(pGraphNode, graph, pDependencies, numDependencies, nodeParams));
}

static cudaError_t rt_add_mem_free(cudaGraphNode_t *node, cudaGraph_t graph,
                                   const cudaGraphNode_t *deps, size_t num_deps, void *dptr)
{
	cudaError_t result = rt_begin(node != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(
	    cuGraphAddMemFreeNode(node, graph, deps, num_deps, (CUdeviceptr)(uintptr_t)dptr));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode,
                                                         cudaGraph_t graph,
                                                         const cudaGraphNode_t *pDependencies,
                                                         size_t numDependencies, void *dptr)
{
	cudaGraphAddMemFreeNode_v11040_params params = { pGraphNode, graph, pDependencies,
		                                         numDependencies, dptr };
	RT_CALL(cudaGraphAddMemFreeNode_v11040, "cudaGraphAddMemFreeNode", params,
	        rt_add_mem_free(pGraphNode, graph, pDependencies, numDependencies, dptr));
}

static cudaError_t rt_mem_alloc_params(cudaGraphNode_t node, struct cudaMemAllocNodeParams *out)
{
	cudaError_t result = rt_begin(out != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(
	    cuGraphMemAllocNodeGetParams(node, (CUDA_MEM_ALLOC_NODE_PARAMS *)out));
}

SIM_EXPORT cudaError_t CUDARTAPI
cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out)
{
	cudaGraphMemAllocNodeGetParams_v11040_params params = { node, params_out };
	RT_CALL(cudaGraphMemAllocNodeGetParams_v11040, "cudaGraphMemAllocNodeGetParams", params,
	        rt_mem_alloc_params(node, params_out));
}

/* dptr_out points to the void * to fill (cuda_runtime_api.h). */
static cudaError_t rt_mem_free_params(cudaGraphNode_t node, void *dptr_out)
{
	cudaError_t result = rt_begin(dptr_out != NULL);
	CUdeviceptr dptr = 0;
	CUresult cu;

	if (result != cudaSuccess)
		return result;
	cu = cuGraphMemFreeNodeGetParams(node, &dptr);
	if (cu == CUDA_SUCCESS)
		*(void **)dptr_out = (void *)(uintptr_t)dptr;
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
	cudaGraphMemFreeNodeGetParams_v11040_params params = { node, dptr_out };
	RT_CALL(cudaGraphMemFreeNodeGetParams_v11040, "cudaGraphMemFreeNodeGetParams", params,
	        rt_mem_free_params(node, dptr_out));
}

static cudaError_t rt_graph_mem(int device, int attr, void *value, int what)
{
	cudaError_t result = rt_begin(true);

	if (result == cudaSuccess)
		result = rt_check_device(device);
	if (result != cudaSuccess)
		return result;
	switch (what) {
	case 0:
		return rt_error_from_cu(cuDeviceGraphMemTrim((CUdevice)device));
	case 1:
		return rt_error_from_cu(cuDeviceGetGraphMemAttribute(
		    (CUdevice)device, (CUgraphMem_attribute)attr, value));
	default:
		return rt_error_from_cu(cuDeviceSetGraphMemAttribute(
		    (CUdevice)device, (CUgraphMem_attribute)attr, value));
	}
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGraphMemTrim(int device)
{
	cudaDeviceGraphMemTrim_v11040_params params = { device };
	RT_CALL(cudaDeviceGraphMemTrim_v11040, "cudaDeviceGraphMemTrim", params,
	        rt_graph_mem(device, 0, NULL, 0));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGetGraphMemAttribute(int device,
                                                                enum cudaGraphMemAttributeType attr,
                                                                void *value)
{
	cudaDeviceGetGraphMemAttribute_v11040_params params = { device, attr, value };
	RT_CALL(cudaDeviceGetGraphMemAttribute_v11040, "cudaDeviceGetGraphMemAttribute", params,
	        rt_graph_mem(device, attr, value, 1));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceSetGraphMemAttribute(int device,
                                                                enum cudaGraphMemAttributeType attr,
                                                                void *value)
{
	cudaDeviceSetGraphMemAttribute_v11040_params params = { device, attr, value };
	RT_CALL(cudaDeviceSetGraphMemAttribute_v11040, "cudaDeviceSetGraphMemAttribute", params,
	        rt_graph_mem(device, attr, value, 2));
}
