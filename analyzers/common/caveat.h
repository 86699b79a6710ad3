/* SPDX-License-Identifier: MIT */
/*
 * caveat.h - what the report says of a figure it cannot give exactly
 * (doc/report-schema.md, "Caveats"): the figure, what it is (a lower bound,
 * uncertain, derived, ...) and why; and, once per process and cause, the
 * explanation for people. The memory and fragmentation results carry
 * them; memory-section.c writes them.
 */
#ifndef CUDATRACE_ANALYZERS_CAVEAT_H
#define CUDATRACE_ANALYZERS_CAVEAT_H

#include <stdint.h>

#include <glib.h>

/* What a figure is, when not exact. */
#define CT_CAVEAT_LOWER_BOUND "lower_bound" /* the true value may be higher */
#define CT_CAVEAT_UPPER_BOUND "upper_bound" /* the true value may be lower */
#define CT_CAVEAT_INCOMPLETE  "incomplete"  /* a list that may miss entries */
#define CT_CAVEAT_UNCERTAIN   "uncertain"   /* may be higher or lower */
#define CT_CAVEAT_POSSIBLE    "possible"    /* entries that may not be what the list says */
#define CT_CAVEAT_DERIVED     "derived"     /* computed by a rule, not recorded */
#define CT_CAVEAT_WITHHELD    "withheld"    /* a verdict the figures cannot support */

/* Why. */
/* the trace began after allocations it does not show */
#define CT_CAUSE_BEFORE_WINDOW "allocations_before_window"
/* LTTng discarded events or packets */
#define CT_CAUSE_DISCARDED "events_discarded"
/* CUPTI dropped activity records */
#define CT_CAUSE_DROPPED "records_dropped"
/* a pool's release at synchronisation, which nothing records */
#define CT_CAUSE_RELEASE_AT_SYNC "release_at_sync"

/* calls of several threads overlapped: the trace cannot order what they did */
#define CT_CAUSE_OVERLAPPING_CALLS "overlapping_calls"
/* the process ended while calls were under way: what they did is not known */
#define CT_CAUSE_UNFINISHED_CALLS "unfinished_calls"

/* A figure that is not exact. Strings are static. */
struct ct_caveat {
	const char
	    *figure; /* its key in the object it belongs to: "peak_bytes", "at_peak.live_bytes" */
	const char *caveat; /* CT_CAVEAT_* */
	const char *cause;  /* CT_CAUSE_* */
};

#define CT_NOTE_EVIDENCE_MAX 8

/* Why some figures of a process are not exact, for people, and what shows it. */
struct ct_caveat_note {
	int64_t pid;
	const char *process;     /* belongs to the result */
	const char *cause;       /* CT_CAUSE_* */
	const char *explanation; /* belongs to the result */
	/* What in the trace shows it: "session_start_statedump", "discarded_events", ...; static. */
	const char *evidence[CT_NOTE_EVIDENCE_MAX];
	unsigned evidence_count;
};

/* Adds the evidence CODE (a static string) to NOTE. */
static inline void ct_note_evidence(struct ct_caveat_note *note, const char *code)
{
	if (note && note->evidence_count < CT_NOTE_EVIDENCE_MAX)
		note->evidence[note->evidence_count++] = code;
}

/* Adds (FIGURE, CAVEAT, CAUSE) to LIST, a GArray of struct ct_caveat. */
static inline void ct_caveat_add(GArray *list, const char *figure, const char *caveat,
                                 const char *cause)
{
	struct ct_caveat c = { figure, caveat, cause };

	g_array_append_val(list, c);
}

#endif
