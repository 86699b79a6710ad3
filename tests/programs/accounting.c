/* SPDX-License-Identifier: MIT */
/*
 * accounting.c - the situations in which a trace's memory accounting used
 * to lie, as a program makes them through the runtime and driver APIs, run
 * on the simulated GPU by tests/trace/accounting.sh (and friends), which
 * compare the trace with the simulator's ledger:
 *
 *   release-fails    releases of live memory that fail (the wrong call
 *                    for its kind): it stays live, and is freed later
 *   churn T N        T threads that allocate and free N times each,
 *                    handing addresses to each other through the allocator
 *
 * Exits 0 when every call did what the situation needs (failures it makes
 * on purpose included); on stderr, what did not.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static int failures;

static void rt_check(cudaError_t status, const char *what)
{
	if (status == cudaSuccess)
		return;
	fprintf(stderr, "accounting: %s: %s\n", what, cudaGetErrorName(status));
	failures++;
}

static void cu_check(CUresult status, const char *what)
{
	const char *name = NULL;

	if (status == CUDA_SUCCESS)
		return;
	if (cuGetErrorName(status, &name) != CUDA_SUCCESS)
		name = "an unknown error";
	fprintf(stderr, "accounting: %s: %s\n", what, name);
	failures++;
}

/* A call that must fail. */
static void must_fail(int failed, const char *what)
{
	if (failed)
		return;
	fprintf(stderr, "accounting: %s: succeeded, should have failed\n", what);
	failures++;
}

/* ------------------------------------------------------------ releases */

static int release_fails(void)
{
	void *device = NULL, *pinned = NULL;

	rt_check(cudaMalloc(&device, 3 * MIB), "cudaMalloc");
	rt_check(cudaMallocHost(&pinned, 8192), "cudaMallocHost");
	must_fail(cudaHostUnregister(device) != cudaSuccess, "cudaHostUnregister(device memory)");
	must_fail(cudaFreeHost(device) != cudaSuccess, "cudaFreeHost(device memory)");
	must_fail(cuMemFree((CUdeviceptr)(uintptr_t)pinned) != CUDA_SUCCESS,
	          "cuMemFree(pinned host memory)");
	(void)cudaGetLastError();
	/* Still there, for both APIs. */
	rt_check(cudaMemset(device, 0, 3 * MIB), "cudaMemset");
	cu_check(cuMemsetD8((CUdeviceptr)(uintptr_t)device, 1, 4096), "cuMemsetD8");
	rt_check(cudaFree(device), "cudaFree");
	rt_check(cudaFreeHost(pinned), "cudaFreeHost");
	return failures != 0;
}

/* ------------------------------------------------------------ threads */

struct churner {
	pthread_barrier_t *start;
	long rounds;
	int id;
	int errors;
};

/* Small sizes share the simulator's 2 MiB chunks: a freed address is given
 * to whichever thread allocates next. */
static void *churn_one(void *arg)
{
	static const size_t sizes[] = { 512, 1024, 4096, 512, 2048, 3 * MIB };
	struct churner *c = arg;

	pthread_barrier_wait(c->start);
	for (long i = 0; i < c->rounds; i++) {
		void *p = NULL, *q = NULL;

		c->errors += cudaMalloc(&p, sizes[(i + c->id) % 6]) != cudaSuccess;
		c->errors += cudaMalloc(&q, sizes[(i + 2 * c->id + 1) % 6]) != cudaSuccess;
		c->errors += cudaFree(p) != cudaSuccess;
		c->errors += cudaFree(q) != cudaSuccess;
	}
	return NULL;
}

static int churn(int threads, long rounds)
{
	struct churner churners[64];
	pthread_t ids[64];
	pthread_barrier_t start;
	void *warm = NULL;

	if (threads < 1 || threads > 64)
		return 2;
	rt_check(cudaMalloc(&warm, 512), "cudaMalloc");
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++) {
		churners[i] = (struct churner){ &start, rounds, i, 0 };
		if (pthread_create(&ids[i], NULL, churn_one, &churners[i]) != 0)
			return 1;
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(ids[i], NULL);
		if (churners[i].errors) {
			fprintf(stderr, "accounting: thread %d: %d calls failed\n", i,
			        churners[i].errors);
			failures++;
		}
	}
	rt_check(cudaFree(warm), "cudaFree");
	return failures != 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "release-fails"))
		return release_fails();
	if (!strcmp(mode, "churn") && argc == 4)
		return churn(atoi(argv[2]), atol(argv[3]));
	fprintf(stderr, "usage: accounting release-fails|churn THREADS ROUNDS\n");
	return 2;
}
