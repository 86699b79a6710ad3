/* SPDX-License-Identifier: MIT */
/*
 * perfetto-export.c - the Perfetto export (see perfetto-export.h): each
 * event read becomes the packets that show it, written at once.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "analyses/framework.h"
#include "common/saturate.h"
#include "model/accounting.h"
#include "model/api-calls.h"
#include "perfetto-export.h"
#include "perfetto-writer.h"

/* The kinds of track, for their keys (ct_pf_uuid). */
enum track_kind {
	TRACK_PROCESS = 1,
	TRACK_THREAD,
	TRACK_DEVICE,
	TRACK_STREAM,
	TRACK_RANGE,
	TRACK_MEMORY, /* live bytes: 0 for the device kinds, 1 + kind for one kind */
	TRACK_POOL,
	TRACK_LOSSES,    /* what LTTng discarded, for the whole trace */
	TRACK_CELLS,     /* the notebook cells a process ran */
	TRACK_FRAMEWORK, /* a framework's own figures: 2 * framework + 0 in use, + 1 reserved */
};

/* Longest name written: longer kernel names and NVTX messages are cut. */
#define NAME_MAX_BYTES 4096
/* The names of copies and memsets kept (op_name): 64. */
#define OP_NAMES_BITS 6
#define OP_NAMES      (1u << OP_NAMES_BITS)

/* Per device, beside the accountant's state: the values the counters last showed. */
struct pf_device {
	bool shown;
	int64_t on_device;
	int64_t live[CT_ACCT_KINDS];
};

struct ct_perfetto {
	struct ct_context *ctx;
	struct ct_pf_writer *w;  /* NULL once closed */
	struct ct_acct_sub *sub; /* its subscription to the pass's accountant */
	/* The last thread's track: a call's begin, its work and its end are
	 * on it, one after another. */
	const struct ct_thread *last_thread;
	uint64_t last_thread_track;
	/* The last stream's track: a loop's GPU work is on one or a few,
	 * and finding its key took three hashes each. */
	struct {
		uint64_t process; /* its index, + 1; 0: none */
		unsigned device;
		uint32_t stream;
		uint64_t track;
	} last_stream;
	char name[NAME_MAX_BYTES];
	/* The names of recent copies and memsets, by kind, direction and
	 * size (op_name): a loop's operations repeat a few sizes, and
	 * formatting each name again took more of the export's thread than
	 * writing its packet. An entry's text stays where it is until another
	 * operation takes its place, so the writer finds it by its pointer. */
	struct op_name {
		bool set;
		bool memset;
		unsigned direction;
		uint64_t bytes;
		char text[96];
	} op_names[OP_NAMES];
};

/* ------------------------------------------------------------ tracks */

static uint64_t process_track(struct ct_perfetto *p, const struct ct_process *process)
{
	uint64_t key = ct_pf_uuid(TRACK_PROCESS, process->index, 0, 0);
	uint64_t id;
	char name[64];

	if ((id = ct_pf_track_id(p->w, key)))
		return id;
	snprintf(name, sizeof(name), "%s", process->procname[0] ? process->procname : "process");
	return ct_pf_track(
	    p->w, &(struct ct_pf_track){
	              .key = key, .name = name, .has_pid = true, .pid = (int32_t)process->pid });
}

static uint64_t describe_thread(struct ct_perfetto *p, const struct ct_thread *thread)
{
	const struct ct_process *process = thread->process;
	uint64_t key = ct_pf_uuid(TRACK_THREAD, process->index, (uint64_t)thread->tid, 0);
	uint64_t id;
	char name[64];

	if ((id = ct_pf_track_id(p->w, key)))
		return id;
	snprintf(name, sizeof(name), "thread %" PRId64, thread->tid);
	return ct_pf_track(p->w, &(struct ct_pf_track){ .key = key,
	                                                .parent = process_track(p, process),
	                                                .name = name,
	                                                .has_pid = true,
	                                                .pid = (int32_t)process->pid,
	                                                .tid = (int32_t)thread->tid });
}

/* Threads live as long as the context: the pointer names one. */
static uint64_t thread_track(struct ct_perfetto *p, const struct ct_thread *thread)
{
	if (thread != p->last_thread) {
		p->last_thread_track = describe_thread(p, thread);
		p->last_thread = thread;
	}
	return p->last_thread_track;
}

/* The track of DEVICE on the host of PROCESS, shared by the processes there. */
static uint64_t device_track(struct ct_perfetto *p, const struct ct_process *process,
                             unsigned device)
{
	uint64_t host = g_str_hash(process->hostname);
	uint64_t key = ct_pf_uuid(TRACK_DEVICE, host, device, 0);
	uint64_t id;
	const struct ct_device *d = process->devices[device];
	char name[128];

	if ((id = ct_pf_track_id(p->w, key)))
		return id;
	if (d && d->name[0])
		snprintf(name, sizeof(name), "GPU %u (%s)", device, d->name);
	else
		snprintf(name, sizeof(name), "GPU %u", device);
	return ct_pf_track(p->w, &(struct ct_pf_track){ .key = key, .name = name });
}

static uint64_t stream_track(struct ct_perfetto *p, const struct ct_process *process,
                             unsigned device, uint32_t stream)
{
	uint64_t key, id;
	char name[96];

	if (p->last_stream.process == (uint64_t)process->index + 1 &&
	    p->last_stream.device == device && p->last_stream.stream == stream)
		return p->last_stream.track;
	key = ct_pf_uuid(TRACK_STREAM, process->index, device, stream);
	if (!(id = ct_pf_track_id(p->w, key))) {
		snprintf(name, sizeof(name), "stream %" PRIu32 " (pid %" PRId64 ")", stream,
		         process->pid);
		id = ct_pf_track(p->w,
		                 &(struct ct_pf_track){ .key = key,
		                                        .parent = device_track(p, process, device),
		                                        .name = name });
	}
	p->last_stream.process = (uint64_t)process->index + 1;
	p->last_stream.device = device;
	p->last_stream.stream = stream;
	p->last_stream.track = id;
	return id;
}

/* A counter of PROCESS's bytes on DEVICE: KIND + 1, or 0 for the device kinds together. */
static uint64_t memory_track(struct ct_perfetto *p, const struct ct_process *process,
                             unsigned device, unsigned kind)
{
	uint64_t key = ct_pf_uuid(TRACK_MEMORY, process->index, device, kind);
	uint64_t id;
	char name[96];

	if ((id = ct_pf_track_id(p->w, key)))
		return id;
	if (kind)
		snprintf(name, sizeof(name), "GPU %u memory: %s", device,
		         ct_mem_kind_label(kind - 1));
	else
		snprintf(name, sizeof(name), "GPU %u memory", device);
	return ct_pf_track(p->w, &(struct ct_pf_track){ .key = key,
	                                                .parent = process_track(p, process),
	                                                .name = name,
	                                                .counter = true });
}

static uint64_t pool_track(struct ct_perfetto *p, const struct ct_process *process, unsigned device,
                           uint64_t pool)
{
	uint64_t key = ct_pf_uuid(TRACK_POOL, process->index, device, pool);
	uint64_t id;
	char name[96];

	if ((id = ct_pf_track_id(p->w, key)))
		return id;
	snprintf(name, sizeof(name), "GPU %u memory pool 0x%" PRIx64 " reserved", device, pool);
	return ct_pf_track(p->w, &(struct ct_pf_track){ .key = key,
	                                                .parent = process_track(p, process),
	                                                .name = name,
	                                                .counter = true });
}

/* A counter of what FRAMEWORK says it holds on DEVICE: in use, or reserved by its pool. */
static uint64_t framework_track(struct ct_perfetto *p, const struct ct_process *process,
                                unsigned device, unsigned framework, bool reserved)
{
	uint64_t key =
	    ct_pf_uuid(TRACK_FRAMEWORK, process->index, device, 2 * framework + (reserved ? 1 : 0));
	uint64_t id;
	char name[96];

	if ((id = ct_pf_track_id(p->w, key)))
		return id;
	snprintf(name, sizeof(name), "GPU %u %s %s", device,
	         ct_framework_name(ct_framework_label(framework)),
	         reserved ? "reserved (its pool)" : "in use (its own count)");
	return ct_pf_track(p->w, &(struct ct_pf_track){ .key = key,
	                                                .parent = process_track(p, process),
	                                                .name = name,
	                                                .counter = true });
}

/* One slice per cell a notebook kernel ran, on a track under its process. */
static uint64_t cells_track(struct ct_perfetto *p, const struct ct_process *process)
{
	uint64_t key = ct_pf_uuid(TRACK_CELLS, process->index, 0, 0);
	uint64_t id;

	if ((id = ct_pf_track_id(p->w, key)))
		return id;
	return ct_pf_track(p->w, &(struct ct_pf_track){ .key = key,
	                                                .parent = process_track(p, process),
	                                                .name = "Notebook cells" });
}

/* ------------------------------------------------------------ events */

static void put(struct ct_perfetto *p, enum ct_pf_type type, int64_t time_ns, uint64_t track,
                const char *name)
{
	ct_pf_event(p->w, &(struct ct_pf_event){
	                      .type = type, .time_ns = time_ns, .track = track, .name = name });
}

/* A flow id unique in the export: the process and the correlation id. */
static uint64_t flow_id(const struct ct_process *process, uint32_t correlation_id)
{
	return ((uint64_t)process->index + 1) << 32 | correlation_id;
}

/* The name of KERNEL_ID in PROCESS; *LASTS: it is the context's (struct ct_pf_event). */
static const char *kernel_name(struct ct_perfetto *p, const struct ct_process *process,
                               uint64_t kernel_id, bool *lasts)
{
	const char *name = ct_context_kernel_name(process, kernel_id);

	*lasts = name != NULL;
	if (name)
		return name;
	snprintf(p->name, sizeof(p->name), "kernel 0x%" PRIx64, kernel_id);
	return p->name;
}

/* The name of a copy in DIRECTION (or a memset, for MEMSET) of BYTES. */
static const char *op_name(struct ct_perfetto *p, bool memset, unsigned direction, uint64_t bytes)
{
	/* Fibonacci hashing: the sizes of a loop (a few, often multiples of
	 * one another) spread over the entries */
	uint64_t h = (bytes * 4 + direction * 2 + memset) * UINT64_C(0x9e3779b97f4a7c15);
	struct op_name *n = &p->op_names[h >> (64 - OP_NAMES_BITS)];

	if (n->set && n->memset == memset && n->direction == direction && n->bytes == bytes)
		return n->text;
	*n = (struct op_name){
		.set = true, .memset = memset, .direction = direction, .bytes = bytes
	};
	if (memset)
		snprintf(n->text, sizeof(n->text), "memset %" PRIu64 " bytes", bytes);
	else
		snprintf(n->text, sizeof(n->text), "memcpy %s %" PRIu64 " bytes",
		         ct_direction_label(direction), bytes);
	return n->text;
}

static const char *copy_name(struct ct_perfetto *p, unsigned direction, uint64_t bytes)
{
	return op_name(p, false, direction, bytes);
}

static const char *memset_name(struct ct_perfetto *p, uint64_t bytes)
{
	return op_name(p, true, 0, bytes);
}

static const char *text(struct ct_perfetto *p, const char *s, size_t len)
{
	snprintf(p->name, sizeof(p->name), "%.*s", (int)len, s ? s : "");
	return p->name;
}

/* A traced call, a slice on its thread from its entry to its exit (the
 * event that records it, api-calls.h): the slice opens here, and closes
 * once the event's own instant is in it (api_call_end). */
static void api_call_begin(struct ct_perfetto *p, const struct ct_event *ev)
{
	const struct ct_api_call *call = &ev->call;
	const char *name = ct_context_api_name(ev->process, call->domain, call->cbid);
	bool lasts = name != NULL;

	if (!name) {
		snprintf(p->name, sizeof(p->name), "%s call %u", ct_domain_label(call->domain),
		         call->cbid);
		name = p->name;
	}
	ct_pf_event(p->w, &(struct ct_pf_event){ .type = CT_PF_BEGIN,
	                                         .time_ns = call->entry_ns,
	                                         .track = thread_track(p, ev->thread),
	                                         .name = name,
	                                         .name_lasts = lasts });
}

static void api_call_end(struct ct_perfetto *p, const struct ct_event *ev)
{
	put(p, CT_PF_END, ev->call.exit_ns, thread_track(p, ev->thread), NULL);
}

/*
 * The host side of GPU work: an instant at its call's entry, where its flow
 * starts; the flow ends on the GPU slice's begin (gpu_work).
 *
 * The flow starts at the entry, not at the exit where the event is recorded,
 * because Perfetto's trace_processor imports the events in timestamp order
 * (src/trace_processor/sorter/trace_sorter.h: TimestampedEvent orders by
 * timestamp, ties in the order of the file) and draws an arrow only for a
 * flow it saw begin first (importers/proto/track_event_parser.cc,
 * MaybeParseTrackEventFlows; importers/common/flow_tracker.cc): an id in
 * flow_ids begins a flow (FlowTracker::Begin), one in terminating_flow_ids
 * ends it (FlowTracker::End) when FlowTracker::IsActive knows it, and is
 * skipped otherwise, no arrow drawn. GPU work starts after its call's entry
 * but often before its exit (a synchronous copy returns after its GPU end):
 * the entry comes before its work in that order (at equal times, when the
 * call's event is read before its work's record). A call whose entry is
 * unknown (ev->has_call false) has only its event's time.
 */
static void host_work(struct ct_perfetto *p, const struct ct_event *ev, const char *name,
                      bool lasts, uint32_t correlation_id)
{
	ct_pf_event(
	    p->w, &(struct ct_pf_event){ .type = CT_PF_INSTANT,
	                                 .time_ns = ev->has_call ? ev->call.entry_ns : ev->time_ns,
	                                 .track = thread_track(p, ev->thread),
	                                 .name = name,
	                                 .name_lasts = lasts,
	                                 .flow = flow_id(ev->process, correlation_id) });
}

/* GPU work: a slice on its stream's track, where its flow ends; LASTS as host_work's. */
static void gpu_work(struct ct_perfetto *p, const struct ct_event *ev, unsigned device,
                     uint32_t stream, uint64_t start, uint64_t end, const char *name, bool lasts,
                     uint32_t correlation_id)
{
	uint64_t track;

	char unended[256];

	if (!start) /* CUPTI could not time it (event-decoder.c): it has no place on the track */
		return;
	/* still running at a forced flush (the reader's check_gpu_end): begun, its end unknown,
	 * a slice of no length that says so */
	if (!end) {
		snprintf(unended, sizeof(unended), "%s (end unknown)", name);
		name = unended;
		lasts = false;
	}
	track = stream_track(p, ev->process, device, stream);
	ct_pf_event(p->w, &(struct ct_pf_event){ .type = CT_PF_BEGIN,
	                                         .time_ns = (int64_t)start,
	                                         .track = track,
	                                         .name = name,
	                                         .name_lasts = lasts,
	                                         .terminating_flow =
	                                             flow_id(ev->process, correlation_id) });
	put(p, CT_PF_END, (int64_t)(end > start ? end : start), track, NULL);
}

/* An NVTX start/end range: a slice on a track of its own, under its process. */
static void nvtx_range(struct ct_perfetto *p, const struct ct_event *ev, bool start)
{
	uint64_t range = start ? ev->u.nvtx_range_start.range_id : ev->u.nvtx_range_end.range_id;
	uint64_t key = ct_pf_uuid(TRACK_RANGE, ev->process->index, range, 0);
	uint64_t id = ct_pf_track_id(p->w, key);
	char name[64];

	if (!id) {
		snprintf(name, sizeof(name), "NVTX range %" PRIu64, range);
		id = ct_pf_track(
		    p->w, &(struct ct_pf_track){
		              .key = key, .parent = process_track(p, ev->process), .name = name });
	}
	if (start)
		put(p, CT_PF_BEGIN, ev->time_ns, id,
		    text(p, ev->u.nvtx_range_start.message, ev->u.nvtx_range_start.message_len));
	else
		put(p, CT_PF_END, ev->time_ns, id, NULL);
}

/*
 * cell_begin opens the slice "In [N]: first line", the cell_end of the same
 * cell closes it. The cell running in a process is kept as its execution
 * count + 1 (0: none) in its per-process data in the accountant: a number, never
 * a pointer to free. A cell whose cell_end was lost ends with the next one,
 * as in the cells analysis.
 */
static void cell_event(struct ct_perfetto *p, const struct ct_event *ev)
{
	void **running = ct_acct_process_data(p->sub, ev->process);
	uint64_t track = cells_track(p, ev->process);

	if (ev->type == CT_EV_CELL_BEGIN) {
		const struct ct_ev_cell_begin *c = &ev->u.cell_begin;

		if (*running)
			put(p, CT_PF_END, ev->time_ns, track, NULL);
		snprintf(p->name, sizeof(p->name), "In [%" PRIu64 "]: %.*s", c->execution_count,
		         (int)c->first_line_len, c->first_line ? c->first_line : "");
		put(p, CT_PF_BEGIN, ev->time_ns, track, p->name);
		*running = (void *)(uintptr_t)(c->execution_count + 1);
	} else if (*running && (uintptr_t)*running == ev->u.cell_end.execution_count + 1) {
		put(p, CT_PF_END, ev->time_ns, track, NULL);
		*running = NULL;
	}
}

static void pool_reserved(struct ct_perfetto *p, const struct ct_event *ev, unsigned device,
                          uint64_t pool, uint64_t bytes, uint64_t time_ns)
{
	ct_pf_event(p->w, &(struct ct_pf_event){ .type = CT_PF_COUNTER,
	                                         .time_ns = (int64_t)time_ns,
	                                         .track = pool_track(p, ev->process, device, pool),
	                                         .value = (int64_t)bytes });
}

/*
 * What the Python probe says (doc/events.md): the framework's figures as
 * counters beside the driver's, its out-of-memory errors and the uncaught
 * exception the process died of as instants on the process.
 */
static void probe_event(struct ct_perfetto *p, const struct ct_event *ev)
{
	if (ev->type == CT_EV_FRAMEWORK_MEMORY) {
		const struct ct_ev_framework_memory *m = &ev->u.framework_memory;
		/* TensorFlow does not say what its pool holds: no counter of zeros. */
		size_t n = m->reserved || m->peak_reserved ? 2 : 1;
		uint64_t tracks[2] = {
			framework_track(p, ev->process, m->device, m->framework, false),
			n > 1 ? framework_track(p, ev->process, m->device, m->framework, true) : 0,
		};
		int64_t values[2] = {
			ct_sat_i64(m->in_use),
			ct_sat_i64(m->reserved),
		};

		ct_pf_counters(p->w, ev->time_ns, n, tracks, values);
	} else if (ev->type == CT_EV_FRAMEWORK_OOM) {
		const struct ct_ev_framework_oom *o = &ev->u.framework_oom;

		snprintf(p->name, sizeof(p->name),
		         "%s out of memory: %" PRIu64 " bytes requested on GPU %" PRIu32,
		         ct_framework_name(ct_framework_label(o->framework)), o->requested,
		         o->device);
		put(p, CT_PF_INSTANT, ev->time_ns, process_track(p, ev->process), p->name);
	} else if (ev->type == CT_EV_PYTHON_EXCEPTION) {
		const struct ct_ev_python_exception *x = &ev->u.python_exception;

		snprintf(p->name, sizeof(p->name), "uncaught %.*s at %.*s:%" PRIu32 ": %.*s",
		         (int)x->type_len, x->type ? x->type : "", (int)x->file_len,
		         x->file ? x->file : "", x->line, (int)x->message_len,
		         x->message ? x->message : "");
		put(p, CT_PF_INSTANT, ev->time_ns, process_track(p, ev->process), p->name);
	} else if (ev->type == CT_EV_PYTHON_EXIT) {
		/* what is freed after it, the interpreter's teardown frees */
		put(p, CT_PF_INSTANT, ev->time_ns, process_track(p, ev->process),
		    "Python exiting: frees from here on are its teardown's");
	}
}

static void host_event(struct ct_perfetto *p, const struct ct_event *ev)
{
	const char *name;
	bool lasts;

	switch (ev->type) {
	case CT_EV_FRAMEWORK_MEMORY:
	case CT_EV_FRAMEWORK_OOM:
	case CT_EV_PYTHON_EXCEPTION:
	case CT_EV_PYTHON_EXIT:
		probe_event(p, ev);
		break;
	case CT_EV_ACTIVITY_DROPPED:
		/* nothing lost silently: the stream tracks lack this many slices */
		snprintf(p->name, sizeof(p->name),
		         "CUPTI dropped %" PRIu64 " activity records: GPU work missing",
		         ev->u.activity_dropped.count);
		put(p, CT_PF_INSTANT, ev->time_ns, process_track(p, ev->process), p->name);
		break;
	case CT_EV_NVTX_PUSH:
		put(p, CT_PF_BEGIN, ev->time_ns, thread_track(p, ev->thread),
		    ct_path_message(p->ctx, ev->nvtx.path));
		break;
	case CT_EV_NVTX_POP:
		put(p, CT_PF_END, ev->time_ns, thread_track(p, ev->thread), NULL);
		break;
	case CT_EV_NVTX_MARK:
		put(p, CT_PF_INSTANT, ev->time_ns, thread_track(p, ev->thread),
		    text(p, ev->u.nvtx_message.message, ev->u.nvtx_message.message_len));
		break;
	case CT_EV_NVTX_RANGE_START:
	case CT_EV_NVTX_RANGE_END:
		nvtx_range(p, ev, ev->type == CT_EV_NVTX_RANGE_START);
		break;
	case CT_EV_CELL_BEGIN:
	case CT_EV_CELL_END:
		cell_event(p, ev);
		break;
	case CT_EV_LAUNCH:
		name = kernel_name(p, ev->process, ev->u.launch.kernel_id, &lasts);
		host_work(p, ev, name, lasts, ev->u.launch.api.correlation_id);
		break;
	case CT_EV_MEMCPY:
		host_work(p, ev, copy_name(p, ev->u.memcpy.direction, ev->u.memcpy.bytes), false,
		          ev->u.memcpy.api.correlation_id);
		break;
	case CT_EV_MEMSET:
		host_work(p, ev, memset_name(p, ev->u.memset.bytes), false,
		          ev->u.memset.api.correlation_id);
		break;
	default:
		break;
	}
}

static void gpu_event(struct ct_perfetto *p, const struct ct_event *ev)
{
	switch (ev->type) {
	case CT_EV_GPU_KERNEL: {
		const struct ct_ev_gpu_kernel *k = &ev->u.gpu_kernel;

		bool lasts;
		const char *name = kernel_name(p, ev->process, k->kernel_id, &lasts);

		gpu_work(p, ev, k->device, k->stream, k->start, k->end, name, lasts,
		         k->correlation_id);
		break;
	}
	case CT_EV_GPU_MEMCPY: {
		const struct ct_ev_gpu_memcpy *c = &ev->u.gpu_memcpy;

		/* a runtime call's copy is known by the runtime's id (as the memcpy event has it) */
		gpu_work(p, ev, c->device, c->stream, c->start, c->end,
		         copy_name(p, c->direction, c->bytes), false,
		         c->runtime_correlation_id ? c->runtime_correlation_id : c->correlation_id);
		break;
	}
	case CT_EV_GPU_MEMSET: {
		const struct ct_ev_gpu_memset *s = &ev->u.gpu_memset;

		gpu_work(p, ev, s->device, s->stream, s->start, s->end, memset_name(p, s->bytes),
		         false, s->correlation_id);
		break;
	}
	case CT_EV_GPU_MEMORY_POOL: {
		const struct ct_ev_gpu_memory_pool *m = &ev->u.gpu_memory_pool;

		pool_reserved(p, ev, m->device, m->address, m->size, m->timestamp);
		break;
	}
	case CT_EV_GPU_MEMORY: {
		const struct ct_ev_gpu_memory *m = &ev->u.gpu_memory;

		if (m->pool_address)
			pool_reserved(p, ev, m->device, m->pool_address, m->pool_size,
			              m->timestamp);
		break;
	}
	default:
		break;
	}
}

/* ------------------------------------------------------------ the live-memory counters */

/* Live bytes of DEV changed: the counters whose value is new, set at once. */
static void hook_changed(void *data, struct ct_acct_device *dev, void *own,
                         const struct ct_event *ev)
{
	struct ct_perfetto *p = data;
	struct pf_device *d = own;
	uint64_t tracks[1 + CT_ACCT_KINDS];
	int64_t values[1 + CT_ACCT_KINDS];
	size_t n = 0;

	if (!p->w)
		return;
	if (!d->shown || d->on_device != dev->on_device) {
		tracks[n] = memory_track(p, dev->process, dev->device, 0);
		values[n++] = dev->on_device;
	}
	for (unsigned k = 0; k < CT_ACCT_KINDS; k++)
		if (d->live[k] != dev->live[k] || (!d->shown && dev->live[k])) {
			tracks[n] = memory_track(p, dev->process, dev->device, k + 1);
			values[n++] = dev->live[k];
		}
	ct_pf_counters(p->w, ev->time_ns, n, tracks, values);
	d->shown = true;
	d->on_device = dev->on_device;
	memcpy(d->live, dev->live, sizeof(d->live));
}

static const struct ct_acct_hooks hooks = {
	.device_size = sizeof(struct pf_device),
	.changed = hook_changed,
};

/* ------------------------------------------------------------ the class */

struct ct_perfetto *ct_perfetto_create(struct ct_context *ctx, const struct ct_options *opts,
                                       FILE *out)
{
	struct ct_perfetto *p = g_new0(struct ct_perfetto, 1);

	(void)opts;
	p->ctx = ctx;
	p->w = ct_pf_writer_create(out);
	p->sub = ct_acct_subscribe(ct_context_accounting(ctx), NULL, &hooks, p);
	return p;
}

static void perfetto_event(void *state, const struct ct_event *ev)
{
	struct ct_perfetto *p = state;
	/* NVTX calls are shown as the ranges and marks they make */
	bool call = ev->has_call && ev->call.domain != CT_DOMAIN_NVTX;

	if (ev->before_window || !p->w)
		return;
	if (ct_event_type_group(ev->type) == CT_GROUP_GPU) {
		gpu_event(p, ev);
		return;
	}
	if (call)
		api_call_begin(p, ev);
	host_event(p, ev);
	if (call)
		api_call_end(p, ev);
}

/* What LTTng discarded: an instant where the loss began, on a track of its own. */
static void lttng_losses(struct ct_perfetto *p)
{
	const struct ct_losses *loss = ct_context_losses(p->ctx);
	uint64_t id;

	if (!loss->events && !loss->packets)
		return;
	id = ct_pf_track(p->w, &(struct ct_pf_track){ .key = ct_pf_uuid(TRACK_LOSSES, 0, 0, 0),
	                                              .name = "LTTng losses" });
	snprintf(p->name, sizeof(p->name),
	         "LTTng discarded %" PRIu64 " events and %" PRIu64
	         " packets from here on: slices and counters may be missing",
	         loss->events, loss->packets);
	put(p, CT_PF_INSTANT, loss->first_ns == INT64_MIN ? 0 : loss->first_ns, id, p->name);
}

static enum ct_analysis_status perfetto_finish(void *state, int64_t end_ns)
{
	struct ct_perfetto *p = state;

	if (p->w)
		lttng_losses(p);
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status perfetto_result(void *state, const void **result)
{
	*result = state;
	return CT_ANALYSIS_OK;
}

/* The process called PID, NULL if the trace has none. */
static struct ct_process *process_of(struct ct_context *ctx, int64_t pid)
{
	for (size_t i = 0; i < ct_context_process_count(ctx); i++)
		if (ct_context_process_at(ctx, i)->pid == pid)
			return ct_context_process_at(ctx, i);
	return NULL;
}

void ct_perfetto_failures(struct ct_perfetto *p, const struct ct_fragmentation_result *frag)
{
	if (!frag || !frag->failures || !p->w)
		return;
	for (guint i = 0; i < frag->failures->len; i++) {
		const struct ct_frag_failure *f =
		    &g_array_index(frag->failures, struct ct_frag_failure, i);
		struct ct_process *process = process_of(p->ctx, f->pid);

		if (!process)
			continue;
		snprintf(p->name, sizeof(p->name),
		         "%s failed: %" PRIu64 " bytes of %s on GPU %u: %s",
		         f->api ? f->api : "allocation", f->requested_bytes,
		         ct_mem_kind_label(f->kind), f->device, f->verdict);
		put(p, CT_PF_INSTANT, f->time_ns, process_track(p, process), p->name);
	}
}

int ct_perfetto_close(struct ct_perfetto *p)
{
	int ret = ct_pf_writer_close(p->w);

	p->w = NULL;
	return ret;
}

static void perfetto_destroy(void *state)
{
	struct ct_perfetto *p = state;

	if (!p)
		return;
	ct_pf_writer_close(p->w);
	ct_acct_unsubscribe(p->sub);
	g_free(p);
}

const struct ct_analysis_class ct_perfetto_export = {
	.name = "perfetto",
	.wants = CT_ACCT_EVENTS | CT_API_CALLS_EVENTS | CT_EV_BIT(CT_EV_NVTX_PUSH) |
	         CT_EV_BIT(CT_EV_NVTX_POP) | CT_EV_BIT(CT_EV_NVTX_MARK) |
	         CT_EV_BIT(CT_EV_NVTX_RANGE_START) | CT_EV_BIT(CT_EV_NVTX_RANGE_END) |
	         CT_EV_BIT(CT_EV_LAUNCH) | CT_EV_BIT(CT_EV_MEMCPY) | CT_EV_BIT(CT_EV_MEMSET) |
	         CT_EV_BIT(CT_EV_GPU_KERNEL) | CT_EV_BIT(CT_EV_GPU_MEMCPY) |
	         CT_EV_BIT(CT_EV_GPU_MEMSET) | CT_EV_BIT(CT_EV_GPU_MEMORY) |
	         CT_EV_BIT(CT_EV_GPU_MEMORY_POOL) | CT_EV_BIT(CT_EV_ACTIVITY_DROPPED) |
	         CT_EV_BIT(CT_EV_CELL_BEGIN) | CT_EV_BIT(CT_EV_CELL_END) |
	         CT_EV_BIT(CT_EV_FRAMEWORK_MEMORY) | CT_EV_BIT(CT_EV_FRAMEWORK_OOM) |
	         CT_EV_BIT(CT_EV_PYTHON_EXCEPTION) | CT_EV_BIT(CT_EV_PYTHON_EXIT),
	.uses = CT_SHARED_API_CALLS | CT_SHARED_ACCOUNTING,
	.event = perfetto_event,
	.finish = perfetto_finish,
	.result = perfetto_result,
	.destroy = perfetto_destroy,
};
