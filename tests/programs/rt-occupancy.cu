/* SPDX-License-Identifier: MIT */
/*
 * rt-occupancy.cu - the runtime's occupancy calls and the C++ helpers of
 * cuda_runtime.h that search block sizes with them, checked against the
 * CUDA Occupancy Calculator of the toolkit (cuda_occupancy.h) fed with
 * what cudaGetDeviceProperties and cudaFuncGetAttributes report: the
 * simulator's answers must be those the calculator computes from the
 * device and kernel it describes. Built with uncompressed PTX for
 * compute_90 (tests/Makefile.am), from which the simulator reads the
 * kernels' launch bounds and static shared memory.
 *
 * Prints TAP, "# fact pid=N" and the "# expect" error lines of the calls
 * that fail, for the ledger.
 */
#include <cuda_occupancy.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

extern "C" __global__ void occ_plain(float *p)
{
	if (p)
		p[threadIdx.x] = 0;
}

extern "C" __global__ void __launch_bounds__(256) occ_bounds(float *p)
{
	__shared__ float buf[1024];

	buf[threadIdx.x] = p[threadIdx.x];
	__syncthreads();
	p[threadIdx.x] = buf[255 - threadIdx.x];
}

static void host_function(void)
{
}

/* Dynamic shared memory of 16 bytes per thread. */
struct per_thread {
	__host__ __device__ size_t operator()(int block_size) const
	{
		return (size_t)block_size * 16;
	}
};

static bool rt_ok(cudaError_t r, const char *what)
{
	return tap_ok(r == cudaSuccess, "%s (%s)", what, cudaGetErrorName(r));
}

/* The calculator's description of the device and of a kernel, from the
 * runtime's own answers (the conversions cuda_occupancy.h provides). */
struct reference {
	cudaOccDeviceProp device;
	cudaOccFuncAttributes function;
	cudaOccDeviceState state;
};

static bool describe(const void *kernel, struct reference *ref)
{
	cudaDeviceProp prop;
	cudaFuncAttributes attr;

	if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
	    cudaFuncGetAttributes(&attr, kernel) != cudaSuccess)
		return false;
	ref->device = prop;
	ref->function = attr;
	ref->state = cudaOccDeviceState();
	return true;
}

/* Every block size (multiples of 32 and a few others) with a few dynamic
 * shared memory sizes: the runtime's answer is the calculator's. */
static void compare_blocks(const char *name, const void *kernel)
{
	static const size_t dynamic[] = { 0, 1000, 16384, 45056, 49152, 49153 };
	struct reference ref;
	int tried = 0, differ = 0;

	if (!tap_ok(describe(kernel, &ref), "%s: the calculator's inputs", name))
		return;
	for (int block = 1; block <= 1056; block += block < 64 ? 7 : 32) {
		for (size_t i = 0; i < sizeof(dynamic) / sizeof(dynamic[0]); i++) {
			cudaOccResult want;
			int got = -1;

			memset(&want, 0, sizeof(want));
			cudaOccMaxActiveBlocksPerMultiprocessor(&want, &ref.device, &ref.function,
			                                        &ref.state, block, dynamic[i]);
			cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, kernel, block,
			                                              dynamic[i]);
			tried++;
			if (got != want.activeBlocksPerMultiprocessor && differ++ < 3)
				tap_diag("%s, %d threads, %zu bytes: %d, the calculator says %d",
				         name, block, dynamic[i], got,
				         want.activeBlocksPerMultiprocessor);
		}
	}
	tap_ok(differ == 0, "%s: %d block and shared memory sizes, as the calculator (%d differ)",
	       name, tried, differ);
}

static void check_helpers(void)
{
	struct reference ref;
	int grid = -1, size = -1, want_grid = -2, want_size = -2;
	size_t bytes = 0, want_bytes = 1;

	describe((const void *)occ_bounds, &ref);
	rt_ok(cudaOccupancyMaxPotentialBlockSize(&grid, &size, occ_bounds),
	      "cudaOccupancyMaxPotentialBlockSize(occ_bounds)");
	cudaOccMaxPotentialOccupancyBlockSize(&want_grid, &want_size, &ref.device, &ref.function,
	                                      &ref.state, 0);
	tap_ok(grid == want_grid && size == want_size && size == 256,
	       "a block of %d for a grid of %d, as the calculator (%d, %d)", size, grid, want_size,
	       want_grid);
	rt_ok(
	    cudaOccupancyMaxPotentialBlockSizeVariableSMem(&grid, &size, occ_bounds, per_thread()),
	    "cudaOccupancyMaxPotentialBlockSizeVariableSMem(16 bytes per thread)");
	cudaOccMaxPotentialOccupancyBlockSizeVariableSMem(&want_grid, &want_size, &ref.device,
	                                                  &ref.function, &ref.state, per_thread());
	tap_ok(grid == want_grid && size == want_size, "%d, %d, as the calculator (%d, %d)", size,
	       grid, want_size, want_grid);

	describe((const void *)occ_plain, &ref);
	rt_ok(cudaOccupancyMaxPotentialBlockSize(&grid, &size, occ_plain, 20000),
	      "cudaOccupancyMaxPotentialBlockSize(occ_plain, 20000 bytes)");
	cudaOccMaxPotentialOccupancyBlockSize(&want_grid, &want_size, &ref.device, &ref.function,
	                                      &ref.state, 20000);
	tap_ok(grid == want_grid && size == want_size, "%d, %d, as the calculator (%d, %d)", size,
	       grid, want_size, want_grid);
	rt_ok(cudaOccupancyMaxPotentialBlockSize(&grid, &size, occ_plain, 0, 100),
	      "cudaOccupancyMaxPotentialBlockSize(occ_plain, block size limit 100)");
	tap_ok(size == 64 && grid == 32 * ref.device.numSms,
	       "64 threads, 32 blocks on each multiprocessor (%d, %d)", size, grid);

	rt_ok(cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, occ_bounds, 3, 256),
	      "cudaOccupancyAvailableDynamicSMemPerBlock(occ_bounds, 3 blocks)");
	describe((const void *)occ_bounds, &ref);
	cudaOccAvailableDynamicSMemPerBlock(&want_bytes, &ref.device, &ref.function, &ref.state, 3,
	                                    256);
	tap_ok(bytes == want_bytes, "%zu bytes, as the calculator (%zu)", bytes, want_bytes);
	rt_ok(cudaFuncSetAttribute(occ_plain, cudaFuncAttributeMaxDynamicSharedMemorySize, 150000),
	      "occ_plain opts in to 150000 bytes");
	rt_ok(cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, occ_plain, 1, 128),
	      "cudaOccupancyAvailableDynamicSMemPerBlock(occ_plain, 1 block)");
	tap_ok(bytes == 150000, "all it opted in to (%zu)", bytes);
	compare_blocks("occ_plain opted in", (const void *)occ_plain);
}

static void check_clusters(void)
{
	cudaLaunchConfig_t config = {};
	cudaLaunchAttribute attr = {};
	cudaDeviceProp prop;
	int n = -1, per_sm = -1;

	cudaGetDeviceProperties(&prop, 0);
	config.gridDim = dim3(64);
	config.blockDim = dim3(128);
	rt_ok(cudaOccupancyMaxPotentialClusterSize(&n, (const void *)occ_bounds, &config),
	      "cudaOccupancyMaxPotentialClusterSize");
	tap_ok(n == 8, "the portable 8 blocks (%d)", n);
	attr.id = cudaLaunchAttributeClusterDimension;
	attr.val.clusterDim.x = 4;
	attr.val.clusterDim.y = 1;
	attr.val.clusterDim.z = 1;
	config.attrs = &attr;
	config.numAttrs = 1;
	rt_ok(cudaOccupancyMaxActiveClusters(&n, (const void *)occ_bounds, &config),
	      "cudaOccupancyMaxActiveClusters, clusters of 4");
	cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, occ_bounds, 128, 0);
	tap_ok(n == per_sm * prop.multiProcessorCount / 4,
	       "%d blocks per multiprocessor on %d of them make %d clusters (%d)", per_sm,
	       prop.multiProcessorCount, per_sm * prop.multiProcessorCount / 4, n);
}

int main(void)
{
	cudaKernel_t kernel = NULL;
	int n = -1, via_kernel = -2;

	printf("# fact pid=%d\n", (int)getpid());
	rt_ok(cudaFree(0), "the runtime starts");
	compare_blocks("occ_plain", (const void *)occ_plain);
	compare_blocks("occ_bounds", (const void *)occ_bounds);
	rt_ok(cudaGetKernel(&kernel, occ_bounds), "cudaGetKernel(occ_bounds)");
	cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, occ_bounds, 256, 0);
	rt_ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&via_kernel, (const void *)kernel, 256,
	                                                    0),
	      "occupancy through its cudaKernel_t");
	tap_ok(n == via_kernel && n == 8, "the same 8 blocks (%d, %d)", n, via_kernel);
	{
		cudaError_t r = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		    &n, (const void *)host_function, 32, 0);

		tap_expect("op=error api=cudaOccupancyMaxActiveBlocksPerMultiprocessor "
		           "result=cudaErrorInvalidDeviceFunction");
		tap_ok(r == cudaErrorInvalidDeviceFunction,
		       "a host function is cudaErrorInvalidDeviceFunction (%s)",
		       cudaGetErrorName(r));
		cudaGetLastError();
	}
	check_helpers();
	check_clusters();
	return tap_done();
}
