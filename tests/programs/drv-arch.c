/* SPDX-License-Identifier: MIT */
/*
 * drv-arch.c - the driver's module loader against the device's compute
 * capability and the driver's CUDA version (CUDASIM_COMPUTE_CAPABILITY,
 * CUDASIM_DRIVER_VERSION), with the driver API:
 *
 *   drv-arch CUBIN FATBIN
 *
 * CUBIN is an sm_90 cubin (programs/drv-kernels.cubin), FATBIN a fat
 * binary of the same kernels with an sm_90 cubin and compute_80 PTX
 * (programs/drv-arch.fatbin). The program reads the device's compute
 * capability and the driver's version and checks that:
 *  - the cubin loads on compute capability 9.x and is
 *    CUDA_ERROR_NO_BINARY_FOR_GPU anywhere else;
 *  - the fat binary loads on 8.0 and later, its PTX JIT-compiled below
 *    9.0 (needs a driver of CUDA 13.0, its PTX ISA 9.0), and is
 *    CUDA_ERROR_NO_BINARY_FOR_GPU below 8.0;
 *  - PTX text of ISA 8.7 (CUDA 12.8) and 9.0 (CUDA 13.0) for sm_80 loads
 *    where the driver is at least that CUDA version, and is
 *    CUDA_ERROR_UNSUPPORTED_PTX_VERSION where it is older.
 * Prints TAP, "# fact pid=N" and the "# expect" lines of the loads.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static const char ptx_template[] = ".version %s\n"
                                   ".target sm_80\n"
                                   ".address_size 64\n"
                                   ".visible .entry arch_probe()\n"
                                   "{\n"
                                   "ret;\n"
                                   "}\n";

static void *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		data = malloc((size_t)size + 1);
		if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
			free(data);
			data = NULL;
		}
	}
	fclose(f);
	return data;
}

static void check_load(const char *what, const void *image, CUresult want, const char *archs,
                       const char *chosen, int jit, int sm, int driver)
{
	CUmodule module = NULL;
	CUresult r = cuModuleLoadData(&module, image);
	const char *name = NULL;

	cuGetErrorName(r, &name);
	tap_ok(r == want, "%s: cuModuleLoadData is %s (%s)", what,
	       want == CUDA_SUCCESS ? "CUDA_SUCCESS" : "refused", name ? name : "?");
	if (want == CUDA_SUCCESS) {
		tap_expect("op=module_load archs=%s chosen=%s jit=%d", archs, chosen, jit);
		cuModuleUnload(module);
		return;
	}
	cuGetErrorName(want, &name);
	tap_expect("op=module_load_failed archs=%s device=sm_%d driver=%d result=%s "
	           "api=cuModuleLoadData",
	           archs, sm, driver, name);
	tap_expect("op=error api=cuModuleLoadData result=%s", name);
}

int main(int argc, char **argv)
{
	int major = 0, minor = 0, driver = 0, sm;
	char ptx87[512], ptx90[512];
	void *cubin, *fatbin;
	CUcontext ctx;
	CUdevice dev;

	if (argc != 3) {
		fprintf(stderr, "usage: drv-arch CUBIN FATBIN\n");
		return 2;
	}
	printf("# fact pid=%d\n", (int)getpid());
	cubin = read_all(argv[1]);
	fatbin = read_all(argv[2]);
	if (!tap_ok(cubin && fatbin, "the cubin and the fat binary are read")) {
		free(cubin);
		free(fatbin);
		return tap_done();
	}
	tap_ok(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
	           cuDriverGetVersion(&driver) == CUDA_SUCCESS &&
	           cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
	                                dev) == CUDA_SUCCESS &&
	           cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
	                                dev) == CUDA_SUCCESS,
	       "device of compute capability %d.%d, driver of CUDA %d", major, minor, driver);
	sm = major * 10 + minor;
	tap_ok(cuCtxCreate(&ctx, NULL, 0, dev) == CUDA_SUCCESS, "cuCtxCreate");

	check_load("sm_90 cubin", cubin, major == 9 ? CUDA_SUCCESS : CUDA_ERROR_NO_BINARY_FOR_GPU,
	           "sm_90", "sm_90", 0, sm, driver);
	if (sm < 80)
		check_load("fat binary of sm_90 and compute_80", fatbin,
		           CUDA_ERROR_NO_BINARY_FOR_GPU, "compute_80,sm_90", "-", 0, sm, driver);
	else if (major == 9)
		check_load("fat binary of sm_90 and compute_80", fatbin, CUDA_SUCCESS,
		           "compute_80,sm_90", "sm_90", 0, sm, driver);
	else
		check_load("fat binary of sm_90 and compute_80", fatbin,
		           driver >= 13000 ? CUDA_SUCCESS : CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
		           "compute_80,sm_90", "compute_80", 1, sm, driver);

	snprintf(ptx87, sizeof(ptx87), ptx_template, "8.7");
	snprintf(ptx90, sizeof(ptx90), ptx_template, "9.0");
	if (sm >= 80) {
		check_load("PTX ISA 8.7 for sm_80", ptx87,
		           driver >= 12080 ? CUDA_SUCCESS : CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
		           "compute_80", "compute_80", 1, sm, driver);
		check_load("PTX ISA 9.0 for sm_80", ptx90,
		           driver >= 13000 ? CUDA_SUCCESS : CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
		           "compute_80", "compute_80", 1, sm, driver);
	}
	cuCtxDestroy(ctx);
	free(cubin);
	free(fatbin);
	return tap_done();
}
