/* SPDX-License-Identifier: MIT */
/*
 * cublas-kernels.c - how the simulated cuBLAS runs a GEMM: as the real
 * library does, by launching a kernel of its own with the driver API
 * (cuLaunchKernel) on the stream the caller gave, so that CUPTI and a
 * tracer see a kernel launched from inside the library. Its kernels come
 * from a module it loads itself (cuModuleLoadData), once per context, the
 * first time a GEMM runs there, as CUDA's lazy loading loads a library's
 * kernels. The module is PTX whose entries do nothing: no kernel of the
 * simulator computes anything, so C is left as it was.
 *
 * One kernel per routine and data type of A and B,
 * "<library>_sim_<routine>_<type>" (cublas_sim_gemm_f32,
 * cublasLt_sim_gemm_bf16, cublas_sim_gemv_f64), launched on a grid of
 * 128 x 128 tiles of the m x n result, one grid slice per batch, with 256
 * threads a block.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cublas-kernels.h"

#define TILE         128
#define THREADS      256
#define GRID_Z_MAX   65535 /* the largest gridDim.z */
#define CONTEXTS_MAX 64

static const struct {
	cudaDataType type;
	const char *name;
} types[] = {
	{ CUDA_R_32F, "f32" },   { CUDA_R_64F, "f64" },      { CUDA_R_16F, "f16" },
	{ CUDA_R_16BF, "bf16" }, { CUDA_C_32F, "c32" },      { CUDA_C_64F, "c64" },
	{ CUDA_R_8I, "i8" },     { CUDA_R_8F_E4M3, "e4m3" }, { CUDA_R_8F_E5M2, "e5m2" },
};
#define TYPES (sizeof(types) / sizeof(types[0]))
#define OTHER TYPES /* the kernel of any other type: "<library>_sim_gemm" */

static const char *const routines[SIM_ROUTINES] = { "gemm", "gemv" };

cublasStatus_t sim_cublas_property(libraryPropertyType type, int *value)
{
	if (!value)
		return CUBLAS_STATUS_INVALID_VALUE;
	switch (type) {
	case MAJOR_VERSION:
		*value = SIM_CUBLAS_MAJOR;
		return CUBLAS_STATUS_SUCCESS;
	case MINOR_VERSION:
		*value = SIM_CUBLAS_MINOR;
		return CUBLAS_STATUS_SUCCESS;
	case PATCH_LEVEL:
		*value = SIM_CUBLAS_PATCH;
		return CUBLAS_STATUS_SUCCESS;
	}
	return CUBLAS_STATUS_INVALID_VALUE;
}

/* The library's kernels in one context. */
struct loaded {
	const char *library;
	CUcontext context;
	CUmodule module;
	CUfunction functions[SIM_ROUTINES][TYPES + 1];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct loaded loaded[CONTEXTS_MAX];

static size_t type_index(cudaDataType type)
{
	for (size_t i = 0; i < TYPES; i++)
		if (types[i].type == type)
			return i;
	return OTHER;
}

static void kernel_name(char *buf, size_t size, const char *library, size_t routine, size_t type)
{
	if (type == OTHER)
		snprintf(buf, size, "%s_sim_%s", library, routines[routine]);
	else
		snprintf(buf, size, "%s_sim_%s_%s", library, routines[routine], types[type].name);
}

/* PTX 8.0 for sm_75, the oldest architecture CUDA 13 supports: any
 * simulated device can compile it. Each entry takes A, B, C, m, n, k. */
static void module_text(char *buf, size_t size, const char *library)
{
	size_t used =
	    (size_t)snprintf(buf, size, ".version 8.0\n.target sm_75\n.address_size 64\n");

	for (size_t r = 0; r < SIM_ROUTINES; r++)
		for (size_t i = 0; i <= TYPES && used < size; i++) {
			char name[64];

			kernel_name(name, sizeof(name), library, r, i);
			used += (size_t)snprintf(buf + used, size - used,
			                         ".visible .entry %s(.param .u64 a, .param .u64 b, "
			                         ".param .u64 c, .param .u64 m, .param .u64 n, "
			                         ".param .u64 k)\n{\n\tret;\n}\n",
			                         name);
		}
}

/* Load the library's module into the current context. */
static CUresult load(struct loaded *slot, const char *library, CUcontext context)
{
	static char text[16384];
	CUresult r;

	module_text(text, sizeof(text), library);
	r = cuModuleLoadData(&slot->module, text);
	for (size_t k = 0; r == CUDA_SUCCESS && k < SIM_ROUTINES * (TYPES + 1); k++) {
		char name[64];

		kernel_name(name, sizeof(name), library, k / (TYPES + 1), k % (TYPES + 1));
		r = cuModuleGetFunction(&slot->functions[k / (TYPES + 1)][k % (TYPES + 1)],
		                        slot->module, name);
	}
	if (r == CUDA_SUCCESS) {
		slot->library = library;
		slot->context = context;
	}
	return r;
}

/* The function for gemm in the current context; stale: the one found
 * before failed (its context was destroyed, another made at its address). */
static CUresult function_for(const struct sim_gemm *gemm, bool stale, CUfunction *out)
{
	CUcontext context = NULL;
	struct loaded *slot = NULL;
	CUresult r = cuCtxGetCurrent(&context);

	if (r == CUDA_SUCCESS && !context)
		r = CUDA_ERROR_INVALID_CONTEXT;
	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < CONTEXTS_MAX && !slot; i++)
		if (loaded[i].context == context && loaded[i].library == gemm->library)
			slot = &loaded[i];
	if (slot && stale)
		slot->context = NULL;
	if (!slot || stale) {
		for (size_t i = 0; i < CONTEXTS_MAX && !slot; i++)
			if (!loaded[i].context)
				slot = &loaded[i];
		r = slot ? load(slot, gemm->library, context) : CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (r == CUDA_SUCCESS)
		*out = slot->functions[gemm->routine][type_index(gemm->type)];
	pthread_mutex_unlock(&lock);
	return r;
}

static unsigned int tiles(int64_t extent)
{
	int64_t n = (extent + TILE - 1) / TILE;

	return n < 1 ? 1 : (unsigned int)n;
}

/* One launch per GRID_Z_MAX matrices of the batch. */
static CUresult launch(CUfunction f, const struct sim_gemm *gemm)
{
	uint64_t a = (uintptr_t)gemm->a, b = (uintptr_t)gemm->b, c = (uintptr_t)gemm->c;
	uint64_t m = (uint64_t)gemm->m, n = (uint64_t)gemm->n, k = (uint64_t)gemm->k;
	void *params[] = { &a, &b, &c, &m, &n, &k };
	CUresult r = CUDA_SUCCESS;

	for (int64_t done = 0; r == CUDA_SUCCESS && done < gemm->batch; done += GRID_Z_MAX) {
		int64_t z = gemm->batch - done < GRID_Z_MAX ? gemm->batch - done : GRID_Z_MAX;

		r = cuLaunchKernel(f, tiles(gemm->m), tiles(gemm->n), (unsigned int)z, THREADS, 1,
		                   1, 0, gemm->stream, params, NULL);
	}
	return r;
}

HIDDEN cublasStatus_t sim_gemm_launch(const struct sim_gemm *gemm)
{
	CUfunction f = NULL;
	CUresult r;

	/* An empty result is no work: cuBLAS returns at once. */
	if (gemm->m == 0 || gemm->n == 0 || gemm->batch == 0)
		return CUBLAS_STATUS_SUCCESS;
	r = function_for(gemm, false, &f);
	if (r == CUDA_SUCCESS)
		r = launch(f, gemm);
	if (r == CUDA_ERROR_INVALID_HANDLE && function_for(gemm, true, &f) == CUDA_SUCCESS)
		r = launch(f, gemm);
	switch (r) {
	case CUDA_SUCCESS:
		return CUBLAS_STATUS_SUCCESS;
	case CUDA_ERROR_INVALID_CONTEXT:
	case CUDA_ERROR_NOT_INITIALIZED:
		return CUBLAS_STATUS_NOT_INITIALIZED;
	case CUDA_ERROR_NO_BINARY_FOR_GPU:
	case CUDA_ERROR_INVALID_PTX:
		return CUBLAS_STATUS_ARCH_MISMATCH;
	default:
		/* "The function failed to launch on the GPU." */
		return CUBLAS_STATUS_EXECUTION_FAILED;
	}
}
