/* SPDX-License-Identifier: MIT */
/*
 * cupti-internal.h - what the files of the simulated CUPTI share. It is
 * built twice: as CUPTI 13 (libcupti.so.13) against the CUDA 13 headers,
 * and as CUPTI 12 (cuda12/libcupti.so.12) against the CUDA 12 ones. Not
 * installed, not exported.
 *
 *   cupti-driver.c      finding the simulated driver (dlopen, dlsym of sim_*)
 *   cupti-subscriber.c  the subscriber, the enabled callback set, and the
 *                       sim_profiler table attached to the driver
 *   cupti-activity.c    activity kinds, record intake, GetNextRecord,
 *                       dropped records, attributes
 *   cupti-strings.c     CUPTI-owned copies of the strings records point to
 *   cupti-external.c    external correlation ids (push/pop, records)
 *   cupti-records.c     the record layouts: sizes, timestamp and string
 *                       fields of each kind
 *   cupti-buffers.c     the buffer request/complete protocol, the worker
 *                       thread, FlushAll and FlushPeriod
 *   cupti-clock.c       output clock: CLOCK_REALTIME or the client's callback
 *   cupti-ids.c         context/device/stream ids, thread ids, version
 *   cupti-nvtx.c        NVTX injection over NVTX's export-table protocol
 *   cupti-result.c      result strings, last error, callback names
 */
#ifndef CUDASIM_CUPTI_INTERNAL_H
#define CUDASIM_CUPTI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim-hooks.h"

#ifndef HIDDEN
#define HIDDEN __attribute__((visibility("hidden")))
#endif

/* ------------------------------------------------------------ CUPTI 12 or 13 */

/*
 * What CUPTI 13.0 changed that the simulator implements (CUPTI 13.0's
 * release notes; the two toolkits' cupti_activity.h, cupti_callbacks.h
 * and cupti_result.h): the kernel record is CUpti_ActivityKernel10 (9 in
 * CUPTI 12: the same, less isDeviceLaunched at the end), the memory pool
 * record CUpti_ActivityMemoryPool3 (2: less isManagedPool at the end),
 * the marker data record CUpti_ActivityMarkerData2 (CUpti_ActivityMarkerData:
 * less cuptiDomainId at the end);
 * cuptiSubscribe_v2 names the subscriber and the holder (CUPTI 12 has
 * cuptiSubscribe only); CUPTI_ERROR_INVALID_CHIP_NAME is new.
 *
 * The driver hands every record over as CUDA 13's struct (sim-hooks.h);
 * CUPTI 12 keeps the first sizeof of its own struct of the kind, which is
 * the same record (cupti-records.c checks it against the CUDA 13 headers'
 * copies of the CUPTI 12 structs, cupti_activity_deprecated.h).
 */
#if CUPTI_API_VERSION >= 130000
#define SIM_CUPTI_MAJOR 13
typedef CUpti_ActivityKernel10 sim_kernel_record;
typedef CUpti_ActivityMemoryPool3 sim_memory_pool_record;
typedef CUpti_ActivityMarkerData2 sim_marker_data_record;
#else
#define SIM_CUPTI_MAJOR                        12
typedef CUpti_ActivityKernel9 sim_kernel_record;
typedef CUpti_ActivityMemoryPool2 sim_memory_pool_record;
typedef CUpti_ActivityMarkerData sim_marker_data_record;
/* cuptiSubscribe_v2's parameters, which the subscriber code takes: never
 * given by CUPTI 12's cuptiSubscribe. */
typedef struct {
	size_t structSize;
	const char *subscriberName;
	char *oldSubscriberName;
	size_t oldSubscriberSize;
} CUpti_SubscriberParams;
#define CUPTI_CALLBACK_STRUCT_SIZE(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))
#define CUpti_SubscriberParams_STRUCT_SIZE \
	CUPTI_CALLBACK_STRUCT_SIZE(CUpti_SubscriberParams, oldSubscriberSize)
#define CUPTI_SUBSCRIBER_NAME_MAX_LEN 53
#endif

/* ------------------------------------------------------------ results */

/* Remember a failure as the calling thread's last error (cuptiGetLastError)
 * and return it; CUPTI_SUCCESS passes through untouched. */
HIDDEN CUptiResult cupti_status(CUptiResult result);

/* Callback names generated from cupti_driver_cbid.h / cupti_runtime_cbid.h
 * (gen-cbid-names.sh): index = cbid, NULL where the header has no id. */
extern HIDDEN const char *const cupti_driver_cbid_names[];
extern HIDDEN const size_t cupti_driver_cbid_names_count;
extern HIDDEN const char *const cupti_runtime_cbid_names[];
extern HIDDEN const size_t cupti_runtime_cbid_names_count;

/* ------------------------------------------------------------ driver */

/* The sim_* entry points of the simulated libcuda.so.1 that CUPTI uses. */
struct cupti_driver {
	int (*profiler_attach)(const struct sim_profiler *profiler);
	int (*context_id)(CUcontext ctx, uint32_t *id);
	int (*context_device)(CUcontext ctx, uint32_t *device);
	int (*stream_id)(CUcontext ctx, CUstream stream, uint64_t *id);
	void (*ledger)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
};

/*
 * The simulated driver, found on first use: the libcuda.so.1 already loaded
 * (RTLD_NOLOAD), else one loaded now. NULL when it is not the simulator's
 * (a real driver has no sim_* symbols): callers answer
 * CUPTI_ERROR_NOT_INITIALIZED, as the real CUPTI does when it cannot
 * initialise its connection to the driver.
 */
HIDDEN const struct cupti_driver *cupti_driver(void);
/* A CUPTI function the simulator does not implement was called (the
 * generated stubs of tools/gen-stubs.sh): the ledger's error line. */
HIDDEN void cupti_stub_called(const char *name);

/* ------------------------------------------------------------ subscriber */

/* Hooks of the sim_profiler table (driver side) and of NVTX: cheap check,
 * then synchronous delivery to the subscriber on the calling thread. */
HIDDEN int cupti_callback_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
HIDDEN void cupti_callback_deliver(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                   const void *cbdata);
/* Attach the profiler table to the driver (once). */
HIDDEN CUptiResult cupti_profiler_attach(void);
/* cuptiFinalize: detach from the driver and forget the subscriber. */
HIDDEN void cupti_subscriber_finalize(void);

/* ------------------------------------------------------------ records */

#define CUPTI_RECORD_MAX_SIZE       512 /* larger than any record struct */
#define CUPTI_RECORD_MAX_TIMESTAMPS 5
#define CUPTI_RECORD_MAX_STRINGS    2

/* Where the fields CUPTI must touch lie in one record kind's struct. */
struct cupti_record_layout {
	uint16_t size; /* sizeof the CUDA 13 struct, a multiple of 8 */
	uint8_t timestamp_count;
	uint8_t string_count;
	uint16_t timestamps[CUPTI_RECORD_MAX_TIMESTAMPS]; /* offsets of uint64_t ns */
	uint16_t strings[CUPTI_RECORD_MAX_STRINGS];       /* offsets of const char * */
	uint16_t thread_id; /* offset of a uint32_t thread id CUPTI fills, or 0 */
};

/* Layout of a record kind, or NULL for a kind with no record struct. */
HIDDEN const struct cupti_record_layout *cupti_record_layout(uint32_t kind);
/* The smallest record of any kind: a buffer with less room left is full. */
HIDDEN size_t cupti_record_min_size(void);

/* ------------------------------------------------------------ activity */

/* Whether the driver should produce records of this kind (sim_profiler). */
HIDDEN int cupti_activity_enabled(CUpti_ActivityKind kind);
/* One record from the driver (sim_profiler): filters, CUDASIM_CUPTI_DROP_EVERY,
 * then cupti_activity_emit. */
HIDDEN void cupti_activity_offer(const CUpti_Activity *record, uint64_t complete_ns);
/* Whether cuptiActivityConfigureUnifiedMemoryCounter enabled the counter. */
HIDDEN int cupti_um_counter_enabled(CUpti_ActivityUnifiedMemoryCounterKind kind);
/* Store a record CUPTI made itself (markers, overhead) or accepted from the
 * driver: timestamps still CLOCK_MONOTONIC; converted, strings copied. */
HIDDEN void cupti_activity_emit(const CUpti_Activity *record, uint64_t complete_ns);
/* Count records lost (no buffer, no room). */
HIDDEN void cupti_activity_count_dropped(size_t count);
/* Whether CUPTI zeroes each buffer it gets (ZEROED_OUT_ACTIVITY_BUFFER 0). */
HIDDEN bool cupti_activity_zeroes_buffers(void);
/* cuptiFinalize: every kind disabled, attributes back to their defaults. */
HIDDEN void cupti_activity_finalize(void);

/* ------------------------------------------------------------ strings */

/* A copy that lives until the process ends, shared by equal contents (the
 * same kernel name is stored once); NULL stays NULL. */
HIDDEN const char *cupti_intern(const char *s);
HIDDEN const void *cupti_intern_bytes(const void *data, size_t size);

/* ------------------------------------------------------------ external ids */

/* Before the API record of correlation_id: one EXTERNAL_CORRELATION record
 * per external kind the calling thread has pushed an id for. */
HIDDEN void cupti_external_emit(uint32_t correlation_id);

/* ------------------------------------------------------------ buffers */

/*
 * Copy one finished record (output clock, CUPTI-owned strings) into the
 * current client buffer, asking the client for a buffer when needed.
 * complete_ns: when its GPU work ends (CLOCK_MONOTONIC); clock_offset: what
 * was added to its timestamps. false when the record was dropped.
 */
HIDDEN bool cupti_buffers_append(const void *record, size_t size, uint64_t complete_ns,
                                 int64_t clock_offset);
HIDDEN CUptiResult cupti_buffers_flush_all(uint32_t flag);
/* cuptiFinalize: deliver what is held (forced flush), forget the callbacks. */
HIDDEN void cupti_buffers_finalize(void);

/* ------------------------------------------------------------ clock */

/* CLOCK_MONOTONIC in ns: the clock of every timestamp the driver gives. */
HIDDEN uint64_t cupti_monotonic_ns(void);
/* What to add to a CLOCK_MONOTONIC timestamp to get the output clock
 * (CLOCK_REALTIME, or the registered timestamp callback's clock). */
HIDDEN int64_t cupti_clock_offset(void);
/* Back to CLOCK_REALTIME (cuptiFinalize). */
HIDDEN void cupti_clock_finalize(void);

/* ------------------------------------------------------------ ids */

/* The calling thread's id, as cuptiSetThreadIdType says. */
HIDDEN uint32_t cupti_thread_id(void);
HIDDEN void cupti_ids_finalize(void);

#endif /* CUDASIM_CUPTI_INTERNAL_H */
