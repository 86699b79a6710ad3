/* SPDX-License-Identifier: MIT */
/*
 * runtime-launch.c - kernel launches: the <<<>>> configuration stack
 * (__cudaPushCallConfiguration / __cudaPopCallConfiguration), the CUDA 13
 * stub path (__cudaGetKernel, __cudaLaunchKernel) and cudaLaunchKernel,
 * all ending in cuLaunchKernel on the kernel's CUfunction.
 *
 * A kernel is known by its host stub address: that is also the
 * cudaKernel_t __cudaGetKernel hands out, so no handle from a program is
 * ever dereferenced.
 */
#include <limits.h>
#include <stddef.h>
#include "runtime-internal.h"

/* ------------------------------------------------------------ <<<>>> */

/*
 * k<<<g, b, s, st>>>(args) pushes before the arguments are evaluated and
 * the stub pops, so an argument that launches a kernel nests a push/pop
 * pair inside: the configurations form a per-thread stack.
 */
struct rt_launch_config {
	dim3 grid;
	dim3 block;
	size_t shared_mem;
	cudaStream_t stream;
};

#define RT_CONFIG_DEPTH 32

static __thread struct rt_launch_config rt_configs[RT_CONFIG_DEPTH];
static __thread unsigned int rt_config_depth;

/* Returns 0 to launch (crt/device_functions.h:2924). */
SIM_EXPORT unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                                          size_t sharedMem,
                                                          struct CUstream_st *stream)
{
	struct rt_launch_config *config;

	if (rt_config_depth >= RT_CONFIG_DEPTH) {
		rt_set_last_error(cudaErrorInvalidConfiguration);
		return 1;
	}
	config = &rt_configs[rt_config_depth++];
	config->grid = gridDim;
	config->block = blockDim;
	config->shared_mem = sharedMem;
	config->stream = stream;
	return 0;
}

/* stream is a cudaStream_t * passed as void * (crt/host_runtime.h:86). */
SIM_EXPORT cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                            size_t *sharedMem, void *stream)
{
	struct rt_launch_config *config;

	if (rt_config_depth == 0) {
		rt_set_last_error(cudaErrorMissingConfiguration);
		return cudaErrorMissingConfiguration;
	}
	config = &rt_configs[--rt_config_depth];
	if (gridDim)
		*gridDim = config->grid;
	if (blockDim)
		*blockDim = config->block;
	if (sharedMem)
		*sharedMem = config->shared_mem;
	if (stream)
		*(cudaStream_t *)stream = config->stream;
	return cudaSuccess;
}

/*
 * Called once per stub under a C++ static-initialisation guard, possibly
 * before the runtime is initialised: it only looks the stub up. The module
 * is created by the first launch in each context.
 */
SIM_EXPORT cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
	if (!kernel) {
		rt_set_last_error(cudaErrorInvalidValue);
		return cudaErrorInvalidValue;
	}
	if (!rt_kernel_find(hostFun)) {
		rt_set_last_error(cudaErrorInvalidDeviceFunction);
		return cudaErrorInvalidDeviceFunction;
	}
	*kernel = (cudaKernel_t)hostFun;
	return cudaSuccess;
}

/* ------------------------------------------------------------ launch */

/*
 * Limits of every device of compute capability 3.0 and later (CUDA C++
 * Programming Guide, "Technical Specifications per Compute Capability"):
 * exceeding them is cudaErrorInvalidConfiguration, as is a zero dimension.
 */
#define RT_MAX_BLOCK_THREADS 1024u
#define RT_MAX_BLOCK_X       1024u
#define RT_MAX_BLOCK_Y       1024u
#define RT_MAX_BLOCK_Z       64u
#define RT_MAX_GRID_X        2147483647u
#define RT_MAX_GRID_YZ       65535u

static bool rt_config_valid(dim3 grid, dim3 block)
{
	uint64_t threads = (uint64_t)block.x * block.y * block.z;

	if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
		return false;
	if (block.x > RT_MAX_BLOCK_X || block.y > RT_MAX_BLOCK_Y || block.z > RT_MAX_BLOCK_Z)
		return false;
	if (threads > RT_MAX_BLOCK_THREADS)
		return false;
	return grid.x <= RT_MAX_GRID_X && grid.y <= RT_MAX_GRID_YZ && grid.z <= RT_MAX_GRID_YZ;
}

static cudaError_t rt_launch(const void *func, dim3 grid, dim3 block, void **args,
                             size_t shared_mem, cudaStream_t stream)
{
	CUfunction function = NULL;
	cudaError_t result;
	CUresult cu;

	if (!func)
		return cudaErrorInvalidDeviceFunction;
	if (!rt_config_valid(grid, block))
		return cudaErrorInvalidConfiguration;
	if (shared_mem > UINT_MAX)
		return cudaErrorInvalidValue;
	result = rt_func_resolve(func, true, &function);
	if (result != cudaSuccess)
		return result;
	cu = cuLaunchKernel(function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
	                    (unsigned int)shared_mem, stream, args, NULL);
	return rt_error_from_cu(cu);
}

/*
 * One launch entry point. Its frame names the kernel (symbolName); func is
 * the host stub __cudaRegisterFunction registered (the cudaKernel_t handle
 * of the <<<>>> path is the same) or a cudaKernel_t of a library (a
 * CUkernel, cudaLibraryGetKernel's), anything else is
 * cudaErrorInvalidDeviceFunction.
 */
static cudaError_t rt_launch_call(CUpti_CallbackId cbid, const char *fname, void *params,
                                  const void *func, dim3 grid, dim3 block, void **args,
                                  size_t shared_mem, cudaStream_t stream)
{
	struct rt_kernel *kernel = rt_kernel_find(func);
	struct sim_api_call call;
	cudaError_t result;

	rt_preinit();
	sim_api_enter(&call, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, fname, params,
	              kernel ? rt_kernel_name(kernel) : sim_function_name((CUfunction)func));
	result = rt_launch(func, grid, block, args, shared_mem, stream);
	return rt_exit(&call, result);
}

/*
 * The CUDA 13 <<<>>> path. The stub ignores the result, so the error is in
 * the last-error slot (rt_exit). The headers have no params struct for it:
 * the callback gets NULL params.
 */
SIM_EXPORT cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
                                                    dim3 blockDim, void **args, size_t sharedMem,
                                                    cudaStream_t stream)
{
	return rt_launch_call(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	                      "__cudaLaunchKernel", NULL, (const void *)kernel, gridDim, blockDim,
	                      args, sharedMem, stream);
}

/*
 * Its per-thread twin stays written by hand, unlike the generated others
 * (tools/gen-twins.sh): crt/device_functions.h declares it for nvcc's
 * C++ only, outside the __CUDART_API_PTSZ list the generator reads, and
 * it has no params struct either.
 */
SIM_EXPORT cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
                                                         dim3 blockDim, void **args,
                                                         size_t sharedMem, cudaStream_t stream)
{
	return rt_launch_call(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
	                      "__cudaLaunchKernel_ptsz", NULL, (const void *)kernel, gridDim,
	                      blockDim, args, sharedMem, rt_per_thread(stream));
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                                  void **args, size_t sharedMem,
                                                  cudaStream_t stream)
{
	cudaLaunchKernel_v7000_params params = { func, gridDim, blockDim, args, sharedMem, stream };

	return rt_launch_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel",
	                      &params, func, gridDim, blockDim, args, sharedMem, stream);
}
