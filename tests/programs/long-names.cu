/* SPDX-License-Identifier: MIT */
/*
 * long-names.cu - kernels whose mangled names are as long as C++ template
 * libraries make them (PyTorch's elementwise kernels: 300 to 1,000
 * bytes): two instances of one kernel template, of about 340 and 410
 * bytes, each launched ROUNDS times (default 3). Prints "rounds=N".
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

namespace a_numerics_library_whose_namespaces_are_long_as_template_libraries_make_them
{
namespace detail_of_the_elementwise_operations_and_their_functors_and_policies
{

template <typename T, int Vector> struct multiply_then_add_functor_with_a_long_name {
	__device__ T operator()(T x) const
	{
		return x * (T)Vector + (T)1;
	}
};

template <int Depth> struct launch_policy_of_a_given_depth_and_a_long_descriptive_name {
};

template <typename Functor, typename Policy>
__global__ void elementwise_kernel_through_layers_of_templates(Functor f, Policy, float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] = f(p[i]);
}

} // namespace detail_of_the_elementwise_operations_and_their_functors_and_policies
} // namespace a_numerics_library_whose_namespaces_are_long_as_template_libraries_make_them

namespace lib = a_numerics_library_whose_namespaces_are_long_as_template_libraries_make_them::
    detail_of_the_elementwise_operations_and_their_functors_and_policies;

/* A policy nested in templates: a longer name for the second instance. */
template <typename Inner> struct nest {
};
using policy = lib::launch_policy_of_a_given_depth_and_a_long_descriptive_name<1>;
using nested = nest<nest<nest<nest<nest<nest<nest<nest<policy>>>>>>>>;

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	lib::multiply_then_add_functor_with_a_long_name<float, 4> f;
	float *p = NULL;

	if (cudaMalloc((void **)&p, 256 * sizeof(float)) != cudaSuccess) {
		printf("Bail out! no device\n");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		lib::elementwise_kernel_through_layers_of_templates<<<1, 256>>>(f, policy(), p,
		                                                                256);
		lib::elementwise_kernel_through_layers_of_templates<<<1, 256>>>(f, nested(), p,
		                                                                256);
	}
	if (cudaDeviceSynchronize() != cudaSuccess || cudaFree(p) != cudaSuccess) {
		printf("Bail out! the kernels failed\n");
		return 1;
	}
	printf("rounds=%d\n", rounds);
	return 0;
}
