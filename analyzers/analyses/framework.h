/* SPDX-License-Identifier: MIT */
/*
 * framework.h - the framework analysis: what the Python probe says of a
 * Python process and its framework (doc/events.md, "The Python probe"):
 * the frameworks it imported, what each framework's allocator held per
 * device as the framework itself counts it (in use by its tensors or
 * buffers, reserved by its pool, their peaks, its limit), its
 * out-of-memory errors, the Python lines its tensors were allocated at
 * (with `record --tensor-sites`), and the uncaught exception the process
 * died of.
 * The section sets them beside what the driver held (the memory
 * analysis's peak of the same process and device).
 */
#ifndef CUDATRACE_ANALYZERS_FRAMEWORK_H
#define CUDATRACE_ANALYZERS_FRAMEWORK_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "common/series.h"

/* An out-of-memory error of a framework's allocator (framework_oom). */
struct ct_framework_oom {
	int64_t time_ns;
	uint64_t requested_bytes;
	uint64_t limit_bytes;       /* what it may use of the device; 0 unknown */
	uint64_t device_free_bytes; /* what the driver said was free */
	/* The framework's figures right after it (framework_memory at oom), when known. */
	bool figures_known;
	uint64_t in_use_bytes, reserved_bytes;
};

/*
 * What a framework's tensors allocated at one Python line held at a
 * moment (framework_site: at the first out-of-memory error, at exit, at
 * the framework's peak), from its own allocation history.
 */
struct ct_framework_site {
	uint8_t at;       /* enum ct_framework_moment: CT_FRAMEWORK_OOM, _EXIT, _PEAK */
	const char *site; /* "train.py:12 in step" */
	const char *file, *function;
	uint32_t line;
	uint64_t bytes, count;
};

/* One framework of one process on one device. */
struct ct_framework_device {
	int64_t pid;
	const char *process;
	uint8_t framework; /* enum ct_framework */
	uint32_t device;
	const char *version; /* "" when its framework_load was not seen */
	uint64_t samples;
	int64_t first_ns, last_ns; /* of its first and last figures */
	/* At its last figures. */
	uint64_t in_use_bytes, reserved_bytes, limit_bytes;
	/* The framework's own high-water marks (the highest it reported). */
	uint64_t peak_in_use_bytes, peak_reserved_bytes;
	/* Its pool at its first figures, and when: what it took at start. */
	uint64_t first_reserved_bytes;
	int64_t first_reserved_ns;
	uint64_t device_total_bytes; /* the device's memory (device_info); 0 unknown */
	uint64_t oom_count;
	GArray *ooms; /* struct ct_framework_oom: the first CT_FRAMEWORK_OOMS_MAX, in time order */
	/* In use and reserved over time, as told, their peaks between samples
	 * included; owned (their buckets fall alike). */
	struct ct_series in_use, reserved;
	uint64_t told_peak_in_use, told_peak_reserved; /* the marks the last figures gave */
	/* Its tensors' sites (struct ct_framework_site), the most bytes first per moment; owned. */
	GArray *sites;
};

/* The out-of-memory errors kept per device: a program that catches them may make many. */
#define CT_FRAMEWORK_OOMS_MAX 16

/* The uncaught exception a process died of (python_exception). */
struct ct_framework_exception {
	int64_t pid;
	const char *process;
	int64_t time_ns;
	const char *type, *message, *file, *function, *raised_file;
	uint32_t line, raised_line;
	const char *site; /* file, line and function as sites are named: "train.py:12 in step" */
};

/* A framework a process imported (framework_load). */
struct ct_framework_load {
	int64_t pid;
	const char *process;
	int64_t time_ns;
	uint8_t framework;
	const char *version;
};

struct ct_framework_result {
	GArray *devices;       /* struct ct_framework_device, in order of first figures */
	GArray *exceptions;    /* struct ct_framework_exception, in trace order */
	GArray *loads;         /* struct ct_framework_load, in trace order */
	GStringChunk *strings; /* every string of the result */
};

/* The framework of LABEL ("pytorch", ct_framework_label) as people name it: "PyTorch". */
const char *ct_framework_name(const char *label);

/*
 * The first device of process PID's framework LABEL ("pytorch") in RESULT
 * (NULL: the analysis did not run), in order of first figures; NULL when
 * none.
 */
const struct ct_framework_device *ct_framework_device_of(const struct ct_framework_result *result,
                                                         int64_t pid, const char *label);

/* DEVICE's pool at its first figures as a share of the device; 0 when its size is unknown. */
double ct_framework_first_share(const struct ct_framework_device *device);

/*
 * Whether DEVICE's framework preallocated its pool: JAX's took at least
 * half of the device at its first figures (JAX preallocates 75 % of each
 * device unless XLA_PYTHON_CLIENT_PREALLOCATE=false). PyTorch's pool grows
 * with its tensors, so a large first one is no preallocation, and
 * TensorFlow's is told by its own figures: both false.
 */
bool ct_framework_preallocated(const struct ct_framework_device *device);

#endif
