/* SPDX-License-Identifier: MIT */
/*
 * cublas-api.h - the part of cuBLAS's and cuBLASLt's ABI that the simulated
 * libcublas.so.13 and libcublasLt.so.13 implement, that their generated
 * stubs return (CUBLAS_STATUS_NOT_SUPPORTED) and that
 * tests/programs/cublas-basics.c calls: the status codes, the handles, the
 * enumerations and attributes they read, the cuBLASLt descriptors, and the
 * functions the simulator defines. A CUDA toolkit made of PyPI's wheels
 * (tools/cuda-wheels) has no cuBLAS header, so the names, values and
 * prototypes below are cuBLAS's own, declared again from NVIDIA's
 * documentation: https://docs.nvidia.com/cuda/cublas/ (the cuBLAS and
 * cuBLASLt datatypes and API references) and the enumerations' values as
 * nvmath-python's bindings list them
 * (https://docs.nvidia.com/cuda/nvmath-python/latest/bindings/cublas.html,
 * .../bindings/cublasLt.html). An enumeration here lists only the members
 * the simulator and its test use; the real one has more. cudaDataType and
 * libraryPropertyType are library_types.h's, which the CUDA runtime ships.
 * Not installed.
 */
#ifndef CUDASIM_CUBLAS_API_H
#define CUDASIM_CUBLAS_API_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include <library_types.h>

/* ------------------------------------------------------------ cuBLAS */

/* https://docs.nvidia.com/cuda/cublas/#cublasstatus-t */
typedef enum {
	CUBLAS_STATUS_SUCCESS = 0,
	CUBLAS_STATUS_NOT_INITIALIZED = 1,
	CUBLAS_STATUS_ALLOC_FAILED = 3,
	CUBLAS_STATUS_INVALID_VALUE = 7,
	CUBLAS_STATUS_ARCH_MISMATCH = 8,
	CUBLAS_STATUS_MAPPING_ERROR = 11,
	CUBLAS_STATUS_EXECUTION_FAILED = 13,
	CUBLAS_STATUS_INTERNAL_ERROR = 14,
	CUBLAS_STATUS_NOT_SUPPORTED = 15,
	CUBLAS_STATUS_LICENSE_ERROR = 16,
} cublasStatus_t;

/* https://docs.nvidia.com/cuda/cublas/#cublashandle-t */
typedef struct cublasContext *cublasHandle_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasoperation-t */
typedef enum {
	CUBLAS_OP_N = 0,
	CUBLAS_OP_T = 1,
	CUBLAS_OP_C = 2,
} cublasOperation_t;

/* https://docs.nvidia.com/cuda/cublas/#cublaspointermode-t */
typedef enum {
	CUBLAS_POINTER_MODE_HOST = 0,
	CUBLAS_POINTER_MODE_DEVICE = 1,
} cublasPointerMode_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasatomicsmode-t */
typedef enum {
	CUBLAS_ATOMICS_NOT_ALLOWED = 0,
	CUBLAS_ATOMICS_ALLOWED = 1,
} cublasAtomicsMode_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasgemmalgo-t */
typedef enum {
	CUBLAS_GEMM_DEFAULT = -1,
} cublasGemmAlgo_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasmath-t */
typedef enum {
	CUBLAS_DEFAULT_MATH = 0,
	CUBLAS_TF32_TENSOR_OP_MATH = 3,
} cublasMath_t;

/* https://docs.nvidia.com/cuda/cublas/#cublascomputetype-t */
typedef enum {
	CUBLAS_COMPUTE_32F = 68,
} cublasComputeType_t;

/* https://docs.nvidia.com/cuda/cublas/#cublas-helper-function-reference */
cublasStatus_t cublasCreate_v2(cublasHandle_t *handle);
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);
cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version);
cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value);
size_t cublasGetCudartVersion(void);
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId);
cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId);
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                     size_t workspaceSizeInBytes);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode);
cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode);
cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode);

/* https://docs.nvidia.com/cuda/cublas/#cublas-t-gemv */
cublasStatus_t cublasSgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                              const float *alpha, const float *A, int lda, const float *x, int incx,
                              const float *beta, float *y, int incy);
cublasStatus_t cublasDgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                              const double *alpha, const double *A, int lda, const double *x,
                              int incx, const double *beta, double *y, int incy);

/* https://docs.nvidia.com/cuda/cublas/#cublas-t-gemm (cublasHgemm, whose
 * __half is C++ only, is declared in cublas.c) */
cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const float *alpha,
                              const float *A, int lda, const float *B, int ldb, const float *beta,
                              float *C, int ldc);
cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const double *alpha,
                              const double *A, int lda, const double *B, int ldb,
                              const double *beta, double *C, int ldc);

/* https://docs.nvidia.com/cuda/cublas/#cublas-t-gemmstridedbatched */
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda,
                                         long long int strideA, const float *B, int ldb,
                                         long long int strideB, const float *beta, float *C,
                                         int ldc, long long int strideC, int batchCount);
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const double *alpha, const double *A, int lda,
                                         long long int strideA, const double *B, int ldb,
                                         long long int strideB, const double *beta, double *C,
                                         int ldc, long long int strideC, int batchCount);

/* https://docs.nvidia.com/cuda/cublas/#cublasgemmex,
 * #cublasgemmbatchedex and #cublasgemmstridedbatchedex */
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void *alpha,
                            const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                   cublasOperation_t transb, int m, int n, int k, const void *alpha,
                                   const void *const Aarray[], cudaDataType Atype, int lda,
                                   const void *const Barray[], cudaDataType Btype, int ldb,
                                   const void *beta, void *const Carray[], cudaDataType Ctype,
                                   int ldc, int batchCount, cublasComputeType_t computeType,
                                   cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long int strideA, const void *B,
                                          cudaDataType Btype, int ldb, long long int strideB,
                                          const void *beta, void *C, cudaDataType Ctype, int ldc,
                                          long long int strideC, int batchCount,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t algo);

/* ------------------------------------------------------------ cuBLASLt */

/* https://docs.nvidia.com/cuda/cublas/#cublaslthandle-t */
typedef struct cublasLtContext *cublasLtHandle_t;

/* The semi-opaque descriptors, which a program may allocate itself
 * (https://docs.nvidia.com/cuda/cublas/#cublasltmatmuldescinit and
 * #cublasltmatrixlayoutinit): 64-bit words, 32 of them for a matmul
 * descriptor, 8 for the others. */
typedef struct {
	uint64_t data[32];
} cublasLtMatmulDescOpaque_t;
typedef cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;

typedef struct {
	uint64_t data[8];
} cublasLtMatrixLayoutOpaque_t;
typedef cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;

typedef struct {
	uint64_t data[8];
} cublasLtMatmulPreferenceOpaque_t;
typedef cublasLtMatmulPreferenceOpaque_t *cublasLtMatmulPreference_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasltmatmulalgo-t */
typedef struct {
	uint64_t data[8];
} cublasLtMatmulAlgo_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasltmatmulheuristicresult-t */
typedef struct {
	cublasLtMatmulAlgo_t algo;
	size_t workspaceSize;
	cublasStatus_t state;
	float wavesCount;
	int reserved[4];
} cublasLtMatmulHeuristicResult_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasltmatmuldescattributes-t */
typedef enum {
	CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,
	CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,
	CUBLASLT_MATMUL_DESC_TRANSA = 3,
	CUBLASLT_MATMUL_DESC_TRANSB = 4,
	CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
} cublasLtMatmulDescAttributes_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasltepilogue-t */
typedef enum {
	CUBLASLT_EPILOGUE_DEFAULT = 1,
} cublasLtEpilogue_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasltorder-t */
typedef enum {
	CUBLASLT_ORDER_COL = 0,
} cublasLtOrder_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasltmatrixlayoutattribute-t */
typedef enum {
	CUBLASLT_MATRIX_LAYOUT_TYPE = 0,
	CUBLASLT_MATRIX_LAYOUT_ORDER = 1,
	CUBLASLT_MATRIX_LAYOUT_ROWS = 2,
	CUBLASLT_MATRIX_LAYOUT_COLS = 3,
	CUBLASLT_MATRIX_LAYOUT_LD = 4,
	CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,
	CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6,
	CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET = 7,
	CUBLASLT_MATRIX_LAYOUT_BATCH_MODE = 8,
} cublasLtMatrixLayoutAttribute_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasltmatmulsearch-t */
typedef enum {
	CUBLASLT_SEARCH_BEST_FIT = 0,
} cublasLtMatmulSearch_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasltreductionscheme-t: the mask
 * of every scheme (NONE 0, INPLACE 1, COMPUTE_TYPE 2, OUTPUT_TYPE 4). */
typedef enum {
	CUBLASLT_REDUCTION_SCHEME_MASK = 0x7,
} cublasLtReductionScheme_t;

/* https://docs.nvidia.com/cuda/cublas/#cublasltmatmulpreferenceattributes-t */
typedef enum {
	CUBLASLT_MATMUL_PREF_SEARCH_MODE = 0,
	CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
	CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3,
	CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,
	CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,
	CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,
	CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8,
	CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT = 9,
	CUBLASLT_MATMUL_PREF_IMPL_MASK = 12,
} cublasLtMatmulPreferenceAttributes_t;

/* https://docs.nvidia.com/cuda/cublas/#cublaslt-api-reference */
cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle);
size_t cublasLtGetVersion(void);
size_t cublasLtGetCudartVersion(void);
cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value);
const char *cublasLtGetStatusName(cublasStatus_t status);
const char *cublasLtGetStatusString(cublasStatus_t status);

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
                                        cublasComputeType_t computeType, cudaDataType_t scaleType);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, const void *buf,
                                              size_t sizeInBytes);
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, void *buf,
                                              size_t sizeInBytes, size_t *sizeWritten);

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                const void *buf, size_t sizeInBytes);
cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr, void *buf,
                                                size_t sizeInBytes, size_t *sizeWritten);

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t sizeInBytes);
cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    void *buf, size_t sizeInBytes,
                                                    size_t *sizeWritten);

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requestedAlgoCount,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                              const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                              const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                              const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                              void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream);

#endif /* CUDASIM_CUBLAS_API_H */
