/* SPDX-License-Identifier: MIT */
/*
 * cublasLt.c - the simulated libcublasLt.so.13: the handle, the matmul,
 * matrix layout and preference descriptors, one algorithm from the
 * heuristic, and cublasLtMatmul, as NVIDIA's cuBLASLt documentation
 * (https://docs.nvidia.com/cuda/cublas/#using-the-cublaslt-api) and
 * NVIDIA's cublasLt.h give them (cublas-api.h declares them). PyTorch's addmm with a bias (nn.Linear)
 * goes through it. The rest of what the real library exports
 * (libcublasLt.exports) are stubs generated at build time that return
 * CUBLAS_STATUS_NOT_SUPPORTED.
 *
 * The descriptors are cuBLASLt's fixed-size semi-opaque structs, which a
 * program may also allocate itself: what the simulator keeps of them is
 * inside. A matmul checks that its layouts agree (op(A) m x k, op(B) k x n,
 * C and D m x n), then launches the library's kernel on the stream given
 * (cublas-kernels.c): it computes nothing.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "cublas-api.h"
#include "cublas-kernels.h"
#include "sim-hooks.h"

#define DESC_MAGIC   0x63626c7464657363ull /* a matmul descriptor */
#define LAYOUT_MAGIC 0x63626c746c61796full /* a matrix layout */
#define PREF_MAGIC   0x63626c7470726566ull /* a preference */
#define ALGO_MAGIC   0x63626c74616c676full /* the heuristic's algorithm */

struct cublasLtContext {
	uint64_t magic; /* SIM_CUBLAS_HANDLE_MAGIC, first, as a cublasContext's */
};

/* A handle of cublasLtCreate, or a cublasHandle_t cast to one. */
static bool handle_valid(cublasLtHandle_t handle)
{
	return handle && handle->magic == SIM_CUBLAS_HANDLE_MAGIC;
}

/* ------------------------------------------------------------ attributes */

/* A matmul descriptor's attributes, as set: the rest of its opaque words
 * after the magic, two words an attribute of up to 8 bytes (every matmul
 * attribute cublasLt.h lists is a scalar or a pointer). */
struct attr {
	uint32_t id;
	uint32_t size; /* 0: a free entry */
	uint64_t value;
};

static struct attr *attr_find(struct attr *table, size_t count, uint32_t id)
{
	for (size_t i = 0; i < count; i++)
		if (table[i].size && table[i].id == id)
			return &table[i];
	return NULL;
}

/* INVALID_VALUE "if buf is NULL or sizeInBytes doesn't match size of
 * internal storage" (cublasLt.h); NOT_SUPPORTED when the simulator's
 * room for attributes is full. */
static cublasStatus_t attr_set(struct attr *table, size_t count, uint32_t id, const void *buf,
                               size_t size)
{
	struct attr *a = attr_find(table, count, id);

	if (!buf || size == 0 || size > sizeof(a->value) || (a && a->size != size))
		return CUBLAS_STATUS_INVALID_VALUE;
	for (size_t i = 0; i < count && !a; i++)
		if (!table[i].size)
			a = &table[i];
	if (!a)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	a->id = id;
	a->size = (uint32_t)size;
	a->value = 0;
	memcpy(&a->value, buf, size);
	return CUBLAS_STATUS_SUCCESS;
}

/* sizeInBytes 0 asks the size (in sizeWritten); an attribute never set
 * reads as its default, fallback, in the size asked for. */
static cublasStatus_t attr_get(struct attr *table, size_t count, uint32_t id, uint64_t fallback,
                               void *buf, size_t size, size_t *written)
{
	struct attr *a = attr_find(table, count, id);
	size_t have = a ? a->size : size ? size : sizeof(uint32_t);
	uint64_t value = a ? a->value : fallback;

	if (size == 0) {
		if (!written)
			return CUBLAS_STATUS_INVALID_VALUE;
		*written = have;
		return CUBLAS_STATUS_SUCCESS;
	}
	if (!buf || size != have || size > sizeof(value))
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(buf, &value, size);
	if (written)
		*written = size;
	return CUBLAS_STATUS_SUCCESS;
}

/* A layout's or preference's attribute, at field, of size bytes (NULL:
 * no such attribute): INVALID_VALUE "if buf is NULL or sizeInBytes
 * doesn't match size of internal storage" (cublasLt.h). */
static cublasStatus_t field_set(void *field, size_t size, const void *buf, size_t sizeInBytes)
{
	if (!field || !buf || sizeInBytes != size)
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(field, buf, size);
	return CUBLAS_STATUS_SUCCESS;
}

/* sizeInBytes 0 asks the size, in sizeWritten. */
static cublasStatus_t field_get(const void *field, size_t size, void *buf, size_t sizeInBytes,
                                size_t *sizeWritten)
{
	if (!field || (sizeInBytes == 0 && !sizeWritten))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (sizeInBytes == 0) {
		*sizeWritten = size;
		return CUBLAS_STATUS_SUCCESS;
	}
	if (!buf || sizeInBytes != size)
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(buf, field, size);
	if (sizeWritten)
		*sizeWritten = size;
	return CUBLAS_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ version */

SIM_EXPORT size_t cublasLtGetVersion(void)
{
	return SIM_CUBLAS_VERSION;
}

SIM_EXPORT size_t cublasLtGetCudartVersion(void)
{
	return CUDART_VERSION;
}

SIM_EXPORT cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
	return sim_cublas_property(type, value);
}

/* ------------------------------------------------------------ statuses */

/* libcublas.so.13's cublasGetStatusName and cublasGetStatusString are these. */
SIM_EXPORT const char *cublasLtGetStatusName(cublasStatus_t status)
{
	switch (status) {
#define NAME(s) \
	case s: \
		return #s
		NAME(CUBLAS_STATUS_SUCCESS);
		NAME(CUBLAS_STATUS_NOT_INITIALIZED);
		NAME(CUBLAS_STATUS_ALLOC_FAILED);
		NAME(CUBLAS_STATUS_INVALID_VALUE);
		NAME(CUBLAS_STATUS_ARCH_MISMATCH);
		NAME(CUBLAS_STATUS_MAPPING_ERROR);
		NAME(CUBLAS_STATUS_EXECUTION_FAILED);
		NAME(CUBLAS_STATUS_INTERNAL_ERROR);
		NAME(CUBLAS_STATUS_NOT_SUPPORTED);
		NAME(CUBLAS_STATUS_LICENSE_ERROR);
#undef NAME
	}
	return "CUBLAS_STATUS_UNKNOWN";
}

/* The meanings https://docs.nvidia.com/cuda/cublas/#cublasstatus-t gives. */
SIM_EXPORT const char *cublasLtGetStatusString(cublasStatus_t status)
{
	switch (status) {
	case CUBLAS_STATUS_SUCCESS:
		return "the operation completed successfully";
	case CUBLAS_STATUS_NOT_INITIALIZED:
		return "the library was not initialized";
	case CUBLAS_STATUS_ALLOC_FAILED:
		return "the resource allocation failed";
	case CUBLAS_STATUS_INVALID_VALUE:
		return "an invalid numeric value was used as an argument";
	case CUBLAS_STATUS_ARCH_MISMATCH:
		return "an absent device architectural feature is required";
	case CUBLAS_STATUS_MAPPING_ERROR:
		return "an access to GPU memory space failed";
	case CUBLAS_STATUS_EXECUTION_FAILED:
		return "the GPU program failed to execute";
	case CUBLAS_STATUS_INTERNAL_ERROR:
		return "an internal operation failed";
	case CUBLAS_STATUS_NOT_SUPPORTED:
		return "the functionality requested is not supported";
	case CUBLAS_STATUS_LICENSE_ERROR:
		return "error detected trying to check the license";
	}
	return "unknown error";
}

/* ------------------------------------------------------------ handle */

/* No CUDA call: the kernels are loaded in the context of the first
 * matmul. */
SIM_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
	struct cublasLtContext *context;

	if (!lightHandle)
		return CUBLAS_STATUS_INVALID_VALUE;
	context = calloc(1, sizeof(*context));
	if (!context)
		return CUBLAS_STATUS_ALLOC_FAILED;
	context->magic = SIM_CUBLAS_HANDLE_MAGIC;
	*lightHandle = context;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
	if (!handle_valid(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	lightHandle->magic = 0;
	free(lightHandle);
	return CUBLAS_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ matmul descriptor */

#define DESC_ATTRS ((sizeof(cublasLtMatmulDescOpaque_t) - 8) / sizeof(struct attr))

static struct attr *desc_attrs(cublasLtMatmulDesc_t desc)
{
	return (struct attr *)&desc->data[1];
}

static bool desc_valid(cublasLtMatmulDesc_t desc)
{
	return desc && desc->data[0] == DESC_MAGIC;
}

static uint64_t desc_get(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t id,
                         uint64_t fallback)
{
	struct attr *a = attr_find(desc_attrs(desc), DESC_ATTRS, id);

	return a ? a->value : fallback;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
                                                   cublasComputeType_t computeType,
                                                   cudaDataType_t scaleType)
{
	cublasLtMatmulDesc_t desc;
	int32_t compute = computeType, scale = scaleType;

	if (!matmulDesc)
		return CUBLAS_STATUS_INVALID_VALUE;
	desc = calloc(1, sizeof(*desc));
	if (!desc)
		return CUBLAS_STATUS_ALLOC_FAILED;
	desc->data[0] = DESC_MAGIC;
	attr_set(desc_attrs(desc), DESC_ATTRS, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &compute,
	         sizeof(compute));
	attr_set(desc_attrs(desc), DESC_ATTRS, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale,
	         sizeof(scale));
	*matmulDesc = desc;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
	if (!desc_valid(matmulDesc))
		return CUBLAS_STATUS_INVALID_VALUE;
	matmulDesc->data[0] = 0;
	free(matmulDesc);
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                         cublasLtMatmulDescAttributes_t attr,
                                                         const void *buf, size_t sizeInBytes)
{
	if (!desc_valid(matmulDesc))
		return CUBLAS_STATUS_INVALID_VALUE;
	return attr_set(desc_attrs(matmulDesc), DESC_ATTRS, attr, buf, sizeInBytes);
}

SIM_EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                         cublasLtMatmulDescAttributes_t attr,
                                                         void *buf, size_t sizeInBytes,
                                                         size_t *sizeWritten)
{
	/* Every attribute defaults to 0 but the epilogue. */
	uint64_t fallback = attr == CUBLASLT_MATMUL_DESC_EPILOGUE ? CUBLASLT_EPILOGUE_DEFAULT : 0;

	if (!desc_valid(matmulDesc))
		return CUBLAS_STATUS_INVALID_VALUE;
	return attr_get(desc_attrs(matmulDesc), DESC_ATTRS, attr, fallback, buf, sizeInBytes,
	                sizeWritten);
}

/* ------------------------------------------------------------ matrix layout */

/* What a cublasLtMatrixLayoutOpaque_t holds here (64 bytes, its size). */
struct layout {
	uint64_t magic;
	uint32_t type;
	int32_t order;
	uint64_t rows, cols;
	int64_t ld;
	int32_t batch_count;
	int32_t batch_mode;
	int64_t stride;
	int64_t plane_offset;
};
_Static_assert(sizeof(struct layout) <= sizeof(cublasLtMatrixLayoutOpaque_t),
               "a layout fits cublasLt.h's opaque struct");

static struct layout *layout_of(cublasLtMatrixLayout_t handle)
{
	struct layout *l = (struct layout *)handle;

	return l && l->magic == LAYOUT_MAGIC ? l : NULL;
}

/* Where attribute id lives in l, and its size (cublasLt.h); NULL if none. */
static void *layout_field(struct layout *l, cublasLtMatrixLayoutAttribute_t id, size_t *size)
{
	switch (id) {
	case CUBLASLT_MATRIX_LAYOUT_TYPE:
		*size = sizeof(l->type);
		return &l->type;
	case CUBLASLT_MATRIX_LAYOUT_ORDER:
		*size = sizeof(l->order);
		return &l->order;
	case CUBLASLT_MATRIX_LAYOUT_ROWS:
		*size = sizeof(l->rows);
		return &l->rows;
	case CUBLASLT_MATRIX_LAYOUT_COLS:
		*size = sizeof(l->cols);
		return &l->cols;
	case CUBLASLT_MATRIX_LAYOUT_LD:
		*size = sizeof(l->ld);
		return &l->ld;
	case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
		*size = sizeof(l->batch_count);
		return &l->batch_count;
	case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
		*size = sizeof(l->stride);
		return &l->stride;
	case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET:
		*size = sizeof(l->plane_offset);
		return &l->plane_offset;
	case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE:
		*size = sizeof(l->batch_mode);
		return &l->batch_mode;
	}
	return NULL;
}

SIM_EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout,
                                                     cudaDataType type, uint64_t rows,
                                                     uint64_t cols, int64_t ld)
{
	struct layout *l;

	if (!matLayout)
		return CUBLAS_STATUS_INVALID_VALUE;
	l = calloc(1, sizeof(cublasLtMatrixLayoutOpaque_t));
	if (!l)
		return CUBLAS_STATUS_ALLOC_FAILED;
	*l = (struct layout){ LAYOUT_MAGIC, type, CUBLASLT_ORDER_COL, rows, cols, ld, 1, 0, 0, 0 };
	*matLayout = (cublasLtMatrixLayout_t)l;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout)
{
	struct layout *l = layout_of(matLayout);

	if (!l)
		return CUBLAS_STATUS_INVALID_VALUE;
	l->magic = 0;
	free(l);
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                           cublasLtMatrixLayoutAttribute_t attr,
                                                           const void *buf, size_t sizeInBytes)
{
	struct layout *l = layout_of(matLayout);
	size_t size = 0;
	void *field = l ? layout_field(l, attr, &size) : NULL;

	return field_set(field, size, buf, sizeInBytes);
}

SIM_EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                           cublasLtMatrixLayoutAttribute_t attr,
                                                           void *buf, size_t sizeInBytes,
                                                           size_t *sizeWritten)
{
	struct layout *l = layout_of(matLayout);
	size_t size = 0;
	void *field = l ? layout_field(l, attr, &size) : NULL;

	return field_get(field, size, buf, sizeInBytes, sizeWritten);
}

/* ------------------------------------------------------------ preference */

/* What a cublasLtMatmulPreferenceOpaque_t holds here (64 bytes, its size),
 * with cublasLt.h's defaults. */
struct preference {
	uint64_t magic;
	uint32_t search_mode;
	uint32_t reduction_scheme_mask;
	uint32_t min_alignment[4]; /* of A, B, C and D */
	float max_waves_count;
	uint64_t max_workspace_bytes;
	uint64_t impl_mask;
};
_Static_assert(sizeof(struct preference) <= sizeof(cublasLtMatmulPreferenceOpaque_t),
               "a preference fits cublasLt.h's opaque struct");

static struct preference *preference_of(cublasLtMatmulPreference_t handle)
{
	struct preference *p = (struct preference *)handle;

	return p && p->magic == PREF_MAGIC ? p : NULL;
}

/* Where attribute id lives in p, and its size (cublasLt.h); NULL if none. */
static void *preference_field(struct preference *p, cublasLtMatmulPreferenceAttributes_t id,
                              size_t *size)
{
	switch (id) {
	case CUBLASLT_MATMUL_PREF_SEARCH_MODE:
		*size = sizeof(p->search_mode);
		return &p->search_mode;
	case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES:
		*size = sizeof(p->max_workspace_bytes);
		return &p->max_workspace_bytes;
	case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK:
		*size = sizeof(p->reduction_scheme_mask);
		return &p->reduction_scheme_mask;
	case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES:
	case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
	case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES:
	case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
		*size = sizeof(p->min_alignment[0]);
		return &p->min_alignment[id - CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES];
	case CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT:
		*size = sizeof(p->max_waves_count);
		return &p->max_waves_count;
	case CUBLASLT_MATMUL_PREF_IMPL_MASK:
		*size = sizeof(p->impl_mask);
		return &p->impl_mask;
	}
	return NULL;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
	struct preference *p;

	if (!pref)
		return CUBLAS_STATUS_INVALID_VALUE;
	p = calloc(1, sizeof(cublasLtMatmulPreferenceOpaque_t));
	if (!p)
		return CUBLAS_STATUS_ALLOC_FAILED;
	*p = (struct preference){ .magic = PREF_MAGIC,
		                  .search_mode = CUBLASLT_SEARCH_BEST_FIT,
		                  .reduction_scheme_mask = CUBLASLT_REDUCTION_SCHEME_MASK,
		                  .min_alignment = { 256, 256, 256, 256 },
		                  .impl_mask = UINT64_MAX };
	*pref = (cublasLtMatmulPreference_t)p;
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
	struct preference *p = preference_of(pref);

	if (!p)
		return CUBLAS_STATUS_INVALID_VALUE;
	p->magic = 0;
	free(p);
	return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
    size_t sizeInBytes)
{
	struct preference *p = preference_of(pref);
	size_t size = 0;
	void *field = p ? preference_field(p, attr, &size) : NULL;

	return field_set(field, size, buf, sizeInBytes);
}

SIM_EXPORT cublasStatus_t cublasLtMatmulPreferenceGetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, void *buf,
    size_t sizeInBytes, size_t *sizeWritten)
{
	struct preference *p = preference_of(pref);
	size_t size = 0;
	void *field = p ? preference_field(p, attr, &size) : NULL;

	return field_get(field, size, buf, sizeInBytes, sizeWritten);
}

/* ------------------------------------------------------------ matmul */

/* D = alpha op(A) op(B) + beta C: the shapes of the four layouts agree,
 * m, n and k from them; batch from D's. */
static cublasStatus_t matmul_shape(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t adesc,
                                   cublasLtMatrixLayout_t bdesc, cublasLtMatrixLayout_t cdesc,
                                   cublasLtMatrixLayout_t ddesc, struct sim_gemm *g)
{
	const struct layout *a = layout_of(adesc), *b = layout_of(bdesc);
	const struct layout *c = layout_of(cdesc), *d = layout_of(ddesc);
	bool ta, tb;

	if (!desc_valid(desc) || !a || !b || !c || !d)
		return CUBLAS_STATUS_INVALID_VALUE;
	ta = desc_get(desc, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_N) != CUBLAS_OP_N;
	tb = desc_get(desc, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N) != CUBLAS_OP_N;
	g->m = (int64_t)d->rows;
	g->n = (int64_t)d->cols;
	g->k = (int64_t)(ta ? a->rows : a->cols);
	if ((ta ? a->cols : a->rows) != d->rows || (tb ? b->rows : b->cols) != d->cols ||
	    (tb ? b->cols : b->rows) != (uint64_t)g->k || c->rows != d->rows || c->cols != d->cols)
		return CUBLAS_STATUS_INVALID_VALUE;
	if (d->batch_count < 1)
		return CUBLAS_STATUS_INVALID_VALUE;
	g->batch = d->batch_count;
	g->type = (cudaDataType)a->type;
	return CUBLAS_STATUS_SUCCESS;
}

/* One algorithm, needing no workspace, for any shape cublasLtMatmul takes;
 * NOT_SUPPORTED with none for one it does not. */
SIM_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requestedAlgoCount,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount)
{
	struct sim_gemm g = { 0 };

	if (!handle_valid(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (requestedAlgoCount <= 0 || !heuristicResultsArray || !returnAlgoCount ||
	    (preference && !preference_of(preference)))
		return CUBLAS_STATUS_INVALID_VALUE;
	*returnAlgoCount = 0;
	if (matmul_shape(operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &g) != CUBLAS_STATUS_SUCCESS)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	memset(&heuristicResultsArray[0], 0, sizeof(heuristicResultsArray[0]));
	heuristicResultsArray[0].algo.data[0] = ALGO_MAGIC;
	heuristicResultsArray[0].workspaceSize = 0;
	heuristicResultsArray[0].state = CUBLAS_STATUS_SUCCESS;
	heuristicResultsArray[0].wavesCount = 1.0f;
	*returnAlgoCount = 1;
	return CUBLAS_STATUS_SUCCESS;
}

/* https://docs.nvidia.com/cuda/cublas/#cublasltmatmul: NOT_INITIALIZED
 * for a handle not made by cublasLtCreate, INVALID_VALUE for parameters
 * NULL or in conflict; the kernel runs on stream. */
SIM_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle,
                                         cublasLtMatmulDesc_t computeDesc, const void *alpha,
                                         const void *A, cublasLtMatrixLayout_t Adesc, const void *B,
                                         cublasLtMatrixLayout_t Bdesc, const void *beta,
                                         const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                                         cublasLtMatrixLayout_t Ddesc,
                                         const cublasLtMatmulAlgo_t *algo, void *workspace,
                                         size_t workspaceSizeInBytes, cudaStream_t stream)
{
	struct sim_gemm g = { "cublasLt", SIM_GEMM, CUDA_R_32F,      0, 0, 0, 1, A,
		              B,          D,        (CUstream)stream };
	cublasStatus_t status;

	(void)C, (void)workspace, (void)workspaceSizeInBytes;
	if (!handle_valid(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!alpha || !beta || (algo && algo->data[0] != ALGO_MAGIC))
		return CUBLAS_STATUS_INVALID_VALUE;
	status = matmul_shape(computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &g);
	if (status != CUBLAS_STATUS_SUCCESS)
		return status;
	return sim_gemm_launch(&g);
}
