/* SPDX-License-Identifier: MIT */
/*
 * host-func.c - host functions enqueued on streams (cuLaunchHostFunc,
 * cuStreamAddCallback and their runtime forms): traced as API calls only.
 *
 * CUPTI has no activity kind for host functions, and when one runs, on a
 * driver thread, no callback says so: what the trace can tell is the call
 * that enqueued it, its stream order against the calls around it, and
 * its result (api_call). On a capturing stream the call adds a
 * host node instead, which is the same call in the trace.
 */
#include <cupti.h>

#include "api-call.h"

static const struct api_binding host_func_bindings[] = {
	BIND_RUNTIME_PT(cudaLaunchHostFunc, v10000, ptsz_v10000, 0, NULL, NULL),
	BIND_RUNTIME_PT(cudaStreamAddCallback, v5000, ptsz_v7000, 0, NULL, NULL),
	BIND_DRIVER_PT(cuLaunchHostFunc, ptsz, 0, NULL, NULL),
	BIND_DRIVER_PT(cuStreamAddCallback, ptsz, 0, NULL, NULL),
	BIND_END,
};

const struct api_family host_func_family = {
	.bindings = host_func_bindings,
	.wanted = api_events_wanted,
};
