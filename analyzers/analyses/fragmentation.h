/* SPDX-License-Identifier: MIT */
/*
 * fragmentation.h - the result of the fragmentation analysis
 * (fragmentation.c): every failed allocation with the state of memory at
 * that moment and a verdict on why it failed, and per process and device
 * the state at the peak and at the end (free and largest free block,
 * fragmentation, pools, VMM). It is what the "memory" section's failures
 * and fragmentation say (memory-section.c) and what `cudatrace record`
 * prints about failures (cli/summary.c).
 *
 * Lists are GArrays of the structs below; strings belong to the result.
 */
#ifndef CUDATRACE_ANALYZERS_FRAGMENTATION_H
#define CUDATRACE_ANALYZERS_FRAGMENTATION_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "common/caveat.h"

/* Device memory of a process at one moment, as far as the trace shows it. */
struct ct_frag_state {
	int64_t time_ns;
	uint64_t live_bytes; /* this process's allocations that count as device memory */
	bool free_known;     /* NVML read the device's free memory */
	uint64_t free_bytes;
	bool total_known; /* NVML or device_info gave its size */
	uint64_t total_bytes;
	uint64_t free_seen_bytes; /* gaps inside the heap as seen */
	uint64_t largest_free_bytes;
	double external_fragmentation; /* 1 - largest free / free */
	uint64_t heap_span_bytes;
	uint64_t granularity_waste_bytes;
	uint64_t pool_reserved_bytes;
	uint64_t pool_used_bytes;
	uint64_t pool_live_bytes;
	uint64_t vmm_physical_bytes;
	uint64_t vmm_mapped_bytes;
	uint64_t vmm_gap_bytes;
};

/* A process NVML listed on a failure's device right after it (nvml_process). */
struct ct_frag_holder {
	int64_t pid;         /* as NVML gives it: the host's */
	const char *process; /* its name, "" when unknown */
	bool bytes_known;
	uint64_t bytes; /* the device memory it used */
	bool self;      /* the failing process itself */
};

/*
 * A list NVML gave of the processes on a device that is no failed
 * allocation's: right after a framework's out-of-memory error, or an
 * uncaught Python exception (doc/events.md, nvml_process).
 */
struct ct_frag_listing {
	int64_t time_ns; /* of its first nvml_process */
	int64_t pid;     /* the traced process that listed them */
	uint8_t device;
	GArray *holders; /* struct ct_frag_holder */
};

/* A failed allocation, the state at that moment and the verdict. */
struct ct_frag_failure {
	int64_t time_ns;
	int64_t pid;
	const char *process;
	uint8_t device;
	uint8_t kind; /* enum ct_mem_kind */
	uint64_t requested_bytes;
	int32_t result;  /* the error the call returned */
	const char *api; /* NULL when the trace names none */
	const char *site;
	const char *nvtx_path;
	GArray *stack; /* struct ct_stack_frame (call-stacks.h), innermost first; NULL: none */
	/* "out_of_memory", "fragmented", "pool_cached", "held_elsewhere", "unknown",
	 * "cuda_error" */
	const char *verdict;
	const char *explanation;
	const char *withheld_verdict; /* the verdict the figures alone would give, when withheld */
	uint64_t live_bytes;
	bool free_known; /* free_bytes, used_bytes and held_elsewhere_bytes are known */
	uint64_t free_bytes;
	bool total_known;
	uint64_t total_bytes;
	uint64_t used_bytes;           /* total - free */
	uint64_t held_elsewhere_bytes; /* used - this process's allocations */
	uint64_t pool_cached_bytes;    /* reserved but unused in this process's pools */
	uint64_t largest_free_bytes;
	double external_fragmentation;
	uint64_t free_seen_bytes;
	uint64_t granularity_waste_bytes;
	uint64_t pool_reserved_bytes;
	uint64_t pool_used_bytes;
	/*
	 * The allocation by which its thread made up for it, on the same device,
	 * at most a second later and of at least half the request: the
	 * allocator asked again and went on (0: none).
	 */
	uint64_t recovered_bytes;
	int64_t recovered_ns;
	GArray *holders; /* struct ct_frag_holder, as NVML listed them; empty: none listed */
	GArray *caveats; /* struct ct_caveat: the figures above that are not exact */
};

/* A memory pool alive at the end. */
struct ct_frag_pool {
	uint32_t pool;    /* 1, 2, ... on its device, in order of first record */
	uint64_t address; /* the last base address a record gave; 0 if none did */
	bool created_known;
	int64_t created_ns; /* its creation record's time, when created_known */
	uint64_t reserved_bytes;
	uint64_t used_bytes;
	uint64_t release_threshold_bytes;
	bool
	    reserved_derived; /* lowered by a release at a synchronisation, which nothing records */
};

/* One process and device. */
struct ct_frag_device {
	int64_t pid;
	const char *process;
	uint8_t device;
	bool has_peak;
	struct ct_frag_state at_peak; /* when has_peak */
	struct ct_frag_state at_end;  /* at the process's last event */
	GArray *pools;                /* struct ct_frag_pool */
	GArray *caveats;              /* struct ct_caveat: "at_peak.live_bytes", ... */
};

/* Failed allocations by where they were made. */
struct ct_frag_site {
	const char *site;
	uint64_t count;
	uint64_t requested_bytes;
};

struct ct_fragmentation_result {
	uint64_t failure_count; /* all of them */
	GArray *failures;       /* struct ct_frag_failure, the first ones kept, in time order */
	GArray *failure_sites;  /* struct ct_frag_site of the failures kept, the most bytes first */
	GArray *devices;        /* struct ct_frag_device, by process, then device */
	GArray *listings;       /* struct ct_frag_listing, the first ones, in time order */
	GArray *notes;          /* struct ct_caveat_note: why figures are not exact */
	GStringChunk *strings;  /* every string of the result */
};

/* Whether F failed for another reason than memory: its verdict is cuda_error. */
bool ct_frag_failure_not_memory(const struct ct_frag_failure *f);

#endif
