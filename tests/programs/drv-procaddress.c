/* SPDX-License-Identifier: MIT */
/*
 * drv-procaddress.c - cuGetProcAddress (cuda.h, "Driver Entry Point
 * Access") for every function cuda.h declares, and the runtime's
 * cudaGetDriverEntryPoint(ByVersion) on it.
 *
 *   drv-procaddress FUNCTIONS PER_THREAD VERSIONS
 *
 * FUNCTIONS lists the functions cuda.h declares (their current names, as
 * the preprocessor makes them: cuMemAlloc_v2), PER_THREAD those it
 * declares with CUDA_API_PER_THREAD_DEFAULT_STREAM (cuMemcpyHtoD_v2_ptds),
 * VERSIONS the "name version" pairs of cudaTypedefs.h's PFN_name_vVERSION
 * typedefs (tests/Makefile.am makes the three from the toolkit's headers).
 * Looked up by its base name at the CUDA version its name stands for, each
 * function must be the driver's export of that name: the simulator's
 * implementation or stub. Each typedef version must give the export of
 * that ABI version (the first is the base name, the next ones _v2, _v3...),
 * and a version before the first must be VERSION_NOT_SUFFICIENT.
 *
 * Prints TAP, "# fact pid=N" and the "# expect" lines of the calls that
 * fail, for the ledger.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#define MAX_NAMES 2048
#define NAME_MAX_ 128

struct names {
	char (*items)[NAME_MAX_];
	int *versions;
	size_t count;
};

/* One or two words a line: a name and, for VERSIONS, a number. */
static int read_names(const char *path, struct names *out)
{
	FILE *f = fopen(path, "r");
	char line[256];

	out->items = calloc(MAX_NAMES, NAME_MAX_);
	out->versions = calloc(MAX_NAMES, sizeof(int));
	out->count = 0;
	if (!f || !out->items || !out->versions) {
		if (f)
			fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f) && out->count < MAX_NAMES) {
		int version = 0;

		if (sscanf(line, "%127s %d", out->items[out->count], &version) >= 1)
			out->versions[out->count++] = version;
	}
	fclose(f);
	return 1;
}

/* name without a trailing _vN (cuMemAlloc_v2 -> cuMemAlloc). */
static void base_name(const char *name, char *base)
{
	const char *v = strrchr(name, '_');
	size_t n = strlen(name);

	if (v && v[1] == 'v' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2))
		n = (size_t)(v - name);
	memcpy(base, name, n);
	base[n] = '\0';
}

static void *lookup(const char *base, int version, cuuint64_t flags,
                    CUdriverProcAddressQueryResult *status, CUresult *result)
{
	void *pfn = (void *)1;

	*status = (CUdriverProcAddressQueryResult)-1;
	*result = cuGetProcAddress(base, &pfn, version, flags, status);
	return pfn;
}

/* The last CUDA version a name is current at: its ABI version (the
 * index-th typedef version of its base; name: 0, name_v2: 1...) is in
 * force until the next one appears, and to the headers' version if none
 * does; 0 if unknown. */
static int name_version(const struct names *pairs, const char *base, int index)
{
	int found[8], n = 0;

	for (size_t i = 0; i < pairs->count && n < 8; i++)
		if (!strcmp(pairs->items[i], base))
			found[n++] = pairs->versions[i];
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0 && found[b - 1] > found[b]; b--) {
			int t = found[b];
			found[b] = found[b - 1];
			found[b - 1] = t;
		}
	if (index >= n)
		return 0;
	return index + 1 < n ? found[index + 1] - 10 : CUDA_VERSION;
}

/*
 * Every name cuda.h declares, looked up by its base name at the last
 * version that name is current at (most are current now; cuda.h also
 * declares some earlier ones, as cuCtxGetDevice beside cuCtxGetDevice_v2).
 * A per-thread name whose variant the driver does not export gets the
 * legacy function, as cuda.h says.
 */
static void check_declared(void *self, const struct names *names, const struct names *pairs,
                           cuuint64_t flags, size_t minimum, const char *what)
{
	size_t wrong = 0;

	for (size_t i = 0; i < names->count; i++) {
		const char *name = names->items[i];
		char stripped[NAME_MAX_], base[NAME_MAX_];
		CUdriverProcAddressQueryResult status;
		const char *suffix;
		int version, index = 0;
		CUresult r;
		void *want, *got;

		snprintf(stripped, sizeof(stripped), "%s", name);
		if (flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
			stripped[strlen(stripped) - 5] = '\0'; /* _ptds, _ptsz */
		base_name(stripped, base);
		suffix = stripped + strlen(base);
		if (*suffix)
			index = atoi(suffix + 2) - 1;
		version = name_version(pairs, base, index);
		want = dlsym(self, name);
		if (!want)
			want = dlsym(self, stripped);
		got = lookup(base, version, flags, &status, &r);
		if (version && r == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && got &&
		    got == want)
			continue;
		if (wrong++ < 8)
			tap_diag("%s (as %s at %d): result %d, status %d, %p, its export %p", name,
			         base, version, (int)r, (int)status, got, want);
	}
	tap_ok(names->count >= minimum && wrong == 0,
	       "%s: all %zu resolve to the export of their name (%zu do not)", what, names->count,
	       wrong);
}

/* Each typedef version of each function. */
static void check_versions(void *self, const struct names *pairs)
{
	size_t wrong = 0, early = 0, checked = 0;

	for (size_t i = 0; i < pairs->count; i++) {
		const char *base = pairs->items[i];
		int version = pairs->versions[i], index = 0, first = version;
		CUdriverProcAddressQueryResult status;
		char name[NAME_MAX_ + 8];
		CUresult r;
		void *got;

		/* Its place among the versions of the same name. */
		for (size_t j = 0; j < pairs->count; j++)
			if (!strcmp(pairs->items[j], base)) {
				if (pairs->versions[j] < version)
					index++;
				if (pairs->versions[j] < first)
					first = pairs->versions[j];
			}
		if (index == 0)
			snprintf(name, sizeof(name), "%s", base);
		else
			snprintf(name, sizeof(name), "%s_v%d", base, index + 1);
		checked++;
		got = lookup(base, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status, &r);
		if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || !got ||
		    got != dlsym(self, name)) {
			if (wrong++ < 8)
				tap_diag("%s at %d: result %d, status %d, not %s", base, version,
				         (int)r, (int)status, name);
		}
		if (version != first)
			continue;
		got = lookup(base, first - 10, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status, &r);
		if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ||
		    got) {
			if (early++ < 8)
				tap_diag("%s before %d: result %d, status %d, %p", base, first,
				         (int)r, (int)status, got);
		}
	}
	tap_ok(
	    checked > 500 && wrong == 0,
	    "every one of %zu typedef versions gives the export of that ABI version (%zu do not)",
	    checked, wrong);
	tap_ok(early == 0,
	       "a version before a function's first is VERSION_NOT_SUFFICIENT (%zu not)", early);
}

static void check_edges(void *self)
{
	CUdriverProcAddressQueryResult status;
	CUresult r;
	void *got;

	got = lookup("cuMemAlloc", CUDA_VERSION + 10, 0, &status, &r);
	tap_expect("op=error api=cuGetProcAddress_v2 result=CUDA_ERROR_INVALID_VALUE");
	tap_ok(r == CUDA_ERROR_INVALID_VALUE,
	       "a CUDA version above the driver's is CUDA_ERROR_INVALID_VALUE (%d)", (int)r);
	got = lookup("cuNoSuchFunction", CUDA_VERSION, 0, &status, &r);
	tap_ok(r == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && !got,
	       "an unknown name: CUDA_SUCCESS, SYMBOL_NOT_FOUND, NULL");
	got = lookup("sim_profiler_attach", CUDA_VERSION, 0, &status, &r);
	tap_ok(r == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && !got,
	       "an export that is no driver function is not found");
	got = lookup("cuMemcpyHtoD", 6050, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status,
	             &r);
	tap_ok(got && got == dlsym(self, "cuMemcpyHtoD_v2"),
	       "per-thread before CUDA 7.0, when its variant appeared: the legacy cuMemcpyHtoD_v2");
	got = lookup("cuMemcpyHtoD", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status,
	             &r);
	tap_ok(got && got == dlsym(self, "cuMemcpyHtoD_v2_ptds"),
	       "per-thread from CUDA 7.0: cuMemcpyHtoD_v2_ptds");
	got = lookup("cuCtxCreate", 12040, 0, &status, &r);
	tap_ok(got && got == dlsym(self, "cuCtxCreate_v3"),
	       "cuCtxCreate at 12.4: cuCtxCreate_v3 (the 11.4 version)");
	got = lookup("cuMemAllocAsync", 11010, 0, &status, &r);
	tap_ok(r == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT && !got,
	       "cuMemAllocAsync at 11.1, before 11.2: VERSION_NOT_SUFFICIENT");
	r = cuGetProcAddress("cuMemAlloc", &got, CUDA_VERSION, 4, &status);
	tap_expect("op=error api=cuGetProcAddress_v2 result=CUDA_ERROR_INVALID_VALUE");
	tap_ok(r == CUDA_ERROR_INVALID_VALUE, "flags 4: CUDA_ERROR_INVALID_VALUE (%d)", (int)r);
}

/* The runtime's forms: the same lookups. */
static void check_runtime(void *self)
{
	enum cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
	void *got = NULL;
	cudaError_t r;

	r = cudaGetDriverEntryPointByVersion("cuMemAlloc", &got, 2000, cudaEnableDefault, &status);
	tap_ok(r == cudaSuccess && status == cudaDriverEntryPointSuccess &&
	           got == dlsym(self, "cuMemAlloc"),
	       "cudaGetDriverEntryPointByVersion(cuMemAlloc, 2000): the CUDA 2.0 cuMemAlloc");
	r = cudaGetDriverEntryPointByVersion("cuLaunchKernel", &got, CUDART_VERSION,
	                                     cudaEnablePerThreadDefaultStream, &status);
	tap_ok(r == cudaSuccess && got == dlsym(self, "cuLaunchKernel_ptsz"),
	       "cudaGetDriverEntryPointByVersion(cuLaunchKernel, per-thread): cuLaunchKernel_ptsz");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	r = cudaGetDriverEntryPoint("cuMemAlloc", &got, cudaEnableDefault, &status);
#pragma GCC diagnostic pop
	tap_ok(r == cudaSuccess && got == dlsym(self, "cuMemAlloc_v2"),
	       "cudaGetDriverEntryPoint(cuMemAlloc): the runtime's version, cuMemAlloc_v2");
	r = cudaGetDriverEntryPointByVersion("cuMemAlloc", &got, CUDART_VERSION + 10,
	                                     cudaEnableDefault, &status);
	tap_expect("op=error api=cudaGetDriverEntryPointByVersion result=cudaErrorInvalidValue");
	tap_ok(r == cudaErrorInvalidValue, "a version above the driver's: cudaErrorInvalidValue");
	tap_expect("op=error api=cudaGetLastError result=cudaErrorInvalidValue");
	cudaGetLastError();
}

int main(int argc, char **argv)
{
	struct names declared, per_thread, versions;
	void *self;

	if (argc != 4) {
		fprintf(stderr, "usage: drv-procaddress FUNCTIONS PER_THREAD VERSIONS\n");
		return 2;
	}
	printf("# fact pid=%d\n", (int)getpid());
	if (!tap_ok(cuInit(0) == CUDA_SUCCESS, "cuInit"))
		return tap_done();
	self = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!tap_ok(self != NULL, "the driver's handle"))
		return tap_done();
	if (!tap_ok(read_names(argv[1], &declared) && read_names(argv[2], &per_thread) &&
	                read_names(argv[3], &versions),
	            "the lists of cuda.h's functions"))
		return tap_done();
	check_declared(self, &declared, &versions, CU_GET_PROC_ADDRESS_LEGACY_STREAM, 400,
	               "the functions cuda.h declares");
	check_declared(self, &per_thread, &versions, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
	               50, "their per-thread default stream variants");
	check_versions(self, &versions);
	check_edges(self);
	check_runtime(self);
	free(declared.items);
	free(declared.versions);
	free(per_thread.items);
	free(per_thread.versions);
	free(versions.items);
	free(versions.versions);
	return tap_done();
}
