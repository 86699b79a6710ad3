/* SPDX-License-Identifier: MIT */
/*
 * peak-bounds.c - the highest the live bytes can have been (see
 * peak-bounds.h).
 *
 * The steps are a ring, oldest first. A step (t, v) says that from t to
 * the next step the curve is v. An allocation of s bytes whose call began
 * at e adds s to every step from e on; the step in force at e (the last one
 * before it) is v until e and v + s after, so v + s is a value of the
 * curve too. Calls are short, so the steps an allocation spans are the
 * last few: the walk goes back from the newest and stops at the first
 * step before e.
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

void ct_peak_bounds_early(struct ct_peak_bounds *b, int64_t entry_ns, int64_t bytes)
{
	unsigned i = b->count;

	if (bytes <= 0)
		return;
	while (i > 0 && step_at(b, i - 1)->time_ns >= entry_ns) {
		struct step *s = step_at(b, i - 1);

		s->value = ct_sat_add(s->value, bytes);
		consider(b, s->value);
		i--;
	}
	if (i > 0) {
		consider(b, ct_sat_add(step_at(b, i - 1)->value, bytes));
		return;
	}
	/* began before every step kept: as high as any moment folded, and higher */
	b->folded = ct_sat_add(b->folded, bytes);
	consider(b, b->folded);
}

void ct_peak_bounds_step(struct ct_peak_bounds *b, int64_t time_ns, int64_t live)
{
	struct step *s;

	CT_ASSERT_DBG(!b->count || step_at(b, b->count - 1)->time_ns <= time_ns);
	consider(b, live);
	if (b->count == PEAK_BOUNDS_STEPS) {
		s = step_at(b, 0);
		if (s->value > b->folded)
			b->folded = s->value;
		b->first = (b->first + 1) % PEAK_BOUNDS_STEPS;
		b->count--;
	}
	s = step_at(b, b->count++);
	s->time_ns = time_ns;
	s->value = live;
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
