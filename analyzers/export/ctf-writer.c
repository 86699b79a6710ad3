/* SPDX-License-Identifier: MIT */
/*
 * ctf-writer.c - a CTF 1.8 trace written straight into a directory (see
 * ctf-writer.h).
 *
 * A packet is, as the trace and stream blocks below declare it:
 *
 *   header   magic, the trace's UUID, stream_id (0), stream_instance_id
 *   context  packet_size, content_size (bits), timestamp_begin,
 *            timestamp_end, packet_seq_num
 *   events   each a header, then what its owner serialised
 *
 * An event's header is LTTng's compact one, byte-aligned: an 8-bit id and
 * the 32 low bits of its timestamp, which a reader completes from the
 * stream's last timestamp (it wraps at most once in between: CTF 1.8,
 * section 8 "Clocks"); an id above 254, the first event of a packet, and
 * one 2^32 cycles or more after the last have the id 255 and the whole
 * id and timestamp after it (the "extended" header). Half the bytes of
 * the whole header for nearly every event.
 *
 * The header and context are put down when the packet is written: only
 * then are its size and its last timestamp known. No padding: a packet
 * is as long as its content.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctf-writer.h"

#define CTF_MAGIC 0xc1fc1fc1u
/* magic, uuid, stream_id, stream_instance_id; five 64-bit context fields */
#define PACKET_HEADER_BYTES (4u + 16u + 8u + 8u)
#define PACKET_PREAMBLE     (PACKET_HEADER_BYTES + 5u * 8u)
/* The most an event's header takes: the extended one (compact: 1 + 4). */
#define EXTENDED_HEADER_BYTES (1u + 2u + 8u)
/* The id that says the header is extended; the compact header's ids are below it. */
#define EXTENDED_ID 255u

/* Streams whose file is kept open between packets (put_packet). */
#define OPEN_MAX 32u

/* A packet being filled: PACKET_PREAMBLE bytes left for the header and context. */
struct packet {
	uint8_t *data; /* owned */
	size_t len, cap;
};

struct ct_ctf_stream {
	char *path; /* owned */
	int fd;     /* owned: its file, open from its first packet on; -1 when not open */
	uint64_t instance;
	struct packet packet;
	uint64_t events;      /* in the packet */
	uint64_t first, last; /* the packet's first and last timestamps */
	uint64_t seq;         /* packets written */
};

struct ct_ctf_writer {
	char *dir;          /* owned */
	GPtrArray *streams; /* struct ct_ctf_stream, owned */
	unsigned open;      /* streams whose file is kept open */
	uint8_t uuid[16];
	bool failed;
	char why[512];
};

/* ------------------------------------------------------------ the writer */

/*
 * A random UUID in bytes: version 4, variant 1 (RFC 4122, section 4.4),
 * the kind g_uuid_string_random() makes, without the round trip through text.
 */
static void random_uuid(uint8_t uuid[16])
{
	for (size_t i = 0; i < 16; i += 4) {
		guint32 r = g_random_int();

		memcpy(uuid + i, &r, sizeof(r));
	}
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40);
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
}

void ct_ctf_uuid_text(const uint8_t uuid[16], char text[CT_CTF_UUID_TEXT])
{
	static const char hex[] = "0123456789abcdef";
	char *t = text;

	for (size_t i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*t++ = '-';
		*t++ = hex[uuid[i] >> 4];
		*t++ = hex[uuid[i] & 0x0f];
	}
	*t = '\0';
}

static void stream_free(gpointer data)
{
	struct ct_ctf_stream *s = data;

	if (s->fd >= 0)
		close(s->fd);
	g_free(s->packet.data);
	g_free(s->path);
	g_free(s);
}

struct ct_ctf_writer *ct_ctf_writer_create(const char *dir, char *error, size_t len)
{
	struct ct_ctf_writer *w;

	if (g_mkdir_with_parents(dir, 0755) < 0) {
		snprintf(error, len, "cannot make '%s': %s", dir, g_strerror(errno));
		return NULL;
	}
	w = g_new0(struct ct_ctf_writer, 1);
	w->dir = g_strdup(dir);
	w->streams = g_ptr_array_new_with_free_func(stream_free);
	random_uuid(w->uuid);
	return w;
}

/* The writing failed, for the reason in W->why: nothing more is written. */
static int fail(struct ct_ctf_writer *w, const char *path, int err)
{
	if (!w->failed)
		snprintf(w->why, sizeof(w->why), "%s: %s", path, g_strerror(err));
	w->failed = true;
	return -1;
}

/* LEN bytes of DATA written to FD, the file at PATH. 0, or -1. */
static int write_all(struct ct_ctf_writer *w, int fd, const char *path, const void *data,
                     size_t len)
{
	const uint8_t *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(w, path, n < 0 ? errno : ENOSPC);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* PATH opened to append to (made when it is not there): the descriptor, or -1. */
static int open_append(struct ct_ctf_writer *w, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		fail(w, path, errno);
	return fd;
}

/* FD, the file at PATH, closed: -1 when the close failed (a write it reports). */
static int close_file(struct ct_ctf_writer *w, int fd, const char *path)
{
	if (close(fd) < 0)
		return fail(w, path, errno);
	return 0;
}

/* LEN bytes of DATA at the end of PATH (made when it is not there), opened and closed. 0, or -1. */
static int append(struct ct_ctf_writer *w, const char *path, const void *data, size_t len)
{
	int fd = open_append(w, path);
	int status;

	if (fd < 0)
		return -1;
	status = write_all(w, fd, path, data, len);
	if (close_file(w, fd, path) < 0)
		status = -1;
	return status;
}

/* ------------------------------------------------------------ metadata */

int ct_ctf_writer_metadata(struct ct_ctf_writer *w, const char *clock_name,
                           const char *event_context, const char *declarations, const char *events,
                           char *error, size_t len)
{
	GString *m = g_string_new("/* CTF 1.8 */\n\n");
	char uuid[CT_CTF_UUID_TEXT];
	char *path;
	int status;

	ct_ctf_uuid_text(w->uuid, uuid);
	g_string_append_printf(m,
	                       "trace {\n"
	                       "\tmajor = 1;\n"
	                       "\tminor = 8;\n"
	                       "\tuuid = \"%s\";\n"
	                       "\tbyte_order = le;\n"
	                       "\tpacket.header := struct {\n"
	                       "\t\tinteger { size = 32; align = 8; base = x; } magic;\n"
	                       "\t\tinteger { size = 8; align = 8; } uuid[16];\n"
	                       "\t\tinteger { size = 64; align = 8; } stream_id;\n"
	                       "\t\tinteger { size = 64; align = 8; } stream_instance_id;\n"
	                       "\t} align(8);\n"
	                       "};\n\n",
	                       uuid);
	g_string_append(m, declarations);
	g_string_append_printf(
	    m,
	    "stream {\n"
	    "\tid = 0;\n"
	    "\tpacket.context := struct {\n"
	    "\t\tinteger { size = 64; align = 8; } packet_size;\n"
	    "\t\tinteger { size = 64; align = 8; } content_size;\n"
	    "\t\tinteger { size = 64; align = 8; map = clock.%s.value; } timestamp_begin;\n"
	    "\t\tinteger { size = 64; align = 8; map = clock.%s.value; } timestamp_end;\n"
	    "\t\tinteger { size = 64; align = 8; } packet_seq_num;\n"
	    "\t} align(8);\n\n"
	    "\tevent.header := struct {\n"
	    "\t\tenum : integer { size = 8; align = 8; } { compact = 0 ... 254, extended = 255 } "
	    "id;\n"
	    "\t\tvariant <id> {\n"
	    "\t\t\tstruct {\n"
	    "\t\t\t\tinteger { size = 32; align = 8; map = clock.%s.value; } timestamp;\n"
	    "\t\t\t} compact;\n"
	    "\t\t\tstruct {\n"
	    "\t\t\t\tinteger { size = 16; align = 8; } id;\n"
	    "\t\t\t\tinteger { size = 64; align = 8; map = clock.%s.value; } timestamp;\n"
	    "\t\t\t} extended;\n"
	    "\t\t} v;\n"
	    "\t} align(8);\n"
	    "\tevent.context := %s align(8);\n"
	    "};\n\n",
	    clock_name, clock_name, clock_name, clock_name, event_context);
	g_string_append(m, events);
	path = g_build_filename(w->dir, "metadata", NULL);
	/* a metadata written again (a second call) replaces the first */
	if (unlink(path) < 0 && errno != ENOENT)
		fail(w, path, errno);
	status = w->failed ? -1 : append(w, path, m->str, m->len);
	if (status < 0)
		snprintf(error, len, "%s", w->why);
	g_free(path);
	g_string_free(m, TRUE);
	return status;
}

/* ------------------------------------------------------------ streams */

/* Room for N more bytes in P: where they go. */
static uint8_t *room(struct packet *p, size_t n)
{
	if (p->len + n > p->cap) {
		p->cap = MAX(p->cap * 2, p->len + n);
		p->data = g_realloc(p->data, p->cap);
	}
	return p->data + p->len;
}

struct ct_ctf_stream *ct_ctf_writer_stream(struct ct_ctf_writer *w, const char *name)
{
	struct ct_ctf_stream *s = g_new0(struct ct_ctf_stream, 1);

	s->path = g_build_filename(w->dir, name, NULL);
	s->fd = -1;
	s->instance = w->streams->len;
	room(&s->packet, PACKET_PREAMBLE);
	s->packet.len = PACKET_PREAMBLE;
	g_ptr_array_add(w->streams, s);
	return s;
}

uint8_t *ct_ctf_stream_event(struct ct_ctf_stream *s, uint16_t id, uint64_t timestamp, size_t size)
{
	uint8_t *p = room(&s->packet, EXTENDED_HEADER_BYTES + size);
	bool compact = s->events && id < EXTENDED_ID && timestamp >= s->last &&
	               timestamp - s->last <= UINT32_MAX;

	if (!s->events++)
		s->first = timestamp;
	s->last = timestamp;
	if (compact)
		return ct_ctf_u32(ct_ctf_u8(p, (uint8_t)id), (uint32_t)timestamp);
	return ct_ctf_u64(ct_ctf_u16(ct_ctf_u8(p, EXTENDED_ID), id), timestamp);
}

/*
 * LEN bytes of S's packet at DATA, at the end of its file. The file of
 * each of the first OPEN_MAX streams stays open until the writer
 * closes (an open and a close for every packet were a third of the
 * writing's system calls); the others' is opened for each packet, within
 * any limit on open files.
 */
static int put_packet(struct ct_ctf_writer *w, struct ct_ctf_stream *s, const void *data,
                      size_t len)
{
	if (s->fd < 0 && w->open < OPEN_MAX) {
		if ((s->fd = open_append(w, s->path)) < 0)
			return -1;
		w->open++;
	}
	if (s->fd < 0)
		return append(w, s->path, data, len);
	return write_all(w, s->fd, s->path, data, len);
}

/* S's packet, its header and context put down, at the end of its file; then an empty one. */
static int write_packet(struct ct_ctf_writer *w, struct ct_ctf_stream *s)
{
	struct packet *b = &s->packet;
	size_t content = b->len;
	uint8_t *p = b->data;
	int status;

	if (!s->events)
		return 0;
	p = ct_ctf_u32(p, CTF_MAGIC);
	memcpy(p, w->uuid, 16);
	p = ct_ctf_u64(p + 16, 0);
	p = ct_ctf_u64(p, s->instance);
	p = ct_ctf_u64(p, (uint64_t)content * 8u);
	p = ct_ctf_u64(p, (uint64_t)content * 8u);
	p = ct_ctf_u64(p, s->first);
	p = ct_ctf_u64(p, s->last);
	ct_ctf_u64(p, s->seq++);
	status = w->failed ? -1 : put_packet(w, s, b->data, content);
	b->len = PACKET_PREAMBLE;
	s->events = 0;
	return status;
}

int ct_ctf_stream_event_done(struct ct_ctf_writer *w, struct ct_ctf_stream *s, uint8_t *end)
{
	s->packet.len = (size_t)(end - s->packet.data);
	if (s->packet.len < CT_CTF_PACKET_BYTES)
		return 0;
	return write_packet(w, s);
}

const char *ct_ctf_writer_failure(const struct ct_ctf_writer *w)
{
	return w->failed ? w->why : NULL;
}

int ct_ctf_writer_close(struct ct_ctf_writer *w, char *error, size_t len)
{
	for (guint i = 0; i < w->streams->len && !w->failed; i++)
		write_packet(w, g_ptr_array_index(w->streams, i));
	/* a write the file system deferred may fail only at the close */
	for (guint i = 0; i < w->streams->len; i++) {
		struct ct_ctf_stream *s = g_ptr_array_index(w->streams, i);

		if (s->fd >= 0)
			close_file(w, s->fd, s->path);
		s->fd = -1;
	}
	w->open = 0;
	if (w->failed) {
		snprintf(error, len, "%s", w->why);
		return -1;
	}
	return 0;
}

void ct_ctf_writer_destroy(struct ct_ctf_writer *w)
{
	if (!w)
		return;
	g_ptr_array_free(w->streams, TRUE);
	g_free(w->dir);
	g_free(w);
}
