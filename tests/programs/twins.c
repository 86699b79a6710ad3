/* SPDX-License-Identifier: MIT */
/*
 * twins.c - the per-thread default stream twins (NAME_ptds, NAME_ptsz) of
 * the simulated driver and runtime, as a gcc program linked against the
 * toolkit's libraries. argv[1] lists every such export of libcuda.so.1 and
 * libcudart.so.13, "driver NAME" or "runtime NAME" a line (sim/twins.sh
 * takes them from nm -D).
 *
 * Each twin, called with all-zero arguments in a child process, is
 * reported by CUPTI under its own name and callback id (the id whose
 * cuptiGetCallbackName is NAME, or NAME_vNNNNN for the runtime, the highest
 * version), ENTER then EXIT; or not at all when CUPTI has no id for it.
 * Then, on real arguments: a _ptds call, which takes no stream, runs on the
 * calling thread's per-thread stream, as does a _ptsz call given stream 0
 * ("Per-thread default stream",
 * https://docs.nvidia.com/cuda/cuda-runtime-api/stream-sync-behavior.html),
 * where their legacy functions use the legacy stream (the ledger's
 * stream=, CUDASIM_LEDGER); and cudaGetDriverEntryPoint_ptsz hands out
 * the driver's twins.
 *
 * Prints TAP.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cupti-seen.h"
#include "tap.h"

#define NAME_MAX_LEN 128

/* The version of a runtime callback name that is NAME_vNNNNN, or -1. */
static long runtime_version(const char *cb_name, const char *name)
{
	size_t len = strlen(name);
	char *end;
	long version;

	if (strncmp(cb_name, name, len) != 0 || strncmp(cb_name + len, "_v", 2) != 0)
		return -1;
	version = strtol(cb_name + len + 2, &end, 10);
	return *end == '\0' && end != cb_name + len + 2 ? version : -1;
}

/* The callback id CUPTI names NAME by (0: none). */
static CUpti_CallbackId expected_cbid(CUpti_CallbackDomain domain, const char *name)
{
	CUpti_CallbackId last = domain == CUPTI_CB_DOMAIN_DRIVER_API
	                            ? (CUpti_CallbackId)CUPTI_DRIVER_TRACE_CBID_SIZE
	                            : (CUpti_CallbackId)CUPTI_RUNTIME_TRACE_CBID_SIZE;
	CUpti_CallbackId found = 0;
	long best = -1;

	for (CUpti_CallbackId id = 1; id < last; id++) {
		const char *cb_name = NULL;
		long version;

		if (cuptiGetCallbackName(domain, id, &cb_name) != CUPTI_SUCCESS || !cb_name)
			continue;
		if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
			if (strcmp(cb_name, name) == 0)
				return id;
			continue;
		}
		version = runtime_version(cb_name, name);
		if (version > best) {
			best = version;
			found = id;
		}
	}
	return found;
}

static int seen_is(const struct seen *s, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                   const char *name)
{
	return s->domain == domain && s->cbid == cbid && strcmp(s->name, name) == 0;
}

typedef long (*any_fn)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                       uintptr_t, uintptr_t, uintptr_t, uintptr_t);

/*
 * In the child: call the twin with zero arguments (on x86-64 a function
 * reads the arguments it has; every one is 0 or a NULL pointer) and check
 * what CUPTI saw. Exit status 0 when it is the twin's own report.
 */
static void child_call(void *fn, CUpti_CallbackDomain domain, const char *name)
{
	CUpti_CallbackId cbid = expected_cbid(domain, name);
	int good;

	nseen = 0;
	((any_fn)fn)(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	if (cbid == 0) {
		good = nseen == 0;
		if (!good)
			printf("# %s: no callback id, yet CUPTI saw %s\n", name, seen[0].name);
	} else {
		good = nseen >= 2 && seen[0].site == CUPTI_API_ENTER &&
		       seen[nseen - 1].site == CUPTI_API_EXIT &&
		       seen_is(&seen[0], domain, cbid, name) &&
		       seen_is(&seen[nseen - 1], domain, cbid, name);
		if (!good)
			printf("# %s: want callback id %u, CUPTI saw %d callbacks, the first %s "
			       "(%u)\n",
			       name, cbid, nseen, nseen ? seen[0].name : "-",
			       nseen ? seen[0].cbid : 0);
	}
	fflush(stdout);
	_exit(good ? 0 : 1);
}

/* One test per line of LIST. */
static void check_listed(const char *list)
{
	char line[256];
	FILE *f = fopen(list, "r");

	if (!tap_ok(f != NULL, "the list of twins %s opens", list))
		return;
	while (fgets(line, sizeof(line), f)) {
		char lib[16];
		char name[NAME_MAX_LEN];
		CUpti_CallbackDomain domain;
		void *fn;
		pid_t pid;
		int status = -1;

		if (sscanf(line, "%15s %127s", lib, name) != 2)
			continue;
		domain = strcmp(lib, "driver") == 0 ? CUPTI_CB_DOMAIN_DRIVER_API
		                                    : CUPTI_CB_DOMAIN_RUNTIME_API;
		fn = dlsym(RTLD_DEFAULT, name);
		if (!tap_ok(fn != NULL, "%s is exported", name))
			continue;
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			child_call(fn, domain, name);
		if (pid > 0)
			waitpid(pid, &status, 0);
		tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "%s: CUPTI reports it under its own name and callback id", name);
	}
	fclose(f);
}

/* The stream= of the last ledger line of OP by API; -1 when none. */
static long ledger_stream(const char *op, const char *api)
{
	const char *path = getenv("CUDASIM_LEDGER");
	char want_op[64];
	char want_api[NAME_MAX_LEN];
	char line[1024];
	long stream = -1;
	FILE *f = path ? fopen(path, "r") : NULL;

	if (!f)
		return -1;
	snprintf(want_op, sizeof(want_op), " op=%s ", op);
	snprintf(want_api, sizeof(want_api), " api=%s ", api);
	while (fgets(line, sizeof(line), f)) {
		const char *s = strstr(line, " stream=");

		if (strstr(line, want_op) && strstr(line, want_api) && s)
			stream = strtol(s + 8, NULL, 10);
	}
	fclose(f);
	return stream;
}

/* The exports cuda.h declares only under per-thread compilation. */
typedef CUresult (*memset_ptds_fn)(CUdeviceptr, unsigned char, size_t);
typedef cudaError_t (*memcpy_ptds_fn)(void *, const void *, size_t, enum cudaMemcpyKind);
typedef cudaError_t (*memcpy_async_ptsz_fn)(void *, const void *, size_t, enum cudaMemcpyKind,
                                            cudaStream_t);
typedef cudaError_t (*entry_point_ptsz_fn)(const char *, void **, unsigned long long,
                                           enum cudaDriverEntryPointQueryResult *);

/* The streams the twins run on, against their legacy functions'. */
static void check_streams(void)
{
	memcpy_ptds_fn memcpy_ptds = (memcpy_ptds_fn)dlsym(RTLD_DEFAULT, "cudaMemcpy_ptds");
	memcpy_async_ptsz_fn memcpy_async_ptsz =
	    (memcpy_async_ptsz_fn)dlsym(RTLD_DEFAULT, "cudaMemcpyAsync_ptsz");
	memset_ptds_fn memset_ptds = (memset_ptds_fn)dlsym(RTLD_DEFAULT, "cuMemsetD8_v2_ptds");
	char host[256] = { 0 };
	void *dev = NULL;
	long legacy;
	long per_thread;

	if (!tap_ok(memcpy_ptds && memcpy_async_ptsz && memset_ptds, "the twins are exported"))
		return;
	if (!tap_ok(cudaMalloc(&dev, sizeof(host)) == cudaSuccess, "cudaMalloc"))
		return;
	tap_ok(cudaMemcpy(dev, host, sizeof(host), cudaMemcpyHostToDevice) == cudaSuccess,
	       "cudaMemcpy");
	tap_ok(cudaMemcpyAsync(dev, host, sizeof(host), cudaMemcpyHostToDevice,
	                       cudaStreamPerThread) == cudaSuccess,
	       "cudaMemcpyAsync on cudaStreamPerThread");
	tap_ok(memcpy_ptds(dev, host, sizeof(host), cudaMemcpyHostToDevice) == cudaSuccess,
	       "cudaMemcpy_ptds");
	tap_ok(memcpy_async_ptsz(dev, host, sizeof(host), cudaMemcpyHostToDevice, 0) == cudaSuccess,
	       "cudaMemcpyAsync_ptsz on stream 0");
	tap_ok(cuMemsetD8((CUdeviceptr)dev, 1, sizeof(host)) == CUDA_SUCCESS, "cuMemsetD8");
	tap_ok(memset_ptds((CUdeviceptr)dev, 1, sizeof(host)) == CUDA_SUCCESS,
	       "cuMemsetD8_v2_ptds");
	tap_ok(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize");

	legacy = ledger_stream("memcpy", "cudaMemcpy");
	per_thread = ledger_stream("memcpy", "cudaMemcpyAsync");
	tap_ok(legacy >= 0 && per_thread >= 0 && legacy != per_thread,
	       "the legacy stream (%ld) and the per-thread stream (%ld) differ", legacy,
	       per_thread);
	tap_ok(ledger_stream("memcpy", "cudaMemcpy_ptds") == per_thread,
	       "cudaMemcpy_ptds copies on the per-thread stream");
	tap_ok(ledger_stream("memcpy", "cudaMemcpyAsync_ptsz") == per_thread,
	       "cudaMemcpyAsync_ptsz copies on the per-thread stream for stream 0");
	tap_ok(ledger_stream("memset", "cuMemsetD8_v2") == legacy,
	       "cuMemsetD8 sets on the legacy stream");
	tap_ok(ledger_stream("memset", "cuMemsetD8_v2_ptds") == per_thread,
	       "cuMemsetD8_v2_ptds sets on the per-thread stream");
	cudaFree(dev);
}

/* cudaGetDriverEntryPoint_ptsz: cudaEnableDefault means per-thread. */
static void check_entry_points(void)
{
	entry_point_ptsz_fn entry_point_ptsz =
	    (entry_point_ptsz_fn)dlsym(RTLD_DEFAULT, "cudaGetDriverEntryPoint_ptsz");
	enum cudaDriverEntryPointQueryResult status;
	void *fn = NULL;

	if (!tap_ok(entry_point_ptsz != NULL, "cudaGetDriverEntryPoint_ptsz is exported"))
		return;
	tap_ok(entry_point_ptsz("cuMemcpy", &fn, cudaEnableDefault, &status) == cudaSuccess &&
	           fn == dlsym(RTLD_DEFAULT, "cuMemcpy_ptds"),
	       "cudaGetDriverEntryPoint_ptsz(cuMemcpy) is cuMemcpy_ptds");
	fn = NULL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	tap_ok(cudaGetDriverEntryPoint("cuMemcpy", &fn, cudaEnableDefault, &status) ==
	               cudaSuccess &&
	           fn == dlsym(RTLD_DEFAULT, "cuMemcpy"),
	       "cudaGetDriverEntryPoint(cuMemcpy) is cuMemcpy");
#pragma GCC diagnostic pop
}

int main(int argc, char **argv)
{
	CUpti_SubscriberHandle subscriber;

	if (argc != 2) {
		fprintf(stderr, "usage: twins LIST\n");
		return 2;
	}
	tap_ok(cudaFree(NULL) == cudaSuccess, "the runtime starts");
	check_streams();
	check_entry_points();
	if (!tap_ok(cuptiSubscribe(&subscriber, on_callback, NULL) == CUPTI_SUCCESS,
	            "cuptiSubscribe"))
		return tap_done();
	tap_ok(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS &&
	           cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) == CUPTI_SUCCESS,
	       "cuptiEnableDomain(DRIVER, RUNTIME)");
	check_listed(argv[1]);
	return tap_done();
}
