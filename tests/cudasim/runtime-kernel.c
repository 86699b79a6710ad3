/* SPDX-License-Identifier: MIT */
/*
 * runtime-kernel.c - what the runtime tells and sets of a kernel: its
 * attributes, cache and shared memory preferences, name and handles, and
 * its occupancy.
 *
 * A kernel is named by its host stub (the address nvcc registered) or by
 * a cudaKernel_t: "if the specified function does not exist, then it is
 * assumed to be a cudaKernel_t and used as is" (cuda_runtime_api.h,
 * cudaFuncGetAttributes, cudaFuncSetAttribute, cudaFuncGetName). In the
 * simulator a cudaKernel_t is either a host stub (__cudaGetKernel and
 * cudaGetKernel hand those out) or a CUkernel (cudaLibraryGetKernel's).
 * Every call works on the kernel's CUfunction in the calling thread's
 * context, through the driver's cuFunc* entry points.
 */
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include "runtime-internal.h"

cudaError_t rt_func_resolve(const void *func, bool kernel_ok, CUfunction *function)
{
	struct rt_kernel *kernel = rt_kernel_find(func);
	CUcontext ctx = NULL;
	int device = 0;
	cudaError_t result = rt_context(&ctx, &device);

	if (result != cudaSuccess)
		return result;
	if (kernel)
		return rt_kernel_function(kernel, ctx, device, function);
	/* A CUkernel: the driver tells whether it is one. */
	if (!func || !kernel_ok || cuKernelGetFunction(function, (CUkernel)func) != CUDA_SUCCESS)
		return cudaErrorInvalidDeviceFunction;
	return cudaSuccess;
}

/* ------------------------------------------------------------ attributes */

static cudaError_t rt_func_attributes(struct cudaFuncAttributes *attr, const void *func)
{
	static const struct {
		CUfunction_attribute attrib;
		size_t offset;
		bool size_t_field;
	} fields[] = {
#define F(a, member, wide) { a, offsetof(struct cudaFuncAttributes, member), wide }
		F(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, sharedSizeBytes, true),
		F(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, constSizeBytes, true),
		F(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, localSizeBytes, true),
		F(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, maxThreadsPerBlock, false),
		F(CU_FUNC_ATTRIBUTE_NUM_REGS, numRegs, false),
		F(CU_FUNC_ATTRIBUTE_PTX_VERSION, ptxVersion, false),
		F(CU_FUNC_ATTRIBUTE_BINARY_VERSION, binaryVersion, false),
		F(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, cacheModeCA, false),
		F(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, maxDynamicSharedSizeBytes,
		  false),
		F(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, preferredShmemCarveout,
		  false),
		F(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, clusterDimMustBeSet, false),
		F(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, requiredClusterWidth, false),
		F(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, requiredClusterHeight, false),
		F(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, requiredClusterDepth, false),
		F(CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
		  clusterSchedulingPolicyPreference, false),
		F(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
		  nonPortableClusterSizeAllowed, false),
#undef F
	};
	struct cudaFuncAttributes out;
	CUfunction function;
	cudaError_t result;

	if (!attr)
		return cudaErrorInvalidValue;
	result = rt_func_resolve(func, true, &function);
	if (result != cudaSuccess)
		return result;
	memset(&out, 0, sizeof(out));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char *field = (char *)&out + fields[i].offset;
		int value = 0;
		CUresult cu = cuFuncGetAttribute(&value, fields[i].attrib, function);

		if (cu != CUDA_SUCCESS)
			return rt_error_from_cu(cu);
		if (fields[i].size_t_field)
			*(size_t *)(void *)field = (size_t)value;
		else
			*(int *)(void *)field = value;
	}
	*attr = out;
	return cudaSuccess;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
                                                       const void *func)
{
	cudaFuncGetAttributes_v3020_params params = { attr, func };
	RT_CALL(cudaFuncGetAttributes_v3020, "cudaFuncGetAttributes", params,
	        rt_func_attributes(attr, func));
}

/* cudaFuncAttribute has the values of the CUfunction_attribute it sets
 * (driver_types.h, cuda.h): 8 .. 15. */
static cudaError_t rt_func_set_attribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	CUfunction function;
	cudaError_t result = rt_func_resolve(func, true, &function);

	if (result != cudaSuccess)
		return result;
	if (attr < cudaFuncAttributeMaxDynamicSharedMemorySize || attr >= cudaFuncAttributeMax)
		return cudaErrorInvalidValue;
	return rt_error_from_cu(cuFuncSetAttribute(function, (CUfunction_attribute)attr, value));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                                      int value)
{
	cudaFuncSetAttribute_v9000_params params = { func, attr, value };
	RT_CALL(cudaFuncSetAttribute_v9000, "cudaFuncSetAttribute", params,
	        rt_func_set_attribute(func, attr, value));
}

/* "This API does not accept a cudaKernel_t casted as void*"
 * (cuda_runtime_api.h, cudaFuncSetCacheConfig): host stubs only. */
static cudaError_t rt_func_set_cache_config(const void *func, enum cudaFuncCache config)
{
	CUfunction function;
	cudaError_t result = rt_func_resolve(func, false, &function);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuFuncSetCacheConfig(function, (CUfunc_cache)config));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void *func,
                                                        enum cudaFuncCache cacheConfig)
{
	cudaFuncSetCacheConfig_v3020_params params = { func, cacheConfig };
	RT_CALL(cudaFuncSetCacheConfig_v3020, "cudaFuncSetCacheConfig", params,
	        rt_func_set_cache_config(func, cacheConfig));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static cudaError_t rt_func_set_shared_config(const void *func, enum cudaSharedMemConfig config)
{
	CUfunction function;
	cudaError_t result = rt_func_resolve(func, false, &function);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuFuncSetSharedMemConfig(function, (CUsharedconfig)config));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaFuncSetSharedMemConfig(const void *func,
                                                            enum cudaSharedMemConfig config)
{
	cudaFuncSetSharedMemConfig_v4020_params params = { func, config };
	RT_CALL(cudaFuncSetSharedMemConfig_v4020, "cudaFuncSetSharedMemConfig", params,
	        rt_func_set_shared_config(func, config));
}
#pragma GCC diagnostic pop

static cudaError_t rt_func_get_name(const char **name, const void *func)
{
	CUfunction function;
	cudaError_t result;

	if (!name)
		return cudaErrorInvalidValue;
	result = rt_func_resolve(func, true, &function);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuFuncGetName(name, function));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaFuncGetName(const char **name, const void *func)
{
	cudaFuncGetName_v12030_params params = { name, func };
	RT_CALL(cudaFuncGetName_v12030, "cudaFuncGetName", params, rt_func_get_name(name, func));
}

/* ------------------------------------------------------------ handles */

/* The cudaKernel_t of a registered entry function is its host stub, as
 * __cudaGetKernel's (runtime-launch.c). */
static cudaError_t rt_get_kernel(cudaKernel_t *kernel, const void *entry)
{
	cudaError_t result = rt_begin(kernel != NULL);

	if (result != cudaSuccess)
		return result;
	if (!rt_kernel_find(entry))
		return cudaErrorInvalidDeviceFunction;
	*kernel = (cudaKernel_t)entry;
	return cudaSuccess;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
	cudaGetKernel_v12000_params params = { kernelPtr, entryFuncAddr };
	RT_CALL(cudaGetKernel_v12000, "cudaGetKernel", params,
	        rt_get_kernel(kernelPtr, entryFuncAddr));
}

/* cudaFunction_t is the driver's CUfunction, in the current context. */
static cudaError_t rt_get_func_by_symbol(cudaFunction_t *function, const void *symbol)
{
	CUfunction found;
	cudaError_t result;

	if (!function)
		return cudaErrorInvalidValue;
	result = rt_func_resolve(symbol, false, &found);
	if (result == cudaSuccess)
		*function = (cudaFunction_t)found;
	return result;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGetFuncBySymbol(cudaFunction_t *functionPtr,
                                                     const void *symbolPtr)
{
	cudaGetFuncBySymbol_v11000_params params = { functionPtr, symbolPtr };
	RT_CALL(cudaGetFuncBySymbol_v11000, "cudaGetFuncBySymbol", params,
	        rt_get_func_by_symbol(functionPtr, symbolPtr));
}

/* ------------------------------------------------------------ occupancy */

/*
 * The occupancy calls sit on cuOccupancy* with the kernel's CUfunction,
 * as the real runtime on the driver ("\sa cuOccupancy..." in
 * cuda_runtime_api.h). cudaOccupancyMaxPotentialBlockSize* are templates
 * of cuda_runtime.h that call cudaGetDevice, cudaDeviceGetAttribute,
 * cudaFuncGetAttributes and cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags.
 */
static cudaError_t rt_occupancy_blocks(int *numBlocks, const void *func, int blockSize,
                                       size_t dynamicSMemSize, unsigned int flags)
{
	CUfunction function;
	cudaError_t result;

	if (!numBlocks)
		return cudaErrorInvalidValue;
	result = rt_func_resolve(func, true, &function);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	    numBlocks, function, blockSize, dynamicSMemSize, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize)
{
	cudaOccupancyMaxActiveBlocksPerMultiprocessor_v6050_params params = { numBlocks, func,
		                                                              blockSize,
		                                                              dynamicSMemSize };
	RT_CALL(
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor_v6050,
	    "cudaOccupancyMaxActiveBlocksPerMultiprocessor", params,
	    rt_occupancy_blocks(numBlocks, func, blockSize, dynamicSMemSize, cudaOccupancyDefault));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
	cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_v7000_params params = {
		numBlocks, func, blockSize, dynamicSMemSize, flags
	};
	RT_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_v7000,
	        "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", params,
	        rt_occupancy_blocks(numBlocks, func, blockSize, dynamicSMemSize, flags));
}

static cudaError_t rt_occupancy_dynamic(size_t *dynamicSmemSize, const void *func, int numBlocks,
                                        int blockSize)
{
	CUfunction function;
	cudaError_t result;

	if (!dynamicSmemSize)
		return cudaErrorInvalidValue;
	result = rt_func_resolve(func, true, &function);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, function,
	                                                                numBlocks, blockSize));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                           const void *func,
                                                                           int numBlocks,
                                                                           int blockSize)
{
	cudaOccupancyAvailableDynamicSMemPerBlock_v10200_params params = { dynamicSmemSize, func,
		                                                           numBlocks, blockSize };
	RT_CALL(cudaOccupancyAvailableDynamicSMemPerBlock_v10200,
	        "cudaOccupancyAvailableDynamicSMemPerBlock", params,
	        rt_occupancy_dynamic(dynamicSmemSize, func, numBlocks, blockSize));
}

/* cudaLaunchAttribute is laid out as CUlaunchAttribute, with the same ids
 * (driver_types.h, cuda.h): the attributes pass as they are. */
_Static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute),
               "cudaLaunchAttribute and CUlaunchAttribute differ");

HIDDEN cudaError_t rt_launch_config(const cudaLaunchConfig_t *config, CUlaunchConfig *out)
{
	if (!config || (config->numAttrs > 0 && !config->attrs))
		return cudaErrorInvalidValue;
	if (config->dynamicSmemBytes > UINT_MAX)
		return cudaErrorInvalidValue;
	memset(out, 0, sizeof(*out));
	out->gridDimX = config->gridDim.x;
	out->gridDimY = config->gridDim.y;
	out->gridDimZ = config->gridDim.z;
	out->blockDimX = config->blockDim.x;
	out->blockDimY = config->blockDim.y;
	out->blockDimZ = config->blockDim.z;
	out->sharedMemBytes = (unsigned int)config->dynamicSmemBytes;
	out->hStream = (CUstream)config->stream;
	out->attrs = (CUlaunchAttribute *)config->attrs;
	out->numAttrs = config->numAttrs;
	return cudaSuccess;
}

static cudaError_t rt_occupancy_clusters(int *out, const void *func,
                                         const cudaLaunchConfig_t *launchConfig, bool count)
{
	CUlaunchConfig config;
	CUfunction function;
	cudaError_t result;

	if (!out)
		return cudaErrorInvalidValue;
	result = rt_launch_config(launchConfig, &config);
	if (result == cudaSuccess)
		result = rt_func_resolve(func, true, &function);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(count ? cuOccupancyMaxActiveClusters(out, function, &config)
	                              : cuOccupancyMaxPotentialClusterSize(out, function, &config));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaOccupancyMaxActiveClusters(
    int *numClusters, const void *func, const cudaLaunchConfig_t *launchConfig)
{
	cudaOccupancyMaxActiveClusters_v11070_params params = { numClusters, func, launchConfig };
	RT_CALL(cudaOccupancyMaxActiveClusters_v11070, "cudaOccupancyMaxActiveClusters", params,
	        rt_occupancy_clusters(numClusters, func, launchConfig, true));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaOccupancyMaxPotentialClusterSize(
    int *clusterSize, const void *func, const cudaLaunchConfig_t *launchConfig)
{
	cudaOccupancyMaxPotentialClusterSize_v11070_params params = { clusterSize, func,
		                                                      launchConfig };
	RT_CALL(cudaOccupancyMaxPotentialClusterSize_v11070, "cudaOccupancyMaxPotentialClusterSize",
	        params, rt_occupancy_clusters(clusterSize, func, launchConfig, false));
}
