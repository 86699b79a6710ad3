/* SPDX-License-Identifier: MIT */
/*
 * init-threads.c - several threads call cuInit at the same moment, then use
 * the driver. tests/sim/injection.sh runs it with CUDA_INJECTION64_PATH set
 * and checks that InitializeInjection ran exactly once; with a missing or
 * unusable injection library the output must stay what it is without one.
 *
 * Prints TAP; the output depends on nothing that changes between runs.
 */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>

#include "tap.h"

#define THREADS 8

static pthread_barrier_t start_line;

struct result {
	CUresult init;
	CUresult count_result;
	int count;
};

static void *init_thread(void *arg)
{
	struct result *res = arg;

	pthread_barrier_wait(&start_line);
	res->init = cuInit(0);
	res->count_result = cuDeviceGetCount(&res->count);
	return NULL;
}

int main(void)
{
	pthread_t threads[THREADS];
	struct result results[THREADS] = { 0 };
	int started = 0, version = 0;

	if (pthread_barrier_init(&start_line, NULL, THREADS) != 0) {
		printf("Bail out! pthread_barrier_init\n");
		return 1;
	}
	for (int i = 0; i < THREADS; i++) {
		if (pthread_create(&threads[i], NULL, init_thread, &results[i]) != 0)
			break;
		started++;
	}
	if (!tap_ok(started == THREADS, "%d threads started", THREADS)) {
		printf("Bail out! cannot start the threads (they wait for each other)\n");
		return 1;
	}
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&start_line);

	for (int i = 0; i < THREADS; i++) {
		tap_ok(results[i].init == CUDA_SUCCESS,
		       "thread %d: cuInit returns CUDA_SUCCESS (%d)", i, (int)results[i].init);
		tap_ok(results[i].count_result == CUDA_SUCCESS && results[i].count >= 1,
		       "thread %d: cuDeviceGetCount sees a device (%d, %d)", i,
		       (int)results[i].count_result, results[i].count);
	}
	tap_ok(cuInit(0) == CUDA_SUCCESS, "a later cuInit has no effect and succeeds");
	tap_ok(cuDriverGetVersion(&version) == CUDA_SUCCESS && version >= 13000,
	       "cuDriverGetVersion works after cuInit");
	return tap_done();
}
