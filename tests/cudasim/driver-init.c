/* SPDX-License-Identifier: MIT */
/*
 * driver-init.c - cuInit and CUDA_INJECTION64_PATH, the driver version,
 * error names and strings, cuGetProcAddress, and the few entry points that
 * only need the driver to be initialised (cuGetExportTable, profiler
 * start/stop).
 *
 * Before cuInit succeeds every driver call returns CUDA_ERROR_NOT_INITIALIZED
 * (cuda.h: cuInit), except cuInit, cuDriverGetVersion, cuGetErrorName,
 * cuGetErrorString and cuGetProcAddress (cuda.h:5186-5191; the exemptions as
 * measured, THAPI#105).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cudaProfiler.h>
#include "driver-internal.h"

/* ------------------------------------------------------------ errors */

struct result_text {
	CUresult result;
	const char *name;
	const char *text;
};

/* clang-format off */
#define RESULT(code, text) { code, #code, text }
/* clang-format on */

/* Every CUresult of cuda.h (13.0), with the real driver's descriptions. */
static const struct result_text result_texts[] = {
	RESULT(CUDA_SUCCESS, "no error"),
	RESULT(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
	RESULT(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
	RESULT(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
	RESULT(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
	RESULT(CUDA_ERROR_PROFILER_DISABLED,
	       "profiler disabled while using external profiling tool"),
	RESULT(CUDA_ERROR_PROFILER_NOT_INITIALIZED, "profiler not initialized"),
	RESULT(CUDA_ERROR_PROFILER_ALREADY_STARTED, "profiler already started"),
	RESULT(CUDA_ERROR_PROFILER_ALREADY_STOPPED, "profiler already stopped"),
	RESULT(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"),
	RESULT(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
	       "API call is not supported in the installed CUDA driver"),
	RESULT(CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA-capable device(s) is/are busy or unavailable"),
	RESULT(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
	RESULT(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
	RESULT(CUDA_ERROR_DEVICE_NOT_LICENSED, "device doesn't have valid Grid license"),
	RESULT(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
	RESULT(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
	RESULT(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current"),
	RESULT(CUDA_ERROR_MAP_FAILED, "mapping of buffer object failed"),
	RESULT(CUDA_ERROR_UNMAP_FAILED, "unmapping of buffer object failed"),
	RESULT(CUDA_ERROR_ARRAY_IS_MAPPED, "array is mapped"),
	RESULT(CUDA_ERROR_ALREADY_MAPPED, "resource already mapped"),
	RESULT(CUDA_ERROR_NO_BINARY_FOR_GPU,
	       "no kernel image is available for execution on the device"),
	RESULT(CUDA_ERROR_ALREADY_ACQUIRED, "resource already acquired"),
	RESULT(CUDA_ERROR_NOT_MAPPED, "resource not mapped"),
	RESULT(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "resource not mapped as array"),
	RESULT(CUDA_ERROR_NOT_MAPPED_AS_POINTER, "resource not mapped as pointer"),
	RESULT(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error encountered"),
	RESULT(CUDA_ERROR_UNSUPPORTED_LIMIT, "limit is not supported on this architecture"),
	RESULT(CUDA_ERROR_CONTEXT_ALREADY_IN_USE,
	       "exclusive-thread device already in use by a different thread"),
	RESULT(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
	       "peer access is not supported between these two devices"),
	RESULT(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"),
	RESULT(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "invalid OpenGL or DirectX context"),
	RESULT(CUDA_ERROR_NVLINK_UNCORRECTABLE, "uncorrectable NVLink error detected"),
	RESULT(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "PTX JIT compiler library not found"),
	RESULT(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
	       "the provided PTX was compiled with an unsupported toolchain"),
	RESULT(CUDA_ERROR_JIT_COMPILATION_DISABLED, "PTX JIT compilation was disabled"),
	RESULT(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
	       "the provided execution affinity is not supported"),
	RESULT(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,
	       "the provided PTX contains unsupported call to cudaDeviceSynchronize"),
	RESULT(CUDA_ERROR_CONTAINED, "invalid access of peer GPU memory or a hardware error"),
	RESULT(CUDA_ERROR_INVALID_SOURCE, "device kernel source is invalid"),
	RESULT(CUDA_ERROR_FILE_NOT_FOUND, "file not found"),
	RESULT(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found"),
	RESULT(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "shared object initialization failed"),
	RESULT(CUDA_ERROR_OPERATING_SYSTEM, "OS call failed or operation not supported on this OS"),
	RESULT(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
	RESULT(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state"),
	RESULT(CUDA_ERROR_LOSSY_QUERY, "attempted introspection would be semantically lossy"),
	RESULT(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
	RESULT(CUDA_ERROR_NOT_READY, "device not ready"),
	RESULT(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
	RESULT(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"),
	RESULT(CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated"),
	RESULT(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "launch uses incompatible texturing mode"),
	RESULT(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled"),
	RESULT(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled"),
	RESULT(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
	       "cannot set while device is active in this process"),
	RESULT(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
	RESULT(CUDA_ERROR_ASSERT, "device-side assert triggered"),
	RESULT(CUDA_ERROR_TOO_MANY_PEERS, "peer mapping resources exhausted"),
	RESULT(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
	       "part or all of the requested memory range is already mapped"),
	RESULT(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
	       "pointer does not correspond to a registered memory region"),
	RESULT(CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error"),
	RESULT(CUDA_ERROR_ILLEGAL_INSTRUCTION, "an illegal instruction was encountered"),
	RESULT(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"),
	RESULT(CUDA_ERROR_INVALID_ADDRESS_SPACE,
	       "operation not supported on global/shared address space"),
	RESULT(CUDA_ERROR_INVALID_PC, "invalid program counter"),
	RESULT(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
	RESULT(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks in cooperative launch"),
	RESULT(CUDA_ERROR_TENSOR_MEMORY_LEAK, "tensor memory not completely freed"),
	RESULT(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
	RESULT(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
	RESULT(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized"),
	RESULT(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
	       "system has unsupported display driver / cuda driver combination"),
	RESULT(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
	       "forward compatibility was attempted on non supported HW"),
	RESULT(CUDA_ERROR_MPS_CONNECTION_FAILED,
	       "MPS client failed to connect to the MPS control daemon or the MPS server"),
	RESULT(CUDA_ERROR_MPS_RPC_FAILURE,
	       "the remote procedural call between the MPS server and the MPS client failed"),
	RESULT(CUDA_ERROR_MPS_SERVER_NOT_READY,
	       "MPS server is not ready to accept new MPS client requests"),
	RESULT(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED,
	       "the hardware resources required to create MPS client have been exhausted"),
	RESULT(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
	       "the hardware resources required to support device connections have been exhausted"),
	RESULT(CUDA_ERROR_MPS_CLIENT_TERMINATED,
	       "the MPS client has been terminated by the server"),
	RESULT(CUDA_ERROR_CDP_NOT_SUPPORTED, "module is using CUDA Dynamic Parallelism, but the "
	                                     "current configuration does not support it"),
	RESULT(CUDA_ERROR_CDP_VERSION_MISMATCH,
	       "CUDA Dynamic Parallelism version of the module does not match the driver's"),
	RESULT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
	       "operation not permitted when stream is capturing"),
	RESULT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
	       "operation failed due to a previous error during capture"),
	RESULT(CUDA_ERROR_STREAM_CAPTURE_MERGE,
	       "operation would result in a merge of separate capture sequences"),
	RESULT(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
	       "capture was not ended in the same stream as it began"),
	RESULT(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "capturing stream has unjoined work"),
	RESULT(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
	       "dependency created on uncaptured work in another stream"),
	RESULT(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
	       "operation would make the legacy stream depend on a capturing blocking stream"),
	RESULT(CUDA_ERROR_CAPTURED_EVENT,
	       "operation not permitted on an event last recorded in a capturing stream"),
	RESULT(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
	       "attempt to terminate a thread-local capture sequence from another thread"),
	RESULT(CUDA_ERROR_TIMEOUT, "wait operation timed out"),
	RESULT(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
	       "the graph update was not performed because it included changes which violated "
	       "constraints specific to instantiated graph update"),
	RESULT(CUDA_ERROR_EXTERNAL_DEVICE, "an async error has occurred in an external entity"),
	RESULT(CUDA_ERROR_INVALID_CLUSTER_SIZE,
	       "a kernel launch error has occurred due to cluster misconfiguration"),
	RESULT(CUDA_ERROR_FUNCTION_NOT_LOADED, "the function handle is not loaded"),
	RESULT(CUDA_ERROR_INVALID_RESOURCE_TYPE,
	       "one or more resources passed in are not valid resource types for the operation"),
	RESULT(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
	       "one or more resources are insufficient or non-applicable for the operation"),
	RESULT(CUDA_ERROR_KEY_ROTATION, "an error occurred during key rotation"),
	RESULT(CUDA_ERROR_UNKNOWN, "unknown error"),
};

static const struct result_text *result_lookup(CUresult result)
{
	for (size_t i = 0; i < sizeof(result_texts) / sizeof(result_texts[0]); i++)
		if (result_texts[i].result == result)
			return &result_texts[i];
	return NULL;
}

HIDDEN const char *sim_result_name(CUresult result)
{
	const struct result_text *entry = result_lookup(result);

	return entry ? entry->name : NULL;
}

/* cuda.h: an unknown code gives CUDA_ERROR_INVALID_VALUE and *pStr = NULL. */
static CUresult result_describe(CUresult error, const char **pStr, bool want_name)
{
	const struct result_text *entry = result_lookup(error);

	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	*pStr = entry ? (want_name ? entry->name : entry->text) : NULL;
	return entry ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
	cuGetErrorString_params p = { error, pStr };
	SIM_DRIVER_CALL(cuGetErrorString, p, result_describe(error, pStr, false));
}

SIM_EXPORT CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
	cuGetErrorName_params p = { error, pStr };
	SIM_DRIVER_CALL(cuGetErrorName, p, result_describe(error, pStr, true));
}

/* ------------------------------------------------------------ init */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CUresult init_status = CUDA_ERROR_NOT_INITIALIZED;
/* The thread running the one-time initialisation: a cuInit it makes from
 * InitializeInjection must not wait for itself. */
static __thread bool thread_initialising;

HIDDEN CUresult sim_init_status(void)
{
	return __atomic_load_n(&init_status, __ATOMIC_ACQUIRE);
}

/*
 * CUDA_INJECTION64_PATH, as the real driver: dlopen the library and call
 * its InitializeInjection() once, on the thread running cuInit, before
 * cuInit returns (the README of NVIDIA's profiling injection sample). A library that cannot be loaded, lacks the
 * symbol or returns 0 changes nothing: the real driver carries on
 * silently, and so does this one.
 */
static void load_injection(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	int (*initialize)(void);
	void *handle;

	if (!path || !*path)
		return;
	handle = dlopen(path, RTLD_LAZY);
	if (!handle)
		return;
	*(void **)&initialize = dlsym(handle, "InitializeInjection");
	if (initialize)
		(void)initialize();
	/* The handle stays open: the tool lives as long as the process. */
}

static void initialise(void)
{
	const struct sim_config *config = sim_config();

	thread_initialising = true;
	if (config->no_device || config->device_count == 0) {
		__atomic_store_n(&init_status, CUDA_ERROR_NO_DEVICE, __ATOMIC_RELEASE);
		goto end;
	}
	/* Initialised before the tool loads: CUPTI may query the driver from
	 * InitializeInjection (cuptiGetDeviceId and the like). */
	__atomic_store_n(&init_status, CUDA_SUCCESS, __ATOMIC_RELEASE);
	load_injection();
	sim_resource_callback(CUPTI_CBID_RESOURCE_CU_INIT_FINISHED, NULL, NULL);
end:
	thread_initialising = false;
}

static CUresult driver_init(unsigned int flags)
{
	/* cuda.h: "Currently, the Flags parameter must be 0." */
	if (flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (thread_initialising)
		return sim_init_status();
	pthread_once(&init_once, initialise);
	return sim_init_status();
}

SIM_EXPORT CUresult CUDAAPI cuInit(unsigned int Flags)
{
	cuInit_params p = { Flags };
	SIM_DRIVER_CALL(cuInit, p, driver_init(Flags));
}

SIM_EXPORT CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	cuDriverGetVersion_params p = { driverVersion };
	struct sim_api_call call;
	CUresult r = CUDA_ERROR_INVALID_VALUE;

	SIM_DRIVER_ENTER(call, cuDriverGetVersion, &p);
	if (driverVersion) {
		/* CUDASIM_DRIVER_VERSION: the CUDA version this driver supports. */
		*driverVersion = sim_config()->driver_version;
		r = CUDA_SUCCESS;
	}
	sim_api_exit(&call, r);
	return r;
}

/* ------------------------------------------------------------ cuGetProcAddress */

/* Longest exported name looked up, with its _vN suffix. */
#define PROC_NAME_MAX 256

static pthread_once_t self_once = PTHREAD_ONCE_INIT;
static void *self_handle;
static void *self_base;

/* This library's own handle: a symbol is looked up in it and nowhere else. */
static void find_self(void)
{
	Dl_info info;

	if (!dladdr((void *)&sim_init_status, &info) || !info.dli_fname)
		return;
	self_base = info.dli_fbase;
	self_handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

/* An exported driver entry point of this library, or NULL. dlsym on a
 * handle also searches its dependencies (libc...), hence the dladdr check. */
static void *self_symbol(const char *name)
{
	Dl_info info;
	void *address;

	pthread_once(&self_once, find_self);
	if (!self_handle)
		return NULL;
	address = dlsym(self_handle, name);
	if (!address || !dladdr(address, &info) || info.dli_fbase != self_base)
		return NULL;
	return address;
}

static int proc_compare(const void *key, const void *element)
{
	return strcmp(key, ((const struct sim_proc_versions *)element)->name);
}

/* The driver function named symbol (a base name: cuMemAlloc, not
 * cuMemAlloc_v2), or NULL for a name no typedef header gives. */
static const struct sim_proc_versions *proc_entry(const char *symbol)
{
	return bsearch(symbol, sim_proc_table, sim_proc_table_count, sizeof(sim_proc_table[0]),
	               proc_compare);
}

/*
 * The exported name of the entry for cudaVersion into buf: the latest ABI
 * version introduced at or before it ("if the specified CUDA version is
 * greater than or equal to the CUDA version in which the driver symbol was
 * introduced, this API will return the function pointer to the
 * corresponding versioned function", cuda.h cuGetProcAddress). false when
 * the symbol appeared only later.
 */
static bool proc_versioned_name(const struct sim_proc_versions *entry, int cuda_version, char *buf,
                                size_t size)
{
	int chosen = -1;

	for (int v = 0; v < SIM_PROC_VERSIONS && entry->versions[v]; v++)
		if (entry->versions[v] <= cuda_version)
			chosen = v;
	if (chosen < 0)
		return false;
	if (chosen == 0)
		snprintf(buf, size, "%s", entry->name);
	else
		snprintf(buf, size, "%s_v%d", entry->name, chosen + 1);
	return true;
}

/* The per-thread default stream variant when asked for and present, else
 * the legacy one (cuda.h: CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM). */
static void *proc_lookup(const char *name, bool per_thread)
{
	static const char *const suffixes[] = { "_ptds", "_ptsz" };
	char variant[PROC_NAME_MAX + 8];
	void *address;

	for (size_t i = 0; per_thread && i < 2; i++) {
		snprintf(variant, sizeof(variant), "%s%s", name, suffixes[i]);
		address = self_symbol(variant);
		if (address)
			return address;
	}
	return self_symbol(name);
}

static CUresult proc_address(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
	const cuuint64_t known_flags =
	    CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	const struct sim_proc_versions *entry;
	char name[PROC_NAME_MAX];

	/* cuda.h: a CUDA version above the driver's is an invalid value. */
	if (!symbol || !pfn || cuda_version > sim_config()->driver_version ||
	    (flags & ~known_flags))
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	entry = strlen(symbol) > 200 ? NULL : proc_entry(symbol);
	if (!entry)
		goto end;
	if (!proc_versioned_name(entry, cuda_version, name, sizeof(name))) {
		found = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
		goto end;
	}
	/* DEFAULT means legacy here: this library is not built per-thread
	 * (a per-thread caller's cuda.h adds the flag itself). The variant
	 * exists from the version its typedef names (cudaTypedefs.h). */
	*pfn = proc_lookup(name, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
	                             entry->per_thread && cuda_version >= entry->per_thread);
	if (*pfn)
		found = CU_GET_PROC_ADDRESS_SUCCESS;
end:
	/* cuda.h: an unknown or unsupported symbol is CUDA_SUCCESS with *pfn
	 * NULL; only symbolStatus says why. */
	if (status)
		*status = found;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                                cuuint64_t flags,
                                                CUdriverProcAddressQueryResult *symbolStatus)
{
	cuGetProcAddress_v2_params p = { symbol, pfn, cudaVersion, flags, symbolStatus };
	SIM_DRIVER_CALL(cuGetProcAddress_v2, p,
	                proc_address(symbol, pfn, cudaVersion, flags, symbolStatus));
}

/* The CUDA 11.3 entry point, without symbolStatus; cuda.h renames
 * cuGetProcAddress to cuGetProcAddress_v2 for newer callers. */
#undef cuGetProcAddress
SIM_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                             cuuint64_t flags);

SIM_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                             cuuint64_t flags)
{
	cuGetProcAddress_params p = { symbol, pfn, cudaVersion, flags };
	SIM_DRIVER_CALL(cuGetProcAddress, p, proc_address(symbol, pfn, cudaVersion, flags, NULL));
}

/* ------------------------------------------------------------ the rest */

/* Nothing here uses the private export tables of the real driver. */
SIM_EXPORT CUresult CUDAAPI cuGetExportTable(const void **ppExportTable,
                                             const CUuuid *pExportTableId)
{
	cuGetExportTable_params p = { ppExportTable, pExportTableId };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuGetExportTable, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS && (!ppExportTable || !pExportTableId))
		r = CUDA_ERROR_INVALID_VALUE;
	else if (r == CUDA_SUCCESS)
		r = CUDA_ERROR_NOT_SUPPORTED;
	if (ppExportTable)
		*ppExportTable = NULL;
	sim_api_exit(&call, r);
	return r;
}

/* There is no profiler to start: both succeed once the driver is up. */
SIM_EXPORT CUresult CUDAAPI cuProfilerStart(void)
{
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuProfilerStart, NULL);
	r = sim_init_status();
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuProfilerStop(void)
{
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuProfilerStop, NULL);
	r = sim_init_status();
	sim_api_exit(&call, r);
	return r;
}
