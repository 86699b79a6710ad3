/* SPDX-License-Identifier: MIT */
/*
 * peak-bounds.c - the highest the live bytes can have been (see
 * peak-bounds.h).
 *
 * The steps are a ring, oldest first. A step (t, v) says that from t to
 * the next step the curve is v. An allocation of s bytes whose call began
 * at e adds s to every step from e on; the step in force at e (the last one
 * before it) is v until e and v + s after: a step (e, v + s) of its own,
 * so that an allocation read later whose call began before e adds to it
 * too (the calls of threads overlap: the later one may have been made
 * first and returned last). Calls are short, so the steps an allocation
 * spans are the last few: the walk goes back from the newest and stops
 * at the first step before e.
 */
#include <glib.h>

#include "contract/assert.h"
#include "common/saturate.h"
#include "peak-bounds.h"

/*
 * Steps kept: enough for the allocations and releases of a few hundred
 * threads during one call of each; a call longer than that is bounded
 * from the folded maximum.
 */
#define PEAK_BOUNDS_STEPS 4096

struct step {
	int64_t time_ns;
	int64_t value;
};

struct ct_peak_bounds {
	struct step steps[PEAK_BOUNDS_STEPS];
	unsigned first; /* index of the oldest step kept */
	unsigned count;
	/* The highest value before the oldest step kept (0 at first). */
	int64_t folded;
	int64_t high;
};

struct ct_peak_bounds *ct_peak_bounds_new(void)
{
	return g_new0(struct ct_peak_bounds, 1);
}

void ct_peak_bounds_free(struct ct_peak_bounds *b)
{
	g_free(b);
}

static struct step *step_at(struct ct_peak_bounds *b, unsigned i)
{
	return &b->steps[(b->first + i) % PEAK_BOUNDS_STEPS];
}

static void consider(struct ct_peak_bounds *b, int64_t value)
{
	if (value > b->high)
		b->high = value;
}

/* The oldest step kept goes into the folded maximum: room for one more. */
static void fold_oldest(struct ct_peak_bounds *b)
{
	const struct step *s = step_at(b, 0);

	if (s->value > b->folded)
		b->folded = s->value;
	b->first = (b->first + 1) % PEAK_BOUNDS_STEPS;
	b->count--;
}

/* A step (TIME_NS, VALUE) before step I, which it precedes in time, and after step I - 1. */
static void insert_step(struct ct_peak_bounds *b, unsigned i, int64_t time_ns, int64_t value)
{
	if (b->count == PEAK_BOUNDS_STEPS) {
		fold_oldest(b);
		i--;
	}
	for (unsigned j = b->count; j > i; j--)
		*step_at(b, j) = *step_at(b, j - 1);
	*step_at(b, i) = (struct step){ time_ns, value };
	b->count++;
}

void ct_peak_bounds_early(struct ct_peak_bounds *b, int64_t entry_ns, int64_t bytes)
{
	unsigned i = b->count;
	int64_t value;

	if (bytes <= 0)
		return;
	while (i > 0 && step_at(b, i - 1)->time_ns >= entry_ns) {
		struct step *s = step_at(b, i - 1);

		s->value = ct_sat_add(s->value, bytes);
		consider(b, s->value);
		i--;
	}
	if (i == 0) {
		/* began before every step kept: as high as any moment folded, and higher */
		b->folded = ct_sat_add(b->folded, bytes);
		consider(b, b->folded);
		return;
	}
	/* the steps from I on begin at or after the entry (the walk took them) */
	if (i < b->count && step_at(b, i)->time_ns == entry_ns)
		return;
	value = ct_sat_add(step_at(b, i - 1)->value, bytes);
	consider(b, value);
	insert_step(b, i, entry_ns, value);
}

void ct_peak_bounds_step(struct ct_peak_bounds *b, int64_t time_ns, int64_t live)
{
	CT_ASSERT_DBG(!b->count || step_at(b, b->count - 1)->time_ns <= time_ns);
	consider(b, live);
	insert_step(b, b->count, time_ns, live);
}

void ct_peak_bounds_raise(struct ct_peak_bounds *b, int64_t bytes)
{
	for (unsigned i = 0; i < b->count; i++)
		step_at(b, i)->value = ct_sat_add(step_at(b, i)->value, bytes);
	b->folded = ct_sat_add(b->folded, bytes);
	b->high = ct_sat_add(b->high, bytes);
}

int64_t ct_peak_bounds_high(const struct ct_peak_bounds *b)
{
	return b->high;
}
