/* SPDX-License-Identifier: MIT */
/*
 * ctf-writer.h - a CTF 1.8 trace of one stream class, written straight
 * into a directory: its metadata, a TSDL text, and a file per stream of
 * packets, each a header, a context and the events its owner serialised.
 *
 * The writer owns what CTF frames: the trace block (byte order, UUID,
 * packet header), the stream class (packet context, event header: an id
 * and a timestamp on the owner's clock, compact as LTTng's) and the
 * packets. The owner names
 * its clock and gives the rest of the metadata as TSDL text (environment,
 * clock, the event context and the event classes), and serialises each
 * event's context and payload after the header the writer puts down.
 * Fields are byte-aligned and little-endian, as the metadata says; the
 * layout is the one babeltrace2's sink.ctf.fs writes but for the event
 * header, which is LTTng-UST's compact one: what the readers of CTF 1.8
 * (babeltrace2, Trace Compass) read.
 *
 * A stream's events are kept in its packet until the packet is full (or
 * the trace closes); the packet then goes to the end of the stream's file,
 * opened only for that write, so that any number of streams holds no file
 * open. Events of a stream must come in time order. Not thread-safe: one
 * thread writes.
 *
 *	w = ct_ctf_writer_create(dir, err, len);
 *	ct_ctf_writer_metadata(w, clock, context, declarations, err, len);
 *	s = ct_ctf_writer_stream(w, "name");
 *	p = ct_ctf_stream_event(s, id, timestamp, room); p = ct_ctf_u32(p, ...) ...;
 *	ct_ctf_stream_event_done(w, s, p);       (-1: the writing failed)
 *	ct_ctf_writer_close(w, err, len);        (every packet written)
 *	ct_ctf_writer_destroy(w);
 */
#ifndef CUDATRACE_ANALYZERS_CTF_WRITER_H
#define CUDATRACE_ANALYZERS_CTF_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

/* Bytes a packet is written at (and a little more: its last event). */
#define CT_CTF_PACKET_BYTES (32u * 1024u)

/*
 * Serialising: each writes V at P, little-endian, and returns where the
 * next field goes. The caller has made room (ct_ctf_stream_event).
 */
#define CT_CTF_PUT(bits)                                                    \
	static inline uint8_t *ct_ctf_u##bits(uint8_t *p, uint##bits##_t v) \
	{                                                                   \
		uint##bits##_t le = GUINT##bits##_TO_LE(v);                 \
		memcpy(p, &le, sizeof(le));                                 \
		return p + sizeof(le);                                      \
	}
CT_CTF_PUT(16)
CT_CTF_PUT(32)
CT_CTF_PUT(64)
#undef CT_CTF_PUT

static inline uint8_t *ct_ctf_u8(uint8_t *p, uint8_t v)
{
	*p = v;
	return p + 1;
}

/* The bytes of S as a CTF string: with its terminating NUL; NULL is the empty string. */
static inline size_t ct_ctf_string_size(const char *s)
{
	return s ? strlen(s) + 1 : 1;
}

/* S, of SIZE bytes (ct_ctf_string_size). */
static inline uint8_t *ct_ctf_string(uint8_t *p, const char *s, size_t size)
{
	memcpy(p, s ? s : "", size);
	return p + size;
}

/* Bytes of a UUID's text, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", with its NUL. */
#define CT_CTF_UUID_TEXT 37

/* UUID (16 bytes) as TSDL writes it, lower-case hex in five groups, into TEXT. */
void ct_ctf_uuid_text(const uint8_t uuid[16], char text[CT_CTF_UUID_TEXT]);

struct ct_ctf_writer;
struct ct_ctf_stream;

/*
 * A writer into directory DIR, made now when it does not exist (and its
 * parents). NULL with the reason in ERROR (LEN bytes).
 */
struct ct_ctf_writer *ct_ctf_writer_create(const char *dir, char *error, size_t len);

/*
 * Writes the metadata: the trace and stream blocks, with the events'
 * timestamps on clock CLOCK_NAME (a TSDL identifier), their common
 * context the structure EVENT_CONTEXT (TSDL, "struct { ... }"), and
 * DECLARATIONS (TSDL: env and clock blocks before the stream's; event
 * blocks of stream_id 0 after it: EVENTS). Once, before the first event.
 * 0, or -1 with the reason in ERROR (LEN bytes).
 */
int ct_ctf_writer_metadata(struct ct_ctf_writer *w, const char *clock_name,
                           const char *event_context, const char *declarations, const char *events,
                           char *error, size_t len);

/* A new stream, its file named NAME in the directory (made at its first packet). */
struct ct_ctf_stream *ct_ctf_writer_stream(struct ct_ctf_writer *w, const char *name);

/*
 * The header of an event of class ID (the header's id has 16 bits: a
 * GPU-time trace has a few classes, and every event carries it) at
 * TIMESTAMP (cycles of the clock,
 * not before the stream's last event) put down in S's packet; returns
 * where the caller then serialises the event's context and payload, in
 * at most SIZE bytes.
 */
uint8_t *ct_ctf_stream_event(struct ct_ctf_stream *s, uint16_t id, uint64_t timestamp, size_t size);

/* The event is whole, up to END: a full packet is written. 0, or -1: the writing failed. */
int ct_ctf_stream_event_done(struct ct_ctf_writer *w, struct ct_ctf_stream *s, uint8_t *end);

/*
 * Why the writing failed ("FILE: reason"), or NULL while it has not:
 * after a failure the writer writes nothing more.
 */
const char *ct_ctf_writer_failure(const struct ct_ctf_writer *w);

/*
 * Writes every stream's last packet. 0, or -1 with the reason in ERROR
 * (LEN bytes): a packet could not be written (a full disk, a quota, a
 * file size limit), now or before.
 */
int ct_ctf_writer_close(struct ct_ctf_writer *w, char *error, size_t len);

/* Frees W; what was not written by a close is not. NULL is fine. */
void ct_ctf_writer_destroy(struct ct_ctf_writer *w);

#endif
