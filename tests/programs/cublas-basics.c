/* SPDX-License-Identifier: MIT */
/*
 * cublas-basics.c - the simulated libcublas.so.13 and libcublasLt.so.13,
 * loaded as a framework loads them, against the simulator's cublas-api.h
 * (cuBLAS's declarations, from https://docs.nvidia.com/cuda/cublas/):
 *
 *   - cublasGetProperty is 13.4.1 (the wheel's cuBLAS), cublasGetVersion_v2
 *     and cublasLtGetVersion 130401; cublasGetStatusName names a status;
 *   - cublasCreate_v2 makes a handle on the default stream (and starts
 *     CUDA: a context in the ledger); cublasSetStream_v2 and
 *     cublasGetStream_v2, the math and pointer modes set and read;
 *   - cublasSgemm_v2 is one launch of the library's kernel on the handle's
 *     stream, with a tile of 128 x 128 a block; negative sizes, a leading
 *     dimension too small or NULL alpha are CUBLAS_STATUS_INVALID_VALUE,
 *     a handle cublasCreate did not make CUBLAS_STATUS_NOT_INITIALIZED,
 *     and none of them launches anything;
 *   - cublasLtMatmul with layouts that agree is one launch on the stream
 *     given, after cublasLtMatmulAlgoGetHeuristic gave one algorithm; with
 *     layouts that do not, CUBLAS_STATUS_INVALID_VALUE;
 *   - a function the simulator does not implement (cublasSaxpy_v2) is
 *     CUBLAS_STATUS_NOT_SUPPORTED.
 *
 * Prints TAP, "# fact pid=N", and the "# expect" line of each operation.
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cublas-api.h"
#include "tap.h"

#define LOOKUP(lib, name) ((__typeof__(&name))dlsym(lib, #name))
#define M                 200 /* rows of C: two tiles */
#define N                 100 /* columns of C: one tile */
#define K                 64

static void *blas, *lt;

static void versions(void)
{
	int major = -1, minor = -1, patch = -1, version = -1;
	__typeof__(&cublasGetProperty) property = LOOKUP(blas, cublasGetProperty);
	__typeof__(&cublasGetVersion_v2) get_version = LOOKUP(blas, cublasGetVersion_v2);
	__typeof__(&cublasLtGetVersion) lt_version = LOOKUP(lt, cublasLtGetVersion);
	__typeof__(&cublasGetStatusName) status_name = LOOKUP(blas, cublasGetStatusName);

	if (property(MAJOR_VERSION, &major) || property(MINOR_VERSION, &minor) ||
	    property(PATCH_LEVEL, &patch))
		major = -1;
	tap_ok(major == 13 && minor == 4 && patch == 1, "cublasGetProperty: 13.4.1 (got %d.%d.%d)",
	       major, minor, patch);
	/* The version of the library: no handle needed. */
	if (get_version(NULL, &version) != CUBLAS_STATUS_SUCCESS)
		version = -1;
	tap_ok(version == 130401 && lt_version() == 130401,
	       "cublasGetVersion_v2 and cublasLtGetVersion: 130401 (got %d, %zu)", version,
	       lt_version());
	tap_ok(!strcmp(status_name(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE"),
	       "cublasGetStatusName names the status");
}

/* The handle's settings; its stream becomes stream. */
static void settings(cublasHandle_t handle, cudaStream_t stream)
{
	__typeof__(&cublasSetStream_v2) set_stream = LOOKUP(blas, cublasSetStream_v2);
	__typeof__(&cublasGetStream_v2) get_stream = LOOKUP(blas, cublasGetStream_v2);
	__typeof__(&cublasSetMathMode) set_math = LOOKUP(blas, cublasSetMathMode);
	__typeof__(&cublasGetMathMode) get_math = LOOKUP(blas, cublasGetMathMode);
	__typeof__(&cublasSetPointerMode_v2) set_pointer = LOOKUP(blas, cublasSetPointerMode_v2);
	__typeof__(&cublasGetPointerMode_v2) get_pointer = LOOKUP(blas, cublasGetPointerMode_v2);
	cudaStream_t got = (cudaStream_t)1;
	cublasMath_t math = CUBLAS_DEFAULT_MATH;
	cublasPointerMode_t pointer = CUBLAS_POINTER_MODE_DEVICE;

	tap_ok(get_stream(handle, &got) == CUBLAS_STATUS_SUCCESS && got == NULL,
	       "a new handle's stream is the default stream");
	tap_ok(set_stream(handle, stream) == CUBLAS_STATUS_SUCCESS &&
	           get_stream(handle, &got) == CUBLAS_STATUS_SUCCESS && got == stream,
	       "cublasSetStream_v2, then cublasGetStream_v2 gives that stream");
	tap_ok(set_math(handle, CUBLAS_TF32_TENSOR_OP_MATH) == CUBLAS_STATUS_SUCCESS &&
	           get_math(handle, &math) == CUBLAS_STATUS_SUCCESS &&
	           math == CUBLAS_TF32_TENSOR_OP_MATH,
	       "cublasSetMathMode, then cublasGetMathMode gives that mode");
	tap_ok(
	    get_pointer(handle, &pointer) == CUBLAS_STATUS_SUCCESS &&
	        pointer == CUBLAS_POINTER_MODE_HOST &&
	        set_pointer(handle, (cublasPointerMode_t)7) == CUBLAS_STATUS_INVALID_VALUE,
	    "the pointer mode starts on the host; an unknown one is CUBLAS_STATUS_INVALID_VALUE");
}

static void sgemm(cublasHandle_t handle, const float *a, const float *b, float *c)
{
	__typeof__(&cublasSgemm_v2) gemm = LOOKUP(blas, cublasSgemm_v2);
	const float one = 1.0f, zero = 0.0f;
	char dead[64] = "";

	tap_ok(gemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, a, M, b, K, &zero, c, M) ==
	           CUBLAS_STATUS_SUCCESS,
	       "cublasSgemm_v2 of %d x %d x %d", M, N, K);
	tap_expect("op=launch name=cublas_sim_gemm_f32 grid=2,1,1 block=256,1,1 shmem=0 "
	           "api=cuLaunchKernel");
	tap_ok(gemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, -1, N, K, &one, a, M, b, K, &zero, c, M) ==
	               CUBLAS_STATUS_INVALID_VALUE &&
	           gemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, a, M - 1, b, K, &zero, c,
	                M) == CUBLAS_STATUS_INVALID_VALUE &&
	           gemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, NULL, a, M, b, K, &zero, c, M) ==
	               CUBLAS_STATUS_INVALID_VALUE,
	       "m < 0, lda < m or alpha NULL: CUBLAS_STATUS_INVALID_VALUE, and no launch");
	tap_ok(gemm((cublasHandle_t)dead, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, a, M, b, K,
	            &zero, c, M) == CUBLAS_STATUS_NOT_INITIALIZED,
	       "a handle cublasCreate did not make: CUBLAS_STATUS_NOT_INITIALIZED");
}

static cublasLtMatrixLayout_t layout(uint64_t rows, uint64_t cols)
{
	__typeof__(&cublasLtMatrixLayoutCreate) create = LOOKUP(lt, cublasLtMatrixLayoutCreate);
	cublasLtMatrixLayout_t l = NULL;

	create(&l, CUDA_R_32F, rows, cols, (int64_t)rows);
	return l;
}

/* D = A B of M x K and K x N, on the handle cast to a cuBLASLt one. */
static void matmul(cublasHandle_t handle, cudaStream_t stream, const float *a, const float *b,
                   float *c)
{
	__typeof__(&cublasLtMatmulDescCreate) desc_create = LOOKUP(lt, cublasLtMatmulDescCreate);
	__typeof__(&cublasLtMatmulPreferenceCreate) pref_create =
	    LOOKUP(lt, cublasLtMatmulPreferenceCreate);
	__typeof__(&cublasLtMatmulAlgoGetHeuristic) heuristic =
	    LOOKUP(lt, cublasLtMatmulAlgoGetHeuristic);
	__typeof__(&cublasLtMatmul) run = LOOKUP(lt, cublasLtMatmul);
	cublasLtMatrixLayout_t la = layout(M, K), lb = layout(K, N), lc = layout(M, N);
	cublasLtMatmulHeuristicResult_t result;
	cublasLtMatmulDesc_t desc = NULL;
	cublasLtMatmulPreference_t pref = NULL;
	const float one = 1.0f, zero = 0.0f;
	int found = 0;

	desc_create(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	pref_create(&pref);
	tap_ok(heuristic((cublasLtHandle_t)handle, desc, la, lb, lc, lc, pref, 1, &result,
	                 &found) == CUBLAS_STATUS_SUCCESS &&
	           found == 1 && result.state == CUBLAS_STATUS_SUCCESS,
	       "cublasLtMatmulAlgoGetHeuristic gives one algorithm");
	tap_ok(run((cublasLtHandle_t)handle, desc, &one, a, la, b, lb, &zero, c, lc, c, lc,
	           &result.algo, NULL, 0, stream) == CUBLAS_STATUS_SUCCESS,
	       "cublasLtMatmul on a cublasHandle_t cast to a cublasLtHandle_t");
	tap_expect("op=launch name=cublasLt_sim_gemm_f32 grid=2,1,1 block=256,1,1 shmem=0 "
	           "api=cuLaunchKernel");
	tap_ok(run((cublasLtHandle_t)handle, desc, &one, a, la, b, la, &zero, c, lc, c, lc,
	           &result.algo, NULL, 0, stream) == CUBLAS_STATUS_INVALID_VALUE,
	       "layouts that do not agree: CUBLAS_STATUS_INVALID_VALUE, and no launch");
	tap_ok(LOOKUP(lt, cublasLtMatmulPreferenceDestroy)(pref) == CUBLAS_STATUS_SUCCESS &&
	           LOOKUP(lt, cublasLtMatmulDescDestroy)(desc) == CUBLAS_STATUS_SUCCESS &&
	           LOOKUP(lt, cublasLtMatrixLayoutDestroy)(la) == CUBLAS_STATUS_SUCCESS &&
	           LOOKUP(lt, cublasLtMatrixLayoutDestroy)(lb) == CUBLAS_STATUS_SUCCESS &&
	           LOOKUP(lt, cublasLtMatrixLayoutDestroy)(lc) == CUBLAS_STATUS_SUCCESS,
	       "the descriptor, preference and layouts are destroyed");
}

int main(void)
{
	__typeof__(&cublasCreate_v2) create;
	__typeof__(&cublasDestroy_v2) destroy;
	int (*saxpy)(void);
	cublasHandle_t handle = NULL;
	cudaStream_t stream = NULL;
	float *a = NULL, *b = NULL, *c = NULL;

	printf("# fact pid=%d\n", (int)getpid());
	blas = dlopen("libcublas.so.13", RTLD_NOW);
	lt = dlopen("libcublasLt.so.13", RTLD_NOW);
	if (!tap_ok(blas && lt, "libcublas.so.13 and libcublasLt.so.13 load (%s)",
	            blas && lt ? "yes" : dlerror()))
		return tap_done();
	create = LOOKUP(blas, cublasCreate_v2);
	destroy = LOOKUP(blas, cublasDestroy_v2);
	saxpy = (int (*)(void))dlsym(blas, "cublasSaxpy_v2");
	versions();
	tap_ok(create(NULL) == CUBLAS_STATUS_INVALID_VALUE,
	       "cublasCreate_v2(NULL): CUBLAS_STATUS_INVALID_VALUE");
	if (!tap_ok(create(&handle) == CUBLAS_STATUS_SUCCESS && handle, "cublasCreate_v2"))
		return tap_done();
	tap_expect("op=ctx_create dev=0 primary=1");
	if (cudaStreamCreate(&stream) != cudaSuccess ||
	    cudaMalloc((void **)&a, M * K * sizeof(float)) != cudaSuccess ||
	    cudaMalloc((void **)&b, K * N * sizeof(float)) != cudaSuccess ||
	    cudaMalloc((void **)&c, M * N * sizeof(float)) != cudaSuccess)
		return tap_done();
	tap_expect("op=alloc kind=device size=%zu", M * K * sizeof(float));
	tap_expect("op=alloc kind=device size=%zu", K * N * sizeof(float));
	tap_expect("op=alloc kind=device size=%zu", M * N * sizeof(float));
	settings(handle, stream);
	sgemm(handle, a, b, c);
	matmul(handle, stream, a, b, c);
	tap_ok(saxpy() == CUBLAS_STATUS_NOT_SUPPORTED,
	       "cublasSaxpy_v2, a generated stub: CUBLAS_STATUS_NOT_SUPPORTED");
	tap_ok(destroy(handle) == CUBLAS_STATUS_SUCCESS, "cublasDestroy_v2");
	cudaFree(a);
	cudaFree(b);
	cudaFree(c);
	tap_expect("op=free kind=device size=%zu", M * K * sizeof(float));
	tap_expect("op=free kind=device size=%zu", K * N * sizeof(float));
	tap_expect("op=free kind=device size=%zu", M * N * sizeof(float));
	cudaStreamDestroy(stream);
	return tap_done();
}
