/* SPDX-License-Identifier: MIT */
/*
 * stack-alloc - allocations made from named functions, for the call
 * stacks the tracer records: leak_here() allocates, sets the start of the
 * memory (a memset, for CUDATRACE_STACK_CALLS) and never frees,
 * freed_here() allocates and frees, leak_inlined() (inlined into main)
 * allocates and never frees, lib_leak() (stack-lib.c, a shared
 * library) allocates and never frees, fail_here() asks for more than any
 * device has, once, and late_leak() (stack-late.c, a library loaded with
 * dlopen after CUDA started) allocates once and never frees. Built -O2 -g -fomit-frame-pointer.
 *
 *   stack-alloc [N]   N allocations of each (default 3)
 *
 * Prints one line per allocation, "leak FUNCTION FILE:LINE SIZE" (or
 * "freed", or "failed"), the ground truth the report is compared with: the
 * line of the cudaMalloc.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "stack-lib.h"

#define SIZE_LEAK    (3u << 20)
#define SIZE_FREED   (5u << 20)
#define SIZE_INLINED (2u << 20)
#define SIZE_FAIL    (1ull << 50)

static int failed(cudaError_t err, const char *what)
{
	if (err == cudaSuccess)
		return 0;
	fprintf(stderr, "stack-alloc: %s: %s\n", what, cudaGetErrorString(err));
	return 1;
}

__attribute__((noinline)) static int leak_here(void)
{
	void *p;
	int line = __LINE__ + 1;
	cudaError_t err = cudaMalloc(&p, SIZE_LEAK);

	if (failed(err, "cudaMalloc") || failed(cudaMemset(p, 0, 4096), "cudaMemset"))
		return 1;
	printf("leak leak_here %s:%d %u\n", __FILE__, line, SIZE_LEAK);
	return 0;
}

/* Always inlined into main: the site is still this function and line. */
static inline __attribute__((always_inline)) int leak_inlined(void)
{
	void *p;
	int line = __LINE__ + 1;
	cudaError_t err = cudaMalloc(&p, SIZE_INLINED);

	if (failed(err, "cudaMalloc"))
		return 1;
	printf("leak leak_inlined %s:%d %u\n", __FILE__, line, SIZE_INLINED);
	return 0;
}

__attribute__((noinline)) static int freed_here(void)
{
	void *p;
	int line = __LINE__ + 1;
	cudaError_t err = cudaMalloc(&p, SIZE_FREED);

	if (failed(err, "cudaMalloc"))
		return 1;
	printf("freed freed_here %s:%d %u\n", __FILE__, line, SIZE_FREED);
	return failed(cudaFree(p), "cudaFree");
}

__attribute__((noinline)) static int fail_here(void)
{
	void *p;
	int line = __LINE__ + 1;
	cudaError_t err = cudaMalloc(&p, SIZE_FAIL);

	if (err == cudaSuccess) {
		fprintf(stderr, "stack-alloc: %llu bytes were allocated\n", SIZE_FAIL);
		return 1;
	}
	cudaGetLastError(); /* the error is expected: clear it */
	printf("failed fail_here %s:%d %llu\n", __FILE__, line, SIZE_FAIL);
	return 0;
}

/*
 * late_leak() of libstack-late.so, loaded now that CUDA runs, from the
 * directory of libstack-lib.so by its full path: dlopen searches the
 * caller's run path, and the caller is the sanitizer's runtime where it
 * intercepts dlopen.
 */
static int late_leak_once(void)
{
	char path[4096];
	Dl_info where;
	const char *slash;
	void *lib = NULL;
	late_leak_fn *leak;
	unsigned line;

	if (dladdr((void *)lib_leak, &where) && where.dli_fname &&
	    (slash = strrchr(where.dli_fname, '/'))) {
		snprintf(path, sizeof(path), "%.*s/libstack-late.so",
		         (int)(slash - where.dli_fname), where.dli_fname);
		lib = dlopen(path, RTLD_NOW);
	}
	leak = lib ? (late_leak_fn *)dlsym(lib, "late_leak") : NULL;
	if (!leak) {
		fprintf(stderr, "stack-alloc: libstack-late.so: %s\n", dlerror());
		return 1;
	}
	if (leak(&line))
		return 1;
	printf("leak late_leak %s:%u %u\n", STACK_LATE_FILE, line, STACK_LATE_SIZE);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	unsigned lib_line;

	for (int i = 0; i < n; i++) {
		if (leak_here() || freed_here() || leak_inlined())
			return 1;
		if (lib_leak(&lib_line))
			return 1;
		printf("leak lib_leak %s:%u %u\n", STACK_LIB_FILE, lib_line, STACK_LIB_SIZE);
	}
	if (fail_here() || late_leak_once())
		return 1;
	fflush(stdout);
	return failed(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
