/* SPDX-License-Identifier: MIT */
/*
 * cupti-compat.h - what differs between the CUPTIs the tracer is built
 * against: CUPTI 13 (CUDA 13, R580 drivers and later: libcudatrace.so) and
 * CUPTI 12 (CUDA 12.x, for the R525-R575 drivers most machines run:
 * libcudatrace-cuda12.so). Both are built from the same sources; this is
 * the one place that tells them apart, by CUPTI_API_VERSION (cupti_version.h:
 * 12.x counts 19..28, 13.0 and later count xxyyzz, 130000 for 13.0).
 *
 * What the tracer uses that CUPTI 13.0 changed (CUPTI 13.0 release notes,
 * and the two toolkits' cupti_activity.h, cupti_callbacks.h, cupti_*_cbid.h):
 * - the kernel record: CUpti_ActivityKernel10 in 13, CUpti_ActivityKernel9
 *   in 12; 10 only adds isDeviceLaunched at the end, a field the tracer
 *   does not read, so every field it reads is where 9 has it;
 * - the memory pool record: CUpti_ActivityMemoryPool3 in 13,
 *   CUpti_ActivityMemoryPool2 in 12; 3 only adds isManagedPool at the end;
 * - subscribing: cuptiSubscribe_v2 (13) names the subscriber and, when
 *   another one holds CUPTI, gives its name; CUPTI 12 has cuptiSubscribe
 *   only, and the holder stays unnamed;
 * - callback ids that CUPTI 12 lacks: __cudaLaunchKernel (the runtime call
 *   CUDA 13's <<<>>> compiles to; CUDA 12's compiles to cudaLaunchKernel)
 *   and cuCtxSynchronize_v2 (a CUDA 13 driver function).
 * The other records the tracer reads (Memcpy6, MemcpyPtoP4, Memset4,
 * Memory4, Synchronization2, Overhead3, Device5) have the same name in
 * both; Memcpy6 and Memset4 gained isDeviceLaunched in 13 in what was
 * padding, which the tracer does not read either.
 */
#ifndef CUDATRACE_CUPTI_COMPAT_H
#define CUDATRACE_CUPTI_COMPAT_H

#include <stddef.h>
#include <cupti.h>

#if CUPTI_API_VERSION >= 130000
#define CT_CUPTI_MAJOR 13
typedef CUpti_ActivityKernel10 ct_kernel_record;
typedef CUpti_ActivityMemoryPool3 ct_memory_pool_record;
/* The callback ids only CUPTI 13 has (see above). */
#define CT_CUPTI_HAS_REGISTERED_LAUNCH  1
#define CT_CUPTI_HAS_CTX_SYNCHRONIZE_V2 1
#else
#define CT_CUPTI_MAJOR                  12
typedef CUpti_ActivityKernel9 ct_kernel_record;
typedef CUpti_ActivityMemoryPool2 ct_memory_pool_record;
#define CT_CUPTI_HAS_REGISTERED_LAUNCH  0
#define CT_CUPTI_HAS_CTX_SYNCHRONIZE_V2 0
#endif

/*
 * cuptiSubscribe as "cudatrace". When CUPTI answers
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, HOLDER (SIZE bytes) has
 * the name of the subscriber that holds it where CUPTI says it (13), else
 * is empty; it is always a terminated string.
 */
static inline CUptiResult ct_cupti_subscribe(CUpti_SubscriberHandle *subscriber,
                                             CUpti_CallbackFunc callback, char *holder, size_t size)
{
	CUptiResult status;
#if CT_CUPTI_MAJOR >= 13
	CUpti_SubscriberParams params = {
		.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
		.subscriberName = "cudatrace",
		.oldSubscriberName = holder,
		.oldSubscriberSize = size,
	};

	holder[0] = '\0';
	status = cuptiSubscribe_v2(subscriber, callback, NULL, &params);
	holder[size - 1] = '\0';
#else
	holder[0] = '\0';
	status = cuptiSubscribe(subscriber, callback, NULL);
#endif
	return status;
}

#endif /* CUDATRACE_CUPTI_COMPAT_H */
