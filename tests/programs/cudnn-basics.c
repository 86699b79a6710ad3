/* SPDX-License-Identifier: MIT */
/*
 * cudnn-basics.c - the simulated libcudnn.so.9, loaded as a framework
 * loads it, against cudnn_graph.h (cuDNN 9.26.0):
 *
 *   - cudnnGetVersion is CUDNN_VERSION (92600), cudnnGetProperty its
 *     major, minor and patch level, cudnnGetCudartVersion the runtime's
 *     CUDART_VERSION; a NULL value or an unknown property is
 *     CUDNN_STATUS_BAD_PARAM;
 *   - cudnnGetErrorString names the status;
 *   - cudnnCreate makes a handle on the default stream (and starts CUDA:
 *     a context in the ledger), cudnnSetStream / cudnnGetStream set and
 *     read its stream, cudnnDestroy ends it; a NULL handle is
 *     CUDNN_STATUS_BAD_PARAM, with a message for cudnnGetLastErrorString;
 *   - a function the simulator does not implement
 *     (cudnnCreateTensorDescriptor) is CUDNN_STATUS_NOT_SUPPORTED.
 *
 * Prints TAP and "# fact pid=N", and the "# expect" line of the context.
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tests/cudasim/cudnn-api.h"

#define LOOKUP(lib, name) ((__typeof__(&name))dlsym(lib, #name))

int main(void)
{
	void *cudnn = dlopen("libcudnn.so.9", RTLD_NOW);
	__typeof__(&cudnnGetVersion) version;
	__typeof__(&cudnnGetCudartVersion) cudart_version;
	__typeof__(&cudnnGetProperty) property;
	__typeof__(&cudnnGetErrorString) error_string;
	__typeof__(&cudnnGetLastErrorString) last_error;
	__typeof__(&cudnnCreate) create;
	__typeof__(&cudnnDestroy) destroy;
	__typeof__(&cudnnSetStream) set_stream;
	__typeof__(&cudnnGetStream) get_stream;
	int (*create_tensor)(void **);
	cudnnHandle_t handle = NULL;
	cudaStream_t stream = NULL, got = (cudaStream_t)1;
	int major = -1, minor = -1, patch = -1;
	char message[128] = "";
	void *tensor = NULL;

	printf("# fact pid=%d\n", (int)getpid());
	if (!tap_ok(cudnn != NULL, "libcudnn.so.9 loads (%s)", cudnn ? "yes" : dlerror()))
		return tap_done();
	version = LOOKUP(cudnn, cudnnGetVersion);
	cudart_version = LOOKUP(cudnn, cudnnGetCudartVersion);
	property = LOOKUP(cudnn, cudnnGetProperty);
	error_string = LOOKUP(cudnn, cudnnGetErrorString);
	last_error = LOOKUP(cudnn, cudnnGetLastErrorString);
	create = LOOKUP(cudnn, cudnnCreate);
	destroy = LOOKUP(cudnn, cudnnDestroy);
	set_stream = LOOKUP(cudnn, cudnnSetStream);
	get_stream = LOOKUP(cudnn, cudnnGetStream);
	create_tensor = (int (*)(void **))dlsym(cudnn, "cudnnCreateTensorDescriptor");
	if (!tap_ok(version && cudart_version && property && error_string && last_error && create &&
	                destroy && set_stream && get_stream && create_tensor,
	            "cuDNN exports what the test calls"))
		return tap_done();

	tap_ok(version() == 92600, "cudnnGetVersion: 92600 (got %zu)", version());
	if (property(MAJOR_VERSION, &major) != CUDNN_STATUS_SUCCESS ||
	    property(MINOR_VERSION, &minor) != CUDNN_STATUS_SUCCESS ||
	    property(PATCH_LEVEL, &patch) != CUDNN_STATUS_SUCCESS)
		major = minor = patch = -1;
	tap_ok(major == 9 && minor == 26 && patch == 0, "cudnnGetProperty: 9.26.0 (got %d.%d.%d)",
	       major, minor, patch);
	tap_ok(
	    property(MAJOR_VERSION, NULL) == CUDNN_STATUS_BAD_PARAM &&
	        property((libraryPropertyType)7, &major) == CUDNN_STATUS_BAD_PARAM,
	    "cudnnGetProperty without a value, or of an unknown property: CUDNN_STATUS_BAD_PARAM");
	tap_ok(cudart_version() == CUDART_VERSION, "cudnnGetCudartVersion: %d (got %zu)",
	       CUDART_VERSION, cudart_version());
	tap_ok(!strcmp(error_string(CUDNN_STATUS_SUCCESS), "CUDNN_STATUS_SUCCESS") &&
	           !strcmp(error_string(CUDNN_STATUS_NOT_SUPPORTED), "CUDNN_STATUS_NOT_SUPPORTED"),
	       "cudnnGetErrorString names the status");

	tap_ok(create(NULL) == CUDNN_STATUS_BAD_PARAM, "cudnnCreate(NULL): CUDNN_STATUS_BAD_PARAM");
	last_error(message, sizeof(message));
	tap_ok(message[0] != '\0', "... with a message for cudnnGetLastErrorString ('%s')",
	       message);
	tap_ok(create(&handle) == CUDNN_STATUS_SUCCESS && handle, "cudnnCreate makes a handle");
	tap_expect("op=ctx_create dev=0 primary=1");
	tap_ok(get_stream(handle, &got) == CUDNN_STATUS_SUCCESS && got == NULL,
	       "its stream is the default stream");
	tap_ok(cudaStreamCreate(&stream) == cudaSuccess &&
	           set_stream(handle, stream) == CUDNN_STATUS_SUCCESS &&
	           get_stream(handle, &got) == CUDNN_STATUS_SUCCESS && got == stream,
	       "cudnnSetStream, then cudnnGetStream gives that stream");
	tap_ok(set_stream(NULL, stream) == CUDNN_STATUS_BAD_PARAM &&
	           get_stream(handle, NULL) == CUDNN_STATUS_BAD_PARAM,
	       "a NULL handle or out pointer: CUDNN_STATUS_BAD_PARAM");
	tap_ok(create_tensor(&tensor) == CUDNN_STATUS_NOT_SUPPORTED,
	       "cudnnCreateTensorDescriptor, a generated stub: CUDNN_STATUS_NOT_SUPPORTED");
	tap_ok(destroy(handle) == CUDNN_STATUS_SUCCESS, "cudnnDestroy");
	cudaStreamDestroy(stream);
	return tap_done();
}
