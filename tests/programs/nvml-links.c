/* SPDX-License-Identifier: MIT */
/*
 * nvml-links.c - what NVML says of the simulated devices' links, with the
 * toolkit's nvml.h (loaded by hand, as programs load libnvidia-ml.so.1):
 *
 *   - nvmlDeviceGetCurrPcieLinkGeneration: 5, nvmlDeviceGetCurrPcieLinkWidth:
 *     16;
 *   - nvmlDeviceGetNvLinkState, nvmlDeviceGetNvLinkRemoteDeviceType,
 *     nvmlDeviceGetNvLinkRemotePciInfo_v2: the device has no NVLink, for any
 *     link index (NVML_ERROR_NOT_SUPPORTED);
 *   - nvmlDeviceGetGpuFabricInfoV: NVML_ERROR_NOT_SUPPORTED for a v2 or v3
 *     structure, NVML_ERROR_ARGUMENT_VERSION_MISMATCH for another version;
 *   - before nvmlInit, NVML_ERROR_UNINITIALIZED; with a NULL out pointer,
 *     NVML_ERROR_INVALID_ARGUMENT;
 *   - a function the simulator does not implement (nvmlDeviceGetFanSpeed)
 *     is NVML_ERROR_NOT_SUPPORTED.
 *
 * Prints TAP.
 */
#include <dlfcn.h>
#include <nvml.h>
#include <stdio.h>

#include "tap.h"

#define LOOKUP(lib, name) ((__typeof__(&name))dlsym(lib, #name))

int main(void)
{
	void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	nvmlDevice_t device = NULL;
	unsigned int generation = 0, width = 0, speed = 0;
	nvmlEnableState_t state = NVML_FEATURE_ENABLED;
	nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_GPU;
	nvmlPciInfo_t pci;
	nvmlGpuFabricInfoV_t fabric = { .version = nvmlGpuFabricInfo_v3 };
	nvmlGpuFabricInfo_v2_t fabric2 = { .version = nvmlGpuFabricInfo_v2 };
	nvmlReturn_t (*init)(void);
	__typeof__(&nvmlDeviceGetHandleByIndex_v2) handle;
	__typeof__(&nvmlDeviceGetCurrPcieLinkGeneration) pcie;
	__typeof__(&nvmlDeviceGetCurrPcieLinkWidth) pcie_width;
	__typeof__(&nvmlDeviceGetNvLinkState) link_state;
	__typeof__(&nvmlDeviceGetNvLinkRemoteDeviceType) remote_type;
	__typeof__(&nvmlDeviceGetNvLinkRemotePciInfo_v2) remote_pci;
	__typeof__(&nvmlDeviceGetGpuFabricInfoV) fabric_info;
	__typeof__(&nvmlDeviceGetFanSpeed) fan;
	int all_unsupported = 1;

	if (!tap_ok(nvml != NULL, "libnvidia-ml.so.1 loads (%s)", nvml ? "yes" : dlerror()))
		return tap_done();
	init = (nvmlReturn_t(*)(void))dlsym(nvml, "nvmlInit_v2");
	handle = LOOKUP(nvml, nvmlDeviceGetHandleByIndex_v2);
	pcie = LOOKUP(nvml, nvmlDeviceGetCurrPcieLinkGeneration);
	pcie_width = LOOKUP(nvml, nvmlDeviceGetCurrPcieLinkWidth);
	link_state = LOOKUP(nvml, nvmlDeviceGetNvLinkState);
	remote_type = LOOKUP(nvml, nvmlDeviceGetNvLinkRemoteDeviceType);
	remote_pci = LOOKUP(nvml, nvmlDeviceGetNvLinkRemotePciInfo_v2);
	fabric_info = LOOKUP(nvml, nvmlDeviceGetGpuFabricInfoV);
	fan = LOOKUP(nvml, nvmlDeviceGetFanSpeed);
	if (!tap_ok(init && handle && pcie && pcie_width && link_state && remote_type &&
	                remote_pci && fabric_info && fan,
	            "NVML exports what the test calls"))
		return tap_done();

	tap_ok(pcie(device, &generation) == NVML_ERROR_UNINITIALIZED,
	       "before nvmlInit: NVML_ERROR_UNINITIALIZED");
	tap_ok(init() == NVML_SUCCESS && handle(0, &device) == NVML_SUCCESS, "device 0's handle");

	if (pcie(device, &generation) != NVML_SUCCESS)
		generation = 0;
	tap_ok(generation == 5, "nvmlDeviceGetCurrPcieLinkGeneration: 5 (got %u)", generation);
	if (pcie_width(device, &width) != NVML_SUCCESS)
		width = 0;
	tap_ok(width == 16, "nvmlDeviceGetCurrPcieLinkWidth: 16 (got %u)", width);
	tap_ok(pcie(device, NULL) == NVML_ERROR_INVALID_ARGUMENT,
	       "... with NULL: NVML_ERROR_INVALID_ARGUMENT");

	for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
		if (link_state(device, link, &state) != NVML_ERROR_NOT_SUPPORTED ||
		    remote_type(device, link, &type) != NVML_ERROR_NOT_SUPPORTED ||
		    remote_pci(device, link, &pci) != NVML_ERROR_NOT_SUPPORTED)
			all_unsupported = 0;
	}
	tap_ok(all_unsupported,
	       "links 0 to NVML_NVLINK_MAX_LINKS - 1: nvmlDeviceGetNvLinkState, "
	       "nvmlDeviceGetNvLinkRemoteDeviceType and nvmlDeviceGetNvLinkRemotePciInfo_v2 "
	       "are NVML_ERROR_NOT_SUPPORTED");
	tap_ok(state == NVML_FEATURE_ENABLED && type == NVML_NVLINK_DEVICE_TYPE_GPU,
	       "... and write nothing");
	tap_ok(link_state(NULL, 0, &state) == NVML_ERROR_INVALID_ARGUMENT &&
	           link_state(device, 0, NULL) == NVML_ERROR_INVALID_ARGUMENT,
	       "nvmlDeviceGetNvLinkState of no device or without an out pointer: "
	       "NVML_ERROR_INVALID_ARGUMENT");

	tap_ok(fabric_info(device, &fabric) == NVML_ERROR_NOT_SUPPORTED,
	       "nvmlDeviceGetGpuFabricInfoV (v3): NVML_ERROR_NOT_SUPPORTED");
	tap_ok(fabric_info(device, (nvmlGpuFabricInfoV_t *)&fabric2) == NVML_ERROR_NOT_SUPPORTED,
	       "nvmlDeviceGetGpuFabricInfoV (v2): NVML_ERROR_NOT_SUPPORTED");
	fabric.version = 7;
	tap_ok(fabric_info(device, &fabric) == NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
	       "nvmlDeviceGetGpuFabricInfoV with another version: "
	       "NVML_ERROR_ARGUMENT_VERSION_MISMATCH");
	tap_ok(fabric_info(device, NULL) == NVML_ERROR_INVALID_ARGUMENT,
	       "nvmlDeviceGetGpuFabricInfoV with NULL: NVML_ERROR_INVALID_ARGUMENT");

	tap_ok(fan(device, &speed) == NVML_ERROR_NOT_SUPPORTED,
	       "nvmlDeviceGetFanSpeed, a generated stub: NVML_ERROR_NOT_SUPPORTED");
	return tap_done();
}
