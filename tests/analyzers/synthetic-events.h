/* SPDX-License-Identifier: MIT */
/*
 * synthetic-events.h - what the unit tests of the transfers, kernels and
 * api analyses share: a reader fed with made-up events (ct_reader_feed,
 * as the trace pass feeds it), the events themselves, and lookups into
 * the report document the analyses write.
 *
 * Times are plain nanoseconds; each helper takes the event time and the
 * fields the test cares about and leaves the rest zero.
 */
#ifndef CUDATRACE_TESTS_SYNTHETIC_EVENTS_H
#define CUDATRACE_TESTS_SYNTHETIC_EVENTS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyses/analysis.h"
#include "common/document.h"
#include "pass/reader.h"

/* A reader with some analyses, the process and thread events come from, and the report. */
struct synth {
	struct ct_options opts;
	struct ct_reader *reader;   /* owned */
	struct ct_process *process; /* owned by the reader's context */
	struct ct_thread *thread;   /* current thread, idem */
	struct ct_doc *doc;         /* owned, after synth_report */
};

/* When set before synth_init: the report keeps only this NVTX range (--nvtx). */
static const char *synth_nvtx_filter;

/* PID 100, thread 100; the analyses are given NULL-terminated. */
static inline void synth_init(struct synth *s, ...)
{
	const struct ct_analysis_class *cls;
	struct ct_context *ctx;
	va_list ap;

	memset(s, 0, sizeof(*s));
	ct_options_init(&s->opts);
	s->opts.max_rows = 100;
	s->opts.nvtx_range = synth_nvtx_filter;
	s->reader = ct_reader_create(&s->opts);
	assert_non_null(s->reader);
	va_start(ap, s);
	while ((cls = va_arg(ap, const struct ct_analysis_class *)))
		assert_int_equal(ct_reader_add(s->reader, cls), 0);
	va_end(ap);
	ctx = ct_reader_context(s->reader);
	s->process = ct_context_process(ctx, "", 100);
	assert_non_null(s->process);
	s->thread = ct_context_thread(ctx, s->process, 100);
	assert_non_null(s->thread);
}

/* Events from now on come from thread TID of the process. */
static inline void synth_thread(struct synth *s, int64_t tid)
{
	s->thread = ct_context_thread(ct_reader_context(s->reader), s->process, tid);
	assert_non_null(s->thread);
}

static inline void synth_feed(struct synth *s, struct ct_event *ev)
{
	ev->process = s->process;
	ev->thread = s->thread;
	ct_reader_feed(s->reader, ev);
}

static inline void synth_api_name(struct synth *s, int64_t t, unsigned domain, unsigned cbid,
                                  const char *name)
{
	struct ct_event ev = { .type = CT_EV_API_NAME, .time_ns = t };

	ev.u.api_name.domain = (uint8_t)domain;
	ev.u.api_name.cbid = (uint16_t)cbid;
	ev.u.api_name.name = name;
	synth_feed(s, &ev);
}

static inline void synth_api_entry(struct synth *s, int64_t t, unsigned domain, unsigned cbid,
                                   uint32_t correlation_id)
{
	struct ct_event ev = { .type = CT_EV_API_ENTRY, .time_ns = t };

	ev.u.api_entry.domain = (uint8_t)domain;
	ev.u.api_entry.cbid = (uint16_t)cbid;
	ev.u.api_entry.correlation_id = correlation_id;
	synth_feed(s, &ev);
}

/* A call that returns RESULT HOST_NS after it was entered at T: its api_call. */
static inline void synth_api_call(struct synth *s, int64_t t, unsigned domain, unsigned cbid,
                                  uint32_t correlation_id, int64_t host_ns, int32_t result)
{
	struct ct_event ev = { .type = CT_EV_API_CALL, .time_ns = t + host_ns };

	ev.u.api_call.domain = (uint8_t)domain;
	ev.u.api_call.cbid = (uint16_t)cbid;
	ev.u.api_call.correlation_id = correlation_id;
	ev.u.api_call.result = result;
	ev.u.api_call.entry = (uint64_t)t;
	synth_feed(s, &ev);
}

static inline void synth_nvtx_push(struct synth *s, int64_t t, const char *message)
{
	struct ct_event ev = { .type = CT_EV_NVTX_PUSH, .time_ns = t };

	ev.u.nvtx_message.message = message;
	synth_feed(s, &ev);
}

static inline void synth_nvtx_pop(struct synth *s, int64_t t)
{
	struct ct_event ev = { .type = CT_EV_NVTX_POP, .time_ns = t };

	synth_feed(s, &ev);
}

/* A host copy as the tracer describes it. */
struct synth_copy {
	unsigned direction; /* enum ct_direction */
	uint64_t src, dst, bytes;
	unsigned host; /* enum ct_host_mem */
	bool sync;
	unsigned device;
	unsigned cbid; /* runtime API */
};

/* A memcpy event at T, the exit of the call entered at ENTRY (0: the
 * event does not record its call), whose upload the tracer sampled as
 * SAMPLE (0: not sampled). */
static inline void synth_sampled_memcpy(struct synth *s, int64_t t, const struct synth_copy *c,
                                        uint32_t correlation_id, int64_t entry, uint64_t sample)
{
	struct ct_event ev = { .type = CT_EV_MEMCPY, .time_ns = t };

	ev.u.memcpy.direction = (uint8_t)c->direction;
	ev.u.memcpy.src = c->src;
	ev.u.memcpy.dst = c->dst;
	ev.u.memcpy.bytes = c->bytes;
	ev.u.memcpy.host = (uint8_t)c->host;
	ev.u.memcpy.sync = c->sync;
	ev.u.memcpy.stream = c->sync ? 0 : 7;
	ev.u.memcpy.src_device = c->direction == CT_DIR_HTOD ? CT_DEVICE_NONE : (uint8_t)c->device;
	ev.u.memcpy.dst_device = c->direction == CT_DIR_DTOH ? CT_DEVICE_NONE : (uint8_t)c->device;
	ev.u.memcpy.api.domain = CT_DOMAIN_RUNTIME;
	ev.u.memcpy.api.cbid = (uint16_t)c->cbid;
	ev.u.memcpy.api.correlation_id = correlation_id;
	ev.u.memcpy.sample = sample;
	ev.u.memcpy.api.entry = (uint64_t)entry;
	synth_feed(s, &ev);
}

/* A memcpy event whose upload was not sampled (synth_sampled_memcpy). */
static inline void synth_memcpy(struct synth *s, int64_t t, const struct synth_copy *c,
                                uint32_t correlation_id, int64_t entry)
{
	synth_sampled_memcpy(s, t, c, correlation_id, entry, 0);
}

/* The GPU record of a copy, emitted at time T (CUPTI hands it back late). */
static inline void synth_gpu_memcpy(struct synth *s, int64_t t, const struct synth_copy *c,
                                    uint32_t correlation_id, uint64_t start, uint64_t end)
{
	struct ct_event ev = { .type = CT_EV_GPU_MEMCPY, .time_ns = t };

	ev.u.gpu_memcpy.start = start;
	ev.u.gpu_memcpy.end = end;
	ev.u.gpu_memcpy.correlation_id = correlation_id;
	ev.u.gpu_memcpy.direction = (uint8_t)c->direction;
	ev.u.gpu_memcpy.bytes = c->bytes;
	ev.u.gpu_memcpy.device = (uint8_t)c->device;
	ev.u.gpu_memcpy.src_device = CT_DEVICE_NONE;
	ev.u.gpu_memcpy.dst_device = CT_DEVICE_NONE;
	ev.u.gpu_memcpy.stream = c->sync ? 0 : 7;
	synth_feed(s, &ev);
}

/*
 * A whole copy entered at T: the memcpy event HOST_NS later, at its exit,
 * and its GPU record (GPU_START .. GPU_START + GPU_NS) delivered right
 * after. GPU_NS 0: no GPU record.
 */
static inline void synth_sampled_copy_call(struct synth *s, int64_t t, const struct synth_copy *c,
                                           uint32_t correlation_id, int64_t host_ns,
                                           int64_t gpu_start, int64_t gpu_ns, uint64_t sample)
{
	synth_sampled_memcpy(s, t + host_ns, c, correlation_id, t, sample);
	if (gpu_ns)
		synth_gpu_memcpy(s, t + host_ns + 1, c, correlation_id, (uint64_t)gpu_start,
		                 (uint64_t)(gpu_start + gpu_ns));
}

/* synth_sampled_copy_call of a copy not sampled. */
static inline void synth_copy_call(struct synth *s, int64_t t, const struct synth_copy *c,
                                   uint32_t correlation_id, int64_t host_ns, int64_t gpu_start,
                                   int64_t gpu_ns)
{
	synth_sampled_copy_call(s, t, c, correlation_id, host_ns, gpu_start, gpu_ns, 0);
}

static inline void synth_kernel_name(struct synth *s, int64_t t, uint64_t kernel_id,
                                     const char *name)
{
	struct ct_event ev = { .type = CT_EV_KERNEL_NAME, .time_ns = t };

	ev.u.kernel_name.kernel_id = kernel_id;
	ev.u.kernel_name.name = name;
	synth_feed(s, &ev);
}

/* A launch event at T, the exit of the call entered at ENTRY. */
static inline void synth_launch(struct synth *s, int64_t t, uint64_t kernel_id,
                                uint32_t correlation_id, int64_t entry)
{
	struct ct_event ev = { .type = CT_EV_LAUNCH, .time_ns = t };

	ev.u.launch.kernel_id = kernel_id;
	ev.u.launch.stream = CT_STREAM_NONE;
	ev.u.launch.api.domain = CT_DOMAIN_RUNTIME;
	ev.u.launch.api.cbid = 211; /* cudaLaunchKernel */
	ev.u.launch.api.correlation_id = correlation_id;
	ev.u.launch.api.entry = (uint64_t)entry;
	synth_feed(s, &ev);
}

/* A whole launch through cudaLaunchKernel entered at T: the launch event
 * at its exit, EXIT_NS after T. */
static inline void synth_launch_call(struct synth *s, int64_t t, uint64_t kernel_id,
                                     uint32_t correlation_id, int64_t exit_ns)
{
	synth_launch(s, t + exit_ns, kernel_id, correlation_id, t);
}

static inline void synth_gpu_kernel(struct synth *s, int64_t t, uint64_t kernel_id,
                                    uint32_t correlation_id, unsigned device, uint64_t start,
                                    uint64_t end, int32_t grid_x, int32_t block_x)
{
	struct ct_event ev = { .type = CT_EV_GPU_KERNEL, .time_ns = t };

	ev.u.gpu_kernel.start = start;
	ev.u.gpu_kernel.end = end;
	ev.u.gpu_kernel.correlation_id = correlation_id;
	ev.u.gpu_kernel.kernel_id = kernel_id;
	ev.u.gpu_kernel.device = (uint8_t)device;
	ev.u.gpu_kernel.stream = 7;
	ev.u.gpu_kernel.grid_x = grid_x;
	ev.u.gpu_kernel.grid_y = ev.u.gpu_kernel.grid_z = 1;
	ev.u.gpu_kernel.block_x = (uint16_t)block_x;
	ev.u.gpu_kernel.block_y = ev.u.gpu_kernel.block_z = 1;
	synth_feed(s, &ev);
}

static inline void synth_mem(struct synth *s, int64_t t, enum ct_event_type type, unsigned device,
                             uint64_t address, uint64_t size)
{
	struct ct_event ev = { .type = type, .time_ns = t };

	ev.u.mem.device = (uint8_t)device;
	ev.u.mem.kind = CT_MEM_DEVICE;
	ev.u.mem.address = address;
	ev.u.mem.size = size;
	ev.u.mem.delta = type == CT_EV_MEM_FREE ? -(int64_t)size : (int64_t)size;
	ev.u.mem.stream = CT_STREAM_NONE;
	ev.u.mem.api.domain = CT_DOMAIN_RUNTIME;
	ev.u.mem.api.cbid = type == CT_EV_MEM_FREE ? 22 : 20; /* cudaFree, cudaMalloc */
	synth_feed(s, &ev);
}

static inline void synth_mem_failed(struct synth *s, int64_t t, unsigned device, uint64_t size,
                                    uint64_t free_bytes, uint64_t total_bytes)
{
	struct ct_event ev = { .type = CT_EV_MEM_ALLOC_FAILED, .time_ns = t };

	ev.u.mem_alloc_failed.device = (uint8_t)device;
	ev.u.mem_alloc_failed.kind = CT_MEM_DEVICE;
	ev.u.mem_alloc_failed.size = size;
	ev.u.mem_alloc_failed.result = 2;
	ev.u.mem_alloc_failed.free = free_bytes;
	ev.u.mem_alloc_failed.total = total_bytes;
	ev.u.mem_alloc_failed.api.domain = CT_DOMAIN_RUNTIME;
	ev.u.mem_alloc_failed.api.cbid = 20;
	synth_feed(s, &ev);
}

/* Finishes the pass at END_NS (the time of its last event) and writes the report. */
static inline const struct ct_node *synth_report(struct synth *s)
{
	s->doc = ct_doc_create();
	assert_non_null(s->doc);
	assert_int_equal(ct_reader_finish(s->reader), 0);
	assert_int_equal(ct_reader_report(s->reader, s->doc), 0);
	assert_null(ct_doc_error(s->doc));
	assert_non_null(ct_doc_root(s->doc));
	return ct_doc_root(s->doc);
}

static inline void synth_fini(struct synth *s)
{
	ct_doc_destroy(s->doc);
	ct_reader_destroy(s->reader);
}

/* ------------------------------------------------------------ lookups */

static inline const struct ct_node *node_at(const struct ct_node *array, size_t i)
{
	assert_non_null(array);
	return i < ct_node_count(array) ? ct_node_child(array, i) : NULL;
}

static inline const struct ct_node *node_path(const struct ct_node *object, const char *key)
{
	const struct ct_node *n;

	assert_non_null(object);
	n = ct_node_get(object, key);
	if (!n)
		fail_msg("no \"%s\" in the report", key);
	return n;
}

static inline uint64_t node_u64(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = node_path(object, key);

	if (n->type == CT_NODE_I64)
		return (uint64_t)n->value.i64;
	assert_int_equal(n->type, CT_NODE_U64);
	return n->value.u64;
}

static inline int64_t node_i64(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = node_path(object, key);

	if (n->type == CT_NODE_U64)
		return (int64_t)n->value.u64;
	assert_int_equal(n->type, CT_NODE_I64);
	return n->value.i64;
}

static inline double node_double(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = node_path(object, key);

	if (n->type == CT_NODE_U64)
		return (double)n->value.u64;
	if (n->type == CT_NODE_I64)
		return (double)n->value.i64;
	assert_int_equal(n->type, CT_NODE_DOUBLE);
	return n->value.dbl;
}

static inline bool node_is_null(const struct ct_node *object, const char *key)
{
	return node_path(object, key)->type == CT_NODE_NULL;
}

static inline bool node_bool(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = node_path(object, key);

	assert_int_equal(n->type, CT_NODE_BOOL);
	return n->value.boolean;
}

static inline const char *node_str(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = node_path(object, key);

	if (n->type == CT_NODE_NULL)
		return NULL;
	assert_int_equal(n->type, CT_NODE_STRING);
	return n->value.str;
}

/* OBJECT has KEY, and it is the string VALUE. */
static inline bool node_has(const struct ct_node *object, const char *key, const char *value)
{
	const struct ct_node *v = ct_node_get(object, key);

	return v && v->type == CT_NODE_STRING && !strcmp(v->value.str, value);
}

/* The first element of ARRAY whose KEY is the string VALUE, NULL if none. */
static inline const struct ct_node *node_find(const struct ct_node *array, const char *key,
                                              const char *value)
{
	for (size_t i = 0; i < ct_node_count(array); i++)
		if (node_has(ct_node_child(array, i), key, value))
			return ct_node_child(array, i);
	return NULL;
}

/* How many elements of ARRAY have KEY equal to the string VALUE. */
static inline size_t node_count(const struct ct_node *array, const char *key, const char *value)
{
	size_t count = 0;

	for (size_t i = 0; i < ct_node_count(array); i++)
		if (node_has(ct_node_child(array, i), key, value))
			count++;
	return count;
}

#endif
