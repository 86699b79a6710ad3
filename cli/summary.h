/* SPDX-License-Identifier: MIT */
/*
 * summary.h - what `cudatrace record` prints after the program ends, and
 * what `cudatrace list` shows per trace: one pass of the analyzers over
 * the trace, cut down to a few lines (peak memory per device, the
 * allocation failures with their verdict, the top transfer hotspots, and
 * what the trace could not tell: allocations made before it, events and
 * records lost), or, when the program was killed, the post-mortem: the
 * state of memory at its last event.
 */
#ifndef CUDATRACE_CLI_SUMMARY_H
#define CUDATRACE_CLI_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The numbers of a trace, for cudatrace.info and `cudatrace list`. */
struct summary_numbers {
	uint64_t events;
	uint64_t discarded;         /* events LTTng discarded, as the trace records them */
	uint64_t discarded_packets; /* and packets */
	uint64_t dropped;           /* activity records CUPTI dropped (activity_dropped) */
	uint64_t peak_bytes;        /* the highest peak of any process and device */
	uint64_t failures;          /* allocation failures */
	int64_t first_ns, last_ns;  /* trace clock; first > last when no event */
	char program[32];           /* procname of the first process */
	int64_t pid;                /* and its pid, -1 if none */
	bool truncated;             /* the trace ends in a cut packet (a killed program) */
};

/* What the trace holds last of the program's CUDA errors and failed allocations. */
struct summary_end {
	char error[64];        /* its first sticky CUDA error's name, "" if none */
	char error_api[128];   /* the call that returned it */
	int64_t error_ns;      /* trace clock */
	uint64_t failed_bytes; /* its last failed allocation's size, 0 if none */
	char verdict[32];      /* and its verdict */
	int64_t failure_ns;
	/* The uncaught Python exception the program died of (python_exception), "" if none. */
	char exception[128];
	char exception_site[256];    /* "train.py:12 in step" */
	char exception_message[256]; /* its first line */
};

/* The trace's analysis, kept between reading and printing. */
struct summary;

/*
 * Reads the traces under DIR; of a flight recorder's snapshots (each a
 * copy of the whole ring buffer), only the newest. Returns NULL after a message when it cannot
 * be read at all (no trace, corrupt metadata); a truncated trace is read
 * up to its last event.
 */
struct summary *summary_read(const char *dir);
void summary_destroy(struct summary *s);

const struct summary_numbers *summary_numbers(const struct summary *s);

/*
 * The trace's last CUDA errors and failures, and the uncaught Python
 * exception process PID died of, for the judgement of the program's end
 * (death.h).
 */
void summary_end_facts(const struct summary *s, int64_t pid, struct summary_end *end);

/*
 * The trace was cut before the program ended (cudatrace.info's
 * complete=false): what it holds last is what was live at the cut, not at
 * the program's end, and the short report says so.
 */
void summary_note_cut(struct summary *s);

struct trace_info;

/*
 * Completes the report with how the program ended, as record judged it
 * (END; NULL when it has no judgement), then the diagnosis, made from
 * every section: the findings lead what the functions below print. Once,
 * before them.
 */
void summary_conclude(struct summary *s, const struct trace_info *end);

/* The short report: peak memory per device, failures, transfer hotspots. */
void summary_print_report(const struct summary *s, FILE *out);

/*
 * The post-mortem of a program killed by SIGNAL: the state of memory at
 * its last event, the failures before it, and what they point to. The
 * diagnosis (the report's first page, which leads with record's judgement
 * of its end), the failure count and the caveats are in it unless
 * PAGE_SHOWN says the report was just printed on the same output, by
 * summary_print_report.
 */
void summary_print_postmortem(const struct summary *s, int signal, bool page_shown, FILE *out);

#endif
