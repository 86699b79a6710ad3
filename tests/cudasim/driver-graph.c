/* SPDX-License-Identifier: MIT */
/*
 * driver-graph.c - CUDA graphs: stream capture, the graph and node API,
 * instantiation and launch (cuda.h, "Graph Management" and "Stream
 * Management": cuStreamBeginCapture .. cuStreamEndCapture).
 *
 * A graph is a list of nodes in the order they were added, which is a
 * topological order of their dependencies: capture adds each operation
 * after the ones it follows, and cuGraphAdd*Node needs the dependencies to
 * exist already. Launching an executable graph replays its nodes one
 * after the other on the launch stream, through the code of the calls they
 * stand for (driver-copy.c, driver-module.c, driver-stream.c): a graph's
 * copies move their bytes, its kernels and memsets take their modelled
 * time, each piece of work has its own CUPTI record carrying the graph and
 * node ids (graphId, graphNodeId of CUpti_ActivityKernel10,
 * CUpti_ActivityMemcpy6, CUpti_ActivityMemset4) and the correlation id of
 * the cuGraphLaunch call, and the ledger line of the work it stands for
 * with api= the launch call and graph= node= added. Serial replay is one
 * valid schedule of the graph; the real GPU may overlap independent
 * branches.
 *
 * Supported node kinds: kernel, memcpy (1D and 2D: Depth 1, no arrays),
 * memset, host, empty, memory allocation and free. Stream capture records
 * kernels, *Async copies and memsets, host functions, stream-ordered
 * allocations and frees, and event records and waits (an event recorded
 * in a capture joins the stream that waits for it to the capture). What
 * is not modelled (child graphs, conditional nodes, graph update, ...) is
 * a stub returning CUDA_ERROR_NOT_SUPPORTED.
 *
 * Graph memory (cuda.h cuGraphAddMemAllocNode; CUDA C++ Programming Guide,
 * "Graph Memory Nodes"): an allocation node's address is fixed when the
 * node is made, "across instantiations and launches", so its range is
 * taken from the device heap then and held while a graph or executable
 * graph has a node for it or it is allocated; the allocation itself
 * happens when a launch reaches the node, and the free when a launch
 * reaches its free node, or when cuMemFree/cuMemFreeAsync or an
 * AUTO_FREE_ON_LAUNCH relaunch frees it. Both have ledger lines, kind
 * "graph", with the launch's stream and graph= node= for those a launch
 * makes. CUPTI documents no record for graph allocations: none is made.
 *
 * Graph and exec structs are never freed, only marked dead, so that a stale
 * handle is recognised.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "driver-memory.h"

struct sim_graph {
	uint32_t id; /* graphId of the records */
	bool live;
	bool exec; /* an executable graph (CUgraphExec) */
	uint64_t capture_id;
	struct sim_graph *source; /* exec: the graph it was instantiated from */
	unsigned long long flags; /* exec: its instantiation flags */
	bool memory;              /* it has memory nodes */
	size_t count, capacity;
	struct sim_graph_node **nodes;
};

static pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_graph **all_graphs;
static size_t all_graph_count, all_graph_capacity;
static uint32_t next_graph_id = 1;
static uint64_t next_node_id = 1;
static uint64_t next_capture_id = 1;

/* Memory nodes (below). */
static void graph_mem_drop_locked(struct sim_graph *graph);
static void graph_mem_hold_locked(struct sim_graph *exec);
static CUresult graph_mem_launch_check(struct sim_graph_node **nodes, size_t count,
                                       unsigned long long flags, uint64_t stream_id);
static CUresult mem_node_run(const struct sim_graph_node *node, CUstream handle);

/* The node being replayed on this thread. */
static __thread const struct sim_graph_node *replaying;
static __thread uint32_t replaying_graph;

/* ------------------------------------------------------------ objects */

static struct sim_graph *graph_new(bool exec)
{
	struct sim_graph *graph = calloc(1, sizeof(*graph));

	if (!graph)
		return NULL;
	pthread_mutex_lock(&graph_lock);
	if (all_graph_count == all_graph_capacity) {
		size_t capacity = all_graph_capacity ? all_graph_capacity * 2 : 16;
		struct sim_graph **grown = realloc(all_graphs, capacity * sizeof(*grown));

		if (!grown) {
			pthread_mutex_unlock(&graph_lock);
			free(graph);
			return NULL;
		}
		all_graphs = grown;
		all_graph_capacity = capacity;
	}
	all_graphs[all_graph_count++] = graph;
	graph->id = next_graph_id++;
	graph->live = true;
	graph->exec = exec;
	pthread_mutex_unlock(&graph_lock);
	return graph;
}

/* A live graph (exec false) or executable graph (exec true), or NULL. */
static struct sim_graph *graph_find_locked(const void *handle, bool exec)
{
	for (size_t i = 0; i < all_graph_count; i++)
		if (all_graphs[i] == handle)
			return all_graphs[i]->live && all_graphs[i]->exec == exec ? all_graphs[i]
			                                                          : NULL;
	return NULL;
}

/* A node of a live graph, or NULL. */
static struct sim_graph_node *node_find_locked(CUgraphNode handle)
{
	for (size_t i = 0; i < all_graph_count; i++) {
		struct sim_graph *graph = all_graphs[i];

		if (!graph->live || graph->exec)
			continue;
		for (size_t j = 0; j < graph->count; j++)
			if ((CUgraphNode)graph->nodes[j] == handle)
				return graph->nodes[j];
	}
	return NULL;
}

static CUresult graph_append_locked(struct sim_graph *graph, const struct sim_graph_node *node,
                                    struct sim_graph_node **out)
{
	struct sim_graph_node *copy;

	if (graph->count == graph->capacity) {
		size_t capacity = graph->capacity ? graph->capacity * 2 : 8;
		struct sim_graph_node **grown = realloc(graph->nodes, capacity * sizeof(*grown));

		if (!grown)
			return CUDA_ERROR_OUT_OF_MEMORY;
		graph->nodes = grown;
		graph->capacity = capacity;
	}
	copy = malloc(sizeof(*copy));
	if (!copy)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*copy = *node;
	copy->graph = graph;
	copy->id = next_node_id++;
	graph->nodes[graph->count++] = copy;
	if (out)
		*out = copy;
	return CUDA_SUCCESS;
}

HIDDEN CUresult sim_graph_capture(struct sim_stream *stream, const struct sim_graph_node *node)
{
	struct sim_graph *graph = sim_stream_capture_graph(stream);
	CUresult r;

	if (!graph)
		return CUDA_ERROR_ILLEGAL_STATE;
	pthread_mutex_lock(&graph_lock);
	r = graph_append_locked(graph, node, NULL);
	pthread_mutex_unlock(&graph_lock);
	return r;
}

HIDDEN uint64_t sim_graph_capture_id(const struct sim_graph *graph)
{
	return graph ? graph->capture_id : 0;
}

HIDDEN void sim_graph_replay_ids(uint32_t *graph_id, uint64_t *node_id)
{
	*graph_id = replaying ? replaying_graph : 0;
	*node_id = replaying ? replaying->id : 0;
}

HIDDEN const char *sim_graph_ledger_suffix(char *buf, size_t size)
{
	if (!replaying)
		return "";
	snprintf(buf, size, " graph=%" PRIu32 " node=%" PRIu64, replaying_graph, replaying->id);
	return buf;
}

/* ------------------------------------------------------------ capture */

/* cuda.h: CU_STREAM_CAPTURE_MODE_GLOBAL, THREAD_LOCAL or RELAXED. */
static CUresult capture_begin(CUstream hStream, CUstreamCaptureMode mode)
{
	struct sim_context *ctx;
	struct sim_graph *graph;
	CUresult r = sim_ctx_enter(&ctx);

	if (r != CUDA_SUCCESS)
		return r;
	if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
	    mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	graph = graph_new(false);
	if (!graph)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&graph_lock);
	graph->capture_id = next_capture_id++;
	pthread_mutex_unlock(&graph_lock);
	r = sim_stream_capture_begin(ctx, hStream, graph, (int)mode);
	if (r != CUDA_SUCCESS) {
		pthread_mutex_lock(&graph_lock);
		graph->live = false;
		pthread_mutex_unlock(&graph_lock);
	}
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
	cuStreamBeginCapture_v2_params p = { hStream, mode };
	SIM_DRIVER_CALL(cuStreamBeginCapture_v2, p, capture_begin(hStream, mode));
}

/* The first version: the mode is global. */
#undef cuStreamBeginCapture
SIM_EXPORT CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream);
SIM_EXPORT CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream)
{
	cuStreamBeginCapture_params p = { hStream };
	SIM_DRIVER_CALL(cuStreamBeginCapture, p,
	                capture_begin(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL));
}

/* cuda.h cuStreamEndCapture: the graph, or
 * CUDA_ERROR_STREAM_CAPTURE_INVALIDATED (and NULL) when the capture was
 * invalidated; every stream joined to the capture leaves it. */
static CUresult capture_end(CUstream hStream, CUgraph *phGraph)
{
	struct sim_context *ctx;
	struct sim_graph *graph = NULL;
	bool invalidated = false;
	CUresult r = sim_ctx_enter(&ctx);

	if (r == CUDA_SUCCESS && !phGraph)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		r = sim_stream_capture_end(ctx, hStream, &graph, &invalidated);
	if (r != CUDA_SUCCESS)
		return r;
	sim_stream_capture_release(graph);
	if (invalidated) {
		pthread_mutex_lock(&graph_lock);
		graph->live = false;
		graph_mem_drop_locked(graph);
		pthread_mutex_unlock(&graph_lock);
		*phGraph = NULL;
		return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	}
	*phGraph = (CUgraph)graph;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
	cuStreamEndCapture_params p = { hStream, phGraph };
	SIM_DRIVER_CALL(cuStreamEndCapture, p, capture_end(hStream, phGraph));
}

static CUresult capture_info(CUstream hStream, CUstreamCaptureStatus *status, cuuint64_t *id,
                             CUgraph *graph_out, const CUgraphNode **deps, size_t *num_deps)
{
	struct sim_context *ctx;
	struct sim_graph *graph = NULL;
	bool invalidated = false;
	CUresult r = sim_ctx_enter(&ctx);

	if (r == CUDA_SUCCESS && !status)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		r = sim_stream_capture_status(ctx, hStream, &graph, &invalidated);
	if (r != CUDA_SUCCESS)
		return r;
	*status = !graph        ? CU_STREAM_CAPTURE_STATUS_NONE
	          : invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
	                        : CU_STREAM_CAPTURE_STATUS_ACTIVE;
	if (id)
		*id = graph ? graph->capture_id : 0;
	if (graph_out)
		*graph_out = (CUgraph)graph;
	/* Every captured node comes after all earlier ones: the last one is
	 * the only dependency of the next. */
	pthread_mutex_lock(&graph_lock);
	if (deps)
		*deps = graph && graph->count ? (const CUgraphNode *)&graph->nodes[graph->count - 1]
		                              : NULL;
	if (num_deps)
		*num_deps = graph && graph->count ? 1 : 0;
	pthread_mutex_unlock(&graph_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream,
                                                CUstreamCaptureStatus *captureStatus)
{
	cuStreamIsCapturing_params p = { hStream, captureStatus };
	SIM_DRIVER_CALL(cuStreamIsCapturing, p,
	                capture_info(hStream, captureStatus, NULL, NULL, NULL, NULL));
}

SIM_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream,
                                                      CUstreamCaptureStatus *captureStatus_out,
                                                      cuuint64_t *id_out, CUgraph *graph_out,
                                                      const CUgraphNode **dependencies_out,
                                                      const CUgraphEdgeData **edgeData_out,
                                                      size_t *numDependencies_out)
{
	cuStreamGetCaptureInfo_v3_params p = {
		hStream,      captureStatus_out,  id_out, graph_out, dependencies_out,
		edgeData_out, numDependencies_out
	};
	/* cuda.h: edge data is all default (NULL means so) here. */
	if (edgeData_out)
		*edgeData_out = NULL;
	SIM_DRIVER_CALL(cuStreamGetCaptureInfo_v3, p,
	                capture_info(hStream, captureStatus_out, id_out, graph_out,
	                             dependencies_out, numDependencies_out));
}

/* ------------------------------------------------------------ graphs */

static CUresult graph_create(CUgraph *phGraph, unsigned int flags)
{
	struct sim_graph *graph;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	/* cuda.h: "flags - Graph creation flags, must be 0". */
	if (!phGraph || flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	graph = graph_new(false);
	if (!graph)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*phGraph = (CUgraph)graph;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
	cuGraphCreate_params p = { phGraph, flags };
	SIM_DRIVER_CALL(cuGraphCreate, p, graph_create(phGraph, flags));
}

static CUresult graph_destroy(const void *handle, bool exec)
{
	struct sim_graph *graph;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&graph_lock);
	graph = graph_find_locked(handle, exec);
	if (graph) {
		graph->live = false;
		graph_mem_drop_locked(graph);
	}
	pthread_mutex_unlock(&graph_lock);
	return graph ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	cuGraphDestroy_params p = { hGraph };
	SIM_DRIVER_CALL(cuGraphDestroy, p, graph_destroy(hGraph, false));
}

SIM_EXPORT CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	cuGraphExecDestroy_params p = { hGraphExec };
	SIM_DRIVER_CALL(cuGraphExecDestroy, p, graph_destroy(hGraphExec, true));
}

static CUresult graph_get_nodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
	struct sim_graph *graph;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!numNodes)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&graph_lock);
	graph = graph_find_locked(hGraph, false);
	if (graph) {
		/* cuda.h: with nodes NULL, the count; else up to *numNodes
		 * of them, and *numNodes the number written. */
		if (nodes) {
			size_t n = *numNodes < graph->count ? *numNodes : graph->count;
			for (size_t i = 0; i < n; i++)
				nodes[i] = (CUgraphNode)graph->nodes[i];
			*numNodes = n;
		} else {
			*numNodes = graph->count;
		}
	}
	pthread_mutex_unlock(&graph_lock);
	return graph ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
	cuGraphGetNodes_params p = { hGraph, nodes, numNodes };
	SIM_DRIVER_CALL(cuGraphGetNodes, p, graph_get_nodes(hGraph, nodes, numNodes));
}

static const CUgraphNodeType node_types[] = {
	[SIM_NODE_EMPTY] = CU_GRAPH_NODE_TYPE_EMPTY,
	[SIM_NODE_KERNEL] = CU_GRAPH_NODE_TYPE_KERNEL,
	[SIM_NODE_MEMCPY] = CU_GRAPH_NODE_TYPE_MEMCPY,
	[SIM_NODE_MEMSET] = CU_GRAPH_NODE_TYPE_MEMSET,
	[SIM_NODE_HOST] = CU_GRAPH_NODE_TYPE_HOST,
	[SIM_NODE_MEM_ALLOC] = CU_GRAPH_NODE_TYPE_MEM_ALLOC,
	[SIM_NODE_MEM_FREE] = CU_GRAPH_NODE_TYPE_MEM_FREE,
};

static CUresult node_get_type(CUgraphNode hNode, CUgraphNodeType *type)
{
	struct sim_graph_node *node;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!type)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&graph_lock);
	node = node_find_locked(hNode);
	if (node)
		*type = node_types[node->kind];
	pthread_mutex_unlock(&graph_lock);
	return node ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
	cuGraphNodeGetType_params p = { hNode, type };
	SIM_DRIVER_CALL(cuGraphNodeGetType, p, node_get_type(hNode, type));
}

/* cuGraphAdd*Node: the dependencies must be nodes of the graph, which
 * puts the new node after them in the list. */
static CUresult node_add(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                         size_t num_deps, const struct sim_graph_node *node)
{
	struct sim_graph *graph;
	struct sim_graph_node *added = NULL;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!phGraphNode || (num_deps > 0 && !deps))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&graph_lock);
	graph = graph_find_locked(hGraph, false);
	if (!graph)
		r = CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; r == CUDA_SUCCESS && i < num_deps; i++) {
		struct sim_graph_node *dep = node_find_locked(deps[i]);
		if (!dep || dep->graph != graph)
			r = CUDA_ERROR_INVALID_VALUE;
	}
	if (r == CUDA_SUCCESS)
		r = graph_append_locked(graph, node, &added);
	if (r == CUDA_SUCCESS)
		*phGraphNode = (CUgraphNode)added;
	pthread_mutex_unlock(&graph_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                const CUgraphNode *dependencies,
                                                size_t numDependencies)
{
	cuGraphAddEmptyNode_params p = { phGraphNode, hGraph, dependencies, numDependencies };
	struct sim_graph_node node = { .kind = SIM_NODE_EMPTY };
	SIM_DRIVER_CALL(cuGraphAddEmptyNode, p,
	                node_add(phGraphNode, hGraph, dependencies, numDependencies, &node));
}

static CUresult kernel_node(const CUDA_KERNEL_NODE_PARAMS *params, struct sim_graph_node *node)
{
	if (!params)
		return CUDA_ERROR_INVALID_VALUE;
	memset(node, 0, sizeof(*node));
	node->kind = SIM_NODE_KERNEL;
	/* cuda.h: func, or a CUkernel in kern (the same handle here). */
	node->u.kernel.function = params->func ? params->func : (CUfunction)params->kern;
	if (!node->u.kernel.function)
		return CUDA_ERROR_INVALID_VALUE;
	node->u.kernel.grid[0] = params->gridDimX;
	node->u.kernel.grid[1] = params->gridDimY;
	node->u.kernel.grid[2] = params->gridDimZ;
	node->u.kernel.block[0] = params->blockDimX;
	node->u.kernel.block[1] = params->blockDimY;
	node->u.kernel.block[2] = params->blockDimZ;
	node->u.kernel.shared_bytes = params->sharedMemBytes;
	return CUDA_SUCCESS;
}

static CUresult add_kernel_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                                size_t num_deps, const CUDA_KERNEL_NODE_PARAMS *params)
{
	struct sim_graph_node node;
	CUresult r = sim_init_status();

	if (r == CUDA_SUCCESS)
		r = kernel_node(params, &node);
	if (r == CUDA_SUCCESS && !sim_function_name(node.u.kernel.function))
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		r = node_add(phGraphNode, hGraph, deps, num_deps, &node);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                    const CUgraphNode *dependencies,
                                                    size_t numDependencies,
                                                    const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	cuGraphAddKernelNode_v2_params p = { phGraphNode, hGraph, dependencies, numDependencies,
		                             nodeParams };
	SIM_DRIVER_CALL(
	    cuGraphAddKernelNode_v2, p,
	    add_kernel_node(phGraphNode, hGraph, dependencies, numDependencies, nodeParams));
}

/* Linear (CUDA_MEMSET_NODE_PARAMS: elementSize 1, 2 or 4). */
static CUresult add_memset_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                                size_t num_deps, const CUDA_MEMSET_NODE_PARAMS *params)
{
	struct sim_graph_node node = { .kind = SIM_NODE_MEMSET };
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!params ||
	    (params->elementSize != 1 && params->elementSize != 2 && params->elementSize != 4))
		return CUDA_ERROR_INVALID_VALUE;
	node.u.memset.dst = (uintptr_t)params->dst;
	node.u.memset.value = params->value;
	node.u.memset.elem = params->elementSize;
	node.u.memset.width = params->width;
	node.u.memset.height = params->height;
	node.u.memset.pitch = params->pitch;
	return node_add(phGraphNode, hGraph, deps, num_deps, &node);
}

SIM_EXPORT CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                 const CUgraphNode *dependencies,
                                                 size_t numDependencies,
                                                 const CUDA_MEMSET_NODE_PARAMS *memsetParams,
                                                 CUcontext ctx)
{
	cuGraphAddMemsetNode_params p = { phGraphNode,     hGraph,       dependencies,
		                          numDependencies, memsetParams, ctx };
	SIM_DRIVER_CALL(
	    cuGraphAddMemsetNode, p,
	    add_memset_node(phGraphNode, hGraph, dependencies, numDependencies, memsetParams));
}

/* A CUDA_MEMCPY3D of depth 1 between linear memory (host or device, by
 * unified addressing): the 2D copy it is. Arrays are not modelled. */
static uintptr_t memcpy3d_side(CUmemorytype type, const void *host, CUdeviceptr device, size_t x,
                               size_t y, size_t pitch)
{
	uintptr_t base = type == CU_MEMORYTYPE_HOST ? (uintptr_t)host : (uintptr_t)device;

	return base + y * pitch + x;
}

static CUresult add_memcpy_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                                size_t num_deps, const CUDA_MEMCPY3D *copy)
{
	struct sim_graph_node node = { .kind = SIM_NODE_MEMCPY };
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!copy || copy->Depth > 1)
		return copy ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
	if (copy->srcMemoryType == CU_MEMORYTYPE_ARRAY ||
	    copy->dstMemoryType == CU_MEMORYTYPE_ARRAY)
		return CUDA_ERROR_NOT_SUPPORTED;
	node.u.copy.src = memcpy3d_side(copy->srcMemoryType, copy->srcHost, copy->srcDevice,
	                                copy->srcXInBytes, copy->srcY, copy->srcPitch);
	node.u.copy.dst = memcpy3d_side(copy->dstMemoryType, copy->dstHost, copy->dstDevice,
	                                copy->dstXInBytes, copy->dstY, copy->dstPitch);
	node.u.copy.width = copy->WidthInBytes;
	node.u.copy.height = copy->Height ? copy->Height : 1;
	node.u.copy.src_pitch = copy->srcPitch;
	node.u.copy.dst_pitch = copy->dstPitch;
	return node_add(phGraphNode, hGraph, deps, num_deps, &node);
}

SIM_EXPORT CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                 const CUgraphNode *dependencies,
                                                 size_t numDependencies,
                                                 const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
	cuGraphAddMemcpyNode_params p = { phGraphNode,     hGraph,     dependencies,
		                          numDependencies, copyParams, ctx };
	SIM_DRIVER_CALL(
	    cuGraphAddMemcpyNode, p,
	    add_memcpy_node(phGraphNode, hGraph, dependencies, numDependencies, copyParams));
}

static CUresult add_host_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                              size_t num_deps, const CUDA_HOST_NODE_PARAMS *params)
{
	struct sim_graph_node node = { .kind = SIM_NODE_HOST };
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!params || !params->fn)
		return CUDA_ERROR_INVALID_VALUE;
	node.u.host.fn = params->fn;
	node.u.host.user_data = params->userData;
	return node_add(phGraphNode, hGraph, deps, num_deps, &node);
}

SIM_EXPORT CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                               const CUgraphNode *dependencies,
                                               size_t numDependencies,
                                               const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	cuGraphAddHostNode_params p = { phGraphNode, hGraph, dependencies, numDependencies,
		                        nodeParams };
	SIM_DRIVER_CALL(
	    cuGraphAddHostNode, p,
	    add_host_node(phGraphNode, hGraph, dependencies, numDependencies, nodeParams));
}

/* ------------------------------------------------------------ instantiate */

/* An executable graph: a snapshot of the graph's nodes, which later
 * changes to the graph do not affect (cuda.h, cuGraphInstantiate). */
static CUresult instantiate(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
	struct sim_graph *graph, *exec;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!phGraphExec)
		return CUDA_ERROR_INVALID_VALUE;
	/* The flags cuda.h defines (CUgraphInstantiate_flags); DEVICE_LAUNCH
	 * "cannot be used in conjunction with" AUTO_FREE_ON_LAUNCH. */
	if (flags & ~(unsigned long long)(CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
	                                  CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
	                                  CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH |
	                                  CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY))
		return CUDA_ERROR_INVALID_VALUE;
	if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) &&
	    (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH))
		return CUDA_ERROR_INVALID_VALUE;
	exec = graph_new(true);
	if (!exec)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&graph_lock);
	graph = graph_find_locked(hGraph, false);
	if (!graph)
		r = CUDA_ERROR_INVALID_VALUE;
	/* cuda.h: a graph with memory nodes has "at most one executable
	 * graph in existence" at a time. */
	for (size_t i = 0; r == CUDA_SUCCESS && graph->memory && i < all_graph_count; i++)
		if (all_graphs[i]->live && all_graphs[i]->exec && all_graphs[i]->source == graph)
			r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS) {
		exec->source = graph;
		exec->flags = flags;
		exec->memory = graph->memory;
	}
	/* graphId of the records is the executable graph's: the original
	 * graph's id, as CUPTI reports "the ID of the graph that launched"
	 * the work (cupti_activity.h, graphId). */
	if (r == CUDA_SUCCESS)
		exec->id = graph->id;
	for (size_t i = 0; r == CUDA_SUCCESS && i < graph->count; i++) {
		struct sim_graph_node *copy;
		r = graph_append_locked(exec, graph->nodes[i], &copy);
		if (r == CUDA_SUCCESS) {
			copy->id = graph->nodes[i]->id;
			next_node_id--;
		}
	}
	if (r == CUDA_SUCCESS)
		graph_mem_hold_locked(exec);
	else
		exec->live = false;
	pthread_mutex_unlock(&graph_lock);
	if (r == CUDA_SUCCESS)
		*phGraphExec = (CUgraphExec)exec;
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                        unsigned long long flags)
{
	cuGraphInstantiateWithFlags_params p = { phGraphExec, hGraph, flags };
	SIM_DRIVER_CALL(cuGraphInstantiateWithFlags, p, instantiate(phGraphExec, hGraph, flags));
}

#undef cuGraphInstantiate
SIM_EXPORT CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph,
                                               CUgraphNode *phErrorNode, char *logBuffer,
                                               size_t bufferSize);
SIM_EXPORT CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph,
                                               CUgraphNode *phErrorNode, char *logBuffer,
                                               size_t bufferSize)
{
	cuGraphInstantiate_params p = { phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize };
	if (phErrorNode)
		*phErrorNode = NULL;
	if (logBuffer && bufferSize)
		logBuffer[0] = '\0';
	SIM_DRIVER_CALL(cuGraphInstantiate, p, instantiate(phGraphExec, hGraph, 0));
}

SIM_EXPORT CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                  CUgraphNode *phErrorNode, char *logBuffer,
                                                  size_t bufferSize);
SIM_EXPORT CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                  CUgraphNode *phErrorNode, char *logBuffer,
                                                  size_t bufferSize)
{
	cuGraphInstantiate_v2_params p = { phGraphExec, hGraph, phErrorNode, logBuffer,
		                           bufferSize };
	if (phErrorNode)
		*phErrorNode = NULL;
	if (logBuffer && bufferSize)
		logBuffer[0] = '\0';
	SIM_DRIVER_CALL(cuGraphInstantiate_v2, p, instantiate(phGraphExec, hGraph, 0));
}

static CUresult instantiate_with_params(CUgraphExec *phGraphExec, CUgraph hGraph,
                                        CUDA_GRAPH_INSTANTIATE_PARAMS *params)
{
	CUresult r;

	if (!params)
		return sim_init_status() ? sim_init_status() : CUDA_ERROR_INVALID_VALUE;
	r = instantiate(phGraphExec, hGraph, params->flags);
	params->hErrNode_out = NULL;
	params->result_out =
	    r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                         CUDA_GRAPH_INSTANTIATE_PARAMS *params)
{
	cuGraphInstantiateWithParams_params p = { phGraphExec, hGraph, params };
	SIM_DRIVER_CALL(cuGraphInstantiateWithParams, p,
	                instantiate_with_params(phGraphExec, hGraph, params));
}

/* ------------------------------------------------------------ launch */

static CUresult node_run(const struct sim_graph_node *node, CUstream stream)
{
	switch (node->kind) {
	case SIM_NODE_KERNEL:
		return sim_kernel_node_run(node, stream);
	case SIM_NODE_MEMCPY:
		return sim_copy_node_run(node, stream);
	case SIM_NODE_MEMSET:
		return sim_memset_node_run(node, stream);
	case SIM_NODE_HOST:
		return sim_host_node_run(node, stream);
	case SIM_NODE_MEM_ALLOC:
	case SIM_NODE_MEM_FREE:
		return mem_node_run(node, stream);
	case SIM_NODE_EMPTY:
	default:
		return CUDA_SUCCESS;
	}
}

/* cuda.h cuGraphLaunch: the graph's work runs on hStream, after the work
 * before it; launches of one executable graph are ordered. */
static CUresult graph_launch(CUgraphExec hGraphExec, CUstream hStream)
{
	struct sim_context *ctx;
	struct sim_stream *stream;
	struct sim_graph *exec;
	struct sim_graph_node **nodes = NULL;
	unsigned long long flags = 0;
	bool memory = false;
	size_t count = 0;
	uint32_t id = 0;
	CUresult r = sim_ctx_enter(&ctx);

	if (r == CUDA_SUCCESS)
		r = sim_stream_resolve(ctx, hStream, &stream);
	if (r != CUDA_SUCCESS)
		return r;
	/* Launching into a capture would make a child graph node. */
	if (sim_stream_capture_graph(stream))
		return CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&graph_lock);
	exec = graph_find_locked(hGraphExec, true);
	if (exec && exec->count) {
		nodes = malloc(exec->count * sizeof(*nodes));
		if (nodes) {
			memcpy(nodes, exec->nodes, exec->count * sizeof(*nodes));
			count = exec->count;
			id = exec->id;
			flags = exec->flags;
			memory = exec->memory;
		} else {
			r = CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	pthread_mutex_unlock(&graph_lock);
	if (!exec)
		return CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS && memory)
		r = graph_mem_launch_check(nodes, count, flags, sim_stream_get_id(stream));
	for (size_t i = 0; r == CUDA_SUCCESS && i < count; i++) {
		replaying = nodes[i];
		replaying_graph = id;
		r = node_run(nodes[i], hStream);
		replaying = NULL;
		replaying_graph = 0;
	}
	free(nodes);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
	cuGraphLaunch_params p = { hGraphExec, hStream };
	SIM_DRIVER_CALL(cuGraphLaunch, p, graph_launch(hGraphExec, hStream));
}

/* Uploading has nothing to do: the graph lives in host memory here. */
static CUresult graph_upload(CUgraphExec hGraphExec, CUstream hStream)
{
	struct sim_context *ctx;
	struct sim_stream *stream;
	CUresult r = sim_ctx_enter(&ctx);

	if (r == CUDA_SUCCESS)
		r = sim_stream_resolve(ctx, hStream, &stream);
	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&graph_lock);
	if (!graph_find_locked(hGraphExec, true))
		r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&graph_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream)
{
	cuGraphUpload_params p = { hGraphExec, hStream };
	SIM_DRIVER_CALL(cuGraphUpload, p, graph_upload(hGraphExec, hStream));
}

/* ------------------------------------------------------------ memory nodes */

/*
 * A graph allocation. Its state is under the memory lock: the free paths
 * of driver-memory.c and driver-pool.c reach it with that lock held
 * (lock order: graph_lock, then the memory lock).
 */
struct sim_graph_alloc {
	struct sim_mem_record *rec;    /* in the memory table while held */
	const struct sim_graph *owner; /* graph of its allocation node */
	const struct sim_graph *freer; /* graph of its free node, if any */
	size_t holders;                /* nodes of live graphs naming it */
	bool live;                     /* allocated by a launch, not freed */
};

/* CU_GRAPH_MEM_ATTR_*, per device, under the memory lock. */
static uint64_t graph_used[SIM_MAX_DEVICES], graph_used_high[SIM_MAX_DEVICES];
static uint64_t graph_reserved[SIM_MAX_DEVICES], graph_reserved_high[SIM_MAX_DEVICES];

static void graph_mem_raise(uint64_t *value, uint64_t *high, uint64_t add)
{
	*value += add;
	if (*value > *high)
		*high = *value;
}

/* Give the range back once nothing holds it. Memory lock held. */
static void graph_alloc_release_locked(struct sim_graph_alloc *a)
{
	struct sim_mem_record *rec = a->rec;

	if (!rec || a->live || a->holders > 0)
		return;
	sim_mem_table_remove(rec);
	sim_heap_free(sim_device_heap(rec->device), rec->range.base, NULL);
	graph_reserved[rec->device] -= rec->reserved;
	free(rec);
	a->rec = NULL;
}

/* The range of a new allocation node, taken from the heap now. */
static CUresult graph_alloc_new(const struct sim_graph *owner, int device, size_t size,
                                struct sim_graph_alloc **out)
{
	struct sim_heap *heap = sim_device_heap(device);
	struct sim_graph_alloc *a = calloc(1, sizeof(*a));
	struct sim_mem_record *rec = calloc(1, sizeof(*rec));
	struct sim_heap_block block;

	if (!a || !rec || !heap) {
		free(a);
		free(rec);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	sim_mem_lock();
	if (sim_heap_alloc(heap, size, &block) != 0) {
		sim_mem_ledger_alloc_failed("graph", device, size, CUDA_ERROR_OUT_OF_MEMORY);
		sim_mem_unlock();
		free(a);
		free(rec);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	rec->range.base = block.base;
	rec->range.size = size;
	rec->kind = SIM_MEM_GRAPH;
	rec->ledger_kind = "graph";
	rec->device = device;
	rec->reserved = block.reserved;
	rec->owner = a;
	sim_mem_table_insert(rec);
	graph_mem_raise(&graph_reserved[device], &graph_reserved_high[device], block.reserved);
	a->rec = rec;
	a->owner = owner;
	a->holders = 1;
	sim_mem_unlock();
	*out = a;
	return CUDA_SUCCESS;
}

/* The graph allocation at dptr (its base), or NULL. Memory lock held. */
static struct sim_graph_alloc *graph_alloc_at_locked(CUdeviceptr dptr)
{
	struct sim_mem_record *rec = sim_mem_table_find((uintptr_t)dptr);

	if (!rec || rec->kind != SIM_MEM_GRAPH || rec->range.base != (uintptr_t)dptr)
		return NULL;
	return rec->owner;
}

/* A free node's allocation: one that a graph allocates and nothing frees
 * yet (cuda.h cuGraphAddMemFreeNode: not twice, only an address an
 * allocation node returned). graph_lock held. */
static CUresult graph_free_claim(const struct sim_graph *graph, CUdeviceptr dptr,
                                 struct sim_graph_alloc **out)
{
	struct sim_graph_alloc *a;
	CUresult r = CUDA_SUCCESS;

	sim_mem_lock();
	a = graph_alloc_at_locked(dptr);
	if (!a || a->freer)
		r = CUDA_ERROR_INVALID_VALUE;
	else {
		a->freer = graph;
		a->holders++;
		*out = a;
	}
	sim_mem_unlock();
	return r;
}

/* One live allocation freed: its ledger line; the range stays while a
 * graph holds it. Memory lock held. */
static void graph_alloc_free_locked(struct sim_graph_alloc *a, bool has_stream, uint64_t stream_id)
{
	a->live = false;
	graph_used[a->rec->device] -= a->rec->reserved;
	a->rec->stream_id = stream_id;
	sim_mem_ledger_free(a->rec, has_stream);
	graph_alloc_release_locked(a);
}

HIDDEN CUresult sim_graph_mem_free(struct sim_mem_record *rec, bool has_stream, uint64_t stream_id)
{
	struct sim_graph_alloc *a = rec->owner;

	/* "These allocations cannot be freed outside the owning graph" when
	 * it frees them; an allocation not allocated is no allocation. */
	if (!a->live || a->freer == a->owner)
		return CUDA_ERROR_INVALID_VALUE;
	graph_alloc_free_locked(a, has_stream, stream_id);
	return CUDA_SUCCESS;
}

/* A graph, or executable graph, no longer holds its memory nodes' ranges
 * (cuGraphDestroy, cuGraphExecDestroy). graph_lock held. */
static void graph_mem_drop_locked(struct sim_graph *graph)
{
	if (!graph->memory)
		return;
	sim_mem_lock();
	for (size_t i = 0; i < graph->count; i++) {
		struct sim_graph_node *node = graph->nodes[i];

		if (node->kind != SIM_NODE_MEM_ALLOC && node->kind != SIM_NODE_MEM_FREE)
			continue;
		node->u.mem.alloc->holders--;
		graph_alloc_release_locked(node->u.mem.alloc);
	}
	sim_mem_unlock();
}

/* An executable graph's copies of memory nodes hold their ranges too. */
static void graph_mem_hold_locked(struct sim_graph *exec)
{
	if (!exec->memory)
		return;
	sim_mem_lock();
	for (size_t i = 0; i < exec->count; i++)
		if (exec->nodes[i]->kind == SIM_NODE_MEM_ALLOC ||
		    exec->nodes[i]->kind == SIM_NODE_MEM_FREE)
			exec->nodes[i]->u.mem.alloc->holders++;
	sim_mem_unlock();
}

/*
 * Before a launch runs anything: allocations of its allocation nodes
 * still live from an earlier launch are freed now with
 * CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, else the launch fails
 * with CUDA_ERROR_INVALID_VALUE (cuda.h, cuGraphLaunch); a free node of
 * another graph's allocation needs that allocation live.
 */
static CUresult graph_mem_launch_check(struct sim_graph_node **nodes, size_t count,
                                       unsigned long long flags, uint64_t stream_id)
{
	CUresult r = CUDA_SUCCESS;

	sim_mem_lock();
	for (size_t i = 0; r == CUDA_SUCCESS && i < count; i++) {
		struct sim_graph_alloc *a = nodes[i]->u.mem.alloc;

		if (nodes[i]->kind == SIM_NODE_MEM_ALLOC && a->live &&
		    !(flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH))
			r = CUDA_ERROR_INVALID_VALUE;
		else if (nodes[i]->kind == SIM_NODE_MEM_FREE && a->owner != a->freer && !a->live)
			r = CUDA_ERROR_INVALID_VALUE;
	}
	for (size_t i = 0; r == CUDA_SUCCESS && i < count; i++)
		if (nodes[i]->kind == SIM_NODE_MEM_ALLOC && nodes[i]->u.mem.alloc->live)
			graph_alloc_free_locked(nodes[i]->u.mem.alloc, true, stream_id);
	sim_mem_unlock();
	return r;
}

/* A launch reaches an allocation or a free node. */
static CUresult mem_node_run(const struct sim_graph_node *node, CUstream handle)
{
	struct sim_graph_alloc *a = node->u.mem.alloc;
	struct sim_context *ctx;
	struct sim_stream *stream;
	CUresult r = sim_ctx_require(&ctx);

	if (r == CUDA_SUCCESS)
		r = sim_stream_resolve(ctx, handle, &stream);
	if (r != CUDA_SUCCESS)
		return r;
	sim_mem_lock();
	if (node->kind == SIM_NODE_MEM_ALLOC) {
		a->live = true;
		graph_mem_raise(&graph_used[a->rec->device], &graph_used_high[a->rec->device],
		                a->rec->reserved);
		a->rec->stream_id = sim_stream_get_id(stream);
		sim_mem_ledger_alloc(a->rec, true);
	} else if (a->live) {
		graph_alloc_free_locked(a, true, sim_stream_get_id(stream));
	} else {
		r = CUDA_ERROR_INVALID_VALUE;
	}
	sim_mem_unlock();
	return r;
}

/* cuda.h CUDA_MEM_ALLOC_NODE_PARAMS: pinned device memory of a valid
 * device, no IPC handle types, access descriptors for at most every
 * device. */
static CUresult alloc_params_check(const CUDA_MEM_ALLOC_NODE_PARAMS *params)
{
	if (!params || params->bytesize == 0 ||
	    params->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    params->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    !sim_device_valid(params->poolProps.location.id))
		return CUDA_ERROR_INVALID_VALUE;
	if (params->poolProps.handleTypes != CU_MEM_HANDLE_TYPE_NONE)
		return CUDA_ERROR_NOT_SUPPORTED; /* "IPC is not supported" */
	if (params->accessDescCount > (size_t)sim_config()->device_count ||
	    (params->accessDescCount > 0 && !params->accessDescs))
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < params->accessDescCount; i++)
		if (params->accessDescs[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
		    !sim_device_valid(params->accessDescs[i].location.id) ||
		    !sim_access_flags_valid(params->accessDescs[i].flags))
			return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* Give the range back when the node could not be added. */
static void graph_alloc_abandon(struct sim_graph_alloc *a)
{
	sim_mem_lock();
	a->holders = 0;
	graph_alloc_release_locked(a);
	sim_mem_unlock();
	free(a);
}

static CUresult add_mem_alloc_node(CUgraphNode *phGraphNode, CUgraph hGraph,
                                   const CUgraphNode *deps, size_t num_deps,
                                   CUDA_MEM_ALLOC_NODE_PARAMS *params)
{
	struct sim_graph_node node = { .kind = SIM_NODE_MEM_ALLOC };
	struct sim_graph_alloc *a = NULL;
	struct sim_graph *graph;
	CUresult r = sim_init_status();

	if (r == CUDA_SUCCESS)
		r = alloc_params_check(params);
	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&graph_lock);
	graph = graph_find_locked(hGraph, false);
	pthread_mutex_unlock(&graph_lock);
	if (!graph || !phGraphNode)
		return CUDA_ERROR_INVALID_VALUE;
	node.u.mem.props = params->poolProps;
	node.u.mem.access_count = params->accessDescCount;
	if (params->accessDescCount) {
		node.u.mem.access = malloc(params->accessDescCount * sizeof(CUmemAccessDesc));
		if (!node.u.mem.access)
			return CUDA_ERROR_OUT_OF_MEMORY;
		memcpy(node.u.mem.access, params->accessDescs,
		       params->accessDescCount * sizeof(CUmemAccessDesc));
	}
	r = graph_alloc_new(graph, params->poolProps.location.id, params->bytesize, &a);
	if (r == CUDA_SUCCESS) {
		node.u.mem.alloc = a;
		r = node_add(phGraphNode, hGraph, deps, num_deps, &node);
		if (r != CUDA_SUCCESS)
			graph_alloc_abandon(a);
	}
	if (r != CUDA_SUCCESS) {
		free(node.u.mem.access);
		return r;
	}
	pthread_mutex_lock(&graph_lock);
	graph->memory = true;
	pthread_mutex_unlock(&graph_lock);
	params->dptr = a->rec->range.base;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                   const CUgraphNode *dependencies,
                                                   size_t numDependencies,
                                                   CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	cuGraphAddMemAllocNode_params p = { phGraphNode, hGraph, dependencies, numDependencies,
		                            nodeParams };
	SIM_DRIVER_CALL(
	    cuGraphAddMemAllocNode, p,
	    add_mem_alloc_node(phGraphNode, hGraph, dependencies, numDependencies, nodeParams));
}

static CUresult add_mem_free_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                                  size_t num_deps, CUdeviceptr dptr)
{
	struct sim_graph_node node = { .kind = SIM_NODE_MEM_FREE };
	struct sim_graph_alloc *a = NULL;
	struct sim_graph *graph;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!phGraphNode)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&graph_lock);
	graph = graph_find_locked(hGraph, false);
	r = graph ? graph_free_claim(graph, dptr, &a) : CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&graph_lock);
	if (r != CUDA_SUCCESS)
		return r;
	node.u.mem.alloc = a;
	r = node_add(phGraphNode, hGraph, deps, num_deps, &node);
	sim_mem_lock();
	if (r != CUDA_SUCCESS) {
		a->freer = NULL;
		a->holders--;
	}
	sim_mem_unlock();
	if (r == CUDA_SUCCESS) {
		pthread_mutex_lock(&graph_lock);
		graph->memory = true;
		pthread_mutex_unlock(&graph_lock);
	}
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                  const CUgraphNode *dependencies,
                                                  size_t numDependencies, CUdeviceptr dptr)
{
	cuGraphAddMemFreeNode_params p = { phGraphNode, hGraph, dependencies, numDependencies,
		                           dptr };
	SIM_DRIVER_CALL(
	    cuGraphAddMemFreeNode, p,
	    add_mem_free_node(phGraphNode, hGraph, dependencies, numDependencies, dptr));
}

/* Captured cuMemAllocAsync: an allocation node of the device's pinned
 * memory, its address returned at once. */
HIDDEN CUresult sim_graph_capture_alloc(struct sim_stream *stream, int device, size_t size,
                                        CUdeviceptr *dptr)
{
	struct sim_graph *graph = sim_stream_capture_graph(stream);
	struct sim_graph_node node = { .kind = SIM_NODE_MEM_ALLOC };
	struct sim_graph_alloc *a;
	CUresult r;

	if (!graph)
		return CUDA_ERROR_ILLEGAL_STATE;
	node.u.mem.props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	node.u.mem.props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	node.u.mem.props.location.id = device;
	r = graph_alloc_new(graph, device, size, &a);
	if (r != CUDA_SUCCESS)
		return r;
	node.u.mem.alloc = a;
	r = sim_graph_capture(stream, &node);
	if (r != CUDA_SUCCESS) {
		graph_alloc_abandon(a);
		return r;
	}
	pthread_mutex_lock(&graph_lock);
	graph->memory = true;
	pthread_mutex_unlock(&graph_lock);
	*dptr = a->rec->range.base;
	return CUDA_SUCCESS;
}

/* Captured cuMemFreeAsync: a free node, of a graph allocation only. */
HIDDEN CUresult sim_graph_capture_free(struct sim_stream *stream, CUdeviceptr dptr)
{
	struct sim_graph *graph = sim_stream_capture_graph(stream);
	struct sim_graph_node node = { .kind = SIM_NODE_MEM_FREE };
	CUresult r;

	if (!graph)
		return CUDA_ERROR_ILLEGAL_STATE;
	pthread_mutex_lock(&graph_lock);
	r = graph_free_claim(graph, dptr, &node.u.mem.alloc);
	pthread_mutex_unlock(&graph_lock);
	if (r == CUDA_SUCCESS)
		r = sim_graph_capture(stream, &node);
	if (r == CUDA_SUCCESS) {
		pthread_mutex_lock(&graph_lock);
		graph->memory = true;
		pthread_mutex_unlock(&graph_lock);
	}
	return r;
}

static CUresult mem_node_params(CUgraphNode hNode, enum sim_node_kind kind,
                                CUDA_MEM_ALLOC_NODE_PARAMS *alloc_out, CUdeviceptr *dptr_out)
{
	struct sim_graph_node *node;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!alloc_out && !dptr_out)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&graph_lock);
	node = node_find_locked(hNode);
	if (!node || node->kind != kind) {
		r = CUDA_ERROR_INVALID_VALUE;
	} else {
		sim_mem_lock();
		if (alloc_out) {
			memset(alloc_out, 0, sizeof(*alloc_out));
			alloc_out->poolProps = node->u.mem.props;
			alloc_out->accessDescs = node->u.mem.access;
			alloc_out->accessDescCount = node->u.mem.access_count;
			alloc_out->bytesize = node->u.mem.alloc->rec->range.size;
			alloc_out->dptr = node->u.mem.alloc->rec->range.base;
		} else {
			*dptr_out = node->u.mem.alloc->rec->range.base;
		}
		sim_mem_unlock();
	}
	pthread_mutex_unlock(&graph_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuGraphMemAllocNodeGetParams(CUgraphNode hNode,
                                                         CUDA_MEM_ALLOC_NODE_PARAMS *params_out)
{
	cuGraphMemAllocNodeGetParams_params p = { hNode, params_out };
	SIM_DRIVER_CALL(cuGraphMemAllocNodeGetParams, p,
	                params_out ? mem_node_params(hNode, SIM_NODE_MEM_ALLOC, params_out, NULL)
	                           : CUDA_ERROR_INVALID_VALUE);
}

SIM_EXPORT CUresult CUDAAPI cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out)
{
	cuGraphMemFreeNodeGetParams_params p = { hNode, dptr_out };
	SIM_DRIVER_CALL(cuGraphMemFreeNodeGetParams, p,
	                dptr_out ? mem_node_params(hNode, SIM_NODE_MEM_FREE, NULL, dptr_out)
	                         : CUDA_ERROR_INVALID_VALUE);
}

/* ------------------------------------------------------------ graph memory of a device */

/* "Blocks which are not in use by a graph that is either currently
 * executing or scheduled to execute are freed back to the operating
 * system" (cuda.h, cuDeviceGraphMemTrim): a graph allocation's range goes
 * back as soon as nothing holds it, so there is nothing left to trim. */
static CUresult graph_mem_trim(CUdevice device)
{
	return sim_device_check(device);
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device)
{
	cuDeviceGraphMemTrim_params p = { device };
	SIM_DRIVER_CALL(cuDeviceGraphMemTrim, p, graph_mem_trim(device));
}

static CUresult graph_mem_attribute(CUdevice device, CUgraphMem_attribute attr, void *value,
                                    bool set)
{
	CUresult r = sim_device_check(device);
	uint64_t *field = NULL, current = 0;

	if (r != CUDA_SUCCESS)
		return r;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	switch (attr) {
	case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
		field = set ? NULL : &graph_used[device];
		break;
	case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
		field = &graph_used_high[device];
		current = graph_used[device];
		break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
		field = set ? NULL : &graph_reserved[device];
		break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
		field = &graph_reserved_high[device];
		current = graph_reserved[device];
		break;
	default:
		break;
	}
	/* A high watermark "can only be reset to zero": to what it is now. */
	if (!field || (set && *(const cuuint64_t *)value != 0))
		r = CUDA_ERROR_INVALID_VALUE;
	else if (set)
		*field = current;
	else
		*(cuuint64_t *)value = *field;
	sim_mem_unlock();
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr,
                                                         void *value)
{
	cuDeviceGetGraphMemAttribute_params p = { device, attr, value };
	SIM_DRIVER_CALL(cuDeviceGetGraphMemAttribute, p,
	                graph_mem_attribute(device, attr, value, false));
}

SIM_EXPORT CUresult CUDAAPI cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr,
                                                         void *value)
{
	cuDeviceSetGraphMemAttribute_params p = { device, attr, value };
	SIM_DRIVER_CALL(cuDeviceSetGraphMemAttribute, p,
	                graph_mem_attribute(device, attr, value, true));
}
