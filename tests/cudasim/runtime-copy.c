/* SPDX-License-Identifier: MIT */
/*
 * runtime-copy.c - cudaMemcpy*, cudaMemcpy2D*, cudaMemcpyPeer* and
 * cudaMemset*, each passed on to the driver call for the stated
 * cudaMemcpyKind (cudaMemcpyDefault: cuMemcpy, which infers the direction
 * from the pointers). A kind that does not match the pointers is undefined
 * behaviour (cuda_runtime_api.h:5915-5927): the stated kind wins.
 *
 * In a _ptds twin's frame (the twins are generated: tools/gen-twins.sh) the
 * synchronous calls use the driver's _ptds entry points (these calls take
 * no stream); the _ptsz twins turn stream 0 into cudaStreamPerThread.
 */
#include <stddef.h>
#include <string.h>
#include "runtime-internal.h"

static bool rt_kind_valid(enum cudaMemcpyKind kind)
{
	switch (kind) {
	case cudaMemcpyHostToHost:
	case cudaMemcpyHostToDevice:
	case cudaMemcpyDeviceToHost:
	case cudaMemcpyDeviceToDevice:
	case cudaMemcpyDefault:
		return true;
	default:
		return false;
	}
}

/* ------------------------------------------------------------ 1D */

static CUresult rt_memcpy_legacy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	switch (kind) {
	case cudaMemcpyHostToDevice:
		return cuMemcpyHtoD((CUdeviceptr)dst, src, count);
	case cudaMemcpyDeviceToHost:
		return cuMemcpyDtoH(dst, (CUdeviceptr)src, count);
	case cudaMemcpyDeviceToDevice:
		return cuMemcpyDtoD((CUdeviceptr)dst, (CUdeviceptr)src, count);
	default:
		return cuMemcpy((CUdeviceptr)dst, (CUdeviceptr)src, count);
	}
}

static CUresult rt_memcpy_per_thread(void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind)
{
	switch (kind) {
	case cudaMemcpyHostToDevice:
		return cuMemcpyHtoD_v2_ptds((CUdeviceptr)dst, src, count);
	case cudaMemcpyDeviceToHost:
		return cuMemcpyDtoH_v2_ptds(dst, (CUdeviceptr)src, count);
	case cudaMemcpyDeviceToDevice:
		return cuMemcpyDtoD_v2_ptds((CUdeviceptr)dst, (CUdeviceptr)src, count);
	default:
		return cuMemcpy_ptds((CUdeviceptr)dst, (CUdeviceptr)src, count);
	}
}

static CUresult rt_memcpy_async(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                cudaStream_t stream)
{
	switch (kind) {
	case cudaMemcpyHostToDevice:
		return cuMemcpyHtoDAsync((CUdeviceptr)dst, src, count, stream);
	case cudaMemcpyDeviceToHost:
		return cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, count, stream);
	case cudaMemcpyDeviceToDevice:
		return cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, count, stream);
	default:
		return cuMemcpyAsync((CUdeviceptr)dst, (CUdeviceptr)src, count, stream);
	}
}

/* How a copy or memset reaches the driver. */
enum rt_submit {
	RT_SYNC_LEGACY,     /* cudaMemcpy: the legacy default stream */
	RT_SYNC_PER_THREAD, /* cudaMemcpy_ptds: the thread's default stream */
	RT_ASYNC,           /* cudaMemcpyAsync(_ptsz): an explicit stream */
};

/* A synchronous call's: per-thread in a _ptds twin's frame (sim-hooks.h). */
static enum rt_submit rt_sync(void)
{
	return sim_api_per_thread() ? RT_SYNC_PER_THREAD : RT_SYNC_LEGACY;
}

static cudaError_t rt_memcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                             enum rt_submit submit, cudaStream_t stream)
{
	cudaError_t result;
	CUresult cu;

	if (!rt_kind_valid(kind))
		return cudaErrorInvalidMemcpyDirection;
	result = rt_context(NULL, NULL);
	if (result != cudaSuccess || count == 0)
		return result;
	switch (submit) {
	case RT_SYNC_LEGACY:
		cu = rt_memcpy_legacy(dst, src, count, kind);
		break;
	case RT_SYNC_PER_THREAD:
		cu = rt_memcpy_per_thread(dst, src, count, kind);
		break;
	default:
		cu = rt_memcpy_async(dst, src, count, kind, stream);
		break;
	}
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t count,
                                            enum cudaMemcpyKind kind)
{
	cudaMemcpy_v3020_params params = { dst, src, count, kind };
	RT_CALL(cudaMemcpy_v3020, "cudaMemcpy", params,
	        rt_memcpy(dst, src, count, kind, rt_sync(), NULL));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
	cudaMemcpyAsync_v3020_params params = { dst, src, count, kind, stream };
	RT_CALL(cudaMemcpyAsync_v3020, "cudaMemcpyAsync", params,
	        rt_memcpy(dst, src, count, kind, RT_ASYNC, stream));
}

/* ------------------------------------------------------------ 2D */

/* One side of a 2D copy as the stated kind describes it. */
static void rt_copy_side(CUmemorytype type, void *ptr, size_t pitch, CUmemorytype *out_type,
                         void **out_host, CUdeviceptr *out_device, size_t *out_pitch)
{
	*out_type = type;
	*out_pitch = pitch;
	if (type == CU_MEMORYTYPE_HOST)
		*out_host = ptr;
	else
		*out_device = (CUdeviceptr)ptr; /* DEVICE and UNIFIED (cuda.h) */
}

static void rt_copy_2d_describe(CUDA_MEMCPY2D *copy, void *dst, size_t dpitch, const void *src,
                                size_t spitch, size_t width, size_t height,
                                enum cudaMemcpyKind kind)
{
	CUmemorytype src_type = CU_MEMORYTYPE_UNIFIED;
	CUmemorytype dst_type = CU_MEMORYTYPE_UNIFIED;
	void *src_host = NULL;

	switch (kind) {
	case cudaMemcpyHostToHost:
		src_type = dst_type = CU_MEMORYTYPE_HOST;
		break;
	case cudaMemcpyHostToDevice:
		src_type = CU_MEMORYTYPE_HOST;
		dst_type = CU_MEMORYTYPE_DEVICE;
		break;
	case cudaMemcpyDeviceToHost:
		src_type = CU_MEMORYTYPE_DEVICE;
		dst_type = CU_MEMORYTYPE_HOST;
		break;
	case cudaMemcpyDeviceToDevice:
		src_type = dst_type = CU_MEMORYTYPE_DEVICE;
		break;
	default:
		break;
	}

	memset(copy, 0, sizeof(*copy));
	rt_copy_side(src_type, (void *)(uintptr_t)src, spitch, &copy->srcMemoryType, &src_host,
	             &copy->srcDevice, &copy->srcPitch);
	copy->srcHost = src_host;
	rt_copy_side(dst_type, dst, dpitch, &copy->dstMemoryType, &copy->dstHost, &copy->dstDevice,
	             &copy->dstPitch);
	copy->WidthInBytes = width;
	copy->Height = height;
}

/* "width must not exceed either dpitch or spitch" (cudaMemcpy2D). */
static cudaError_t rt_memcpy_2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind,
                                enum rt_submit submit, cudaStream_t stream)
{
	CUDA_MEMCPY2D copy;
	cudaError_t result;
	CUresult cu;

	if (!rt_kind_valid(kind))
		return cudaErrorInvalidMemcpyDirection;
	if (width > dpitch || width > spitch)
		return cudaErrorInvalidPitchValue;
	result = rt_context(NULL, NULL);
	if (result != cudaSuccess || width == 0 || height == 0)
		return result;
	rt_copy_2d_describe(&copy, dst, dpitch, src, spitch, width, height, kind);
	switch (submit) {
	case RT_SYNC_LEGACY:
		cu = cuMemcpy2D(&copy);
		break;
	case RT_SYNC_PER_THREAD:
		cu = cuMemcpy2D_v2_ptds(&copy);
		break;
	default:
		cu = cuMemcpy2DAsync(&copy, stream);
		break;
	}
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
                                              size_t spitch, size_t width, size_t height,
                                              enum cudaMemcpyKind kind)
{
	cudaMemcpy2D_v3020_params params = { dst, dpitch, src, spitch, width, height, kind };
	RT_CALL(cudaMemcpy2D_v3020, "cudaMemcpy2D", params,
	        rt_memcpy_2d(dst, dpitch, src, spitch, width, height, kind, rt_sync(), NULL));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                                   size_t spitch, size_t width, size_t height,
                                                   enum cudaMemcpyKind kind, cudaStream_t stream)
{
	cudaMemcpy2DAsync_v3020_params params = { dst,   dpitch, src,  spitch,
		                                  width, height, kind, stream };
	RT_CALL(cudaMemcpy2DAsync_v3020, "cudaMemcpy2DAsync", params,
	        rt_memcpy_2d(dst, dpitch, src, spitch, width, height, kind, RT_ASYNC, stream));
}

/* ------------------------------------------------------------ peer */

/* Peer copies name both devices; the driver wants their contexts: the
 * runtime's primary contexts of those devices. */
static cudaError_t rt_memcpy_peer(void *dst, int dstDevice, const void *src, int srcDevice,
                                  size_t count, bool async, cudaStream_t stream)
{
	CUcontext dst_ctx = NULL;
	CUcontext src_ctx = NULL;
	cudaError_t result;
	CUresult cu;

	result = rt_context(NULL, NULL);
	if (result == cudaSuccess)
		result = rt_primary_context(dstDevice, &dst_ctx);
	if (result == cudaSuccess)
		result = rt_primary_context(srcDevice, &src_ctx);
	if (result != cudaSuccess || count == 0)
		return result;
	if (async)
		cu = cuMemcpyPeerAsync((CUdeviceptr)dst, dst_ctx, (CUdeviceptr)src, src_ctx, count,
		                       stream);
	else
		cu = cuMemcpyPeer((CUdeviceptr)dst, dst_ctx, (CUdeviceptr)src, src_ctx, count);
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemcpyPeer(void *dst, int dstDevice, const void *src,
                                                int srcDevice, size_t count)
{
	cudaMemcpyPeer_v4000_params params = { dst, dstDevice, src, srcDevice, count };
	RT_CALL(cudaMemcpyPeer_v4000, "cudaMemcpyPeer", params,
	        rt_memcpy_peer(dst, dstDevice, src, srcDevice, count, false, NULL));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                                     int srcDevice, size_t count,
                                                     cudaStream_t stream)
{
	cudaMemcpyPeerAsync_v4000_params params = { dst, dstDevice, src, srcDevice, count, stream };
	RT_CALL(cudaMemcpyPeerAsync_v4000, "cudaMemcpyPeerAsync", params,
	        rt_memcpy_peer(dst, dstDevice, src, srcDevice, count, true, stream));
}

/* ------------------------------------------------------------ memset */

/* The value is converted to unsigned char (cuda_runtime_api.h, cudaMemset). */
static cudaError_t rt_memset(void *devPtr, int value, size_t count, enum rt_submit submit,
                             cudaStream_t stream)
{
	CUdeviceptr dptr = (CUdeviceptr)devPtr;
	unsigned char byte = (unsigned char)value;
	cudaError_t result;
	CUresult cu;

	result = rt_context(NULL, NULL);
	if (result != cudaSuccess || count == 0)
		return result;
	switch (submit) {
	case RT_SYNC_LEGACY:
		cu = cuMemsetD8(dptr, byte, count);
		break;
	case RT_SYNC_PER_THREAD:
		cu = cuMemsetD8_v2_ptds(dptr, byte, count);
		break;
	default:
		cu = cuMemsetD8Async(dptr, byte, count, stream);
		break;
	}
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count)
{
	cudaMemset_v3020_params params = { devPtr, value, count };
	RT_CALL(cudaMemset_v3020, "cudaMemset", params,
	        rt_memset(devPtr, value, count, rt_sync(), NULL));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count,
                                                 cudaStream_t stream)
{
	cudaMemsetAsync_v3020_params params = { devPtr, value, count, stream };
	RT_CALL(cudaMemsetAsync_v3020, "cudaMemsetAsync", params,
	        rt_memset(devPtr, value, count, RT_ASYNC, stream));
}

static cudaError_t rt_memset_2d(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                enum rt_submit submit, cudaStream_t stream)
{
	CUdeviceptr dptr = (CUdeviceptr)devPtr;
	unsigned char byte = (unsigned char)value;
	cudaError_t result;
	CUresult cu;

	result = rt_context(NULL, NULL);
	if (result != cudaSuccess || width == 0 || height == 0)
		return result;
	switch (submit) {
	case RT_SYNC_LEGACY:
		cu = cuMemsetD2D8(dptr, pitch, byte, width, height);
		break;
	case RT_SYNC_PER_THREAD:
		cu = cuMemsetD2D8_v2_ptds(dptr, pitch, byte, width, height);
		break;
	default:
		cu = cuMemsetD2D8Async(dptr, pitch, byte, width, height, stream);
		break;
	}
	return rt_error_from_cu(cu);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                              size_t height)
{
	cudaMemset2D_v3020_params params = { devPtr, pitch, value, width, height };
	RT_CALL(cudaMemset2D_v3020, "cudaMemset2D", params,
	        rt_memset_2d(devPtr, pitch, value, width, height, rt_sync(), NULL));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaMemset2DAsync(void *devPtr, size_t pitch, int value,
                                                   size_t width, size_t height, cudaStream_t stream)
{
	cudaMemset2DAsync_v3020_params params = { devPtr, pitch, value, width, height, stream };
	RT_CALL(cudaMemset2DAsync_v3020, "cudaMemset2DAsync", params,
	        rt_memset_2d(devPtr, pitch, value, width, height, RT_ASYNC, stream));
}
