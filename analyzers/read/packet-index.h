/* SPDX-License-Identifier: MIT */
/*
 * packet-index.h - LTTng's index of a stream file's packets
 * (index/NAME.idx beside the stream file NAME), read an entry at a time.
 *
 * The file: a header of four big-endian 32-bit integers (magic
 * 0xc1f1dcc1, major 1, minor, the size of an entry), then one entry per
 * packet of big-endian 64-bit integers: offset in the file (bytes), packet
 * size and content size (bits), first and last times (clock cycles),
 * events discarded, stream class id; from minor 1 on, stream instance id
 * and packet sequence number (lttng-tools, src/common/index/ctf-index.h).
 *
 *	struct ct_packet_index ix;
 *	struct ct_packet_index_entry e;
 *
 *	if (ct_packet_index_open(&ix, path) == 0) {
 *		for (uint64_t i = 0; i < ix.count && ct_packet_index_get(&ix, i, &e) == 0; i++)
 *			...
 *		ct_packet_index_close(&ix);
 *	}
 */
#ifndef CUDATRACE_ANALYZERS_PACKET_INDEX_H
#define CUDATRACE_ANALYZERS_PACKET_INDEX_H

#include <stdint.h>

/* The bytes of entries read at once: a large index is read a block at a time. */
#define CT_PACKET_INDEX_BLOCK 8192

/* An open index file. */
struct ct_packet_index {
	int fd;
	uint32_t entry_len; /* bytes */
	uint64_t count;     /* entries */
	/* entries first to first + held - 1, as read */
	uint64_t first, held;
	uint8_t block[CT_PACKET_INDEX_BLOCK];
};

/* One packet as the index gives it. */
struct ct_packet_index_entry {
	uint64_t offset;        /* bytes into the stream file */
	uint64_t size, content; /* bits */
	uint64_t begin, end;    /* its first and last times */
};

/*
 * Opens the index file PATH. Returns 0; -1 with errno ENOENT when there is
 * none, EINVAL when it is not an index of version 1 or its size is not
 * that of whole entries, another errno when it cannot be read.
 */
int ct_packet_index_open(struct ct_packet_index *ix, const char *path);

/*
 * Entry I (below ix->count) into *E, read with the block of entries after
 * it unless it is in the block read last. Returns 0, or -1 when it cannot
 * be read.
 */
int ct_packet_index_get(struct ct_packet_index *ix, uint64_t i, struct ct_packet_index_entry *e);

void ct_packet_index_close(struct ct_packet_index *ix);

#endif
