/* SPDX-License-Identifier: MIT */
/*
 * cupti-subscriber.c - the callback API (cupti_callbacks.h): the one
 * subscriber a process may have, the set of enabled (domain, cbid) pairs,
 * and the sim_profiler table through which the driver asks what is enabled
 * and delivers callbacks and records. cuptiFinalize lives here too: it
 * detaches that table.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cupti-internal.h"

/* "CUPTI adds a 10 byte prefix and a null terminator" to the subscriber
 * name (CUPTI_SUBSCRIBER_NAME_MAX_LEN, cupti_callbacks.h). */
#define SUBSCRIBER_NAME_PREFIX "CUPTI for "
#define SUBSCRIBER_NAME_SIZE   64

struct CUpti_Subscriber_st {
	CUpti_CallbackFunc callback;
	void *userdata;
	char name[SUBSCRIBER_NAME_SIZE];
	struct CUpti_Subscriber_st *retired_next;
};

/*
 * The subscriber is read without a lock on every callback, so it is never
 * changed in place: each cuptiSubscribe makes a new one, and an old one is
 * kept (on the retired list) for a callback that may still be reading it.
 */
static pthread_mutex_t subscriber_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUpti_Subscriber_st *subscriber;
static struct CUpti_Subscriber_st *retired;
static bool profiler_attached;

/* Enabled callbacks, one byte per cbid, read with relaxed atomics. */
static uint8_t enabled_driver[CUPTI_DRIVER_TRACE_CBID_SIZE];
static uint8_t enabled_runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static uint8_t enabled_resource[CUPTI_CBID_RESOURCE_SIZE];
static uint8_t enabled_synchronize[CUPTI_CBID_SYNCHRONIZE_SIZE];
static uint8_t enabled_nvtx[CUPTI_CBID_NVTX_SIZE];
static uint8_t enabled_state[CUPTI_CBID_STATE_SIZE];

struct domain_set {
	uint8_t *enabled;
	size_t count;
};

static const struct domain_set domains[CUPTI_CB_DOMAIN_SIZE] = {
	[CUPTI_CB_DOMAIN_DRIVER_API] = { enabled_driver, CUPTI_DRIVER_TRACE_CBID_SIZE },
	[CUPTI_CB_DOMAIN_RUNTIME_API] = { enabled_runtime, CUPTI_RUNTIME_TRACE_CBID_SIZE },
	[CUPTI_CB_DOMAIN_RESOURCE] = { enabled_resource, CUPTI_CBID_RESOURCE_SIZE },
	[CUPTI_CB_DOMAIN_SYNCHRONIZE] = { enabled_synchronize, CUPTI_CBID_SYNCHRONIZE_SIZE },
	[CUPTI_CB_DOMAIN_NVTX] = { enabled_nvtx, CUPTI_CBID_NVTX_SIZE },
	[CUPTI_CB_DOMAIN_STATE] = { enabled_state, CUPTI_CBID_STATE_SIZE },
};

static const struct sim_profiler profiler = {
	.callback_enabled = cupti_callback_enabled,
	.callback = cupti_callback_deliver,
	.activity_enabled = cupti_activity_enabled,
	.activity = cupti_activity_offer,
	.um_counter_enabled = cupti_um_counter_enabled,
};

/* The set of a valid domain, or NULL. */
static const struct domain_set *domain_set(CUpti_CallbackDomain domain)
{
	if ((unsigned)domain >= CUPTI_CB_DOMAIN_SIZE || !domains[domain].enabled)
		return NULL;
	return &domains[domain];
}

static void set_domain(const struct domain_set *set, uint8_t value)
{
	for (size_t cbid = 0; cbid < set->count; cbid++)
		__atomic_store_n(&set->enabled[cbid], value, __ATOMIC_RELAXED);
}

static void set_all_domains(uint8_t value)
{
	for (int domain = 0; domain < CUPTI_CB_DOMAIN_SIZE; domain++)
		if (domains[domain].enabled)
			set_domain(&domains[domain], value);
}

int cupti_callback_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	const struct domain_set *set = domain_set(domain);

	if (!set || cbid >= set->count)
		return 0;
	if (!__atomic_load_n(&subscriber, __ATOMIC_ACQUIRE))
		return 0;
	return __atomic_load_n(&set->enabled[cbid], __ATOMIC_RELAXED);
}

/* Synchronous, on the caller's thread, no lock held: the callback may call
 * back into CUPTI or the driver. */
void cupti_callback_deliver(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *cbdata)
{
	struct CUpti_Subscriber_st *current = __atomic_load_n(&subscriber, __ATOMIC_ACQUIRE);

	if (!current || !current->callback || !cupti_callback_enabled(domain, cbid))
		return;
	current->callback(current->userdata, domain, cbid, cbdata);
}

CUptiResult cupti_profiler_attach(void)
{
	const struct cupti_driver *driver = cupti_driver();
	bool attach;

	if (!driver)
		return CUPTI_ERROR_NOT_INITIALIZED;
	pthread_mutex_lock(&subscriber_lock);
	attach = !profiler_attached;
	profiler_attached = true;
	pthread_mutex_unlock(&subscriber_lock);
	if (attach)
		driver->profiler_attach(&profiler);
	return CUPTI_SUCCESS;
}

/* Name of whoever holds CUPTI: another tool (simulated), else our own. */
static const char *holder_name(void)
{
	const char *other = getenv("CUDASIM_CUPTI_OTHER_SUBSCRIBER");

	if (other && *other)
		return other;
	if (subscriber)
		return subscriber->name;
	return NULL;
}

static void report_holder(const CUpti_SubscriberParams *params, const char *holder)
{
	if (!params || params->structSize < CUpti_SubscriberParams_STRUCT_SIZE)
		return;
	if (params->oldSubscriberName && params->oldSubscriberSize > 0)
		snprintf(params->oldSubscriberName, params->oldSubscriberSize, "%s", holder);
}

static void name_subscriber(struct CUpti_Subscriber_st *sub, const CUpti_SubscriberParams *params)
{
	const char *name = NULL;

	if (params && params->structSize >=
	                  CUPTI_CALLBACK_STRUCT_SIZE(CUpti_SubscriberParams, subscriberName))
		name = params->subscriberName;
	if (name)
		snprintf(sub->name, sizeof(sub->name), SUBSCRIBER_NAME_PREFIX "%.*s",
		         CUPTI_SUBSCRIBER_NAME_MAX_LEN, name);
	else
		snprintf(sub->name, sizeof(sub->name), "CUPTI");
}

/* Checks first, so that a refused subscription changes nothing. */
static CUptiResult subscribe(CUpti_SubscriberHandle *handle, CUpti_CallbackFunc callback,
                             void *userdata, const CUpti_SubscriberParams *params)
{
	struct CUpti_Subscriber_st *sub;
	const char *holder;

	if (!handle)
		return CUPTI_ERROR_INVALID_PARAMETER;
	/* "pParams.structSize is not filled with the size of the structure" */
	if (params && params->structSize == 0)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (!cupti_driver())
		return CUPTI_ERROR_NOT_INITIALIZED;
	sub = calloc(1, sizeof(*sub));
	if (!sub)
		return CUPTI_ERROR_OUT_OF_MEMORY;
	sub->callback = callback;
	sub->userdata = userdata;
	name_subscriber(sub, params);

	pthread_mutex_lock(&subscriber_lock);
	holder = holder_name();
	if (holder) {
		report_holder(params, holder);
		pthread_mutex_unlock(&subscriber_lock);
		free(sub);
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	__atomic_store_n(&subscriber, sub, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&subscriber_lock);
	*handle = sub;
	return cupti_profiler_attach();
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber_handle,
                                               CUpti_CallbackFunc callback, void *userdata)
{
	return cupti_status(subscribe(subscriber_handle, callback, userdata, NULL));
}

#if SIM_CUPTI_MAJOR >= 13
SIM_EXPORT CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber_handle,
                                                  CUpti_CallbackFunc callback, void *userdata,
                                                  CUpti_SubscriberParams *pParams)
{
	return cupti_status(subscribe(subscriber_handle, callback, userdata, pParams));
}
#endif

/* Drop the subscriber and every enabled callback. Caller holds the lock. */
static void retire_subscriber(void)
{
	struct CUpti_Subscriber_st *old = subscriber;

	if (!old)
		return;
	__atomic_store_n(&subscriber, NULL, __ATOMIC_RELEASE);
	set_all_domains(0);
	old->retired_next = retired;
	retired = old;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle handle)
{
	CUptiResult result = CUPTI_SUCCESS;

	pthread_mutex_lock(&subscriber_lock);
	if (!handle || handle != subscriber)
		result = CUPTI_ERROR_INVALID_PARAMETER;
	else
		retire_subscriber();
	pthread_mutex_unlock(&subscriber_lock);
	return cupti_status(result);
}

/* The handle must be the live subscriber. Reads a pointer only. */
static bool is_subscriber(CUpti_SubscriberHandle handle)
{
	return handle && handle == __atomic_load_n(&subscriber, __ATOMIC_ACQUIRE);
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle handle,
                                                    CUpti_CallbackDomain domain,
                                                    CUpti_CallbackId cbid)
{
	const struct domain_set *set = domain_set(domain);

	if (!is_subscriber(handle) || !set || cbid >= set->count)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	__atomic_store_n(&set->enabled[cbid], enable ? 1 : 0, __ATOMIC_RELAXED);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle handle,
                                                  CUpti_CallbackDomain domain)
{
	const struct domain_set *set = domain_set(domain);

	if (!is_subscriber(handle) || !set)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	set_domain(set, enable ? 1 : 0);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t enable,
                                                      CUpti_SubscriberHandle handle)
{
	if (!is_subscriber(handle))
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	set_all_domains(enable ? 1 : 0);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t *enable,
                                                      CUpti_SubscriberHandle handle,
                                                      CUpti_CallbackDomain domain,
                                                      CUpti_CallbackId cbid)
{
	const struct domain_set *set = domain_set(domain);

	if (!enable || !is_subscriber(handle) || !set || cbid >= set->count)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	*enable = __atomic_load_n(&set->enabled[cbid], __ATOMIC_RELAXED);
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI cuptiSupportedDomains(size_t *domainCount,
                                                      CUpti_DomainTable *domainTable)
{
	static CUpti_CallbackDomain supported[] = {
		CUPTI_CB_DOMAIN_DRIVER_API,  CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_RESOURCE,
		CUPTI_CB_DOMAIN_SYNCHRONIZE, CUPTI_CB_DOMAIN_NVTX,        CUPTI_CB_DOMAIN_STATE,
	};

	if (!domainCount || !domainTable)
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	*domainCount = sizeof(supported) / sizeof(supported[0]);
	*domainTable = supported;
	return CUPTI_SUCCESS;
}

void cupti_subscriber_finalize(void)
{
	const struct cupti_driver *driver = cupti_driver();
	bool detach;

	pthread_mutex_lock(&subscriber_lock);
	retire_subscriber();
	detach = profiler_attached;
	profiler_attached = false;
	pthread_mutex_unlock(&subscriber_lock);
	if (detach && driver)
		driver->profiler_attach(NULL);
}

/*
 * "destroys and cleans up all the resources associated with CUPTI"
 * (cupti_activity.h): kinds off, buffers handed back (a forced flush, so
 * that no client buffer is lost), subscriber gone, driver detached, clock
 * and thread id type back to their defaults. CUPTI can be used again after.
 */
SIM_EXPORT CUptiResult CUPTIAPI cuptiFinalize(void)
{
	cupti_activity_finalize();
	cupti_buffers_finalize();
	cupti_subscriber_finalize();
	cupti_clock_finalize();
	cupti_ids_finalize();
	return CUPTI_SUCCESS;
}
