/* SPDX-License-Identifier: MIT */
/*
 * feed.c - synthetic events and report lookups for the analyzer tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "feed.h"
#include "findings/findings.h"
#include "read/trace-desc.h"

void feed_init(struct feed *f, const struct ct_analysis_class *const *classes)
{
	memset(f, 0, sizeof(*f));
	ct_options_init(&f->opts);
	f->opts.max_rows = 1000;
	f->now = 1000000000;
	f->reader = ct_reader_create(&f->opts);
	assert_non_null(f->reader);
	for (size_t i = 0; classes[i]; i++)
		assert_int_equal(ct_reader_add(f->reader, classes[i]), 0);
}

void feed_release(struct feed *f)
{
	ct_doc_destroy(f->doc);
	ct_reader_destroy(f->reader);
	ct_trace_desc_destroy(f->trace);
	memset(f, 0, sizeof(*f));
}

/* An event of TYPE from (pid, tid) at the current time. */
static void event_init(struct feed *f, struct ct_event *ev, enum ct_event_type type, int pid,
                       int tid)
{
	struct ct_context *ctx = ct_reader_context(f->reader);

	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->time_ns = f->now;
	f->now += 1000;
	ev->process = ct_context_process(ctx, "testhost", pid);
	assert_non_null(ev->process);
	if (!ev->process->procname[0])
		snprintf(ev->process->procname, sizeof(ev->process->procname), "proc%d", pid);
	ev->thread = ct_context_thread(ctx, ev->process, tid);
	assert_non_null(ev->thread);
	ev->trace = f->trace;
}

static void feed_event(struct feed *f, struct ct_event *ev)
{
	ct_reader_feed(f->reader, ev);
}

/* A memory event of the call CBID of DOMAIN whose correlation id is CORRELATION_ID. */
static void mem_event_of(struct feed *f, enum ct_event_type type, int pid, int tid, unsigned device,
                         unsigned kind, uint64_t address, uint64_t size, unsigned domain,
                         unsigned cbid, uint32_t correlation_id)
{
	struct ct_event ev;

	event_init(f, &ev, type, pid, tid);
	ev.u.mem.device = (uint8_t)device;
	ev.u.mem.kind = (uint8_t)kind;
	ev.u.mem.address = address;
	ev.u.mem.size = size;
	ev.u.mem.delta = type == CT_EV_MEM_ALLOC || type == CT_EV_MEM_FREE_FAILED ? (int64_t)size
	                                                                          : -(int64_t)size;
	ev.u.mem.stream = CT_STREAM_NONE;
	ev.u.mem.api = (struct ct_api_ref){ .domain = (uint8_t)domain,
		                            .cbid = (uint16_t)cbid,
		                            .correlation_id = correlation_id };
	feed_event(f, &ev);
}

/* A memory event of a runtime call of its own. */
static void mem_event(struct feed *f, enum ct_event_type type, int pid, int tid, unsigned device,
                      unsigned kind, uint64_t address, uint64_t size, unsigned cbid)
{
	mem_event_of(f, type, pid, tid, device, kind, address, size, CT_DOMAIN_RUNTIME, cbid,
	             ++f->correlation_id);
}

void feed_alloc(struct feed *f, int pid, int tid, unsigned device, unsigned kind, uint64_t address,
                uint64_t size)
{
	mem_event(f, CT_EV_MEM_ALLOC, pid, tid, device, kind, address, size,
	          kind == CT_MEM_ASYNC ? CBID_CUDA_MALLOC_ASYNC : CBID_CUDA_MALLOC);
}

void feed_free(struct feed *f, int pid, int tid, unsigned device, unsigned kind, uint64_t address,
               uint64_t size)
{
	mem_event(f, CT_EV_MEM_FREE, pid, tid, device, kind, address, size, CBID_CUDA_FREE);
	f->free_correlation_id = f->correlation_id;
}

void feed_alloc_call(struct feed *f, int pid, int tid, unsigned device, unsigned kind,
                     uint64_t address, uint64_t size, uint32_t correlation_id)
{
	mem_event_of(f, CT_EV_MEM_ALLOC, pid, tid, device, kind, address, size, CT_DOMAIN_RUNTIME,
	             kind == CT_MEM_ASYNC ? CBID_CUDA_MALLOC_ASYNC : CBID_CUDA_MALLOC,
	             correlation_id);
}

void feed_tracer_info(struct feed *f, int pid, bool api, bool declared)
{
	struct ct_event ev;

	if (!f->trace)
		f->trace = g_new0(struct ct_trace_desc, 1);
	assert_non_null(f->trace);
	f->trace->declares_api_call = declared;
	event_init(f, &ev, CT_EV_TRACER_INFO, pid, pid);
	ev.u.tracer_info.version = "0.1.0";
	ev.u.tracer_info.api = api;
	feed_event(f, &ev);
}

void feed_call(struct feed *f, int pid, int tid, unsigned cbid, uint32_t correlation_id,
               int64_t entry_ns)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_API_CALL, pid, tid);
	ev.u.api_call.domain = CT_DOMAIN_RUNTIME;
	ev.u.api_call.cbid = (uint16_t)cbid;
	ev.u.api_call.correlation_id = correlation_id;
	ev.u.api_call.entry = (uint64_t)entry_ns;
	feed_event(f, &ev);
}

void feed_alloc_entered(struct feed *f, int pid, int tid, unsigned device, unsigned kind,
                        uint64_t address, uint64_t size, int64_t entry_ns)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_MEM_ALLOC, pid, tid);
	ev.u.mem.device = (uint8_t)device;
	ev.u.mem.kind = (uint8_t)kind;
	ev.u.mem.address = address;
	ev.u.mem.size = size;
	ev.u.mem.delta = (int64_t)size;
	ev.u.mem.stream = CT_STREAM_NONE;
	ev.u.mem.api = (struct ct_api_ref){ .domain = CT_DOMAIN_RUNTIME,
		                            .cbid = CBID_CUDA_MALLOC,
		                            .correlation_id = ++f->correlation_id,
		                            .entry = (uint64_t)entry_ns };
	feed_event(f, &ev);
}

void feed_dump_begin(struct feed *f, int pid, uint32_t dump, unsigned reason)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_STATEDUMP_BEGIN, pid, pid);
	ev.u.statedump_begin.dump = dump;
	ev.u.statedump_begin.reason = (uint8_t)reason;
	feed_event(f, &ev);
}

void feed_mem_live(struct feed *f, int pid, uint32_t dump, unsigned device, unsigned kind,
                   uint64_t address, uint64_t size, int64_t alloc_time, uint32_t correlation_id)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_MEM_LIVE, pid, pid);
	ev.u.mem_live.dump = dump;
	ev.u.mem_live.device = (uint8_t)device;
	ev.u.mem_live.kind = (uint8_t)kind;
	ev.u.mem_live.address = address;
	ev.u.mem_live.size = size;
	ev.u.mem_live.stream = CT_STREAM_NONE;
	ev.u.mem_live.alloc_time = (uint64_t)alloc_time;
	ev.u.mem_live.api =
	    (struct ct_api_ref){ .domain = CT_DOMAIN_RUNTIME,
		                 .cbid = kind == CT_MEM_ASYNC ? CBID_CUDA_MALLOC_ASYNC
		                                              : CBID_CUDA_MALLOC,
		                 .correlation_id = correlation_id };
	feed_event(f, &ev);
}

void feed_dump_end(struct feed *f, int pid, uint32_t dump, uint32_t entries, bool complete)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_STATEDUMP_END, pid, pid);
	ev.u.statedump_end.dump = dump;
	ev.u.statedump_end.entries = entries;
	ev.u.statedump_end.complete = complete;
	feed_event(f, &ev);
}

void feed_context(struct feed *f, int pid, unsigned device, bool create)
{
	struct ct_event ev;

	event_init(f, &ev, create ? CT_EV_CONTEXT_CREATE : CT_EV_CONTEXT_DESTROY, pid, pid);
	ev.u.context.context = 1;
	ev.u.context.device = (uint8_t)device;
	ev.u.context.primary = 1;
	feed_event(f, &ev);
}

void feed_discard(struct feed *f, uint64_t events)
{
	ct_reader_note_loss(f->reader, f->now, events, 0);
}

void feed_dropped(struct feed *f, int pid, uint64_t count)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_ACTIVITY_DROPPED, pid, pid);
	ev.u.activity_dropped.count = count;
	feed_event(f, &ev);
}

void feed_reclaim(struct feed *f, int pid, int tid, unsigned device, unsigned kind,
                  uint64_t address, uint64_t size, unsigned cbid)
{
	mem_event_of(f, CT_EV_MEM_RECLAIM, pid, tid, device, kind, address, size,
	             cbid ? CT_DOMAIN_RUNTIME : CT_DOMAIN_UNKNOWN, cbid,
	             cbid ? ++f->correlation_id : 0);
}

void feed_free_failed(struct feed *f, int pid, int tid, unsigned device, unsigned kind,
                      uint64_t address, uint64_t size)
{
	/* the same call as the free it undoes */
	mem_event_of(f, CT_EV_MEM_FREE_FAILED, pid, tid, device, kind, address, size,
	             CT_DOMAIN_RUNTIME, CBID_CUDA_FREE, f->free_correlation_id);
}

void feed_failed(struct feed *f, int pid, int tid, unsigned device, unsigned kind, uint64_t size,
                 uint64_t free, uint64_t total)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_MEM_ALLOC_FAILED, pid, tid);
	ev.u.mem_alloc_failed.device = (uint8_t)device;
	ev.u.mem_alloc_failed.kind = (uint8_t)kind;
	ev.u.mem_alloc_failed.size = size;
	ev.u.mem_alloc_failed.result = 2;
	ev.u.mem_alloc_failed.free = free;
	ev.u.mem_alloc_failed.total = total;
	ev.u.mem_alloc_failed.api = (struct ct_api_ref){ .domain = CT_DOMAIN_RUNTIME,
		                                         .cbid = CBID_CUDA_MALLOC,
		                                         .correlation_id = 1 };
	feed_event(f, &ev);
}

void feed_nvml(struct feed *f, int pid, unsigned device, unsigned reason, uint64_t free,
               uint64_t total)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_NVML_SAMPLE, pid, pid);
	ev.u.nvml_sample.device = (uint8_t)device;
	ev.u.nvml_sample.reason = (uint8_t)reason;
	ev.u.nvml_sample.free = free;
	ev.u.nvml_sample.used = total - free;
	ev.u.nvml_sample.total = total;
	feed_event(f, &ev);
}

void feed_pool(struct feed *f, int pid, unsigned device, unsigned operation, uint64_t address,
               uint64_t size, uint64_t utilized)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_GPU_MEMORY_POOL, pid, pid);
	ev.u.gpu_memory_pool.timestamp = (uint64_t)f->now;
	ev.u.gpu_memory_pool.operation = (uint8_t)operation;
	ev.u.gpu_memory_pool.pool_type = 1;
	ev.u.gpu_memory_pool.address = address;
	ev.u.gpu_memory_pool.size = size;
	ev.u.gpu_memory_pool.utilized = utilized;
	ev.u.gpu_memory_pool.device = (uint8_t)device;
	feed_event(f, &ev);
}

void feed_pool_record(struct feed *f, int pid, unsigned device, unsigned operation,
                      uint64_t address, uint64_t size, uint64_t utilized, uint64_t threshold,
                      int64_t timestamp)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_GPU_MEMORY_POOL, pid, pid);
	ev.u.gpu_memory_pool.timestamp = (uint64_t)timestamp;
	ev.u.gpu_memory_pool.operation = (uint8_t)operation;
	ev.u.gpu_memory_pool.pool_type = 1;
	ev.u.gpu_memory_pool.address = address;
	ev.u.gpu_memory_pool.size = size;
	ev.u.gpu_memory_pool.utilized = utilized;
	ev.u.gpu_memory_pool.release_threshold = threshold;
	ev.u.gpu_memory_pool.device = (uint8_t)device;
	feed_event(f, &ev);
}

void feed_gpu_memory(struct feed *f, int pid, unsigned device, unsigned operation, uint64_t address,
                     uint64_t bytes, uint64_t pool, uint64_t pool_size, uint64_t pool_utilized,
                     uint64_t threshold, int64_t timestamp)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_GPU_MEMORY, pid, pid);
	ev.u.gpu_memory.timestamp = (uint64_t)timestamp;
	ev.u.gpu_memory.operation = (uint8_t)operation;
	ev.u.gpu_memory.memory_kind = 3;
	ev.u.gpu_memory.address = address;
	ev.u.gpu_memory.bytes = bytes;
	ev.u.gpu_memory.device = (uint8_t)device;
	ev.u.gpu_memory.stream = 7;
	ev.u.gpu_memory.is_async = 1;
	ev.u.gpu_memory.pool_type = 1;
	ev.u.gpu_memory.pool_address = pool;
	ev.u.gpu_memory.pool_release_threshold = threshold;
	ev.u.gpu_memory.pool_size = pool_size;
	ev.u.gpu_memory.pool_utilized = pool_utilized;
	feed_event(f, &ev);
}

void feed_sync(struct feed *f, int pid, unsigned device)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_SYNC, pid, pid);
	ev.u.sync.what = CT_SYNC_DEVICE;
	ev.u.sync.stream = CT_STREAM_NONE;
	ev.u.sync.device = (uint8_t)device;
	feed_event(f, &ev);
}

void feed_launch(struct feed *f, int pid, unsigned device)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_LAUNCH, pid, pid);
	ev.u.launch.kernel_id = 1;
	ev.u.launch.grid_x = ev.u.launch.grid_y = ev.u.launch.grid_z = 1;
	ev.u.launch.block_x = ev.u.launch.block_y = ev.u.launch.block_z = 1;
	ev.u.launch.config_known = 1;
	ev.u.launch.device = (uint8_t)device;
	feed_event(f, &ev);
}

void feed_gpu_sync(struct feed *f, int pid, uint32_t context, unsigned type, int64_t end)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_GPU_SYNC, pid, pid);
	ev.u.gpu_sync.start = (uint64_t)end - 100;
	ev.u.gpu_sync.end = (uint64_t)end;
	ev.u.gpu_sync.type = (uint8_t)type;
	ev.u.gpu_sync.context = context;
	ev.u.gpu_sync.stream = 7;
	ev.u.gpu_sync.event = UINT32_MAX;
	feed_event(f, &ev);
}

void feed_push(struct feed *f, int pid, int tid, const char *message)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_NVTX_PUSH, pid, tid);
	ev.u.nvtx_message.message = message;
	feed_event(f, &ev);
}

void feed_pop(struct feed *f, int pid, int tid)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_NVTX_POP, pid, tid);
	feed_event(f, &ev);
}

void feed_cell_begin(struct feed *f, int pid, uint64_t count, uint32_t line, const char *text)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_CELL_BEGIN, pid, pid);
	ev.u.cell_begin.execution_count = count;
	ev.u.cell_begin.line = line;
	ev.u.cell_begin.first_line = text;
	ev.u.cell_begin.first_line_len = (uint16_t)strlen(text);
	feed_event(f, &ev);
}

void feed_cell_end(struct feed *f, int pid, uint64_t count, bool failed)
{
	struct ct_event ev;

	event_init(f, &ev, CT_EV_CELL_END, pid, pid);
	ev.u.cell_end.execution_count = count;
	ev.u.cell_end.failed = failed;
	feed_event(f, &ev);
}

void feed_report(struct feed *f)
{
	assert_int_equal(ct_reader_finish(f->reader), 0);
	f->doc = ct_doc_create();
	assert_non_null(f->doc);
	assert_int_equal(ct_reader_report(f->reader, f->doc), 0);
	assert_null(ct_doc_error(f->doc));
	assert_non_null(ct_doc_root(f->doc));
}

void feed_findings(struct feed *f)
{
	size_t count;
	const struct ct_result *results = ct_reader_results(f->reader, &count);

	ct_findings_write(f->doc, results, count);
	assert_null(ct_doc_error(f->doc));
}

const struct ct_node *feed_get(const struct feed *f, const char *path)
{
	const struct ct_node *node = ct_doc_root(f->doc);
	char *copy = strdup(path);
	char *part, *save = NULL;

	assert_non_null(copy);
	for (part = strtok_r(copy, ".", &save); node && part; part = strtok_r(NULL, ".", &save)) {
		if (node->type == CT_NODE_ARRAY) {
			long index = strtol(part, NULL, 10);

			node = index >= 0 && (size_t)index < ct_node_count(node)
			           ? ct_node_child(node, (size_t)index)
			           : NULL;
		} else {
			node = ct_node_get(node, part);
		}
	}
	free(copy);
	return node;
}

static const struct ct_node *must_get(const struct feed *f, const char *path)
{
	const struct ct_node *node = feed_get(f, path);

	if (!node)
		fail_msg("no %s in the report", path);
	return node;
}

int64_t feed_int(const struct feed *f, const char *path)
{
	const struct ct_node *node = must_get(f, path);

	if (node->type == CT_NODE_U64)
		return (int64_t)node->value.u64;
	if (node->type == CT_NODE_I64)
		return node->value.i64;
	fail_msg("%s is not an integer", path);
	return 0;
}

double feed_double(const struct feed *f, const char *path)
{
	const struct ct_node *node = must_get(f, path);

	if (node->type != CT_NODE_DOUBLE)
		fail_msg("%s is not a number", path);
	return node->value.dbl;
}

const char *feed_string(const struct feed *f, const char *path)
{
	const struct ct_node *node = must_get(f, path);

	if (node->type != CT_NODE_STRING)
		fail_msg("%s is not a string", path);
	return node->value.str;
}

size_t feed_count(const struct feed *f, const char *path)
{
	const struct ct_node *node = must_get(f, path);

	if (node->type != CT_NODE_ARRAY)
		fail_msg("%s is not an array", path);
	return ct_node_count(node);
}
