/* SPDX-License-Identifier: MIT */
/*
 * packet-index.c - LTTng's index of a stream file's packets (see
 * packet-index.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/read-at.h"
#include "packet-index.h"

#define INDEX_MAGIC      UINT32_C(0xc1f1dcc1)
#define INDEX_HEADER     16
#define INDEX_ENTRY_V1_0 56 /* up to the stream class id */
#define INDEX_ENTRY_V1_1 72 /* and the stream instance id, the sequence number */
#define ENTRY_READ       40 /* up to the last time */

static uint64_t big_endian(const uint8_t *b, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | b[i];
	return v;
}

int ct_packet_index_open(struct ct_packet_index *ix, const char *path)
{
	uint8_t header[INDEX_HEADER];
	uint32_t minor;
	struct stat st;

	ix->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ix->fd < 0)
		return -1;
	if (fstat(ix->fd, &st) != 0 || ct_read_at(ix->fd, header, sizeof(header), 0) < 0)
		goto error;
	errno = EINVAL;
	if (!S_ISREG(st.st_mode) || big_endian(header, 4) != INDEX_MAGIC ||
	    big_endian(header + 4, 4) != 1)
		goto error;
	minor = (uint32_t)big_endian(header + 8, 4);
	ix->entry_len = (uint32_t)big_endian(header + 12, 4);
	if (ix->entry_len < (minor ? INDEX_ENTRY_V1_1 : INDEX_ENTRY_V1_0) ||
	    ((uint64_t)st.st_size - INDEX_HEADER) % ix->entry_len != 0)
		goto error;
	ix->count = ((uint64_t)st.st_size - INDEX_HEADER) / ix->entry_len;
	ix->first = ix->held = 0;
	return 0;
error:
	ct_packet_index_close(ix);
	return -1;
}

/* Reads the block of entries from I on; 0, or -1 when it cannot be read. */
static int read_block(struct ct_packet_index *ix, uint64_t i)
{
	uint64_t fit = ix->entry_len <= sizeof(ix->block) ? sizeof(ix->block) / ix->entry_len : 1;
	uint64_t n = ix->count - i < fit ? ix->count - i : fit;
	/* an entry larger than the block is read up to its last time */
	size_t len = ix->entry_len <= sizeof(ix->block) ? (size_t)(n * ix->entry_len) : ENTRY_READ;

	ix->held = 0;
	if (ct_read_at(ix->fd, ix->block, len,
	               (off_t)(INDEX_HEADER + (uint64_t)ix->entry_len * i)) < 0)
		return -1;
	ix->first = i;
	ix->held = n;
	return 0;
}

int ct_packet_index_get(struct ct_packet_index *ix, uint64_t i, struct ct_packet_index_entry *e)
{
	const uint8_t *entry;

	if (i >= ix->count)
		return -1;
	if ((i < ix->first || i - ix->first >= ix->held) && read_block(ix, i) < 0)
		return -1;
	entry =
	    ix->block + (ix->entry_len <= sizeof(ix->block) ? (i - ix->first) * ix->entry_len : 0);
	e->offset = big_endian(entry, 8);
	e->size = big_endian(entry + 8, 8);
	e->content = big_endian(entry + 16, 8);
	e->begin = big_endian(entry + 24, 8);
	e->end = big_endian(entry + 32, 8);
	return 0;
}

void ct_packet_index_close(struct ct_packet_index *ix)
{
	int saved = errno;

	if (ix->fd >= 0)
		close(ix->fd);
	ix->fd = -1;
	errno = saved;
}
