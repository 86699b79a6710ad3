/* SPDX-License-Identifier: MIT */
/*
 * drv-kernel-attrs.c - what the driver API says of kernels and the limits
 * of a context, as an ordinary gcc program linked against the toolkit's
 * stub libcuda. A PTX module declares kernels with what PTX can say of
 * them (PTX ISA: .maxntid/.minnctapersm, .maxnreg, .reqnctapercluster,
 * .shared and .local variables, calls to malloc and vprintf); the program
 * checks cuFuncGetAttribute's answers, the documented limits of
 * cuFuncSetAttribute and of a launch, and cuCtxSetLimit's rules (cuda.h).
 *
 * Prints TAP, "# fact pid=N" and "# expect" lines for the ledger: the
 * launches, and the error line of every call that fails.
 */
#include <cuda.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tap-cuda.h"

static const char module_ptx[] = ".version 8.0\n"
                                 ".target sm_90\n"
                                 ".address_size 64\n"
                                 "\n"
                                 ".extern .func (.param .b64 func_retval0) malloc\n"
                                 "(\n"
                                 "\t.param .b64 malloc_param_0\n"
                                 ")\n"
                                 ";\n"
                                 ".extern .func (.param .b32 func_retval0) vprintf\n"
                                 "(\n"
                                 "\t.param .b64 vprintf_param_0,\n"
                                 "\t.param .b64 vprintf_param_1\n"
                                 ")\n"
                                 ";\n"
                                 "// module-scope shared memory, used by k_tile only\n"
                                 ".shared .align 8 .b8 tile[2048];\n"
                                 "\n"
                                 ".func helper()\n"
                                 "{\n"
                                 "\t.reg .b64 %rd<2>;\n"
                                 "\t{\n"
                                 "\t.param .b64 param0;\n"
                                 "\tst.param.b64 [param0], 64;\n"
                                 "\t.param .b64 retval0;\n"
                                 "\tcall.uni (retval0), malloc, (param0);\n"
                                 "\t}\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_plain(\n"
                                 "\t.param .u64 k_plain_param_0\n"
                                 ")\n"
                                 "{\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_bounds(\n"
                                 "\t.param .u64 k_bounds_param_0\n"
                                 ")\n"
                                 ".maxntid 256, 1, 1\n"
                                 ".minnctapersm 4\n"
                                 "{\n"
                                 "\t.shared .align 4 .b8 k_bounds_buf[4096];\n"
                                 "\t.local .align 8 .b8 __local_depot1[64];\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_tile()\n"
                                 "{\n"
                                 "\t.reg .b64 %rd<2>;\n"
                                 "\tmov.u64 %rd1, tile;\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_big()\n"
                                 "{\n"
                                 "\t.shared .align 16 .b8 k_big_a[8192];\n"
                                 "\t.shared .align 16 .v4 .b32 k_big_b[2][1024];\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_heap()\n"
                                 "{\n"
                                 "\tcall.uni helper, ();\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_printf()\n"
                                 "{\n"
                                 "\t.reg .b32 %r<2>;\n"
                                 "\t{\n"
                                 "\t.param .b64 param0;\n"
                                 "\tst.param.b64 [param0], 0;\n"
                                 "\t.param .b64 param1;\n"
                                 "\tst.param.b64 [param1], 0;\n"
                                 "\t.param .b32 retval0;\n"
                                 "\tcall.uni (retval0), vprintf, (param0, param1);\n"
                                 "\t}\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_cluster()\n"
                                 ".reqnctapercluster 2, 1, 1\n"
                                 "{\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_nreg()\n"
                                 ".maxnreg 8\n"
                                 "{\n"
                                 "\tret;\n"
                                 "}\n";

static int attr(CUfunction f, CUfunction_attribute a)
{
	int value = -1;

	if (cuFuncGetAttribute(&value, a, f) != CUDA_SUCCESS)
		return -1;
	return value;
}

static CUresult launch(CUfunction f, unsigned int grid, unsigned int block, unsigned int shmem)
{
	return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shmem, NULL, NULL, NULL);
}

/* A launch that succeeds, announced for the ledger. */
static void launch_ok(CUfunction f, const char *name, unsigned int grid, unsigned int block,
                      unsigned int shmem)
{
	if (cu_ok(launch(f, grid, block, shmem), "launch"))
		tap_expect("op=launch name=%s grid=%u,1,1 block=%u,1,1 shmem=%u api=cuLaunchKernel",
		           name, grid, block, shmem);
}

struct kernels {
	CUfunction plain, bounds, tile, big, heap, print, cluster, nreg;
};

static void get_kernels(CUmodule mod, struct kernels *k)
{
	static const char *const names[] = { "k_plain", "k_bounds", "k_tile",    "k_big",
		                             "k_heap",  "k_printf", "k_cluster", "k_nreg" };
	CUfunction *slots[] = { &k->plain, &k->bounds, &k->tile,    &k->big,
		                &k->heap,  &k->print,  &k->cluster, &k->nreg };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		*slots[i] = NULL;
		cu_ok(cuModuleGetFunction(slots[i], mod, names[i]), names[i]);
	}
}

static void check_attributes(const struct kernels *k)
{
	tap_ok(attr(k->plain, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 1024,
	       "k_plain: MAX_THREADS_PER_BLOCK is the device's 1024");
	tap_ok(attr(k->plain, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 0 &&
	           attr(k->plain, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) == 0,
	       "k_plain: no static shared or local memory");
	tap_ok(attr(k->plain, CU_FUNC_ATTRIBUTE_NUM_REGS) > 0, "k_plain: NUM_REGS %d",
	       attr(k->plain, CU_FUNC_ATTRIBUTE_NUM_REGS));
	tap_ok(attr(k->plain, CU_FUNC_ATTRIBUTE_PTX_VERSION) == 90 &&
	           attr(k->plain, CU_FUNC_ATTRIBUTE_BINARY_VERSION) == 90,
	       "k_plain: PTX and binary version 90 (.target sm_90)");
	tap_ok(attr(k->plain, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 49152,
	       "k_plain: 48 KiB of dynamic shared memory without opt-in (%d)",
	       attr(k->plain, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
	tap_ok(attr(k->plain, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) == -1,
	       "k_plain: no carveout preference (-1)");
	tap_ok(attr(k->bounds, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 256,
	       "k_bounds: .maxntid 256 is its MAX_THREADS_PER_BLOCK (%d)",
	       attr(k->bounds, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
	tap_ok(attr(k->bounds, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 4096,
	       "k_bounds: 4096 bytes of static shared memory (%d)",
	       attr(k->bounds, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
	tap_ok(attr(k->bounds, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) == 64,
	       "k_bounds: 64 bytes of local memory per thread (%d)",
	       attr(k->bounds, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
	tap_ok(attr(k->bounds, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 49152 - 4096,
	       "k_bounds: 48 KiB less its static shared memory for dynamic (%d)",
	       attr(k->bounds, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
	tap_ok(attr(k->tile, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 2048,
	       "k_tile: the module-scope .shared it uses counts (%d)",
	       attr(k->tile, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
	tap_ok(attr(k->big, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 8192 + 2 * 1024 * 16,
	       "k_big: .b8[8192] and .v4 .b32[2][1024] make 40960 bytes (%d)",
	       attr(k->big, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
	tap_ok(attr(k->nreg, CU_FUNC_ATTRIBUTE_NUM_REGS) <= 8,
	       "k_nreg: .maxnreg 8 caps NUM_REGS (%d)", attr(k->nreg, CU_FUNC_ATTRIBUTE_NUM_REGS));
	tap_ok(attr(k->cluster, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) == 2 &&
	           attr(k->cluster, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT) == 1 &&
	           attr(k->cluster, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH) == 1,
	       "k_cluster: .reqnctapercluster 2,1,1 is its required cluster size");
	{
		int value = 0;
		cu_fails(cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX, k->plain),
		         CUDA_ERROR_INVALID_VALUE, "cuFuncGetAttribute",
		         "cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_MAX)");
	}
}

static void check_set_attributes(const struct kernels *k)
{
	int optin = 0;

	cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0);
	tap_ok(optin > 49152, "the device's opt-in shared memory per block is %d", optin);
	cu_ok(cuFuncSetAttribute(k->big, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
	                         optin - 40960),
	      "k_big: dynamic shared memory up to the opt-in maximum less its static");
	tap_ok(attr(k->big, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == optin - 40960,
	       "k_big: cuFuncGetAttribute reads it back");
	cu_fails(cuFuncSetAttribute(k->big, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
	                            optin - 40960 + 1),
	         CUDA_ERROR_INVALID_VALUE, "cuFuncSetAttribute",
	         "k_big: one byte more than static + dynamic <= opt-in");
	cu_fails(cuFuncSetAttribute(k->plain, CU_FUNC_ATTRIBUTE_NUM_REGS, 32),
	         CUDA_ERROR_INVALID_VALUE, "cuFuncSetAttribute", "setting the read-only NUM_REGS");
	cu_fails(
	    cuFuncSetAttribute(k->plain, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 101),
	    CUDA_ERROR_INVALID_VALUE, "cuFuncSetAttribute", "a carveout of 101 percent");
	cu_ok(cuFuncSetAttribute(k->plain, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50),
	      "a carveout of 50 percent");
	tap_ok(attr(k->plain, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) == 50,
	       "the carveout reads back");
	cu_fails(cuFuncSetAttribute(k->cluster, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 4),
	         CUDA_ERROR_NOT_PERMITTED, "cuFuncSetAttribute",
	         "k_cluster: a compile-time cluster size cannot be set at run time");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	{
		CUsharedconfig config = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;

		cu_ok(cuCtxGetSharedMemConfig(&config), "cuCtxGetSharedMemConfig");
		tap_ok(config == CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE,
		       "banks are four bytes wide");
		cu_ok(cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE),
		      "cuCtxSetSharedMemConfig(EIGHT_BYTE) does nothing on fixed banks");
		cuCtxGetSharedMemConfig(&config);
		tap_ok(config == CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE,
		       "banks are still four bytes wide");
		cu_fails(cuCtxSetSharedMemConfig((CUsharedconfig)7), CUDA_ERROR_INVALID_VALUE,
		         "cuCtxSetSharedMemConfig", "cuCtxSetSharedMemConfig(7)");
		cu_ok(cuFuncSetSharedMemConfig(k->plain, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE),
		      "cuFuncSetSharedMemConfig");
	}
#pragma GCC diagnostic pop
}

static void check_launches(const struct kernels *k)
{
	cu_fails(launch(k->bounds, 1, 512, 0), CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "cuLaunchKernel",
	         "k_bounds: a block of 512 threads exceeds .maxntid 256");
	launch_ok(k->bounds, "k_bounds", 2, 256, 0);
	cu_fails(launch(k->plain, 1, 32, 49153), CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel",
	         "k_plain: 48 KiB + 1 of dynamic shared memory without opt-in");
	cu_ok(cuFuncSetAttribute(k->plain, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536),
	      "k_plain: opt in to 64 KiB");
	launch_ok(k->plain, "k_plain", 1, 32, 65536);
	cu_fails(launch(k->cluster, 3, 32, 0), CUDA_ERROR_INVALID_CLUSTER_SIZE, "cuLaunchKernel",
	         "k_cluster: a grid of 3 is no multiple of its required cluster of 2");
	launch_ok(k->cluster, "k_cluster", 4, 32, 0);
}

static void check_limits(const struct kernels *k)
{
	size_t value = 0;

	cu_ok(cuCtxGetLimit(&value, CU_LIMIT_MALLOC_HEAP_SIZE), "cuCtxGetLimit(MALLOC_HEAP_SIZE)");
	tap_ok(value == 8u << 20, "the heap is 8 MiB by default (%zu)", value);
	cu_ok(cuCtxGetLimit(&value, CU_LIMIT_PRINTF_FIFO_SIZE), "cuCtxGetLimit(PRINTF_FIFO_SIZE)");
	tap_ok(value == 1u << 20, "the printf FIFO is 1 MiB by default (%zu)", value);
	cu_ok(cuCtxGetLimit(&value, CU_LIMIT_STACK_SIZE), "cuCtxGetLimit(STACK_SIZE)");
	tap_ok(value == 1024, "the stack is 1 KiB by default (%zu)", value);
	cu_fails(cuCtxGetLimit(&value, CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH),
	         CUDA_ERROR_UNSUPPORTED_LIMIT, "cuCtxGetLimit",
	         "DEV_RUNTIME_SYNC_DEPTH on compute capability 9.0");
	cu_fails(cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 4), CUDA_ERROR_UNSUPPORTED_LIMIT,
	         "cuCtxSetLimit", "setting DEV_RUNTIME_SYNC_DEPTH on compute capability 9.0");
	cu_ok(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 16u << 20),
	      "a 16 MiB heap before any launch");
	/* k_plain, k_bounds and k_cluster ran: none uses malloc or printf. */
	cu_ok(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 32u << 20),
	      "a 32 MiB heap after kernels that do not call malloc");
	cu_ok(cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 2u << 20),
	      "a 2 MiB printf FIFO after kernels that do not call printf");
	launch_ok(k->heap, "k_heap", 1, 32, 0);
	cu_fails(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64u << 20), CUDA_ERROR_INVALID_VALUE,
	         "cuCtxSetLimit", "the heap after a launch of a kernel that calls malloc");
	cu_ok(cuCtxGetLimit(&value, CU_LIMIT_MALLOC_HEAP_SIZE), "cuCtxGetLimit(MALLOC_HEAP_SIZE)");
	tap_ok(value == 32u << 20, "the heap stays 32 MiB (%zu)", value);
	cu_ok(cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 4u << 20),
	      "the printf FIFO after the malloc kernel only");
	launch_ok(k->print, "k_printf", 1, 32, 0);
	cu_fails(cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 8u << 20), CUDA_ERROR_INVALID_VALUE,
	         "cuCtxSetLimit", "the printf FIFO after a launch of a kernel that calls printf");
	cu_ok(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096), "the stack size after launches");
	cu_ok(cuCtxGetLimit(&value, CU_LIMIT_STACK_SIZE), "cuCtxGetLimit(STACK_SIZE)");
	tap_ok(value == 4096, "the stack is 4 KiB (%zu)", value);
	cu_ok(cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 1000),
	      "an L2 fetch granularity of 1000 bytes");
	cuCtxGetLimit(&value, CU_LIMIT_MAX_L2_FETCH_GRANULARITY);
	tap_ok(value == 128, "is clamped to 128 bytes (%zu)", value);
}

/* The same kernels as a library: cuKernel* set them per device. */
static void check_library(void)
{
	CUlibrary lib = NULL;
	CUkernel kernel = NULL;
	int value = 0;

	if (!cu_ok(cuLibraryLoadData(&lib, module_ptx, NULL, NULL, 0, NULL, NULL, 0),
	           "cuLibraryLoadData(PTX)"))
		return;
	cu_ok(cuLibraryGetKernel(&kernel, lib, "k_bounds"), "cuLibraryGetKernel(k_bounds)");
	cu_ok(cuKernelGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel, 0),
	      "cuKernelGetAttribute");
	tap_ok(value == 256, "the library's k_bounds has its .maxntid 256 too (%d)", value);
	cu_ok(cuKernelSetCacheConfig(kernel, CU_FUNC_CACHE_PREFER_SHARED, 0),
	      "cuKernelSetCacheConfig(PREFER_SHARED, device 0)");
	cu_fails(cuKernelSetCacheConfig(kernel, (CUfunc_cache)9, 0), CUDA_ERROR_INVALID_VALUE,
	         "cuKernelSetCacheConfig", "cuKernelSetCacheConfig(9)");
	cu_fails(cuKernelSetCacheConfig(kernel, CU_FUNC_CACHE_PREFER_L1, 5),
	         CUDA_ERROR_INVALID_DEVICE, "cuKernelSetCacheConfig", "on device 5");
	cu_fails(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 300000,
	                              kernel, 0),
	         CUDA_ERROR_INVALID_VALUE, "cuKernelSetAttribute",
	         "cuKernelSetAttribute of more dynamic shared memory than the opt-in maximum");
	cu_ok(cuLibraryUnload(lib), "cuLibraryUnload");
}

int main(void)
{
	CUcontext ctx, other;
	CUmodule mod = NULL;
	struct kernels k;
	size_t value = 0;

	printf("# fact pid=%d\n", (int)getpid());
	if (!cu_ok(cuInit(0), "cuInit") || !cu_ok(cuCtxCreate(&ctx, NULL, 0, 0), "cuCtxCreate") ||
	    !cu_ok(cuModuleLoadData(&mod, module_ptx), "cuModuleLoadData(PTX)"))
		return tap_done();
	get_kernels(mod, &k);
	check_attributes(&k);
	check_set_attributes(&k);
	check_launches(&k);
	check_limits(&k);
	check_library();
	cu_ok(cuCtxSynchronize(), "cuCtxSynchronize");

	/* Limits belong to the context: a new one starts afresh. */
	cu_ok(cuCtxCreate(&other, NULL, 0, 0), "a second context");
	cu_ok(cuCtxGetLimit(&value, CU_LIMIT_MALLOC_HEAP_SIZE), "its heap limit");
	tap_ok(value == 8u << 20, "is the default 8 MiB (%zu)", value);
	cu_ok(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64u << 20),
	      "and can be set: no kernel ran in it");
	cu_ok(cuCtxDestroy(other), "cuCtxDestroy(second)");
	cu_ok(cuCtxSetCurrent(ctx), "the first context again");
	cu_ok(cuModuleUnload(mod), "cuModuleUnload");
	cu_ok(cuCtxDestroy(ctx), "cuCtxDestroy");
	return tap_done();
}
