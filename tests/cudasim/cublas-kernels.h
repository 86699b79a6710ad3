/* SPDX-License-Identifier: MIT */
/*
 * cublas-kernels.h - the GEMM kernels of the simulated libcublas.so.13 and
 * libcublasLt.so.13, compiled into each (hidden). Not installed.
 */
#ifndef CUDASIM_CUBLAS_KERNELS_H
#define CUDASIM_CUBLAS_KERNELS_H

#include <stdint.h>
#include <cuda.h>
#include <library_types.h>
#include "cublas-api.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* The wheel's cuBLAS (PyPI's nvidia-cublas 13.4.1.3), whose exports the
 * simulated libraries carry (libcublas.exports, libcublasLt.exports), not
 * the CUDA toolkit's cuBLAS, an older 13.x. */
#define SIM_CUBLAS_MAJOR   13
#define SIM_CUBLAS_MINOR   4
#define SIM_CUBLAS_PATCH   1
#define SIM_CUBLAS_VERSION (SIM_CUBLAS_MAJOR * 10000 + SIM_CUBLAS_MINOR * 100 + SIM_CUBLAS_PATCH)

/* What the first word of a live cublasHandle_t and cublasLtHandle_t holds:
 * "any valid cublasHandle_t can be used in place of cublasLtHandle_t with
 * a simple cast" (https://docs.nvidia.com/cuda/cublas/#cublaslthandle-t),
 * as PyTorch does. */
#define SIM_CUBLAS_HANDLE_MAGIC 0x6375626c61736864ull

/* The routines that have kernels. */
enum sim_routine {
	SIM_GEMM, /* D = alpha op(A) op(B) + beta C: m x n, k deep */
	SIM_GEMV, /* y = alpha op(A) x + beta y: m x 1, k deep */
	SIM_ROUTINES
};

/* One GEMM (or GEMV) as a kernel sees it, batch times. */
struct sim_gemm {
	const char *library; /* "cublas" or "cublasLt": the kernel's prefix */
	enum sim_routine routine;
	cudaDataType type; /* of A and B: names the kernel */
	int64_t m, n, k, batch;
	const void *a, *b;
	void *c;
	CUstream stream;
};

/* Launch the GEMM's kernel on its stream in the current context, loading
 * the library's kernels there first if need be. */
HIDDEN cublasStatus_t sim_gemm_launch(const struct sim_gemm *gemm);

/* cublasGetProperty's and cublasLtGetProperty's answer: the version's part
 * TYPE names into *VALUE; CUBLAS_STATUS_INVALID_VALUE for no VALUE or
 * another TYPE. */
HIDDEN cublasStatus_t sim_cublas_property(libraryPropertyType type, int *value);

#endif /* CUDASIM_CUBLAS_KERNELS_H */
