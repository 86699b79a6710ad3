/* SPDX-License-Identifier: MIT */
/*
 * nvml.c - device memory from NVML: mem_alloc_failed's free/total and
 * nvml_sample events, periodic or at allocation failures.
 *
 * NVML is not CUDA: it may be called from inside a CUPTI callback. It is
 * opened with dlopen so that cudatrace neither needs nor loads it at link
 * time. CUDA device ordinals are mapped to NVML devices by UUID once the
 * DEVICE activity record has given it; until then, through
 * CUDA_VISIBLE_DEVICES when it lists indices, else by the same index.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudatrace-tp.h"
#include "emit.h"
#include "log.h"
#include "nvml-abi.h"
#include "nvml.h"
#include "periodic.h"
#include "text.h"

#define NVML_MAX_DEVICES 64

static struct {
	nvmlSystemGetCudaDriverVersion_fn driver_version;
	nvmlSystemGetDriverVersion_fn driver_text;
	nvmlDeviceGetCount_v2_fn device_count;
	nvmlDeviceGetHandleByIndex_v2_fn handle_by_index;
	nvmlDeviceGetHandleByUUID_fn handle_by_uuid;
	nvmlDeviceGetMemoryInfo_fn memory_info;
	nvmlDeviceGetComputeRunningProcesses_v3_fn running_processes; /* NULL: none */
} nvml;

static pthread_once_t nvml_once = PTHREAD_ONCE_INIT;
static bool nvml_ready;
/* CUDA ordinal -> NVML handle, once known by UUID. */
static nvmlDevice_t mapped[NVML_MAX_DEVICES];

static void sample_all(void);

static struct periodic sampler = PERIODIC_INIT(sample_all);

static void *symbol(void *lib, const char *name)
{
	void *fn = dlsym(lib, name);

	if (!fn)
		log_debug("NVML lacks %s", name);
	return fn;
}

static void nvml_load(void)
{
	nvmlInit_v2_fn init;
	void *lib;
	nvmlReturn_t status;

	lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		log_info("NVML is not available (%s): device memory is not sampled", dlerror());
		return;
	}
	init = (nvmlInit_v2_fn)symbol(lib, "nvmlInit_v2");
	nvml.driver_version =
	    (nvmlSystemGetCudaDriverVersion_fn)symbol(lib, "nvmlSystemGetCudaDriverVersion_v2");
	if (!nvml.driver_version)
		nvml.driver_version = (nvmlSystemGetCudaDriverVersion_fn)symbol(
		    lib, "nvmlSystemGetCudaDriverVersion");
	nvml.driver_text = (nvmlSystemGetDriverVersion_fn)symbol(lib, "nvmlSystemGetDriverVersion");
	nvml.device_count = (nvmlDeviceGetCount_v2_fn)symbol(lib, "nvmlDeviceGetCount_v2");
	nvml.handle_by_index =
	    (nvmlDeviceGetHandleByIndex_v2_fn)symbol(lib, "nvmlDeviceGetHandleByIndex_v2");
	nvml.handle_by_uuid =
	    (nvmlDeviceGetHandleByUUID_fn)symbol(lib, "nvmlDeviceGetHandleByUUID");
	nvml.memory_info = (nvmlDeviceGetMemoryInfo_fn)symbol(lib, "nvmlDeviceGetMemoryInfo");
	nvml.running_processes = (nvmlDeviceGetComputeRunningProcesses_v3_fn)symbol(
	    lib, "nvmlDeviceGetComputeRunningProcesses_v3");
	if (!init || !nvml.handle_by_index || !nvml.memory_info)
		goto error;
	status = init();
	if (status != NVML_SUCCESS) {
		log_info("nvmlInit failed (%d): device memory is not sampled", status);
		goto error;
	}
	nvml_ready = true;
	return;
error:
	/* Keep the library loaded: NVML may have started threads. */
	memset(&nvml, 0, sizeof(nvml));
}

bool nvml_open(void)
{
	pthread_once(&nvml_once, nvml_load);
	return nvml_ready;
}

int32_t nvml_driver_version(void)
{
	int version = 0;

	if (!nvml_open() || !nvml.driver_version || nvml.driver_version(&version) != NVML_SUCCESS)
		return 0;
	return version;
}

bool nvml_driver_text(char *out, unsigned size)
{
	if (!size || !nvml_open() || !nvml.driver_text ||
	    nvml.driver_text(out, size) != NVML_SUCCESS)
		return false;
	out[size - 1] = '\0';
	return true;
}

/* The NVML index CUDA_VISIBLE_DEVICES gives CUDA ordinal `device`, or
 * `device` itself when the variable is unset or not a list of indices. */
static unsigned visible_index(uint8_t device)
{
	const char *list = getenv("CUDA_VISIBLE_DEVICES");
	unsigned position = 0;

	if (!list || !*list)
		return device;
	while (*list) {
		char *end;
		unsigned long index = strtoul(list, &end, 10);

		if (end == list)
			return device;
		if (position++ == device)
			return (unsigned)index;
		list = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end != '\0')
			return device;
	}
	return device;
}

static bool device_handle(uint8_t device, nvmlDevice_t *handle)
{
	nvmlDevice_t known = NULL;

	if (device < NVML_MAX_DEVICES)
		known = __atomic_load_n(&mapped[device], __ATOMIC_ACQUIRE);
	if (known) {
		*handle = known;
		return true;
	}
	return nvml.handle_by_index(visible_index(device), handle) == NVML_SUCCESS;
}

bool nvml_read(uint8_t device, enum ct_nvml_reason reason, struct ct_ev_nvml_sample *sample)
{
	nvmlDevice_t handle;
	nvmlMemory_t memory;

	if (device == CT_DEVICE_NONE || !nvml_open() || !device_handle(device, &handle))
		return false;
	if (nvml.memory_info(handle, &memory) != NVML_SUCCESS)
		return false;
	*sample = (struct ct_ev_nvml_sample){
		.free = memory.free,
		.used = memory.used,
		.total = memory.total,
		.device = device,
		.reason = (uint8_t)reason,
	};
	return true;
}

void nvml_sample_device(uint8_t device, enum ct_nvml_reason reason)
{
	struct ct_ev_nvml_sample sample;

	if (!lttng_ust_tracepoint_enabled(cudatrace, nvml_sample))
		return;
	if (nvml_read(device, reason, &sample))
		lttng_ust_do_tracepoint(cudatrace, nvml_sample, &sample);
}

/* The processes one failure lists at most: a device shared by more is rare. */
#define NVML_PROCESSES_MAX 64

/* PID's name (/proc/PID/comm) into NAME, "" when it cannot be read (another namespace). */
static void process_name(unsigned pid, char *name, size_t size)
{
	char path[64];
	FILE *f;

	name[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(name, (int)size, f))
		name[strcspn(name, "\n")] = '\0';
	fclose(f);
}

void nvml_list_processes(uint8_t device)
{
	nvmlProcessInfo_t infos[NVML_PROCESSES_MAX];
	unsigned count = NVML_PROCESSES_MAX;
	nvmlDevice_t handle;
	unsigned self = (unsigned)getpid();

	if (!lttng_ust_tracepoint_enabled(cudatrace, nvml_process))
		return;
	if (device == CT_DEVICE_NONE || !nvml_open() || !nvml.running_processes ||
	    !device_handle(device, &handle))
		return;
	if (nvml.running_processes(handle, &count, infos) != NVML_SUCCESS)
		return;
	for (unsigned i = 0; i < count && i < NVML_PROCESSES_MAX; i++) {
		char name[64];

		process_name(infos[i].pid, name, sizeof(name));
		EMIT(nvml_process, &(struct ct_ev_nvml_process){
		                       .device = device,
		                       .pid = infos[i].pid,
		                       .used = infos[i].usedGpuMemory,
		                       .self = infos[i].pid == self,
		                       .name = name,
		                       .name_len = text_length(name),
		                   });
	}
}

void nvml_map_device(uint8_t device, const uint8_t uuid[16])
{
	char text[NVML_DEVICE_UUID_BUFFER_SIZE];
	nvmlDevice_t handle;

	if (device >= NVML_MAX_DEVICES || !nvml_open() || !nvml.handle_by_uuid)
		return;
	snprintf(text, sizeof(text),
	         "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	         uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8],
	         uuid[9], uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]);
	if (nvml.handle_by_uuid(text, &handle) == NVML_SUCCESS)
		__atomic_store_n(&mapped[device], handle, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------- sampler */

static unsigned device_count(void)
{
	unsigned count = 0;

	if (!nvml.device_count || nvml.device_count(&count) != NVML_SUCCESS)
		return 0;
	return count < NVML_MAX_DEVICES ? count : NVML_MAX_DEVICES;
}

void nvml_list_all_processes(void)
{
	unsigned count;

	if (!lttng_ust_tracepoint_enabled(cudatrace, nvml_process) || !nvml_open())
		return;
	count = device_count();
	for (unsigned device = 0; device < count; device++)
		nvml_list_processes((uint8_t)device);
}

static void sample_all(void)
{
	for (unsigned d = 0, n = device_count(); d < n; d++)
		nvml_sample_device((uint8_t)d, CT_NVML_PERIODIC);
}

void nvml_sampler_start(uint32_t period_ms)
{
	if (period_ms != 0 && nvml_open() && periodic_start(&sampler, period_ms) < 0)
		log_warn("cannot start the NVML sampler thread");
}

void nvml_sampler_stop(void)
{
	periodic_stop(&sampler);
}
