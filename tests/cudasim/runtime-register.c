/* SPDX-License-Identifier: MIT */
/*
 * runtime-register.c - nvcc's registration ABI (crt/host_runtime.h) and
 * the kernel table it fills.
 *
 * Registration runs from ELF constructors, before main and before any
 * CUDA initialisation, so it only records: each fat binary's kernels (host
 * stub -> device name) and variables. The driver module of a fat binary is
 * created lazily, per context, by the first launch that needs it
 * (sim_module_load_names: the device code itself may be compressed, so the
 * simulated driver is given the kernel names). Kernel records are never
 * freed, so that a launch racing with __cudaUnregisterFatBinary (atexit,
 * dlclose) never reads freed memory; unregistering unlinks them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "runtime-internal.h"

/* What a kernel (its CUfunction) or a fat binary (its CUmodule) is in one
 * context. */
struct rt_slot {
	CUcontext ctx;
	int device;
	uint64_t epoch; /* rt_device_epoch(device) when it was looked up */
	void *handle;
};

/* The slots of one kernel or fat binary, one per context. */
struct rt_slots {
	struct rt_slot *items;
	size_t count;
};

struct rt_fatbin;

struct rt_kernel {
	const void *host_fun; /* the host stub nvcc registered */
	char *name;           /* device (mangled) name */
	struct rt_fatbin *fatbin;
	struct rt_kernel *next_in_fatbin;
	struct rt_kernel *next_in_bucket;
	struct rt_slots functions; /* CUfunction */
};

/* A __managed__ variable: its host shadow is a T* that __cudaInitModule
 * points at managed memory (crt/host_runtime.h:212-226). */
struct rt_managed_var {
	void **host_ptr_address;
	size_t size;
	struct rt_managed_var *next;
};

/* A __device__ or __constant__ variable, recorded for completeness. */
struct rt_device_var {
	char *host_var;
	char *name;
	size_t size;
	bool constant;
	struct rt_device_var *next;
};

struct rt_fatbin {
	const void *wrapper; /* nvcc's __fatBinC_Wrapper_t */
	bool ended;          /* __cudaRegisterFatBinaryEnd seen */
	struct rt_kernel *kernels;
	size_t kernel_count;
	struct rt_managed_var *managed;
	struct rt_device_var *variables;
	struct rt_slots modules; /* CUmodule */
	struct rt_fatbin *next;  /* registered fat binaries */
};

#define RT_KERNEL_BUCKETS 4096u

static pthread_mutex_t rt_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_kernel *rt_kernel_buckets[RT_KERNEL_BUCKETS];
static struct rt_fatbin *rt_fatbins;

static size_t rt_bucket_of(const void *host_fun)
{
	uintptr_t key = (uintptr_t)host_fun;

	key ^= key >> 17;
	key *= (uintptr_t)0x9e3779b97f4a7c15ull;
	return (size_t)(key >> 20) % RT_KERNEL_BUCKETS;
}

/* Call with rt_reg_lock held: a handle is valid while it is registered. */
static struct rt_fatbin *rt_fatbin_from_handle(void **handle)
{
	struct rt_fatbin *fatbin;

	for (fatbin = rt_fatbins; fatbin; fatbin = fatbin->next)
		if ((void **)fatbin == handle)
			return fatbin;
	return NULL;
}

/* ------------------------------------------------------------ lookup */

struct rt_kernel *rt_kernel_find(const void *host_fun)
{
	struct rt_kernel *kernel;

	if (!host_fun)
		return NULL;
	pthread_mutex_lock(&rt_reg_lock);
	kernel = rt_kernel_buckets[rt_bucket_of(host_fun)];
	while (kernel && kernel->host_fun != host_fun)
		kernel = kernel->next_in_bucket;
	pthread_mutex_unlock(&rt_reg_lock);
	return kernel;
}

const char *rt_kernel_name(const struct rt_kernel *kernel)
{
	return kernel ? kernel->name : NULL;
}

/* ------------------------------------------------------------ modules */

/* Call with rt_reg_lock held: the slot of ctx, unless the device was reset
 * since it was filled. */
static struct rt_slot *rt_slot_find(struct rt_slots *slots, CUcontext ctx, int device)
{
	for (size_t i = 0; i < slots->count; i++) {
		struct rt_slot *slot = &slots->items[i];

		if (slot->ctx == ctx && slot->device == device &&
		    slot->epoch == rt_device_epoch(device))
			return slot;
	}
	return NULL;
}

/* Call with rt_reg_lock held. Reuses the slot of a reset or destroyed
 * context when there is one. Returns false when out of memory. */
static bool rt_slot_store(struct rt_slots *slots, CUcontext ctx, int device, uint64_t epoch,
                          void *handle)
{
	struct rt_slot *items;

	for (size_t i = 0; i < slots->count; i++) {
		struct rt_slot *slot = &slots->items[i];

		if (slot->ctx == ctx && slot->device == device) {
			slot->epoch = epoch;
			slot->handle = handle;
			return true;
		}
	}
	items = realloc(slots->items, (slots->count + 1) * sizeof(*items));
	if (!items)
		return false;
	items[slots->count] = (struct rt_slot){ ctx, device, epoch, handle };
	slots->items = items;
	slots->count++;
	return true;
}

/* Call with rt_reg_lock held: forget a handle the driver no longer knows
 * (its context was destroyed through the driver API). */
static void rt_slot_drop(struct rt_slots *slots, void *handle)
{
	for (size_t i = 0; i < slots->count; i++) {
		if (slots->items[i].handle == handle) {
			slots->items[i] = slots->items[slots->count - 1];
			slots->count--;
			return;
		}
	}
}

/* Call with rt_reg_lock held: the names of the fat binary's kernels, in a
 * new array (the strings themselves live as long as the process). */
static const char **rt_fatbin_names(struct rt_fatbin *fatbin, size_t *count)
{
	const char **names;
	struct rt_kernel *kernel;
	size_t i = 0;

	names = calloc(fatbin->kernel_count ? fatbin->kernel_count : 1, sizeof(*names));
	if (!names)
		return NULL;
	for (kernel = fatbin->kernels; kernel && i < fatbin->kernel_count;
	     kernel = kernel->next_in_fatbin)
		names[i++] = kernel->name;
	*count = i;
	return names;
}

/*
 * The fat binary wrapper for the driver to read the kernels' attributes
 * from: only nvcc's version 1 wrapper (crt/host_runtime.h), whose data is
 * the fat binary itself; NULL otherwise (-rdc's version 2 lists prelinked
 * images, whose names the registration already gave).
 */
static const void *rt_fatbin_image(const struct rt_fatbin *fatbin)
{
	const struct {
		int magic;
		int version;
		const unsigned long long *data;
		void *filename_or_fatbins;
	} *wrapper = fatbin->wrapper;

	if (!wrapper || wrapper->magic != 0x466243B1 || wrapper->version != 1 || !wrapper->data)
		return NULL;
	return wrapper;
}

/*
 * The fat binary's module in ctx (current on this thread), loaded on first
 * use. The driver is called with no lock held (MODULE_LOADED goes to the
 * profiler); when two threads race, the first stored module wins and the
 * other is unloaded.
 */
static cudaError_t rt_fatbin_module(struct rt_fatbin *fatbin, CUcontext ctx, int device,
                                    CUmodule *module)
{
	uint64_t epoch = rt_device_epoch(device);
	struct rt_slot *slot;
	CUmodule loaded = NULL;
	CUmodule extra = NULL;
	cudaError_t result = cudaSuccess;
	const char **names;
	size_t count = 0;
	CUresult cu;

	pthread_mutex_lock(&rt_reg_lock);
	slot = rt_slot_find(&fatbin->modules, ctx, device);
	if (slot) {
		*module = slot->handle;
		pthread_mutex_unlock(&rt_reg_lock);
		return cudaSuccess;
	}
	names = rt_fatbin_names(fatbin, &count);
	pthread_mutex_unlock(&rt_reg_lock);
	if (!names)
		return cudaErrorMemoryAllocation;

	cu = sim_module_load_names(&loaded, rt_fatbin_image(fatbin), names, count);
	free(names);
	if (cu != CUDA_SUCCESS)
		return rt_error_from_cu(cu);

	pthread_mutex_lock(&rt_reg_lock);
	slot = rt_slot_find(&fatbin->modules, ctx, device);
	if (slot) {
		extra = loaded;
		*module = slot->handle;
	} else if (rt_slot_store(&fatbin->modules, ctx, device, epoch, loaded)) {
		*module = loaded;
	} else {
		extra = loaded;
		result = cudaErrorMemoryAllocation;
	}
	pthread_mutex_unlock(&rt_reg_lock);

	if (extra)
		cuModuleUnload(extra);
	return result;
}

static cudaError_t rt_function_lookup(struct rt_kernel *kernel, CUcontext ctx, int device,
                                      CUfunction *function)
{
	uint64_t epoch = rt_device_epoch(device);
	CUresult cu = CUDA_ERROR_UNKNOWN;
	CUmodule module = NULL;
	cudaError_t result;
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		result = rt_fatbin_module(kernel->fatbin, ctx, device, &module);
		if (result != cudaSuccess)
			return result;
		cu = cuModuleGetFunction(function, module, kernel->name);
		if (cu == CUDA_SUCCESS) {
			/* A failure to store only costs the cache entry. */
			pthread_mutex_lock(&rt_reg_lock);
			(void)rt_slot_store(&kernel->functions, ctx, device, epoch, *function);
			pthread_mutex_unlock(&rt_reg_lock);
			return cudaSuccess;
		}
		if (cu != CUDA_ERROR_INVALID_HANDLE && cu != CUDA_ERROR_INVALID_CONTEXT &&
		    cu != CUDA_ERROR_CONTEXT_IS_DESTROYED)
			break;
		pthread_mutex_lock(&rt_reg_lock);
		rt_slot_drop(&kernel->fatbin->modules, module);
		pthread_mutex_unlock(&rt_reg_lock);
	}
	/* The name is the fat binary's own: a miss means no usable code. */
	return cu == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidDeviceFunction : rt_error_from_cu(cu);
}

cudaError_t rt_kernel_function(struct rt_kernel *kernel, CUcontext ctx, int device,
                               CUfunction *function)
{
	struct rt_slot *slot;
	CUfunction cached = NULL;

	pthread_mutex_lock(&rt_reg_lock);
	slot = rt_slot_find(&kernel->functions, ctx, device);
	if (slot)
		cached = slot->handle;
	pthread_mutex_unlock(&rt_reg_lock);

	/* A function of a module whose context went away is no longer one. */
	if (cached && sim_function_name(cached)) {
		*function = cached;
		return cudaSuccess;
	}
	return rt_function_lookup(kernel, ctx, device, function);
}

/* ------------------------------------------------------------ nvcc ABI */

/*
 * The argument is nvcc's __fatBinC_Wrapper_t (magic 0x466243B1); the
 * returned handle must be non-NULL, kept, and passed back to every other
 * registration call (crt/host_runtime.h, and nvcc -keep output).
 */
SIM_EXPORT void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin)
{
	struct rt_fatbin *fatbin = calloc(1, sizeof(*fatbin));

	if (!fatbin)
		return NULL;
	fatbin->wrapper = fatCubin;
	pthread_mutex_lock(&rt_reg_lock);
	fatbin->next = rt_fatbins;
	rt_fatbins = fatbin;
	pthread_mutex_unlock(&rt_reg_lock);
	return (void **)fatbin;
}

SIM_EXPORT void CUDARTAPI __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
	struct rt_fatbin *fatbin;

	pthread_mutex_lock(&rt_reg_lock);
	fatbin = rt_fatbin_from_handle(fatCubinHandle);
	if (fatbin)
		fatbin->ended = true;
	pthread_mutex_unlock(&rt_reg_lock);
}

/* deviceFun is the kernel's name string, not an address (§6). */
SIM_EXPORT void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                                 char *deviceFun, const char *deviceName,
                                                 int thread_limit, uint3 *tid, uint3 *bid,
                                                 dim3 *bDim, dim3 *gDim, int *wSize)
{
	const char *name = deviceFun ? deviceFun : deviceName;
	struct rt_kernel *kernel;
	struct rt_fatbin *fatbin;
	size_t bucket;

	if (!hostFun || !name)
		return;
	kernel = calloc(1, sizeof(*kernel));
	if (!kernel)
		return;
	kernel->host_fun = hostFun;
	kernel->name = strdup(name);
	if (!kernel->name)
		goto error;

	pthread_mutex_lock(&rt_reg_lock);
	fatbin = rt_fatbin_from_handle(fatCubinHandle);
	if (!fatbin) {
		pthread_mutex_unlock(&rt_reg_lock);
		goto error;
	}
	kernel->fatbin = fatbin;
	kernel->next_in_fatbin = fatbin->kernels;
	fatbin->kernels = kernel;
	fatbin->kernel_count++;
	/* The newest registration of a stub wins (cudaGetKernel's note). */
	bucket = rt_bucket_of(hostFun);
	kernel->next_in_bucket = rt_kernel_buckets[bucket];
	rt_kernel_buckets[bucket] = kernel;
	pthread_mutex_unlock(&rt_reg_lock);
	return;
error:
	free(kernel->name);
	free(kernel);
}

SIM_EXPORT void CUDARTAPI __cudaRegisterVar(void **fatCubinHandle, char *hostVar,
                                            char *deviceAddress, const char *deviceName, int ext,
                                            size_t size, int constant, int global)
{
	struct rt_device_var *var = calloc(1, sizeof(*var));
	struct rt_fatbin *fatbin;

	if (!var)
		return;
	var->host_var = hostVar;
	var->size = size;
	var->constant = constant != 0;
	var->name = deviceName ? strdup(deviceName) : NULL;

	pthread_mutex_lock(&rt_reg_lock);
	fatbin = rt_fatbin_from_handle(fatCubinHandle);
	if (fatbin) {
		var->next = fatbin->variables;
		fatbin->variables = var;
		var = NULL;
	}
	pthread_mutex_unlock(&rt_reg_lock);
	if (var) {
		free(var->name);
		free(var);
	}
}

SIM_EXPORT void CUDARTAPI __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                                   char *deviceAddress, const char *deviceName,
                                                   int ext, size_t size, int constant, int global)
{
	struct rt_managed_var *var;
	struct rt_fatbin *fatbin;

	if (!hostVarPtrAddress)
		return;
	var = calloc(1, sizeof(*var));
	if (!var)
		return;
	var->host_ptr_address = hostVarPtrAddress;
	var->size = size;

	pthread_mutex_lock(&rt_reg_lock);
	fatbin = rt_fatbin_from_handle(fatCubinHandle);
	if (fatbin) {
		var->next = fatbin->managed;
		fatbin->managed = var;
		var = NULL;
	}
	pthread_mutex_unlock(&rt_reg_lock);
	free(var);
}

/* Call with rt_reg_lock held: the first managed variable still without
 * memory, or NULL. */
static struct rt_managed_var *rt_managed_pending(struct rt_fatbin *fatbin)
{
	struct rt_managed_var *var;

	for (var = fatbin->managed; var; var = var->next)
		if (*var->host_ptr_address == NULL)
			return var;
	return NULL;
}

/*
 * Give each __managed__ variable of the fat binary managed memory, zeroed
 * (the initialiser lives in device code the simulator does not run). The
 * memory is host-accessible, as managed memory is.
 */
static cudaError_t rt_init_managed(void **handle)
{
	struct rt_managed_var *var;
	struct rt_fatbin *fatbin;
	cudaError_t result;
	bool raced;
	CUdeviceptr dptr;
	size_t size;

	result = rt_context(NULL, NULL);
	if (result != cudaSuccess)
		return result;
	for (;;) {
		pthread_mutex_lock(&rt_reg_lock);
		fatbin = rt_fatbin_from_handle(handle);
		var = fatbin ? rt_managed_pending(fatbin) : NULL;
		size = var ? var->size : 0;
		pthread_mutex_unlock(&rt_reg_lock);
		if (!fatbin)
			return cudaErrorInvalidResourceHandle;
		if (!var)
			return cudaSuccess;

		/* Allocate unlocked (the driver may call the profiler); a
		 * thread that lost the race gives its memory back. */
		dptr = 0;
		result = rt_error_from_cu(
		    cuMemAllocManaged(&dptr, size ? size : 1, CU_MEM_ATTACH_GLOBAL));
		if (result != cudaSuccess)
			return result;
		memset((void *)dptr, 0, size);
		pthread_mutex_lock(&rt_reg_lock);
		raced = *var->host_ptr_address != NULL;
		if (!raced)
			*var->host_ptr_address = (void *)dptr;
		pthread_mutex_unlock(&rt_reg_lock);
		if (raced)
			cuMemFree(dptr);
	}
}

/* Returns non-zero once the variables are usable; on 0 nvcc's code calls
 * it again at the next access (crt/host_runtime.h:283-287). */
SIM_EXPORT char CUDARTAPI __cudaInitModule(void **fatCubinHandle)
{
	struct sim_api_call call;
	cudaError_t result;

	RT_ENTER(call, __cudaInitModule_v13000, "__cudaInitModule", NULL);
	result = rt_exit(&call, rt_init_managed(fatCubinHandle));
	return result == cudaSuccess ? 1 : 0;
}

/* Call with rt_reg_lock held. */
static void rt_kernel_unlink(struct rt_kernel *kernel)
{
	struct rt_kernel **link = &rt_kernel_buckets[rt_bucket_of(kernel->host_fun)];

	while (*link && *link != kernel)
		link = &(*link)->next_in_bucket;
	if (*link)
		*link = kernel->next_in_bucket;
	kernel->next_in_bucket = NULL;
}

/*
 * Runs from atexit (or dlclose of the object that registered it): the
 * kernels stop being found, so that a later object reusing the stub
 * addresses is not confused with this one. No driver call: the driver may
 * be shutting down too.
 */
SIM_EXPORT void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle)
{
	struct rt_fatbin **link;
	struct rt_kernel *kernel;

	pthread_mutex_lock(&rt_reg_lock);
	for (link = &rt_fatbins; *link; link = &(*link)->next) {
		if ((void **)*link != fatCubinHandle)
			continue;
		for (kernel = (*link)->kernels; kernel; kernel = kernel->next_in_fatbin)
			rt_kernel_unlink(kernel);
		*link = (*link)->next;
		break;
	}
	pthread_mutex_unlock(&rt_reg_lock);
}

/*
 * Registration entry points of the CUDA 13 runtime that nvcc 13.0 does not
 * emit (no crt/ header declares them; cupti_runtime_cbid.h:511 and :520 name
 * them) and whose arguments are therefore unknown. They are called at load
 * time, where an error has nowhere to go: they register nothing, report
 * nothing and leave the last-error slot alone. Exported so that a program
 * built by a newer nvcc loads.
 */
SIM_EXPORT void CUDARTAPI __cudaRegisterHostVar(void);
SIM_EXPORT void CUDARTAPI __cudaRegisterHostVar(void)
{
}

SIM_EXPORT void CUDARTAPI __cudaRegisterUnifiedTable(void);
SIM_EXPORT void CUDARTAPI __cudaRegisterUnifiedTable(void)
{
}
