/* SPDX-License-Identifier: MIT */
/*
 * trace-scan.c - the packet headers of LTTng-UST traces: discarded events,
 * whole metadata, partial packets, and their repair.
 *
 * A CTF packet of LTTng-UST starts with (byte offsets, the trace's byte
 * order; the same offsets whether the tracer aligns fields or packs them):
 *
 *   0 magic 0xC1FC1FC1  4 uuid[16]  20 stream_id  24 stream_instance_id
 *   32 timestamp_begin  40 timestamp_end  48 content_size (bits)
 *   56 packet_size (bits)  64 packet_seq_num
 *   72 events_discarded (unsigned long: 8 or 4 bytes)  then cpu_id
 *
 * A metadata packet: 0 magic 0x75D11D57  4 uuid[16]  20 checksum
 * 24 content_size (bits)  28 packet_size (bits)  32..36 scheme and version
 * bytes, then the TSDL text. Packet indexes are read by packet-index.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/read-at.h"
#include "read/packet-index.h"
#include "snapshot.h"
#include "trace-scan.h"

#define PACKET_MAGIC    0xC1FC1FC1u
#define METADATA_MAGIC  0x75D11D57u
#define PACKET_HEADER   88 /* up to cpu_id, with a 64-bit events_discarded */
#define METADATA_HEADER 37
/* How deep traces are looked for under the directory (relay daemons nest most). */
#define MAX_DEPTH 12
/* The most metadata text kept to check the layout against. */
#define MAX_TEXT (8u << 20)

/* The layout of one trace's packets, from its metadata. */
struct layout {
	bool big_endian;
	unsigned long_bytes; /* size of events_discarded: 8 or 4 */
};

/* A stream file's complete packets: where each starts, how long it is, its content's length. */
struct packets {
	uint64_t *offset, *size, *content;
	size_t count, capacity;
};

static uint64_t get(const unsigned char *p, unsigned bytes, bool big_endian)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)p[big_endian ? i : bytes - 1 - i] << (8 * (bytes - 1 - i));
	return v;
}

/* ------------------------------------------------------------------ metadata */

/*
 * Reads the packetised metadata file PATH: its text (NUL-terminated, to
 * free) into *TEXT, and the length of its whole packets into *WHOLE (its
 * size when it ends with none cut). Returns 0, or -1 when it is not
 * packetised metadata (plain text, or damaged from its start).
 */
static int read_metadata(const char *path, char **text, uint64_t *whole, uint64_t *size,
                         bool *big_endian)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char head[METADATA_HEADER];
	size_t used = 0, cap = 0;
	struct stat st;
	uint64_t off = 0;
	char *buf = NULL;

	*text = NULL;
	*whole = 0;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	while (off + METADATA_HEADER <= *size &&
	       ct_read_at(fd, head, sizeof(head), (off_t)off) == 0) {
		uint64_t content, packet;
		char *grown;

		if (get(head, 4, false) == METADATA_MAGIC)
			*big_endian = false;
		else if (get(head, 4, true) == METADATA_MAGIC)
			*big_endian = true;
		else
			break;
		content = get(head + 24, 4, *big_endian) / 8;
		packet = get(head + 28, 4, *big_endian) / 8;
		if (packet < METADATA_HEADER || content < METADATA_HEADER || content > packet ||
		    off + packet > *size)
			break;
		if (used + (content - METADATA_HEADER) < MAX_TEXT) {
			if (used + content + 1 > cap) {
				cap = (used + content + 1) * 2;
				grown = realloc(buf, cap);
				if (!grown)
					break;
				buf = grown;
			}
			if (ct_read_at(fd, buf + used, content - METADATA_HEADER,
			               (off_t)(off + METADATA_HEADER)) < 0)
				break;
			used += content - METADATA_HEADER;
			buf[used] = '\0';
		}
		off += packet;
	}
	close(fd);
	*whole = off;
	if (off == 0 && *size > 0) {
		free(buf);
		return -1;
	}
	*text = buf;
	return 0;
}

/* The next word of TSDL text after P, into WORD; the position after it. */
static const char *next_word(const char *p, char *word, size_t len)
{
	size_t n = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	while (*p && !strchr(" \t\r\n;{}", *p)) {
		if (n + 1 < len)
			word[n++] = *p;
		p++;
	}
	word[n] = '\0';
	return p;
}

/* The size in bits TEXT's typealiases give TYPE ("unsigned long"), 0 if none. */
static unsigned alias_size(const char *text, const char *type)
{
	char pattern[64];
	const char *p = text;

	snprintf(pattern, sizeof(pattern), ":= %s;", type);
	while ((p = strstr(p, pattern))) {
		const char *start = p;

		/* Back to the typealias this closes. */
		while (start > text && strncmp(start, "typealias", 9) != 0)
			start--;
		if (strncmp(start, "typealias", 9) == 0) {
			const char *size = strstr(start, "size = ");

			if (size && size < p)
				return (unsigned)strtoul(size + 7, NULL, 10);
		}
		p += strlen(pattern);
	}
	return 0;
}

/* The struct declared as HEAD in TEXT has exactly the field names NAMES, in order. */
static bool struct_fields(const char *text, const char *head, const char *const *names,
                          size_t count, char types[][32])
{
	const char *p = strstr(text, head), *end;
	size_t i = 0;

	if (!p)
		return false;
	p = strchr(p, '{');
	end = p ? strchr(p, '}') : NULL;
	if (!end)
		return false;
	p++;
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		char decl[160], *name;
		size_t n;

		if (!semi)
			break;
		n = (size_t)(semi - p);
		if (n >= sizeof(decl))
			return false;
		memcpy(decl, p, n);
		decl[n] = '\0';
		p = semi + 1;
		/* "TYPE NAME": the last word is the name, the rest the type. */
		while (n > 0 && strchr(" \t\r\n", decl[n - 1]))
			decl[--n] = '\0';
		name = strrchr(decl, ' ');
		if (!name)
			name = strrchr(decl, '\t');
		if (!name)
			return false;
		*name++ = '\0';
		name[strcspn(name, "[")] = '\0'; /* uuid[16] */
		if (i >= count || strcmp(name, names[i]) != 0)
			return false;
		if (types)
			next_word(decl, types[i], sizeof(types[i]));
		if (types && strcmp(types[i], "unsigned") == 0)
			snprintf(types[i], sizeof(types[i]), "unsigned long");
		i++;
	}
	return i == count;
}

/* The packet layout TEXT declares, when it is LTTng-UST's. */
static bool known_layout(const char *text, struct layout *layout)
{
	static const char *const header[] = { "magic", "uuid", "stream_id", "stream_instance_id" };
	static const char *const context[] = { "timestamp_begin", "timestamp_end",
		                               "content_size",    "packet_size",
		                               "packet_seq_num",  "events_discarded",
		                               "cpu_id" };
	char types[7][32];
	const char *order = text ? strstr(text, "byte_order = ") : NULL;
	unsigned bits;

	if (!order || !struct_fields(text, "packet.header := struct", header, 4, NULL) ||
	    !struct_fields(text, "struct packet_context", context, 7, types))
		return false;
	layout->big_endian = strncmp(order + 13, "be", 2) == 0;
	for (size_t i = 0; i < 5; i++) {
		if (alias_size(text, types[i]) != 64)
			return false;
	}
	bits = alias_size(text, types[5]);
	if (bits != 64 && bits != 32)
		return false;
	layout->long_bytes = bits / 8;
	return alias_size(text, "uint32_t") == 32;
}

/* ------------------------------------------------------------------ streams */

static void packets_add(struct packets *p, uint64_t offset, uint64_t size, uint64_t content)
{
	if (p->count == p->capacity) {
		size_t cap = p->capacity ? p->capacity * 2 : 64;
		uint64_t *o = realloc(p->offset, cap * sizeof(*o)), *s, *c;

		if (!o)
			return;
		p->offset = o;
		s = realloc(p->size, cap * sizeof(*s));
		if (!s)
			return;
		p->size = s;
		c = realloc(p->content, cap * sizeof(*c));
		if (!c)
			return;
		p->content = c;
		p->capacity = cap;
	}
	p->offset[p->count] = offset;
	p->size[p->count] = size;
	p->content[p->count] = content;
	p->count++;
}

/*
 * Walks the packets of the stream file PATH (LAYOUT): its complete ones
 * into PACKETS, its highest events_discarded into *DISCARDED, the packets
 * missing between its first and last (gaps in packet_seq_num) into *LOST.
 * Returns the length of its complete packets, or -1 when it cannot be read.
 */
static int64_t walk_stream(const char *path, const struct layout *layout, struct packets *packets,
                           uint64_t *discarded, uint64_t *lost, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char head[PACKET_HEADER];
	struct stat st;
	uint64_t off = 0, last_seq = 0;

	*discarded = 0;
	*lost = 0;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	while (off + PACKET_HEADER <= *size &&
	       ct_read_at(fd, head, sizeof(head), (off_t)off) == 0) {
		uint64_t content = get(head + 48, 8, layout->big_endian) / 8;
		uint64_t packet = get(head + 56, 8, layout->big_endian) / 8;
		uint64_t seq = get(head + 64, 8, layout->big_endian);
		uint64_t count = get(head + 72, layout->long_bytes, layout->big_endian);

		if (get(head, 4, layout->big_endian) != PACKET_MAGIC || packet < PACKET_HEADER ||
		    content > packet || off + packet > *size)
			break;
		if (count > *discarded)
			*discarded = count;
		if (off > 0 && seq > last_seq + 1)
			*lost += seq - last_seq - 1;
		last_seq = seq;
		packets_add(packets, off, packet, content);
		off += packet;
	}
	close(fd);
	return (int64_t)off;
}

/* The index file INDEX, when there is one, lists exactly PACKETS. */
static bool index_matches(const char *index, const struct packets *packets)
{
	struct ct_packet_index ix;
	bool ok;

	/* none, or none this process can read: babeltrace2 indexes the stream itself */
	if (ct_packet_index_open(&ix, index) < 0)
		return errno != EINVAL;
	ok = ix.count == packets->count;
	for (size_t i = 0; ok && i < packets->count; i++) {
		struct ct_packet_index_entry e;

		ok = ct_packet_index_get(&ix, i, &e) == 0 && e.offset == packets->offset[i] &&
		     e.size / 8 == packets->size[i];
	}
	ct_packet_index_close(&ix);
	return ok;
}

/* One stream file NAME of the trace in DIR. */
static void scan_stream(const char *dir, const char *name, const struct layout *layout, bool repair,
                        struct trace_scan *out)
{
	struct packets packets = { 0 };
	char path[PATH_MAX], index[PATH_MAX];
	uint64_t discarded, lost, size, tail;
	int64_t whole;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    snprintf(index, sizeof(index), "%s/index/%s.idx", dir, name) >= (int)sizeof(index))
		return;
	out->streams++;
	whole = walk_stream(path, layout, &packets, &discarded, &lost, &size);
	if (whole < 0) {
		out->layout_known = false;
		goto end;
	}
	out->packets += packets.count;
	out->discarded += discarded;
	out->lost_packets += lost;
	for (size_t i = 0; i < packets.count; i++)
		out->event_packets += packets.content[i] > PACKET_HEADER;
	tail = size - (uint64_t)whole;
	if (tail == 0)
		goto index;
	out->partial_streams++;
	out->partial_bytes += tail;
	/* A cut packet cannot be read cleanly: babeltrace2 stops with an error in it. */
	if (repair && truncate(path, (off_t)whole) == 0)
		out->dropped_bytes += tail;
index:
	if (repair && !index_matches(index, &packets) && unlink(index) == 0)
		out->indexes_dropped++;
end:
	free(packets.offset);
	free(packets.size);
	free(packets.content);
}

/* The trace whose metadata file is DIR/metadata. */
static void scan_trace(const char *dir, bool repair, struct trace_scan *out)
{
	char path[PATH_MAX], *text = NULL;
	struct layout layout = { 0 };
	uint64_t whole = 0, size = 0;
	struct dirent *de;
	DIR *d;

	if (snprintf(path, sizeof(path), "%s/metadata", dir) >= (int)sizeof(path))
		return;
	out->traces++;
	if (read_metadata(path, &text, &whole, &size, &layout.big_endian) < 0) {
		out->layout_known = false;
		return;
	}
	if (whole < size) {
		out->metadata_whole = false;
		if (repair && truncate(path, (off_t)whole) == 0)
			out->dropped_bytes += size - whole;
	}
	out->metadata_bytes += text ? strlen(text) : 0;
	if (!known_layout(text, &layout)) {
		out->layout_known = false;
		free(text);
		return;
	}
	free(text);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' || strcmp(de->d_name, "metadata") == 0 ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		scan_stream(dir, de->d_name, &layout, repair, out);
	}
	closedir(d);
}

static void find_traces(const char *dir, int depth, bool repair, struct trace_scan *out)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (snprintf(path, sizeof(path), "%s/metadata", dir) < (int)sizeof(path) &&
	    lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		scan_trace(dir, repair, out);
		return;
	}
	if (depth >= MAX_DEPTH || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		find_traces(path, depth + 1, repair, out);
	}
	closedir(d);
}

int trace_scan(const char *dir, bool repair, struct trace_scan *out)
{
	char input[PATH_MAX];
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->layout_known = true;
	out->metadata_whole = true;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return -1;
	snapshot_newest(dir, input, sizeof(input));
	find_traces(input, 0, repair, out);
	if (out->traces == 0)
		out->layout_known = false;
	return 0;
}
