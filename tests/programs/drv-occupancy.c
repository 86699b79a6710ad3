/* SPDX-License-Identifier: MIT */
/*
 * drv-occupancy.c - cuOccupancy* (cuda.h, "Occupancy") as an ordinary gcc
 * program linked against the toolkit's stub libcuda. The expected numbers
 * are worked out by hand, below, from the CUDA Occupancy Calculator's
 * rules (the toolkit's cuda_occupancy.h) and what cuDeviceGetAttribute
 * reports: the program reads the device's limits first and checks that
 * they are those the arithmetic assumes.
 *
 * Prints TAP, "# fact pid=N" and the "# expect" error lines of the calls
 * that fail, for the ledger.
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
                                 ".visible .entry k_plain()\n"
                                 "{\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_carve()\n"
                                 "{\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_bounds()\n"
                                 ".maxntid 256, 1, 1\n"
                                 "{\n"
                                 "\t.shared .align 4 .b8 buf[4096];\n"
                                 "\tret;\n"
                                 "}\n"
                                 "\n"
                                 ".visible .entry k_cluster()\n"
                                 ".reqnctapercluster 2, 1, 1\n"
                                 "{\n"
                                 "\tret;\n"
                                 "}\n";

static int blocks(CUfunction f, int block, size_t dynamic)
{
	int n = -1;

	if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, block, dynamic) != CUDA_SUCCESS)
		return -1;
	return n;
}

static int attribute(CUdevice_attribute a)
{
	int value = -1;

	cuDeviceGetAttribute(&value, a, 0);
	return value;
}

/* The device limits the arithmetic below uses. */
static void check_device(void)
{
	tap_ok(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) == 9 &&
	           attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) == 0,
	       "compute capability 9.0");
	tap_ok(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) == 2048 &&
	           attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE) == 32,
	       "2048 threads (64 warps of 32) per multiprocessor");
	tap_ok(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR) == 32,
	       "32 blocks per multiprocessor");
	tap_ok(attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR) == 65536,
	       "65536 registers per multiprocessor");
	tap_ok(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) == 233472 &&
	           attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK) == 1024 &&
	           attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) == 232448,
	       "228 KiB of shared memory per multiprocessor, 1 KiB reserved per block, "
	       "227 KiB opt-in per block");
	tap_ok(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) == 132, "132 multiprocessors");
}

/* 64 bytes of dynamic shared memory per thread. */
static size_t per_thread_64(int block_size)
{
	return (size_t)block_size * 64;
}

static void check_blocks(CUfunction plain, CUfunction carve, CUfunction bounds)
{
	int n = -1, grid = -1, size = -1;

	/* Warps: 64 per multiprocessor over the block's warps; 32 blocks at
	 * most; 16 registers never limit (512 per warp, 32 warps per quarter). */
	tap_ok(blocks(plain, 1024, 0) == 2, "1024 threads: 64 / 32 warps = 2 blocks (%d)",
	       blocks(plain, 1024, 0));
	tap_ok(blocks(plain, 256, 0) == 8, "256 threads: 8 blocks (%d)", blocks(plain, 256, 0));
	tap_ok(blocks(plain, 32, 0) == 32, "32 threads: the 32-block limit (%d)",
	       blocks(plain, 32, 0));
	tap_ok(blocks(plain, 1025, 0) == 0, "1025 threads: none (%d)", blocks(plain, 1025, 0));
	tap_ok(blocks(plain, 2147483647, 0) == 0, "2^31 - 1 threads: none (%d)",
	       blocks(plain, 2147483647, 0));
	cu_fails(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, plain, 0, 0),
	         CUDA_ERROR_INVALID_VALUE, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
	         "a block size of 0");
	cu_fails(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, plain, 32, 0, 4),
	         CUDA_ERROR_INVALID_VALUE, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
	         "flags 4");
	cu_ok(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	          &n, plain, 256, 0, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE),
	      "CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE");
	tap_ok(n == 8, "changes nothing on compute capability 9.0 (%d)", n);

	/* Dynamic shared memory: 100 KiB is over the 48 KiB a block has
	 * without opt-in; opted in, 100 KiB + 1 KiB reserved per block fit
	 * twice in 228 KiB. */
	tap_ok(blocks(plain, 128, 102400) == 0, "100 KiB dynamic without opt-in: none (%d)",
	       blocks(plain, 128, 102400));
	cu_ok(cuFuncSetAttribute(plain, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200000),
	      "k_plain: opt in to 200000 bytes");
	tap_ok(blocks(plain, 128, 102400) == 2, "100 KiB dynamic opted in: 2 blocks (%d)",
	       blocks(plain, 128, 102400));
	/* A carveout of 50 % prefers 116736 bytes, rounded up to the 132 KiB
	 * configuration: one block of 101 KiB. */
	cuFuncSetAttribute(carve, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200000);
	cu_ok(cuFuncSetAttribute(carve, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50),
	      "k_carve: a carveout of 50 percent");
	tap_ok(blocks(carve, 128, 102400) == 1, "100 KiB dynamic in a 132 KiB carveout: 1 (%d)",
	       blocks(carve, 128, 102400));
	/* k_bounds: 4096 static + 1024 reserved = 5120 bytes: 45 would fit,
	 * the 8 warps of 256 threads give 8. */
	tap_ok(blocks(bounds, 256, 0) == 8, "k_bounds, 256 threads: 8 blocks (%d)",
	       blocks(bounds, 256, 0));
	/* The calculator limits a block by the device's maximum only: the
	 * kernel's bound limits the block size search below. */
	tap_ok(blocks(bounds, 512, 0) == 4, "k_bounds, 512 threads: 64 / 16 warps = 4 (%d)",
	       blocks(bounds, 512, 0));

	/* The block size search, from the largest multiple of 32 down. */
	cu_ok(cuOccupancyMaxPotentialBlockSize(&grid, &size, bounds, NULL, 0, 0),
	      "cuOccupancyMaxPotentialBlockSize(k_bounds)");
	tap_ok(size == 256 && grid == 8 * 132,
	       "k_bounds: 256 threads (its bound), 8 blocks on each of 132 (%d, %d)", size, grid);
	cu_ok(cuOccupancyMaxPotentialBlockSize(&grid, &size, bounds, NULL, 0, 100),
	      "... with a block size limit of 100");
	tap_ok(size == 64 && grid == 32 * 132,
	       "100: 1600 threads, 96: 2016, 64: 32 x 64 = 2048 and the search stops (%d, %d)",
	       size, grid);
	cu_ok(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &size, bounds, per_thread_64, 0, 0,
	                                                CU_OCCUPANCY_DEFAULT),
	      "cuOccupancyMaxPotentialBlockSizeWithFlags(k_bounds, 64 bytes per thread)");
	/* 256 threads: 4096 + 16384 + 1024 = 21504 bytes, 10 fit; 8 by warps. */
	tap_ok(size == 256 && grid == 8 * 132, "256 threads, 8 blocks (%d, %d)", size, grid);
	cu_fails(cuOccupancyMaxPotentialBlockSize(&grid, NULL, bounds, NULL, 0, 0),
	         CUDA_ERROR_INVALID_VALUE, "cuOccupancyMaxPotentialBlockSize", "a NULL blockSize");
}

static void check_dynamic(CUfunction plain, CUfunction bounds)
{
	size_t bytes = 0;

	/* cuda_occupancy.h: the multiprocessor's 228 KiB over the blocks,
	 * less the static shared memory, capped by the function's maximum. */
	cu_ok(cuOccupancyAvailableDynamicSMemPerBlock(&bytes, bounds, 2, 256),
	      "cuOccupancyAvailableDynamicSMemPerBlock(k_bounds, 2 blocks)");
	tap_ok(bytes == 49152 - 4096, "capped by its 44 KiB maximum (%zu)", bytes);
	cu_ok(cuOccupancyAvailableDynamicSMemPerBlock(&bytes, plain, 2, 128),
	      "cuOccupancyAvailableDynamicSMemPerBlock(k_plain, 2 blocks)");
	tap_ok(bytes == 233472 / 2, "half of 228 KiB once opted in (%zu)", bytes);
	cu_ok(cuOccupancyAvailableDynamicSMemPerBlock(&bytes, plain, 1, 128),
	      "cuOccupancyAvailableDynamicSMemPerBlock(k_plain, 1 block)");
	tap_ok(bytes == 200000, "capped by the 200000 bytes it opted in to (%zu)", bytes);
	cu_fails(cuOccupancyAvailableDynamicSMemPerBlock(&bytes, plain, 40, 128),
	         CUDA_ERROR_INVALID_VALUE, "cuOccupancyAvailableDynamicSMemPerBlock",
	         "40 blocks of 128 threads, when 16 fit");
}

static void cluster_config(CUlaunchConfig *config, CUlaunchAttribute *attr, unsigned int cluster)
{
	memset(config, 0, sizeof(*config));
	config->gridDimX = 64;
	config->gridDimY = config->gridDimZ = 1;
	config->blockDimX = 128;
	config->blockDimY = config->blockDimZ = 1;
	config->attrs = attr;
	config->numAttrs = cluster ? 1 : 0;
	memset(attr, 0, sizeof(*attr));
	attr->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
	attr->value.clusterDim.x = cluster;
	attr->value.clusterDim.y = attr->value.clusterDim.z = 1;
}

static void check_clusters(CUfunction plain, CUfunction cluster)
{
	CUlaunchConfig config;
	CUlaunchAttribute attr;
	int n = -1;

	cluster_config(&config, &attr, 0);
	cu_ok(cuOccupancyMaxPotentialClusterSize(&n, plain, &config),
	      "cuOccupancyMaxPotentialClusterSize(k_plain)");
	tap_ok(n == 8, "the portable cluster size of 8 (%d)", n);
	cu_ok(cuOccupancyMaxPotentialClusterSize(&n, cluster, &config),
	      "cuOccupancyMaxPotentialClusterSize(k_cluster)");
	tap_ok(n == 2, "its required cluster of 2 (%d)", n);
	cu_fails(cuOccupancyMaxActiveClusters(&n, plain, &config), CUDA_ERROR_INVALID_CLUSTER_SIZE,
	         "cuOccupancyMaxActiveClusters", "k_plain with no cluster size");
	cu_ok(cuOccupancyMaxActiveClusters(&n, cluster, &config),
	      "cuOccupancyMaxActiveClusters(k_cluster) with its required size");
	tap_ok(n == 16 * 132 / 2, "16 blocks of 128 on each of 132 make 1056 clusters of 2 (%d)",
	       n);
	cluster_config(&config, &attr, 4);
	cu_ok(cuOccupancyMaxActiveClusters(&n, plain, &config), "k_plain, clusters of 4");
	tap_ok(n == 16 * 132 / 4, "528 clusters of 4 (%d)", n);
	cu_fails(cuOccupancyMaxActiveClusters(&n, cluster, &config),
	         CUDA_ERROR_INVALID_CLUSTER_SIZE, "cuOccupancyMaxActiveClusters",
	         "k_cluster with clusters of 4, not its 2");
	cluster_config(&config, &attr, 16);
	cu_fails(cuOccupancyMaxActiveClusters(&n, plain, &config), CUDA_ERROR_INVALID_CLUSTER_SIZE,
	         "cuOccupancyMaxActiveClusters", "clusters of 16, not portable");
	cu_ok(cuFuncSetAttribute(plain, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
	      "k_plain allows non-portable cluster sizes");
	cu_ok(cuOccupancyMaxActiveClusters(&n, plain, &config), "clusters of 16");
	tap_ok(n == 16 * 132 / 16, "132 clusters of 16 (%d)", n);
	cu_ok(cuOccupancyMaxPotentialClusterSize(&n, plain, &config),
	      "cuOccupancyMaxPotentialClusterSize(k_plain, non-portable)");
	tap_ok(n == 16, "16 (%d)", n);
	config.blockDimX = 2048;
	cu_ok(cuOccupancyMaxPotentialClusterSize(&n, plain, &config),
	      "cuOccupancyMaxPotentialClusterSize, blocks of 2048 threads");
	tap_ok(n == 0, "no cluster: no such block runs (%d)", n);
	cu_fails(cuOccupancyMaxActiveClusters(&n, plain, NULL), CUDA_ERROR_INVALID_VALUE,
	         "cuOccupancyMaxActiveClusters", "a NULL configuration");
}

int main(void)
{
	CUfunction plain, carve, bounds, cluster;
	CUcontext ctx;
	CUmodule mod = NULL;
	int n = -1;

	printf("# fact pid=%d\n", (int)getpid());
	if (!cu_ok(cuInit(0), "cuInit"))
		return tap_done();
	cu_fails(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, NULL, 32, 0),
	         CUDA_ERROR_INVALID_CONTEXT, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
	         "occupancy without a current context");
	if (!cu_ok(cuCtxCreate(&ctx, NULL, 0, 0), "cuCtxCreate") ||
	    !cu_ok(cuModuleLoadData(&mod, module_ptx), "cuModuleLoadData(PTX)"))
		return tap_done();
	cu_ok(cuModuleGetFunction(&plain, mod, "k_plain"), "k_plain");
	cu_ok(cuModuleGetFunction(&carve, mod, "k_carve"), "k_carve");
	cu_ok(cuModuleGetFunction(&bounds, mod, "k_bounds"), "k_bounds");
	cu_ok(cuModuleGetFunction(&cluster, mod, "k_cluster"), "k_cluster");
	check_device();
	check_blocks(plain, carve, bounds);
	check_dynamic(plain, bounds);
	check_clusters(plain, cluster);
	cu_fails(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, (CUfunction)&n, 32, 0),
	         CUDA_ERROR_INVALID_HANDLE, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
	         "a pointer that is no function");
	cu_ok(cuModuleUnload(mod), "cuModuleUnload");
	cu_ok(cuCtxDestroy(ctx), "cuCtxDestroy");
	return tap_done();
}
