/* SPDX-License-Identifier: MIT */
/*
 * driver-info.c - what the driver says of itself. The driver that loaded
 * cudatrace is already in the process: it is found with RTLD_NOLOAD
 * (also when the program loaded it RTLD_LOCAL, as Python's ctypes does)
 * and asked with cuDriverGetVersion, which needs no cuInit and which
 * CUPTI does not report to cudatrace. NVML gives the driver's version
 * string (580.65.06), which the CUDA API does not.
 */
#include <dlfcn.h>
#include <string.h>

#include "driver-info.h"
#include "emit.h"
#include "nvml.h"
#include "text.h"

static int cuda_version;
static char driver_version[96];

static int driver_cuda_version(void)
{
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	int (*get)(int *);
	int version = 0;

	if (!cuda)
		return 0;
	get = (int (*)(int *))dlsym(cuda, "cuDriverGetVersion");
	if (!get || get(&version) != 0)
		version = 0;
	dlclose(cuda);
	return version;
}

void driver_info_read(void)
{
	cuda_version = driver_cuda_version();
	if (!nvml_driver_text(driver_version, sizeof(driver_version)))
		driver_version[0] = '\0';
}

void driver_info_emit(void)
{
	EMIT(driver_info, &(struct ct_ev_driver_info){
	                      .cuda_version = cuda_version,
	                      .driver_version = driver_version,
	                      .driver_version_len = text_length(driver_version),
	                  });
}
