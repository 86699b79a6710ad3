/* SPDX-License-Identifier: MIT */
/*
 * accounting.c - the situations in which a trace's memory accounting used
 * to lie, as a program makes them through the runtime and driver APIs, run
 * on the simulated GPU by tests/trace/accounting.sh (and friends), which
 * compare the trace with the simulator's ledger:
 *
 *   reset            allocations of every kind a context owns, a failed
 *                    release of one of them, then cudaDeviceReset with
 *                    them live; stream-ordered memory outlives it
 *   ctx-destroy      two created contexts with live memory; cuCtxDestroy
 *                    of one frees its memory, not the other's
 *   primary          a primary context retained twice: the first
 *                    cuDevicePrimaryCtxRelease frees nothing, the last its
 *                    memory; then cuDevicePrimaryCtxReset with live memory
 *   exit-live        allocations still live when the program exits
 *   vmm              physical memory released while mapped, mapped twice,
 *                    retained through a mapping, released after its unmap;
 *                    a failed unmap
 *   wait FIFO        allocations of every kind, "ready" on stdout, then
 *                    wait until a line can be read from FIFO; free some,
 *                    allocate more, exit
 *   flight FIFO N    a live set, then N memsets on it (a flight recorder's
 *                    ring buffer wraps), "ready", wait on FIFO as above
 *   exit-race N      two threads that copy and memset N times each, then
 *                    both call exit() at once
 *   release-fails    releases of live memory that fail (the wrong call
 *                    for its kind): it stays live, and is freed later
 *   churn T N        T threads that allocate and free N times each,
 *                    handing addresses to each other through the allocator
 *   churn-exit T WHO T threads that churn as above without end; once each
 *                    made 100 rounds, exit() is called while they run: by
 *                    main (status 5) when WHO is "main", by the first
 *                    thread (status 7) when WHO is "thread"
 *   churn-join T     T threads that churn as above; once each made 100
 *                    rounds, main calls exit(3), whose atexit handler
 *                    (registered before any CUDA call, so run after
 *                    cudatrace's) stops and joins them: their calls go on
 *                    while the process exits
 *   exit-waiting sync|free
 *                    a thread waits for a host function that sleeps 5 s,
 *                    in cudaStreamSynchronize, or in the cudaFree that
 *                    waits for the device; main calls exit(4) while it
 *                    waits
 *
 * Exits 0 when every call did what the situation needs (failures it makes
 * on purpose included); on stderr, what did not.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
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

/* Wait until a line can be read from fifo (the test has done its part). */
static void wait_on(const char *fifo)
{
	char line[64];
	FILE *in;

	printf("ready\n");
	fflush(stdout);
	in = fopen(fifo, "r");
	if (!in) {
		perror(fifo);
		failures++;
		return;
	}
	if (!fgets(line, sizeof(line), in))
		failures++;
	fclose(in);
}

/* ------------------------------------------------------------ runtime */

struct rt_set {
	void *device, *pitch, *managed, *pinned, *async;
	size_t pitch_bytes;
	char *registered; /* malloc'd, registered */
	cudaStream_t stream;
};

static void rt_allocate(struct rt_set *s)
{
	rt_check(cudaMalloc(&s->device, 3 * MIB), "cudaMalloc");
	rt_check(cudaMallocPitch(&s->pitch, &s->pitch_bytes, 1000, 30), "cudaMallocPitch");
	rt_check(cudaMallocManaged(&s->managed, 5000, cudaMemAttachGlobal), "cudaMallocManaged");
	rt_check(cudaMallocHost(&s->pinned, 64 * 1024), "cudaMallocHost");
	s->registered = malloc(2 * MIB);
	if (s->registered)
		rt_check(cudaHostRegister(s->registered, 2 * MIB, cudaHostRegisterDefault),
		         "cudaHostRegister");
	rt_check(cudaStreamCreate(&s->stream), "cudaStreamCreate");
	rt_check(cudaMallocAsync(&s->async, 700 * 1024, s->stream), "cudaMallocAsync");
	rt_check(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize");
}

static int reset(void)
{
	struct rt_set s;
	void *again = NULL, *small = NULL;

	rt_allocate(&s);
	rt_check(cudaMalloc(&small, 512), "cudaMalloc");
	rt_check(cudaFree(small), "cudaFree");
	/* A release that fails on a live allocation: it stays live. */
	must_fail(cudaHostUnregister(s.device) != cudaSuccess, "cudaHostUnregister(device memory)");
	(void)cudaGetLastError();
	rt_check(cudaDeviceReset(), "cudaDeviceReset");
	/* A new primary context; the stream-ordered allocation is the
	 * pool's and stays. */
	rt_check(cudaMalloc(&again, 3 * MIB), "cudaMalloc after cudaDeviceReset");
	rt_check(cudaMemset(again, 1, 3 * MIB), "cudaMemset");
	rt_check(cudaFree(again), "cudaFree");
	free(s.registered);
	return failures != 0;
}

static int exit_live(void)
{
	struct rt_set s;

	rt_allocate(&s);
	rt_check(cudaMemset(s.device, 0, 3 * MIB), "cudaMemset");
	rt_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	return failures != 0;
}

/* ------------------------------------------------------------ driver */

struct cu_set {
	CUdeviceptr device, pitch, managed;
	size_t pitch_bytes;
	void *pinned, *host_alloc;
	char *registered;
};

static void cu_allocate(struct cu_set *s, size_t scale)
{
	cu_check(cuMemAlloc(&s->device, scale * MIB), "cuMemAlloc");
	cu_check(cuMemAllocPitch(&s->pitch, &s->pitch_bytes, 1000, 20, 4), "cuMemAllocPitch");
	cu_check(cuMemAllocManaged(&s->managed, scale * 4096, CU_MEM_ATTACH_GLOBAL),
	         "cuMemAllocManaged");
	cu_check(cuMemAllocHost(&s->pinned, scale * 8192), "cuMemAllocHost");
	cu_check(cuMemHostAlloc(&s->host_alloc, 4096, 0), "cuMemHostAlloc");
	s->registered = malloc(MIB);
	if (s->registered)
		cu_check(cuMemHostRegister(s->registered, MIB, 0), "cuMemHostRegister");
}

static void cu_free(struct cu_set *s)
{
	cu_check(cuMemFree(s->device), "cuMemFree");
	cu_check(cuMemFree(s->pitch), "cuMemFree(pitch)");
	cu_check(cuMemFree(s->managed), "cuMemFree(managed)");
	cu_check(cuMemFreeHost(s->pinned), "cuMemFreeHost");
	cu_check(cuMemFreeHost(s->host_alloc), "cuMemFreeHost(cuMemHostAlloc)");
	cu_check(cuMemHostUnregister(s->registered), "cuMemHostUnregister");
}

static int ctx_destroy(void)
{
	struct cu_set a, b;
	CUcontext ctx_a, ctx_b;
	CUdevice dev;

	cu_check(cuInit(0), "cuInit");
	cu_check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	cu_check(cuCtxCreate(&ctx_a, NULL, 0, dev), "cuCtxCreate");
	cu_allocate(&a, 1);
	cu_check(cuCtxCreate(&ctx_b, NULL, 0, dev), "cuCtxCreate");
	cu_allocate(&b, 2);
	cu_check(cuMemFree(b.device), "cuMemFree");
	cu_check(cuCtxDestroy(ctx_a), "cuCtxDestroy");
	/* b's memory is still b's. */
	cu_check(cuCtxSetCurrent(ctx_b), "cuCtxSetCurrent");
	cu_check(cuMemAlloc(&b.device, 2 * MIB), "cuMemAlloc");
	cu_free(&b);
	cu_check(cuCtxDestroy(ctx_b), "cuCtxDestroy");
	free(a.registered);
	free(b.registered);
	return failures != 0;
}

static int primary(void)
{
	struct cu_set a, b;
	CUcontext ctx;
	CUdevice dev;

	cu_check(cuInit(0), "cuInit");
	cu_check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	cu_check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	cu_check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	cu_check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	cu_allocate(&a, 1);
	/* Retained once more: nothing goes. */
	cu_check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");
	cu_check(cuMemsetD8(a.device, 3, MIB), "cuMemsetD8");
	/* The last reference: everything goes. */
	cu_check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease (last)");
	/* Reset, which keeps the reference. */
	cu_check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	cu_check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	cu_allocate(&b, 2);
	cu_check(cuDevicePrimaryCtxReset(dev), "cuDevicePrimaryCtxReset");
	cu_check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	cu_check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	cu_check(cuMemAlloc(&b.device, MIB), "cuMemAlloc");
	cu_check(cuMemFree(b.device), "cuMemFree");
	cu_check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");
	cu_check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");
	free(a.registered);
	free(b.registered);
	return failures != 0;
}

/* ------------------------------------------------------------ VMM */

struct vmm {
	CUmemAllocationProp prop;
	CUmemAccessDesc access;
	size_t granularity;
};

static void vmm_init(struct vmm *v, CUdevice dev)
{
	memset(v, 0, sizeof(*v));
	v->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	v->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	v->prop.location.id = dev;
	v->access.location = v->prop.location;
	v->access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	cu_check(cuMemGetAllocationGranularity(&v->granularity, &v->prop,
	                                       CU_MEM_ALLOC_GRANULARITY_MINIMUM),
	         "cuMemGetAllocationGranularity");
}

static CUdeviceptr vmm_map(struct vmm *v, CUdeviceptr va, size_t size,
                           CUmemGenericAllocationHandle handle)
{
	cu_check(cuMemMap(va, size, 0, handle, 0), "cuMemMap");
	cu_check(cuMemSetAccess(va, size, &v->access, 1), "cuMemSetAccess");
	return va;
}

static void vmm_use(CUdeviceptr va, size_t size)
{
	cu_check(cuMemsetD8(va, 0x5a, size), "cuMemsetD8 (mapped)");
	cu_check(cuCtxSynchronize(), "cuCtxSynchronize");
}

static int vmm(void)
{
	CUmemGenericAllocationHandle h, retained;
	CUdeviceptr va;
	CUcontext ctx;
	CUdevice dev;
	struct vmm v;
	size_t size;

	cu_check(cuInit(0), "cuInit");
	cu_check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	cu_check(cuCtxCreate(&ctx, NULL, 0, dev), "cuCtxCreate");
	vmm_init(&v, dev);
	size = 2 * v.granularity;
	cu_check(cuMemAddressReserve(&va, 4 * size, 0, 0, 0), "cuMemAddressReserve");

	/* Released right after it is mapped: used, then freed by its unmap. */
	cu_check(cuMemCreate(&h, size, &v.prop, 0), "cuMemCreate");
	vmm_map(&v, va, size, h);
	cu_check(cuMemRelease(h), "cuMemRelease (mapped)");
	vmm_use(va, size);
	/* A failed unmap (half a mapping) changes nothing. */
	must_fail(cuMemUnmap(va, v.granularity) != CUDA_SUCCESS, "cuMemUnmap (half a mapping)");
	vmm_use(va, size);
	cu_check(cuMemUnmap(va, size), "cuMemUnmap (frees)");

	/* Mapped twice and released: the second unmap frees it. */
	cu_check(cuMemCreate(&h, size, &v.prop, 0), "cuMemCreate");
	vmm_map(&v, va, size, h);
	vmm_map(&v, va + 2 * size, size, h);
	cu_check(cuMemRelease(h), "cuMemRelease (mapped twice)");
	cu_check(cuMemUnmap(va, size), "cuMemUnmap (first)");
	vmm_use(va + 2 * size, size);
	cu_check(cuMemUnmap(va + 2 * size, size), "cuMemUnmap (last)");

	/* Retained through its mapping: the last cuMemRelease frees it. */
	cu_check(cuMemCreate(&h, size, &v.prop, 0), "cuMemCreate");
	vmm_map(&v, va + size, size, h);
	cu_check(cuMemRetainAllocationHandle(&retained, (void *)(uintptr_t)(va + size)),
	         "cuMemRetainAllocationHandle");
	cu_check(cuMemRelease(h), "cuMemRelease (retained)");
	cu_check(cuMemUnmap(va + size, size), "cuMemUnmap (still held)");
	cu_check(cuMemRelease(retained), "cuMemRelease (last)");

	/* The ordinary order: unmapped, then released. */
	cu_check(cuMemCreate(&h, size, &v.prop, 0), "cuMemCreate");
	vmm_map(&v, va, size, h);
	vmm_use(va, size);
	cu_check(cuMemUnmap(va, size), "cuMemUnmap");
	cu_check(cuMemRelease(h), "cuMemRelease (unmapped)");
	/* A handle released twice: the second fails. */
	must_fail(cuMemRelease(h) != CUDA_SUCCESS, "cuMemRelease (again)");

	cu_check(cuMemAddressFree(va, 4 * size), "cuMemAddressFree");
	cu_check(cuCtxDestroy(ctx), "cuCtxDestroy");
	return failures != 0;
}

/* ------------------------------------------------------------ late sessions */

struct vmm_live {
	CUmemGenericAllocationHandle handle;
	CUdeviceptr va;
	size_t size;
};

/* Physical memory mapped and released, and a reservation for it. */
static void vmm_live_make(struct vmm_live *l)
{
	CUcontext ctx;
	CUdevice dev;
	struct vmm v;

	cu_check(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
	cu_check(cuCtxGetDevice(&dev), "cuCtxGetDevice");
	vmm_init(&v, dev);
	l->size = v.granularity;
	cu_check(cuMemAddressReserve(&l->va, l->size, 0, 0, 0), "cuMemAddressReserve");
	cu_check(cuMemCreate(&l->handle, l->size, &v.prop, 0), "cuMemCreate");
	vmm_map(&v, l->va, l->size, l->handle);
	cu_check(cuMemRelease(l->handle), "cuMemRelease (mapped)");
}

static void vmm_live_end(struct vmm_live *l)
{
	cu_check(cuMemUnmap(l->va, l->size), "cuMemUnmap");
	cu_check(cuMemAddressFree(l->va, l->size), "cuMemAddressFree");
}

static int wait_session(const char *fifo)
{
	struct rt_set s;
	struct vmm_live l;
	void *later = NULL;

	rt_allocate(&s);
	vmm_live_make(&l);
	wait_on(fifo);
	rt_check(cudaFree(s.device), "cudaFree");
	rt_check(cudaFreeAsync(s.async, s.stream), "cudaFreeAsync");
	rt_check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
	rt_check(cudaMalloc(&later, 5 * MIB), "cudaMalloc");
	rt_check(cudaFree(later), "cudaFree");
	vmm_live_end(&l);
	rt_check(cudaFreeHost(s.pinned), "cudaFreeHost");
	rt_check(cudaHostUnregister(s.registered), "cudaHostUnregister");
	free(s.registered);
	return failures != 0;
}

static int flight(const char *fifo, long memsets)
{
	struct rt_set s;
	struct vmm_live l;

	rt_allocate(&s);
	vmm_live_make(&l);
	for (long i = 0; i < memsets; i++) {
		void *p = NULL;

		/* Allocations come and go while the ring buffer turns. */
		if (i % 100 == 0) {
			rt_check(cudaMalloc(&p, 4096), "cudaMalloc");
			rt_check(cudaFree(p), "cudaFree");
		}
		rt_check(cudaMemsetAsync(s.device, (int)i, 4096, s.stream), "cudaMemsetAsync");
	}
	rt_check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
	wait_on(fifo);
	vmm_live_end(&l);
	rt_check(cudaFree(s.device), "cudaFree");
	free(s.registered);
	return failures != 0;
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

struct racer {
	pthread_barrier_t *ready;
	long rounds;
	int id;
};

/* Copies and memsets whose GPU records are still in CUPTI's buffers when
 * both threads call exit(). */
static void *race_to_exit(void *arg)
{
	struct racer *r = arg;
	void *device = NULL, *pinned = NULL;
	cudaStream_t stream;

	rt_check(cudaStreamCreate(&stream), "cudaStreamCreate");
	rt_check(cudaMalloc(&device, MIB), "cudaMalloc");
	rt_check(cudaMallocHost(&pinned, MIB), "cudaMallocHost");
	for (long i = 0; i < r->rounds; i++) {
		rt_check(cudaMemcpyAsync(device, pinned, 4096, cudaMemcpyHostToDevice, stream),
		         "cudaMemcpyAsync");
		rt_check(cudaMemsetAsync(device, r->id, 4096, stream), "cudaMemsetAsync");
	}
	rt_check(cudaMemcpy(pinned, device, 4096, cudaMemcpyDeviceToHost), "cudaMemcpy");
	rt_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	pthread_barrier_wait(r->ready);
	exit(failures != 0);
}

static int exit_race(long rounds)
{
	pthread_barrier_t ready;
	struct racer racers[2];
	pthread_t threads[2];

	pthread_barrier_init(&ready, NULL, 2);
	for (int i = 0; i < 2; i++) {
		racers[i] = (struct racer){ &ready, rounds, i + 1 };
		if (pthread_create(&threads[i], NULL, race_to_exit, &racers[i]) != 0)
			return 1;
	}
	/* The racers exit the process. */
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	return 1;
}

struct churner {
	pthread_barrier_t *start;
	long rounds;
	int id;
	int errors;
	int exit_status; /* churn-exit: this thread exits with it after 100 rounds; 0: no */
};

/* churn-exit: threads that made their first 100 rounds. */
static int churners_warm;
/* churn-join: set by the atexit handler, for the churners to end. */
static int churn_stop;

/* Small sizes share the simulator's 2 MiB chunks: a freed address is given
 * to whichever thread allocates next. */
static void *churn_one(void *arg)
{
	static const size_t sizes[] = { 512, 1024, 4096, 512, 2048, 3 * MIB };
	struct churner *c = arg;

	pthread_barrier_wait(c->start);
	for (long i = 0; i < c->rounds && !__atomic_load_n(&churn_stop, __ATOMIC_ACQUIRE); i++) {
		void *p = NULL, *q = NULL;

		c->errors += cudaMalloc(&p, sizes[(i + c->id) % 6]) != cudaSuccess;
		c->errors += cudaMalloc(&q, sizes[(i + 2 * c->id + 1) % 6]) != cudaSuccess;
		c->errors += cudaFree(p) != cudaSuccess;
		c->errors += cudaFree(q) != cudaSuccess;
		if (i == 99)
			__atomic_add_fetch(&churners_warm, 1, __ATOMIC_RELEASE);
		if (i == 99 && c->exit_status)
			exit(c->exit_status);
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
		churners[i] = (struct churner){ &start, rounds, i, 0, 0 };
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

/* exit() while THREADS threads allocate and free; from main or from a thread. */
static int churn_exit(int threads, const char *who)
{
	struct churner churners[64];
	pthread_t id;
	pthread_barrier_t start;
	bool from_thread = !strcmp(who, "thread");

	if (threads < 1 || threads > 64 || (!from_thread && strcmp(who, "main")))
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++) {
		churners[i] =
		    (struct churner){ &start, LONG_MAX, i, 0, from_thread && i == 0 ? 7 : 0 };
		if (pthread_create(&id, NULL, churn_one, &churners[i]) != 0)
			return 1;
	}
	while (__atomic_load_n(&churners_warm, __ATOMIC_ACQUIRE) < threads)
		usleep(1000);
	if (!from_thread)
		exit(5);
	for (;;)
		pause();
}

static struct churner joined[64];
static pthread_t joined_ids[64];
static int joined_count;

/* churn-join's atexit handler: the churners stopped and joined. */
static void stop_and_join(void)
{
	__atomic_store_n(&churn_stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < joined_count; i++)
		pthread_join(joined_ids[i], NULL);
}

/* exit() whose atexit handler joins THREADS threads that allocate and free. */
static int churn_join(int threads)
{
	pthread_barrier_t start;

	if (threads < 1 || threads > 64)
		return 2;
	if (atexit(stop_and_join) != 0)
		return 1;
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++) {
		joined[i] = (struct churner){ &start, LONG_MAX, i, 0, 0 };
		if (pthread_create(&joined_ids[i], NULL, churn_one, &joined[i]) != 0)
			return 1;
		joined_count++;
	}
	while (__atomic_load_n(&churners_warm, __ATOMIC_ACQUIRE) < threads)
		usleep(1000);
	exit(3);
}

static void CUDART_CB sleep_5s(void *unused)
{
	(void)unused;
	sleep(5);
}

static int waiting;

/* ARG non-NULL: the memory to free while the host function runs. */
static void *wait_for_host(void *arg)
{
	cudaStream_t stream;

	rt_check(cudaStreamCreate(&stream), "cudaStreamCreate");
	rt_check(cudaLaunchHostFunc(stream, sleep_5s, NULL), "cudaLaunchHostFunc");
	__atomic_store_n(&waiting, 1, __ATOMIC_RELEASE);
	if (arg)
		rt_check(cudaFree(arg), "cudaFree");
	else
		rt_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	return NULL;
}

/* exit() while a thread is inside a call that does not return soon: a
 * wait (HOW "sync") or a release (HOW "free"). */
static int exit_waiting(const char *how)
{
	void *kept = NULL, *freed = NULL;
	pthread_t id;

	if (strcmp(how, "sync") && strcmp(how, "free"))
		return 2;
	rt_check(cudaMalloc(&kept, MIB), "cudaMalloc");
	rt_check(cudaMalloc(&freed, MIB), "cudaMalloc");
	if (pthread_create(&id, NULL, wait_for_host, strcmp(how, "free") ? NULL : freed) != 0)
		return 1;
	while (!__atomic_load_n(&waiting, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(100000); /* inside cudaStreamSynchronize by now */
	exit(4);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "reset"))
		return reset();
	if (!strcmp(mode, "ctx-destroy"))
		return ctx_destroy();
	if (!strcmp(mode, "primary"))
		return primary();
	if (!strcmp(mode, "exit-live"))
		return exit_live();
	if (!strcmp(mode, "vmm"))
		return vmm();
	if (!strcmp(mode, "wait") && argc == 3)
		return wait_session(argv[2]);
	if (!strcmp(mode, "flight") && argc == 4)
		return flight(argv[2], atol(argv[3]));
	if (!strcmp(mode, "exit-race") && argc == 3)
		return exit_race(atol(argv[2]));
	if (!strcmp(mode, "release-fails"))
		return release_fails();
	if (!strcmp(mode, "churn") && argc == 4)
		return churn(atoi(argv[2]), atol(argv[3]));
	if (!strcmp(mode, "churn-exit") && argc == 4)
		return churn_exit(atoi(argv[2]), argv[3]);
	if (!strcmp(mode, "churn-join") && argc == 3)
		return churn_join(atoi(argv[2]));
	if (!strcmp(mode, "exit-waiting") && argc == 3)
		return exit_waiting(argv[2]);
	fprintf(stderr,
	        "usage: accounting reset|ctx-destroy|primary|exit-live|vmm|wait FIFO|"
	        "flight FIFO MEMSETS|exit-race ROUNDS|release-fails|churn THREADS ROUNDS|"
	        "churn-exit THREADS main|thread|churn-join THREADS|exit-waiting sync|free\n");
	return 2;
}
