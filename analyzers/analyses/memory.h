/* SPDX-License-Identifier: MIT */
/*
 * memory.h - the result of the memory analysis (memory.c): per process and
 * device the peak, the allocations live at it and at the end, where the
 * ones left at the end were made, the ones CUDA reclaimed that the program
 * never freed; the NVTX ranges whose memory grows from
 * one repetition to the next; the call sites whose memory grows over the
 * run, with or without NVTX ranges; device memory over time. It is what the
 * "memory" section of the report says (memory-section.c) and what
 * `cudatrace record` prints (cli/summary.c).
 *
 * Lists are GArrays of the structs below; strings belong to the result.
 * Lists of allocations and sites hold at most the options' max_rows, the
 * largest first; their counts are of all of them.
 */
#ifndef CUDATRACE_ANALYZERS_MEMORY_H
#define CUDATRACE_ANALYZERS_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "common/caveat.h"

/* An allocation live at the peak, or at the end. */
struct ct_memory_alloc {
	uint64_t address;
	uint64_t size;
	uint8_t kind;    /* enum ct_mem_kind */
	bool time_known; /* false for one made before the window, known from its release only */
	int64_t alloc_time_ns;
	int64_t age_ns;        /* at the peak, or at the end */
	const char *site;      /* "train/step:cudaMalloc"; NULL when unknown */
	const char *nvtx_path; /* "train/step", "" outside any range; NULL when unknown */
	const char *api;       /* NULL when the trace names none */
	int64_t tid;           /* -1 if unknown */
};

/*
 * An allocation CUDA freed by itself when its context was destroyed
 * (mem_reclaim): the program never freed it.
 */
struct ct_memory_reclaimed {
	uint64_t address;
	uint64_t size;
	uint8_t kind;    /* enum ct_mem_kind */
	bool time_known; /* see struct ct_memory_alloc */
	int64_t alloc_time_ns;
	int64_t reclaimed_ns;
	const char *reclaimed_by; /* the call that destroyed the context; NULL: none */
	const char *site;         /* where it was allocated; NULL when unknown */
	int64_t tid;              /* -1 if unknown */
	const char *note;         /* "reclaimed by cudaDeviceReset, never freed by the program" */
};

/* Allocations live at a moment (the end, the peak), by where they were made. */
struct ct_memory_leak_site {
	const char *site;
	uint64_t count;
	uint64_t bytes;
	/* From the call stack, when the trace has one: the program's first frame. */
	const char *function; /* NULL when unknown */
	const char *file;
	uint32_t line;
	GArray *stack; /* struct ct_stack_frame (call-stacks.h), innermost first; NULL: none */
};

/* One kind of memory of a device: its own peak, and what it held at the device's peak and at the end. */
struct ct_memory_kind {
	uint8_t kind; /* enum ct_mem_kind */
	int64_t peak_bytes;
	int64_t at_device_peak_bytes;
	int64_t live_at_end_bytes;
};

/* One process and device. */
struct ct_memory_device {
	int64_t pid;
	const char *process;
	const char *hostname;
	uint8_t device;
	int64_t peak_bytes; /* of the memory that counts as the device's */
	/* What the peak can have been where threads' calls overlapped (ct_acct_device). */
	int64_t peak_low_bytes;
	int64_t peak_high_bytes;
	bool has_peak;
	int64_t peak_time_ns; /* when has_peak */
	int64_t live_at_end_bytes;
	uint64_t allocations;
	uint64_t frees;
	uint64_t bytes_allocated;
	uint64_t unknown_frees; /* frees of addresses never seen allocated */
	uint64_t failed_frees;  /* releases that failed, and left the memory allocated */
	/* Releases whose call had not returned when the process ended: live at the end. */
	uint64_t unfinished_frees;
	uint64_t unfinished_bytes;
	/* Allocations made before the window that the trace learned of (statedumps, releases). */
	uint64_t before_window_allocations;
	uint64_t before_window_bytes; /* of the device kinds */
	uint64_t failures;
	GArray *kinds; /* struct ct_memory_kind, the kinds it used */
	uint64_t peak_allocation_count;
	GArray *peak_allocations; /* struct ct_memory_alloc, live at the peak */
	uint64_t leak_count;
	uint64_t leaked_bytes;
	/* live at the end, or freed only by the Python interpreter as it exited */
	GArray *leaks;      /* struct ct_memory_alloc */
	GArray *leak_sites; /* struct ct_memory_leak_site */
	GArray *peak_sites; /* struct ct_memory_leak_site, of the peak's allocations */
	/* Of the leaks, those the Python interpreter freed as it exited (python_exit). */
	uint64_t exit_freed_count;
	uint64_t exit_freed_bytes;
	uint64_t reclaimed_count; /* never freed by the program, reclaimed by CUDA */
	uint64_t reclaimed_bytes;
	GArray *reclaimed; /* struct ct_memory_reclaimed, largest first */
	/* The figures above that are not exact (struct ct_caveat), and the peak's and end's flags. */
	GArray *caveats;
	bool peak_lower_bound; /* the trace may not show every allocation live at some moment */
	bool end_lower_bound;  /* ... at the end */
	bool leaks_possible;   /* events were lost: a leak's free may be among them */
};

/* An NVTX range whose allocations hold more memory at each repetition. */
struct ct_memory_growing_range {
	int64_t pid;
	const char *process;
	const char *range; /* its path, "train/step" */
	uint64_t repetitions;
	uint64_t growing_repetitions;
	int64_t held_after_first_bytes;
	int64_t held_after_last_bytes;
	int64_t growth_per_repetition_bytes;
	int64_t held_at_end_bytes;
};

/*
 * A call site whose allocations accumulate over the run (memory.c says
 * when): many allocations, most never freed by the program, the bytes
 * they hold reaching a new high step after step until late in the run.
 * Allocations of the device kinds only, seen allocated in the window.
 */
struct ct_memory_growing_site {
	int64_t pid;
	const char *process;
	uint8_t device;
	const char *site;     /* as the leak sites name it: "memory_growth.py:29 in step" */
	const char *function; /* the program's first frame, NULL when the trace has no stack */
	const char *file;
	uint32_t line;
	const char *nvtx_path; /* the range it allocated in, "" outside any */
	const char *api;       /* the allocating call, NULL when the trace names none */
	uint64_t allocations;
	uint64_t freed;     /* of them, freed by the program */
	uint64_t reclaimed; /* never freed by the program, reclaimed by CUDA with the context */
	uint64_t smallest_bytes, largest_bytes; /* of its allocations */
	int64_t held_at_end_bytes;              /* of its allocations the program never freed */
	int64_t high_bytes;                     /* the most they held at once */
	uint64_t rises; /* allocations that took what it holds to a new high */
	uint64_t steps; /* rises with memory freed on the device since the rise before */
	int64_t growth_per_rise_bytes;
	int64_t first_ns;     /* its first rise */
	int64_t last_rise_ns; /* ... and its last */
	double peak_share;    /* held_at_end_bytes over the device's peak */
};

/*
 * At a failed allocation, the site whose allocations then held the most
 * of its process's memory on the device (the program's own, as the trace
 * shows them): what to free, or to hold less of, first.
 */
struct ct_memory_holder {
	int64_t pid;
	uint8_t device;
	int64_t failure_ns;     /* the failure's time: memory.failures[].time_ns */
	const char *site;       /* as the leak sites name it: "train.py:12 in <module>" */
	uint64_t bytes;         /* what its allocations held then */
	uint64_t count;         /* how many of them */
	uint64_t process_bytes; /* what the process held on the device then, all sites */
};

/* Device memory of a process in one time bucket (bounded series). */
struct ct_memory_point {
	int64_t pid;
	uint8_t device;
	int64_t time_ns;   /* start of the bucket */
	int64_t bytes;     /* at its end */
	int64_t min_bytes; /* within it */
	int64_t max_bytes;
};

struct ct_memory_result {
	GArray *devices;        /* struct ct_memory_device, by process, then device */
	GArray *growing_ranges; /* struct ct_memory_growing_range */
	GArray *growing_sites;  /* struct ct_memory_growing_site, the most held first */
	GArray *timeline;       /* struct ct_memory_point, by process, device, time */
	GArray *notes;          /* struct ct_caveat_note: why figures are not exact */
	/* struct ct_memory_holder, one per failure with a holder, the first
	 * CT_MEMORY_HOLDERS_MAX of them, in time order */
	GArray *holders;
	GStringChunk *strings; /* every string of the result */
};

#define CT_MEMORY_HOLDERS_MAX 1024

/*
 * The holder at the failure of PID on DEVICE at TIME_NS in R (NULL: the
 * analysis did not run); NULL when none was told. Inline: the memory
 * section reads it, and memory.c holds that section.
 */
static inline const struct ct_memory_holder *
ct_memory_holder_at(const struct ct_memory_result *r, int64_t pid, unsigned device, int64_t time_ns)
{
	for (guint i = 0; r && r->holders && i < r->holders->len; i++) {
		const struct ct_memory_holder *h =
		    &g_array_index(r->holders, struct ct_memory_holder, i);

		if (h->pid == pid && h->device == device && h->failure_ns == time_ns)
			return h;
	}
	return NULL;
}

#endif
