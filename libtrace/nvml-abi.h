/* SPDX-License-Identifier: MIT */
/*
 * nvml-abi.h - the few NVML declarations cudatrace uses.
 *
 * NVML's header is not part of the CUDA toolkit everywhere, and cudatrace
 * opens libnvidia-ml.so.1 with dlopen, so it only needs the ABI: these
 * types and signatures are those of NVIDIA's nvml.h (API version 12).
 */
#ifndef CUDATRACE_NVML_ABI_H
#define CUDATRACE_NVML_ABI_H

typedef int nvmlReturn_t;
#define NVML_SUCCESS 0

#define NVML_DEVICE_UUID_BUFFER_SIZE 80

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct nvmlMemory_st {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;

#define NVML_ERROR_INSUFFICIENT_SIZE 7
/* usedGpuMemory when NVML cannot say (a process in another container). */
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

/* nvmlProcessInfo_t of API version 12 (nvmlProcessInfo_v2_t). */
typedef struct nvmlProcessInfo_st {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlSystemGetCudaDriverVersion_fn)(int *version);
typedef nvmlReturn_t (*nvmlSystemGetDriverVersion_fn)(char *version, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned int *count);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned int index, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByUUID_fn)(const char *uuid, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t device, nvmlMemory_t *memory);
typedef nvmlReturn_t (*nvmlDeviceGetComputeRunningProcesses_v3_fn)(nvmlDevice_t device,
                                                                   unsigned int *infoCount,
                                                                   nvmlProcessInfo_t *infos);

#endif /* CUDATRACE_NVML_ABI_H */
