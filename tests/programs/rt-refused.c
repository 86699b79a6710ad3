/* SPDX-License-Identifier: MIT */
/*
 * rt-refused.c - a runtime program as it fails under a driver too old for
 * its runtime: the first call that needs the driver returns
 * cudaErrorInsufficientDriver (35), and the program gives up, as programs
 * do, without ever calling the driver API (so the driver never loads an
 * injection library: cuInit is what loads it).
 *
 * Prints what the runtime says of the two versions (cudaRuntimeGetVersion
 * and cudaDriverGetVersion answer whatever the driver: cuda_runtime_api.h)
 * and the error, as "# fact" lines:
 *
 *     # fact pid=N
 *     # fact runtime=13000
 *     # fact driver=12020
 *     # fact error=cudaErrorInsufficientDriver
 *
 * Exits with 0 when CUDA started, 1 when it refused.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int runtime = 0, driver = 0, count = 0;
	cudaError_t result;

	printf("# fact pid=%d\n", (int)getpid());
	if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
		printf("# fact runtime=%d\n", runtime);
	if (cudaDriverGetVersion(&driver) == cudaSuccess)
		printf("# fact driver=%d\n", driver);
	result = cudaGetDeviceCount(&count);
	printf("# fact error=%s\n", cudaGetErrorName(result));
	if (result != cudaSuccess) {
		fprintf(stderr, "rt-refused: %s\n", cudaGetErrorString(result));
		return 1;
	}
	return 0;
}
