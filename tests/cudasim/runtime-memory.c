/* SPDX-License-Identifier: MIT */
/*
 * runtime-memory.c - memory management: device, pitched, managed and
 * pinned host allocations, host registration, stream-ordered allocations
 * and memory pools, cudaMemGetInfo and cudaPointerGetAttributes.
 *
 * The runtime's own rules (sizes of 0, NULL pointers, flag checks) are
 * applied here; everything else is the driver's answer, mapped.
 */
#include <stddef.h>
#include <string.h>
#include "runtime-internal.h"

/*
 * How the allocations that take a size of 0 begin: the runtime must be
 * usable; then a request for nothing (empty) succeeds with *ptr = NULL and
 * never reaches the driver (§1): the caller is done. Any other request gets
 * the thread's context.
 */
static cudaError_t rt_alloc_begin(bool empty, void **ptr)
{
	cudaError_t result = rt_check_usable();

	if (result != cudaSuccess)
		return result;
	if (empty) {
		*ptr = NULL;
		return cudaSuccess;
	}
	return rt_context(NULL, NULL);
}

/* ------------------------------------------------------------ device */

/* cudaMalloc(&p, 0) succeeds with NULL and allocates nothing (§1). */
static cudaError_t rt_malloc(void **devPtr, size_t size)
{
	CUdeviceptr dptr = 0;
	cudaError_t result;

	if (!devPtr)
		return cudaErrorInvalidValue;
	result = rt_alloc_begin(size == 0, devPtr);
	if (result != cudaSuccess || size == 0)
		return result;
	result = rt_error_from_cu(cuMemAlloc(&dptr, size));
	if (result == cudaSuccess)
		*devPtr = (void *)dptr;
	return result;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size)
{
	cudaMalloc_v3020_params params = { devPtr, size };
	RT_CALL(cudaMalloc_v3020, "cudaMalloc", params, rt_malloc(devPtr, size));
}

/*
 * cudaFree(NULL) does nothing but is the usual way to create the context
 * (cuda_runtime_api.h:4731), so the context is set up first. A bad or
 * freed pointer is CUDA_ERROR_INVALID_VALUE from the driver.
 */
static cudaError_t rt_free(void *devPtr)
{
	cudaError_t result = rt_context(NULL, NULL);

	if (result != cudaSuccess || !devPtr)
		return result;
	return rt_error_from_cu(cuMemFree((CUdeviceptr)devPtr));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaFree(void *devPtr)
{
	cudaFree_v3020_params params = { devPtr };
	RT_CALL(cudaFree_v3020, "cudaFree", params, rt_free(devPtr));
}

/* cuMemAllocPitch takes an element size of 4, 8 or 16 bytes (cuda.h);
 * the runtime's call has none, so it asks for the smallest. */
#define RT_PITCH_ELEMENT_SIZE 4

static cudaError_t rt_malloc_pitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
	bool empty = width == 0 || height == 0;
	CUdeviceptr dptr = 0;
	size_t row_pitch = 0;
	cudaError_t result;
	CUresult cu;

	if (!devPtr || !pitch)
		return cudaErrorInvalidValue;
	result = rt_alloc_begin(empty, devPtr);
	if (result != cudaSuccess)
		return result;
	if (empty) {
		*pitch = 0;
		return cudaSuccess;
	}
	cu = cuMemAllocPitch(&dptr, &row_pitch, width, height, RT_PITCH_ELEMENT_SIZE);
	result = rt_error_from_cu(cu);
	if (result == cudaSuccess) {
		*devPtr = (void *)dptr;
		*pitch = row_pitch;
	}
	return result;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr, size_t *pitch, size_t width,
                                                 size_t height)
{
	cudaMallocPitch_v3020_params params = { devPtr, pitch, width, height };
	RT_CALL(cudaMallocPitch_v3020, "cudaMallocPitch", params,
	        rt_malloc_pitch(devPtr, pitch, width, height));
}

/* cuda_runtime_api.h:4440-4550: size 0 and flags other than
 * cudaMemAttachGlobal/Host are cudaErrorInvalidValue. */
static cudaError_t rt_malloc_managed(void **devPtr, size_t size, unsigned int flags)
{
	bool flags_valid = flags == cudaMemAttachGlobal || flags == cudaMemAttachHost;
	cudaError_t result = rt_begin(devPtr && size != 0 && flags_valid);
	CUdeviceptr dptr = 0;

	if (result != cudaSuccess)
		return result;
	result = rt_error_from_cu(cuMemAllocManaged(&dptr, size, flags));
	if (result == cudaSuccess)
		*devPtr = (void *)dptr;
	return result;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	cudaMallocManaged_v6000_params params = { devPtr, size, flags };
	RT_CALL(cudaMallocManaged_v6000, "cudaMallocManaged", params,
	        rt_malloc_managed(devPtr, size, flags));
}

/* ------------------------------------------------------------ host */

#define RT_HOST_ALLOC_FLAGS \
	(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined)
#define RT_HOST_REGISTER_FLAGS                                                          \
	(cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory | \
	 cudaHostRegisterReadOnly)

/*
 * cudaMallocHost(&p, 0) succeeds with NULL and never reaches the driver
 * (§1); cudaHostAlloc, the same call with flags, does likewise. The
 * cudaHostAlloc* flags are the CU_MEMHOSTALLOC_* values.
 */
static cudaError_t rt_host_alloc(void **pHost, size_t size, unsigned int flags, bool with_flags)
{
	cudaError_t result;
	CUresult cu;

	if (!pHost || (flags & ~(unsigned int)RT_HOST_ALLOC_FLAGS))
		return cudaErrorInvalidValue;
	result = rt_alloc_begin(size == 0, pHost);
	if (result != cudaSuccess || size == 0)
		return result;
	cu = with_flags ? cuMemHostAlloc(pHost, size, flags) : cuMemAllocHost(pHost, size);
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size)
{
	cudaMallocHost_v3020_params params = { ptr, size };
	RT_CALL(cudaMallocHost_v3020, "cudaMallocHost", params, rt_host_alloc(ptr, size, 0, false));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	cudaHostAlloc_v3020_params params = { pHost, size, flags };
	RT_CALL(cudaHostAlloc_v3020, "cudaHostAlloc", params,
	        rt_host_alloc(pHost, size, flags, true));
}

/* cudaFreeHost(NULL) returns cudaSuccess (measured, §1). */
static cudaError_t rt_free_host(void *ptr)
{
	cudaError_t result = rt_check_usable();

	if (result != cudaSuccess || !ptr)
		return result;
	result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemFreeHost(ptr));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaFreeHost(void *ptr)
{
	cudaFreeHost_v3020_params params = { ptr };
	RT_CALL(cudaFreeHost_v3020, "cudaFreeHost", params, rt_free_host(ptr));
}

/* Overlaps (712), unknown pointers (713) and NULL (1) are the driver's
 * answers; the cudaHostRegister* flags are the CU_MEMHOSTREGISTER_* ones. */
static cudaError_t rt_host_register(void *ptr, size_t size, unsigned int flags)
{
	cudaError_t result = rt_begin((flags & ~(unsigned int)RT_HOST_REGISTER_FLAGS) == 0);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemHostRegister(ptr, size, flags));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	cudaHostRegister_v4000_params params = { ptr, size, flags };
	RT_CALL(cudaHostRegister_v4000, "cudaHostRegister", params,
	        rt_host_register(ptr, size, flags));
}

static cudaError_t rt_host_unregister(void *ptr)
{
	cudaError_t result = rt_context(NULL, NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemHostUnregister(ptr));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaHostUnregister(void *ptr)
{
	cudaHostUnregister_v4000_params params = { ptr };
	RT_CALL(cudaHostUnregister_v4000, "cudaHostUnregister", params, rt_host_unregister(ptr));
}

/* flags "must be 0 for now" (cuda_runtime_api.h, cudaHostGetDevicePointer). */
static cudaError_t rt_host_device_pointer(void **pDevice, void *pHost, unsigned int flags)
{
	CUdeviceptr dptr = 0;
	cudaError_t result = rt_begin(pDevice && flags == 0);

	if (result != cudaSuccess)
		return result;
	result = rt_error_from_cu(cuMemHostGetDevicePointer(&dptr, pHost, 0));
	if (result == cudaSuccess)
		*pDevice = (void *)dptr;
	return result;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                                          unsigned int flags)
{
	cudaHostGetDevicePointer_v3020_params params = { pDevice, pHost, flags };
	RT_CALL(cudaHostGetDevicePointer_v3020, "cudaHostGetDevicePointer", params,
	        rt_host_device_pointer(pDevice, pHost, flags));
}

static cudaError_t rt_host_get_flags(unsigned int *pFlags, void *pHost)
{
	cudaError_t result = rt_begin(pFlags != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemHostGetFlags(pFlags, pHost));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
	cudaHostGetFlags_v3020_params params = { pFlags, pHost };
	RT_CALL(cudaHostGetFlags_v3020, "cudaHostGetFlags", params,
	        rt_host_get_flags(pFlags, pHost));
}

/* ------------------------------------------------------------ async */

static cudaError_t rt_malloc_async(void **devPtr, size_t size, cudaMemPool_t pool,
                                   cudaStream_t stream)
{
	CUdeviceptr dptr = 0;
	cudaError_t result = rt_begin(devPtr != NULL);
	CUresult cu;

	if (result != cudaSuccess)
		return result;
	if (pool)
		cu = cuMemAllocFromPoolAsync(&dptr, size, pool, stream);
	else
		cu = cuMemAllocAsync(&dptr, size, stream);
	result = rt_error_from_cu(cu);
	if (result == cudaSuccess)
		*devPtr = (void *)dptr;
	return result;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
	cudaMallocAsync_v11020_params params = { devPtr, size, hStream };
	RT_CALL(cudaMallocAsync_v11020, "cudaMallocAsync", params,
	        rt_malloc_async(devPtr, size, NULL, hStream));
}

/* A NULL pool is not "the default pool" here: it is an invalid handle. */
static cudaError_t rt_malloc_from_pool(void **ptr, size_t size, cudaMemPool_t pool,
                                       cudaStream_t stream)
{
	if (!pool)
		return cudaErrorInvalidValue;
	return rt_malloc_async(ptr, size, pool, stream);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void **ptr, size_t size,
                                                         cudaMemPool_t memPool, cudaStream_t stream)
{
	cudaMallocFromPoolAsync_v11020_params params = { ptr, size, memPool, stream };
	RT_CALL(cudaMallocFromPoolAsync_v11020, "cudaMallocFromPoolAsync", params,
	        rt_malloc_from_pool(ptr, size, memPool, stream));
}

static cudaError_t rt_free_async(void *devPtr, cudaStream_t stream)
{
	cudaError_t result = rt_context(NULL, NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemFreeAsync((CUdeviceptr)devPtr, stream));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
	cudaFreeAsync_v11020_params params = { devPtr, hStream };
	RT_CALL(cudaFreeAsync_v11020, "cudaFreeAsync", params, rt_free_async(devPtr, hStream));
}

/* ------------------------------------------------------------ pools */

/* struct cudaMemPoolProps and CUmemPoolProps have the same members with
 * enums of the same values; copied member by member all the same. */
static void rt_pool_props(CUmemPoolProps *out, const struct cudaMemPoolProps *in)
{
	memset(out, 0, sizeof(*out));
	out->allocType = (CUmemAllocationType)in->allocType;
	out->handleTypes = (CUmemAllocationHandleType)in->handleTypes;
	out->location.type = (CUmemLocationType)in->location.type;
	out->location.id = in->location.id;
	out->win32SecurityAttributes = in->win32SecurityAttributes;
	out->maxSize = in->maxSize;
	out->usage = in->usage;
	memcpy(out->reserved, in->reserved, sizeof(out->reserved));
}

static cudaError_t rt_pool_create(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
	CUmemPoolProps props;
	cudaError_t result = rt_begin(memPool && poolProps);

	if (result != cudaSuccess)
		return result;
	rt_pool_props(&props, poolProps);
	return rt_error_from_cu(cuMemPoolCreate(memPool, &props));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemPoolCreate(cudaMemPool_t *memPool,
                                                   const struct cudaMemPoolProps *poolProps)
{
	cudaMemPoolCreate_v11020_params params = { memPool, poolProps };
	RT_CALL(cudaMemPoolCreate_v11020, "cudaMemPoolCreate", params,
	        rt_pool_create(memPool, poolProps));
}

static cudaError_t rt_pool_destroy(cudaMemPool_t memPool)
{
	cudaError_t result = rt_begin(memPool != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemPoolDestroy(memPool));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t memPool)
{
	cudaMemPoolDestroy_v11020_params params = { memPool };
	RT_CALL(cudaMemPoolDestroy_v11020, "cudaMemPoolDestroy", params, rt_pool_destroy(memPool));
}

static cudaError_t rt_pool_trim(cudaMemPool_t memPool, size_t minBytesToKeep)
{
	cudaError_t result = rt_begin(memPool != NULL);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemPoolTrimTo(memPool, minBytesToKeep));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
	cudaMemPoolTrimTo_v11020_params params = { memPool, minBytesToKeep };
	RT_CALL(cudaMemPoolTrimTo_v11020, "cudaMemPoolTrimTo", params,
	        rt_pool_trim(memPool, minBytesToKeep));
}

/* enum cudaMemPoolAttr and CUmemPool_attribute share their values. */
static cudaError_t rt_pool_attribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value,
                                     bool set)
{
	CUmemPool_attribute attribute = (CUmemPool_attribute)attr;
	cudaError_t result = rt_begin(memPool && value);
	CUresult cu;

	if (result != cudaSuccess)
		return result;
	if (set)
		cu = cuMemPoolSetAttribute(memPool, attribute, value);
	else
		cu = cuMemPoolGetAttribute(memPool, attribute, value);
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t memPool,
                                                         enum cudaMemPoolAttr attr, void *value)
{
	cudaMemPoolSetAttribute_v11020_params params = { memPool, attr, value };
	RT_CALL(cudaMemPoolSetAttribute_v11020, "cudaMemPoolSetAttribute", params,
	        rt_pool_attribute(memPool, attr, value, true));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemPoolGetAttribute(cudaMemPool_t memPool,
                                                         enum cudaMemPoolAttr attr, void *value)
{
	cudaMemPoolGetAttribute_v11020_params params = { memPool, attr, value };
	RT_CALL(cudaMemPoolGetAttribute_v11020, "cudaMemPoolGetAttribute", params,
	        rt_pool_attribute(memPool, attr, value, false));
}

/* ------------------------------------------------------------ queries */

static cudaError_t rt_mem_get_info(size_t *free_bytes, size_t *total_bytes)
{
	cudaError_t result = rt_begin(free_bytes && total_bytes);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemGetInfo(free_bytes, total_bytes));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemGetInfo(size_t *free, size_t *total)
{
	cudaMemGetInfo_v3020_params params = { free, total };
	RT_CALL(cudaMemGetInfo_v3020, "cudaMemGetInfo", params, rt_mem_get_info(free, total));
}

/* What cuPointerGetAttributes tells about a pointer. */
struct rt_pointer_info {
	unsigned int memory_type; /* CUmemorytype, 0 when unknown */
	CUdeviceptr device_pointer;
	void *host_pointer;
	unsigned int is_managed;
	int device_ordinal;
};

/*
 * cuPointerGetAttributes, unlike cuPointerGetAttribute, succeeds for a
 * pointer the driver does not know and leaves the values at their defaults
 * (cuda.h, cuPointerGetAttributes). The host alias is asked for apart,
 * and only for host-accessible memory: device memory has none, which the
 * driver may report as CUDA_ERROR_INVALID_VALUE (cuda.h,
 * CU_POINTER_ATTRIBUTE_HOST_POINTER).
 */
static cudaError_t rt_pointer_info(const void *ptr, struct rt_pointer_info *info)
{
	CUpointer_attribute attributes[] = {
		CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
		CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
		CU_POINTER_ATTRIBUTE_IS_MANAGED,
		CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
	};
	void *data[] = {
		&info->memory_type,
		&info->device_pointer,
		&info->is_managed,
		&info->device_ordinal,
	};
	CUpointer_attribute host_attribute = CU_POINTER_ATTRIBUTE_HOST_POINTER;
	void *host_data[] = { &info->host_pointer };
	CUresult cu;

	memset(info, 0, sizeof(*info));
	cu = cuPointerGetAttributes(sizeof(attributes) / sizeof(attributes[0]), attributes, data,
	                            (CUdeviceptr)ptr);
	if (cu != CUDA_SUCCESS)
		return rt_error_from_cu(cu);
	if (info->memory_type != CU_MEMORYTYPE_HOST && !info->is_managed)
		return cudaSuccess;
	cu = cuPointerGetAttributes(1, &host_attribute, host_data, (CUdeviceptr)ptr);
	if (cu != CUDA_SUCCESS)
		info->host_pointer = NULL;
	return cudaSuccess;
}

/*
 * Since CUDA 11 a pointer unknown to CUDA is cudaMemoryTypeUnregistered
 * with success (cuda_runtime_api.h:8392), device -2 and no aliases.
 */
static cudaError_t rt_pointer_attributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
	struct rt_pointer_info info;
	cudaError_t result = rt_begin(attributes != NULL);

	if (result == cudaSuccess)
		result = rt_pointer_info(ptr, &info);
	if (result != cudaSuccess)
		return result;

	memset(attributes, 0, sizeof(*attributes));
	if (info.is_managed)
		attributes->type = cudaMemoryTypeManaged;
	else if (info.memory_type == CU_MEMORYTYPE_DEVICE)
		attributes->type = cudaMemoryTypeDevice;
	else if (info.memory_type == CU_MEMORYTYPE_HOST)
		attributes->type = cudaMemoryTypeHost;
	else
		attributes->type = cudaMemoryTypeUnregistered;

	if (attributes->type == cudaMemoryTypeUnregistered) {
		attributes->device = -2;
		return cudaSuccess;
	}
	attributes->device = info.device_ordinal;
	attributes->devicePointer = (void *)info.device_pointer;
	attributes->hostPointer = info.host_pointer;
	return cudaSuccess;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                                          const void *ptr)
{
	cudaPointerGetAttributes_v4000_params params = { attributes, ptr };
	RT_CALL(cudaPointerGetAttributes_v4000, "cudaPointerGetAttributes", params,
	        rt_pointer_attributes(attributes, ptr));
}

/* ------------------------------------------------------------ managed memory */

/*
 * Prefetch, advice and range attributes of managed memory are the driver's
 * (cuda_runtime_api.h: "\sa cuMemPrefetchAsync", "cuMemAdvise",
 * "cuMemRangeGetAttribute"): cudaMemLocation and the advice and attribute
 * enumerations have the driver's layout and values (driver_types.h, cuda.h).
 */
static CUmemLocation rt_location(struct cudaMemLocation location)
{
	CUmemLocation loc = { (CUmemLocationType)location.type, location.id };

	return loc;
}

static cudaError_t rt_prefetch(const void *devPtr, size_t count, struct cudaMemLocation location,
                               unsigned int flags, cudaStream_t stream)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemPrefetchAsync_v2(
	    (CUdeviceptr)(uintptr_t)devPtr, count, rt_location(location), flags, (CUstream)stream));
}

static cudaError_t rt_advise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                             struct cudaMemLocation location)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemAdvise_v2((CUdeviceptr)(uintptr_t)devPtr, count,
	                                       (CUmem_advise)advice, rt_location(location)));
}

/*
 * The exports that differ between CUDA 12 and 13. CUDA 13.0 replaced
 * cudaMemPrefetchAsync and cudaMemAdvise, whose destination was a device
 * ordinal (cudaCpuDeviceId for the host), by their CUDA 12.2 _v2 forms,
 * which take a struct cudaMemLocation (and, for the prefetch, flags), under
 * the old names, and dropped the _v2 names (CUDA 13.0 release notes,
 * https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-release-notes/;
 * CUDA 12.9's cudaMemPrefetchAsync(_v2) and cudaMemAdvise(_v2),
 * https://docs.nvidia.com/cuda/archive/12.9.0/cuda-runtime-api/group__CUDART__MEMORY.html).
 * Under CUDA 12's headers the simulated libcudart.so.12 exports both forms
 * (their _ptsz twins are generated: gen-twins.sh).
 */
#if CUDART_VERSION >= 13000
SIM_EXPORT cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                                      struct cudaMemLocation location,
                                                      unsigned int flags, cudaStream_t stream)
{
	cudaMemPrefetchAsync_v12020_params params = { devPtr, count, location, flags, stream };
	RT_CALL(cudaMemPrefetchAsync_v12020, "cudaMemPrefetchAsync", params,
	        rt_prefetch(devPtr, count, location, flags, stream));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemAdvise(const void *devPtr, size_t count,
                                               enum cudaMemoryAdvise advice,
                                               struct cudaMemLocation location)
{
	cudaMemAdvise_v12020_params params = { devPtr, count, advice, location };
	RT_CALL(cudaMemAdvise_v12020, "cudaMemAdvise", params,
	        rt_advise(devPtr, count, advice, location));
}
#else
/*
 * CUDA 12's device ordinal as a location: cudaCpuDeviceId is the host
 * ("Passing in cudaCpuDeviceId for dstDevice will prefetch the data to host
 * memory"; cudaMemAdvise: "If device is cudaCpuDeviceId ... the host"),
 * any other a device, which the driver checks.
 */
static struct cudaMemLocation rt_device_location(int device)
{
	struct cudaMemLocation location = { cudaMemLocationTypeDevice, device };

	if (device == cudaCpuDeviceId)
		location.type = cudaMemLocationTypeHost;
	return location;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                                      int dstDevice, cudaStream_t stream)
{
	cudaMemPrefetchAsync_v8000_params params = { devPtr, count, dstDevice, stream };
	RT_CALL(cudaMemPrefetchAsync_v8000, "cudaMemPrefetchAsync", params,
	        rt_prefetch(devPtr, count, rt_device_location(dstDevice), 0, stream));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemPrefetchAsync_v2(const void *devPtr, size_t count,
                                                         struct cudaMemLocation location,
                                                         unsigned int flags, cudaStream_t stream)
{
	cudaMemPrefetchAsync_v2_v12020_params params = { devPtr, count, location, flags, stream };
	RT_CALL(cudaMemPrefetchAsync_v2_v12020, "cudaMemPrefetchAsync_v2", params,
	        rt_prefetch(devPtr, count, location, flags, stream));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemAdvise(const void *devPtr, size_t count,
                                               enum cudaMemoryAdvise advice, int device)
{
	cudaMemAdvise_v8000_params params = { devPtr, count, advice, device };
	RT_CALL(cudaMemAdvise_v8000, "cudaMemAdvise", params,
	        rt_advise(devPtr, count, advice, rt_device_location(device)));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemAdvise_v2(const void *devPtr, size_t count,
                                                  enum cudaMemoryAdvise advice,
                                                  struct cudaMemLocation location)
{
	cudaMemAdvise_v2_v12020_params params = { devPtr, count, advice, location };
	RT_CALL(cudaMemAdvise_v2_v12020, "cudaMemAdvise_v2", params,
	        rt_advise(devPtr, count, advice, location));
}
#endif

static cudaError_t rt_range_attributes(void **data, size_t *sizes,
                                       enum cudaMemRangeAttribute *attributes, size_t n,
                                       const void *devPtr, size_t count)
{
	cudaError_t result = rt_begin(true);

	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuMemRangeGetAttributes(data, sizes,
	                                                (CUmem_range_attribute *)attributes, n,
	                                                (CUdeviceptr)(uintptr_t)devPtr, count));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemRangeGetAttribute(void *data, size_t dataSize,
                                                          enum cudaMemRangeAttribute attribute,
                                                          const void *devPtr, size_t count)
{
	cudaMemRangeGetAttribute_v8000_params params = { data, dataSize, attribute, devPtr, count };
	RT_CALL(cudaMemRangeGetAttribute_v8000, "cudaMemRangeGetAttribute", params,
	        rt_range_attributes(&data, &dataSize, &attribute, 1, devPtr, count));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                                           enum cudaMemRangeAttribute *attributes,
                                                           size_t numAttributes, const void *devPtr,
                                                           size_t count)
{
	cudaMemRangeGetAttributes_v8000_params params = { data,          dataSizes, attributes,
		                                          numAttributes, devPtr,    count };
	RT_CALL(cudaMemRangeGetAttributes_v8000, "cudaMemRangeGetAttributes", params,
	        rt_range_attributes(data, dataSizes, attributes, numAttributes, devPtr, count));
}
