/* SPDX-License-Identifier: MIT */
/*
 * env-versions.c - what a program sees of the simulated driver's version
 * and the device's compute capability, through the runtime, the driver
 * and NVML.
 *
 *   env-versions DRIVER DRIVER_STRING MAJOR MINOR
 *
 * DRIVER is the CUDA version the driver should report (12020), DRIVER_STRING
 * the version string NVML should give ("535.54.03"), MAJOR.MINOR the
 * compute capability. A driver older than the runtime's major version makes
 * the runtime's first call, and every later one, fail with
 * cudaErrorInsufficientDriver (35) while cudaDriverGetVersion and
 * cudaRuntimeGetVersion still answer (cuda_runtime_api.h); the driver API
 * itself still works then. Prints TAP, "# fact pid=N" and the "# expect"
 * lines of the runtime's start and of the calls that fail, for the ledger.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

/* NVML as a program loads it by hand (nvml.h is not in the toolkit). */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_int_fn)(int *);
typedef int (*nvml_text_fn)(char *, unsigned int);
typedef int (*nvml_handle_fn)(unsigned int, void **);
typedef int (*nvml_cc_fn)(void *, int *, int *);

static void check_nvml(int driver, const char *driver_string, int major, int minor)
{
	void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	nvml_init_fn init;
	nvml_int_fn cuda_version;
	nvml_text_fn driver_version, nvml_version;
	nvml_handle_fn handle;
	nvml_cc_fn cc;
	char text[96], want[96];
	void *device = NULL;
	int value = 0, got_major = 0, got_minor = 0;

	if (!tap_ok(nvml != NULL, "libnvidia-ml.so.1 loads (%s)", nvml ? "yes" : dlerror()))
		return;
	init = (nvml_init_fn)dlsym(nvml, "nvmlInit_v2");
	cuda_version = (nvml_int_fn)dlsym(nvml, "nvmlSystemGetCudaDriverVersion_v2");
	driver_version = (nvml_text_fn)dlsym(nvml, "nvmlSystemGetDriverVersion");
	nvml_version = (nvml_text_fn)dlsym(nvml, "nvmlSystemGetNVMLVersion");
	handle = (nvml_handle_fn)dlsym(nvml, "nvmlDeviceGetHandleByIndex_v2");
	cc = (nvml_cc_fn)dlsym(nvml, "nvmlDeviceGetCudaComputeCapability");
	if (!tap_ok(init && cuda_version && driver_version && nvml_version && handle && cc,
	            "NVML exports what the test calls"))
		return;
	tap_ok(init() == 0, "nvmlInit_v2");
	tap_ok(cuda_version(&value) == 0 && value == driver,
	       "nvmlSystemGetCudaDriverVersion_v2 is the driver's CUDA version (%d, expected %d)",
	       value, driver);
	text[0] = '\0';
	tap_ok(driver_version(text, sizeof(text)) == 0 && !strcmp(text, driver_string),
	       "nvmlSystemGetDriverVersion is that driver's ('%s', expected '%s')", text,
	       driver_string);
	snprintf(want, sizeof(want), "%d.%s", driver / 1000, driver_string);
	text[0] = '\0';
	tap_ok(nvml_version(text, sizeof(text)) == 0 && !strcmp(text, want),
	       "nvmlSystemGetNVMLVersion is the CUDA major version and the driver's ('%s', "
	       "expected '%s')",
	       text, want);
	tap_ok(handle(0, &device) == 0 && cc(device, &got_major, &got_minor) == 0 &&
	           got_major == major && got_minor == minor,
	       "nvmlDeviceGetCudaComputeCapability is %d.%d (expected %d.%d)", got_major, got_minor,
	       major, minor);
}

int main(int argc, char **argv)
{
	int driver, major, minor, value = -1, count = -1, runtime_ok;
	int got_major = -1, got_minor = -1;
	struct cudaDeviceProp prop;
	cudaError_t result;
	CUdevice dev;
	void *p = NULL;

	if (argc != 5) {
		fprintf(stderr, "usage: env-versions DRIVER DRIVER_STRING MAJOR MINOR\n");
		return 2;
	}
	driver = atoi(argv[1]);
	major = atoi(argv[3]);
	minor = atoi(argv[4]);
	runtime_ok = driver >= CUDART_VERSION / 1000 * 1000;
	printf("# fact pid=%d\n", (int)getpid());

	/* The runtime: the version queries answer whatever the driver. */
	tap_ok(cudaDriverGetVersion(&value) == cudaSuccess && value == driver,
	       "cudaDriverGetVersion is %d (expected %d)", value, driver);
	tap_ok(cudaRuntimeGetVersion(&value) == cudaSuccess && value == CUDART_VERSION,
	       "cudaRuntimeGetVersion is %d", value);
	result = cudaGetDeviceCount(&count);
	if (runtime_ok) {
		tap_ok(result == cudaSuccess && count == 1, "cudaGetDeviceCount (%s, %d)",
		       cudaGetErrorName(result), count);
		tap_expect("op=runtime_init runtime=%d driver=%d required=%d result=cudaSuccess "
		           "api=cudaGetDeviceCount",
		           CUDART_VERSION, driver, CUDART_VERSION / 1000 * 1000);
		result = cudaGetDeviceProperties(&prop, 0);
		tap_ok(result == cudaSuccess && prop.major == major && prop.minor == minor,
		       "cudaGetDeviceProperties: compute capability %d.%d (expected %d.%d)",
		       prop.major, prop.minor, major, minor);
		result = cudaMalloc(&p, 1024);
		tap_ok(result == cudaSuccess, "cudaMalloc works (%s)", cudaGetErrorName(result));
		tap_expect("op=alloc kind=device size=1024 api=cudaMalloc");
		cudaFree(p);
		tap_expect("op=free kind=device size=1024 api=cudaFree");
	} else {
		tap_ok(result == cudaErrorInsufficientDriver,
		       "cudaGetDeviceCount, the first call that needs the driver: "
		       "cudaErrorInsufficientDriver (%s)",
		       cudaGetErrorName(result));
		tap_expect("op=runtime_init runtime=%d driver=%d required=%d "
		           "result=cudaErrorInsufficientDriver api=cudaGetDeviceCount",
		           CUDART_VERSION, driver, CUDART_VERSION / 1000 * 1000);
		tap_expect("op=error api=cudaGetDeviceCount result=cudaErrorInsufficientDriver");
		result = cudaMalloc(&p, 1024);
		tap_ok(result == cudaErrorInsufficientDriver,
		       "every later call fails the same: cudaMalloc (%s)",
		       cudaGetErrorName(result));
		tap_expect("op=error api=cudaMalloc result=cudaErrorInsufficientDriver");
		result = cudaGetLastError();
		tap_ok(result == cudaErrorInsufficientDriver, "cudaGetLastError says it too (%s)",
		       cudaGetErrorName(result));
	}

	/* The driver API works on any driver. */
	tap_ok(cuInit(0) == CUDA_SUCCESS, "cuInit");
	tap_ok(cuDriverGetVersion(&value) == CUDA_SUCCESS && value == driver,
	       "cuDriverGetVersion is %d", value);
	tap_ok(cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
	           cuDeviceGetAttribute(&got_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
	                                dev) == CUDA_SUCCESS &&
	           cuDeviceGetAttribute(&got_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
	                                dev) == CUDA_SUCCESS &&
	           got_major == major && got_minor == minor,
	       "cuDeviceGetAttribute: compute capability %d.%d (expected %d.%d)", got_major,
	       got_minor, major, minor);

	check_nvml(driver, argv[2], major, minor);
	return tap_done();
}
