/* SPDX-License-Identifier: MIT */
/*
 * feed.h - synthetic events for the analyzer unit tests: a reader with the
 * analyses under test, events built field by field and fed through
 * ct_reader_feed() (context, filters, analyses, as a trace pass would),
 * and lookups in the finished report by path ("memory.devices.0.peak_bytes").
 */
#ifndef CUDATRACE_TESTS_FEED_H
#define CUDATRACE_TESTS_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "analyses/analysis.h"
#include "common/document.h"
#include "pass/reader.h"

#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)

/* cbids of the runtime calls the tests name (cupti_runtime_cbid.h) */
#define CBID_CUDA_MALLOC       20
#define CBID_CUDA_FREE         22
#define CBID_CUDA_MALLOC_ASYNC 373
#define CBID_CUDA_DEVICE_RESET 164

struct feed {
	struct ct_options opts;
	struct ct_reader *reader;     /* owned */
	struct ct_doc *doc;           /* owned, after feed_report() */
	int64_t now;                  /* time of the next event; each event advances it by 1 us */
	uint32_t correlation_id;      /* of the last call an event named; each call has its own */
	uint32_t free_correlation_id; /* of the last feed_free */
	struct ct_trace_desc *trace;  /* owned; the trace events are read from, once one is told */
};

/* A reader with the analyses of the NULL-terminated list CLASSES. */
void feed_init(struct feed *f, const struct ct_analysis_class *const *classes);
void feed_release(struct feed *f);

/*
 * The tracer_info of PID, its tracer emitting api_call events or not
 * (API), read from a trace whose metadata declares cudatrace:api_call or
 * not (DECLARED); the events after it are read from that trace.
 */
void feed_tracer_info(struct feed *f, int pid, bool api, bool declared);
void feed_alloc(struct feed *f, int pid, int tid, unsigned device, unsigned kind, uint64_t address,
                uint64_t size);
void feed_free(struct feed *f, int pid, int tid, unsigned device, unsigned kind, uint64_t address,
               uint64_t size);
/* CUDA freed the allocation at ADDRESS when a context was destroyed by the runtime call CBID
 * (0: by no call). */
void feed_reclaim(struct feed *f, int pid, int tid, unsigned device, unsigned kind,
                  uint64_t address, uint64_t size, unsigned cbid);
/* The release call of the last feed_free failed: its allocation at ADDRESS is live again. */
void feed_free_failed(struct feed *f, int pid, int tid, unsigned device, unsigned kind,
                      uint64_t address, uint64_t size);
/* An allocation by the call with correlation id CORRELATION_ID (a mem_alloc after its mem_live). */
void feed_alloc_call(struct feed *f, int pid, int tid, unsigned device, unsigned kind,
                     uint64_t address, uint64_t size, uint32_t correlation_id);
/* A statedump of PID (from its thread PID): begin, one live allocation, end. */
/*
 * The event that records a call of TID that began at ENTRY_NS: its
 * api_call (CBID, correlation id CORRELATION_ID, result 0), now.
 */
void feed_call(struct feed *f, int pid, int tid, unsigned cbid, uint32_t correlation_id,
               int64_t entry_ns);
/* A cudaMalloc of TID that began at ENTRY_NS and returns now: its mem_alloc, with its entry. */
void feed_alloc_entered(struct feed *f, int pid, int tid, unsigned device, unsigned kind,
                        uint64_t address, uint64_t size, int64_t entry_ns);
void feed_dump_begin(struct feed *f, int pid, uint32_t dump, unsigned reason);
void feed_mem_live(struct feed *f, int pid, uint32_t dump, unsigned device, unsigned kind,
                   uint64_t address, uint64_t size, int64_t alloc_time, uint32_t correlation_id);
void feed_dump_end(struct feed *f, int pid, uint32_t dump, uint32_t entries, bool complete);
/* A context of DEVICE created (CREATE) or destroyed in PID. */
void feed_context(struct feed *f, int pid, unsigned device, bool create);
/* LTTng lost EVENTS events from now on. */
void feed_discard(struct feed *f, uint64_t events);
/* CUPTI dropped COUNT activity records of PID (activity_dropped). */
void feed_dropped(struct feed *f, int pid, uint64_t count);
void feed_failed(struct feed *f, int pid, int tid, unsigned device, unsigned kind, uint64_t size,
                 uint64_t free, uint64_t total);
void feed_nvml(struct feed *f, int pid, unsigned device, unsigned reason, uint64_t free,
               uint64_t total);
void feed_pool(struct feed *f, int pid, unsigned device, unsigned operation, uint64_t address,
               uint64_t size, uint64_t utilized);
/* A MEMORY_POOL record of GPU time TIMESTAMP, delivered now. */
void feed_pool_record(struct feed *f, int pid, unsigned device, unsigned operation,
                      uint64_t address, uint64_t size, uint64_t utilized, uint64_t threshold,
                      int64_t timestamp);
/* A MEMORY2 record of an allocation (OPERATION 1) or release (2) from the pool at POOL. */
void feed_gpu_memory(struct feed *f, int pid, unsigned device, unsigned operation, uint64_t address,
                     uint64_t bytes, uint64_t pool, uint64_t pool_size, uint64_t pool_utilized,
                     uint64_t threshold, int64_t timestamp);
/* A kernel launched on DEVICE by PID (its launch event). */
void feed_launch(struct feed *f, int pid, unsigned device);
/* A host synchronisation of DEVICE (cudaDeviceSynchronize's sync event). */
void feed_sync(struct feed *f, int pid, unsigned device);
/* The GPU's record of a synchronisation of CONTEXT of TYPE (3 stream, 4 context), ended at END. */
void feed_gpu_sync(struct feed *f, int pid, uint32_t context, unsigned type, int64_t end);
void feed_push(struct feed *f, int pid, int tid, const char *message);
/* A notebook kernel begins In [COUNT], whose first line not blank is LINE, TEXT. */
void feed_cell_begin(struct feed *f, int pid, uint64_t count, uint32_t line, const char *text);
/* ... and ends it; FAILED: it raised. */
void feed_cell_end(struct feed *f, int pid, uint64_t count, bool failed);
void feed_pop(struct feed *f, int pid, int tid);

/* Finishes and reports; the document is then in f->doc. */
void feed_report(struct feed *f);
/* ... then adds its findings, drawn from the analyses' results and the document. */
void feed_findings(struct feed *f);

/* The node at PATH ("a.b.3.c": keys, and indexes into arrays), NULL if none. */
const struct ct_node *feed_get(const struct feed *f, const char *path);
/* Its value as a number or string; the test fails if it is missing or of another type. */
int64_t feed_int(const struct feed *f, const char *path);
double feed_double(const struct feed *f, const char *path);
const char *feed_string(const struct feed *f, const char *path);
/* Number of elements of the array at PATH; the test fails if none. */
size_t feed_count(const struct feed *f, const char *path);

#endif
