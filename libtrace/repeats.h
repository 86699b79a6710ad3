/* SPDX-License-Identifier: MIT */
/*
 * repeats.h - repeat events: a call whose operation its thread recorded
 * whole a moment before (a loop's copy, memset or launch, the same
 * addresses, sizes, stream and configuration each time) is recorded by a
 * repeat naming that event's shape (contract/shape.h), 30 bytes with its
 * header and contexts instead of 38 to 61 (doc/events.md, "repeat").
 *
 * Each thread keeps the shapes of its last whole events of those kinds in
 * CT_REPEAT_SLOTS slots, as a reader of the trace does: a repeat is
 * written only when the shape's slot holds it, and a reader that finds
 * another shape there knows the event was lost. The slots belong to the
 * thread (struct repeats in its state): no lock, no atomic but one load.
 *
 * A call is written whole rather than repeated when:
 *   - the shape's slot holds another shape, or none;
 *   - its slot's event is a second old or more (a flight recorder's
 *     ring may have overwritten it, or LTTng discarded it: a second of
 *     repeats at most then counts as lost), or older than a session's
 *     start (repeats_announce_again);
 *   - the call took 2^31 ns or more (entry_low then could not be read
 *     back), or its event does not record it (entry 0);
 *   - no session enables repeat, or CUDATRACE_COMPACT=0.
 *
 *	e = ...;                        (the whole event, as always)
 *	REPEAT_OR_WRITE(call, memcpy, &e);
 */
#ifndef CUDATRACE_REPEATS_H
#define CUDATRACE_REPEATS_H

#include <stdbool.h>
#include <stdint.h>

#include "contract/shape.h"

struct api_call;

/* A thread's slots; zeroed: none holds a shape. */
struct repeats {
	struct {
		uint64_t shape;      /* 0: none */
		uint64_t written_ns; /* the entry of the call its whole event recorded */
	} slots[CT_REPEAT_SLOTS];
};

/*
 * Writes a repeat for CALL, whose event has SHAPE and call reference API,
 * when its thread's slot holds that shape (and the rules above allow it):
 * true, nothing else is to be written. False: the caller writes the whole
 * event, then calls repeats_written.
 */
bool repeats_write(struct api_call *call, uint64_t shape, const struct ct_api_ref *api);

/* The whole event of SHAPE was written for CALL: its thread's slot holds it. */
void repeats_written(struct api_call *call, uint64_t shape);

/* A session started: every shape is written whole again before it repeats. */
void repeats_announce_again(void);

/*
 * CALL's event E (a struct ct_ev_EVENT *) as a repeat, or whole, its
 * shape then taking its thread's slot. In a file that includes
 * cudatrace-tp.h.
 */
#define REPEAT_OR_WRITE(call, event, e)                                 \
	do {                                                            \
		uint64_t shape_ = ct_shape_##event(e);                  \
		if (!repeats_write((call), shape_, &(e)->api)) {        \
			lttng_ust_do_tracepoint(cudatrace, event, (e)); \
			repeats_written((call), shape_);                \
		}                                                       \
	} while (0)

#endif /* CUDATRACE_REPEATS_H */
