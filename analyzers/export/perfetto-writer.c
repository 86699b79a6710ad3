/* SPDX-License-Identifier: MIT */
/*
 * perfetto-writer.c - Perfetto packets, encoded by the protobuf-c code
 * generated from perfetto-trace.proto, but for the track events and the
 * packets' framing, written here as protobuf-c would (put_packet,
 * track_event; an event's whole packet in place: put_event_packet),
 * packed one after another into a block that is written when full (see
 * perfetto-writer.h).
 *
 * The timestamps are the trace's, CLOCK_MONOTONIC's. A packet that names
 * no clock is read as BOOTTIME's, the clock Perfetto shows a trace in
 * unless told otherwise (https://perfetto.dev/docs/concepts/clock-sync:
 * "If omitted it refers to the default clock domain of the trace
 * (CLOCK_BOOTTIME for Linux/Android)"); so before its first timestamp the
 * file says MONOTONIC twice (put_clock): a ClockSnapshot whose
 * primary_trace_clock is MONOTONIC, the clock the trace is shown in, and
 * the sequence's TracePacketDefaults, whose timestamp_clock_id says the
 * packets' timestamps are MONOTONIC's. Perfetto then converts nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "contract/assert.h"
#include "contract/mix64.h"
#include "common/memo.h"
#include "export/perfetto-trace.pb-c.h"
#include "perfetto-writer.h"

/* Extra counter values a track event may carry: Perfetto's trace processor
 * takes at most 8 (TrackEventData::kMaxNumExtraCounters). */
#define EXTRA_MAX 8u

/* The one packet sequence of the file. */
#define SEQUENCE_ID 1u

/* Field 1 of Trace (repeated TracePacket packet), length-delimited: (1 << 3) | 2. */
#define TRACE_PACKET_TAG 0x0au
/* The longest head of a packet: the tag and a 64-bit varint length. */
#define HEAD_MAX (1 + 10)
/* The longest tag of a field written here (its number below 2^11, tag_of)
 * and a 64-bit varint: a scalar field, or a message's head. */
#define FIELD_HEAD_MAX (2 + 10)
/* Packets are packed into a block this large and written a block at a
 * time: one write of a few hundred kilobytes rather than one fwrite of
 * some forty bytes per packet (their cost showed in perf). */
#define BLOCK_BYTES (256u << 10)

/* The fields of a TracePacket and of a TrackEvent written here, named as
 * in perfetto-trace.proto, in the order of their numbers: the order
 * protobuf-c writes them in, and put_packet and track_event too. */
enum packet_field {
	P_CLOCK_SNAPSHOT,
	P_TIMESTAMP,
	P_SEQUENCE_ID,
	P_TRACK_EVENT,
	P_INTERNED_DATA,
	P_SEQUENCE_FLAGS,
	P_DEFAULTS,
	P_TRACK_DESCRIPTOR,
	PACKET_FIELDS
};
static const char *const packet_fields[PACKET_FIELDS] = {
	"clock_snapshot", "timestamp",      "trusted_packet_sequence_id", "track_event",
	"interned_data",  "sequence_flags", "trace_packet_defaults",      "track_descriptor",
};

enum event_field {
	E_TYPE,
	E_NAME_IID,
	E_TRACK_UUID,
	E_EXTRA_VALUES,
	E_NAME,
	E_COUNTER_VALUE,
	E_EXTRA_TRACKS,
	E_FLOW_IDS,
	E_TERMINATING_FLOW_IDS,
	EVENT_FIELDS
};
static const char *const event_fields[EVENT_FIELDS] = {
	"type",
	"name_iid",
	"track_uuid",
	"extra_counter_values",
	"name",
	"counter_value",
	"extra_counter_track_uuids",
	"flow_ids",
	"terminating_flow_ids",
};

/* The names a loop repeats: its calls', its kernels', and its copies' of a
 * few sizes each way (four sizes up and down and their call are nine). */
#define RECENT_NAMES 16

struct ct_pf_writer {
	FILE *out;          /* borrowed */
	GHashTable *tracks; /* key (uint64, owned) -> id of each track described */
	/* Tracks found last, their ids by key (as in tracks): each event
	 * looks its track up, and a loop's use a few over and over. */
	struct ct_memo tracks_found;
	GHashTable *names; /* interned name (owned) -> iid */
	/* The names found last, the table's keys: most events repeat one of a
	 * few names (a loop's calls and operations), compared here rather
	 * than hashed and looked up. Each keeps the caller's pointer it was
	 * last found by, which the caller passes again for the same name,
	 * mostly: the entry of that pointer is compared first, so a name
	 * takes one comparison, not one per entry before it. */
	struct {
		const char *name;
		const char *seen; /* the caller's NAME it was last found for */
		bool seen_lasts;  /* that NAME lasts (struct ct_pf_event) */
		uint64_t iid;
	} recent[RECENT_NAMES];
	unsigned recent_next; /* the entry to replace next */
	uint8_t *block;       /* packed packets not yet written */
	size_t used, cap;
	uint64_t packets;
	bool started; /* the first packet, which clears the incremental state, is out */
	bool clocked; /* the clock of the timestamps is said (put_clock) */
	uint64_t packet_tags[PACKET_FIELDS]; /* tag_of each, from perfetto-trace.proto */
	uint64_t event_tags[EVENT_FIELDS];
	bool short_tags; /* those put_short_packet writes take a byte each (short_tags_of) */
	/* The last time put_time encoded in full: its bits from TIME_LOW_BITS
	 * up (UINT64_MAX, which no time has, until one is), and the bytes of
	 * its varint after the first TIME_LOW_BYTES (at most 7 of the 10 a
	 * 64-bit varint takes), with their number. */
	uint64_t time_high;
	uint8_t time_tail[8];
	uint8_t time_tail_len;
	uint8_t *te;   /* the track event being written */
	size_t te_cap; /* its bytes */
	int error;     /* errno of the first failed write, 0: none */
};

/* V as a varint at P; returns the byte after it. */
static uint8_t *varint(uint8_t *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (uint8_t)(v | 0x80);
	*p++ = (uint8_t)v;
	return p;
}

/* The tag of MSG's field NAME (its number and wire type), from the generated descriptor. */
static uint64_t tag_of(const ProtobufCMessageDescriptor *msg, const char *name)
{
	const ProtobufCFieldDescriptor *f =
	    protobuf_c_message_descriptor_get_field_by_name(msg, name);
	unsigned wire;

	CT_ASSERT(f && f->id < (1 << 11));
	switch (f->type) {
	case PROTOBUF_C_TYPE_FIXED64:
		wire = PROTOBUF_C_WIRE_TYPE_64BIT;
		break;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		wire = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
		break;
	default: /* the integers and enumerations written here */
		CT_ASSERT(f->type == PROTOBUF_C_TYPE_UINT64 || f->type == PROTOBUF_C_TYPE_UINT32 ||
		          f->type == PROTOBUF_C_TYPE_INT64 || f->type == PROTOBUF_C_TYPE_ENUM);
		wire = PROTOBUF_C_WIRE_TYPE_VARINT;
		break;
	}
	return (uint64_t)f->id << 3 | wire;
}

/* Whether the tags put_short_packet writes as single bytes are below 0x80. */
static bool short_tags_of(const struct ct_pf_writer *w)
{
	return w->packet_tags[P_TIMESTAMP] < 0x80 && w->packet_tags[P_SEQUENCE_ID] < 0x80 &&
	       w->packet_tags[P_TRACK_EVENT] < 0x80 && w->packet_tags[P_SEQUENCE_FLAGS] < 0x80 &&
	       w->event_tags[E_TYPE] < 0x80 && w->event_tags[E_NAME_IID] < 0x80 &&
	       w->event_tags[E_TRACK_UUID] < 0x80;
}

struct ct_pf_writer *ct_pf_writer_create(FILE *out)
{
	struct ct_pf_writer *w = g_new0(struct ct_pf_writer, 1);

	w->out = out;
	w->tracks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	w->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	w->cap = BLOCK_BYTES;
	w->block = g_malloc(w->cap);
	for (size_t i = 0; i < PACKET_FIELDS; i++)
		w->packet_tags[i] =
		    tag_of(&perfetto__protos__trace_packet__descriptor, packet_fields[i]);
	for (size_t i = 0; i < EVENT_FIELDS; i++)
		w->event_tags[i] =
		    tag_of(&perfetto__protos__track_event__descriptor, event_fields[i]);
	w->short_tags = short_tags_of(w);
	w->time_high = UINT64_MAX;
	return w;
}

/* Records the first write error; later packets are not written. */
static void failed(struct ct_pf_writer *w)
{
	if (!w->error)
		w->error = errno ? errno : EIO;
}

/* Writes the packets packed so far. */
static void write_block(struct ct_pf_writer *w)
{
	if (w->used && !w->error && fwrite(w->block, 1, w->used, w->out) != w->used)
		failed(w);
	w->used = 0;
}

int ct_pf_writer_close(struct ct_pf_writer *w)
{
	int error;

	if (!w)
		return 0;
	write_block(w);
	if (fflush(w->out) != 0)
		failed(w);
	error = w->error;
	g_hash_table_destroy(w->tracks);
	g_hash_table_destroy(w->names);
	g_free(w->block);
	g_free(w->te);
	g_free(w);
	if (error) {
		errno = error;
		return -1;
	}
	return 0;
}

uint64_t ct_pf_packets(const struct ct_pf_writer *w)
{
	return w->packets;
}

uint64_t ct_pf_uuid(unsigned kind, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t u = ct_mix64(ct_mix64(ct_mix64(ct_mix64(kind) ^ a) ^ b) ^ c);

	return u ? u : 1;
}

/*
 * NAME as a protobuf string must be: UTF-8. A name from the trace (a
 * kernel, an NVTX message, a process) may hold any bytes; those that are
 * not UTF-8 become U+FFFD in a copy put in *COPY (freed by the caller),
 * so that every reader decodes the packet.
 */
static char *utf8(const char *name, char **copy)
{
	*copy = NULL;
	if (!name || g_utf8_validate(name, -1, NULL))
		return (char *)name;
	*copy = g_utf8_make_valid(name, -1);
	return *copy;
}

/* Makes room in the block for SIZE more bytes: writes it first, or grows it. */
static int room(struct ct_pf_writer *w, size_t size)
{
	if (w->used + size <= w->cap)
		return 0;
	write_block(w);
	if (w->error)
		return -1;
	if (size > w->cap) {
		w->cap = size * 2;
		w->block = g_realloc(w->block, w->cap);
	}
	return 0;
}

/* MSG, a message field of the packet, at P: tag, length, bytes packed by protobuf-c. */
static uint8_t *put_message(uint8_t *p, uint64_t tag, const ProtobufCMessage *msg, size_t size)
{
	p = varint(p, tag);
	p = varint(p, size);
	return p + protobuf_c_message_pack(msg, p);
}

/* The packet's message fields protobuf-c packs, in the order of their numbers. */
enum packet_message { M_CLOCK_SNAPSHOT, M_INTERNED, M_DEFAULTS, M_DESCRIPTOR, PACKET_MESSAGES };

/*
 * Puts PACKET in the block as one field of the Trace (tag, varint length,
 * bytes), with the track event of EVENT_LEN bytes at EVENT (put_event),
 * NULL for none. protobuf-c packs the packet's other messages (a clock
 * snapshot, interned data, defaults, a track descriptor), each sized
 * once; the packet's few scalar fields and the framings are written here,
 * in the order of their field numbers, as protobuf-c writes them
 * (test-perfetto-writer.c compares the bytes with protobuf-c's). The
 * block is written first when the packet would not fit, and grows for a
 * packet larger than it.
 */
static void put_packet(struct ct_pf_writer *w, Perfetto__Protos__TracePacket *packet,
                       const uint8_t *event, size_t event_len)
{
	const ProtobufCMessage *messages[PACKET_MESSAGES] = {
		[M_CLOCK_SNAPSHOT] = packet->clock_snapshot ? &packet->clock_snapshot->base : NULL,
		[M_INTERNED] = packet->interned_data ? &packet->interned_data->base : NULL,
		[M_DEFAULTS] =
		    packet->trace_packet_defaults ? &packet->trace_packet_defaults->base : NULL,
		[M_DESCRIPTOR] = packet->track_descriptor ? &packet->track_descriptor->base : NULL,
	};
	size_t lens[PACKET_MESSAGES] = { 0 }, size;
	uint8_t *p, *start;

	if (w->error)
		return;
	if (!w->started) {
		/* Perfetto's readers ignore interned references before a packet clears the state */
		packet->has_sequence_flags = 1;
		packet->sequence_flags |=
		    PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
		w->started = true;
	}
	/* three scalars, the track event's tag and length, and each message's */
	size = (4 + PACKET_MESSAGES) * FIELD_HEAD_MAX + event_len;
	for (size_t i = 0; i < PACKET_MESSAGES; i++)
		if (messages[i])
			size += (lens[i] = protobuf_c_message_get_packed_size(messages[i]));
	if (room(w, HEAD_MAX + size) < 0)
		return;
	/* the packet after the longest head, moved back once its length is known */
	p = start = w->block + w->used + HEAD_MAX;
	if (messages[M_CLOCK_SNAPSHOT])
		p = put_message(p, w->packet_tags[P_CLOCK_SNAPSHOT], messages[M_CLOCK_SNAPSHOT],
		                lens[M_CLOCK_SNAPSHOT]);
	if (packet->has_timestamp)
		p = varint(varint(p, w->packet_tags[P_TIMESTAMP]), packet->timestamp);
	p = varint(varint(p, w->packet_tags[P_SEQUENCE_ID]), SEQUENCE_ID);
	if (event) {
		p = varint(varint(p, w->packet_tags[P_TRACK_EVENT]), event_len);
		memcpy(p, event, event_len);
		p += event_len;
	}
	if (messages[M_INTERNED])
		p = put_message(p, w->packet_tags[P_INTERNED_DATA], messages[M_INTERNED],
		                lens[M_INTERNED]);
	if (packet->has_sequence_flags)
		p = varint(varint(p, w->packet_tags[P_SEQUENCE_FLAGS]), packet->sequence_flags);
	if (messages[M_DEFAULTS])
		p = put_message(p, w->packet_tags[P_DEFAULTS], messages[M_DEFAULTS],
		                lens[M_DEFAULTS]);
	if (messages[M_DESCRIPTOR])
		p = put_message(p, w->packet_tags[P_TRACK_DESCRIPTOR], messages[M_DESCRIPTOR],
		                lens[M_DESCRIPTOR]);
	size = (size_t)(p - start);
	w->block[w->used] = TRACE_PACKET_TAG;
	p = varint(w->block + w->used + 1, size);
	memmove(p, start, size);
	w->used = (size_t)(p - w->block) + size;
	w->packets++;
}

/*
 * Says that the timestamps are CLOCK_MONOTONIC's (see the top): one
 * packet, before the first that has a timestamp, NOW (the first
 * timestamp, a reading of that clock). It has no timestamp of its own.
 */
static void put_clock(struct ct_pf_writer *w, uint64_t now)
{
	Perfetto__Protos__TracePacket packet = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ClockSnapshot snapshot = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock clock =
	    PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock *clocks[1] = { &clock };
	Perfetto__Protos__TracePacketDefaults defaults =
	    PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;

	w->clocked = true;
	clock.has_clock_id = clock.has_timestamp = 1;
	clock.clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC;
	clock.timestamp = now;
	snapshot.n_clocks = 1;
	snapshot.clocks = clocks;
	snapshot.has_primary_trace_clock = 1;
	snapshot.primary_trace_clock = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC;
	defaults.has_timestamp_clock_id = 1;
	defaults.timestamp_clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC;
	packet.clock_snapshot = &snapshot;
	packet.trace_packet_defaults = &defaults;
	put_packet(w, &packet, NULL, 0);
}

uint64_t ct_pf_track_id(struct ct_pf_writer *w, uint64_t key)
{
	void *id = ct_memo_find(&w->tracks_found, key);

	if (id)
		return GPOINTER_TO_SIZE(id);
	id = g_hash_table_lookup(w->tracks, &key);
	ct_memo_keep(&w->tracks_found, key, id);
	return GPOINTER_TO_SIZE(id);
}

uint64_t ct_pf_track(struct ct_pf_writer *w, const struct ct_pf_track *t)
{
	Perfetto__Protos__TracePacket packet = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor desc = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor process = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor thread = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	Perfetto__Protos__CounterDescriptor counter = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	uint64_t id = ct_pf_track_id(w, t->key);
	char *copy;

	if (id)
		return id;
	id = g_hash_table_size(w->tracks) + 1;
	g_hash_table_insert(w->tracks, g_memdup2(&t->key, sizeof(t->key)), GSIZE_TO_POINTER(id));
	desc.has_uuid = 1;
	desc.uuid = id;
	desc.has_parent_uuid = t->parent != 0;
	desc.parent_uuid = t->parent;
	desc.name = utf8(t->name, &copy);
	if (t->has_pid && t->tid) {
		thread.has_pid = thread.has_tid = 1;
		thread.pid = t->pid;
		thread.tid = t->tid;
		thread.thread_name = desc.name;
		desc.thread = &thread;
	} else if (t->has_pid) {
		process.has_pid = 1;
		process.pid = t->pid;
		process.process_name = desc.name;
		desc.process = &process;
	}
	if (t->counter) {
		counter.has_unit = 1;
		counter.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_SIZE_BYTES;
		desc.counter = &counter;
	}
	packet.track_descriptor = &desc;
	put_packet(w, &packet, NULL, 0);
	g_free(copy);
	return id;
}

/*
 * The iid NAME was interned with, 0 if none: the recent names first, by
 * the caller's pointer (whose text is compared too: a buffer's may have
 * changed since), then by their text, then the table. A name that LASTS,
 * found by the address a name that lasts was seen at, is not compared:
 * that memory holds no other text while the writer lives, and the
 * comparison took a tenth of the thread that runs the export of a loop
 * (perf). A buffer's address seen before proves nothing: the buffer may
 * have been freed, and its memory hold a name that lasts since.
 */
static uint64_t interned(struct ct_pf_writer *w, const char *name, bool lasts)
{
	gpointer key, iid;

	for (unsigned i = 0; i < RECENT_NAMES && w->recent[i].name; i++) {
		if (w->recent[i].seen == name &&
		    ((lasts && w->recent[i].seen_lasts) || strcmp(w->recent[i].name, name) == 0))
			return w->recent[i].iid;
	}
	for (unsigned i = 0; i < RECENT_NAMES && w->recent[i].name; i++) {
		if (strcmp(w->recent[i].name, name) == 0) {
			w->recent[i].seen = name;
			w->recent[i].seen_lasts = lasts;
			return w->recent[i].iid;
		}
	}
	if (!g_hash_table_lookup_extended(w->names, name, &key, &iid))
		return 0;
	w->recent[w->recent_next].name = key;
	w->recent[w->recent_next].seen = name;
	w->recent[w->recent_next].seen_lasts = lasts;
	w->recent[w->recent_next].iid = GPOINTER_TO_SIZE(iid);
	w->recent_next = (w->recent_next + 1) % RECENT_NAMES;
	return GPOINTER_TO_SIZE(iid);
}

/*
 * Interns NAME, not interned yet (interned()), into ENTRY for the packet,
 * as UTF-8 (utf8(), its copy in *COPY): true; false when the table is
 * full and NAME must be written in full. The table is keyed by the name
 * as the trace has it, so that a name already interned is not checked
 * again.
 */
static bool intern(struct ct_pf_writer *w, const char *name, Perfetto__Protos__EventName *entry,
                   char **copy)
{
	uint64_t iid = g_hash_table_size(w->names) + 1;

	*copy = NULL;
	if (g_hash_table_size(w->names) >= CT_PF_INTERN_MAX)
		return false;
	g_hash_table_insert(w->names, g_strdup(name), GSIZE_TO_POINTER(iid));
	entry->has_iid = 1;
	entry->iid = iid;
	entry->name = utf8(name, copy);
	return true;
}

/* V as a fixed64 at P, little-endian as protobuf's wire format has it. */
static uint8_t *fixed64(uint8_t *p, uint64_t v)
{
	uint64_t le = GUINT64_TO_LE(v);

	memcpy(p, &le, sizeof(le));
	return p + sizeof(le);
}

/* A fixed64 field at P: its TAG and V; returns the byte after it. */
static inline uint8_t *put_fixed64_field(uint8_t *p, uint64_t tag, uint64_t v)
{
	return fixed64(varint(p, tag), v);
}

/* The most bytes track_event writes for EV, with EXTRAS other counters
 * and NAME_LEN bytes of a name written in full: each field's tag and
 * varint, and the name. */
static size_t track_event_bound(size_t extras, size_t name_len)
{
	return (8 + 2 * extras) * FIELD_HEAD_MAX + name_len;
}

/*
 * EV's TrackEvent, with EXTRAS other counters set at its time, at P: the
 * byte after it; room for track_event_bound() bytes is the caller's. The
 * hot message of the export, one for each slice's begin and end, instant
 * and counter value: written here, field by field in the order of their
 * numbers (the generated descriptor's), rather than by protobuf-c's
 * packer, which walks the message's descriptor for each one and took a
 * third of the thread that runs the export, the thread that bounds its
 * time (bench/export-bench.sh). test-perfetto-writer.c checks the bytes
 * against protobuf-c's for the same events. Inlined: a call took a tenth
 * of its cost.
 */
G_ALWAYS_INLINE static inline uint8_t *track_event(const struct ct_pf_writer *w, uint8_t *p,
                                                   const struct ct_pf_event *ev, uint64_t iid,
                                                   const char *name, size_t name_len, size_t extras,
                                                   const uint64_t *extra_tracks,
                                                   const int64_t *extra_values)
{
	p = varint(varint(p, w->event_tags[E_TYPE]), (uint64_t)ev->type);
	if (iid)
		p = varint(varint(p, w->event_tags[E_NAME_IID]), iid);
	p = varint(varint(p, w->event_tags[E_TRACK_UUID]), ev->track);
	for (size_t i = 0; i < extras; i++) /* int64: negative values take ten bytes */
		p = varint(varint(p, w->event_tags[E_EXTRA_VALUES]), (uint64_t)extra_values[i]);
	if (name) {
		p = varint(varint(p, w->event_tags[E_NAME]), name_len);
		memcpy(p, name, name_len);
		p += name_len;
	}
	if (ev->type == CT_PF_COUNTER)
		p = varint(varint(p, w->event_tags[E_COUNTER_VALUE]), (uint64_t)ev->value);
	for (size_t i = 0; i < extras; i++)
		p = varint(varint(p, w->event_tags[E_EXTRA_TRACKS]), extra_tracks[i]);
	if (ev->flow)
		p = put_fixed64_field(p, w->event_tags[E_FLOW_IDS], ev->flow);
	if (ev->terminating_flow)
		p = put_fixed64_field(p, w->event_tags[E_TERMINATING_FLOW_IDS],
		                      ev->terminating_flow);
	return p;
}

/*
 * A length-delimited field opened at P, with TAG: its tag and one byte
 * for its length, which close_field writes once the field's bytes are
 * there. The field's bytes begin at the pointer returned.
 */
static uint8_t *open_field(uint8_t *p, uint64_t tag)
{
	return varint(p, tag) + 1;
}

/* close_field for a length over 127: the bytes moved on to make room for it. */
static uint8_t *close_long_field(uint8_t *body, uint8_t *end)
{
	size_t len = (size_t)(end - body), n;
	uint8_t head[10];

	n = (size_t)(varint(head, len) - head);
	memmove(body + n - 1, body, len);
	memcpy(body - 1, head, n);
	return end + n - 1;
}

/*
 * Closes the field whose bytes run from BODY (open_field) to END: its
 * length, as a varint before BODY, the bytes moved on when it takes more
 * than the one byte kept (a length over 127, which the events of a loop
 * do not reach). Returns the field's end.
 */
static inline uint8_t *close_field(uint8_t *body, uint8_t *end)
{
	size_t len = (size_t)(end - body);

	if (len >= 0x80)
		return close_long_field(body, end);
	body[-1] = (uint8_t)len;
	return end;
}

/* A time's bytes put_time writes itself: the first three of its varint,
 * its 21 low bits (and their continuation bits). */
#define TIME_LOW_BYTES 3
#define TIME_LOW_BITS  (7 * TIME_LOW_BYTES)
/* The most bytes put_time writes: the low bytes and the whole 8 of the tail's copy. */
#define TIME_MAX (TIME_LOW_BYTES + 8)

/*
 * TIME's varint at P; returns the byte after it. The bytes after its
 * first three depend only on its bits from the 21st up, which the times
 * of a trace's events (in about the order of the file, within 2 ms of
 * each other) mostly share with the time before: those bytes are kept
 * from the last time encoded in full and copied, and only the three
 * low bytes are made. The same bytes as varint's (test-perfetto-writer.c).
 * Writes up to TIME_MAX bytes.
 */
static inline uint8_t *put_time(struct ct_pf_writer *w, uint8_t *p, uint64_t time)
{
	if (G_UNLIKELY(time >> TIME_LOW_BITS != w->time_high)) {
		uint8_t full[10];
		size_t n = (size_t)(varint(full, time) - full);

		if (n <= TIME_LOW_BYTES) /* a small time: no tail to keep */
			return varint(p, time);
		w->time_high = time >> TIME_LOW_BITS;
		w->time_tail_len = (uint8_t)(n - TIME_LOW_BYTES);
		memset(w->time_tail, 0, sizeof(w->time_tail));
		memcpy(w->time_tail, full + TIME_LOW_BYTES, w->time_tail_len);
	}
	p[0] = (uint8_t)(time | 0x80);
	p[1] = (uint8_t)(time >> 7 | 0x80);
	p[2] = (uint8_t)(time >> 14 | 0x80);
	memcpy(p + TIME_LOW_BYTES, w->time_tail, sizeof(w->time_tail));
	return p + TIME_LOW_BYTES + w->time_tail_len;
}

/* The most bytes put_short_packet writes: the packet's tag and length, its
 * timestamp's tag and value, its sequence and flags, the track event's tag
 * and length, its type, name and track, and two flows. */
#define SHORT_PACKET_MAX (2 + (1 + TIME_MAX) + 2 + 2 + 2 + 2 + 2 + 2 + 2 * (2 + 8))

/*
 * Whether EV, of IID (0: no name, or one interned) and EXTRAS other
 * counters, is written by put_short_packet: most events are (a
 * slice's begin or end, an instant), and their packets are under 128
 * bytes, so that every length takes one byte, known once the bytes are
 * there.
 */
static inline bool short_packet(const struct ct_pf_writer *w, const struct ct_pf_event *ev,
                                uint64_t iid, size_t extras)
{
	G_STATIC_ASSERT(SHORT_PACKET_MAX < 0x80);
	return w->short_tags && !extras && ev->type != CT_PF_COUNTER && iid < 0x80 &&
	       ev->track < 0x80 && (uint64_t)ev->type < 0x80;
}

/*
 * EV (short_packet) as put_event_packet writes it, but each tag and
 * small value a byte stored as it is, and each length a byte: the same
 * bytes for the most common events, in a third of the instructions
 * (test-perfetto-writer.c compares the bytes with protobuf-c's).
 */
static void put_short_packet(struct ct_pf_writer *w, const struct ct_pf_event *ev, uint64_t time,
                             uint64_t iid)
{
	uint8_t *packet, *event, *p;

	CT_ASSERT(w->started); /* put_clock's packet cleared the incremental state */
	if (room(w, SHORT_PACKET_MAX) < 0)
		return;
	p = w->block + w->used;
	*p++ = TRACE_PACKET_TAG;
	packet = ++p; /* after its length's byte */
	*p++ = (uint8_t)w->packet_tags[P_TIMESTAMP];
	p = put_time(w, p, time);
	*p++ = (uint8_t)w->packet_tags[P_SEQUENCE_ID];
	*p++ = SEQUENCE_ID;
	*p++ = (uint8_t)w->packet_tags[P_TRACK_EVENT];
	event = ++p;
	*p++ = (uint8_t)w->event_tags[E_TYPE];
	*p++ = (uint8_t)ev->type;
	if (iid) {
		*p++ = (uint8_t)w->event_tags[E_NAME_IID];
		*p++ = (uint8_t)iid;
	}
	*p++ = (uint8_t)w->event_tags[E_TRACK_UUID];
	*p++ = (uint8_t)ev->track;
	if (ev->flow)
		p = put_fixed64_field(p, w->event_tags[E_FLOW_IDS], ev->flow);
	if (ev->terminating_flow)
		p = put_fixed64_field(p, w->event_tags[E_TERMINATING_FLOW_IDS],
		                      ev->terminating_flow);
	event[-1] = (uint8_t)(p - event);
	if (ev->name) {
		*p++ = (uint8_t)w->packet_tags[P_SEQUENCE_FLAGS];
		*p++ = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	}
	packet[-1] = (uint8_t)(p - packet);
	w->used = (size_t)(p - w->block);
	w->packets++;
}

/*
 * EV as a packet written in place in the block: its timestamp, sequence,
 * track event (IID, NAME written in full when not interned, EXTRAS) and
 * flags, in the order of their numbers, as put_packet would write them
 * with no message of protobuf-c's; each length written once its bytes
 * are there (close_field), so that nothing is packed twice or moved.
 * The packet of every event but one that interns a new name.
 */
static void put_event_packet(struct ct_pf_writer *w, const struct ct_pf_event *ev, uint64_t time,
                             uint64_t iid, const char *name, size_t extras,
                             const uint64_t *extra_tracks, const int64_t *extra_values)
{
	size_t name_len = name ? strlen(name) : 0;
	uint8_t *p, *packet, *event;

	CT_ASSERT(w->started); /* put_clock's packet cleared the incremental state */
	if (room(w, HEAD_MAX + 4 * FIELD_HEAD_MAX + track_event_bound(extras, name_len)) < 0)
		return;
	packet = open_field(w->block + w->used, TRACE_PACKET_TAG);
	p = varint(varint(packet, w->packet_tags[P_TIMESTAMP]), time);
	p = varint(varint(p, w->packet_tags[P_SEQUENCE_ID]), SEQUENCE_ID);
	event = open_field(p, w->packet_tags[P_TRACK_EVENT]);
	p = track_event(w, event, ev, iid, name, name_len, extras, extra_tracks, extra_values);
	p = close_field(event, p);
	if (ev->name)
		p = varint(
		    varint(p, w->packet_tags[P_SEQUENCE_FLAGS]),
		    PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE);
	w->used = (size_t)(close_field(packet, p) - w->block);
	w->packets++;
}

/*
 * EV as a packet that interns its name, ENTRY, IID: packed with the
 * entry by protobuf-c (put_packet), the track event written in w->te.
 */
static void put_event_interning(struct ct_pf_writer *w, const struct ct_pf_event *ev, uint64_t time,
                                Perfetto__Protos__EventName *entry, size_t extras,
                                const uint64_t *extra_tracks, const int64_t *extra_values)
{
	Perfetto__Protos__TracePacket packet = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__InternedData interned = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	Perfetto__Protos__EventName *entries[1] = { entry };
	size_t len;

	if (track_event_bound(extras, 0) > w->te_cap) {
		w->te_cap = track_event_bound(extras, 0) * 2;
		w->te = g_realloc(w->te, w->te_cap);
	}
	len = (size_t)(track_event(w, w->te, ev, entry->iid, NULL, 0, extras, extra_tracks,
	                           extra_values) -
	               w->te);
	packet.has_timestamp = 1;
	packet.timestamp = time;
	packet.has_sequence_flags = 1;
	packet.sequence_flags =
	    PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	interned.n_event_names = 1;
	interned.event_names = entries;
	packet.interned_data = &interned;
	put_packet(w, &packet, w->te, len);
}

/*
 * EV, whose name is not interned yet: interned with its packet
 * (put_event_interning), or written in full when the table is full.
 * Out of line: the events of a loop repeat names interned before.
 */
static G_GNUC_NO_INLINE void put_event_named(struct ct_pf_writer *w, const struct ct_pf_event *ev,
                                             uint64_t time, size_t extras,
                                             const uint64_t *extra_tracks,
                                             const int64_t *extra_values)
{
	Perfetto__Protos__EventName entry = PERFETTO__PROTOS__EVENT_NAME__INIT;
	char *copy;

	if (intern(w, ev->name, &entry, &copy))
		put_event_interning(w, ev, time, &entry, extras, extra_tracks, extra_values);
	else
		put_event_packet(w, ev, time, 0, utf8(ev->name, &copy), extras, extra_tracks,
		                 extra_values);
	g_free(copy);
}

/*
 * EV, with EXTRAS other counters set at its time (ids and values): in
 * place (put_short_packet, else put_event_packet), but when its name is
 * new to the table (put_event_named).
 */
static void put_event(struct ct_pf_writer *w, const struct ct_pf_event *ev, size_t extras,
                      const uint64_t *extra_tracks, const int64_t *extra_values)
{
	uint64_t time = ev->time_ns > 0 ? (uint64_t)ev->time_ns : 0, iid = 0;

	if (w->error)
		return;
	if (G_UNLIKELY(!w->clocked)) {
		put_clock(w, time);
		if (w->error)
			return;
	}
	if (ev->name && !(iid = interned(w, ev->name, ev->name_lasts)))
		put_event_named(w, ev, time, extras, extra_tracks, extra_values);
	else if (short_packet(w, ev, iid, extras))
		put_short_packet(w, ev, time, iid);
	else
		put_event_packet(w, ev, time, iid, NULL, extras, extra_tracks, extra_values);
}

void ct_pf_event(struct ct_pf_writer *w, const struct ct_pf_event *ev)
{
	put_event(w, ev, 0, NULL, NULL);
}

/*
 * Each packet sets one counter in its own field and up to EXTRA_MAX others
 * beside it. None of those others is 0: some versions of Perfetto's trace
 * processor count the extra values up to the first 0
 * (TrackEventData::CountExtraCounterValues), so a counter falling to 0
 * takes the packet's own field, one packet each.
 */
void ct_pf_counters(struct ct_pf_writer *w, int64_t time_ns, size_t n, const uint64_t *tracks,
                    const int64_t *values)
{
	uint64_t extra_tracks[EXTRA_MAX];
	int64_t extra_values[EXTRA_MAX];
	size_t zero = 0, other = 0; /* the next zero, and the next other, to write */

	for (;;) {
		struct ct_pf_event ev = { .type = CT_PF_COUNTER, .time_ns = time_ns };
		size_t extras = 0;

		while (zero < n && values[zero] != 0)
			zero++;
		while (other < n && values[other] == 0)
			other++;
		if (zero < n) {
			ev.track = tracks[zero];
			zero++;
		} else if (other < n) {
			ev.track = tracks[other];
			ev.value = values[other];
			other++;
		} else {
			return;
		}
		for (; other < n && extras < EXTRA_MAX; other++) {
			if (values[other] == 0)
				continue;
			extra_tracks[extras] = tracks[other];
			extra_values[extras++] = values[other];
		}
		put_event(w, &ev, extras, extra_tracks, extra_values);
	}
}
