/* SPDX-License-Identifier: MIT */
/*
 * trace-check.c - a trace directory checked before babeltrace2 reads it
 * (see trace-check.h); LTTng's index files are read by packet-index.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "packet-index.h"
#include "trace-check.h"
#include "trace-view.h"

#define CTF_MAGIC UINT32_C(0xc1fc1fc1)
/* The most of a packet's start read to find its header and context fields. */
#define PACKET_START_MAX 4096
/*
 * The largest packet a stream file that ends inside its first packet may
 * claim, in bytes: LTTng's sub-buffers are far smaller.
 */
#define PARTIAL_PACKET_MAX (UINT64_C(1) << 30)

/* A packet as its header and context say. */
struct packet {
	uint64_t offset;        /* bytes */
	uint64_t size, content; /* bits */
	bool has_times;
	uint64_t begin, end;
};

/* An open stream file. */
struct stream {
	const char *name; /* borrowed */
	int fd;
	uint64_t size;
};

static uint64_t get_uint(const uint8_t *b, unsigned bytes, bool big_endian)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)b[big_endian ? bytes - 1 - i : i] << (8 * i);
	return v;
}

/* FIELD of the packet start in BUF (LEN bytes read); false if it is not all there. */
static bool read_field(const uint8_t *buf, size_t len, const struct ct_packet_field *field,
                       uint64_t *value)
{
	uint64_t at = field->offset / 8, bytes = field->size / 8;

	if (at > len || bytes > len - at)
		return false;
	*value = get_uint(buf + at, (unsigned)bytes, field->big_endian);
	return true;
}

static void add_note(GString *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_note(GString *notes, const char *fmt, ...)
{
	va_list ap;

	if (notes->len)
		g_string_append(notes, "; ");
	va_start(ap, fmt);
	g_string_append_vprintf(notes, fmt, ap);
	va_end(ap);
}

/* Stream file F is to be cut at KEEP bytes; WHAT went wrong at that byte. */
static void cut(struct ct_trace_check *c, const struct stream *f, const char *shown, uint64_t keep,
                const char *what)
{
	struct ct_stream_repair *r = g_new0(struct ct_stream_repair, 1);

	r->name = g_strdup(f->name);
	r->keep = keep;
	r->partial = UINT64_MAX;
	g_ptr_array_add(c->streams, r);
	add_note(c->damage,
	         "stream file '%s' of '%s' %s at byte %" G_GUINT64_FORMAT ": read up to there",
	         f->name, shown, what, keep);
}

/*
 * Whether FIELD of the packet in BUF holds 2^64 - 1. babeltrace2 2.0 takes
 * that value of a packet's events_discarded or packet_seq_num for "the
 * stream has none", and aborts when a packet after the first has it
 * (msg-iter.c, check_emit_msg_discarded_events and _packets); of its
 * timestamp_begin or timestamp_end, for "no time", and aborts on any
 * packet that has it (create_msg_packet_beginning and _end); of its
 * stream_instance_id, for "no instance". LTTng's counts, times and ids
 * never reach it.
 */
static bool all_ones(const uint8_t *buf, size_t got, const struct ct_packet_field *field)
{
	uint64_t value;

	return field->present && field->size == 64 && read_field(buf, got, field, &value) &&
	       value == UINT64_MAX;
}

/* F ends in a partial packet at AT, whose size fields are those of S: made whole in the copy. */
static void cut_partial(struct ct_trace_check *c, const struct stream *f, const char *shown,
                        uint64_t at, const struct ct_stream_layout *s)
{
	struct ct_stream_repair *r = g_new0(struct ct_stream_repair, 1);

	r->name = g_strdup(f->name);
	r->keep = f->size;
	r->partial = at;
	r->packet_size = s->packet_size;
	r->content_size = s->content_size;
	g_ptr_array_add(c->streams, r);
	add_note(c->damage,
	         "stream file '%s' of '%s' ends in a partial packet (the trace was cut short): "
	         "read up to its last event",
	         f->name, shown);
}

/*
 * Walks the packets of F with LAYOUT into PACKETS; when one is damaged,
 * notes the cut in C. Returns true when the file is read as it is.
 */
static bool walk_packets(struct ct_trace_check *c, const struct stream *f, const char *shown,
                         const struct ct_packet_layout *layout, GArray *packets)
{
	const struct ct_stream_layout *first = NULL;
	uint8_t buf[PACKET_START_MAX];
	uint64_t largest = 0; /* bits: the largest packet so far */

	for (uint64_t at = 0; at < f->size;) {
		uint64_t left = f->size - at, value = 0, id = 0;
		size_t got = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		const struct ct_stream_layout *s;
		struct packet pk = { .offset = at };

		if (pread(f->fd, buf, got, (off_t)at) != (ssize_t)got) {
			cut(c, f, shown, at, "cannot be read");
			return false;
		}
		if (layout->magic.present) {
			if (!read_field(buf, got, &layout->magic, &value)) {
				cut(c, f, shown, at, "ends inside a packet header");
				return false;
			}
			if (value != CTF_MAGIC) {
				cut(c, f, shown, at, "has a corrupt packet (no CTF magic number)");
				return false;
			}
		}
		if (layout->stream_id.present && !read_field(buf, got, &layout->stream_id, &id)) {
			cut(c, f, shown, at, "ends inside a packet header");
			return false;
		}
		if (!layout->stream_id.present && layout->streams->len)
			id = g_array_index(layout->streams, struct ct_stream_layout, 0).id;
		s = ct_packet_layout_stream(layout, id);
		if (!s || (first && s != first)) {
			cut(c, f, shown, at,
			    s ? "has a packet of another stream class"
			      : "has a corrupt packet (a stream class the metadata does not "
			        "declare)");
			return false;
		}
		first = s;
		if (s->context_end > (uint64_t)sizeof(buf) * 8) {
			/* a context this large is not LTTng's: the sizes are not checked */
			return true;
		}
		if (left * 8 < s->context_end) {
			cut(c, f, shown, at, "ends inside a packet header");
			return false;
		}
		pk.size = left * 8;
		if (s->packet_size.present)
			read_field(buf, got, &s->packet_size, &pk.size);
		pk.content = pk.size;
		if (s->content_size.present)
			read_field(buf, got, &s->content_size, &pk.content);
		if (pk.size % 8 || pk.size < s->context_end || pk.content > pk.size ||
		    pk.content < s->context_end) {
			cut(c, f, shown, at, "has a corrupt packet (its sizes)");
			return false;
		}
		/* before a partial packet is made whole: its copy keeps these */
		if (all_ones(buf, got, &s->events_discarded) ||
		    all_ones(buf, got, &s->packet_seq_num)) {
			cut(c, f, shown, at,
			    "has a corrupt packet (its count of discarded events or its sequence "
			    "number)");
			return false;
		}
		if (all_ones(buf, got, &layout->stream_instance_id)) {
			cut(c, f, shown, at, "has a corrupt packet (its stream instance id)");
			return false;
		}
		pk.has_times = s->timestamp_begin.present && s->timestamp_end.present &&
		               read_field(buf, got, &s->timestamp_begin, &pk.begin) &&
		               read_field(buf, got, &s->timestamp_end, &pk.end);
		/* a packet ends after it begins: a time out of order is a damaged one */
		if (all_ones(buf, got, &s->timestamp_begin) ||
		    all_ones(buf, got, &s->timestamp_end) || (pk.has_times && pk.begin > pk.end)) {
			cut(c, f, shown, at, "has a corrupt packet (its times)");
			return false;
		}
		if (pk.size / 8 > left) {
			/*
			 * LTTng's packets have one size: a last packet that claims
			 * more is not cut short, it is corrupt
			 */
			if (pk.size > (largest ? largest : PARTIAL_PACKET_MAX * 8)) {
				cut(c, f, shown, at, "has a corrupt packet (its size)");
				return false;
			}
			cut_partial(c, f, shown, at, s);
			return false;
		}
		if (pk.size > largest)
			largest = pk.size;
		g_array_append_val(*&packets, pk);
		at += pk.size / 8;
	}
	return true;
}

/* Whether index file PATH describes PACKETS exactly, as babeltrace2 would use it. */
static bool index_matches(const char *path, const GArray *packets)
{
	struct ct_packet_index ix;
	bool ok;

	if (ct_packet_index_open(&ix, path) < 0)
		return errno == ENOENT; /* no index: babeltrace2 indexes the stream itself */
	ok = ix.count == packets->len;
	for (guint i = 0; ok && i < packets->len; i++) {
		const struct packet *pk = &g_array_index(packets, struct packet, i);
		struct ct_packet_index_entry e;

		ok = ct_packet_index_get(&ix, i, &e) == 0 && e.offset == pk->offset &&
		     e.size == pk->size && e.content == pk->content && e.begin <= e.end &&
		     (!pk->has_times || (e.begin == pk->begin && e.end == pk->end));
	}
	ct_packet_index_close(&ix);
	return ok;
}

/* Checks stream file NAME of DIR and its index against LAYOUT. */
static void check_stream(struct ct_trace_check *c, const char *dir, const char *shown,
                         const char *name, const struct ct_packet_layout *layout)
{
	char path[PATH_MAX], index[PATH_MAX];
	GArray *packets = g_array_new(FALSE, FALSE, sizeof(struct packet));
	struct stream f = { .name = name };
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    snprintf(index, sizeof(index), "%s/index/%s.idx", dir, name) >= (int)sizeof(index))
		goto end;
	f.fd = open(path, O_RDONLY);
	if (f.fd < 0)
		goto end;
	if (fstat(f.fd, &st) == 0) {
		f.size = (uint64_t)st.st_size;
		if (walk_packets(c, &f, shown, layout, packets) && !index_matches(index, packets)) {
			c->drop_index = true;
			add_note(c->warnings,
			         "the index of stream file '%s' of '%s' does not match it: read "
			         "without it",
			         name, shown);
		}
	}
	close(f.fd);
end:
	g_array_free(packets, TRUE);
}

void ct_trace_check(const char *dir, const char *shown, struct ct_trace_check *c)
{
	char path[PATH_MAX], why[256];
	struct ct_packet_layout layout;
	struct ct_metadata md;
	GPtrArray *names;

	*c = (struct ct_trace_check){
		.streams = g_ptr_array_new(),
		.damage = g_string_new(NULL),
		.warnings = g_string_new(NULL),
	};
	snprintf(path, sizeof(path), "%s/metadata", dir);
	switch (ct_metadata_read(path, &md, why, sizeof(why))) {
	case CT_METADATA_UNREADABLE:
		snprintf(c->why, sizeof(c->why), "%s", why);
		c->status = CT_TRACE_CHECK_UNREADABLE;
		ct_metadata_release(&md);
		return;
	case CT_METADATA_DAMAGED:
		add_note(c->damage, "the metadata of '%s' %s: read with its complete declarations",
		         shown, md.damage);
		break;
	default:
		break;
	}
	names = ct_trace_view_streams(dir);
	if (ct_packet_layout_parse(md.text->str, &layout, why, sizeof(why)) < 0) {
		/*
		 * Packets whose sizes cannot be found cannot be checked, and
		 * babeltrace2 aborts on sizes it reads as negative: refused.
		 */
		snprintf(c->why, sizeof(c->why), "%s", why);
		c->status = CT_TRACE_CHECK_UNREADABLE;
		ct_packet_layout_release(&layout);
		g_ptr_array_free(names, TRUE);
		ct_metadata_release(&md);
		return;
	}
	ct_metadata_add_event_classes(&md, &layout);
	if (md.rewritten)
		c->metadata = g_strdup(md.text->str);
	for (guint i = 0; i < names->len; i++)
		check_stream(c, dir, shown, g_ptr_array_index(names, i), &layout);
	ct_packet_layout_release(&layout);
	g_ptr_array_free(names, TRUE);
	ct_metadata_release(&md);
	if (c->metadata || c->streams->len || c->drop_index)
		c->status = CT_TRACE_CHECK_REPAIR;
}

void ct_trace_check_release(struct ct_trace_check *c)
{
	for (guint i = 0; c->streams && i < c->streams->len; i++) {
		struct ct_stream_repair *r = g_ptr_array_index(c->streams, i);

		g_free(r->name);
		g_free(r);
	}
	if (c->streams)
		g_ptr_array_free(c->streams, TRUE);
	if (c->damage)
		g_string_free(c->damage, TRUE);
	if (c->warnings)
		g_string_free(c->warnings, TRUE);
	g_free(c->metadata);
	*c = (struct ct_trace_check){ 0 };
}
