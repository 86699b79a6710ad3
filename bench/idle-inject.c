/* SPDX-License-Identifier: MIT */
/*
 * idle-inject.c - the floor under "traced, no session" in the benchmark:
 * an injection library that only does what any CUPTI-based LTTng tracer
 * does while it has nothing to record. It subscribes to CUPTI with a
 * callback that returns at once and enables the RESOURCE domain and the
 * allocation calls (cudatrace keeps those on for its address map), and it
 * loads lttng-ust, whose listener threads make the process multi-threaded. What this costs over the untraced workload is the price
 * of an attached CUPTI and of those threads (the simulator's locks are
 * cheaper in a single-threaded process), not work of cudatrace's.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <cupti.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int InitializeInjection(void);

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
}

int InitializeInjection(void)
{
	static const CUpti_CallbackId runtime[] = {
		CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
		CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
		CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
		CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
	};
	static const CUpti_CallbackId driver[] = {
		CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
		CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
	};
	CUpti_SubscriberHandle subscriber;

	/* As a tracer that links it would: its constructor starts its threads
	 * and registers with the session daemon. Kept loaded. */
	dlopen(LTTNG_UST_SONAME, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
	if (cuptiSubscribe(&subscriber, on_callback, NULL) != CUPTI_SUCCESS)
		return 1;
	for (size_t i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++)
		cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, runtime[i]);
	for (size_t i = 0; i < sizeof(driver) / sizeof(driver[0]); i++)
		cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, driver[i]);
	cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE);
	return 1;
}
