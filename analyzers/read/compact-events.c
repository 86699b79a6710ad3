/* SPDX-License-Identifier: MIT */
/*
 * compact-events.c - the tracer's compact events made whole (see
 * compact-events.h).
 */
#include <stddef.h>
#include <string.h>

#include <glib.h>

#include "compact-events.h"
#include "contract/assert.h"
#include "model/context.h"
#include "contract/shape.h"
#include "common/corr-map.h"
#include "common/memo.h"
#include "common/saturate.h"

/*
 * A host event whose GPU record is to come (a launch, a memcpy or a
 * memset): what its record takes from it, and nothing else. A loop's
 * records come tens of thousands of calls after their launch, so every
 * find reads an entry that left the cache: one line each (64 bytes with
 * the map's head), where the events themselves took a line and a half.
 */
struct waiting_op {
	struct ct_corr_entry head;
	uint8_t type; /* enum ct_event_type: CT_EV_LAUNCH, CT_EV_MEMCPY or CT_EV_MEMSET */
	/* the analyses were given the host event (ct_compact_events_delivered) */
	bool delivered;
	union {
		struct {
			uint64_t kernel_id;
			uint32_t grid_x, shared_mem, stream;
			uint16_t grid_y, grid_z, block_x, block_y, block_z;
			uint8_t device;
			uint8_t config_known;
			int64_t entry_ns; /* its call's, when delivered */
		} launch;
		struct {
			uint64_t bytes;
			uint32_t stream;
			uint32_t value;   /* a memset's */
			uint64_t note[2]; /* an analysis's (ct_event.note) */
		} copy;
	} u;
};
_Static_assert(sizeof(struct waiting_op) <= 64, "a waiting operation takes one cache line");
_Static_assert(CT_EV_COUNT <= UINT8_MAX, "an event type fits a waiting operation's type");

/* Kernel shapes a process may name; beyond, its shaped records are unmatched. */
#define SHAPES_MAX 65536u

/* What one process's compact records need. */
struct process_ops {
	struct ct_corr_map waiting;  /* of struct waiting_op */
	GHashTable *shapes;          /* shape_id (GUINT_TO_POINTER) -> its kernel_shape (owned) */
	struct ct_memo shapes_found; /* found last: a loop names a few over and over */
};

/* A thread's last whole event of a kind that repeats, in a slot of its
 * shape's set (contract/shape.h). */
struct repeat_slot {
	uint64_t shape; /* 0: empty */
	enum ct_event_type type;
	uint8_t last_way; /* in a set's first slot: the way its last whole event took */
	union {
		struct ct_ev_memcpy memcpy;
		struct ct_ev_memset memset;
		struct ct_ev_launch launch;
		struct ct_ev_launch_unconfigured launch_unconfigured;
	} u;
};

struct ct_compact_events {
	/* by ct_process.index: its struct process_ops, or NULL; owned */
	GPtrArray *processes;
	/* struct ct_thread (borrowed) -> its CT_REPEAT_SLOTS struct repeat_slot (owned) */
	GHashTable *threads;
	/* The operation the last event taken kept waiting, until the next is taken. */
	struct waiting_op *kept;
	/* The note of the last copy or memset record joined (ct_event.note). */
	uint64_t record_note[2];
	const struct ct_thread *last_thread; /* the last looked up, and its slots */
	struct repeat_slot *last_slots;
	uint64_t unmatched;
	uint64_t unresolved;
};

/* The array's free function; it is called on the NULL of a process with no operation too. */
static void process_ops_free(gpointer data)
{
	struct process_ops *ops = data;

	if (!ops)
		return;
	ct_corr_map_release(&ops->waiting);
	g_hash_table_destroy(ops->shapes);
	g_free(ops);
}

struct ct_compact_events *ct_compact_events_create(void)
{
	struct ct_compact_events *ce = g_new0(struct ct_compact_events, 1);

	ce->processes = g_ptr_array_new_with_free_func(process_ops_free);
	ce->threads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	return ce;
}

void ct_compact_events_destroy(struct ct_compact_events *ce)
{
	if (!ce)
		return;
	g_ptr_array_free(ce->processes, TRUE);
	g_hash_table_destroy(ce->threads);
	g_free(ce);
}

/* PROCESS's operations and shapes, made: its first operation or shape. */
static G_GNUC_NO_INLINE struct process_ops *new_ops(struct ct_compact_events *ce,
                                                    const struct ct_process *process)
{
	struct process_ops *ops;

	if (process->index >= ce->processes->len)
		g_ptr_array_set_size(ce->processes, (guint)process->index + 1);
	ops = g_new0(struct process_ops, 1);
	ct_corr_map_init(&ops->waiting, sizeof(struct waiting_op));
	ops->shapes = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	g_ptr_array_index(ce->processes, process->index) = ops;
	return ops;
}

/*
 * PROCESS's operations and shapes; created when CREATE, else NULL if none.
 * Every launch, copy and record asks: the lookup is inlined.
 */
static inline struct process_ops *ops_of(struct ct_compact_events *ce,
                                         const struct ct_process *process, bool create)
{
	struct process_ops *ops = NULL;

	if (G_LIKELY(process->index < ce->processes->len))
		ops = g_ptr_array_index(ce->processes, process->index);
	return ops || !create ? ops : new_ops(ce, process);
}

/* PROCESS's operations waiting for their records; created when CREATE. */
static struct ct_corr_map *waiting_of(struct ct_compact_events *ce,
                                      const struct ct_process *process, bool create)
{
	struct process_ops *ops = ops_of(ce, process, create);

	return ops ? &ops->waiting : NULL;
}

/* A launch (with its configuration or not), or a memcpy: its record may be compact. */
static void keep_op(struct ct_compact_events *ce, const struct ct_event *ev)
{
	struct waiting_op *w;
	uint32_t id;

	id = ev->type == CT_EV_LAUNCH   ? ev->u.launch.api.correlation_id
	     : ev->type == CT_EV_MEMSET ? ev->u.memset.api.correlation_id
	                                : ev->u.memcpy.api.correlation_id;
	w = ct_corr_map_insert(waiting_of(ce, ev->process, true), id, ev->time_ns);
	w->type = (uint8_t)ev->type;
	w->delivered = false;
	ce->kept = w;
	if (ev->type == CT_EV_LAUNCH) {
		const struct ct_ev_launch *l = &ev->u.launch;

		w->u.launch.kernel_id = l->kernel_id;
		w->u.launch.grid_x = l->grid_x;
		w->u.launch.grid_y = l->grid_y;
		w->u.launch.grid_z = l->grid_z;
		w->u.launch.block_x = l->block_x;
		w->u.launch.block_y = l->block_y;
		w->u.launch.block_z = l->block_z;
		w->u.launch.shared_mem = l->shared_mem;
		w->u.launch.stream = l->stream;
		w->u.launch.device = l->device;
		w->u.launch.config_known = l->config_known;
		w->u.launch.entry_ns = CT_NO_ENTRY;
	} else if (ev->type == CT_EV_MEMSET) {
		w->u.copy.bytes = ev->u.memset.bytes;
		w->u.copy.stream = ev->u.memset.stream;
		w->u.copy.value = ev->u.memset.value;
	} else {
		w->u.copy.bytes = ev->u.memcpy.bytes;
		w->u.copy.stream = ev->u.memcpy.stream;
	}
}

/* The operation of TYPE waiting with ID in EV's process, or NULL. */
static struct waiting_op *find_op(struct ct_compact_events *ce, const struct ct_event *ev,
                                  enum ct_event_type type, uint32_t id, struct ct_corr_map **map)
{
	struct waiting_op *w;

	*map = waiting_of(ce, ev->process, false);
	if (!*map || !id || !(w = ct_corr_map_find(*map, id)) || w->type != type)
		return NULL;
	return w;
}

void ct_compact_events_delivered(struct ct_compact_events *ce, struct ct_event *ev)
{
	struct waiting_op *w = ce->kept;

	CT_ASSERT_DBG(ev->type == CT_EV_LAUNCH || ev->type == CT_EV_MEMCPY ||
	              ev->type == CT_EV_MEMSET);
	if (!w)
		return;
	w->delivered = true;
	if (w->type == CT_EV_LAUNCH) {
		w->u.launch.entry_ns = ev->has_call ? ev->call.entry_ns : CT_NO_ENTRY;
		return;
	}
	/* nothing left yet: what no analysis wrote reads as none */
	w->u.copy.note[0] = w->u.copy.note[1] = UINT64_MAX;
	ev->note = w->u.copy.note;
}

/* The GPU record EV is of host operation W: joined to it if it was delivered. */
static void join(struct ct_compact_events *ce, struct ct_event *ev, const struct waiting_op *w)
{
	if (!w->delivered)
		return;
	ev->joined = true;
	if (w->type == CT_EV_LAUNCH) {
		ev->joined_entry_ns = w->u.launch.entry_ns;
		return;
	}
	memcpy(ce->record_note, w->u.copy.note, sizeof(ce->record_note));
	ev->note = ce->record_note;
}

/* A whole record of ID (or RUNTIME_ID): its host event waits no more. */
static void forget_op(struct ct_compact_events *ce, struct ct_event *ev, enum ct_event_type type,
                      uint32_t id, uint32_t runtime_id)
{
	struct ct_corr_map *map;
	struct waiting_op *w = find_op(ce, ev, type, id, &map);

	if (!w)
		w = find_op(ce, ev, type, runtime_id, &map);
	if (!w)
		return;
	join(ce, ev, w);
	ct_corr_map_remove(map, w);
}

/* Times whose host event is not in the trace: counted, not read further. */
static bool unmatched(struct ct_compact_events *ce)
{
	ce->unmatched = ct_sat_add_u64(ce->unmatched, 1);
	return false;
}

/* A gpu_kernel_times made the gpu_kernel it stands for; false if its launch is unknown. */
static bool complete_kernel(struct ct_compact_events *ce, struct ct_event *ev)
{
	const struct ct_ev_gpu_kernel_times times = ev->u.gpu_kernel_times;
	struct ct_corr_map *map;
	struct waiting_op *w = find_op(ce, ev, CT_EV_LAUNCH, times.correlation_id, &map);
	if (!w || !w->u.launch.config_known)
		return unmatched(ce);
	ev->type = CT_EV_GPU_KERNEL;
	ev->u.gpu_kernel = (struct ct_ev_gpu_kernel){
		.start = times.start,
		.end = times.end,
		.correlation_id = times.correlation_id,
		.kernel_id = w->u.launch.kernel_id,
		.device = w->u.launch.device,
		.context = times.context,
		.stream = w->u.launch.stream,
		.grid_x = w->u.launch.grid_x > INT32_MAX ? INT32_MAX : (int32_t)w->u.launch.grid_x,
		.grid_y = w->u.launch.grid_y,
		.grid_z = w->u.launch.grid_z,
		.block_x = w->u.launch.block_x,
		.block_y = w->u.launch.block_y,
		.block_z = w->u.launch.block_z,
		.static_shared_mem = times.static_shared_mem,
		.dynamic_shared_mem = w->u.launch.shared_mem,
		.registers = times.registers,
	};
	join(ce, ev, w);
	ct_corr_map_remove(map, w);
	return true;
}

/* A kernel_shape: kept for the shaped records of its process that name it. */
static void keep_shape(struct ct_compact_events *ce, const struct ct_event *ev)
{
	struct process_ops *ops = ops_of(ce, ev->process, true);
	const struct ct_ev_kernel_shape *shape = &ev->u.kernel_shape;

	if (g_hash_table_contains(ops->shapes, GUINT_TO_POINTER(shape->shape_id)))
		return;
	if (g_hash_table_size(ops->shapes) >= SHAPES_MAX)
		return;
	g_hash_table_insert(ops->shapes, GUINT_TO_POINTER(shape->shape_id),
	                    g_memdup2(shape, sizeof(*shape)));
}

/* The kernel_shape SHAPE_ID of EV's process, NULL if it has none (shapes are never replaced). */
static const struct ct_ev_kernel_shape *shape_of_id(struct ct_compact_events *ce,
                                                    const struct ct_event *ev, uint32_t shape_id)
{
	struct process_ops *ops = ops_of(ce, ev->process, false);
	const struct ct_ev_kernel_shape *shape;

	if (!ops)
		return NULL;
	if ((shape = ct_memo_find(&ops->shapes_found, shape_id)))
		return shape;
	shape = g_hash_table_lookup(ops->shapes, GUINT_TO_POINTER(shape_id));
	ct_memo_keep(&ops->shapes_found, shape_id, (void *)shape);
	return shape;
}

/*
 * A gpu_kernel_shaped made the gpu_kernel it stands for, with the kernel
 * and device of its launch and the configuration of its shape; false if
 * either is unknown.
 */
static bool complete_shaped(struct ct_compact_events *ce, struct ct_event *ev)
{
	const struct ct_ev_gpu_kernel_shaped shaped = ev->u.gpu_kernel_shaped;
	struct ct_corr_map *map;
	struct waiting_op *w = find_op(ce, ev, CT_EV_LAUNCH, shaped.correlation_id, &map);
	const struct ct_ev_kernel_shape *shape = shape_of_id(ce, ev, shaped.shape_id);

	if (!w || !shape)
		return unmatched(ce);
	ev->type = CT_EV_GPU_KERNEL;
	ev->u.gpu_kernel = (struct ct_ev_gpu_kernel){
		.start = shaped.start,
		.end = shaped.end,
		.correlation_id = shaped.correlation_id,
		.kernel_id = w->u.launch.kernel_id,
		.device = w->u.launch.device,
		.context = shaped.context,
		.stream = shape->stream,
		.grid_x = shape->grid_x,
		.grid_y = shape->grid_y,
		.grid_z = shape->grid_z,
		.block_x = shape->block_x,
		.block_y = shape->block_y,
		.block_z = shape->block_z,
		.static_shared_mem = shape->static_shared_mem,
		.dynamic_shared_mem = shape->dynamic_shared_mem,
		.registers = shape->registers,
	};
	join(ce, ev, w);
	ct_corr_map_remove(map, w);
	return true;
}

/*
 * A gpu_memcpy_times made the gpu_memcpy it stands for; false if its
 * memcpy is unknown. Its correlation id is the memcpy's: that of the
 * outermost call, which a whole record of a runtime call's copy has in
 * runtime_correlation_id.
 */
static bool complete_copy(struct ct_compact_events *ce, struct ct_event *ev)
{
	const struct ct_ev_gpu_memcpy_times times = ev->u.gpu_memcpy_times;
	struct ct_corr_map *map;
	struct waiting_op *w = find_op(ce, ev, CT_EV_MEMCPY, times.correlation_id, &map);

	if (!w)
		return unmatched(ce);
	ev->type = CT_EV_GPU_MEMCPY;
	ev->u.gpu_memcpy = (struct ct_ev_gpu_memcpy){
		.start = times.start,
		.end = times.end,
		.correlation_id = times.correlation_id,
		.direction = times.direction,
		.src_kind = times.src_kind,
		.dst_kind = times.dst_kind,
		.bytes = w->u.copy.bytes,
		.device = times.device,
		.src_device = CT_DEVICE_NONE,
		.dst_device = CT_DEVICE_NONE,
		.context = times.context,
		.stream = w->u.copy.stream,
	};
	join(ce, ev, w);
	ct_corr_map_remove(map, w);
	return true;
}

/* A gpu_memset_times made the gpu_memset it stands for; false if its memset is unknown. */
static bool complete_memset(struct ct_compact_events *ce, struct ct_event *ev)
{
	const struct ct_ev_gpu_memset_times times = ev->u.gpu_memset_times;
	struct ct_corr_map *map;
	struct waiting_op *w = find_op(ce, ev, CT_EV_MEMSET, times.correlation_id, &map);

	if (!w)
		return unmatched(ce);
	ev->type = CT_EV_GPU_MEMSET;
	ev->u.gpu_memset = (struct ct_ev_gpu_memset){
		.start = times.start,
		.end = times.end,
		.correlation_id = times.correlation_id,
		.bytes = w->u.copy.bytes,
		.value = w->u.copy.value,
		.memory_kind = 0, /* CUPTI's unknown: the record said it, not the memset */
		.device = times.device,
		.context = times.context,
		.stream = w->u.copy.stream,
	};
	join(ce, ev, w);
	ct_corr_map_remove(map, w);
	return true;
}

/* ------------------------------------------------------------ repeats */

/* THREAD's repeat slots; created when CREATE, else NULL if it has none. */
static struct repeat_slot *slots_of(struct ct_compact_events *ce, const struct ct_thread *thread,
                                    bool create)
{
	struct repeat_slot *slots;

	if (thread == ce->last_thread)
		return ce->last_slots;
	slots = g_hash_table_lookup(ce->threads, thread);
	if (!slots && !create)
		return NULL;
	if (!slots) {
		slots = g_new0(struct repeat_slot, CT_REPEAT_SLOTS);
		g_hash_table_insert(ce->threads, (gpointer)thread, slots);
	}
	ce->last_thread = thread;
	ce->last_slots = slots;
	return slots;
}

/* The kinds of event a repeat stands for: the size of their payload, and
 * where in it their call is; size 0 for the other kinds. */
#define REPEATED(type, layout) \
	[CT_EV_##type] = { sizeof(struct ct_ev_##layout), offsetof(struct ct_ev_##layout, api) }
static const struct {
	size_t size, api;
} repeated[CT_EV_COUNT] = {
	REPEATED(MEMCPY, memcpy),
	REPEATED(MEMSET, memset),
	REPEATED(LAUNCH, launch),
	REPEATED(LAUNCH_UNCONFIGURED, launch_unconfigured),
};

static bool repeats(enum ct_event_type type)
{
	return repeated[type].size != 0;
}

/* The shape of EV, of a kind that repeats. */
static uint64_t shape_of(const struct ct_event *ev)
{
	switch (ev->type) {
	case CT_EV_MEMCPY:
		return ct_shape_memcpy(&ev->u.memcpy);
	case CT_EV_MEMSET:
		return ct_shape_memset(&ev->u.memset);
	case CT_EV_LAUNCH:
		return ct_shape_launch(&ev->u.launch);
	default:
		return ct_shape_launch_unconfigured(&ev->u.launch_unconfigured);
	}
}

/*
 * A whole event of a kind that repeats takes a slot of its shape's set in
 * its thread, the one the tracer's takes (ct_repeat_way).
 */
static void keep_whole(struct ct_compact_events *ce, const struct ct_event *ev)
{
	struct repeat_slot *slots = ev->thread ? slots_of(ce, ev->thread, true) : NULL;
	struct repeat_slot *set, *slot;
	uint64_t shape;

	if (!slots)
		return;
	shape = shape_of(ev);
	set = &slots[ct_repeat_set_slot(shape)];
	set[0].last_way =
	    (uint8_t)ct_repeat_way(shape, set[0].shape, set[1].shape, set[0].last_way);
	slot = &set[set[0].last_way];
	slot->shape = shape;
	slot->type = ev->type;
	memcpy(&slot->u, &ev->u, repeated[ev->type].size);
}

/*
 * The call's entry whose low 32 bits are LOW, the latest at or before
 * TIME_NS (the tracer repeats calls of less than 2^31 ns), or 0 when
 * there is none (a damaged event: an entry before the clock's origin).
 */
static uint64_t entry_from_low(int64_t time_ns, uint32_t low)
{
	uint32_t since = (uint32_t)time_ns - low;

	return time_ns >= 0 && (uint64_t)time_ns > since ? (uint64_t)time_ns - since : 0;
}

/*
 * EV made the event of SHAPE a slot of its set holds in its thread, with
 * the call of CORRELATION_ID whose entry's low bits are ENTRY_LOW. False
 * when no slot of the set holds SHAPE (that event was lost, or is before
 * the trace), or the event has no thread to look in.
 */
static bool take_slot(struct ct_compact_events *ce, struct ct_event *ev, uint64_t shape,
                      uint32_t correlation_id, uint32_t entry_low)
{
	const struct repeat_slot *slots = ev->thread ? slots_of(ce, ev->thread, false) : NULL;
	const struct repeat_slot *set = slots ? &slots[ct_repeat_set_slot(shape)] : NULL;
	const struct repeat_slot *slot;
	uint64_t entry = entry_from_low(ev->time_ns, entry_low);
	struct ct_api_ref *api;
	unsigned way;

	if (!set || !shape || !entry)
		return false;
	way = ct_repeat_way_holding(shape, set[0].shape, set[1].shape);
	if (way == CT_REPEAT_WAYS)
		return false;
	slot = &set[way];
	/* the event's payload, then its own call */
	ev->type = slot->type;
	memcpy(&ev->u, &slot->u, repeated[slot->type].size);
	api = (struct ct_api_ref *)((char *)&ev->u + repeated[slot->type].api);
	api->correlation_id = correlation_id;
	api->entry = entry;
	return true;
}

/* A repeat or repeat_moved that stands for nothing: counted, and not read further. */
static bool unresolved(struct ct_compact_events *ce)
{
	ce->unresolved = ct_sat_add_u64(ce->unresolved, 1);
	return false;
}

/* A repeat made the event it stands for: the one its thread's slot of its
 * shape holds, with its own call. */
static bool expand_repeat(struct ct_compact_events *ce, struct ct_event *ev)
{
	const struct ct_ev_repeat r = ev->u.repeat;

	return take_slot(ce, ev, r.shape, r.correlation_id, r.entry_low) || unresolved(ce);
}

/* Moves EV (of a kind that repeats) to the addresses and size MOVED:
 * false for a kind that has none (a launch). */
static bool move_addresses(struct ct_event *ev, const struct ct_moved *moved)
{
	switch (ev->type) {
	case CT_EV_MEMCPY:
		ct_move_memcpy(&ev->u.memcpy, moved);
		return true;
	case CT_EV_MEMSET:
		ct_move_memset(&ev->u.memset, moved);
		return true;
	default:
		return false;
	}
}

/*
 * A repeat_moved made the event it stands for: the one its thread's slot
 * of its base holds, at its own addresses and size and with its own
 * call. It takes no slot (the tracer's next slice names the same base).
 * Unresolved also when its base is a launch, which has no addresses (a
 * damaged event).
 */
static bool expand_moved(struct ct_compact_events *ce, struct ct_event *ev)
{
	const struct ct_ev_repeat_moved r = ev->u.repeat_moved;
	const struct ct_moved moved = { .src = r.src, .dst = r.dst, .bytes = r.bytes };

	return (take_slot(ce, ev, r.base, r.correlation_id, r.entry_low) &&
	        move_addresses(ev, &moved)) ||
	       unresolved(ce);
}

/* ------------------------------------------------------------ the rest */

/* A launch_unconfigured made the launch it stands for. */
static void widen_launch(struct ct_event *ev)
{
	const struct ct_ev_launch_unconfigured l = ev->u.launch_unconfigured;

	ev->type = CT_EV_LAUNCH;
	ev->u.launch = (struct ct_ev_launch){
		.kernel_id = l.kernel_id,
		.config_known = 0,
		.stream = CT_STREAM_NONE,
		.device = l.device,
		.api = l.api,
	};
}

/* The kinds a repeat stands for (the table's), repeats, and the runs
 * that hold repeats (read as them: repeat-runs.h). */
static ct_ev_set repeating(void)
{
	ct_ev_set types =
	    CT_EV_BIT(CT_EV_REPEAT) | CT_EV_BIT(CT_EV_REPEAT_MOVED) | CT_EV_BIT(CT_EV_REPEAT_RUN);

	for (int t = 0; t < CT_EV_COUNT; t++)
		if (repeats((enum ct_event_type)t))
			types |= CT_EV_BIT(t);
	return types;
}

ct_ev_set ct_compact_events_needed(ct_ev_set types)
{
	ct_ev_set more = 0;

	if (types & CT_EV_BIT(CT_EV_LAUNCH))
		more |= CT_EV_BIT(CT_EV_LAUNCH_UNCONFIGURED);
	/* the times of a kernel or a copy need its host event */
	if (types & CT_EV_BIT(CT_EV_GPU_KERNEL))
		more |= CT_EV_BIT(CT_EV_GPU_KERNEL_TIMES) | CT_EV_BIT(CT_EV_GPU_KERNEL_SHAPED) |
		        CT_EV_BIT(CT_EV_KERNEL_SHAPE) | CT_EV_BIT(CT_EV_GPU_BATCH) |
		        CT_EV_BIT(CT_EV_LAUNCH) | CT_EV_BIT(CT_EV_LAUNCH_UNCONFIGURED);
	if (types & CT_EV_BIT(CT_EV_GPU_MEMCPY))
		more |= CT_EV_BIT(CT_EV_GPU_MEMCPY_TIMES) | CT_EV_BIT(CT_EV_GPU_BATCH) |
		        CT_EV_BIT(CT_EV_MEMCPY);
	if (types & CT_EV_BIT(CT_EV_GPU_MEMSET))
		more |= CT_EV_BIT(CT_EV_GPU_MEMSET_TIMES) | CT_EV_BIT(CT_EV_GPU_BATCH) |
		        CT_EV_BIT(CT_EV_MEMSET);
	/* a repeat may stand for any of its kinds: all are read to know which */
	if ((types | more) & repeating())
		more |= repeating();
	return more;
}

bool ct_compact_events_take(struct ct_compact_events *ce, struct ct_event *ev)
{
	ce->kept = NULL;
	if (ev->type == CT_EV_REPEAT) {
		if (!expand_repeat(ce, ev))
			return false;
	} else if (ev->type == CT_EV_REPEAT_MOVED) {
		if (!expand_moved(ce, ev))
			return false;
	} else if (repeats(ev->type)) {
		keep_whole(ce, ev);
	}
	switch (ev->type) {
	case CT_EV_LAUNCH_UNCONFIGURED:
		widen_launch(ev);
		keep_op(ce, ev);
		return true;
	case CT_EV_KERNEL_SHAPE:
		keep_shape(ce, ev);
		return true;
	case CT_EV_LAUNCH:
	case CT_EV_MEMCPY:
	case CT_EV_MEMSET:
		keep_op(ce, ev);
		return true;
	case CT_EV_GPU_KERNEL:
		forget_op(ce, ev, CT_EV_LAUNCH, ev->u.gpu_kernel.correlation_id, 0);
		return true;
	case CT_EV_GPU_MEMCPY:
		forget_op(ce, ev, CT_EV_MEMCPY, ev->u.gpu_memcpy.correlation_id,
		          ev->u.gpu_memcpy.runtime_correlation_id);
		return true;
	case CT_EV_GPU_KERNEL_TIMES:
		return complete_kernel(ce, ev);
	case CT_EV_GPU_KERNEL_SHAPED:
		return complete_shaped(ce, ev);
	case CT_EV_GPU_MEMCPY_TIMES:
		return complete_copy(ce, ev);
	case CT_EV_GPU_MEMSET:
		forget_op(ce, ev, CT_EV_MEMSET, ev->u.gpu_memset.correlation_id, 0);
		return true;
	case CT_EV_GPU_MEMSET_TIMES:
		return complete_memset(ce, ev);
	default:
		return true;
	}
}

uint64_t ct_compact_events_unmatched(const struct ct_compact_events *ce)
{
	return ce->unmatched;
}

uint64_t ct_compact_events_unresolved(const struct ct_compact_events *ce)
{
	return ce->unresolved;
}
