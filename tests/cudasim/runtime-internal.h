/* SPDX-License-Identifier: MIT */
/*
 * runtime-internal.h - what the files of the simulated runtime
 * (libcudart.so.13) share. Not installed, not exported.
 *
 *   runtime-api.c       init, per-thread state, last-error slots, versions,
 *                       the call frame helpers
 *   runtime-error.c     cudaGetErrorName/String, CUresult -> cudaError_t
 *   runtime-device.c    devices, flags, peers, memory pools of a device
 *   runtime-memory.c    allocations, host memory, pools, pointer attributes
 *   runtime-copy.c      cudaMemcpy* and cudaMemset*
 *   runtime-stream.c    streams and events
 *   runtime-launch.c    launch configuration stack, cudaLaunchKernel,
 *                       __cudaLaunchKernel
 *   runtime-register.c  nvcc's registration ABI and the kernel table
 *   runtime-kernel.c    kernel attributes, handles and occupancy
 *   runtime-library.c   cudaLibrary*, cudaKernelSetAttributeForDevice
 *
 * The runtime sits on the driver's public entry points, as the real one
 * does: every exported runtime call is one runtime call frame
 * (sim_api_enter .. sim_api_exit_named) around the cu* calls it makes.
 */
#ifndef CUDASIM_RUNTIME_INTERNAL_H
#define CUDASIM_RUNTIME_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "sim-env.h"   /* SIM_MAX_DEVICES (sim-env.c is not in this library) */
#include "sim-hooks.h" /* cupti.h brings the *_params structs */

#define HIDDEN __attribute__((visibility("hidden")))

/* Largest device count the simulator supports (README: CUDASIM_DEVICES). */
#define RT_MAX_DEVICES SIM_MAX_DEVICES

/* ------------------------------------------------------------ frames */

/*
 * The driver's initialisation, done before the first runtime call frame
 * opens, as the real runtime does its start-up work: cuInit loads the
 * CUDA_INJECTION64_PATH tool, so the call that starts CUDA is already seen
 * by the profiler it attaches, ENTER included. Its result is kept for
 * rt_driver_init to report inside the frame.
 */
HIDDEN void rt_preinit(void);

/*
 * Open a runtime call frame: cbid_name is the CUPTI callback id suffix, e.g.
 * RT_ENTER(call, cudaMalloc_v3020, "cudaMalloc", &params). The name is the
 * exported symbol the program called, which the ledger prints as api=.
 * RT_ENTER_NOINIT is for the calls that never start CUDA (error strings,
 * last error, versions).
 */
#define RT_ENTER_NOINIT(call, cbid_name, fname, params)                                           \
	sim_api_enter(&(call), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##cbid_name, \
	              (fname), (params), NULL)
#define RT_ENTER(call, cbid_name, fname, params) \
	(rt_preinit(), RT_ENTER_NOINIT(call, cbid_name, fname, params))

/*
 * CUDA 13's cupti_runtime_cbid.h has callback ids for __cudaLaunchKernel
 * (and _ptsz) and __cudaInitModule, the entry points nvcc 13 compiles
 * <<<>>> launches and module start-up to; CUPTI 12's has none, though
 * libcudart.so.12 (12.9) exports them. Under CUDA 12's headers they report
 * no runtime callback, as gen-stubs.sh's stubs of names with no id do; the
 * driver calls they make report theirs.
 */
#if CUDART_VERSION < 13000
#define CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000      CUPTI_RUNTIME_TRACE_CBID_INVALID
#define CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000 CUPTI_RUNTIME_TRACE_CBID_INVALID
#define CUPTI_RUNTIME_TRACE_CBID___cudaInitModule_v13000        CUPTI_RUNTIME_TRACE_CBID_INVALID
#endif

/*
 * The whole of an export whose work is one expression: open the frame,
 * evaluate body (a cudaError_t), close the frame with it (rt_exit) and
 * return it.
 */
#define RT_CALL(cbid_name, fname, params, body)               \
	do {                                                  \
		struct sim_api_call call_;                    \
		RT_ENTER(call_, cbid_name, fname, &(params)); \
		return rt_exit(&call_, (body));               \
	} while (0)

/*
 * Close a frame: writes a failure to the thread's last-error slot (sticky
 * errors to the process), reports the result with its cudaError name and
 * returns it.
 */
HIDDEN cudaError_t rt_exit(struct sim_api_call *call, cudaError_t result);
/* Close a frame without touching the last-error slot (cudaGetLastError). */
HIDDEN cudaError_t rt_exit_quiet(struct sim_api_call *call, cudaError_t result);
/* Write a failure to the calling thread's last-error slot (no frame). */
HIDDEN void rt_set_last_error(cudaError_t error);

/*
 * The whole of a runtime function the simulator does not implement (the
 * generated stubs of tools/gen-stubs.sh): a reported call with its callback
 * id and params that returns the sticky error, or cudaErrorNotSupported,
 * through the last-error slot and the ledger. A cbid of
 * CUPTI_RUNTIME_TRACE_CBID_INVALID delivers no callback.
 */
HIDDEN cudaError_t rt_stub_call(CUpti_CallbackId cbid, const char *name, void *params);

/* ------------------------------------------------------------ errors */

HIDDEN cudaError_t rt_error_from_cu(CUresult result);
HIDDEN const char *rt_error_name(cudaError_t error);
HIDDEN const char *rt_error_string(cudaError_t error);
/* 700, 702, 710, 714-719: the process can do no more CUDA work. */
HIDDEN bool rt_error_is_sticky(cudaError_t error);

/* ------------------------------------------------------------ state */

/*
 * cudaErrorCudartUnloading once the library's destructor ran, the sticky
 * error once one happened, else cudaSuccess. Every call that would touch
 * the driver checks it first.
 */
HIDDEN cudaError_t rt_check_usable(void);

/* cuInit(0) once per process; the mapped result, cached (3, 35 or 100). */
HIDDEN cudaError_t rt_driver_init(void);
/* Number of devices; 0 with cudaErrorNoDevice when there are none. */
HIDDEN cudaError_t rt_device_count(int *count);
/* cudaErrorInvalidDevice unless 0 <= device < count. */
HIDDEN cudaError_t rt_check_device(int device);

/*
 * Make sure the calling thread has a context, as the runtime's lazy
 * initialisation does: a context the program made current through the
 * driver API is used as it is; otherwise the primary context of the
 * thread's device (cudaSetDevice, default 0) is retained and made current.
 * ctx and device may be NULL.
 */
HIDDEN cudaError_t rt_context(CUcontext *ctx, int *device);
/* How most calls begin: cudaErrorInvalidValue unless args_valid, else
 * rt_context(NULL, NULL). */
HIDDEN cudaError_t rt_begin(bool args_valid);
/*
 * The thread's device: the current context's, else cudaSetDevice's. Sets
 * *user_ctx (if not NULL) to the current context when the program made it
 * current through the driver API, else to NULL.
 */
HIDDEN cudaError_t rt_current_device(int *device, CUcontext *user_ctx);
/* The primary context of a device, retained once per process. */
HIDDEN cudaError_t rt_primary_context(int device, CUcontext *ctx);
/* Bind the device's primary context to the calling thread (cudaSetDevice). */
HIDDEN cudaError_t rt_bind_device(int device);
/* cudaDeviceReset: reset the primary context and forget what hung on it. */
HIDDEN cudaError_t rt_reset_device(int device);
/* Bumped by every reset of the device's primary context. */
HIDDEN uint64_t rt_device_epoch(int device);

/* ------------------------------------------------------------ streams */

/* The _ptsz/_ptds exports: stream 0 means the per-thread stream. */
static inline cudaStream_t rt_per_thread(cudaStream_t stream)
{
	return stream ? stream : cudaStreamPerThread;
}

/* ------------------------------------------------------------ kernels */

struct rt_kernel;

/* The registered kernel whose host stub is host_fun, or NULL. */
HIDDEN struct rt_kernel *rt_kernel_find(const void *host_fun);
/* Its device name (mangled, as CUPTI reports it). Lives as long as the
 * process: kernel records are never freed. */
HIDDEN const char *rt_kernel_name(const struct rt_kernel *kernel);
/*
 * The CUfunction of the kernel in ctx (the caller's current context on
 * device), loading the kernel's module into that context on first use.
 */
HIDDEN cudaError_t rt_kernel_function(struct rt_kernel *kernel, CUcontext ctx, int device,
                                      CUfunction *function);

/*
 * The CUfunction, in the calling thread's context (made as rt_context
 * does), of func: a registered host stub, or (kernel_ok) a cudaKernel_t
 * that is a CUkernel, "used as is" (cuda_runtime_api.h,
 * cudaFuncGetAttributes). cudaErrorInvalidDeviceFunction for anything
 * else (runtime-kernel.c).
 */
HIDDEN cudaError_t rt_func_resolve(const void *func, bool kernel_ok, CUfunction *function);

/* The driver's launch configuration of a runtime one (cudaErrorInvalidValue
 * for a NULL config, or attributes counted but missing). */
HIDDEN cudaError_t rt_launch_config(const cudaLaunchConfig_t *config, CUlaunchConfig *out);

/* ------------------------------------------------------------ exports
 *
 * Exported names that no header declares in a C translation unit: nvcc's
 * ABI (crt/host_runtime.h and crt/device_functions.h declare it for C++
 * only). The per-thread default stream twins are generated
 * (runtime-twins.c, tools/gen-twins.sh), but for __cudaLaunchKernel_ptsz.
 */
void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin);
void CUDARTAPI __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle);
void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                      const char *deviceName, int thread_limit, uint3 *tid,
                                      uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
void CUDARTAPI __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                 const char *deviceName, int ext, size_t size, int constant,
                                 int global);
void CUDARTAPI __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                        char *deviceAddress, const char *deviceName, int ext,
                                        size_t size, int constant, int global);
char CUDARTAPI __cudaInitModule(void **fatCubinHandle);
unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                               struct CUstream_st *stream);
cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                                 void *stream);
cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                         void **args, size_t sharedMem, cudaStream_t stream);
cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                              void **args, size_t sharedMem, cudaStream_t stream);

/* ------------------------------------------------------------ driver
 *
 * The driver's per-thread-default-stream entry points. cuda.h names them
 * only through macros when CUDA_API_PER_THREAD_DEFAULT_STREAM is defined;
 * the synchronous runtime copies and memsets call them in a _ptds twin's
 * frame (sim_api_per_thread) because those calls take no stream.
 * (Asynchronous _ptsz twins pass CU_STREAM_PER_THREAD to the ordinary
 * entry points instead.)
 */
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                      size_t ByteCount);
CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
CUresult CUDAAPI cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy);
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult CUDAAPI cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                      size_t Width, size_t Height);

#endif /* CUDASIM_RUNTIME_INTERNAL_H */
