/* SPDX-License-Identifier: MIT */
/*
 * perfetto-writer.c - Perfetto packets, encoded by the protobuf-c code
 * generated from perfetto-trace.proto, packed one after another into a
 * block that is written when full (see perfetto-writer.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "contract/mix64.h"
#include "perfetto-trace.pb-c.h"
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
/* Packets are packed into a block this large and written a block at a
 * time: one write of a few hundred kilobytes rather than one fwrite of
 * some forty bytes per packet (their cost showed in perf). */
#define BLOCK_BYTES (256u << 10)

struct ct_pf_writer {
	FILE *out;          /* borrowed */
	GHashTable *tracks; /* key (uint64, owned) -> id of each track described */
	GHashTable *names;  /* interned name (owned) -> iid */
	uint8_t *block;     /* packed packets not yet written */
	size_t used, cap;
	uint64_t packets;
	bool started; /* the first packet, which clears the incremental state, is out */
	int error;    /* errno of the first failed write, 0: none */
};

struct ct_pf_writer *ct_pf_writer_create(FILE *out)
{
	struct ct_pf_writer *w = g_new0(struct ct_pf_writer, 1);

	w->out = out;
	w->tracks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	w->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	w->cap = BLOCK_BYTES;
	w->block = g_malloc(w->cap);
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

/*
 * Puts PACKET in the block as one field of the Trace: tag, varint length,
 * bytes. The block is written first when the packet would not fit, and
 * grows for a packet larger than it.
 */
static void put_packet(struct ct_pf_writer *w, Perfetto__Protos__TracePacket *packet)
{
	uint8_t head[HEAD_MAX];
	size_t size, len = 0;

	if (w->error)
		return;
	packet->has_trusted_packet_sequence_id = 1;
	packet->trusted_packet_sequence_id = SEQUENCE_ID;
	if (!w->started) {
		/* Perfetto's readers ignore interned references before a packet clears the state */
		packet->has_sequence_flags = 1;
		packet->sequence_flags |=
		    PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
		w->started = true;
	}
	size = perfetto__protos__trace_packet__get_packed_size(packet);
	head[len++] = TRACE_PACKET_TAG;
	for (uint64_t v = size;; v >>= 7) {
		head[len++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		if (v < 0x80)
			break;
	}
	if (w->used + len + size > w->cap) {
		write_block(w);
		if (w->error)
			return;
		if (len + size > w->cap) {
			w->cap = (len + size) * 2;
			w->block = g_realloc(w->block, w->cap);
		}
	}
	memcpy(w->block + w->used, head, len);
	perfetto__protos__trace_packet__pack(packet, w->block + w->used + len);
	w->used += len + size;
	w->packets++;
}

uint64_t ct_pf_track_id(const struct ct_pf_writer *w, uint64_t key)
{
	return GPOINTER_TO_SIZE(g_hash_table_lookup(w->tracks, &key));
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
	put_packet(w, &packet);
	g_free(copy);
	return id;
}

/*
 * The iid of NAME, interning it (into ENTRY, for the packet, as UTF-8:
 * utf8(), its copy in *COPY) when it is new; 0 when the table is full and
 * NAME must be written in full. The table is keyed by the name as the
 * trace has it, so that a name already interned is not checked again.
 */
static uint64_t intern(struct ct_pf_writer *w, const char *name, Perfetto__Protos__EventName *entry,
                       char **copy)
{
	gpointer iid;

	*copy = NULL;
	if (g_hash_table_lookup_extended(w->names, name, NULL, &iid))
		return GPOINTER_TO_SIZE(iid);
	if (g_hash_table_size(w->names) >= CT_PF_INTERN_MAX)
		return 0;
	iid = GSIZE_TO_POINTER(g_hash_table_size(w->names) + 1);
	g_hash_table_insert(w->names, g_strdup(name), iid);
	entry->has_iid = 1;
	entry->iid = GPOINTER_TO_SIZE(iid);
	entry->name = utf8(name, copy);
	return entry->iid;
}

/* EV, with EXTRAS other counters set at its time (ids and values). */
static void put_event(struct ct_pf_writer *w, const struct ct_pf_event *ev, size_t extras,
                      uint64_t *extra_tracks, int64_t *extra_values)
{
	Perfetto__Protos__TracePacket packet = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	Perfetto__Protos__InternedData interned = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	Perfetto__Protos__EventName entry = PERFETTO__PROTOS__EVENT_NAME__INIT;
	Perfetto__Protos__EventName *entries[1] = { &entry };
	uint64_t flow = ev->flow, terminating = ev->terminating_flow;
	char *copy = NULL;

	packet.has_timestamp = 1;
	packet.timestamp = ev->time_ns > 0 ? (uint64_t)ev->time_ns : 0;
	te.has_type = 1;
	te.type = (Perfetto__Protos__TrackEvent__Type)ev->type;
	te.has_track_uuid = 1;
	te.track_uuid = ev->track;
	if (ev->name) {
		te.name_iid = intern(w, ev->name, &entry, &copy);
		te.has_name_iid = te.name_iid != 0;
		if (!te.has_name_iid)
			te.name = utf8(ev->name, &copy);
		packet.has_sequence_flags = 1;
		packet.sequence_flags =
		    PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	}
	if (entry.has_iid) {
		interned.n_event_names = 1;
		interned.event_names = entries;
		packet.interned_data = &interned;
	}
	if (ev->type == CT_PF_COUNTER) {
		te.has_counter_value = 1;
		te.counter_value = ev->value;
	}
	te.n_extra_counter_track_uuids = te.n_extra_counter_values = extras;
	te.extra_counter_track_uuids = extra_tracks;
	te.extra_counter_values = extra_values;
	if (flow) {
		te.n_flow_ids = 1;
		te.flow_ids = &flow;
	}
	if (terminating) {
		te.n_terminating_flow_ids = 1;
		te.terminating_flow_ids = &terminating;
	}
	packet.track_event = &te;
	put_packet(w, &packet);
	g_free(copy);
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
