/* SPDX-License-Identifier: MIT */
/*
 * driver-occupancy.c - cuOccupancy* (cuda.h, "Occupancy").
 *
 * The numbers are those of NVIDIA's CUDA Occupancy Calculator, the
 * toolkit's cuda_occupancy.h, used as it is: the device is described to
 * it from cuDeviceGetAttribute's own values (compute capability, threads,
 * registers and shared memory per block and per multiprocessor, warp size,
 * multiprocessor count, opt-in and reserved shared memory per block) and
 * the function from cuFuncGetAttribute's (maximum threads per block,
 * registers, static shared memory, maximum dynamic shared memory, opted in
 * as cudaFuncGetAttributes' conversion in cuda_occupancy.h does), with the
 * function's carveout and cache preference (else the context's) as the
 * device state. cuOccupancyMaxPotentialBlockSize* search block sizes as
 * the runtime's cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags
 * does (cuda_runtime.h), blockSizeLimit included.
 *
 * Clusters (compute capability 9.0 has them): the portable cluster size is
 * 8 blocks, 16 where the function allows non-portable sizes (cuda.h,
 * CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED). The simulated device
 * has no graphics processing clusters: every multiprocessor can hold any
 * block of a cluster, so a configuration that runs at all runs clusters of
 * the largest size, and the device holds as many clusters as its blocks
 * per multiprocessor times its multiprocessors fill.
 */
#include <limits.h>
#include <string.h>
#include <cuda_occupancy.h>
#include "driver-internal.h"

/* CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE only matters where global caching
 * is partitioned (compute capability 5.2 to 6.x, cuda_occupancy.h). */
#define OCC_FLAGS (CU_OCCUPANCY_DEFAULT | CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)

struct occ_input {
	cudaOccDeviceProp device;
	cudaOccFuncAttributes function;
	cudaOccDeviceState state;
	struct sim_function_usage usage;
	int multiprocessors;
};

static void occ_device(int ordinal, cudaOccDeviceProp *p)
{
	memset(p, 0, sizeof(*p));
	p->computeMajor =
	    sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	p->computeMinor =
	    sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	p->maxThreadsPerBlock =
	    sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
	p->maxThreadsPerMultiprocessor =
	    sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	p->regsPerBlock =
	    sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
	p->regsPerMultiprocessor =
	    sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
	p->warpSize = sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
	p->sharedMemPerBlock =
	    (size_t)sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
	p->sharedMemPerMultiprocessor = (size_t)sim_device_attribute(
	    ordinal, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
	p->numSms = sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
	p->sharedMemPerBlockOptin = (size_t)sim_device_attribute(
	    ordinal, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
	p->reservedSharedMemPerBlock = (size_t)sim_device_attribute(
	    ordinal, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
}

/*
 * The calculator's inputs for func in ctx (cuda.h: "the context to use for
 * calculations will be the current context", a CUkernel included).
 */
static CUresult occ_input(struct sim_context *ctx, CUfunction func, struct occ_input *in)
{
	CUresult r = sim_function_usage(func, &in->usage);
	CUfunc_cache cache;

	if (r != CUDA_SUCCESS)
		return r;
	occ_device(ctx->device, &in->device);
	in->multiprocessors = in->device.numSms;
	memset(&in->function, 0, sizeof(in->function));
	in->function.maxThreadsPerBlock = in->usage.max_threads;
	in->function.numRegs = in->usage.num_regs;
	in->function.sharedSizeBytes = (size_t)in->usage.static_shared;
	in->function.partitionedGCConfig = PARTITIONED_GC_OFF;
	in->function.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
	in->function.maxDynamicSharedSizeBytes = (size_t)in->usage.max_dynamic_shared;
	in->function.numBlockBarriers = 1;
	cache = in->usage.cache_config != CU_FUNC_CACHE_PREFER_NONE ? in->usage.cache_config
	                                                            : ctx->cache_config;
	in->state.cacheConfig = (cudaOccCacheConfig)cache;
	in->state.carveoutConfig = in->usage.carveout;
	return CUDA_SUCCESS;
}

static CUresult occ_result(cudaOccError error)
{
	switch (error) {
	case CUDA_OCC_SUCCESS:
		return CUDA_SUCCESS;
	case CUDA_OCC_ERROR_INVALID_INPUT:
		return CUDA_ERROR_INVALID_VALUE;
	default:
		return CUDA_ERROR_UNKNOWN;
	}
}

/* Active blocks per multiprocessor. More dynamic shared memory than any
 * block can have fits none. */
static CUresult occ_blocks(const struct occ_input *in, int block_size, size_t dynamic, int *blocks)
{
	cudaOccResult result;
	CUresult r;

	if (block_size <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	/* Larger blocks than the device's fit none, as the calculator
	 * finds, before its int arithmetic on the block size overflows. */
	if (block_size > in->device.maxThreadsPerBlock ||
	    dynamic > in->device.sharedMemPerBlockOptin) {
		*blocks = 0;
		return CUDA_SUCCESS;
	}
	memset(&result, 0, sizeof(result));
	r = occ_result(cudaOccMaxActiveBlocksPerMultiprocessor(&result, &in->device, &in->function,
	                                                       &in->state, block_size, dynamic));
	if (r == CUDA_SUCCESS)
		*blocks = result.activeBlocksPerMultiprocessor;
	return r;
}

static CUresult occ_begin(CUfunction func, const void *out, unsigned int flags,
                          struct occ_input *in)
{
	struct sim_context *ctx;
	CUresult r = sim_ctx_enter(&ctx);

	if (r != CUDA_SUCCESS)
		return r;
	if (!out || (flags & ~(unsigned int)OCC_FLAGS))
		return CUDA_ERROR_INVALID_VALUE;
	return occ_input(ctx, func, in);
}

static CUresult max_active_blocks(int *numBlocks, CUfunction func, int blockSize,
                                  size_t dynamicSMemSize, unsigned int flags)
{
	struct occ_input in;
	CUresult r = occ_begin(func, numBlocks, flags, &in);

	if (r == CUDA_SUCCESS)
		r = occ_blocks(&in, blockSize, dynamicSMemSize, numBlocks);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                        CUfunction func,
                                                                        int blockSize,
                                                                        size_t dynamicSMemSize)
{
	cuOccupancyMaxActiveBlocksPerMultiprocessor_params p = { numBlocks, func, blockSize,
		                                                 dynamicSMemSize };
	SIM_DRIVER_CALL(cuOccupancyMaxActiveBlocksPerMultiprocessor, p,
	                max_active_blocks(numBlocks, func, blockSize, dynamicSMemSize, 0));
}

SIM_EXPORT CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
	cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_params p = { numBlocks, func,
		                                                          blockSize,
		                                                          dynamicSMemSize, flags };
	SIM_DRIVER_CALL(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, p,
	                max_active_blocks(numBlocks, func, blockSize, dynamicSMemSize, flags));
}

/*
 * The block size with the most active threads per multiprocessor (the
 * fewest blocks among equals), trying every multiple of the warp size from
 * the largest allowed down, as cuda_runtime.h's
 * cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags does.
 */
static CUresult potential_block_size(int *minGridSize, int *blockSize, CUfunction func,
                                     CUoccupancyB2DSize b2d, size_t dynamic, int limit,
                                     unsigned int flags)
{
	int best_size = 0, best_blocks = 0, best_threads = 0, warp, aligned;
	struct occ_input in;
	CUresult r = occ_begin(func, minGridSize, flags, &in);

	if (r == CUDA_SUCCESS && !blockSize)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r != CUDA_SUCCESS)
		return r;
	if (limit <= 0 || limit > in.device.maxThreadsPerBlock)
		limit = in.device.maxThreadsPerBlock;
	if (limit > in.usage.max_threads)
		limit = in.usage.max_threads;
	warp = in.device.warpSize;
	aligned = (limit + warp - 1) / warp * warp;
	for (int size = aligned; size > 0; size -= warp) {
		int trying = size > limit ? limit : size, blocks = 0;

		r = occ_blocks(&in, trying, b2d ? b2d(trying) : dynamic, &blocks);
		if (r != CUDA_SUCCESS)
			return r;
		if (trying * blocks > best_threads) {
			best_size = trying;
			best_blocks = blocks;
			best_threads = trying * blocks;
		}
		if (best_threads == in.device.maxThreadsPerMultiprocessor)
			break;
	}
	*minGridSize = best_blocks * in.multiprocessors;
	*blockSize = best_size;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit)
{
	cuOccupancyMaxPotentialBlockSize_params p = {
		minGridSize,     blockSize,     func, blockSizeToDynamicSMemSize,
		dynamicSMemSize, blockSizeLimit
	};
	SIM_DRIVER_CALL(cuOccupancyMaxPotentialBlockSize, p,
	                potential_block_size(minGridSize, blockSize, func,
	                                     blockSizeToDynamicSMemSize, dynamicSMemSize,
	                                     blockSizeLimit, 0));
}

SIM_EXPORT CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit,
    unsigned int flags)
{
	cuOccupancyMaxPotentialBlockSizeWithFlags_params p = {
		minGridSize,     blockSize,      func, blockSizeToDynamicSMemSize,
		dynamicSMemSize, blockSizeLimit, flags
	};
	SIM_DRIVER_CALL(cuOccupancyMaxPotentialBlockSizeWithFlags, p,
	                potential_block_size(minGridSize, blockSize, func,
	                                     blockSizeToDynamicSMemSize, dynamicSMemSize,
	                                     blockSizeLimit, flags));
}

/* The calculator's cudaOccAvailableDynamicSMemPerBlock; numBlocks blocks
 * that cannot all fit are an invalid value. */
static CUresult available_dynamic(size_t *dynamicSmemSize, CUfunction func, int numBlocks,
                                  int blockSize)
{
	struct occ_input in;
	CUresult r = occ_begin(func, dynamicSmemSize, 0, &in);

	if (r != CUDA_SUCCESS)
		return r;
	/* A block larger than the device's never fits (the calculator's
	 * INVALID_INPUT). */
	if (blockSize <= 0 || numBlocks <= 0 || blockSize > in.device.maxThreadsPerBlock)
		return CUDA_ERROR_INVALID_VALUE;
	return occ_result(cudaOccAvailableDynamicSMemPerBlock(
	    dynamicSmemSize, &in.device, &in.function, &in.state, numBlocks, blockSize));
}

SIM_EXPORT CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                    CUfunction func, int numBlocks,
                                                                    int blockSize)
{
	cuOccupancyAvailableDynamicSMemPerBlock_params p = { dynamicSmemSize, func, numBlocks,
		                                             blockSize };
	SIM_DRIVER_CALL(cuOccupancyAvailableDynamicSMemPerBlock, p,
	                available_dynamic(dynamicSmemSize, func, numBlocks, blockSize));
}

/* ------------------------------------------------------------ clusters */

/*
 * The calculator's inputs for a launch configuration: its context is the
 * stream's, or the current one for a NULL stream (cuda.h,
 * cuOccupancyMaxPotentialClusterSize); blocks per multiprocessor of its
 * block and dynamic shared memory; and the cluster it asks for (0 if none).
 */
static CUresult cluster_begin(CUfunction func, const void *out, const CUlaunchConfig *config,
                              struct occ_input *in, int *blocks, unsigned int cluster[3])
{
	struct sim_context *ctx;
	struct sim_stream *stream;
	uint64_t threads;
	CUresult r = sim_ctx_enter(&ctx);

	if (r != CUDA_SUCCESS)
		return r;
	if (!out || !config || (config->numAttrs > 0 && !config->attrs))
		return CUDA_ERROR_INVALID_VALUE;
	r = sim_stream_resolve(ctx, config->hStream, &stream);
	if (r != CUDA_SUCCESS)
		return r;
	r = occ_input(ctx, func, in);
	if (r != CUDA_SUCCESS)
		return r;
	threads = (uint64_t)config->blockDimX * config->blockDimY * config->blockDimZ;
	if (threads == 0 || threads > INT_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	r = occ_blocks(in, (int)threads, config->sharedMemBytes, blocks);
	cluster[0] = cluster[1] = cluster[2] = 0;
	for (unsigned int i = 0; i < config->numAttrs; i++)
		if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
			cluster[0] = config->attrs[i].value.clusterDim.x;
			cluster[1] = config->attrs[i].value.clusterDim.y;
			cluster[2] = config->attrs[i].value.clusterDim.z;
		}
	return r;
}

static unsigned int cluster_limit(const struct occ_input *in)
{
	return in->usage.non_portable_cluster ? 16 : 8;
}

/* "The cluster dimensions in config are ignored"; a required cluster size
 * is the answer (cuda.h, cuOccupancyMaxPotentialClusterSize). */
static CUresult potential_cluster_size(int *clusterSize, CUfunction func,
                                       const CUlaunchConfig *config)
{
	unsigned int cluster[3];
	struct occ_input in;
	int blocks = 0;
	CUresult r = cluster_begin(func, clusterSize, config, &in, &blocks, cluster);

	if (r != CUDA_SUCCESS)
		return r;
	if (in.usage.required_cluster[0] > 0)
		*clusterSize = in.usage.required_cluster[0] * in.usage.required_cluster[1] *
		               in.usage.required_cluster[2];
	else
		*clusterSize = blocks > 0 ? (int)cluster_limit(&in) : 0;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuOccupancyMaxPotentialClusterSize(int *clusterSize, CUfunction func,
                                                               const CUlaunchConfig *config)
{
	cuOccupancyMaxPotentialClusterSize_params p = { clusterSize, func, config };
	SIM_DRIVER_CALL(cuOccupancyMaxPotentialClusterSize, p,
	                potential_cluster_size(clusterSize, func, config));
}

/*
 * "If the function has required cluster size already set ..., the cluster
 * size from config must either be unspecified or match the required size.
 * Without required sizes, the cluster size must be specified in config"
 * (cuda.h, cuOccupancyMaxActiveClusters): CUDA_ERROR_INVALID_CLUSTER_SIZE
 * otherwise, and for a cluster larger than the function may have.
 */
static CUresult max_active_clusters(int *numClusters, CUfunction func, const CUlaunchConfig *config)
{
	unsigned int cluster[3];
	struct occ_input in;
	uint64_t size;
	int blocks = 0;
	CUresult r = cluster_begin(func, numClusters, config, &in, &blocks, cluster);
	bool given;

	if (r != CUDA_SUCCESS)
		return r;
	given = cluster[0] || cluster[1] || cluster[2];
	for (int i = 0; i < 3; i++) {
		unsigned int required = (unsigned int)in.usage.required_cluster[i];

		if (in.usage.required_cluster[0] > 0 && given && cluster[i] != required)
			return CUDA_ERROR_INVALID_CLUSTER_SIZE;
		if (!given)
			cluster[i] = required;
		if (cluster[i] == 0)
			return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	}
	size = (uint64_t)cluster[0] * cluster[1] * cluster[2];
	if (size > cluster_limit(&in))
		return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	*numClusters = (int)((uint64_t)blocks * (uint64_t)in.multiprocessors / size);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuOccupancyMaxActiveClusters(int *numClusters, CUfunction func,
                                                         const CUlaunchConfig *config)
{
	cuOccupancyMaxActiveClusters_params p = { numClusters, func, config };
	SIM_DRIVER_CALL(cuOccupancyMaxActiveClusters, p,
	                max_active_clusters(numClusters, func, config));
}
