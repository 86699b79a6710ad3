/* SPDX-License-Identifier: MIT */
/*
 * repeats.h - repeat events: a call whose operation its thread recorded
 * whole a moment before (a loop's copy, memset or launch, the same
 * addresses, sizes, stream and configuration each time) is recorded by a
 * repeat naming that event's shape (contract/shape.h), 30 bytes with its
 * header and contexts instead of 38 to 61 (doc/events.md, "repeat").
 *
 * A copy or memset that says what its thread's last or second-last whole
 * one of its kind said but for its addresses and size (a loop over the
 * slices of a buffer) is recorded by a repeat_moved naming that one's
 * shape with its own addresses and size (doc/events.md, "repeat_moved");
 * it takes no slot, and is not kept in the memo, so that the next slice
 * names the same event.
 *
 * Each thread keeps the shapes of its last whole events of those kinds in
 * CT_REPEAT_SLOTS slots, sets of two ways (contract/shape.h), as a reader
 * of the trace does: a repeat is written only when the shape's set holds
 * it, and a reader that does not find it there knows the event was lost.
 * The slots belong to the thread (struct repeats in its state): no lock,
 * no atomic but one load.
 *
 * A thread keeps its repeats and writes them together, as a repeat_run
 * of up to CT_REPEAT_RUN_MAX calls, so that a loop's call costs its
 * fields and not an event's header, contexts and reservation. The run is
 * written before anything else its thread writes (repeats_flush: the
 * callback dispatcher, the Python probe and a whole event call it), when
 * it is full or a second old, when its thread ends, before the activity
 * buffers are read (repeats_flush_others, by the flush thread) and at the
 * process's exit, by the exiting thread for every thread
 * (repeats_flush_all): the trace keeps each thread's events in order. A
 * run another thread writes names its thread (tid). A process killed, or that
 * crashes, loses what its threads' runs held: less than
 * CT_REPEAT_RUN_MAX calls a thread, each a repeat of a call its thread
 * recorded whole in the second before. The operations a run holds are
 * noted as recorded (recorded-ops.h) only once it is written: their GPU
 * records come after it, or are written whole.
 *
 * Whoever adds to a run or writes it marks it busy (one compare-and-swap)
 * and free after; the flush thread and the exit take only a free run, and
 * its thread waits for them (one event's time). The exit closes the runs
 * it takes: their threads write their repeats one by one from then on.
 *
 * A call is written whole rather than repeated when:
 *   - no slot of the shape's set holds it;
 *   - its slot's event is a second old or more (a flight recorder's
 *     ring may have overwritten it, or LTTng discarded it: a second of
 *     repeats at most then counts as lost), or older than a session's
 *     start (repeats_announce_again);
 *   - the call took 2^31 ns or more (entry_low then could not be read
 *     back), or its event does not record it (entry 0);
 *   - no session enables repeat, or CUDATRACE_COMPACT=0.
 *
 *	e = ...;                        (the whole event, as always)
 *	REPEAT_OR_WRITE(call, memcpy, &e, RECORDED_WHOLE);
 */
#ifndef CUDATRACE_REPEATS_H
#define CUDATRACE_REPEATS_H

#include <stdbool.h>
#include <stdint.h>

#include "contract/events.h"
#include "contract/shape.h"
#include "recorded-ops.h"

struct api_call;

/* The repeats of a thread not yet written. */
struct repeat_run {
	uint32_t count;
	uint64_t base; /* when its first call returned, CLOCK_MONOTONIC ns */
	uint64_t shape[CT_REPEAT_RUN_MAX];
	uint32_t correlation_id[CT_REPEAT_RUN_MAX];
	uint32_t exit[CT_REPEAT_RUN_MAX];     /* ns after base */
	uint32_t duration[CT_REPEAT_RUN_MAX]; /* ns from entry to exit */
	uint8_t note[CT_REPEAT_RUN_MAX];      /* enum recorded_op, noted once written */
	/* the calls that moved their event's addresses (repeat_moved): of
	 * each, its index in the run, base, src, dst and bytes */
	uint32_t moved_count; /* calls */
	uint64_t moved[CT_REPEAT_RUN_MOVED_MAX];
};

/* The last two events of each kind that repeats whose shapes its thread
 * computed, with those shapes (0: none): a loop's next call compares its
 * fields rather than mix them all again (two, for loops that alternate,
 * an upload and a download). */
#define SHAPE_MEMO_WAYS 2
struct shape_memo {
	struct ct_ev_memcpy memcpy[SHAPE_MEMO_WAYS];
	struct ct_ev_memset memset[SHAPE_MEMO_WAYS];
	struct ct_ev_launch launch[SHAPE_MEMO_WAYS];
	struct ct_ev_launch_unconfigured launch_unconfigured[SHAPE_MEMO_WAYS];
	uint64_t memcpy_shape[SHAPE_MEMO_WAYS], memset_shape[SHAPE_MEMO_WAYS],
	    launch_shape[SHAPE_MEMO_WAYS], launch_unconfigured_shape[SHAPE_MEMO_WAYS];
	unsigned memcpy_next, memset_next, launch_next, launch_unconfigured_next;
};

/* A thread's slots, run and shapes; zeroed: none holds a shape, nothing is kept. */
struct repeats {
	struct {
		uint64_t shape;      /* 0: none */
		uint64_t written_ns; /* the entry of the call its whole event recorded */
	} slots[CT_REPEAT_SLOTS];
	uint8_t last_way[CT_REPEAT_SETS]; /* of each set, the way its last whole event took */
	int owner;                        /* enum in repeats.c: free, busy (its thread), closed */
	int8_t listed; /* 0 not yet, 1 in the list the exit flushes, -1 never (full) */
	uint32_t tid;
	struct repeat_run run;
	struct shape_memo memo;
};

/* The shape of E (a struct ct_ev_EVENT *) from R's memo, when one of its
 * last events of that kind had the same fields; else 0. */
#define REPEAT_SHAPE_MEMO(r, event, e)                                                   \
	((r)->memo.event##_shape[0] && ct_same_shape_##event(&(r)->memo.event[0], (e))   \
	     ? (r)->memo.event##_shape[0]                                                \
	 : (r)->memo.event##_shape[1] && ct_same_shape_##event(&(r)->memo.event[1], (e)) \
	     ? (r)->memo.event##_shape[1]                                                \
	     : 0)

/* clang-format off */
#define SHAPE_MEMO_KEEP(event)                                                          \
	static inline uint64_t repeat_shape_keep_##event(struct shape_memo *m,          \
	                                                 const struct ct_ev_##event *e) \
	{                                                                               \
		unsigned way = m->event##_next++ % SHAPE_MEMO_WAYS;                     \
                                                                                        \
		m->event[way] = *e;                                                     \
		return m->event##_shape[way] = ct_shape_##event(e);                     \
	}
SHAPE_MEMO_KEEP(memcpy)
SHAPE_MEMO_KEEP(memset)
SHAPE_MEMO_KEEP(launch)
SHAPE_MEMO_KEEP(launch_unconfigured)
#undef SHAPE_MEMO_KEEP

/* The shape of the memo's last event of E's kind that says what E says
 * but for its addresses and size (contract/shape.h, ct_move_<layout>), 0
 * if none: what E's repeat_moved names as its base, and E's addresses and
 * size in *MOVED. Launches have none. */
#define SHAPE_MEMO_BASE(event)                                                               \
	static inline uint64_t repeat_moved_base_##event(const struct shape_memo *m,         \
	                                                 const struct ct_ev_##event *e,      \
	                                                 struct ct_moved *moved)             \
	{                                                                                    \
		/* E at each way's addresses and size: one copy for both ways */             \
		struct ct_ev_##event probe = *e;                                             \
                                                                                             \
		*moved = ct_moved_##event(e);                                                \
		for (unsigned way = 0; way < SHAPE_MEMO_WAYS; way++) {                       \
			struct ct_moved at = ct_moved_##event(&m->event[way]);               \
                                                                                             \
			ct_move_##event(&probe, &at);                                        \
			if (m->event##_shape[way] && ct_same_shape_##event(&probe, &m->event[way])) \
				return m->event##_shape[way];                                \
		}                                                                            \
		return 0;                                                                    \
	}
SHAPE_MEMO_BASE(memcpy)
SHAPE_MEMO_BASE(memset)
#undef SHAPE_MEMO_BASE
#define SHAPE_MEMO_NO_BASE(event)                                                       \
	static inline uint64_t repeat_moved_base_##event(const struct shape_memo *m,    \
	                                                 const struct ct_ev_##event *e, \
	                                                 struct ct_moved *moved)        \
	{                                                                               \
		(void)m;                                                                \
		(void)e;                                                                \
		*moved = (struct ct_moved){ 0 };                                        \
		return 0;                                                               \
	}
SHAPE_MEMO_NO_BASE(launch)
SHAPE_MEMO_NO_BASE(launch_unconfigured)
#undef SHAPE_MEMO_NO_BASE
/* clang-format on */

/*
 * Records a repeat for CALL, whose event has SHAPE and call reference API,
 * when its thread's slot holds that shape (and the rules above allow it):
 * true, nothing else is to be written; its operation is noted as NOTE
 * (RECORDED_NONE: not at all) once the repeat is written. False: the
 * caller writes the whole event (after repeats_flush), then calls
 * repeats_written.
 */
bool repeats_write(struct api_call *call, uint64_t shape, const struct ct_api_ref *api,
                   enum recorded_op note);

/*
 * Records a repeat_moved for CALL, whose event, of call reference API, is
 * the event of shape BASE with the addresses and size MOVED, when its
 * thread's slot holds BASE (and the rules above allow it): true, nothing
 * else is to be written; its operation is noted as NOTE once written. It
 * takes no slot: the next slice names the same base. False: as
 * repeats_write.
 */
bool repeats_write_moved(struct api_call *call, uint64_t base, const struct ct_moved *moved,
                         const struct ct_api_ref *api, enum recorded_op note);

/* Writes the run R holds, if any: before anything else its thread writes. */
void repeats_flush(struct repeats *r);

/* The activity buffers are about to be read: every other thread's run is
 * written (but one its thread is adding to), so that its operations'
 * records can be batched (gpu-batch.h). */
void repeats_flush_others(void);

/* The process exits: every thread's run is written, and closed. */
void repeats_flush_all(void);

/* The whole event of SHAPE was written for CALL: its thread's slot holds it. */
void repeats_written(struct api_call *call, uint64_t shape);

/* A session started: every shape is written whole again before it repeats. */
void repeats_announce_again(void);

/*
 * CALL's event E (a struct ct_ev_EVENT *) as a repeat of one of the
 * memo's last events of its kind, else as a repeat_moved of one that
 * differs from it by its addresses and size only (no shape is computed
 * for it),
 * else as a repeat of its shape, or whole, its shape then taking its
 * thread's slot; its operation noted as NOTE once written
 * (recorded-ops.h). In a file that includes cudatrace-tp.h.
 */
#define REPEAT_OR_WRITE(call, event, e, note)                                                  \
	do {                                                                                   \
		struct repeats *r_ = (call)->repeats;                                          \
		uint64_t shape_ = REPEAT_SHAPE_MEMO(r_, event, e), base_;                      \
		struct ct_moved moved_;                                                        \
		if (!shape_ && (base_ = repeat_moved_base_##event(&r_->memo, (e), &moved_)) && \
		    repeats_write_moved((call), base_, &moved_, &(e)->api, (note)))            \
			break;                                                                 \
		if (!shape_)                                                                   \
			shape_ = repeat_shape_keep_##event(&r_->memo, (e));                    \
		if (repeats_write((call), shape_, &(e)->api, (note)))                          \
			break;                                                                 \
		repeats_flush(r_);                                                             \
		lttng_ust_do_tracepoint(cudatrace, event, (e));                                \
		repeats_written((call), shape_);                                               \
		if ((note) != RECORDED_NONE)                                                   \
			recorded_ops_note((e)->api.correlation_id, (note));                    \
	} while (0)

#endif /* CUDATRACE_REPEATS_H */
