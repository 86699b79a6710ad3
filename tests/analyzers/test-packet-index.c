/* SPDX-License-Identifier: MIT */
/*
 * test-packet-index.c - LTTng's index of a stream file's packets
 * (packet-index.c), on index files written here as lttng-tools writes
 * them (big-endian; entries of 56 bytes in version 1.0, 72 in 1.1): every
 * entry read back, in order and out of it, across the blocks it is read
 * in; an entry larger than a block; the files that are not indexes
 * refused with EINVAL, a missing one with ENOENT.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "read/packet-index.h"

static char path[PATH_MAX];

static void put32(unsigned char *b, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
}

static void put64(unsigned char *b, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
}

/* The entry of packet I: values that tell the fields and the packets apart. */
static struct ct_packet_index_entry entry_of(uint64_t i)
{
	return (struct ct_packet_index_entry){
		.offset = i << 20,
		.size = UINT64_C(8) << 20,
		.content = (UINT64_C(8) << 20) - 8 * i,
		.begin = UINT64_C(1) << 40 | i * 1000,
		.end = UINT64_C(1) << 40 | (i * 1000 + 999),
	};
}

/*
 * Writes an index of COUNT entries of ENTRY_LEN bytes (MAJOR, MINOR) and
 * EXTRA bytes more after them, with MAGIC.
 */
static void write_index(uint32_t magic, uint32_t major, uint32_t minor, uint32_t entry_len,
                        uint64_t count, size_t extra)
{
	unsigned char header[16];
	unsigned char *entry = calloc(1, entry_len + extra);
	FILE *f = fopen(path, "wb");

	assert_non_null(entry);
	assert_non_null(f);
	put32(header, magic);
	put32(header + 4, major);
	put32(header + 8, minor);
	put32(header + 12, entry_len);
	assert_int_equal(fwrite(header, 1, sizeof(header), f), sizeof(header));
	for (uint64_t i = 0; i < count; i++) {
		struct ct_packet_index_entry e = entry_of(i);

		memset(entry, 0xee, entry_len);
		put64(entry, e.offset);
		put64(entry + 8, e.size);
		put64(entry + 16, e.content);
		put64(entry + 24, e.begin);
		put64(entry + 32, e.end);
		assert_int_equal(fwrite(entry, 1, entry_len, f), entry_len);
	}
	memset(entry, 0, extra);
	assert_int_equal(fwrite(entry, 1, extra, f), extra);
	assert_int_equal(fclose(f), 0);
	free(entry);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(path, sizeof(path), "%s/test-packet-index.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkstemp(path) < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	return unlink(path);
}

static void assert_entry(struct ct_packet_index *ix, uint64_t i)
{
	struct ct_packet_index_entry want = entry_of(i), got;

	assert_int_equal(ct_packet_index_get(ix, i, &got), 0);
	assert_int_equal(got.offset, want.offset);
	assert_int_equal(got.size, want.size);
	assert_int_equal(got.content, want.content);
	assert_int_equal(got.begin, want.begin);
	assert_int_equal(got.end, want.end);
}

/* An index of COUNT entries of ENTRY_LEN bytes read back in order, backwards and by strides. */
static void read_back(uint32_t minor, uint32_t entry_len, uint64_t count)
{
	struct ct_packet_index ix;
	struct ct_packet_index_entry e;

	write_index(0xc1f1dcc1, 1, minor, entry_len, count, 0);
	assert_int_equal(ct_packet_index_open(&ix, path), 0);
	assert_int_equal(ix.count, count);
	for (uint64_t i = 0; i < count; i++)
		assert_entry(&ix, i);
	for (uint64_t i = count; i-- > 0;)
		assert_entry(&ix, i);
	for (uint64_t i = 0; i < count; i += 37)
		assert_entry(&ix, count - 1 - i);
	assert_int_equal(ct_packet_index_get(&ix, count, &e), -1);
	ct_packet_index_close(&ix);
}

static void test_entries_across_blocks(void **state)
{
	(void)state;
	/* 113 entries of version 1.1 to a block, 146 of 1.0: some blocks' worth, and a part */
	read_back(1, 72, 1000);
	read_back(0, 56, 1000);
	read_back(1, 72, 1);
	/* entries larger than a block are read one at a time */
	read_back(2, CT_PACKET_INDEX_BLOCK + 100, 5);
}

static void test_not_an_index(void **state)
{
	struct ct_packet_index ix;

	(void)state;
	write_index(0xc1fc1fc1, 1, 1, 72, 4, 0); /* a stream's magic */
	assert_int_equal(ct_packet_index_open(&ix, path), -1);
	assert_int_equal(errno, EINVAL);
	write_index(0xc1f1dcc1, 2, 0, 72, 4, 0); /* another major version */
	assert_int_equal(ct_packet_index_open(&ix, path), -1);
	assert_int_equal(errno, EINVAL);
	write_index(0xc1f1dcc1, 1, 1, 56, 4, 0); /* entries too short for 1.1 */
	assert_int_equal(ct_packet_index_open(&ix, path), -1);
	assert_int_equal(errno, EINVAL);
	write_index(0xc1f1dcc1, 1, 1, 72, 4, 10); /* a cut entry after the last */
	assert_int_equal(ct_packet_index_open(&ix, path), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(truncate(path, 10), 0); /* a cut header */
	assert_int_equal(ct_packet_index_open(&ix, path), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ct_packet_index_open(&ix, "/nonexistent/index/x.idx"), -1);
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_entries_across_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_an_index, setup, teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
