/* SPDX-License-Identifier: MIT */
/*
 * cupti-driver.c - finding the simulated driver. libcupti.so.13 does not
 * link libcuda.so.1 (the real one does not list it as NEEDED either): it
 * looks the driver up when it first needs it and takes the few sim_*
 * entry points of sim-hooks.h with dlsym.
 */
#include <dlfcn.h>
#include <pthread.h>
#include "cupti-internal.h"

static pthread_mutex_t driver_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cupti_driver driver;
static const struct cupti_driver *bound; /* &driver once every symbol is found */

/* The driver the process already uses, else the one the loader finds. The
 * handle is never closed: CUPTI stays attached until the process ends. */
static void *open_driver(void)
{
	void *handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);

	if (!handle)
		handle = dlopen("libcuda.so.1", RTLD_LAZY);
	return handle;
}

/* Take every entry point or none: a driver without them is a real one. */
static bool bind_symbols(void *handle, struct cupti_driver *out)
{
	*(void **)&out->profiler_attach = dlsym(handle, "sim_profiler_attach");
	*(void **)&out->context_id = dlsym(handle, "sim_context_id");
	*(void **)&out->context_device = dlsym(handle, "sim_context_device");
	*(void **)&out->stream_id = dlsym(handle, "sim_stream_id");
	*(void **)&out->ledger = dlsym(handle, "sim_ledger");
	return out->profiler_attach && out->context_id && out->context_device && out->stream_id &&
	       out->ledger;
}

const struct cupti_driver *cupti_driver(void)
{
	const struct cupti_driver *result = __atomic_load_n(&bound, __ATOMIC_ACQUIRE);
	void *handle;

	if (result)
		return result;
	/* Not cached on failure: a later call may find a driver loaded since. */
	pthread_mutex_lock(&driver_lock);
	if (bound)
		goto end;
	handle = open_driver();
	if (!handle)
		goto end;
	if (bind_symbols(handle, &driver))
		__atomic_store_n(&bound, &driver, __ATOMIC_RELEASE);
end:
	result = bound;
	pthread_mutex_unlock(&driver_lock);
	return result;
}

void cupti_stub_called(const char *name)
{
	const struct cupti_driver *d = cupti_driver();

	if (d)
		d->ledger("op=error api=%s result=CUPTI_ERROR_NOT_SUPPORTED", name);
}
