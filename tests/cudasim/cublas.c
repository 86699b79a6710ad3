/* SPDX-License-Identifier: MIT */
/*
 * cublas.c - the simulated libcublas.so.13: the handle, its settings, the
 * library's version and status functions, and the GEMMs PyTorch calls, as
 * NVIDIA's cuBLAS documentation (https://docs.nvidia.com/cuda/cublas/)
 * gives them (cublas-api.h declares them). The rest of what the real
 * library exports (libcublas.exports) are stubs generated at build time
 * that return CUBLAS_STATUS_NOT_SUPPORTED.
 *
 * A handle holds the device that was current when it was made, its stream
 * (the legacy default stream, NULL, until cublasSetStream), its workspace
 * and its modes. Like the real library, cublasCreate starts CUDA on the
 * current device (the runtime's cudaFree(NULL) makes its primary context
 * current). A GEMM checks its arguments as the documentation says, then
 * launches the library's kernel on the handle's stream
 * (cublas-kernels.c): it computes nothing. cublasSgemv_v2 and
 * cublasDgemv_v2 (PyTorch's torch.mv and addmv in single and double
 * precision) do the same with a GEMV kernel.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "cublas-api.h"
#include "cublas-kernels.h"
#include "sim-hooks.h"

struct cublasContext {
	uint64_t magic; /* SIM_CUBLAS_HANDLE_MAGIC, first, as a cublasLtContext's */
	int device;
	cudaStream_t stream;
	void *workspace;
	size_t workspace_bytes;
	cublasMath_t math_mode;
	cublasPointerMode_t pointer_mode;
	cublasAtomicsMode_t atomics_mode;
};

static bool valid(cublasHandle_t handle)
{
	return handle && handle->magic == SIM_CUBLAS_HANDLE_MAGIC;
}

/* ------------------------------------------------------------ version */

/* https://docs.nvidia.com/cuda/cublas/#cublasgetversion */
SIM_EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
	(void)handle; /* the library's version: no handle needed */
	if (!version)
		return CUBLAS_STATUS_INVALID_VALUE;
	*version = SIM_CUBLAS_VERSION;
	return CUBLAS_STATUS_SUCCESS;
}

/* https://docs.nvidia.com/cuda/cublas/#cublasgetproperty */
SIM_EXPORT cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
	return sim_cublas_property(type, value);
}

/* The runtime the library was built against. */
SIM_EXPORT size_t cublasGetCudartVersion(void)
{
	return CUDART_VERSION;
}

/* The same as cuBLASLt's, from libcublasLt.so.13, which libcublas.so.13
 * needs as the real one does. */
SIM_EXPORT const char *cublasGetStatusName(cublasStatus_t status)
{
	return cublasLtGetStatusName(status);
}

SIM_EXPORT const char *cublasGetStatusString(cublasStatus_t status)
{
	return cublasLtGetStatusString(status);
}

/* ------------------------------------------------------------ handles */

/* https://docs.nvidia.com/cuda/cublas/#cublascreate: NOT_INITIALIZED when
 * "the CUDA Runtime initialization failed", ALLOC_FAILED when "the
 * resources could not be allocated", INVALID_VALUE for handle == NULL. */
SIM_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
	struct cublasContext *context;
	int device = 0;
	cudaError_t cuda;

	if (!handle)
		return CUBLAS_STATUS_INVALID_VALUE;
	cuda = cudaGetDevice(&device);
	if (cuda == cudaSuccess)
		cuda = cudaFree(NULL);
	if (cuda != cudaSuccess)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	context = calloc(1, sizeof(*context));
	if (!context)
		return CUBLAS_STATUS_ALLOC_FAILED;
	context->magic = SIM_CUBLAS_HANDLE_MAGIC;
	context->device = device;
	context->math_mode = CUBLAS_DEFAULT_MATH;
	context->pointer_mode = CUBLAS_POINTER_MODE_HOST;
	context->atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
	*handle = context;
	return CUBLAS_STATUS_SUCCESS;
}

/* https://docs.nvidia.com/cuda/cublas/#cublasdestroy: "implicitly calls
 * cudaDeviceSynchronize()". */
SIM_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	cudaDeviceSynchronize();
	handle->magic = 0;
	free(handle);
	return CUBLAS_STATUS_SUCCESS;
}

/* https://docs.nvidia.com/cuda/cublas/#cublassetstream: a new stream also
 * resets the workspace to the default pool. */
SIM_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	handle->stream = streamId;
	handle->workspace = NULL;
	handle->workspace_bytes = 0;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!streamId)
		return CUBLAS_STATUS_INVALID_VALUE;
	*streamId = handle->stream;
	return CUBLAS_STATUS_SUCCESS;
}

/* https://docs.nvidia.com/cuda/cublas/#cublassetworkspace: the workspace
 * must be 256-byte aligned (INVALID_VALUE otherwise). */
SIM_EXPORT cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                                size_t workspaceSizeInBytes)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if ((uintptr_t)workspace % 256)
		return CUBLAS_STATUS_INVALID_VALUE;
	handle->workspace = workspace;
	handle->workspace_bytes = workspace ? workspaceSizeInBytes : 0;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	handle->math_mode = mode;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!mode)
		return CUBLAS_STATUS_INVALID_VALUE;
	*mode = handle->math_mode;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
		return CUBLAS_STATUS_INVALID_VALUE;
	handle->pointer_mode = mode;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!mode)
		return CUBLAS_STATUS_INVALID_VALUE;
	*mode = handle->pointer_mode;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	handle->atomics_mode = mode;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!mode)
		return CUBLAS_STATUS_INVALID_VALUE;
	*mode = handle->atomics_mode;
	return CUBLAS_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ GEMM */

static bool op_valid(cublasOperation_t op)
{
	return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

static int64_t at_least_1(int64_t x)
{
	return x < 1 ? 1 : x;
}

/* The checks every cublas<t>gemm and cublasGemmEx make
 * (https://docs.nvidia.com/cuda/cublas/#cublas-t-gemm): a dead handle is
 * NOT_INITIALIZED; m, n or k < 0, an unknown operation, lda < max(1, m)
 * for op N (else max(1, k)), ldb < max(1, k) for op N (else max(1, n)),
 * ldc < max(1, m), or alpha or beta NULL is INVALID_VALUE. */
static cublasStatus_t gemm_check(cublasHandle_t handle, cublasOperation_t transa,
                                 cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                 const void *alpha, int64_t lda, int64_t ldb, const void *beta,
                                 int64_t ldc, int64_t batch)
{
	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (m < 0 || n < 0 || k < 0 || batch < 0 || !op_valid(transa) || !op_valid(transb))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (lda < at_least_1(transa == CUBLAS_OP_N ? m : k) ||
	    ldb < at_least_1(transb == CUBLAS_OP_N ? k : n) || ldc < at_least_1(m))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (!alpha || !beta)
		return CUBLAS_STATUS_INVALID_VALUE;
	return CUBLAS_STATUS_SUCCESS;
}

/* Check, then launch the kernel of type on the handle's stream. */
static cublasStatus_t gemm(cublasHandle_t handle, cudaDataType type, cublasOperation_t transa,
                           cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                           const void *alpha, const void *a, int64_t lda, const void *b,
                           int64_t ldb, const void *beta, void *c, int64_t ldc, int64_t batch)
{
	struct sim_gemm g = { "cublas", SIM_GEMM, type, m, n, k, batch, a, b, c, NULL };
	cublasStatus_t status =
	    gemm_check(handle, transa, transb, m, n, k, alpha, lda, ldb, beta, ldc, batch);

	if (status != CUBLAS_STATUS_SUCCESS)
		return status;
	g.stream = (CUstream)handle->stream;
	return sim_gemm_launch(&g);
}

SIM_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda,
                                         const float *B, int ldb, const float *beta, float *C,
                                         int ldc)
{
	return gemm(handle, CUDA_R_32F, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
	            ldc, 1);
}

SIM_EXPORT cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const double *alpha, const double *A, int lda,
                                         const double *B, int ldb, const double *beta, double *C,
                                         int ldc)
{
	return gemm(handle, CUDA_R_64F, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
	            ldc, 1);
}

/* cuda_fp16.h's __half is C++ only, and NVIDIA's cublas_api.h declares
 * cublasHgemm for C++ only: its pointers are taken as void's. */
SIM_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
                                      cublasOperation_t transb, int m, int n, int k,
                                      const void *alpha, const void *A, int lda, const void *B,
                                      int ldb, const void *beta, void *C, int ldc);
SIM_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
                                      cublasOperation_t transb, int m, int n, int k,
                                      const void *alpha, const void *A, int lda, const void *B,
                                      int ldb, const void *beta, void *C, int ldc)
{
	return gemm(handle, CUDA_R_16F, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
	            ldc, 1);
}

SIM_EXPORT cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                    cublasOperation_t transb, int m, int n, int k,
                                                    const float *alpha, const float *A, int lda,
                                                    long long int strideA, const float *B, int ldb,
                                                    long long int strideB, const float *beta,
                                                    float *C, int ldc, long long int strideC,
                                                    int batchCount)
{
	(void)strideA, (void)strideB, (void)strideC;
	return gemm(handle, CUDA_R_32F, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
	            ldc, batchCount);
}

SIM_EXPORT cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                    cublasOperation_t transb, int m, int n, int k,
                                                    const double *alpha, const double *A, int lda,
                                                    long long int strideA, const double *B, int ldb,
                                                    long long int strideB, const double *beta,
                                                    double *C, int ldc, long long int strideC,
                                                    int batchCount)
{
	(void)strideA, (void)strideB, (void)strideC;
	return gemm(handle, CUDA_R_64F, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
	            ldc, batchCount);
}

/* https://docs.nvidia.com/cuda/cublas/#cublasgemmex: the types of A, B
 * and C with the compute type choose the kernel; the simulator takes any
 * combination, and names the kernel by A's type. */
SIM_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                       cublasOperation_t transb, int m, int n, int k,
                                       const void *alpha, const void *A, cudaDataType Atype,
                                       int lda, const void *B, cudaDataType Btype, int ldb,
                                       const void *beta, void *C, cudaDataType Ctype, int ldc,
                                       cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	(void)Btype, (void)Ctype, (void)computeType, (void)algo;
	return gemm(handle, Atype, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 1);
}

SIM_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void *alpha, const void *A, cudaDataType Atype, int lda, long long int strideA,
    const void *B, cudaDataType Btype, int ldb, long long int strideB, const void *beta, void *C,
    cudaDataType Ctype, int ldc, long long int strideC, int batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	(void)strideA, (void)strideB, (void)strideC, (void)Btype, (void)Ctype;
	(void)computeType, (void)algo;
	return gemm(handle, Atype, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
	            batchCount);
}

/* The arrays of pointers live in device memory: the kernel reads them, so
 * the library does not (batchCount < 0 is INVALID_VALUE). */
SIM_EXPORT cublasStatus_t
cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                    int m, int n, int k, const void *alpha, const void *const Aarray[],
                    cudaDataType Atype, int lda, const void *const Barray[], cudaDataType Btype,
                    int ldb, const void *beta, void *const Carray[], cudaDataType Ctype, int ldc,
                    int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	(void)Btype, (void)Ctype, (void)computeType, (void)algo;
	return gemm(handle, Atype, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta,
	            (void *)Carray, ldc, batchCount);
}

/* ------------------------------------------------------------ GEMV */

/* https://docs.nvidia.com/cuda/cublas/#cublas-t-gemv: a dead handle is
 * NOT_INITIALIZED; m or n < 0, incx or incy 0, lda < max(1, m), an unknown
 * operation, or alpha or beta NULL INVALID_VALUE. op(A) x has m rows for
 * op N, n for T and C: the kernel's tiles. */
static cublasStatus_t gemv(cublasHandle_t handle, cudaDataType type, cublasOperation_t trans, int m,
                           int n, const void *alpha, const void *a, int lda, const void *x,
                           int incx, const void *beta, void *y, int incy)
{
	struct sim_gemm g = { "cublas", SIM_GEMV, type, 0, 1, 0, 1, a, x, y, NULL };

	if (!valid(handle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (m < 0 || n < 0 || incx == 0 || incy == 0 || lda < at_least_1(m) || !op_valid(trans) ||
	    !alpha || !beta)
		return CUBLAS_STATUS_INVALID_VALUE;
	g.m = trans == CUBLAS_OP_N ? m : n;
	g.k = trans == CUBLAS_OP_N ? n : m;
	g.stream = (CUstream)handle->stream;
	return sim_gemm_launch(&g);
}

SIM_EXPORT cublasStatus_t cublasSgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m,
                                         int n, const float *alpha, const float *A, int lda,
                                         const float *x, int incx, const float *beta, float *y,
                                         int incy)
{
	return gemv(handle, CUDA_R_32F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

SIM_EXPORT cublasStatus_t cublasDgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m,
                                         int n, const double *alpha, const double *A, int lda,
                                         const double *x, int incx, const double *beta, double *y,
                                         int incy)
{
	return gemv(handle, CUDA_R_64F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
