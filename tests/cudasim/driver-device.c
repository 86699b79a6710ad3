/* SPDX-License-Identifier: MIT */
/*
 * driver-device.c - the simulated devices (CUDASIM_DEVICES of them) and
 * their attributes: an H100 SXM-like part, compute capability 9.0 unless
 * CUDASIM_COMPUTE_CAPABILITY says otherwise (only the compute capability
 * changes then: the other attributes stay the H100's), 132
 * multiprocessors, CUDASIM_DEVICE_MEMORY of memory each. Device d sits on
 * PCI bus d + 1 and has a UUID derived from d alone, so that NVML (which
 * computes the same UUID) and every run agree.
 */
#include <stdio.h>
#include <string.h>
#include "driver-internal.h"

struct sim_device {
	int ordinal;
	bool announced; /* its CUPTI DEVICE record was delivered */
};

static struct sim_device devices[SIM_MAX_DEVICES];
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t announce_lock = PTHREAD_MUTEX_INITIALIZER;

static void devices_init(void)
{
	for (int i = 0; i < SIM_MAX_DEVICES; i++)
		devices[i].ordinal = i;
}

HIDDEN struct sim_device *sim_device_get(int ordinal)
{
	if (ordinal < 0 || ordinal >= sim_config()->device_count || ordinal >= SIM_MAX_DEVICES)
		return NULL;
	pthread_once(&devices_once, devices_init);
	return &devices[ordinal];
}

HIDDEN int sim_device_ordinal(const struct sim_device *dev)
{
	return dev->ordinal;
}

HIDDEN uint64_t sim_device_total_memory(const struct sim_device *dev)
{
	return sim_config()->device_memory;
}

/* Bytes 0-11 fixed, 12-15 the ordinal (big-endian). NVML formats it as
 * GPU-c5d1513a-7e5f-4c75-9e0d-5a1e0000000N. */
HIDDEN void sim_device_uuid(int ordinal, CUuuid *uuid)
{
	static const unsigned char prefix[12] = { 0xc5, 0xd1, 0x51, 0x3a, 0x7e, 0x5f,
		                                  0x4c, 0x75, 0x9e, 0x0d, 0x5a, 0x1e };
	unsigned int value = (unsigned int)ordinal;

	memcpy(uuid->bytes, prefix, sizeof(prefix));
	uuid->bytes[12] = (char)(value >> 24);
	uuid->bytes[13] = (char)(value >> 16);
	uuid->bytes[14] = (char)(value >> 8);
	uuid->bytes[15] = (char)value;
}

/* Texture and surface limits of compute capability 9.0 (CUDA C++
 * Programming Guide, "Technical Specifications per Compute Capability"). */
static bool texture_attribute(CUdevice_attribute attrib, int *value)
{
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH:
		*value = 131072;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT:
		*value = 65536;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT:
		*value = 65000;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH:
		*value = 2097120;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH:
		*value = 16384;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE:
		*value = 8192;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE:
		*value = 32768;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH:
		*value = 32768;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS:
		*value = 2048;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS:
		*value = 2046;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH:
		*value = 268435456;
		return true;
	case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT:
		*value = 512;
		return true;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT:
		*value = 32;
		return true;
	default:
		return false;
	}
}

/* Limits of the execution model: blocks, grids, memories, clocks. */
static bool execution_attribute(CUdevice_attribute attrib, int *value)
{
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
		*value = SIM_MAX_THREADS_PER_BLOCK;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
		*value = 64;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
	case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
		*value = 2147483647;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
		*value = 65535;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
		*value = SIM_MAX_SHARED_PER_BLOCK;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
		*value = SIM_MAX_SHARED_PER_BLOCK_OPTIN;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
		*value = 233472;
		return true;
	case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
		*value = 1024;
		return true;
	case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
		*value = 65536;
		return true;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
		*value = 32;
		return true;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
		*value = 1980000; /* kHz */
		return true;
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
		*value = 2619000; /* kHz */
		return true;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
		*value = 5120;
		return true;
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
		*value = 52428800;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE:
		*value = 32505856;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE:
		*value = 134213632;
		return true;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
		*value = SIM_MULTIPROCESSOR_COUNT;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
		*value = 2048;
		return true;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
		*value = 32;
		return true;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*value = sim_config()->cc_major; /* CUDASIM_COMPUTE_CAPABILITY */
		return true;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*value = sim_config()->cc_minor;
		return true;
	case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
		*value = 2;
		return true;
	case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO:
		*value = 2;
		return true;
	case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT:
		*value = 4;
		return true;
	default:
		return false;
	}
}

/* What the device supports: 1 for yes. Anything not listed here or above
 * is 0 (no ECC, no TCC, no MPS, no NUMA, no graphics interop...). */
static bool feature_attribute(CUdevice_attribute attrib, int *value)
{
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
		*value = 512; /* the allocation stride real GPUs show (cupy#176,
		              cupy#3219); the Programming Guide promises 256 */
		return true;
	case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP:
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
	case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER:
	case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
	case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1:
	case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
	case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
	case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR:
	case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS:
		*value = 1;
		return true;
	case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES:
		*value = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
		return true;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
		*value = CU_COMPUTEMODE_DEFAULT;
		return true;
	case CU_DEVICE_ATTRIBUTE_NUMA_ID:
	case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID:
		*value = -1; /* not a NUMA node; no host NUMA affinity */
		return true;
	case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID:
		*value = 0x233010de; /* device 0x2330 (H100 SXM5), vendor 0x10de */
		return true;
	case CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID:
		*value = 0x16c110de;
		return true;
	default:
		return false;
	}
}

static bool attribute_value(CUdevice_attribute attrib, int ordinal, int *value)
{
	if (attrib < CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
		return false;
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
		*value = ordinal + 1;
		return true;
	case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID:
		*value = ordinal;
		return true;
	default:
		break;
	}
	if (!execution_attribute(attrib, value) && !texture_attribute(attrib, value) &&
	    !feature_attribute(attrib, value))
		*value = 0;
	return true;
}

/* CUDA_ERROR_INVALID_DEVICE unless dev names a simulated device. */
static CUresult check_device(CUdevice dev)
{
	return sim_device_get(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

HIDDEN CUresult sim_device_check(CUdevice dev)
{
	CUresult r = sim_init_status();

	return r != CUDA_SUCCESS ? r : check_device(dev);
}

HIDDEN int sim_device_attribute(int ordinal, CUdevice_attribute attrib)
{
	int value = 0;

	attribute_value(attrib, ordinal, &value);
	return value;
}

/* A CUPTI DEVICE record (CUpti_ActivityDevice5), once per device, the
 * first time one of its contexts is created while the kind is enabled. */
HIDDEN void sim_device_announce(int ordinal)
{
	CUpti_ActivityDevice5 record;
	struct sim_device *dev = sim_device_get(ordinal);
	bool first;

	if (!dev || !sim_activity_enabled(CUPTI_ACTIVITY_KIND_DEVICE))
		return;
	pthread_mutex_lock(&announce_lock);
	first = !dev->announced;
	dev->announced = true;
	pthread_mutex_unlock(&announce_lock);
	if (!first)
		return;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	record.flags = CUPTI_ACTIVITY_FLAG_NONE;
	/* kB/s: double data rate over the bus width. */
	record.globalMemoryBandwidth = 2ull * 2619000 * (5120 / 8);
	record.globalMemorySize = sim_config()->device_memory;
	record.constantMemorySize = 65536;
	record.l2CacheSize = 52428800;
	record.numThreadsPerWarp = 32;
	record.coreClockRate = 1980000;
	record.numMemcpyEngines = 2;
	record.numMultiprocessors = SIM_MULTIPROCESSOR_COUNT;
	record.maxIPC = 4;
	record.maxWarpsPerMultiprocessor = 64;
	record.maxBlocksPerMultiprocessor = 32;
	record.maxSharedMemoryPerMultiprocessor = 233472;
	record.maxRegistersPerMultiprocessor = 65536;
	record.maxRegistersPerBlock = 65536;
	record.maxSharedMemoryPerBlock = SIM_MAX_SHARED_PER_BLOCK;
	record.maxThreadsPerBlock = SIM_MAX_THREADS_PER_BLOCK;
	record.maxBlockDimX = SIM_MAX_THREADS_PER_BLOCK;
	record.maxBlockDimY = SIM_MAX_THREADS_PER_BLOCK;
	record.maxBlockDimZ = 64;
	record.maxGridDimX = 2147483647;
	record.maxGridDimY = 65535;
	record.maxGridDimZ = 65535;
	record.computeCapabilityMajor = (uint32_t)sim_config()->cc_major;
	record.computeCapabilityMinor = (uint32_t)sim_config()->cc_minor;
	record.id = (uint32_t)ordinal;
	record.eccEnabled = 0;
	sim_device_uuid(ordinal, &record.uuid);
	record.name = SIM_DEVICE_NAME;
	record.isCudaVisible = 1;
	record.isNumaNode = 0;
	record.numaId = (uint32_t)-1;
	sim_activity((const CUpti_Activity *)&record, sim_now_ns());
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
	cuDeviceGet_params p = { device, ordinal };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuDeviceGet, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS && !device)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		r = check_device(ordinal);
	if (r == CUDA_SUCCESS)
		*device = ordinal;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetCount(int *count)
{
	cuDeviceGetCount_params p = { count };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuDeviceGetCount, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS && !count)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*count = sim_config()->device_count;
	sim_api_exit(&call, r);
	return r;
}

/* Copy text into a caller's buffer of len bytes, truncating, always
 * terminated. */
static CUresult copy_string(char *out, int len, const char *text)
{
	if (!out || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(out, (size_t)len, "%s", text);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
	cuDeviceGetName_params p = { name, len, dev };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuDeviceGetName, &p);
	r = sim_device_check(dev);
	if (r == CUDA_SUCCESS)
		r = copy_string(name, len, SIM_DEVICE_NAME);
	sim_api_exit(&call, r);
	return r;
}

static CUresult device_uuid(CUuuid *uuid, CUdevice dev)
{
	CUresult r = sim_device_check(dev);

	if (r == CUDA_SUCCESS && !uuid)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		sim_device_uuid(dev, uuid);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	cuDeviceGetUuid_v2_params p = { uuid, dev };
	SIM_DRIVER_CALL(cuDeviceGetUuid_v2, p, device_uuid(uuid, dev));
}

/* The CUDA 9.2 entry point; it differs from _v2 only for MIG instances. */
#undef cuDeviceGetUuid
SIM_EXPORT CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);

SIM_EXPORT CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	cuDeviceGetUuid_params p = { uuid, dev };
	SIM_DRIVER_CALL(cuDeviceGetUuid, p, device_uuid(uuid, dev));
}

SIM_EXPORT CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	cuDeviceTotalMem_v2_params p = { bytes, dev };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuDeviceTotalMem_v2, &p);
	r = sim_device_check(dev);
	if (r == CUDA_SUCCESS && !bytes)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*bytes = (size_t)sim_config()->device_memory;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	cuDeviceGetAttribute_params p = { pi, attrib, dev };
	struct sim_api_call call;
	CUresult r;
	int value;

	SIM_DRIVER_ENTER(call, cuDeviceGetAttribute, &p);
	r = sim_device_check(dev);
	if (r == CUDA_SUCCESS && (!pi || !attribute_value(attrib, dev, &value)))
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*pi = value;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
	cuDeviceComputeCapability_params p = { major, minor, dev };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuDeviceComputeCapability, &p);
	r = sim_device_check(dev);
	if (r == CUDA_SUCCESS && (!major || !minor))
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS) {
		*major = sim_config()->cc_major;
		*minor = sim_config()->cc_minor;
	}
	sim_api_exit(&call, r);
	return r;
}

static void fill_properties(CUdevprop *prop, int ordinal)
{
	memset(prop, 0, sizeof(*prop));
	prop->maxThreadsPerBlock = SIM_MAX_THREADS_PER_BLOCK;
	prop->maxThreadsDim[0] = sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
	prop->maxThreadsDim[1] = sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
	prop->maxThreadsDim[2] = sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
	prop->maxGridSize[0] = sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
	prop->maxGridSize[1] = sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
	prop->maxGridSize[2] = sim_device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
	prop->sharedMemPerBlock = SIM_MAX_SHARED_PER_BLOCK;
	prop->totalConstantMemory = 65536;
	prop->SIMDWidth = 32;
	prop->memPitch = 2147483647;
	prop->regsPerBlock = 65536;
	prop->clockRate = 1980000;
	prop->textureAlign = 512;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
	cuDeviceGetProperties_params p = { prop, dev };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuDeviceGetProperties, &p);
	r = sim_device_check(dev);
	if (r == CUDA_SUCCESS && !prop)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		fill_properties(prop, dev);
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
	cuDeviceGetPCIBusId_params p = { pciBusId, len, dev };
	struct sim_api_call call;
	char text[32];
	CUresult r;

	SIM_DRIVER_ENTER(call, cuDeviceGetPCIBusId, &p);
	r = sim_device_check(dev);
	if (r == CUDA_SUCCESS) {
		/* cuda.h: 13 bytes with the terminator, "0000:01:00.0" */
		snprintf(text, sizeof(text), "%04x:%02x:00.0", 0u, (unsigned int)dev + 1);
		r = copy_string(pciBusId, len, text);
	}
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
	cuDeviceGetByPCIBusId_params p = { dev, pciBusId };
	struct sim_api_call call;
	CUresult r;
	int ordinal = -1;

	SIM_DRIVER_ENTER(call, cuDeviceGetByPCIBusId, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS && (!dev || !pciBusId || !sim_parse_pci_bus_id(pciBusId, &ordinal)))
		r = CUDA_ERROR_INVALID_VALUE;
	/* A bus id where no device of this run sits. */
	if (r == CUDA_SUCCESS && !sim_device_valid(ordinal))
		r = CUDA_ERROR_INVALID_DEVICE;
	if (r == CUDA_SUCCESS)
		*dev = ordinal;
	sim_api_exit(&call, r);
	return r;
}

/* Every pair of distinct devices can reach each other (one NVLink board). */
SIM_EXPORT CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev,
                                                  CUdevice peerDev)
{
	cuDeviceCanAccessPeer_params p = { canAccessPeer, dev, peerDev };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuDeviceCanAccessPeer, &p);
	r = sim_device_check(dev);
	if (r == CUDA_SUCCESS)
		r = check_device(peerDev);
	if (r == CUDA_SUCCESS && !canAccessPeer)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*canAccessPeer = dev != peerDev;
	sim_api_exit(&call, r);
	return r;
}

static bool p2p_attribute(CUdevice_P2PAttribute attrib, int *value)
{
	switch (attrib) {
	case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK:
		*value = 0;
		return true;
	case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED:
		*value = 1;
		return true;
	case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED:
		*value = 0;
		return true;
	default:
		return false;
	}
}

SIM_EXPORT CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
                                                    CUdevice srcDevice, CUdevice dstDevice)
{
	cuDeviceGetP2PAttribute_params p = { value, attrib, srcDevice, dstDevice };
	struct sim_api_call call;
	CUresult r;
	int result;

	SIM_DRIVER_ENTER(call, cuDeviceGetP2PAttribute, &p);
	r = sim_device_check(srcDevice);
	if (r == CUDA_SUCCESS)
		r = check_device(dstDevice);
	/* cuda.h: the same device twice is an invalid device. */
	if (r == CUDA_SUCCESS && srcDevice == dstDevice)
		r = CUDA_ERROR_INVALID_DEVICE;
	if (r == CUDA_SUCCESS && (!value || !p2p_attribute(attrib, &result)))
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*value = result;
	sim_api_exit(&call, r);
	return r;
}
