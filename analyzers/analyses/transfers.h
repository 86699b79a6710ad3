/* SPDX-License-Identifier: MIT */
/*
 * transfers.h - the result of the transfers analysis (transfers.c): the
 * totals of the host<->device copies, the totals by direction, the
 * hotspots (copies grouped by call site and kind, the costliest first)
 * and the findings (what to change, the costliest first). It is what the
 * "transfers" section of the report says (transfers-section.c) and what
 * `cudatrace record` prints about copies (cli/summary.c).
 *
 * Lists are GArrays of the structs below, hotspots and findings at most
 * the options' max_rows of them; strings belong to the result. A double
 * that is NAN is unknown (null in the report): a bandwidth without GPU
 * time, a ratio without a whole.
 */
#ifndef CUDATRACE_ANALYZERS_TRANSFERS_H
#define CUDATRACE_ANALYZERS_TRANSFERS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/* Where copies were made. */
struct ct_transfers_site {
	int64_t pid;
	const char *process;
	int64_t tid;
	const char *site;      /* "train/step:cudaMemcpy" */
	const char *nvtx_path; /* "train/step", "" outside any range */
	const char *api;       /* NULL when the trace names none */
};

/* The copies of one direction, host memory and sync. */
struct ct_transfers_direction {
	uint8_t direction; /* enum ct_direction */
	uint8_t host;      /* enum ct_host_mem */
	bool sync;
	uint64_t count;
	uint64_t bytes;
	int64_t gpu_time_ns;
	int64_t host_time_ns;
	int64_t cost_ns;
	double bandwidth_bytes_per_s;
	double best_bandwidth_bytes_per_s;
	double of_best;
};

/* The copies of one site, device, direction, host memory, sync and size class. */
struct ct_transfers_hotspot {
	struct ct_transfers_site where;
	bool has_device;
	uint8_t device; /* when has_device */
	uint8_t direction;
	uint8_t host;
	bool sync;
	bool blocking; /* the host waits for them: synchronous, or from pageable memory */
	const char *size_class;
	uint64_t count;
	uint64_t bytes;
	uint64_t mean_bytes;
	uint64_t gpu_records;
	int64_t gpu_time_ns;
	int64_t host_time_ns;
	int64_t cost_ns; /* the longer of host and GPU time, copy by copy */
	double cost_share;
	double bandwidth_bytes_per_s;
	double best_bandwidth_bytes_per_s;
	double of_best;
	double device_peak_bytes_per_s;
	double of_device_peak;
	int64_t blocked_probed_ns;
	int64_t gpu_idle_while_blocked_ns;
	int64_t first_ns;
	int64_t last_ns;
};

/* Copies under this many bytes are small: their size classes are "<4KiB" and "4KiB-64KiB". */
#define CT_TRANSFERS_SMALL_BYTES (UINT64_C(64) << 10)

/* Something to change, where, and what it costs. */
struct ct_transfers_finding {
	const char *kind; /* "pageable_async", "small_copy_storm", "repeated_upload", ... */
	struct ct_transfers_site where;
	uint8_t direction;
	uint8_t host;
	bool sync;
	/* the size class of its copies, a hotspot's; NULL: every small one (a storm) */
	const char *size_class;
	uint64_t count;
	uint64_t bytes;
	int64_t time_ns;
	uint64_t host_address; /* the host buffer, 0 if none (or several) */
	uint64_t buffers;      /* the host buffers a repeated_upload is of; 0: another kind */
	/*
	 * COUNT, BYTES and TIME_NS are the least they were: a bounded table
	 * of the analysis forgot buffers that may have added to them.
	 */
	bool at_least;
	/* A repeated_upload's uploads were all sampled, and sent the same bytes in a row. */
	bool same_bytes;
	const char *message; /* what happened and what to do, for people */
	const char *advice;  /* what to do alone (the end of the message); static */
};

struct ct_transfers_result {
	uint64_t copies;
	uint64_t bytes;
	int64_t gpu_time_ns;
	int64_t host_time_ns;
	int64_t cost_ns;
	uint64_t gpu_records;
	uint64_t gpu_records_unmatched;     /* GPU records of no copy seen */
	uint64_t gpu_records_end_unknown;   /* of copies still running at a forced flush */
	uint64_t copies_without_gpu_record; /* still waiting for theirs, or given up */
	uint64_t sites;                     /* hotspots in all */
	GArray *by_direction;               /* struct ct_transfers_direction */
	GArray *hotspots;                   /* struct ct_transfers_hotspot, costliest first */
	uint64_t finding_count;             /* all of them */
	GArray *findings;                   /* struct ct_transfers_finding, costliest first */
	GStringChunk *strings;              /* every string of the result */
};

#endif
