/* SPDX-License-Identifier: MIT */
/*
 * perfetto-writer.h - writes a Perfetto trace (Perfetto's protobuf Trace
 * of TracePackets, perfetto-trace.proto) one packet at a time: track
 * descriptors, slices, instants, counter values and flows, on one packet
 * sequence whose event names are interned, and whose timestamps are said
 * to be CLOCK_MONOTONIC's before the first of them.
 *
 *	w = ct_pf_writer_create(out);
 *	id = ct_pf_track(w, &(struct ct_pf_track){ .key = k, .name = "stream 7" });
 *	ct_pf_event(w, &(struct ct_pf_event){ .type = CT_PF_BEGIN, .time_ns = t,
 *	                                      .track = id, .name = "kernel" });
 *	ct_pf_writer_close(w);       (0, or -1 when a write failed: errno)
 *
 * Each packet is packed as it is made (a Trace's packet field: tag,
 * length, bytes; protobuf-c packs its interned data and track descriptor,
 * the writer its track event and framing, as protobuf-c would) into a
 * block of a few hundred kilobytes that goes to the file when full, and
 * at close; so memory does not grow with the trace:
 * the state is that block, the tracks described (a key and an id each)
 * and the interned names, of which at most CT_PF_INTERN_MAX are kept
 * (names beyond are written in full).
 */
#ifndef CUDATRACE_ANALYZERS_PERFETTO_WRITER_H
#define CUDATRACE_ANALYZERS_PERFETTO_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Distinct event names interned; later ones are written in full each time. */
#define CT_PF_INTERN_MAX 65536u

struct ct_pf_writer;

/* A track; a field left 0 or NULL is not written. */
struct ct_pf_track {
	uint64_t key;    /* what the caller knows it by (ct_pf_uuid), never 0 */
	uint64_t parent; /* parent track's id (ct_pf_track), 0: none */
	const char *name;
	/* A process track (pid set, tid 0) or a thread track (both set). */
	bool has_pid;
	int32_t pid;
	int32_t tid;
	bool counter; /* a counter track, in bytes */
};

enum ct_pf_type {
	CT_PF_BEGIN = 1, /* Perfetto's TrackEvent.Type values */
	CT_PF_END = 2,
	CT_PF_INSTANT = 3,
	CT_PF_COUNTER = 4,
};

/* One track event; flow ids of 0 are not written. */
struct ct_pf_event {
	enum ct_pf_type type;
	int64_t time_ns;
	uint64_t track;   /* its id (ct_pf_track) */
	const char *name; /* BEGIN and INSTANT */
	/*
	 * NAME's text stays as it is at that address while the writer lives
	 * (a context's names: context.h), so that an address seen before is
	 * that name again; else (a buffer written again) its text is compared.
	 */
	bool name_lasts;
	int64_t value;             /* COUNTER */
	uint64_t flow;             /* a flow going on from this event */
	uint64_t terminating_flow; /* a flow that ends at this event */
};

/* A writer to OUT (borrowed, opened for writing), NULL when out of memory. */
struct ct_pf_writer *ct_pf_writer_create(FILE *out);
/* Flushes OUT and frees the writer: 0, or -1 when a write failed (errno says why). */
int ct_pf_writer_close(struct ct_pf_writer *w);

/*
 * Describes TRACK once per key, and returns its id, the uuid it has in the
 * file: small numbers in the order tracks are described, so that the
 * track of each event takes a byte or two (a 64-bit hash would take ten).
 * Later calls for the same key write nothing and return the same id.
 */
uint64_t ct_pf_track(struct ct_pf_writer *w, const struct ct_pf_track *track);
/* The id of the track described for KEY, 0 if none is (to skip making its name again). */
uint64_t ct_pf_track_id(struct ct_pf_writer *w, uint64_t key);
/* Writes EV, on a track described before. */
void ct_pf_event(struct ct_pf_writer *w, const struct ct_pf_event *ev);
/*
 * Sets N counters (track ids TRACKS, described before) to VALUES at
 * TIME_NS, in as few packets as Perfetto reads right: usually one, whose
 * counter event carries the others as its extra counter values.
 */
void ct_pf_counters(struct ct_pf_writer *w, int64_t time_ns, size_t n, const uint64_t *tracks,
                    const int64_t *values);

/* A track key for KIND and up to three numbers, the same for the same inputs, never 0. */
uint64_t ct_pf_uuid(unsigned kind, uint64_t a, uint64_t b, uint64_t c);

/* Packets written so far. */
uint64_t ct_pf_packets(const struct ct_pf_writer *w);

#endif
