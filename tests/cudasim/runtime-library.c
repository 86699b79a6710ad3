/* SPDX-License-Identifier: MIT */
/*
 * runtime-library.c - the runtime's library management (cuda_runtime_api.h,
 * "Library Management": cudaLibraryLoadData .. cudaKernelSetAttributeForDevice),
 * on the driver's (cuda.h, "Library Management"), as the real runtime sits on
 * the driver: cudaLibrary_t is the driver's CUlibrary and cudaKernel_t its
 * CUkernel (driver_types.h declares them as struct CUlib_st * and struct
 * CUkern_st *), the JIT and library options have the driver's values, and
 * every call is the driver call of the same name. A library needs no
 * context; a kernel of one launches (cudaLaunchKernel) and is queried
 * (cudaFuncGetAttributes, cudaOccupancy*) in the calling thread's.
 */
#include "runtime-internal.h"

/* A library load needs the driver, not a context. */
static cudaError_t rt_library_begin(bool args_valid)
{
	cudaError_t result = rt_check_usable();

	if (result == cudaSuccess)
		result = rt_driver_init();
	if (result == cudaSuccess && !args_valid)
		result = cudaErrorInvalidValue;
	return result;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLibraryLoadData(
    cudaLibrary_t *library, const void *code, enum cudaJitOption *jitOptions,
    void **jitOptionsValues, unsigned int numJitOptions, enum cudaLibraryOption *libraryOptions,
    void **libraryOptionValues, unsigned int numLibraryOptions)
{
	cudaLibraryLoadData_v12060_params params = {
		library,       code,           jitOptions,          jitOptionsValues,
		numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions
	};
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaLibraryLoadData_v12060, "cudaLibraryLoadData", &params);
	result = rt_library_begin(library && code);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuLibraryLoadData(
		    (CUlibrary *)library, code, (CUjit_option *)jitOptions, jitOptionsValues,
		    numJitOptions, (CUlibraryOption *)libraryOptions, libraryOptionValues,
		    numLibraryOptions));
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLibraryLoadFromFile(
    cudaLibrary_t *library, const char *fileName, enum cudaJitOption *jitOptions,
    void **jitOptionsValues, unsigned int numJitOptions, enum cudaLibraryOption *libraryOptions,
    void **libraryOptionValues, unsigned int numLibraryOptions)
{
	cudaLibraryLoadFromFile_v12060_params params = {
		library,       fileName,       jitOptions,          jitOptionsValues,
		numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions
	};
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaLibraryLoadFromFile_v12060, "cudaLibraryLoadFromFile", &params);
	result = rt_library_begin(library && fileName);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuLibraryLoadFromFile(
		    (CUlibrary *)library, fileName, (CUjit_option *)jitOptions, jitOptionsValues,
		    numJitOptions, (CUlibraryOption *)libraryOptions, libraryOptionValues,
		    numLibraryOptions));
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLibraryUnload(cudaLibrary_t library)
{
	cudaLibraryUnload_v12060_params params = { library };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaLibraryUnload_v12060, "cudaLibraryUnload", &params);
	result = rt_library_begin(true);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuLibraryUnload((CUlibrary)library));
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library,
                                                      const char *name)
{
	cudaLibraryGetKernel_v12060_params params = { pKernel, library, name };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaLibraryGetKernel_v12060, "cudaLibraryGetKernel", &params);
	result = rt_library_begin(pKernel && name);
	if (result == cudaSuccess)
		result = rt_error_from_cu(
		    cuLibraryGetKernel((CUkernel *)pKernel, (CUlibrary)library, name));
	return rt_exit(&call, result);
}

/* "for the requested library library and the current device": the
 * global is looked up in the device's context. */
SIM_EXPORT cudaError_t CUDARTAPI cudaLibraryGetGlobal(void **dptr, size_t *bytes,
                                                      cudaLibrary_t library, const char *name)
{
	cudaLibraryGetGlobal_v12060_params params = { dptr, bytes, library, name };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaLibraryGetGlobal_v12060, "cudaLibraryGetGlobal", &params);
	result = rt_begin(true);
	if (result == cudaSuccess)
		result = rt_error_from_cu(
		    cuLibraryGetGlobal((CUdeviceptr *)dptr, bytes, (CUlibrary)library, name));
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLibraryGetManaged(void **dptr, size_t *bytes,
                                                       cudaLibrary_t library, const char *name)
{
	cudaLibraryGetManaged_v12060_params params = { dptr, bytes, library, name };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaLibraryGetManaged_v12060, "cudaLibraryGetManaged", &params);
	result = rt_library_begin(true);
	if (result == cudaSuccess)
		result = rt_error_from_cu(
		    cuLibraryGetManaged((CUdeviceptr *)dptr, bytes, (CUlibrary)library, name));
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library,
                                                               const char *symbol)
{
	cudaLibraryGetUnifiedFunction_v12060_params params = { fptr, library, symbol };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaLibraryGetUnifiedFunction_v12060, "cudaLibraryGetUnifiedFunction",
	         &params);
	result = rt_library_begin(true);
	if (result == cudaSuccess)
		result =
		    rt_error_from_cu(cuLibraryGetUnifiedFunction(fptr, (CUlibrary)library, symbol));
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib)
{
	cudaLibraryGetKernelCount_v12060_params params = { count, lib };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaLibraryGetKernelCount_v12060, "cudaLibraryGetKernelCount", &params);
	result = rt_library_begin(count != NULL);
	if (result == cudaSuccess)
		result = rt_error_from_cu(cuLibraryGetKernelCount(count, (CUlibrary)lib));
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaLibraryEnumerateKernels(cudaKernel_t *kernels,
                                                             unsigned int numKernels,
                                                             cudaLibrary_t lib)
{
	cudaLibraryEnumerateKernels_v12060_params params = { kernels, numKernels, lib };
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, cudaLibraryEnumerateKernels_v12060, "cudaLibraryEnumerateKernels", &params);
	result = rt_library_begin(kernels != NULL);
	if (result == cudaSuccess)
		result = rt_error_from_cu(
		    cuLibraryEnumerateKernels((CUkernel *)kernels, numKernels, (CUlibrary)lib));
	return rt_exit(&call, result);
}

/*
 * A CUkernel's attribute for one device (cuKernelSetAttribute); a
 * registered kernel's (a host stub, as cudaGetKernel hands out) is that
 * of its function in the calling thread's context.
 */
static cudaError_t rt_kernel_set_attribute(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                           int value, int device)
{
	cudaError_t result = rt_check_usable();
	CUfunction function;

	if (result == cudaSuccess)
		result = rt_driver_init();
	if (result == cudaSuccess)
		result = rt_check_device(device);
	if (result != cudaSuccess)
		return result;
	if (attr < cudaFuncAttributeMaxDynamicSharedMemorySize || attr >= cudaFuncAttributeMax)
		return cudaErrorInvalidValue;
	if (!rt_kernel_find(kernel)) {
		CUresult cu = cuKernelSetAttribute((CUfunction_attribute)attr, value,
		                                   (CUkernel)kernel, (CUdevice)device);

		return cu == CUDA_ERROR_INVALID_HANDLE ? cudaErrorInvalidDeviceFunction
		                                       : rt_error_from_cu(cu);
	}
	result = rt_func_resolve(kernel, false, &function);
	if (result == cudaSuccess)
		result = rt_error_from_cu(
		    cuFuncSetAttribute(function, (CUfunction_attribute)attr, value));
	return result;
}

SIM_EXPORT cudaError_t CUDARTAPI cudaKernelSetAttributeForDevice(cudaKernel_t kernel,
                                                                 enum cudaFuncAttribute attr,
                                                                 int value, int device)
{
	cudaKernelSetAttributeForDevice_v12060_params params = { kernel, attr, value, device };
	RT_CALL(cudaKernelSetAttributeForDevice_v12060, "cudaKernelSetAttributeForDevice", params,
	        rt_kernel_set_attribute(kernel, attr, value, device));
}
