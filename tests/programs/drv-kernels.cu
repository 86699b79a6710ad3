/* SPDX-License-Identifier: MIT */
/*
 * drv-kernels.cu - device code for drv-roundtrip, built into a cubin with
 * `nvcc -cubin -arch=sm_90` and loaded with cuModuleLoad/cuModuleLoadData.
 * extern "C" keeps the names that cuModuleGetFunction looks up unmangled.
 */

extern "C" __global__ void drv_fill(unsigned int *p, unsigned int n, unsigned int v)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] = v;
}

extern "C" __global__ void drv_add(float *p, unsigned int n, float a)
{
	unsigned int i = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;

	if (i < n)
		p[i] += a;
}
