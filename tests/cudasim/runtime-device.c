/* SPDX-License-Identifier: MIT */
/*
 * runtime-device.c - device management: count, current device, properties
 * and attributes, synchronise and reset, flags, peers, PCI ids and the
 * memory pools of a device.
 */
#include <stddef.h>
#include <string.h>
#include <cudaProfiler.h>
#include <cuda_profiler_api.h>
#include "runtime-internal.h"

/* How the calls on one device begin: cudaErrorInvalidValue unless
 * args_valid, then the usable runtime, then a valid device ordinal. */
static cudaError_t rt_device_begin(bool args_valid, int device)
{
	cudaError_t result;

	if (!args_valid)
		return cudaErrorInvalidValue;
	result = rt_check_usable();
	if (result == cudaSuccess)
		result = rt_check_device(device);
	return result;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGetDeviceCount(int *count)
{
	cudaGetDeviceCount_v3020_params params = { count };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaGetDeviceCount_v3020, "cudaGetDeviceCount", &params);
	if (!count) {
		result = cudaErrorInvalidValue;
		goto end;
	}
	result = rt_check_usable();
	if (result != cudaSuccess)
		goto end;
	/* With no device: *count = 0 and cudaErrorNoDevice. */
	result = rt_device_count(count);
end:
	return rt_exit(&call, result);
}

/* cuda_runtime_api.h: binds the primary context and initialises it now. */
SIM_EXPORT cudaError_t CUDARTAPI cudaSetDevice(int device)
{
	cudaSetDevice_v3020_params params = { device };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaSetDevice_v3020, "cudaSetDevice", &params);
	result = rt_device_begin(true, device);
	if (result == cudaSuccess)
		result = rt_bind_device(device);
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaGetDevice(int *device)
{
	cudaGetDevice_v3020_params params = { device };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaGetDevice_v3020, "cudaGetDevice", &params);
	if (!device)
		result = cudaErrorInvalidValue;
	else
		result = rt_current_device(device, NULL);
	return rt_exit(&call, result);
}

/* ------------------------------------------------------------ properties */

enum rt_prop_type { RT_PROP_INT, RT_PROP_UINT, RT_PROP_SIZE };

/* One cudaDeviceProp member and the device attribute that gives it. */
struct rt_prop {
	size_t offset;
	CUdevice_attribute attribute;
	enum rt_prop_type type;
};

/* clang-format off */
#define P(member, attr) RT_PROP(member, attr, RT_PROP_INT)
#define PU(member, attr) RT_PROP(member, attr, RT_PROP_UINT)
#define PS(member, attr) RT_PROP(member, attr, RT_PROP_SIZE)
#define RT_PROP(member, attr, type) \
	{ offsetof(struct cudaDeviceProp, member), CU_DEVICE_ATTRIBUTE_##attr, type }
/* clang-format on */

/* driver_types.h:2467-2562, member by member (name, uuid, luid and
 * totalGlobalMem come from their own queries). */
static const struct rt_prop rt_props[] = {
	PS(sharedMemPerBlock, MAX_SHARED_MEMORY_PER_BLOCK),
	P(regsPerBlock, MAX_REGISTERS_PER_BLOCK),
	P(warpSize, WARP_SIZE),
	PS(memPitch, MAX_PITCH),
	P(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK),
	P(maxThreadsDim[0], MAX_BLOCK_DIM_X),
	P(maxThreadsDim[1], MAX_BLOCK_DIM_Y),
	P(maxThreadsDim[2], MAX_BLOCK_DIM_Z),
	P(maxGridSize[0], MAX_GRID_DIM_X),
	P(maxGridSize[1], MAX_GRID_DIM_Y),
	P(maxGridSize[2], MAX_GRID_DIM_Z),
	PS(totalConstMem, TOTAL_CONSTANT_MEMORY),
	P(major, COMPUTE_CAPABILITY_MAJOR),
	P(minor, COMPUTE_CAPABILITY_MINOR),
	PS(textureAlignment, TEXTURE_ALIGNMENT),
	PS(texturePitchAlignment, TEXTURE_PITCH_ALIGNMENT),
	P(multiProcessorCount, MULTIPROCESSOR_COUNT),
	P(integrated, INTEGRATED),
	P(canMapHostMemory, CAN_MAP_HOST_MEMORY),
	P(maxTexture1D, MAXIMUM_TEXTURE1D_WIDTH),
	P(maxTexture1DMipmap, MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH),
	P(maxTexture2D[0], MAXIMUM_TEXTURE2D_WIDTH),
	P(maxTexture2D[1], MAXIMUM_TEXTURE2D_HEIGHT),
	P(maxTexture2DMipmap[0], MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH),
	P(maxTexture2DMipmap[1], MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT),
	P(maxTexture2DLinear[0], MAXIMUM_TEXTURE2D_LINEAR_WIDTH),
	P(maxTexture2DLinear[1], MAXIMUM_TEXTURE2D_LINEAR_HEIGHT),
	P(maxTexture2DLinear[2], MAXIMUM_TEXTURE2D_LINEAR_PITCH),
	P(maxTexture2DGather[0], MAXIMUM_TEXTURE2D_GATHER_WIDTH),
	P(maxTexture2DGather[1], MAXIMUM_TEXTURE2D_GATHER_HEIGHT),
	P(maxTexture3D[0], MAXIMUM_TEXTURE3D_WIDTH),
	P(maxTexture3D[1], MAXIMUM_TEXTURE3D_HEIGHT),
	P(maxTexture3D[2], MAXIMUM_TEXTURE3D_DEPTH),
	P(maxTexture3DAlt[0], MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE),
	P(maxTexture3DAlt[1], MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE),
	P(maxTexture3DAlt[2], MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE),
	P(maxTextureCubemap, MAXIMUM_TEXTURECUBEMAP_WIDTH),
	P(maxTexture1DLayered[0], MAXIMUM_TEXTURE1D_LAYERED_WIDTH),
	P(maxTexture1DLayered[1], MAXIMUM_TEXTURE1D_LAYERED_LAYERS),
	P(maxTexture2DLayered[0], MAXIMUM_TEXTURE2D_LAYERED_WIDTH),
	P(maxTexture2DLayered[1], MAXIMUM_TEXTURE2D_LAYERED_HEIGHT),
	P(maxTexture2DLayered[2], MAXIMUM_TEXTURE2D_LAYERED_LAYERS),
	P(maxTextureCubemapLayered[0], MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH),
	P(maxTextureCubemapLayered[1], MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS),
	P(maxSurface1D, MAXIMUM_SURFACE1D_WIDTH),
	P(maxSurface2D[0], MAXIMUM_SURFACE2D_WIDTH),
	P(maxSurface2D[1], MAXIMUM_SURFACE2D_HEIGHT),
	P(maxSurface3D[0], MAXIMUM_SURFACE3D_WIDTH),
	P(maxSurface3D[1], MAXIMUM_SURFACE3D_HEIGHT),
	P(maxSurface3D[2], MAXIMUM_SURFACE3D_DEPTH),
	P(maxSurface1DLayered[0], MAXIMUM_SURFACE1D_LAYERED_WIDTH),
	P(maxSurface1DLayered[1], MAXIMUM_SURFACE1D_LAYERED_LAYERS),
	P(maxSurface2DLayered[0], MAXIMUM_SURFACE2D_LAYERED_WIDTH),
	P(maxSurface2DLayered[1], MAXIMUM_SURFACE2D_LAYERED_HEIGHT),
	P(maxSurface2DLayered[2], MAXIMUM_SURFACE2D_LAYERED_LAYERS),
	P(maxSurfaceCubemap, MAXIMUM_SURFACECUBEMAP_WIDTH),
	P(maxSurfaceCubemapLayered[0], MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH),
	P(maxSurfaceCubemapLayered[1], MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS),
	PS(surfaceAlignment, SURFACE_ALIGNMENT),
	P(concurrentKernels, CONCURRENT_KERNELS),
	P(ECCEnabled, ECC_ENABLED),
	P(pciBusID, PCI_BUS_ID),
	P(pciDeviceID, PCI_DEVICE_ID),
	P(pciDomainID, PCI_DOMAIN_ID),
	P(tccDriver, TCC_DRIVER),
	P(asyncEngineCount, ASYNC_ENGINE_COUNT),
	P(unifiedAddressing, UNIFIED_ADDRESSING),
	P(memoryBusWidth, GLOBAL_MEMORY_BUS_WIDTH),
	P(l2CacheSize, L2_CACHE_SIZE),
	P(persistingL2CacheMaxSize, MAX_PERSISTING_L2_CACHE_SIZE),
	P(maxThreadsPerMultiProcessor, MAX_THREADS_PER_MULTIPROCESSOR),
	P(streamPrioritiesSupported, STREAM_PRIORITIES_SUPPORTED),
	P(globalL1CacheSupported, GLOBAL_L1_CACHE_SUPPORTED),
	P(localL1CacheSupported, LOCAL_L1_CACHE_SUPPORTED),
	PS(sharedMemPerMultiprocessor, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
	P(regsPerMultiprocessor, MAX_REGISTERS_PER_MULTIPROCESSOR),
	P(managedMemory, MANAGED_MEMORY),
	P(isMultiGpuBoard, MULTI_GPU_BOARD),
	P(multiGpuBoardGroupID, MULTI_GPU_BOARD_GROUP_ID),
	P(hostNativeAtomicSupported, HOST_NATIVE_ATOMIC_SUPPORTED),
	P(pageableMemoryAccess, PAGEABLE_MEMORY_ACCESS),
	P(concurrentManagedAccess, CONCURRENT_MANAGED_ACCESS),
	P(computePreemptionSupported, COMPUTE_PREEMPTION_SUPPORTED),
	P(canUseHostPointerForRegisteredMem, CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM),
	P(cooperativeLaunch, COOPERATIVE_LAUNCH),
	PS(sharedMemPerBlockOptin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
	P(pageableMemoryAccessUsesHostPageTables, PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES),
	P(directManagedMemAccessFromHost, DIRECT_MANAGED_MEM_ACCESS_FROM_HOST),
	P(maxBlocksPerMultiProcessor, MAX_BLOCKS_PER_MULTIPROCESSOR),
	P(accessPolicyMaxWindowSize, MAX_ACCESS_POLICY_WINDOW_SIZE),
	PS(reservedSharedMemPerBlock, RESERVED_SHARED_MEMORY_PER_BLOCK),
	P(hostRegisterSupported, HOST_REGISTER_SUPPORTED),
	P(sparseCudaArraySupported, SPARSE_CUDA_ARRAY_SUPPORTED),
	P(hostRegisterReadOnlySupported, READ_ONLY_HOST_REGISTER_SUPPORTED),
	P(timelineSemaphoreInteropSupported, TIMELINE_SEMAPHORE_INTEROP_SUPPORTED),
	P(memoryPoolsSupported, MEMORY_POOLS_SUPPORTED),
	P(gpuDirectRDMASupported, GPU_DIRECT_RDMA_SUPPORTED),
	PU(gpuDirectRDMAFlushWritesOptions, GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS),
	P(gpuDirectRDMAWritesOrdering, GPU_DIRECT_RDMA_WRITES_ORDERING),
	PU(memoryPoolSupportedHandleTypes, MEMPOOL_SUPPORTED_HANDLE_TYPES),
	P(deferredMappingCudaArraySupported, DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED),
	P(ipcEventSupported, IPC_EVENT_SUPPORTED),
	P(clusterLaunch, CLUSTER_LAUNCH),
	P(unifiedFunctionPointers, UNIFIED_FUNCTION_POINTERS),
/*
 * CUDA 13.0 dropped eight members from struct cudaDeviceProp, whose
 * values cudaDeviceGetAttribute still gives, and added seven in its
 * reserved space (CUDA 13.0 release notes, "Deprecated and Dropped
 * Features": https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-release-notes/;
 * cudaDeviceProp in https://docs.nvidia.com/cuda/archive/12.9.0/cuda-runtime-api/structcudaDeviceProp.html
 * and https://docs.nvidia.com/cuda/cuda-runtime-api/structcudaDeviceProp.html).
 */
#if CUDART_VERSION >= 13000
	P(deviceNumaConfig, NUMA_CONFIG),
	P(deviceNumaId, NUMA_ID),
	P(mpsEnabled, MPS_ENABLED),
	P(hostNumaId, HOST_NUMA_ID),
	PU(gpuPciDeviceID, GPU_PCI_DEVICE_ID),
	PU(gpuPciSubsystemID, GPU_PCI_SUBSYSTEM_ID),
	P(hostNumaMultinodeIpcSupported, HOST_NUMA_MULTINODE_IPC_SUPPORTED),
#else
	P(clockRate, CLOCK_RATE),
	P(deviceOverlap, GPU_OVERLAP),
	P(kernelExecTimeoutEnabled, KERNEL_EXEC_TIMEOUT),
	P(computeMode, COMPUTE_MODE),
	P(maxTexture1DLinear, MAXIMUM_TEXTURE1D_LINEAR_WIDTH),
	P(memoryClockRate, MEMORY_CLOCK_RATE),
	P(singleToDoublePrecisionPerfRatio, SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO),
	P(cooperativeMultiDeviceLaunch, COOPERATIVE_MULTI_DEVICE_LAUNCH),
#endif
};

#undef P
#undef PU
#undef PS
#undef RT_PROP

/*
 * An attribute the simulated driver does not model answers
 * CUDA_ERROR_INVALID_VALUE: its member stays 0. Any other failure is real.
 */
static cudaError_t rt_fill_prop(struct cudaDeviceProp *prop, const struct rt_prop *entry,
                                CUdevice device)
{
	char *member = (char *)prop + entry->offset;
	int value = 0;
	CUresult cu;

	cu = cuDeviceGetAttribute(&value, entry->attribute, device);
	if (cu == CUDA_ERROR_INVALID_VALUE)
		value = 0;
	else if (cu != CUDA_SUCCESS)
		return rt_error_from_cu(cu);

	switch (entry->type) {
	case RT_PROP_INT:
		memcpy(member, &value, sizeof(int));
		break;
	case RT_PROP_UINT: {
		unsigned int unsigned_value = (unsigned int)value;

		memcpy(member, &unsigned_value, sizeof(unsigned int));
		break;
	}
	case RT_PROP_SIZE: {
		size_t size_value = (size_t)(unsigned int)value;

		memcpy(member, &size_value, sizeof(size_t));
		break;
	}
	}
	return cudaSuccess;
}

static cudaError_t rt_fill_props(struct cudaDeviceProp *prop, int device)
{
	CUdevice dev = (CUdevice)device;
	cudaError_t result;
	size_t total = 0;
	CUresult cu;
	size_t i;

	memset(prop, 0, sizeof(*prop));
	cu = cuDeviceGetName(prop->name, (int)sizeof(prop->name), dev);
	if (cu == CUDA_SUCCESS)
		cu = cuDeviceGetUuid((CUuuid *)&prop->uuid, dev);
	if (cu == CUDA_SUCCESS)
		cu = cuDeviceTotalMem(&total, dev);
	if (cu != CUDA_SUCCESS)
		return rt_error_from_cu(cu);
	prop->totalGlobalMem = total;

	for (i = 0; i < sizeof(rt_props) / sizeof(rt_props[0]); i++) {
		result = rt_fill_prop(prop, &rt_props[i], dev);
		if (result != cudaSuccess)
			return result;
	}
	return cudaSuccess;
}

/*
 * CUDA 13 exports this name for what CUDA 12 called _v2 (cbid 440): CUDA
 * 12's cuda_runtime_api.h defines cudaGetDeviceProperties as
 * cudaGetDeviceProperties_v2, the function of CUDA 12's struct
 * cudaDeviceProp, and CUDA 13.0 removed the _v2 name (CUDA 13.0 release
 * notes, https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-release-notes/).
 * Here, under CUDA 12's headers, the definition below is the _v2 one; the
 * older export of CUDA 11's layout is a stub.
 */
#if CUDART_VERSION >= 13000
#define RT_GET_DEVICE_PROPERTIES    cudaGetDeviceProperties_v12000
#define RT_GET_DEVICE_PROPERTIES_FN "cudaGetDeviceProperties"
typedef cudaGetDeviceProperties_v12000_params rt_get_device_properties_params;
#else
#define RT_GET_DEVICE_PROPERTIES    cudaGetDeviceProperties_v2_v12000
#define RT_GET_DEVICE_PROPERTIES_FN "cudaGetDeviceProperties_v2"
typedef cudaGetDeviceProperties_v2_v12000_params rt_get_device_properties_params;
#endif

SIM_EXPORT cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	rt_get_device_properties_params params = { prop, device };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, RT_GET_DEVICE_PROPERTIES, RT_GET_DEVICE_PROPERTIES_FN, &params);
	result = rt_device_begin(prop != NULL, device);
	if (result == cudaSuccess)
		result = rt_fill_props(prop, device);
	return rt_exit(&call, result);
}

/* enum cudaDeviceAttr and CUdevice_attribute share their values. */
SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
                                                        int device)
{
	cudaDeviceGetAttribute_v5000_params params = { value, attr, device };
	struct sim_api_call call;
	cudaError_t result;
	CUresult cu;

	RT_ENTER(call, cudaDeviceGetAttribute_v5000, "cudaDeviceGetAttribute", &params);
	result = rt_device_begin(value != NULL, device);
	if (result == cudaSuccess) {
		cu = cuDeviceGetAttribute(value, (CUdevice_attribute)attr, (CUdevice)device);
		result = rt_error_from_cu(cu);
	}
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
	cudaDeviceGetPCIBusId_v4010_params params = { pciBusId, len, device };
	struct sim_api_call call;
	cudaError_t result;
	CUresult cu;

	RT_ENTER(call, cudaDeviceGetPCIBusId_v4010, "cudaDeviceGetPCIBusId", &params);
	result = rt_device_begin(pciBusId && len > 0, device);
	if (result == cudaSuccess) {
		cu = cuDeviceGetPCIBusId(pciBusId, len, (CUdevice)device);
		result = rt_error_from_cu(cu);
	}
	return rt_exit(&call, result);
}

/* ------------------------------------------------------------ sync, reset */

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceSynchronize(void)
{
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize", NULL);
	result = rt_context(NULL, NULL);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuCtxSynchronize());
	return rt_exit(&call, result);
}

/*
 * "Destroy all allocations and reset all state on the current device in
 * the current process": the primary context of the current device goes;
 * the next call that needs it creates a new one.
 */
SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceReset(void)
{
	struct sim_api_call call;
	cudaError_t result;
	int device = 0;

	RT_ENTER(call, cudaDeviceReset_v3020, "cudaDeviceReset", NULL);
	result = rt_current_device(&device, NULL);
	if (result == cudaSuccess)
		result = rt_reset_device(device);
	return rt_exit(&call, result);
}

/* ------------------------------------------------------------ flags */

#define RT_DEVICE_FLAGS                                                           \
	(cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax | \
	 cudaDeviceSyncMemops)

static bool rt_device_flags_valid(unsigned int flags)
{
	unsigned int schedule = flags & cudaDeviceScheduleMask;

	if (flags & ~(unsigned int)RT_DEVICE_FLAGS)
		return false;
	/* One scheduling policy at most: Auto 0, Spin 1, Yield 2, Blocking 4. */
	return schedule == cudaDeviceScheduleAuto || schedule == cudaDeviceScheduleSpin ||
	       schedule == cudaDeviceScheduleYield || schedule == cudaDeviceScheduleBlockingSync;
}

/*
 * The CU_CTX_* flags have the same values. The flags apply to the primary
 * context of the current device; with none initialised yet, it is
 * initialised with them (cuda_runtime_api.h, cudaSetDeviceFlags).
 */
SIM_EXPORT cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags)
{
	cudaSetDeviceFlags_v3020_params params = { flags };
	struct sim_api_call call;
	cudaError_t result;
	int device = 0;
	CUresult cu;

	RT_ENTER(call, cudaSetDeviceFlags_v3020, "cudaSetDeviceFlags", &params);
	if (!rt_device_flags_valid(flags)) {
		result = cudaErrorInvalidValue;
		goto end;
	}
	result = rt_current_device(&device, NULL);
	if (result != cudaSuccess)
		goto end;
	cu = cuDevicePrimaryCtxSetFlags((CUdevice)device, flags);
	result = rt_error_from_cu(cu);
	if (result == cudaSuccess)
		result = rt_context(NULL, NULL);
end:
	return rt_exit(&call, result);
}

/* A driver-API context reports its own flags; the runtime's primary
 * context always has cudaDeviceMapHost, implicit in the runtime. */
SIM_EXPORT cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags)
{
	cudaGetDeviceFlags_v7000_params params = { flags };
	CUcontext user_ctx = NULL;
	struct sim_api_call call;
	unsigned int value = 0;
	cudaError_t result;
	int device = 0;
	int active = 0;
	CUresult cu;

	RT_ENTER(call, cudaGetDeviceFlags_v7000, "cudaGetDeviceFlags", &params);
	if (!flags) {
		result = cudaErrorInvalidValue;
		goto end;
	}
	result = rt_current_device(&device, &user_ctx);
	if (result != cudaSuccess)
		goto end;
	if (user_ctx) {
		cu = cuCtxGetFlags(&value);
	} else {
		cu = cuDevicePrimaryCtxGetState((CUdevice)device, &value, &active);
		value |= cudaDeviceMapHost;
	}
	result = rt_error_from_cu(cu);
	if (result == cudaSuccess)
		*flags = value;
end:
	return rt_exit(&call, result);
}

/* ------------------------------------------------------------ peers */

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int *canAccessPeer, int device,
                                                         int peerDevice)
{
	cudaDeviceCanAccessPeer_v4000_params params = { canAccessPeer, device, peerDevice };
	struct sim_api_call call;
	cudaError_t result;
	CUresult cu;

	RT_ENTER(call, cudaDeviceCanAccessPeer_v4000, "cudaDeviceCanAccessPeer", &params);
	result = rt_device_begin(canAccessPeer != NULL, device);
	if (result == cudaSuccess)
		result = rt_check_device(peerDevice);
	if (result == cudaSuccess) {
		cu = cuDeviceCanAccessPeer(canAccessPeer, (CUdevice)device, (CUdevice)peerDevice);
		result = rt_error_from_cu(cu);
	}
	return rt_exit(&call, result);
}

/* Peer access is granted from the current context to the primary context
 * of peerDevice; flags are reserved and must be 0. */
SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
	cudaDeviceEnablePeerAccess_v4000_params params = { peerDevice, flags };
	CUcontext peer_ctx = NULL;
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaDeviceEnablePeerAccess_v4000, "cudaDeviceEnablePeerAccess", &params);
	if (flags != 0) {
		result = cudaErrorInvalidValue;
		goto end;
	}
	result = rt_context(NULL, NULL);
	if (result == cudaSuccess)
		result = rt_primary_context(peerDevice, &peer_ctx);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuCtxEnablePeerAccess(peer_ctx, flags));
end:
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceDisablePeerAccess(int peerDevice)
{
	cudaDeviceDisablePeerAccess_v4000_params params = { peerDevice };
	CUcontext peer_ctx = NULL;
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaDeviceDisablePeerAccess_v4000, "cudaDeviceDisablePeerAccess", &params);
	result = rt_context(NULL, NULL);
	if (result == cudaSuccess)
		result = rt_primary_context(peerDevice, &peer_ctx);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuCtxDisablePeerAccess(peer_ctx));
	return rt_exit(&call, result);
}

/* ------------------------------------------------------------ pools */

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
	cudaDeviceGetDefaultMemPool_v11020_params params = { memPool, device };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaDeviceGetDefaultMemPool_v11020, "cudaDeviceGetDefaultMemPool", &params);
	result = rt_device_begin(memPool != NULL, device);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuDeviceGetDefaultMemPool(memPool, (CUdevice)device));
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
	cudaDeviceGetMemPool_v11020_params params = { memPool, device };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaDeviceGetMemPool_v11020, "cudaDeviceGetMemPool", &params);
	result = rt_device_begin(memPool != NULL, device);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuDeviceGetMemPool(memPool, (CUdevice)device));
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
	cudaDeviceSetMemPool_v11020_params params = { device, memPool };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaDeviceSetMemPool_v11020, "cudaDeviceSetMemPool", &params);
	result = rt_device_begin(memPool != NULL, device);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuDeviceSetMemPool((CUdevice)device, memPool));
	return rt_exit(&call, result);
}

/* ------------------------------------------------------------ misc */

/* Pure: the descriptor of its arguments (cuda_runtime_api.h, "Returns a
 * channel descriptor with format f and number of bits of each component x,
 * y, z, and w"); it needs no device and cannot fail. */
/* ------------------------------------------------------------ limits */

/*
 * Limits and preferences of the current device are those of its context
 * (cuda_runtime_api.h, cudaDeviceSetLimit: "\sa cuCtxSetLimit"). cudaLimit
 * has the values of the CUlimit it stands for, 0 .. 6 (driver_types.h,
 * cuda.h); the driver's other limits have no runtime name.
 */
static cudaError_t rt_limit(enum cudaLimit limit, size_t *get, size_t set)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	if ((unsigned int)limit > cudaLimitPersistingL2CacheSize)
		return cudaErrorUnsupportedLimit;
	if (get)
		return rt_error_from_cu(cuCtxGetLimit(get, (CUlimit)limit));
	return rt_error_from_cu(cuCtxSetLimit((CUlimit)limit, set));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
	cudaDeviceSetLimit_v3020_params params = { limit, value };
	RT_CALL(cudaDeviceSetLimit_v3020, "cudaDeviceSetLimit", params,
	        rt_limit(limit, NULL, value));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
	cudaDeviceGetLimit_v3020_params params = { pValue, limit };
	RT_CALL(cudaDeviceGetLimit_v3020, "cudaDeviceGetLimit", params,
	        pValue ? rt_limit(limit, pValue, 0) : cudaErrorInvalidValue);
}

static cudaError_t rt_cache_config(enum cudaFuncCache *get, enum cudaFuncCache set)
{
	cudaError_t result = rt_begin(true);
	CUfunc_cache config;
	CUresult cu;

	if (result != cudaSuccess)
		return result;
	if (!get)
		return rt_error_from_cu(cuCtxSetCacheConfig((CUfunc_cache)set));
	cu = cuCtxGetCacheConfig(&config);
	if (cu == CUDA_SUCCESS)
		*get = (enum cudaFuncCache)config;
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
	cudaDeviceSetCacheConfig_v3020_params params = { cacheConfig };
	RT_CALL(cudaDeviceSetCacheConfig_v3020, "cudaDeviceSetCacheConfig", params,
	        rt_cache_config(NULL, cacheConfig));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
	cudaDeviceGetCacheConfig_v3020_params params = { pCacheConfig };
	RT_CALL(cudaDeviceGetCacheConfig_v3020, "cudaDeviceGetCacheConfig", params,
	        pCacheConfig ? rt_cache_config(pCacheConfig, cudaFuncCachePreferNone)
	                     : cudaErrorInvalidValue);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static cudaError_t rt_shared_config(enum cudaSharedMemConfig *get, enum cudaSharedMemConfig set)
{
	cudaError_t result = rt_begin(true);
	CUsharedconfig config;
	CUresult cu;

	if (result != cudaSuccess)
		return result;
	if (!get)
		return rt_error_from_cu(cuCtxSetSharedMemConfig((CUsharedconfig)set));
	cu = cuCtxGetSharedMemConfig(&config);
	if (cu == CUDA_SUCCESS)
		*get = (enum cudaSharedMemConfig)config;
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
	cudaDeviceSetSharedMemConfig_v4020_params params = { config };
	RT_CALL(cudaDeviceSetSharedMemConfig_v4020, "cudaDeviceSetSharedMemConfig", params,
	        rt_shared_config(NULL, config));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
	cudaDeviceGetSharedMemConfig_v4020_params params = { pConfig };
	RT_CALL(cudaDeviceGetSharedMemConfig_v4020, "cudaDeviceGetSharedMemConfig", params,
	        pConfig ? rt_shared_config(pConfig, cudaSharedMemBankSizeDefault)
	                : cudaErrorInvalidValue);
}
#pragma GCC diagnostic pop

SIM_EXPORT struct cudaChannelFormatDesc CUDARTAPI
cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f)
{
	cudaCreateChannelDesc_v3020_params params = { x, y, z, w, f };
	struct cudaChannelFormatDesc desc = { x, y, z, w, f };
	struct sim_api_call call;

	RT_ENTER_NOINIT(call, cudaCreateChannelDesc_v3020, "cudaCreateChannelDesc", &params);
	rt_exit_quiet(&call, cudaSuccess);
	return desc;
}

/*
 * cuda_profiler_api.h:80-120: enable / disable profile collection by the
 * active profiling tool; with none, "has no effect". Both initialise CUDA
 * and call the driver's cuProfilerStart / cuProfilerStop.
 */
SIM_EXPORT cudaError_t CUDARTAPI cudaProfilerStart(void)
{
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaProfilerStart_v4000, "cudaProfilerStart", NULL);
	result = rt_begin(true);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuProfilerStart());
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaProfilerStop(void)
{
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaProfilerStop_v4000, "cudaProfilerStop", NULL);
	result = rt_begin(true);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuProfilerStop());
	return rt_exit(&call, result);
}

/* ------------------------------------------------------------ driver entry points */

/*
 * The driver's cuGetProcAddress (cuda_runtime_api.h: "\sa cuGetProcAddress"):
 * cudaEnable* and cudaDriverEntryPoint* have the values of the
 * CU_GET_PROC_ADDRESS_* ones (driver_types.h, cuda.h). Without a version,
 * the runtime's own, CUDART_VERSION. In the frame of a _ptsz twin (the
 * twins are generated: tools/gen-twins.sh) the default flags read as
 * per-thread.
 */
static cudaError_t rt_entry_point(const char *symbol, void **funcPtr, unsigned int version,
                                  unsigned long long flags, bool per_thread,
                                  enum cudaDriverEntryPointQueryResult *status)
{
	cudaError_t result = rt_check_usable();

	if (result == cudaSuccess)
		result = rt_driver_init();
	if (result != cudaSuccess)
		return result;
	if (per_thread && flags == cudaEnableDefault)
		flags = cudaEnablePerThreadDefaultStream;
	return rt_error_from_cu(cuGetProcAddress_v2(symbol, funcPtr, (int)version, flags,
	                                            (CUdriverProcAddressQueryResult *)status));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
SIM_EXPORT cudaError_t CUDARTAPI
cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                        enum cudaDriverEntryPointQueryResult *driverStatus)
{
	cudaGetDriverEntryPoint_v11030_params params = { symbol, funcPtr, flags, driverStatus };
	RT_CALL(cudaGetDriverEntryPoint_v11030, "cudaGetDriverEntryPoint", params,
	        rt_entry_point(symbol, funcPtr, CUDART_VERSION, flags, sim_api_per_thread(),
	                       driverStatus));
}
#pragma GCC diagnostic pop

SIM_EXPORT cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
	cudaGetDriverEntryPointByVersion_v12050_params params = { symbol, funcPtr, cudaVersion,
		                                                  flags, driverStatus };
	RT_CALL(cudaGetDriverEntryPointByVersion_v12050, "cudaGetDriverEntryPointByVersion", params,
	        rt_entry_point(symbol, funcPtr, cudaVersion, flags, sim_api_per_thread(),
	                       driverStatus));
}
