/* SPDX-License-Identifier: MIT */
/*
 * nvml.c - the simulated libnvidia-ml.so.1: the simulated devices as NVML
 * sees them (count, handles, name, UUID, PCI bus id, memory) and the
 * processes that use them. It reads the same CUDASIM_* variables as the
 * driver, parsed by the same code (sim-env.c), and never calls the CUDA
 * API: this process's own use comes from the driver's
 * sim_device_memory_usage when libcuda.so.1 is loaded, and is 0 otherwise.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "nvml-api.h"
#include "sim-env.h"
#include "sim-hooks.h"

#define NO_INSTANCE 0xFFFFFFFFu /* gpuInstanceId/computeInstanceId without MIG */

struct nvmlDevice_st {
	unsigned int index;
};

/* The environment, read once (README.md, "Environment"). */
struct nvml_config {
	unsigned int device_count;
	uint64_t device_memory;
	int driver_version;     /* CUDASIM_DRIVER_VERSION, as the driver has it */
	const char *driver;     /* its driver's version string (sim-env.c) */
	char nvml_version[48];  /* "13.580.65.06": CUDA major, then the driver */
	int cc_major, cc_minor; /* CUDASIM_COMPUTE_CAPABILITY */
	int other_count;
	struct sim_other_process others[SIM_MAX_DEVICES];
};

static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static struct nvml_config config;
static struct nvmlDevice_st devices[SIM_MAX_DEVICES];

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int init_count; /* nvmlInit calls not yet shut down */

/* ------------------------------------------------------------ config */

/*
 * The driver's parsing (sim-env.c), without its warnings: a value that
 * does not parse leaves the default. CUDASIM_NO_DEVICE=1 is no device at
 * all. Unlike the driver, a CUDASIM_OTHER_PROCESSES list whose bytes on one
 * device add up past 2^64 is not refused here.
 */
static void read_config(void)
{
	const char *devices_text = getenv("CUDASIM_DEVICES");
	const char *no_device_text = getenv("CUDASIM_NO_DEVICE");
	const char *memory_text = getenv("CUDASIM_DEVICE_MEMORY");
	const char *others_text = getenv("CUDASIM_OTHER_PROCESSES");
	const char *driver_text = getenv("CUDASIM_DRIVER_VERSION");
	const char *cc_text = getenv("CUDASIM_COMPUTE_CAPABILITY");
	bool no_device = false;
	int count = 1;
	uint64_t bytes;

	if (devices_text)
		(void)sim_parse_device_count(devices_text, &count);
	if (no_device_text && sim_parse_flag(no_device_text, &no_device) && no_device)
		count = 0;
	config.device_count = (unsigned int)count;
	config.device_memory = SIM_DEVICE_MEMORY_DEFAULT;
	if (memory_text && sim_parse_size(memory_text, &bytes) && bytes >= SIM_DEVICE_MEMORY_MIN)
		config.device_memory = bytes;
	if (others_text && *others_text &&
	    !sim_parse_other_processes(others_text, count, config.others, &config.other_count))
		config.other_count = 0;
	config.driver_version = SIM_DRIVER_VERSION_DEFAULT;
	if (driver_text)
		(void)sim_parse_driver_version(driver_text, &config.driver_version);
	config.driver = sim_driver_release(config.driver_version);
	snprintf(config.nvml_version, sizeof(config.nvml_version), "%d.%s",
	         config.driver_version / 1000, config.driver);
	config.cc_major = SIM_CC_MAJOR_DEFAULT;
	config.cc_minor = SIM_CC_MINOR_DEFAULT;
	if (cc_text)
		(void)sim_parse_compute_capability(cc_text, &config.cc_major, &config.cc_minor);
	for (unsigned int i = 0; i < SIM_MAX_DEVICES; i++)
		devices[i].index = i;
}

static const struct nvml_config *nvml_config(void)
{
	pthread_once(&config_once, read_config);
	return &config;
}

/* ------------------------------------------------------------ helpers */

static bool initialized(void)
{
	bool result;

	pthread_mutex_lock(&init_lock);
	result = init_count > 0;
	pthread_mutex_unlock(&init_lock);
	return result;
}

/* The index of a handle this library gave out, checked without reading
 * through it: NVML_ERROR_INVALID_ARGUMENT for anything else. */
static nvmlReturn_t check_device(nvmlDevice_t device, unsigned int *index)
{
	uintptr_t address = (uintptr_t)device, first = (uintptr_t)&devices[0];

	if (!initialized())
		return NVML_ERROR_UNINITIALIZED;
	if (address < first || (address - first) % sizeof(devices[0]) != 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	*index = (unsigned int)((address - first) / sizeof(devices[0]));
	if (*index >= nvml_config()->device_count)
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_SUCCESS;
}

/* check_device, then a non-NULL out pointer: how the device queries begin. */
static nvmlReturn_t check_device_out(nvmlDevice_t device, const void *out, unsigned int *index)
{
	nvmlReturn_t result = check_device(device, index);

	if (result != NVML_SUCCESS)
		return result;
	return out ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

/* Copy text into a caller's buffer of length bytes. */
static nvmlReturn_t copy_text(char *buffer, unsigned int length, const char *text)
{
	if (!buffer)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(text) + 1 > length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buffer, text, strlen(text) + 1);
	return NVML_SUCCESS;
}

/* As driver-device.c: bytes c5d1513a-7e5f-4c75-9e0d-5a1e, then the index
 * as 4 big-endian bytes. */
static void format_uuid(unsigned int index, char *text, size_t size)
{
	snprintf(text, size, "GPU-c5d1513a-7e5f-4c75-9e0d-5a1e%08x", index);
}

/* This process's reservation on a device, from the simulated driver if it
 * is loaded; the process is not using the device otherwise. */
static uint64_t own_usage(unsigned int index)
{
	int (*usage)(int, uint64_t *, uint64_t *);
	void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	uint64_t used = 0, total = 0;

	if (!driver)
		return 0;
	*(void **)&usage = dlsym(driver, "sim_device_memory_usage");
	if (!usage || usage((int)index, &used, &total) != 0)
		used = 0;
	dlclose(driver);
	return used;
}

static uint64_t others_usage(unsigned int index)
{
	const struct nvml_config *cfg = nvml_config();
	uint64_t bytes = 0;

	for (int i = 0; i < cfg->other_count; i++)
		if ((unsigned int)cfg->others[i].device == index)
			bytes += cfg->others[i].bytes;
	return bytes;
}

/* ------------------------------------------------------------ init */

static nvmlReturn_t init_with_flags(unsigned int flags)
{
	/* NVML_INIT_FLAG_NO_GPUS: "Don't fail nvmlInit() when no GPUs are
	 * found"; without it, no device reads as no driver to talk to. */
	if (nvml_config()->device_count == 0 && !(flags & NVML_INIT_FLAG_NO_GPUS))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	pthread_mutex_lock(&init_lock);
	init_count++;
	pthread_mutex_unlock(&init_lock);
	return NVML_SUCCESS;
}

SIM_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	return init_with_flags(0);
}

SIM_EXPORT nvmlReturn_t nvmlInit(void)
{
	return init_with_flags(0);
}

SIM_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
	return init_with_flags(flags);
}

/* Initialisations are counted; each nvmlShutdown undoes one. */
SIM_EXPORT nvmlReturn_t nvmlShutdown(void)
{
	nvmlReturn_t result = NVML_SUCCESS;

	pthread_mutex_lock(&init_lock);
	if (init_count == 0)
		result = NVML_ERROR_UNINITIALIZED;
	else
		init_count--;
	pthread_mutex_unlock(&init_lock);
	return result;
}

/* NVML's own wording (as pynvml and DCGM quote it). */
SIM_EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
	switch (result) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_UNINITIALIZED:
		return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_NO_PERMISSION:
		return "Insufficient Permissions";
	case NVML_ERROR_ALREADY_INITIALIZED:
		return "Already Initialized";
	case NVML_ERROR_NOT_FOUND:
		return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case NVML_ERROR_INSUFFICIENT_POWER:
		return "Insufficient External Power";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case NVML_ERROR_TIMEOUT:
		return "Timeout";
	case NVML_ERROR_IRQ_ISSUE:
		return "Interrupt Request Issue";
	case NVML_ERROR_LIBRARY_NOT_FOUND:
		return "NVML Shared Library Not Found";
	case NVML_ERROR_FUNCTION_NOT_FOUND:
		return "Function Not Found";
	case NVML_ERROR_CORRUPTED_INFOROM:
		return "Corrupted infoROM";
	case NVML_ERROR_GPU_IS_LOST:
		return "GPU is lost";
	case NVML_ERROR_RESET_REQUIRED:
		return "GPU requires restart";
	case NVML_ERROR_OPERATING_SYSTEM:
		return "The operating system has blocked the request.";
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		return "RM has detected an NVML/RM version mismatch.";
	case NVML_ERROR_IN_USE:
		return "In use by another client";
	case NVML_ERROR_MEMORY:
		return "Insufficient Memory";
	case NVML_ERROR_NO_DATA:
		return "No data";
	case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED:
		return "Requested vgpu operation not available with ECC enabled";
	case NVML_ERROR_INSUFFICIENT_RESOURCES:
		return "Insufficient Resources";
	case NVML_ERROR_FREQ_NOT_SUPPORTED:
		return "Frequency Not Supported";
	case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
		return "Argument Version Mismatch";
	case NVML_ERROR_DEPRECATED:
		return "Deprecated";
	case NVML_ERROR_NOT_READY:
		return "Not Ready";
	case NVML_ERROR_GPU_NOT_FOUND:
		return "GPU Not Found";
	case NVML_ERROR_INVALID_STATE:
		return "Invalid State";
	case NVML_ERROR_RESET_TYPE_NOT_SUPPORTED:
		return "Reset Type Not Supported";
	case NVML_ERROR_UNKNOWN:
	default:
		return "Unknown Error";
	}
}

/* ------------------------------------------------------------ system */

SIM_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	if (!initialized())
		return NVML_ERROR_UNINITIALIZED;
	return copy_text(version, length, nvml_config()->driver);
}

/* Documented without NVML_ERROR_UNINITIALIZED: works before nvmlInit. */
SIM_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
	return copy_text(version, length, nvml_config()->nvml_version);
}

SIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
	if (!cudaDriverVersion)
		return NVML_ERROR_INVALID_ARGUMENT;
	*cudaDriverVersion = nvml_config()->driver_version;
	return NVML_SUCCESS;
}

SIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
	return nvmlSystemGetCudaDriverVersion(cudaDriverVersion);
}

/* ------------------------------------------------------------ devices */

SIM_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	if (!initialized())
		return NVML_ERROR_UNINITIALIZED;
	if (!deviceCount)
		return NVML_ERROR_INVALID_ARGUMENT;
	*deviceCount = nvml_config()->device_count;
	return NVML_SUCCESS;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
	return nvmlDeviceGetCount_v2(deviceCount);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	if (!initialized())
		return NVML_ERROR_UNINITIALIZED;
	if (!device || index >= nvml_config()->device_count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &devices[index];
	return NVML_SUCCESS;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
	return nvmlDeviceGetHandleByIndex_v2(index, device);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
	char text[NVML_DEVICE_UUID_BUFFER_SIZE];

	if (!initialized())
		return NVML_ERROR_UNINITIALIZED;
	if (!uuid || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (unsigned int index = 0; index < nvml_config()->device_count; index++) {
		format_uuid(index, text, sizeof(text));
		if (!strcasecmp(text, uuid)) {
			*device = &devices[index];
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
	int index;

	if (!initialized())
		return NVML_ERROR_UNINITIALIZED;
	if (!pciBusId || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	/* As cuDeviceGetByPCIBusId reads it (sim-env.c). */
	if (!sim_parse_pci_bus_id(pciBusId, &index) || index < 0 ||
	    (unsigned int)index >= nvml_config()->device_count)
		return NVML_ERROR_NOT_FOUND;
	*device = &devices[index];
	return NVML_SUCCESS;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device)
{
	return nvmlDeviceGetHandleByPciBusId_v2(pciBusId, device);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	unsigned int index;
	nvmlReturn_t result = check_device(device, &index);

	if (result != NVML_SUCCESS)
		return result;
	return copy_text(name, length, SIM_DEVICE_NAME);
}

/* nvml.h: "the CUDA compute capability of the device", as
 * cuDeviceGetAttribute reports it (CUDASIM_COMPUTE_CAPABILITY). */
SIM_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major,
                                                           int *minor)
{
	unsigned int index;
	nvmlReturn_t result = check_device(device, &index);

	if (result != NVML_SUCCESS)
		return result;
	if (!major || !minor)
		return NVML_ERROR_INVALID_ARGUMENT;
	*major = nvml_config()->cc_major;
	*minor = nvml_config()->cc_minor;
	return NVML_SUCCESS;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	char text[NVML_DEVICE_UUID_BUFFER_SIZE];
	unsigned int index;
	nvmlReturn_t result = check_device(device, &index);

	if (result != NVML_SUCCESS)
		return result;
	format_uuid(index, text, sizeof(text));
	return copy_text(uuid, length, text);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
	unsigned int found;
	nvmlReturn_t result = check_device_out(device, index, &found);

	if (result != NVML_SUCCESS)
		return result;
	*index = found;
	return NVML_SUCCESS;
}

/* total: the device memory; used: this process plus the others; free: the
 * rest, as cuMemGetInfo computes it. */
static void memory_of(unsigned int index, uint64_t *total, uint64_t *used)
{
	*total = nvml_config()->device_memory;
	*used = own_usage(index) + others_usage(index);
	if (*used > *total)
		*used = *total;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	uint64_t total, used;
	unsigned int index;
	nvmlReturn_t result = check_device_out(device, memory, &index);

	if (result != NVML_SUCCESS)
		return result;
	memory_of(index, &total, &used);
	memory->total = total;
	memory->used = used;
	memory->free = total - used;
	return NVML_SUCCESS;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
	uint64_t total, used;
	unsigned int index;
	nvmlReturn_t result = check_device_out(device, memory, &index);

	if (result != NVML_SUCCESS)
		return result;
	if (memory->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	memory_of(index, &total, &used);
	memory->total = total;
	memory->reserved = 0;
	memory->used = used;
	memory->free = total - used;
	return NVML_SUCCESS;
}

/* ------------------------------------------------------------ processes */

/* The processes on a device: CUDASIM_OTHER_PROCESSES entries in order,
 * then this one if it holds memory there. Returns how many. */
static unsigned int list_processes(unsigned int index, struct sim_other_process *out)
{
	const struct nvml_config *cfg = nvml_config();
	unsigned int count = 0;
	uint64_t own = own_usage(index);

	for (int i = 0; i < cfg->other_count; i++)
		if ((unsigned int)cfg->others[i].device == index)
			out[count++] = cfg->others[i];
	if (own > 0)
		out[count++] =
		    (struct sim_other_process){ (int)index, (unsigned int)getpid(), own };
	return count;
}

/*
 * infoCount in: room in infos; out: how many there are. Too little room
 * (infos NULL included) is NVML_ERROR_INSUFFICIENT_SIZE, unless there is
 * nothing to list. entry_size: the caller's struct, v1 or v2.
 */
static nvmlReturn_t running_processes(nvmlDevice_t device, unsigned int *infoCount, void *infos,
                                      size_t entry_size)
{
	struct sim_other_process found[SIM_MAX_DEVICES + 1];
	unsigned int index, count;
	nvmlReturn_t result = check_device_out(device, infoCount, &index);

	if (result != NVML_SUCCESS)
		return result;
	count = list_processes(index, found);
	if (count == 0) {
		*infoCount = 0;
		return NVML_SUCCESS;
	}
	if (!infos || *infoCount < count) {
		*infoCount = count;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned int i = 0; i < count; i++) {
		nvmlProcessInfo_v2_t entry = {
			.pid = found[i].pid,
			.usedGpuMemory = found[i].bytes,
			.gpuInstanceId = NO_INSTANCE,
			.computeInstanceId = NO_INSTANCE,
		};

		/* v1 is the first two members of v2, same offsets */
		memcpy((char *)infos + i * entry_size, &entry, entry_size);
	}
	*infoCount = count;
	return NVML_SUCCESS;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device,
                                                             unsigned int *infoCount,
                                                             nvmlProcessInfo_v1_t *infos)
{
	return running_processes(device, infoCount, infos, sizeof(nvmlProcessInfo_v1_t));
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device,
                                                                unsigned int *infoCount,
                                                                nvmlProcessInfo_v2_t *infos)
{
	return running_processes(device, infoCount, infos, sizeof(nvmlProcessInfo_v2_t));
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                                unsigned int *infoCount,
                                                                nvmlProcessInfo_t *infos)
{
	return running_processes(device, infoCount, infos, sizeof(nvmlProcessInfo_t));
}

/* Compute only: the simulated devices run no graphics. */
SIM_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device,
                                                                 unsigned int *infoCount,
                                                                 nvmlProcessInfo_t *infos)
{
	unsigned int index;
	nvmlReturn_t result = check_device_out(device, infoCount, &index);

	if (result == NVML_SUCCESS)
		*infoCount = 0;
	return result;
}

/* ------------------------------------------------------------ links */

/*
 * The simulated devices sit on PCIe alone: no NVLink, no fabric. What
 * nvml.h documents for each query then:
 *
 *   - nvmlDeviceGetCurrPcieLinkGeneration, nvmlDeviceGetCurrPcieLinkWidth:
 *     the link runs at PCIe Gen 5 x16, that of the H100 the devices are
 *     modelled on;
 *   - nvmlDeviceGetNvLinkState, nvmlDeviceGetNvLinkRemoteDeviceType,
 *     nvmlDeviceGetNvLinkRemotePciInfo_v2: NVML_ERROR_NOT_SUPPORTED, "if
 *     NVLink is not supported" (nvmlDeviceGetNvLinkRemoteDeviceType), "if
 *     the device doesn't support this feature" (the others), for every link
 *     index, once the device and the out pointer are checked. A device that
 *     has NVLink answers NVML_ERROR_INVALID_ARGUMENT for a link index it
 *     does not have; XLA reads NVML_ERROR_NOT_SUPPORTED from
 *     nvmlDeviceGetNvLinkState as "no NVLink" and any other error as a
 *     failure;
 *   - nvmlDeviceGetGpuFabricInfoV: NVML_ERROR_NOT_SUPPORTED ("if device
 *     doesn't support gpu fabric"), once its arguments are checked: the
 *     structure's version must be nvmlGpuFabricInfo_v2 or _v3 ("accepts a
 *     versioned nvmlGpuFabricInfo_v2_t or later output structure"), else
 *     NVML_ERROR_ARGUMENT_VERSION_MISMATCH.
 */
#define SIM_PCIE_GENERATION 5
#define SIM_PCIE_WIDTH      16

SIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device,
                                                            unsigned int *currLinkGen)
{
	unsigned int index;
	nvmlReturn_t result = check_device_out(device, currLinkGen, &index);

	if (result == NVML_SUCCESS)
		*currLinkGen = SIM_PCIE_GENERATION;
	return result;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device,
                                                       unsigned int *currLinkWidth)
{
	unsigned int index;
	nvmlReturn_t result = check_device_out(device, currLinkWidth, &index);

	if (result == NVML_SUCCESS)
		*currLinkWidth = SIM_PCIE_WIDTH;
	return result;
}

/* No NVLink: no link of any index. */
static nvmlReturn_t no_link(nvmlDevice_t device, unsigned int link, const void *out)
{
	unsigned int index;
	nvmlReturn_t result = check_device_out(device, out, &index);

	(void)link;
	if (result != NVML_SUCCESS)
		return result;
	return NVML_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                                 nvmlEnableState_t *isActive)
{
	return no_link(device, link, isActive);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(
    nvmlDevice_t device, unsigned int link, nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType)
{
	return no_link(device, link, pNvLinkDeviceType);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                            nvmlPciInfo_t *pci)
{
	return no_link(device, link, pci);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
                                                    nvmlGpuFabricInfoV_t *gpuFabricInfo)
{
	unsigned int index;
	nvmlReturn_t result = check_device_out(device, gpuFabricInfo, &index);

	if (result != NVML_SUCCESS)
		return result;
	if (gpuFabricInfo->version != nvmlGpuFabricInfo_v2 &&
	    gpuFabricInfo->version != nvmlGpuFabricInfo_v3)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	return NVML_ERROR_NOT_SUPPORTED;
}
