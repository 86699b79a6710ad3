/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-schema.h - the GPU-time trace (`cudatrace export --format ctf`):
 * its metadata, and its events serialised from GPU operations.
 *
 * Every kernel, copy and memset is a pair of events at its GPU times, on
 * the clock of the trace it came from (its clock's properties: the
 * values are the CLOCK_MONOTONIC ns of the gpu_* fields), in a stream of
 * its own per process, device and CUDA stream, named
 * "pid<vpid>-device<device>-stream<stream>". The trace's environment is
 * the original one (domain = "ust", tracer_name = "lttng-ust", ...), so
 * readers take it for an LTTng-UST trace, plus cudatrace_gpu_time = 1.
 *
 * Events (doc/tracecompass.md lists their fields):
 *   cudatrace_gpu:kernel_begin, cudatrace_gpu:kernel_end
 *   cudatrace_gpu:memcpy_begin, cudatrace_gpu:memcpy_end
 *   cudatrace_gpu:memset_begin, cudatrace_gpu:memset_end
 * Each has the common context vpid and procname, and the fields device,
 * context, stream and correlation_id; a begin also has name (the kernel's
 * name, "memcpy HtoD", "memset") and duration (ns), and what its kind
 * adds (grid and block; direction and bytes; bytes and value).
 */
#ifndef CUDATRACE_ANALYZERS_GPU_TIME_SCHEMA_H
#define CUDATRACE_ANALYZERS_GPU_TIME_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf-writer.h"
#include "read/trace-desc.h"

/* The kinds of GPU operation. */
enum ct_gpu_op_kind {
	CT_GPU_OP_KERNEL,
	CT_GPU_OP_MEMCPY,
	CT_GPU_OP_MEMSET,
	CT_GPU_OP_KINDS,
};

/* One GPU operation, as the GPU-time trace shows it. */
struct ct_gpu_op {
	enum ct_gpu_op_kind kind;
	int64_t start, end; /* ns, CLOCK_MONOTONIC */
	int32_t vpid;
	uint8_t device;
	uint32_t context, stream, correlation_id;
	const char *name;      /* borrowed from the op's owner */
	const char *procname;  /* borrowed from the op's owner */
	const char *direction; /* copies: "HtoD", ...; static */
	uint64_t bytes;
	uint32_t value;
	int32_t grid_x;
	uint16_t grid_y, grid_z, block_x, block_y, block_z;
};

struct ct_gpu_schema {
	const struct ct_trace_desc *input; /* borrowed: the trace the operations come from */
	uint64_t frequency;                /* of the clock, Hz */
	int64_t offset_seconds;
	uint64_t offset_cycles;
	int64_t offset_ns; /* the offset, in ns */
	bool offset_ok;    /* it is within int64_t: a timestamp can be converted */
};

/*
 * The GPU-time trace's schema for operations read from INPUT (the trace
 * they came from, which must outlive it; NULL: unknown), whose clock and
 * environment it keeps. 0, or -1 (no clock, or one of 0 Hz) with the
 * reason in ERROR (LEN bytes).
 */
int ct_gpu_schema_create(struct ct_gpu_schema *schema, const struct ct_trace_desc *input,
                         char *error, size_t len);

/* The schema as W's metadata. 0, or -1 (not written) with the reason in ERROR (LEN bytes). */
int ct_gpu_schema_write_metadata(const struct ct_gpu_schema *schema, struct ct_ctf_writer *w,
                                 char *error, size_t len);

/* The name of OP's stream (its file): "pid<vpid>-device<device>-stream<stream>". */
void ct_gpu_schema_stream_name(const struct ct_gpu_op *op, char *name, size_t len);

/* NS on the clock, in cycles of the clock (saturated). */
uint64_t ct_gpu_schema_cycles(const struct ct_gpu_schema *schema, int64_t ns);

/*
 * NS (a GPU time field, CLOCK_MONOTONIC ns) can be a timestamp of the
 * trace: not 0 (CUPTI's "unknown"), and within what readers convert to ns
 * from the clock's origin without overflow.
 */
bool ct_gpu_schema_time_ok(const struct ct_gpu_schema *schema, uint64_t ns);

/*
 * The event of OP's begin (BEGIN) or end, at its time, into W's STREAM.
 * 0, or -1: the writing failed (ct_ctf_stream_event_done).
 */
int ct_gpu_schema_event(const struct ct_gpu_schema *schema, struct ct_ctf_writer *w,
                        struct ct_ctf_stream *stream, const struct ct_gpu_op *op, bool begin);

#endif
