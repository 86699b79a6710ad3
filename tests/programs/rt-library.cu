/* SPDX-License-Identifier: MIT */
/*
 * rt-library.cu - the runtime's library management (cuda_runtime_api.h,
 * "Library Management"): a PTX library loaded from memory and from a
 * file, its kernels counted, enumerated and looked up by name, queried
 * and launched through their cudaKernel_t (cudaFuncGetAttributes,
 * cudaFuncGetName, cudaOccupancy*, cudaLaunchKernel), an attribute set for
 * a device, the documented errors of names that do not exist, and
 * unloading.
 *
 * Prints TAP, "# fact pid=N" and "# expect" lines for the ledger: the
 * libraries' module_load lines, the launches and the failed calls.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static const char library_ptx[] = ".version 8.0\n"
                                  ".target sm_90\n"
                                  ".address_size 64\n"
                                  "\n"
                                  ".visible .entry lib_scale(\n"
                                  "\t.param .u64 lib_scale_param_0,\n"
                                  "\t.param .f32 lib_scale_param_1\n"
                                  ")\n"
                                  ".maxntid 512, 1, 1\n"
                                  "{\n"
                                  "\t.shared .align 4 .b8 lib_tile[2048];\n"
                                  "\tret;\n"
                                  "}\n"
                                  "\n"
                                  ".visible .entry lib_fill(\n"
                                  "\t.param .u64 lib_fill_param_0\n"
                                  ")\n"
                                  "{\n"
                                  "\tret;\n"
                                  "}\n";

static bool rt_ok(cudaError_t r, const char *what)
{
	return tap_ok(r == cudaSuccess, "%s (%s)", what, cudaGetErrorName(r));
}

static bool rt_fails(cudaError_t r, cudaError_t want, const char *api, const char *what)
{
	cudaError_t last = cudaGetLastError();

	if (r != cudaSuccess)
		tap_expect("op=error api=%s result=%s", api, cudaGetErrorName(r));
	return tap_ok(r == want && last == want, "%s returns %s (got %s, last error %s)", what,
	              cudaGetErrorName(want), cudaGetErrorName(r), cudaGetErrorName(last));
}

/* The library's PTX in a file of its own; the name is freed by the caller. */
static char *ptx_file(void)
{
	char *path = strdup("/tmp/rt-library-XXXXXX");
	int fd = path ? mkstemp(path) : -1;
	size_t length = strlen(library_ptx);

	if (fd < 0 || write(fd, library_ptx, length) != (ssize_t)length) {
		if (fd >= 0)
			close(fd);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

static void check_kernels(cudaLibrary_t lib, float *d)
{
	cudaKernel_t kernels[4] = { 0 }, scale = NULL, fill = NULL, missing = NULL;
	unsigned int count = 0;
	struct cudaFuncAttributes attr;
	const char *name = NULL;
	float factor = 2.0f;
	void *args[] = { &d, &factor };
	int blocks = -1;

	rt_ok(cudaLibraryGetKernelCount(&count, lib), "cudaLibraryGetKernelCount");
	tap_ok(count == 2, "the library has 2 kernels (%u)", count);
	rt_ok(cudaLibraryEnumerateKernels(kernels, 4, lib), "cudaLibraryEnumerateKernels");
	rt_ok(cudaLibraryGetKernel(&scale, lib, "lib_scale"), "cudaLibraryGetKernel(lib_scale)");
	rt_ok(cudaLibraryGetKernel(&fill, lib, "lib_fill"), "cudaLibraryGetKernel(lib_fill)");
	tap_ok(scale && fill && scale != fill &&
	           ((kernels[0] == scale && kernels[1] == fill) ||
	            (kernels[0] == fill && kernels[1] == scale)),
	       "the enumeration gives the two kernel handles");
	rt_fails(cudaLibraryGetKernel(&missing, lib, "lib_nothing"), cudaErrorSymbolNotFound,
	         "cudaLibraryGetKernel", "a name the library does not have");

	rt_ok(cudaFuncGetName(&name, (const void *)scale), "cudaFuncGetName(cudaKernel_t)");
	tap_ok(name && !strcmp(name, "lib_scale"), "names lib_scale (%s)", name ? name : "NULL");
	memset(&attr, 0, sizeof(attr));
	rt_ok(cudaFuncGetAttributes(&attr, (const void *)scale), "cudaFuncGetAttributes");
	tap_ok(attr.maxThreadsPerBlock == 512 && attr.sharedSizeBytes == 2048,
	       "lib_scale: its .maxntid 512 and 2048 bytes of .shared (%d, %zu)",
	       attr.maxThreadsPerBlock, attr.sharedSizeBytes);
	rt_ok(cudaKernelSetAttributeForDevice(scale, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                                      100000, 0),
	      "cudaKernelSetAttributeForDevice(100000 bytes of dynamic shared memory)");
	cudaFuncGetAttributes(&attr, (const void *)scale);
	tap_ok(attr.maxDynamicSharedSizeBytes == 100000, "it reads back (%d)",
	       attr.maxDynamicSharedSizeBytes);
	rt_fails(cudaKernelSetAttributeForDevice(scale, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                                         0, 7),
	         cudaErrorInvalidDevice, "cudaKernelSetAttributeForDevice", "device 7");
	rt_ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)scale, 512, 0),
	      "cudaOccupancyMaxActiveBlocksPerMultiprocessor(cudaKernel_t)");
	tap_ok(blocks == 4, "4 blocks of 512 threads (%d)", blocks);

	rt_ok(cudaLaunchKernel((const void *)scale, dim3(4), dim3(256), args, 0, 0),
	      "cudaLaunchKernel(lib_scale)");
	tap_expect("op=launch name=lib_scale grid=4,1,1 block=256,1,1 api=cudaLaunchKernel");
	rt_ok(cudaLaunchKernel((const void *)fill, dim3(2), dim3(64), args, 0, 0),
	      "cudaLaunchKernel(lib_fill)");
	tap_expect("op=launch name=lib_fill grid=2,1,1 block=64,1,1 api=cudaLaunchKernel");
	rt_fails(cudaLaunchKernel((const void *)scale, dim3(1), dim3(1024), args, 0, 0),
	         cudaErrorLaunchOutOfResources, "cudaLaunchKernel",
	         "lib_scale with 1024 threads, over its .maxntid 512");
	rt_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

int main(void)
{
	cudaLibrary_t lib = NULL, from_file = NULL;
	cudaKernel_t kernel = NULL;
	void *global = NULL;
	size_t bytes = 0;
	float *d = NULL;
	char *path;

	printf("# fact pid=%d\n", (int)getpid());
	rt_ok(cudaMalloc(&d, 4096), "cudaMalloc");
	tap_expect("op=alloc kind=device size=4096 api=cudaMalloc");
	if (!rt_ok(cudaLibraryLoadData(&lib, library_ptx, NULL, NULL, 0, NULL, NULL, 0),
	           "cudaLibraryLoadData(PTX)"))
		return tap_done();
	tap_expect("op=module_load kernels=2");
	check_kernels(lib, d);

	rt_fails(cudaLibraryGetGlobal(&global, &bytes, lib, "lib_counter"), cudaErrorSymbolNotFound,
	         "cudaLibraryGetGlobal", "a global the library does not have");
	rt_fails(cudaLibraryGetManaged(&global, &bytes, lib, "lib_counter"),
	         cudaErrorSymbolNotFound, "cudaLibraryGetManaged",
	         "managed memory the library does not have");
	rt_fails(cudaLibraryGetGlobal(NULL, NULL, lib, "lib_counter"), cudaErrorInvalidValue,
	         "cudaLibraryGetGlobal", "neither dptr nor bytes");
	rt_fails(cudaLibraryLoadData(&from_file, "not a module", NULL, NULL, 0, NULL, NULL, 0),
	         cudaErrorInvalidKernelImage, "cudaLibraryLoadData", "text that is no PTX");

	path = ptx_file();
	tap_ok(path != NULL, "the PTX written to a file");
	if (path && rt_ok(cudaLibraryLoadFromFile(&from_file, path, NULL, NULL, 0, NULL, NULL, 0),
	                  "cudaLibraryLoadFromFile"))
		tap_expect("op=module_load kernels=2");
	if (path)
		unlink(path);
	free(path);
	rt_fails(
	    cudaLibraryLoadFromFile(&lib, "/nonexistent/lib.ptx", NULL, NULL, 0, NULL, NULL, 0),
	    cudaErrorFileNotFound, "cudaLibraryLoadFromFile", "a file that does not exist");
	rt_ok(cudaLibraryGetKernel(&kernel, from_file, "lib_fill"),
	      "lib_fill of the file's library");
	tap_ok(kernel != NULL, "another handle for the same name in another library");

	rt_ok(cudaLibraryUnload(from_file), "cudaLibraryUnload(file)");
	rt_ok(cudaLibraryUnload(lib), "cudaLibraryUnload");
	rt_fails(cudaLibraryGetKernel(&kernel, lib, "lib_fill"), cudaErrorInvalidResourceHandle,
	         "cudaLibraryGetKernel", "a kernel of an unloaded library");
	rt_fails(cudaLibraryUnload(lib), cudaErrorInvalidResourceHandle, "cudaLibraryUnload",
	         "unloading it twice");
	rt_ok(cudaFree(d), "cudaFree");
	tap_expect("op=free kind=device size=4096 api=cudaFree");
	return tap_done();
}
