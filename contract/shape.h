/* SPDX-License-Identifier: MIT */
/*
 * shape.h - the shape of a host event: a 64-bit id of what its payload
 * says besides the call that made it (its correlation_id and entry), the
 * same for two events that say the same. A repeat names the event it
 * repeats by its shape (events.def, doc/events.md "repeat"): the tracer
 * computes it from the payload it writes, a reader from the payload it
 * decoded, with these functions.
 *
 * ct_shape_<layout>(e): h starts at CT_SHAPE_SEED, and each integer field
 * of the layout in its order, the call's correlation_id and entry left
 * out, as a 64-bit two's complement value v, makes h = ct_mix64(h ^ v);
 * a shape of 0 is 1. A field added later (need LATE, events.def) takes
 * part only when it is not 0: a trace written before it has the shapes
 * it always had. Text, sequences and arrays are not part of it: the
 * events that repeat have none.
 *
 * A thread's last whole events of the kinds that repeat are kept in
 * CT_REPEAT_SLOTS slots, CT_REPEAT_SETS sets of CT_REPEAT_WAYS, a shape's
 * set being its low bits: the tracer keeps the shapes it may repeat
 * there, a reader the events a repeat may stand for. A whole event takes
 * the way of its set that holds its shape, else an empty way, else the
 * way its set's last whole event did not take (ct_repeat_way): both sides
 * see the same whole events in the same order, so the slots stay the same
 * on both sides, and a repeat whose set does not hold its shape (its
 * event was lost) is seen as such.
 * Two ways, so that the two shapes of a loop (an upload and a download)
 * whose low bits meet still repeat.
 */
#ifndef CUDATRACE_CONTRACT_SHAPE_H
#define CUDATRACE_CONTRACT_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "mix64.h"

/* Slots a thread keeps: a training step launches hundreds of kernels of
 * fixed configurations; powers of two. */
#define CT_REPEAT_WAYS  2u
#define CT_REPEAT_SETS  1024u
#define CT_REPEAT_SLOTS (CT_REPEAT_SETS * CT_REPEAT_WAYS)
_Static_assert((CT_REPEAT_SETS & (CT_REPEAT_SETS - 1)) == 0, "a power of two");

#define CT_SHAPE_SEED 0x7265706561747321ULL

/* The first of the CT_REPEAT_WAYS slots of SHAPE's set. */
static inline unsigned ct_repeat_set_slot(uint64_t shape)
{
	return (unsigned)(shape & (CT_REPEAT_SETS - 1)) * CT_REPEAT_WAYS;
}

/*
 * The way of a set, its two ways holding shapes SHAPE0 and SHAPE1 (0:
 * empty), that holds SHAPE; CT_REPEAT_WAYS: neither.
 */
static inline unsigned ct_repeat_way_holding(uint64_t shape, uint64_t shape0, uint64_t shape1)
{
	_Static_assert(CT_REPEAT_WAYS == 2, "two ways");
	return shape0 == shape ? 0 : shape1 == shape ? 1 : CT_REPEAT_WAYS;
}

/*
 * The way of a set that a whole event of SHAPE takes, its two ways
 * holding shapes SHAPE0 and SHAPE1 (0: empty) and LAST the way the set's
 * last whole event took: the one that holds SHAPE, else an empty one,
 * else the other one than LAST, the older of the two.
 */
static inline unsigned ct_repeat_way(uint64_t shape, uint64_t shape0, uint64_t shape1,
                                     unsigned last)
{
	unsigned held = ct_repeat_way_holding(shape, shape0, shape1);

	if (held < CT_REPEAT_WAYS)
		return held;
	if (!shape0 || !shape1)
		return shape0 ? 1 : 0;
	return last ? 0 : 1;
}

static inline uint64_t ct_shape_mix(uint64_t h, uint64_t v)
{
	return ct_mix64(h ^ v);
}

/* A call reference's part of a shape: which call, not which instance. */
static inline uint64_t ct_shape_call(uint64_t h, const struct ct_api_ref *api)
{
	return ct_shape_mix(ct_shape_mix(h, api->domain), api->cbid);
}

/* A field's part of a shape, by its need. */
#define CT_SHAPE_REQ(h, v)  ct_shape_mix((h), (v))
#define CT_SHAPE_OPT(h, v)  ct_shape_mix((h), (v))
#define CT_SHAPE_LATE(h, v) ((v) ? ct_shape_mix((h), (v)) : (h))

/* clang-format off */
#define CT_FIELD(type, name, need)      h = CT_SHAPE_##need(h, (uint64_t)e->name);
#define CT_ENUM_FIELD(enum, name, need) h = ct_shape_mix(h, e->name);
#define CT_MEMBER(ctype, member)        h = ct_shape_call(h, &e->member);
#define CT_LAYOUT(name, fields)                                                  \
	static inline uint64_t ct_shape_##name(const struct ct_ev_##name *e)     \
	{                                                                        \
		uint64_t h = CT_SHAPE_SEED;                                      \
		(void)e;                                                         \
		fields                                                           \
		return h ? h : 1;                                                \
	}
/* clang-format on */
#include "events.def"

/*
 * ct_same_shape_<layout>(a, b): whether A and B have one shape, field by
 * field (the call's correlation_id and entry left out, as in the shape):
 * a few comparisons where the shape is a mix of every field, for a loop
 * whose calls say the same each time.
 */
/* clang-format off */
#define CT_FIELD(type, name, need)      && a->name == b->name
#define CT_ENUM_FIELD(enum, name, need) && a->name == b->name
#define CT_MEMBER(ctype, member)        \
	&& a->member.domain == b->member.domain && a->member.cbid == b->member.cbid
#define CT_LAYOUT(name, fields)                                                    \
	static inline bool ct_same_shape_##name(const struct ct_ev_##name *a,      \
	                                        const struct ct_ev_##name *b)      \
	{                                                                          \
		(void)a;                                                           \
		(void)b;                                                           \
		return true fields;                                                \
	}
/* clang-format on */
#include "events.def"

/*
 * The kinds a repeat_moved stands for (events.def): a loop's copy or
 * memset on the slices of a buffer says what the last one said but for
 * its addresses and size. ct_move_<layout>(e, m) gives E those of M (a
 * memset's address is dst: it has no src); ct_moved_<layout>(e) reads
 * them.
 */
struct ct_moved {
	uint64_t src, dst, bytes;
};

static inline void ct_move_memcpy(struct ct_ev_memcpy *e, const struct ct_moved *m)
{
	e->src = m->src;
	e->dst = m->dst;
	e->bytes = m->bytes;
}

static inline struct ct_moved ct_moved_memcpy(const struct ct_ev_memcpy *e)
{
	return (struct ct_moved){ .src = e->src, .dst = e->dst, .bytes = e->bytes };
}

static inline void ct_move_memset(struct ct_ev_memset *e, const struct ct_moved *m)
{
	e->address = m->dst;
	e->bytes = m->bytes;
}

static inline struct ct_moved ct_moved_memset(const struct ct_ev_memset *e)
{
	return (struct ct_moved){ .dst = e->address, .bytes = e->bytes };
}

#endif /* CUDATRACE_CONTRACT_SHAPE_H */
