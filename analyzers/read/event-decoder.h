/* SPDX-License-Identifier: MIT */
/*
 * event-decoder.h - cudatrace's events read out of babeltrace2's. The
 * first event of each event class resolves the class against the event
 * contract (event-schema.h): its type, the member index and read mode of
 * each field it must have, the common context's vpid, vtid and procname,
 * its clock's frequency and its trace's hostname. Every event of the
 * class is then decoded into a struct ct_event by index alone, its
 * process and thread found in the context.
 */
#ifndef CUDATRACE_ANALYZERS_EVENT_DECODER_H
#define CUDATRACE_ANALYZERS_EVENT_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "model/context.h"
#include "common/event-schema.h"
#include "common/event.h"
#include "trace-desc.h"
#include "ust-statedump.h"

/* How a payload member is read. */
enum ct_field_read {
	CT_READ_NONE,     /* missing (an optional field): it stays 0 */
	CT_READ_UNSIGNED, /* an unsigned integer */
	CT_READ_SIGNED,   /* a signed integer */
	CT_READ_STRING,   /* a string, borrowed */
	CT_READ_ARRAY,    /* a static array of unsigned integers */
	CT_READ_SEQ,      /* a dynamic array of unsigned integers */
	CT_READ_COLUMN,   /* the same, a batch's column: left to gpu-batches.h */
};

/* What the first event of a class taught: how to decode the others. */
struct ct_event_class_info {
	const bt_trace_class *trace_class; /* borrowed: its trace class */
	enum ct_event_type type;           /* CT_EV_NONE: not ours */
	/* Not ours, but read: one of lttng-ust's statedump events (or NONE). */
	enum ct_ust_statedump ust_statedump;
	bool decode; /* its payload is wanted (else it is only counted) */
	/* Of the types a record of a batch (gpu_batch) stands for, those
	 * whose payload is wanted (CT_EV_BIT): the others are not read. */
	ct_ev_set batch_decode;
	uint8_t field_count;
	uint8_t seq_fields;            /* members read as CT_READ_SEQ */
	uint64_t index[CT_FIELDS_MAX]; /* payload member index of each field spec */
	uint8_t read[CT_FIELDS_MAX];   /* enum ct_field_read */
	/* Payload member index of each text field's length (_NAME_length), -1 if none. */
	int64_t length_index[CT_FIELDS_MAX];
	/* Common context members, -1 if absent. */
	int64_t vpid_index, vtid_index, procname_index;
	bool vpid_signed, vtid_signed;
	uint64_t frequency;   /* of the stream class's default clock, 0 if none */
	const char *hostname; /* from the trace's environment, borrowed from it */
	/* Its trace and clock as plain data, for the decoded events (class-cache.h). */
	const struct ct_trace_desc *trace;
};

/*
 * Resolves INFO from EVENT, the first of its class; DECODED is the set of
 * types (CT_EV_BIT) whose payload is wanted. Returns 0, or -1 with the
 * reason in ERROR (LEN bytes) when a field the contract needs is missing
 * or of another type: the trace was recorded by a cudatrace this reader
 * does not know. A class that is not cudatrace's, or a cudatrace event
 * newer than the reader, resolves to CT_EV_NONE.
 */
int ct_event_class_resolve(struct ct_event_class_info *info, const bt_event *event,
                           ct_ev_set decoded, char *error, size_t len);

/*
 * Where an event comes from, as its common context says: read where
 * babeltrace2 decodes (ct_decoder_origin), turned into a process and a
 * thread where the analyses run (ct_origins_process, ct_origins_thread).
 */
struct ct_event_origin {
	/* vpid or hostname differ from the previous event's: the members below are set */
	bool changed;
	bool no_vpid; /* the trace has no vpid context */
	int64_t vpid;
	/*
	 * 0 when the event has no vtid context (the GPU channel of cudatrace
	 * record, CUPTI's activity records): the event is its process's, on
	 * the process's pseudo-thread 0, a thread id no real thread has.
	 */
	int64_t vtid;
	const char *hostname; /* NULL: none */
	const char *procname; /* NULL: none */
};

/* The decoding state of a pass: the last origin seen, the last time. */
struct ct_decoder {
	bool has_origin;
	int64_t last_vpid;
	const char *last_hostname; /* borrowed from the trace */
	int64_t last_time;
};

void ct_decoder_init(struct ct_decoder *decoder);

/*
 * The time of MSG's event as the GPU fields count it, in ns: the clock's
 * own value (CLOCK_MONOTONIC for LTTng), not ns from its origin. An event
 * without a clock, or out of range, gets the previous event's time.
 */
int64_t ct_decoder_time(struct ct_decoder *decoder, const struct ct_event_class_info *info,
                        const bt_message *msg);

/*
 * CYCLES of a clock of FREQUENCY Hz in ns, computed without overflow;
 * INT64_MIN when the frequency is 0 or the result beyond INT64_MAX.
 */
int64_t ct_clock_ns(uint64_t cycles, uint64_t frequency);

/*
 * The origin of an event with common context CONTEXT into ORIGIN; its
 * hostname and procname are set only when they changed, copied into
 * STRINGS (borrowed from the event without STRINGS). The vtid is read
 * only when WITH_THREAD.
 */
void ct_decoder_origin(struct ct_decoder *decoder, const struct ct_event_class_info *info,
                       const bt_field *context, bool with_thread, GStringChunk *strings,
                       struct ct_event_origin *origin);

/*
 * Stores EVENT's payload fields into EV (whose other members are the
 * caller's), its strings copied into STRINGS (borrowed from EVENT without
 * STRINGS), the elements of its sequences (at most CT_STACK_FRAMES_MAX
 * each) into SEQ, which has ROOM elements: a sequence that does not fit,
 * or any without SEQ, is left empty. Returns the elements of SEQ used.
 */
size_t ct_decoder_payload(const struct ct_event_class_info *info, const bt_event *event,
                          struct ct_event *ev, GStringChunk *strings, uint64_t *seq, size_t room);

/* The vpid of an event with common context CONTEXT, 0 when the trace has none. */
int64_t ct_decoder_vpid(const struct ct_event_class_info *info, const bt_field *context);

/* The reading state of a pass: the last process and thread, for runs of one thread. */
struct ct_origins {
	struct ct_context *ctx; /* borrowed */
	/*
	 * The process of each lane's last record, by lane (the group of stream
	 * files it was decoded in, decode-merge.h): a decoder says whether an
	 * event's origin changed since the previous event it decoded, and the
	 * lanes' records interleave. Owned; NULL until a lane is seen.
	 */
	GPtrArray *last_process;
	struct ct_thread *last_thread;
	int64_t last_vtid;
	bool no_vpid_warned;
};

void ct_origins_init(struct ct_origins *origins, struct ct_context *ctx);
void ct_origins_clear(struct ct_origins *origins);

/* The process of an event from ORIGIN, decoded in LANE, created on first sight. */
struct ct_process *ct_origins_process(struct ct_origins *origins,
                                      const struct ct_event_origin *origin, uint32_t lane);

/* Its thread in PROCESS. */
struct ct_thread *ct_origins_thread(struct ct_origins *origins,
                                    const struct ct_event_origin *origin,
                                    struct ct_process *process);

#endif
