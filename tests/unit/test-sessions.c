/* SPDX-License-Identifier: MIT */
/*
 * test-sessions.c - the session watcher (libtrace/sessions.c): what it
 * switches off while no session enables an event, and on again as sessions
 * come and go, and the live set it dumps for a session that starts while
 * the program runs. Sessions are faked by setting lttng-ust's enabled
 * state of the tracepoints (libtrace-test.h); CUPTI is faked here,
 * recording which callback ids, domains and activity kinds are on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cupti.h>

#include "activity.h"
#include "callbacks.h"
#include "cudatrace-tp.h"
#include "libtrace-test.h"
#include "names.h"
#include "sessions.h"
#include "state.h"
#include "statedump.h"
#include "tracker.h"

/* ------------------------------------------------------------ fake CUPTI */

#define DOMAINS 8
#define CBIDS   1024
#define KINDS   64

/* -1: never switched; 0: off; 1: on. */
static int callback_state[DOMAINS][CBIDS];
static int domain_state[DOMAINS];
static int kind_state[KINDS];
static unsigned cupti_calls;

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	cupti_calls++;
	if (!subscriber || domain >= DOMAINS || cbid >= CBIDS)
		return CUPTI_ERROR_INVALID_PARAMETER;
	callback_state[domain][cbid] = enable != 0;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain domain)
{
	cupti_calls++;
	if (!subscriber || domain >= DOMAINS)
		return CUPTI_ERROR_INVALID_PARAMETER;
	domain_state[domain] = enable != 0;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	cupti_calls++;
	kind_state[kind] = 1;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
	cupti_calls++;
	kind_state[kind] = 0;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char **name)
{
	if (domain != CUPTI_CB_DOMAIN_RUNTIME_API ||
	    cbid != CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*name = "cudaMalloc_v3020";
	return CUPTI_SUCCESS;
}

/* ------------------------------------------------------- what is on */

#define DRIVER(id)  CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##id
#define RUNTIME(id) CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##id
#define NVTX(id)    CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_##id

static int on(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return callback_state[domain][cbid];
}

/* The families the watcher switches, by one call of each. */
static int copies_on(void)
{
	assert_int_equal(on(RUNTIME(cudaMemcpyAsync_v3020)), on(DRIVER(cuMemcpyHtoD_v2)));
	assert_int_equal(on(RUNTIME(cudaMemset_v3020)), on(DRIVER(cuMemcpyHtoD_v2)));
	return on(DRIVER(cuMemcpyHtoD_v2));
}

static int launches_on(void)
{
	assert_int_equal(on(RUNTIME(cudaLaunchKernel_v7000)), on(DRIVER(cuLaunchKernel)));
	return on(DRIVER(cuLaunchKernel));
}

static int syncs_on(void)
{
	assert_int_equal(on(RUNTIME(cudaDeviceSynchronize_v3020)), on(DRIVER(cuCtxSynchronize)));
	assert_int_equal(domain_state[CUPTI_CB_DOMAIN_SYNCHRONIZE], on(DRIVER(cuCtxSynchronize)));
	return on(DRIVER(cuCtxSynchronize));
}

static int nvtx_ranges_on(void)
{
	assert_int_equal(on(NVTX(nvtxRangePushA)), on(NVTX(nvtxMarkA)));
	return on(NVTX(nvtxRangePushA));
}

/* What stays on whatever the sessions: allocations, releases, the calls
 * that end contexts, contexts and streams, registered NVTX strings. */
static void assert_always_on(void)
{
	assert_int_equal(on(RUNTIME(cudaMalloc_v3020)), 1);
	assert_int_equal(on(DRIVER(cuMemFree_v2)), 1);
	assert_int_equal(on(DRIVER(cuMemCreate)), 1);
	assert_int_equal(on(DRIVER(cuCtxDestroy_v2)), 1);
	assert_int_equal(domain_state[CUPTI_CB_DOMAIN_RESOURCE], 1);
	assert_int_equal(domain_state[CUPTI_CB_DOMAIN_NVTX], 1);
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_DEVICE], 1);
}

static const CUpti_ActivityKind gpu_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_MEMORY2,           CUPTI_ACTIVITY_KIND_MEMORY_POOL,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_OVERHEAD,
};

#define GPU_KIND_COUNT (sizeof(gpu_kinds) / sizeof(gpu_kinds[0]))

/* ------------------------------------------------------- sessions */

static unsigned api_names;
static unsigned infos;

static void on_api_name(void *data, const struct ct_ev_api_name *e)
{
	api_names++;
}

static void on_tracer_info(void *data, const struct ct_ev_tracer_info *e)
{
	infos++;
}

static void ignore(void *data, const void *e)
{
}

/* No session: no event enabled. */
static void end_sessions(void)
{
#define CT_EVENT(ident, name, layout, group) TP_DISABLE(name);
#include "contract/events.def"
}

static int group_setup(void **state)
{
	(void)state;
	memset(callback_state, 0xff, sizeof(callback_state));
	memset(domain_state, 0xff, sizeof(domain_state));
	memset(kind_state, 0xff, sizeof(kind_state));
	config.flush_period_ms = 0; /* no flush thread */
	config.session_poll_ms = 0;
	tracer.subscriber = (CUpti_SubscriberHandle)&tracer;
	tracer_set_running(true);
	if (callbacks_enable() != CUPTI_SUCCESS || activity_start() != 0)
		return -1;
	return 0;
}

static int no_session(void **state)
{
	(void)state;
	config.api = true;
	tracer_set_running(true);
	end_sessions();
	api_names = 0;
	infos = 0;
	return 0;
}

/* Before the watcher looks, everything is on. */
static void test_all_on_at_start(void **state)
{
	(void)state;
	assert_int_equal(copies_on(), 1);
	assert_int_equal(launches_on(), 1);
	assert_int_equal(syncs_on(), 1);
	assert_int_equal(nvtx_ranges_on(), 1);
	assert_always_on();
	for (size_t i = 0; i < GPU_KIND_COUNT; i++)
		assert_int_equal(kind_state[gpu_kinds[i]], 1);
}

static void test_nothing_without_session(void **state)
{
	(void)state;
	sessions_follow();
	assert_int_equal(copies_on(), 0);
	assert_int_equal(launches_on(), 0);
	assert_int_equal(syncs_on(), 0);
	assert_int_equal(nvtx_ranges_on(), 0);
	assert_always_on();
	for (size_t i = 0; i < GPU_KIND_COUNT; i++)
		assert_int_equal(kind_state[gpu_kinds[i]], 0);
	/* Nothing changed: nothing switched again. */
	cupti_calls = 0;
	sessions_follow();
	assert_int_equal(cupti_calls, 0);
}

/* Each family comes on with its events, and goes off when they do. */
static void test_families_follow_their_events(void **state)
{
	(void)state;
	sessions_follow();
	TP_ENABLE(memcpy, ignore);
	sessions_follow();
	assert_int_equal(copies_on(), 1);
	assert_int_equal(launches_on(), 0);
	TP_DISABLE(memcpy);
	TP_ENABLE(memset, ignore);
	sessions_follow();
	assert_int_equal(copies_on(), 1);
	TP_DISABLE(memset);
	TP_ENABLE(launch, ignore);
	sessions_follow();
	assert_int_equal(copies_on(), 0);
	assert_int_equal(launches_on(), 1);
	TP_ENABLE(sync, ignore);
	TP_ENABLE(nvtx_pop, ignore);
	sessions_follow();
	assert_int_equal(syncs_on(), 1);
	assert_int_equal(nvtx_ranges_on(), 1);
	end_sessions();
	sessions_follow();
	assert_int_equal(launches_on(), 0);
	assert_int_equal(syncs_on(), 0);
	assert_int_equal(nvtx_ranges_on(), 0);
	assert_always_on();
}

/* api_call and api_entry want every call, unless CUDATRACE_API=0. */
static void test_api_events(void **state)
{
	(void)state;
	TP_ENABLE(api_call, ignore);
	sessions_follow();
	assert_int_equal(copies_on(), 1);
	assert_int_equal(launches_on(), 1);
	assert_int_equal(syncs_on(), 1);
	assert_int_equal(nvtx_ranges_on(), 0); /* NVTX calls are not API calls */
	config.api = false;
	sessions_follow();
	assert_int_equal(copies_on(), 0);
	assert_int_equal(launches_on(), 0);
	assert_int_equal(syncs_on(), 0);
}

/* Activity kinds follow their gpu_* events; DEVICE stays on. */
static void test_activity_kinds(void **state)
{
	(void)state;
	sessions_follow();
	TP_ENABLE(gpu_kernel, ignore);
	TP_ENABLE(gpu_memcpy, ignore);
	sessions_follow();
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL], 1);
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_MEMCPY], 1);
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_MEMCPY2], 1);
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_MEMSET], 0);
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_MEMORY2], 0);
	/* The host events of the same operations do not need the records. */
	assert_int_equal(copies_on(), 0);
	TP_DISABLE(gpu_kernel);
	TP_ENABLE(gpu_overhead, ignore);
	TP_ENABLE(gpu_memory_pool, ignore);
	sessions_follow();
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL], 0);
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_OVERHEAD], 1);
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_MEMORY_POOL], 1);
	end_sessions();
	sessions_follow();
	for (size_t i = 0; i < GPU_KIND_COUNT; i++)
		assert_int_equal(kind_state[gpu_kinds[i]], 0);
	/* Any form of a record wants its kind (gpu_*_times: doc/events.md). */
	TP_ENABLE(gpu_kernel_times, ignore);
	TP_ENABLE(gpu_memcpy_times, ignore);
	sessions_follow();
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL], 1);
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_MEMCPY], 1);
	end_sessions();
	sessions_follow();
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL], 0);
	TP_ENABLE(gpu_kernel_shaped, ignore);
	sessions_follow();
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL], 1);
	end_sessions();
	sessions_follow();
	/* a gpu_batch holds both kinds' records */
	TP_ENABLE(gpu_batch, ignore);
	sessions_follow();
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_MEMCPY], 1);
	assert_int_equal(kind_state[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL], 1);
	end_sessions();
	sessions_follow();
	assert_always_on();
}

/* A session that starts while the program runs: one period after the
 * naming events come on, names already emitted are emitted again (the
 * first ones may have gone before the session recorded); tracer_info too,
 * and the watcher emits it even before a call. */
static void test_late_session_names(void **state)
{
	(void)state;
	sessions_follow();
	names_note_api(NULL, CUPTI_CB_DOMAIN_DRIVER_API, 43, "cuMemAlloc_v2");
	TP_ENABLE(api_name, on_api_name);
	TP_ENABLE(tracer_info, on_tracer_info);
	names_note_api(NULL, CUPTI_CB_DOMAIN_DRIVER_API, 43, "cuMemAlloc_v2");
	assert_int_equal(api_names, 1);
	sessions_follow(); /* the naming events are on: one tick */
	assert_int_equal(infos, 1);
	names_note_api(NULL, CUPTI_CB_DOMAIN_DRIVER_API, 43, "cuMemAlloc_v2");
	assert_int_equal(api_names, 1);
	sessions_follow(); /* two: everything named again */
	assert_int_equal(infos, 2);
	names_note_api(NULL, CUPTI_CB_DOMAIN_DRIVER_API, 43, "cuMemAlloc_v2");
	assert_int_equal(api_names, 2);
	sessions_follow(); /* and only once */
	sessions_follow();
	names_note_api(NULL, CUPTI_CB_DOMAIN_DRIVER_API, 43, "cuMemAlloc_v2");
	assert_int_equal(api_names, 2);
	assert_int_equal(infos, 2);
	/* The session ends, another starts: again. */
	end_sessions();
	sessions_follow();
	TP_ENABLE(api_name, on_api_name);
	sessions_follow();
	sessions_follow();
	names_note_api(NULL, CUPTI_CB_DOMAIN_DRIVER_API, 43, "cuMemAlloc_v2");
	assert_int_equal(api_names, 3);
}

/* A session started before the program: it records from the first event,
 * nothing is named twice. */
static void test_session_before_start(void **state)
{
	(void)state;
	TP_ENABLE(api_name, on_api_name);
	config.session_poll_ms = 10000;
	sessions_watch_start();
	names_note_api(NULL, CUPTI_CB_DOMAIN_RUNTIME_API, 20, "cudaMalloc_v3020");
	sessions_follow();
	sessions_follow();
	names_note_api(NULL, CUPTI_CB_DOMAIN_RUNTIME_API, 20, "cudaMalloc_v3020");
	assert_int_equal(api_names, 1);
	sessions_watch_stop();
	config.session_poll_ms = 0;
	/* It looked once at start: no session enables copies. */
	assert_int_equal(copies_on(), 0);
}

/* ------------------------------------------------------- the live set */

#define LIVE_MAX 64

static struct {
	unsigned begins, ends;
	uint32_t dump;
	uint8_t reason;
	uint32_t entries;
	uint8_t complete;
	unsigned live;
	struct ct_ev_mem_live lives[LIVE_MAX];
} dumped;

static void on_statedump_begin(void *data, const struct ct_ev_statedump_begin *e)
{
	dumped.begins++;
	dumped.dump = e->dump;
	dumped.reason = e->reason;
	dumped.live = 0;
}

static void on_mem_live(void *data, const struct ct_ev_mem_live *e)
{
	assert_int_equal(e->dump, dumped.dump);
	if (dumped.live < LIVE_MAX)
		dumped.lives[dumped.live] = *e;
	dumped.live++;
}

static void on_statedump_end(void *data, const struct ct_ev_statedump_end *e)
{
	assert_int_equal(e->dump, dumped.dump);
	dumped.ends++;
	dumped.entries = e->entries;
	dumped.complete = e->complete;
}

static void enable_live_set(void)
{
	TP_ENABLE(statedump_begin, on_statedump_begin);
	TP_ENABLE(mem_live, on_mem_live);
	TP_ENABLE(statedump_end, on_statedump_end);
}

/* The mem_live of the dump that starts at address, or NULL. */
static const struct ct_ev_mem_live *live_at(uint64_t address)
{
	for (unsigned i = 0; i < dumped.live && i < LIVE_MAX; i++) {
		if (dumped.lives[i].address == address)
			return &dumped.lives[i];
	}
	return NULL;
}

/* A session that starts while the program runs gets the live set once,
 * one period after its events come on, with what each allocation's
 * mem_alloc said and its allocation time; the next session gets its own;
 * periodic dumps say so. */
static void test_late_session_live_set(void **state)
{
	struct tracker_entry device = {
		.start = 0x7f0000001000,
		.size = 4096,
		.alloc_time = 111,
		.api = { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
		         42 },
		.context = 3,
		.stream = CT_STREAM_NONE,
		.kind = CT_MEM_DEVICE,
		.device = 1,
	};
	struct tracker_entry physical = {
		.start = 0x77,
		.size = 2 << 20,
		.alloc_time = 222,
		.api = { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemCreate, 43 },
		.stream = CT_STREAM_NONE,
		.kind = CT_MEM_VMM_PHYSICAL,
		.refs = 1,
	};
	const struct ct_ev_mem_live *live;
	uint32_t first;

	(void)state;
	memset(&dumped, 0, sizeof(dumped));
	assert_true(tracker_insert(TRACKER_ADDRESSES, &device));
	assert_true(tracker_insert(TRACKER_VMM_HANDLES, &physical));
	sessions_follow();
	enable_live_set();
	TP_ENABLE(api_name, on_api_name);
	sessions_follow(); /* the events are on: one tick */
	assert_int_equal(dumped.begins, 0);
	sessions_follow(); /* two: the dump */
	assert_int_equal(dumped.begins, 1);
	assert_int_equal(dumped.ends, 1);
	assert_int_equal(dumped.reason, CT_STATEDUMP_SESSION_START);
	assert_int_equal(dumped.live, 2);
	assert_int_equal(dumped.entries, 2);
	assert_int_equal(dumped.complete, 1);
	live = live_at(device.start);
	assert_non_null(live);
	assert_int_equal(live->size, 4096);
	assert_int_equal(live->kind, CT_MEM_DEVICE);
	assert_int_equal(live->device, 1);
	assert_int_equal(live->alloc_time, 111);
	assert_int_equal(live->stream, CT_STREAM_NONE);
	assert_int_equal(live->api.domain, CUPTI_CB_DOMAIN_RUNTIME_API);
	assert_int_equal(live->api.cbid, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
	assert_int_equal(live->api.correlation_id, 42);
	live = live_at(physical.start);
	assert_non_null(live);
	assert_int_equal(live->kind, CT_MEM_VMM_PHYSICAL);
	assert_int_equal(live->api.correlation_id, 43);
	/* The call that made it is named. */
	assert_int_equal(api_names, 1);
	first = dumped.dump;
	/* Once. */
	sessions_follow();
	sessions_follow();
	assert_int_equal(dumped.begins, 1);
	/* What was freed is not in the next one, which has its own number. */
	assert_true(tracker_remove(TRACKER_ADDRESSES, device.start, &device));
	end_sessions();
	sessions_follow();
	enable_live_set();
	sessions_follow();
	sessions_follow();
	assert_int_equal(dumped.begins, 2);
	assert_int_equal(dumped.dump, first + 1);
	assert_int_equal(dumped.live, 1);
	assert_int_equal(dumped.entries, 1);
	assert_non_null(live_at(physical.start));
	/* Periodic dumps, and none without a session. */
	statedump_run(CT_STATEDUMP_PERIODIC);
	assert_int_equal(dumped.begins, 3);
	assert_int_equal(dumped.reason, CT_STATEDUMP_PERIODIC);
	end_sessions();
	statedump_run(CT_STATEDUMP_PERIODIC);
	assert_int_equal(dumped.begins, 3);
	assert_true(tracker_remove(TRACKER_VMM_HANDLES, physical.start, &physical));
}

/* CUDATRACE_SESSION_POLL_MS=0: all stays on; a process that no longer
 * traces (a forked child) switches nothing. */
static void test_no_watching(void **state)
{
	(void)state;
	TP_ENABLE(memcpy, ignore);
	sessions_follow();
	end_sessions();
	cupti_calls = 0;
	config.session_poll_ms = 0;
	sessions_watch_start();
	assert_int_equal(cupti_calls, 0);
	assert_int_equal(copies_on(), 1);
	tracer_set_running(false);
	sessions_follow();
	assert_int_equal(cupti_calls, 0);
	assert_int_equal(copies_on(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_all_on_at_start, no_session),
		cmocka_unit_test_setup(test_nothing_without_session, no_session),
		cmocka_unit_test_setup(test_families_follow_their_events, no_session),
		cmocka_unit_test_setup(test_api_events, no_session),
		cmocka_unit_test_setup(test_activity_kinds, no_session),
		cmocka_unit_test_setup(test_late_session_names, no_session),
		cmocka_unit_test_setup(test_session_before_start, no_session),
		cmocka_unit_test_setup(test_late_session_live_set, no_session),
		cmocka_unit_test_setup(test_no_watching, no_session),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("sessions", tests, group_setup, NULL);
}
