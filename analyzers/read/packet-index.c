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
	return 0;
error:
	ct_packet_index_close(ix);
	return -1;
}

int ct_packet_index_get(const struct ct_packet_index *ix, uint64_t i,
                        struct ct_packet_index_entry *e)
{
	uint8_t entry[ENTRY_READ];

	if (i >= ix->count || ct_read_at(ix->fd, entry, sizeof(entry),
	                                 (off_t)(INDEX_HEADER + (uint64_t)ix->entry_len * i)) < 0)
		return -1;
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
