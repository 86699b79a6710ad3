/* SPDX-License-Identifier: MIT */
/*
 * api-stubs.c - calls the simulator does not implement, and the exports
 * that are no ordinary API call, as a gcc program linked against the
 * toolkit's libraries: each one exists (the program loads at all), returns
 * its documented value, and a not-supported call is seen by CUPTI like any
 * other call (ENTER and EXIT, its callback id, its params) and by the
 * ledger (an error line). The program is its own CUPTI subscriber.
 *
 * Prints TAP, "# fact pid=" and "# expect" lines for sim/check-ledger.py.
 */
#include <cuda.h>
#include <cudaProfiler.h>
#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>
#include <cupti.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cupti-seen.h"
#include "tap.h"

/* cuda_gl_interop.h needs GL/gl.h; the ABI is all the program needs. */
extern cudaError_t CUDARTAPI cudaGLGetDevices(unsigned int *pCudaDeviceCount, int *pCudaDevices,
                                              unsigned int cudaDeviceCount, int deviceList);
/* Exported by libcupti.so.13, declared by no header. */
extern CUptiResult CUPTIAPI cuptiGetNumContexts(void);

/* Whether CUPTI saw ENTER then EXIT of (domain, cbid) named name, with
 * params present or not, returning result. */
static void check_seen(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name,
                       int want_params, int result)
{
	int enter = -1, exit_ = -1;

	for (int i = 0; i < nseen; i++) {
		if (seen[i].domain != domain || seen[i].cbid != cbid)
			continue;
		if (seen[i].site == CUPTI_API_ENTER && enter < 0)
			enter = i;
		else if (seen[i].site == CUPTI_API_EXIT && exit_ < 0)
			exit_ = i;
	}
	tap_ok(enter >= 0 && exit_ > enter, "%s: CUPTI saw ENTER then EXIT of callback id %u", name,
	       (unsigned)cbid);
	if (enter < 0 || exit_ < 0)
		return;
	tap_ok(strcmp(seen[enter].name, name) == 0, "%s: functionName is '%s'", name,
	       seen[enter].name);
	tap_ok((seen[enter].params != NULL) == want_params, "%s: functionParams %s", name,
	       want_params ? "points to its params struct" : "is NULL (no params struct)");
	tap_ok(seen[exit_].has_return && seen[exit_].result == result,
	       "%s: functionReturnValue at EXIT is %d (got %d)", name, result, seen[exit_].result);
}

int main(void)
{
	CUpti_SubscriberHandle subscriber;
	CUresult cu;
	cudaError_t rt;
	struct cudaChannelFormatDesc desc;

	printf("# fact pid=%d\n", (int)getpid());
	tap_ok(cuptiSubscribe(&subscriber, on_callback, NULL) == CUPTI_SUCCESS, "cuptiSubscribe");
	tap_ok(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS &&
	           cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) == CUPTI_SUCCESS,
	       "cuptiEnableDomain(DRIVER, RUNTIME)");

	/* Before cuInit a stub says what every driver call says (cuda.h: cuInit). */
	cu = cuGraphicsUnregisterResource(NULL);
	tap_ok(cu == CUDA_ERROR_NOT_INITIALIZED,
	       "a stub before cuInit returns CUDA_ERROR_NOT_INITIALIZED (got %d)", (int)cu);
	tap_expect("op=error api=cuGraphicsUnregisterResource result=CUDA_ERROR_NOT_INITIALIZED");
	tap_ok(cuInit(0) == CUDA_SUCCESS, "cuInit");

	/* A driver stub with a params struct (generated_cuda_meta.h). */
	nseen = 0;
	cu = cuGraphicsUnregisterResource(NULL);
	tap_ok(cu == CUDA_ERROR_NOT_SUPPORTED, "cuGraphicsUnregisterResource returns 801 (got %d)",
	       (int)cu);
	tap_expect("op=error api=cuGraphicsUnregisterResource result=CUDA_ERROR_NOT_SUPPORTED");
	check_seen(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphicsUnregisterResource,
	           "cuGraphicsUnregisterResource", 1, CUDA_ERROR_NOT_SUPPORTED);

	/* A runtime stub of an interop header: callback id, no params. */
	nseen = 0;
	rt = cudaGLGetDevices(NULL, NULL, 0, 1);
	tap_ok(rt == cudaErrorNotSupported,
	       "cudaGLGetDevices returns cudaErrorNotSupported (got %d)", (int)rt);
	tap_expect("op=error api=cudaGLGetDevices result=cudaErrorNotSupported");
	check_seen(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGLGetDevices_v4010,
	           "cudaGLGetDevices", 0, cudaErrorNotSupported);
	tap_ok(cudaGetLastError() == cudaErrorNotSupported,
	       "the stub's error is in the last-error slot");
	tap_ok(cudaGetLastError() == cudaSuccess, "and it is not sticky");

	/* A runtime stub with a params struct. */
	nseen = 0;
	rt = cudaGraphicsUnregisterResource(NULL);
	tap_ok(rt == cudaErrorNotSupported,
	       "cudaGraphicsUnregisterResource returns cudaErrorNotSupported (got %d)", (int)rt);
	tap_expect("op=error api=cudaGraphicsUnregisterResource result=cudaErrorNotSupported");
	check_seen(CUPTI_CB_DOMAIN_RUNTIME_API,
	           CUPTI_RUNTIME_TRACE_CBID_cudaGraphicsUnregisterResource_v3020,
	           "cudaGraphicsUnregisterResource", 1, cudaErrorNotSupported);
	cudaGetLastError();

	/* Struct-returning and void-argument exports. */
	desc = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
	tap_ok(desc.x == 8 && desc.y == 16 && desc.z == 0 && desc.w == 0 &&
	           desc.f == cudaChannelFormatKindUnsigned,
	       "cudaCreateChannelDesc returns the descriptor of its arguments");
	nseen = 0;
	tap_ok(cudaProfilerStart() == cudaSuccess, "cudaProfilerStart succeeds with no profiler");
	tap_ok(cudaProfilerStop() == cudaSuccess, "cudaProfilerStop succeeds with no profiler");
	check_seen(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
	           "cudaProfilerStart", 0, cudaSuccess);
	tap_ok(cuProfilerStart() == CUDA_SUCCESS && cuProfilerStop() == CUDA_SUCCESS,
	       "cuProfilerStart and cuProfilerStop succeed");

	/* CUPTI's undeclared exports. */
	tap_ok(cuptiGetNumContexts() == CUPTI_ERROR_NOT_SUPPORTED,
	       "cuptiGetNumContexts returns CUPTI_ERROR_NOT_SUPPORTED");
	tap_expect("op=error api=cuptiGetNumContexts result=CUPTI_ERROR_NOT_SUPPORTED");

	/* cuGetExportTable: NVIDIA's private tables are not modelled. */
	{
		const void *table = (const void *)1;
		CUuuid id;

		memset(&id, 0x42, sizeof(id));
		cu = cuGetExportTable(&table, &id);
		tap_ok(cu == CUDA_ERROR_NOT_SUPPORTED && table == NULL,
		       "cuGetExportTable returns CUDA_ERROR_NOT_SUPPORTED and no table (got %d)",
		       (int)cu);
		tap_expect("op=error api=cuGetExportTable result=CUDA_ERROR_NOT_SUPPORTED");
	}
	cuptiUnsubscribe(subscriber);
	return tap_done();
}
