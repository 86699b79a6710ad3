/* SPDX-License-Identifier: MIT */
/*
 * cuda-errors.h - the sticky CUDA errors analysis: per process, the first
 * call that returned an error after which the CUDA context cannot be used
 * any more (an illegal address, a launch failure, ...), and how many of
 * its calls failed from then on.
 *
 * NVIDIA documents these codes (cuda.h, driver_types.h) as leaving "the
 * process in an inconsistent state": "any further CUDA work will return
 * the same error. To continue using CUDA, the process must be terminated
 * and relaunched." A program that hit one and then died did not die of
 * anything the tracer can see after it.
 *
 * Such an error is raised by a kernel, and returned by whatever call
 * comes next (a synchronisation, a copy, a cudaFree): the call names no
 * kernel. The kernel is the last the process launched before the error,
 * named with where it was launched.
 * It keeps too the last call of each process that failed, of any error
 * but those that say no failure, with where it was called: what a
 * program that gave up by itself may have given up on.
 */
#ifndef CUDATRACE_ANALYZERS_CUDA_ERRORS_H
#define CUDATRACE_ANALYZERS_CUDA_ERRORS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/* The first sticky error of one process. */
struct ct_cuda_sticky {
	int64_t pid;
	const char *process;
	int64_t time_ns;       /* trace clock: the api_call that returned it */
	uint8_t domain;        /* CT_DOMAIN_DRIVER or CT_DOMAIN_RUNTIME */
	int32_t code;          /* 700, 719, ... */
	const char *error;     /* its name in that domain: "cudaErrorIllegalAddress" */
	const char *api;       /* the call that returned it; "" when the trace names none */
	const char *site;      /* where that call was made (ct_call_site_format); NULL: unknown */
	uint64_t failed_after; /* calls of the process that failed after it */
	/* The last launch of the process before it: the kernel that faulted. */
	const char *kernel;      /* its name, demangled; NULL when none was launched */
	bool graph;              /* a graph launch (kernel names no kernel then) */
	int64_t launch_time_ns;  /* trace clock; when kernel or graph */
	const char *launch_site; /* where it was launched (ct_call_site_format); NULL: unknown */
};

/*
 * The last call of one process that returned an error, but one that
 * says no failure: a query's "not yet" (cudaErrorNotReady), or the
 * runtime unloading as the process exits (cudaErrorCudartUnloading).
 */
struct ct_cuda_failed_call {
	int64_t pid;
	int64_t time_ns;
	uint8_t domain; /* CT_DOMAIN_DRIVER or CT_DOMAIN_RUNTIME */
	int32_t code;
	const char *error;     /* its name; NULL when CUDA's name of it is not known here */
	const char *api;       /* the call; "" when the trace names none */
	const char *site;      /* where it was called (ct_call_site_format); NULL: unknown */
	int64_t before_end_ns; /* from it to the last event of its process */
};

struct ct_cuda_errors_result {
	GArray *sticky; /* struct ct_cuda_sticky, in order of time */
	/* struct ct_cuda_failed_call: the last of each process that had one,
	 * in order of its first */
	GArray *failed_calls;
	GStringChunk *strings; /* every string of the result */
};

/* Whether CODE, returned in DOMAIN, is one of the sticky errors. */
bool ct_cuda_error_is_sticky(unsigned domain, int32_t code);

#endif
