/* SPDX-License-Identifier: MIT */
/*
 * trace-repair.c - cut CTF stream files to whole packets (see
 * trace-repair.h).
 *
 * Packets start with the CTF magic 0xc1fc1fc1 and carry their size in bits
 * in a 64-bit field of the packet context, after the content size. The
 * field's offset depends on the metadata; rather than parse it, the offset
 * is learnt from a complete packet (the one at which the next packet's
 * magic starts, or the file ends) and then used for every packet of the
 * trace. A partial last packet gets packet_size and content_size set to
 * the bytes present.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "trace-repair.h"

#define CTF_MAGIC UINT32_C(0xc1fc1fc1)
#define PATH_LEN  4352
/* Where the packet_size field may be: after magic, uuid, stream ids and two timestamps. */
#define FIELD_MIN 24
#define FIELD_MAX 128

/* DIR/NAME into BUF (PATH_LEN bytes); -1 if it does not fit. */
static int join_path(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, PATH_LEN, "%s/%s", dir, name);

	return n < 0 || n >= PATH_LEN ? -1 : 0;
}

/* An open stream file. */
struct stream_file {
	int fd;
	uint64_t size;
	int big_endian;
};

static int read_at(const struct stream_file *f, uint64_t at, void *buf, size_t len)
{
	return at + len <= f->size && pread(f->fd, buf, len, (off_t)at) == (ssize_t)len ? 0 : -1;
}

static uint64_t decode(const struct stream_file *f, const uint8_t *b, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)b[f->big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

static void encode(const struct stream_file *f, uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[f->big_endian ? 7 - i : i] = (uint8_t)(v >> (8 * i));
}

/* The 64-bit field at AT; 0 if it is not in the file. */
static uint64_t read_u64(const struct stream_file *f, uint64_t at)
{
	uint8_t b[8];

	return read_at(f, at, b, 8) == 0 ? decode(f, b, 8) : 0;
}

/* 1 if a packet starts at AT: the magic. */
static int packet_at(const struct stream_file *f, uint64_t at)
{
	uint8_t b[4];

	return read_at(f, at, b, 4) == 0 && decode(f, b, 4) == CTF_MAGIC;
}

static int open_stream(const char *path, struct stream_file *f)
{
	struct stat st;
	uint8_t b[2];

	*f = (struct stream_file){ .fd = open(path, O_RDONLY) };
	if (f->fd < 0)
		return -1;
	if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(f->fd);
		return -1;
	}
	f->size = (uint64_t)st.st_size;
	f->big_endian = read_at(f, 0, b, 2) == 0 && b[0] == 0xc1 && b[1] == 0xfc;
	return 0;
}

/*
 * The offset of packet_size learnt from the first packet of F, or 0: the
 * field whose value in bytes ends the packet where another one starts (or
 * where the file ends), preceded by a content size no larger.
 */
static size_t learn_size_offset(const struct stream_file *f)
{
	if (!packet_at(f, 0))
		return 0;
	for (size_t o = FIELD_MIN; o <= FIELD_MAX && o + 8 <= f->size; o += 8) {
		uint64_t bits = read_u64(f, o);
		uint64_t content = read_u64(f, o - 8);
		uint64_t bytes = bits / 8;

		if (bits % 8 || bytes < o + 8 || content > bits || content < (o + 8) * 8)
			continue;
		if (bytes == f->size || (bytes < f->size && packet_at(f, bytes)))
			return o;
	}
	return 0;
}

/* Where F must be cut, and the partial packet made whole there. */
struct cut {
	uint64_t keep;   /* bytes kept */
	uint64_t packet; /* start of the partial packet made whole, UINT64_MAX if none */
};

/* Walks F's packets (packet_size at OFFSET). Returns 1 if F needs a repair, 0 if not. */
static int find_cut(const struct stream_file *f, size_t offset, struct cut *cut)
{
	uint64_t at = 0;

	*cut = (struct cut){ .keep = f->size, .packet = UINT64_MAX };
	while (at < f->size) {
		uint64_t left = f->size - at;
		uint64_t bytes;

		if (!packet_at(f, at) || left < offset + 8) {
			cut->keep = at;
			return 1;
		}
		bytes = read_u64(f, at + offset) / 8;
		if (bytes < offset + 8) {
			cut->keep = at;
			return 1;
		}
		if (bytes > left) {
			cut->packet = at;
			return 1;
		}
		at += bytes;
	}
	return 0;
}

static int copy_bytes(const struct stream_file *f, int out, uint64_t count)
{
	char buf[1 << 16];
	uint64_t done = 0;

	while (done < count) {
		size_t chunk = count - done < sizeof(buf) ? (size_t)(count - done) : sizeof(buf);

		if (read_at(f, done, buf, chunk) < 0 || write(out, buf, chunk) != (ssize_t)chunk)
			return -1;
		done += chunk;
	}
	return 0;
}

/* Writes F cut at CUT to PATH, the partial packet's sizes set to what is there. */
static int write_cut(const struct stream_file *f, const char *path, size_t offset,
                     const struct cut *cut)
{
	int out = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	int ret = -1;

	if (out < 0)
		return -1;
	if (copy_bytes(f, out, cut->keep) < 0)
		goto end;
	if (cut->packet != UINT64_MAX) {
		uint64_t bits = (f->size - cut->packet) * 8;
		uint8_t b[8];

		encode(f, b, bits);
		if (pwrite(out, b, 8, (off_t)(cut->packet + offset)) != 8)
			goto end;
		if (read_u64(f, cut->packet + offset - 8) > bits &&
		    pwrite(out, b, 8, (off_t)(cut->packet + offset - 8)) != 8)
			goto end;
	}
	ret = 0;
end:
	if (close(out) != 0)
		ret = -1;
	return ret;
}

/* The stream files of DIR, regular files other than metadata: a GPtrArray of names, NULL if DIR cannot be read. */
static GPtrArray *list_streams(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	GPtrArray *names;

	if (!d)
		return NULL;
	names = g_ptr_array_new_with_free_func(g_free);
	while ((e = readdir(d))) {
		char path[PATH_LEN];
		struct stat st;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata"))
			continue;
		if (join_path(path, dir, e->d_name) < 0 || stat(path, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		g_ptr_array_add(names, g_strdup(e->d_name));
	}
	closedir(d);
	return names;
}

/* The packet_size offset of the trace: learnt from the first stream file that shows it. */
static size_t trace_size_offset(const char *dir, const GPtrArray *streams)
{
	for (guint i = 0; i < streams->len; i++) {
		char path[PATH_LEN];
		struct stream_file f;
		size_t offset;

		if (join_path(path, dir, g_ptr_array_index(streams, i)) < 0 ||
		    open_stream(path, &f) < 0)
			continue;
		offset = learn_size_offset(&f);
		close(f.fd);
		if (offset)
			return offset;
	}
	return 0;
}

void ct_trace_repair_remove(const char *copy)
{
	DIR *d = opendir(copy);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_LEN];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (join_path(path, copy, e->d_name) == 0)
			unlink(path);
	}
	closedir(d);
	rmdir(copy);
}

/* Links or writes stream NAME of DIR into COPY, repaired; 1 if repaired, 0 if linked, -1. */
static int copy_stream(const char *dir, const char *copy, const char *name, size_t offset)
{
	char from[PATH_LEN], to[PATH_LEN];
	struct stream_file f;
	struct cut cut;
	int ret;

	if (join_path(from, dir, name) < 0 || join_path(to, copy, name) < 0 ||
	    open_stream(from, &f) < 0)
		return -1;
	if (find_cut(&f, offset, &cut))
		ret = write_cut(&f, to, offset, &cut) < 0 ? -1 : 1;
	else
		ret = symlink(from, to) < 0 ? -1 : 0;
	close(f.fd);
	return ret;
}

int ct_trace_repair(const char *dir, char *out, size_t len, char *why, size_t why_len)
{
	GPtrArray *streams = NULL;
	char absolute[PATH_MAX], link_to[PATH_LEN], link_from[PATH_LEN];
	size_t offset;
	int repaired = 0;

	if (!realpath(dir, absolute) || !(streams = list_streams(absolute))) {
		snprintf(why, why_len, "cannot list '%s': %s", dir, strerror(errno));
		return -1;
	}
	offset = trace_size_offset(absolute, streams);
	if (!offset) {
		g_ptr_array_free(streams, TRUE);
		snprintf(why, why_len, "no complete packet to learn the packet layout from");
		return -1;
	}
	snprintf(out, len, "%s/cudatrace-repair.XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(out)) {
		g_ptr_array_free(streams, TRUE);
		snprintf(why, why_len, "cannot make a temporary directory: %s", strerror(errno));
		return -1;
	}
	if (join_path(link_from, absolute, "metadata") < 0 ||
	    join_path(link_to, out, "metadata") < 0 || symlink(link_from, link_to) < 0)
		goto error;
	for (guint i = 0; i < streams->len; i++) {
		int ret = copy_stream(absolute, out, g_ptr_array_index(streams, i), offset);

		if (ret < 0)
			goto error;
		repaired += ret;
	}
	g_ptr_array_free(streams, TRUE);
	if (!repaired)
		ct_trace_repair_remove(out);
	return repaired;
error:
	snprintf(why, why_len, "cannot write the repaired copy: %s", strerror(errno));
	g_ptr_array_free(streams, TRUE);
	ct_trace_repair_remove(out);
	return -1;
}
