/* SPDX-License-Identifier: MIT */
/*
 * runtime-api.c - the runtime's own state: lazy initialisation (cuInit,
 * primary contexts, the thread's device), the per-thread last-error slot
 * and sticky errors, the call frame helpers, and the version queries.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include "runtime-internal.h"

/* What the runtime keeps per host thread. Zero is the initial state. */
struct rt_thread {
	int device;             /* cudaSetDevice's device, 0 by default */
	CUcontext bound_ctx;    /* primary context the runtime made current */
	int bound_device;       /* its device */
	uint64_t bound_epoch;   /* rt_device_epoch(bound_device) at binding */
	cudaError_t last_error; /* cudaGetLastError's slot */
};

static __thread struct rt_thread rt_self;

/* Set by the library destructor: later calls get cudaErrorCudartUnloading. */
static atomic_bool rt_unloading;
/* The first sticky error: every later call returns it (driver_types.h:767). */
static atomic_int rt_sticky;

/* cuInit's own result, once (rt_preinit). */
enum { RT_INIT_NOT_DONE, RT_INIT_DONE };
static atomic_int rt_cuinit_state;
static atomic_int rt_cuinit_result;
/* The driver's CUDA version (cuDriverGetVersion), and whether it is older
 * than this runtime accepts: CUDA 13.0, the runtime's major version. */
#define RT_REQUIRED_DRIVER (CUDART_VERSION / 1000 * 1000)
static atomic_int rt_driver_version;
static atomic_bool rt_driver_too_old;

/* cuInit's outcome with the device count, computed once (init failures
 * are not retried). */
static atomic_int rt_init_state;
static cudaError_t rt_init_result;
static int rt_init_count;
static pthread_mutex_t rt_init_lock = PTHREAD_MUTEX_INITIALIZER;

/* The primary context the runtime retained for each device. */
struct rt_primary {
	CUcontext ctx;
	bool retained;
	atomic_uint_fast64_t epoch; /* bumped by each cudaDeviceReset */
};

static struct rt_primary rt_primaries[RT_MAX_DEVICES];
static pthread_mutex_t rt_primary_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((destructor)) static void rt_unload(void)
{
	atomic_store(&rt_unloading, true);
}

/* ------------------------------------------------------------ errors */

void rt_set_last_error(cudaError_t error)
{
	if (error == cudaSuccess)
		return;
	rt_self.last_error = error;
	if (rt_error_is_sticky(error)) {
		int none = cudaSuccess;

		atomic_compare_exchange_strong(&rt_sticky, &none, (int)error);
	}
}

cudaError_t rt_exit_quiet(struct sim_api_call *call, cudaError_t result)
{
	sim_api_exit_named(call, (int)result, rt_error_name(result));
	return result;
}

cudaError_t rt_exit(struct sim_api_call *call, cudaError_t result)
{
	rt_set_last_error(result);
	return rt_exit_quiet(call, result);
}

cudaError_t rt_stub_call(CUpti_CallbackId cbid, const char *name, void *params)
{
	struct sim_api_call call;
	cudaError_t result;

	rt_preinit();
	sim_api_enter(&call, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, name, params, NULL);
	result = rt_check_usable();
	if (result == cudaSuccess)
		result = cudaErrorNotSupported;
	return rt_exit(&call, result);
}

cudaError_t rt_check_usable(void)
{
	if (atomic_load(&rt_unloading))
		return cudaErrorCudartUnloading;
	return (cudaError_t)atomic_load(&rt_sticky);
}

/* ------------------------------------------------------------ init */

static cudaError_t rt_init_error(CUresult result)
{
	if (atomic_load(&rt_driver_too_old))
		return cudaErrorInsufficientDriver;
	/* 100 with no device, else 3 (or 34/35): cuda_runtime_api.h's
	 * note on initialisation errors; tensorflow#990. */
	if (result == CUDA_ERROR_NO_DEVICE)
		return cudaErrorNoDevice;
	if (result == CUDA_ERROR_STUB_LIBRARY)
		return cudaErrorStubLibrary;
	return result == CUDA_SUCCESS ? cudaSuccess : cudaErrorInitializationError;
}

/*
 * The runtime's first step: the driver's CUDA version against its own. A
 * runtime works with a driver of its own major version or later (CUDA
 * Compatibility, "Minor Version Compatibility": an application built with
 * any 13.x toolkit runs on a driver of the 13.x family, >= 580, and on any
 * later one through backward compatibility); an older driver is
 * cudaErrorInsufficientDriver ("the installed NVIDIA CUDA driver is older
 * than the CUDA runtime library", driver_types.h:394-399). cuDriverGetVersion
 * needs no cuInit (cuda.h, cuInit), and the runtime goes no further with a
 * driver it cannot use: cuInit is not called, so CUDA_INJECTION64_PATH is
 * not loaded either.
 *
 * cuInit may call the injection's InitializeInjection and resource
 * callbacks, which may call back into the runtime: it runs with no lock
 * held. Concurrent first calls may both call cuInit, which has no effect
 * the second time.
 */
void rt_preinit(void)
{
	int version = 0;
	CUresult cu;

	if (atomic_load(&rt_cuinit_state) == RT_INIT_DONE || atomic_load(&rt_unloading))
		return;
	if (cuDriverGetVersion(&version) == CUDA_SUCCESS)
		atomic_store(&rt_driver_version, version);
	if (version < RT_REQUIRED_DRIVER) {
		atomic_store(&rt_driver_too_old, true);
		cu = CUDA_ERROR_NOT_INITIALIZED;
	} else {
		cu = cuInit(0);
	}
	atomic_store(&rt_cuinit_result, (int)cu);
	atomic_store(&rt_cuinit_state, RT_INIT_DONE);
}

/* The ledger's record of the runtime's start: its version, the driver's,
 * and what came of it (once per process, by the call that initialised). */
static void rt_ledger_init(cudaError_t result)
{
	sim_ledger("op=runtime_init runtime=%d driver=%d required=%d result=%s api=%s",
	           CUDART_VERSION, atomic_load(&rt_driver_version), RT_REQUIRED_DRIVER,
	           rt_error_name(result), sim_current_api_name());
}

cudaError_t rt_driver_init(void)
{
	cudaError_t result;
	int count = 0;
	CUresult cu;

	if (atomic_load(&rt_init_state) == RT_INIT_DONE)
		return rt_init_result;

	rt_preinit();
	if (atomic_load(&rt_cuinit_state) != RT_INIT_DONE)
		return cudaErrorCudartUnloading;
	cu = (CUresult)atomic_load(&rt_cuinit_result);
	if (cu == CUDA_SUCCESS)
		cu = cuDeviceGetCount(&count);
	result = rt_init_error(cu);
	if (result == cudaSuccess && count <= 0)
		result = cudaErrorNoDevice;

	pthread_mutex_lock(&rt_init_lock);
	if (atomic_load(&rt_init_state) != RT_INIT_DONE) {
		rt_init_result = result;
		rt_init_count = result == cudaSuccess ? count : 0;
		atomic_store(&rt_init_state, RT_INIT_DONE);
		rt_ledger_init(result);
	}
	result = rt_init_result;
	pthread_mutex_unlock(&rt_init_lock);
	return result;
}

cudaError_t rt_device_count(int *count)
{
	cudaError_t result = rt_driver_init();

	*count = result == cudaSuccess ? rt_init_count : 0;
	return result;
}

cudaError_t rt_check_device(int device)
{
	int count;
	cudaError_t result = rt_device_count(&count);

	if (result != cudaSuccess)
		return result;
	if (device < 0 || device >= count || device >= RT_MAX_DEVICES)
		return cudaErrorInvalidDevice;
	return cudaSuccess;
}

/* ------------------------------------------------------------ contexts */

uint64_t rt_device_epoch(int device)
{
	if (device < 0 || device >= RT_MAX_DEVICES)
		return 0;
	return atomic_load(&rt_primaries[device].epoch);
}

/* The runtime's record of a valid device's primary context, with
 * rt_primary_lock taken. */
static cudaError_t rt_primary_lock_device(int device, struct rt_primary **primary)
{
	cudaError_t result = rt_check_device(device);

	if (result != cudaSuccess)
		return result;
	*primary = &rt_primaries[device];
	pthread_mutex_lock(&rt_primary_lock);
	return cudaSuccess;
}

/*
 * Retain outside the lock (the driver may deliver CONTEXT_CREATED to the
 * profiler), then keep whichever retain won a race and drop the other.
 */
cudaError_t rt_primary_context(int device, CUcontext *ctx)
{
	struct rt_primary *primary;
	CUcontext retained = NULL;
	bool lost_race = false;
	cudaError_t result;
	CUresult cu;

	result = rt_primary_lock_device(device, &primary);
	if (result != cudaSuccess)
		return result;
	if (primary->retained) {
		*ctx = primary->ctx;
		pthread_mutex_unlock(&rt_primary_lock);
		return cudaSuccess;
	}
	pthread_mutex_unlock(&rt_primary_lock);

	cu = cuDevicePrimaryCtxRetain(&retained, (CUdevice)device);
	if (cu != CUDA_SUCCESS)
		return rt_error_from_cu(cu);

	pthread_mutex_lock(&rt_primary_lock);
	if (primary->retained) {
		lost_race = true;
	} else {
		primary->ctx = retained;
		primary->retained = true;
	}
	*ctx = primary->ctx;
	pthread_mutex_unlock(&rt_primary_lock);

	if (lost_race)
		cuDevicePrimaryCtxRelease((CUdevice)device);
	return cudaSuccess;
}

cudaError_t rt_bind_device(int device)
{
	uint64_t epoch = rt_device_epoch(device);
	CUcontext ctx = NULL;
	cudaError_t result;
	CUresult cu;

	result = rt_primary_context(device, &ctx);
	if (result != cudaSuccess)
		return result;
	cu = cuCtxSetCurrent(ctx);
	if (cu != CUDA_SUCCESS)
		return rt_error_from_cu(cu);
	rt_self.device = device;
	rt_self.bound_ctx = ctx;
	rt_self.bound_device = device;
	rt_self.bound_epoch = epoch;
	return cudaSuccess;
}

static bool rt_binding_valid(CUcontext current)
{
	return current != NULL && current == rt_self.bound_ctx &&
	       rt_self.bound_device == rt_self.device &&
	       rt_self.bound_epoch == rt_device_epoch(rt_self.device);
}

/* A usable, initialised CUDA and the context current to the thread, as the
 * driver has it (NULL when none). */
static cudaError_t rt_driver_current(CUcontext *current)
{
	cudaError_t result = rt_check_usable();

	if (result == cudaSuccess)
		result = rt_driver_init();
	if (result != cudaSuccess)
		return result;
	return rt_error_from_cu(cuCtxGetCurrent(current));
}

/* The device of the current context, as the driver has it. */
static cudaError_t rt_driver_device(int *device)
{
	CUdevice owner;
	CUresult cu = cuCtxGetDevice(&owner);

	if (cu != CUDA_SUCCESS)
		return rt_error_from_cu(cu);
	*device = (int)owner;
	return cudaSuccess;
}

/*
 * The runtime uses the context current to the thread when there is one
 * (a program mixing in the driver API), else the primary context of the
 * thread's device, as the CUDA Programming Guide's "Interoperability
 * between Runtime and Driver APIs" describes.
 */
cudaError_t rt_context(CUcontext *ctx, int *device)
{
	CUcontext current = NULL;
	cudaError_t result = rt_driver_current(&current);

	if (result != cudaSuccess)
		return result;
	if (current == NULL || (current == rt_self.bound_ctx && !rt_binding_valid(current))) {
		result = rt_bind_device(rt_self.device);
		if (result != cudaSuccess)
			return result;
		current = rt_self.bound_ctx;
	}

	if (ctx)
		*ctx = current;
	if (!device)
		return cudaSuccess;
	if (current == rt_self.bound_ctx) {
		*device = rt_self.bound_device;
		return cudaSuccess;
	}
	return rt_driver_device(device);
}

cudaError_t rt_begin(bool args_valid)
{
	return args_valid ? rt_context(NULL, NULL) : cudaErrorInvalidValue;
}

cudaError_t rt_current_device(int *device, CUcontext *user_ctx)
{
	CUcontext current = NULL;
	cudaError_t result;

	if (user_ctx)
		*user_ctx = NULL;
	result = rt_driver_current(&current);
	if (result != cudaSuccess)
		return result;
	if (current == NULL || current == rt_self.bound_ctx) {
		*device = rt_self.device;
		return cudaSuccess;
	}
	result = rt_driver_device(device);
	if (result == cudaSuccess && user_ctx)
		*user_ctx = current;
	return result;
}

/*
 * Drop the runtime's retain so that the primary context is destroyed,
 * then reset it for any other holder (cuda.h:6063-6074: a reset does not
 * release). Threads that had it bound rebind on their next call because
 * the epoch moved.
 */
cudaError_t rt_reset_device(int device)
{
	struct rt_primary *primary;
	bool was_retained;
	cudaError_t result;
	CUresult cu;

	result = rt_primary_lock_device(device, &primary);
	if (result != cudaSuccess)
		return result;
	was_retained = primary->retained;
	primary->retained = false;
	primary->ctx = NULL;
	atomic_fetch_add(&primary->epoch, 1);
	pthread_mutex_unlock(&rt_primary_lock);

	if (was_retained)
		cuDevicePrimaryCtxRelease((CUdevice)device);
	cu = cuDevicePrimaryCtxReset((CUdevice)device);
	if (cu != CUDA_SUCCESS)
		return rt_error_from_cu(cu);
	if (rt_self.bound_ctx != NULL && rt_self.bound_device == device) {
		rt_self.bound_ctx = NULL;
		cuCtxSetCurrent(NULL);
	}
	return cudaSuccess;
}

/* ------------------------------------------------------------ exports */

SIM_EXPORT cudaError_t CUDARTAPI cudaGetLastError(void)
{
	struct sim_api_call call;
	cudaError_t result = rt_self.last_error;
	cudaError_t sticky = (cudaError_t)atomic_load(&rt_sticky);

	if (atomic_load(&rt_unloading)) {
		rt_self.last_error = cudaSuccess;
		return result;
	}
	RT_ENTER_NOINIT(call, cudaGetLastError_v3020, "cudaGetLastError", NULL);
	/* Reset the slot, except that a sticky error stays (§3). */
	rt_self.last_error = sticky;
	if (sticky != cudaSuccess)
		result = sticky;
	return rt_exit_quiet(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaPeekAtLastError(void)
{
	struct sim_api_call call;
	cudaError_t result = rt_self.last_error;
	cudaError_t sticky = (cudaError_t)atomic_load(&rt_sticky);

	if (sticky != cudaSuccess)
		result = sticky;
	if (atomic_load(&rt_unloading))
		return result;
	RT_ENTER_NOINIT(call, cudaPeekAtLastError_v3020, "cudaPeekAtLastError", NULL);
	return rt_exit_quiet(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaDriverGetVersion(int *driverVersion)
{
	cudaDriverGetVersion_v3020_params params = { driverVersion };
	struct sim_api_call call;
	cudaError_t result = cudaSuccess;
	CUresult cu;

	if (atomic_load(&rt_unloading))
		return cudaErrorCudartUnloading;
	RT_ENTER_NOINIT(call, cudaDriverGetVersion_v3020, "cudaDriverGetVersion", &params);
	if (!driverVersion) {
		result = cudaErrorInvalidValue;
		goto end;
	}
	/* cuda_runtime_api.h:9293: 0 with success when there is no driver. */
	cu = cuDriverGetVersion(driverVersion);
	if (cu != CUDA_SUCCESS)
		*driverVersion = 0;
end:
	return rt_exit(&call, result);
}

SIM_EXPORT cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *runtimeVersion)
{
	cudaRuntimeGetVersion_v3020_params params = { runtimeVersion };
	struct sim_api_call call;
	cudaError_t result = cudaSuccess;

	if (atomic_load(&rt_unloading))
		return cudaErrorCudartUnloading;
	RT_ENTER_NOINIT(call, cudaRuntimeGetVersion_v3020, "cudaRuntimeGetVersion", &params);
	if (!runtimeVersion)
		result = cudaErrorInvalidValue;
	else
		*runtimeVersion = CUDART_VERSION;
	return rt_exit(&call, result);
}
