/* SPDX-License-Identifier: MIT */
/*
 * event.c - names of the event types and of the enumerations of
 * doc/events.md.
 */
#include <string.h>

#include "event.h"

static const char *const type_names[CT_EV_COUNT] = {
	[CT_EV_NONE] = "",
	[CT_EV_API_ENTRY] = "api_entry",
	[CT_EV_API_EXIT] = "api_exit",
	[CT_EV_API_NAME] = "api_name",
	[CT_EV_MEM_ALLOC] = "mem_alloc",
	[CT_EV_MEM_FREE] = "mem_free",
	[CT_EV_MEM_ALLOC_FAILED] = "mem_alloc_failed",
	[CT_EV_MEMCPY] = "memcpy",
	[CT_EV_MEMSET] = "memset",
	[CT_EV_LAUNCH] = "launch",
	[CT_EV_KERNEL_NAME] = "kernel_name",
	[CT_EV_SYNC] = "sync",
	[CT_EV_CONTEXT_CREATE] = "context_create",
	[CT_EV_CONTEXT_DESTROY] = "context_destroy",
	[CT_EV_STREAM_CREATE] = "stream_create",
	[CT_EV_STREAM_DESTROY] = "stream_destroy",
	[CT_EV_MODULE_LOAD] = "module_load",
	[CT_EV_GPU_KERNEL] = "gpu_kernel",
	[CT_EV_GPU_MEMCPY] = "gpu_memcpy",
	[CT_EV_GPU_MEMSET] = "gpu_memset",
	[CT_EV_GPU_MEMORY] = "gpu_memory",
	[CT_EV_GPU_MEMORY_POOL] = "gpu_memory_pool",
	[CT_EV_GPU_SYNC] = "gpu_sync",
	[CT_EV_GPU_OVERHEAD] = "gpu_overhead",
	[CT_EV_ACTIVITY_DROPPED] = "activity_dropped",
	[CT_EV_DEVICE_INFO] = "device_info",
	[CT_EV_TRACER_INFO] = "tracer_info",
	[CT_EV_TRACER_ERROR] = "tracer_error",
	[CT_EV_NVML_SAMPLE] = "nvml_sample",
	[CT_EV_NVTX_PUSH] = "nvtx_push",
	[CT_EV_NVTX_POP] = "nvtx_pop",
	[CT_EV_NVTX_RANGE_START] = "nvtx_range_start",
	[CT_EV_NVTX_RANGE_END] = "nvtx_range_end",
	[CT_EV_NVTX_MARK] = "nvtx_mark",
	[CT_EV_NVTX_DOMAIN_CREATE] = "nvtx_domain_create",
};

static const char *const kind_names[CT_MEM_KIND_COUNT] = {
	"unknown", "device", "pitch",        "host_pinned", "host_registered",
	"managed", "async",  "vmm_physical", "vmm_map",
};

static const char *const direction_names[CT_DIR_COUNT] = {
	"unknown", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP",
};

static const char *const host_mem_names[CT_HOST_MEM_COUNT] = { "none", "pageable", "pinned" };

const char *ct_event_type_name(enum ct_event_type type)
{
	return (unsigned)type < CT_EV_COUNT ? type_names[type] : NULL;
}

enum ct_event_type ct_event_type_from_name(const char *name)
{
	for (unsigned t = 1; t < CT_EV_COUNT; t++)
		if (!strcmp(type_names[t], name))
			return (enum ct_event_type)t;
	return CT_EV_NONE;
}

const char *ct_mem_kind_name(unsigned kind)
{
	return kind < CT_MEM_KIND_COUNT ? kind_names[kind] : "unknown";
}

bool ct_mem_kind_on_device(unsigned kind)
{
	return kind == CT_MEM_DEVICE || kind == CT_MEM_PITCH || kind == CT_MEM_MANAGED ||
	       kind == CT_MEM_ASYNC || kind == CT_MEM_VMM_PHYSICAL;
}

const char *ct_direction_name(unsigned direction)
{
	return direction < CT_DIR_COUNT ? direction_names[direction] : "unknown";
}

const char *ct_host_mem_name(unsigned host)
{
	return host < CT_HOST_MEM_COUNT ? host_mem_names[host] : "unknown";
}
