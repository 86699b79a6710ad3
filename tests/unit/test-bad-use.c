/* SPDX-License-Identifier: MIT */
/*
 * test-bad-use.c - the driver and runtime APIs used wrongly must return the
 * documented error codes and never crash: calls before cuInit, invalid and
 * double frees, destroyed streams, sizes 0 and SIZE_MAX, host registration
 * conflicts, events never recorded, and the per-thread last-error slot.
 * The codes are those the CUDA 13 headers and NVIDIA's documentation give
 * (each test names its source where the headers are silent). Linked against the toolkit's stub libcuda and real
 * libcudart; run on the simulator (LD_LIBRARY_PATH), under ASan in the
 * sanitizer build.
 *
 * The tests run in order: the first one needs a process in which nothing
 * has called cuInit yet.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

static size_t page_size(void)
{
	long size = sysconf(_SC_PAGESIZE);

	return size > 0 ? (size_t)size : 4096;
}

/* cuda.h:5186-5191: every call but the exempt ones returns NOT_INITIALIZED. */
static void test_before_init(void **state)
{
	int version = 0, count = -1;
	const char *name = NULL;
	CUdevice dev;
	CUcontext ctx = NULL;
	CUdeviceptr dptr = 0;
	CUstream stream = NULL;
	size_t free_mem = 0, total = 0;

	/* Exempt: cuDriverGetVersion, cuGetErrorName/String. */
	assert_int_equal(cuDriverGetVersion(&version), CUDA_SUCCESS);
	assert_true(version >= 13000);
	assert_int_equal(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &name), CUDA_SUCCESS);
	assert_non_null(name);
	assert_string_equal(name, "CUDA_ERROR_OUT_OF_MEMORY");

	assert_int_equal(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
	assert_int_equal(cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
	assert_int_equal(cuCtxGetCurrent(&ctx), CUDA_ERROR_NOT_INITIALIZED);
	assert_int_equal(cuMemAlloc(&dptr, 4096), CUDA_ERROR_NOT_INITIALIZED);
	assert_int_equal(cuMemGetInfo(&free_mem, &total), CUDA_ERROR_NOT_INITIALIZED);
	assert_int_equal(cuStreamCreate(&stream, 0), CUDA_ERROR_NOT_INITIALIZED);
}

static void test_init(void **state)
{
	CUcontext ctx = NULL;

	assert_int_equal(cuInit(0), CUDA_SUCCESS);
	assert_int_equal(cuInit(0), CUDA_SUCCESS); /* repeated calls have no effect */
	assert_int_equal(cudaSetDevice(0), cudaSuccess);
	/* cudaFree(0) creates the primary context and frees nothing. */
	assert_int_equal(cudaFree(NULL), cudaSuccess);
	assert_int_equal(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	assert_non_null(ctx);
}

/* Freeing NULL is a no-op everywhere (cuda_runtime_api.h:4731; measured). */
static void test_free_null(void **state)
{
	assert_int_equal(cudaFree(NULL), cudaSuccess);
	assert_int_equal(cuMemFree(0), CUDA_SUCCESS);
	assert_int_equal(cuMemFreeHost(NULL), CUDA_SUCCESS);
	assert_int_equal(cudaFreeHost(NULL), cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
}

static void test_cumemfree_invalid(void **state)
{
	CUdeviceptr dptr = 0;

	assert_int_equal(cuMemFree((CUdeviceptr)0x1234), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuMemAlloc(&dptr, 4096), CUDA_SUCCESS);
	/* Not the start of an allocation. */
	assert_int_equal(cuMemFree(dptr + 512), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuMemFree(dptr), CUDA_SUCCESS);
	assert_int_equal(cuMemFree(dptr), CUDA_ERROR_INVALID_VALUE);
	/* Not sticky: the driver still works. */
	assert_int_equal(cuMemAlloc(&dptr, 4096), CUDA_SUCCESS);
	assert_int_equal(cuMemFree(dptr), CUDA_SUCCESS);
}

static void test_cudafree_double(void **state)
{
	void *p = NULL;

	assert_int_equal(cudaMalloc(&p, 4096), cudaSuccess);
	assert_int_equal(cudaFree(p), cudaSuccess);
	assert_int_equal(cudaFree(p), cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaFree((void *)0x1234), cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
	assert_int_equal(cudaMalloc(&p, 4096), cudaSuccess);
	assert_int_equal(cudaFree(p), cudaSuccess);
}

static void test_destroyed_stream(void **state)
{
	CUstream stream = NULL;
	cudaStream_t rt_stream = NULL;
	CUdeviceptr dptr = 0;
	void *dev = NULL;
	char host[64] = { 0 };

	assert_int_equal(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	assert_int_equal(cuStreamDestroy(stream), CUDA_SUCCESS);
	assert_int_equal(cuStreamSynchronize(stream), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(cuStreamQuery(stream), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(cuMemAlloc(&dptr, sizeof(host)), CUDA_SUCCESS);
	assert_int_equal(cuMemcpyHtoDAsync(dptr, host, sizeof(host), stream),
	                 CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(cuMemFree(dptr), CUDA_SUCCESS);

	assert_int_equal(cudaStreamCreate(&rt_stream), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(rt_stream), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(rt_stream), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaMalloc(&dev, sizeof(host)), cudaSuccess);
	assert_int_equal(
	    cudaMemcpyAsync(dev, host, sizeof(host), cudaMemcpyHostToDevice, rt_stream),
	    cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaFree(dev), cudaSuccess);
}

/* Handles that never were: no crash, INVALID_HANDLE. */
static void test_garbage_handles(void **state)
{
	float ms = 0;

	assert_int_equal(cuStreamSynchronize((CUstream)(uintptr_t)0xdeadbee0),
	                 CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(cuEventRecord((CUevent)(uintptr_t)0xdeadbee0, NULL),
	                 CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(cuEventSynchronize((CUevent)(uintptr_t)0x1230), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(cudaEventElapsedTime(&ms, (cudaEvent_t)(uintptr_t)0x1230,
	                                      (cudaEvent_t)(uintptr_t)0x4560),
	                 cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidResourceHandle);
}

/* cuda.h:8582-8583 (cuMemAlloc of 0 bytes), cuda_runtime_api.h:4454
 * (cudaMallocManaged of 0 bytes); cudaMalloc and cudaMallocHost of 0 bytes
 * succeed with NULL, as measured on real drivers (reports in the
 * alpaka-group/alpaka#441 and StanfordLegion/legion#1001 issues). */
static void test_zero_and_huge_sizes(void **state)
{
	CUdeviceptr dptr = 0;
	void *p = (void *)(uintptr_t)0x1000;

	assert_int_equal(cuMemAlloc(&dptr, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cudaMalloc(&p, 0), cudaSuccess);
	assert_null(p);
	assert_int_equal(cuMemAlloc(&dptr, SIZE_MAX), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(cudaMalloc(&p, SIZE_MAX), cudaErrorMemoryAllocation);
	assert_int_equal(cudaGetLastError(), cudaErrorMemoryAllocation);
	assert_int_equal(cudaMallocManaged(&p, 0, cudaMemAttachGlobal), cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
	p = (void *)(uintptr_t)0x1000;
	assert_int_equal(cudaMallocHost(&p, 0), cudaSuccess);
	assert_null(p);
	p = NULL;
	assert_int_equal(cuMemHostAlloc(&p, 0, 0), CUDA_SUCCESS);
	if (p)
		assert_int_equal(cuMemFreeHost(p), CUDA_SUCCESS);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
}

static void test_null_arguments(void **state)
{
	assert_int_equal(cuMemAlloc(NULL, 4096), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cudaMalloc(NULL, 4096), cudaErrorInvalidValue);
	assert_int_equal(cuMemGetInfo(NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cudaGetDeviceCount(NULL), cudaErrorInvalidValue);
	assert_int_equal(cuStreamCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuEventCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	cudaGetLastError();
}

/* Copies and memsets on memory that is not (or no longer) allocated. */
static void test_freed_memory(void **state)
{
	CUdeviceptr dptr = 0;
	char host[256] = { 0 };

	assert_int_equal(cuMemAlloc(&dptr, sizeof(host)), CUDA_SUCCESS);
	assert_int_equal(cuMemFree(dptr), CUDA_SUCCESS);
	assert_int_not_equal(cuMemcpyHtoD(dptr, host, sizeof(host)), CUDA_SUCCESS);
	assert_int_not_equal(cuMemcpyDtoH(host, dptr, sizeof(host)), CUDA_SUCCESS);
	assert_int_not_equal(cuMemsetD8(dptr, 0, sizeof(host)), CUDA_SUCCESS);
	assert_int_not_equal(cuMemsetD8((CUdeviceptr)0x10, 0, sizeof(host)), CUDA_SUCCESS);
}

/* driver_types.h:849-861; measured on real drivers (lupine#437, #585). */
static void test_host_register(void **state)
{
	size_t page = page_size();
	char *buf = aligned_alloc(page, 4 * page);
	char *other = aligned_alloc(page, page);
	void *pinned = NULL, *host_alloc = NULL;

	assert_non_null(buf);
	assert_non_null(other);
	assert_int_equal(cuMemHostRegister(buf, 2 * page, 0), CUDA_SUCCESS);
	/* Overlapping an existing registration, even by one interior page. */
	assert_int_equal(cuMemHostRegister(buf + page, 2 * page, 0),
	                 CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	assert_int_equal(cudaHostRegister(buf + page, page, cudaHostRegisterDefault),
	                 cudaErrorHostMemoryAlreadyRegistered);
	assert_int_equal(cudaGetLastError(), cudaErrorHostMemoryAlreadyRegistered);
	assert_int_equal(cuMemHostUnregister(buf + 3 * page),
	                 CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
	assert_int_equal(cuMemHostUnregister(buf), CUDA_SUCCESS);
	assert_int_equal(cuMemHostUnregister(buf), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
	assert_int_equal(cudaHostUnregister(buf), cudaErrorHostMemoryNotRegistered);
	assert_int_equal(cudaGetLastError(), cudaErrorHostMemoryNotRegistered);
	assert_int_equal(cuMemHostUnregister(NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cudaHostUnregister(NULL), cudaErrorInvalidValue);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);

	/* Disjoint byte ranges on one page both register. */
	assert_int_equal(cuMemHostRegister(other, 100, 0), CUDA_SUCCESS);
	assert_int_equal(cuMemHostRegister(other + 200, 100, 0), CUDA_SUCCESS);
	assert_int_equal(cuMemHostUnregister(other + 200), CUDA_SUCCESS);
	assert_int_equal(cuMemHostUnregister(other), CUDA_SUCCESS);

	/* Already pinned memory cannot be registered; not registered memory
	 * cannot be unregistered. */
	assert_int_equal(cudaMallocHost(&pinned, page), cudaSuccess);
	assert_int_equal(cudaHostRegister(pinned, page, cudaHostRegisterDefault),
	                 cudaErrorHostMemoryAlreadyRegistered);
	assert_int_equal(cudaFreeHost(pinned), cudaSuccess);
	assert_int_equal(cuMemHostAlloc(&host_alloc, page, 0), CUDA_SUCCESS);
	assert_int_equal(cuMemHostUnregister(host_alloc), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuMemFreeHost(host_alloc), CUDA_SUCCESS);
	cudaGetLastError();
	free(buf);
	free(other);
}

/* cuda_runtime_api.h:2985-3029. */
static void test_event_elapsed(void **state)
{
	cudaEvent_t e0 = NULL, e1 = NULL, untimed = NULL;
	CUevent d0 = NULL, d1 = NULL;
	float ms = -1;

	assert_int_equal(cudaEventCreate(&e0), cudaSuccess);
	assert_int_equal(cudaEventCreate(&e1), cudaSuccess);
	assert_int_equal(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
	/* A never-recorded event is complete (cuda-api-wrappers#226). */
	assert_int_equal(cudaEventQuery(e0), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, e0, e1), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaEventRecord(e0, 0), cudaSuccess);
	assert_int_equal(cudaEventSynchronize(e0), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, e0, e1), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaEventRecord(untimed, 0), cudaSuccess);
	assert_int_equal(cudaEventSynchronize(untimed), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, e0, untimed), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaEventRecord(e1, 0), cudaSuccess);
	assert_int_equal(cudaEventSynchronize(e1), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, e0, e1), cudaSuccess);
	assert_true(ms >= 0);
	cudaGetLastError();
	assert_int_equal(cudaEventDestroy(e0), cudaSuccess);
	assert_int_equal(cudaEventDestroy(e1), cudaSuccess);
	assert_int_equal(cudaEventDestroy(untimed), cudaSuccess);

	assert_int_equal(cuEventCreate(&d0, CU_EVENT_DEFAULT), CUDA_SUCCESS);
	assert_int_equal(cuEventCreate(&d1, CU_EVENT_DEFAULT), CUDA_SUCCESS);
	assert_int_equal(cuEventElapsedTime(&ms, d0, d1), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(cuEventDestroy(d0), CUDA_SUCCESS);
	assert_int_equal(cuEventDestroy(d1), CUDA_SUCCESS);
}

static void *fail_in_thread(void *arg)
{
	cudaError_t *seen = arg;
	void *p = NULL;

	seen[0] = cudaMalloc(&p, SIZE_MAX);
	seen[1] = cudaGetLastError();
	return NULL;
}

/* cuda_runtime_api.h:1116-1172: one slot per thread; Get resets, Peek not. */
static void test_last_error(void **state)
{
	cudaError_t seen[2] = { cudaSuccess, cudaSuccess };
	pthread_t thread;
	void *p = NULL;

	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaMalloc(&p, SIZE_MAX), cudaErrorMemoryAllocation);
	assert_int_equal(cudaPeekAtLastError(), cudaErrorMemoryAllocation);
	assert_int_equal(cudaPeekAtLastError(), cudaErrorMemoryAllocation);
	assert_int_equal(cudaGetLastError(), cudaErrorMemoryAllocation);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaPeekAtLastError(), cudaSuccess);

	/* The latest failure overwrites the slot; successes do not clear it. */
	assert_int_equal(cudaFree((void *)0x1234), cudaErrorInvalidValue);
	assert_int_equal(cudaMalloc(&p, SIZE_MAX), cudaErrorMemoryAllocation);
	assert_int_equal(cudaMalloc(&p, 512), cudaSuccess);
	assert_int_equal(cudaFree(p), cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaErrorMemoryAllocation);

	/* Another thread's error stays in that thread. */
	assert_int_equal(pthread_create(&thread, NULL, fail_in_thread, seen), 0);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_int_equal(seen[0], cudaErrorMemoryAllocation);
	assert_int_equal(seen[1], cudaErrorMemoryAllocation);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_init),     cmocka_unit_test(test_init),
		cmocka_unit_test(test_free_null),       cmocka_unit_test(test_cumemfree_invalid),
		cmocka_unit_test(test_cudafree_double), cmocka_unit_test(test_destroyed_stream),
		cmocka_unit_test(test_garbage_handles), cmocka_unit_test(test_zero_and_huge_sizes),
		cmocka_unit_test(test_null_arguments),  cmocka_unit_test(test_freed_memory),
		cmocka_unit_test(test_host_register),   cmocka_unit_test(test_event_elapsed),
		cmocka_unit_test(test_last_error),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
