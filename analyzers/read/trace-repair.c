/* SPDX-License-Identifier: MIT */
/*
 * trace-repair.c - the repaired copy of a trace directory (see
 * trace-repair.h).
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
#include "trace-view.h"

static int copy_bytes(int in, int out, uint64_t count)
{
	char buf[1 << 16];
	uint64_t done = 0;

	while (done < count) {
		size_t chunk = count - done < sizeof(buf) ? (size_t)(count - done) : sizeof(buf);
		ssize_t got = pread(in, buf, chunk, (off_t)done);

		if (got <= 0 || write(out, buf, (size_t)got) != got)
			return -1;
		done += (uint64_t)got;
	}
	return 0;
}

static uint64_t get_field(const uint8_t *b, const struct ct_packet_field *f)
{
	unsigned bytes = f->size / 8;
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)b[f->big_endian ? bytes - 1 - i : i] << (8 * i);
	return v;
}

static void put_field(uint8_t *b, const struct ct_packet_field *f, uint64_t v)
{
	unsigned bytes = f->size / 8;

	for (unsigned i = 0; i < bytes; i++)
		b[f->big_endian ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* FIELD of the packet at PACKET in OUT set to VALUE, or to the smaller of it and VALUE when MIN. */
static int set_field(int out, uint64_t packet, const struct ct_packet_field *field, uint64_t value,
                     int min)
{
	off_t at = (off_t)(packet + field->offset / 8);
	uint8_t b[8];

	if (!field->present)
		return 0;
	if (pread(out, b, field->size / 8, at) != field->size / 8)
		return -1;
	if (min && get_field(b, field) <= value)
		return 0;
	put_field(b, field, value);
	return pwrite(out, b, field->size / 8, at) == field->size / 8 ? 0 : -1;
}

/* Writes stream R of DIR into COPY, cut, its partial packet made whole. */
static int write_stream(const char *dir, const char *copy, const struct ct_stream_repair *r)
{
	char from[PATH_MAX], to[PATH_MAX];
	int in, out, ret = -1;

	if (ct_trace_view_join(from, dir, r->name) < 0 || ct_trace_view_join(to, copy, r->name) < 0)
		return -1;
	in = open(from, O_RDONLY);
	if (in < 0)
		return -1;
	out = open(to, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (out < 0)
		goto end;
	if (copy_bytes(in, out, r->keep) < 0)
		goto end;
	if (r->partial != UINT64_MAX) {
		uint64_t bits = (r->keep - r->partial) * 8;

		if (set_field(out, r->partial, &r->packet_size, bits, 0) < 0 ||
		    set_field(out, r->partial, &r->content_size, bits, 1) < 0)
			goto end;
	}
	ret = 0;
end:
	if (out >= 0 && close(out) != 0)
		ret = -1;
	close(in);
	return ret;
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	size_t len = strlen(text);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, text, len) == (ssize_t)len ? 0 : -1;
	if (close(fd) != 0)
		ret = -1;
	return ret;
}

static const struct ct_stream_repair *repair_of(const struct ct_trace_check *check,
                                                const char *name)
{
	for (guint i = 0; i < check->streams->len; i++) {
		const struct ct_stream_repair *r = g_ptr_array_index(check->streams, i);

		if (!strcmp(r->name, name))
			return r;
	}
	return NULL;
}

/* Each entry of DIR in COPY: the metadata, stream files cut or linked, the index linked. */
static int fill(const char *dir, const struct ct_trace_check *check, const char *copy)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return -1;
	while (ret == 0 && (e = readdir(d))) {
		char from[PATH_MAX], to[PATH_MAX];
		const struct ct_stream_repair *r;
		struct stat st;

		if (e->d_name[0] == '.' || ct_trace_view_join(from, dir, e->d_name) < 0 ||
		    ct_trace_view_join(to, copy, e->d_name) < 0 || stat(from, &st) != 0)
			continue;
		if (!strcmp(e->d_name, "metadata")) {
			ret = check->metadata ? write_text(to, check->metadata)
			                      : ct_trace_view_link(dir, copy, e->d_name);
		} else if (!strcmp(e->d_name, "index") && S_ISDIR(st.st_mode)) {
			/* a cut stream's index no longer matches it */
			if (!check->drop_index && !check->streams->len)
				ret = ct_trace_view_link(dir, copy, e->d_name);
		} else if (S_ISREG(st.st_mode)) {
			r = repair_of(check, e->d_name);
			ret = r ? write_stream(dir, copy, r)
			        : ct_trace_view_link(dir, copy, e->d_name);
		}
	}
	closedir(d);
	return ret;
}

int ct_trace_repair(const char *dir, const struct ct_trace_check *check, char *out, size_t len,
                    char *why, size_t why_len)
{
	char absolute[PATH_MAX];

	if (!realpath(dir, absolute)) {
		snprintf(why, why_len, "cannot open it: %s", strerror(errno));
		return -1;
	}
	if (ct_trace_view_create("repair", out, len, why, why_len) < 0)
		return -1;
	if (fill(absolute, check, out) < 0) {
		snprintf(why, why_len, "cannot write a repaired copy: %s", strerror(errno));
		ct_trace_view_remove(out);
		return -1;
	}
	return 0;
}
