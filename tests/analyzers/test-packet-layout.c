/* SPDX-License-Identifier: MIT */
/*
 * test-packet-layout.c - the packet layout a metadata text declares
 * (ctf-metadata.h), computed again for each text: a pass asks once per
 * group of stream files, and the last text's layout is kept for the next
 * ask. Two texts whose layouts differ, asked in turn, each get their own;
 * a text that cannot be laid out is refused each time, with the same
 * reason, and does not stand for the one asked before or after it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "read/ctf-metadata.h"

#define TYPES                                                                        \
	"/* CTF 1.8 */\n"                                                            \
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"   \
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n" \
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n" \
	"trace { major = 1; minor = 8; byte_order = le;\n"                           \
	"  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"

/* Stream 0, its sizes right after the header. */
static const char first[] =
    TYPES "stream { id = 0;\n"
          "  packet.context := struct { uint64_t content_size; uint64_t packet_size; }; };\n"
          "event { name = \"e\"; id = 0; stream_id = 0; fields := struct { uint8_t x; }; };\n";

/* Stream 5, its sizes after its first time. */
static const char second[] =
    TYPES "stream { id = 5;\n"
          "  packet.context := struct { uint64_t timestamp_begin; uint64_t content_size;\n"
          "    uint64_t packet_size; }; };\n"
          "event { name = \"e\"; id = 0; stream_id = 5; fields := struct { uint8_t x; }; };\n";

/* A trace without a stream: nothing to lay out. */
static const char unknown[] = TYPES;

/* TEXT's layout holds its one stream, ID, with its content size at OFFSET bits. */
static void laid_out(const char *text, uint64_t id, uint64_t offset)
{
	struct ct_packet_layout layout;
	const struct ct_stream_layout *s;
	char why[256];

	assert_int_equal(ct_packet_layout_parse(text, &layout, why, sizeof(why)), 0);
	assert_true(layout.known);
	assert_int_equal(layout.streams->len, 1);
	assert_true(layout.magic.present && layout.magic.offset == 0);
	assert_true(layout.stream_id.present && layout.stream_id.offset == 32);
	s = ct_packet_layout_stream(&layout, id);
	assert_non_null(s);
	assert_true(s->content_size.present);
	assert_int_equal(s->content_size.offset, offset);
	assert_int_equal(s->packet_size.offset, offset + 64);
	ct_packet_layout_release(&layout);
}

/* TEXT is refused; the reason, into WHY. */
static void refused(const char *text, char *why, size_t len)
{
	struct ct_packet_layout layout;

	assert_int_equal(ct_packet_layout_parse(text, &layout, why, len), -1);
	assert_false(layout.known);
	assert_true(why[0] != '\0');
	ct_packet_layout_release(&layout);
}

static void test_each_text_its_layout(void **state)
{
	char why[256] = "", again[256] = "";

	(void)state;
	laid_out(first, 0, 64);
	laid_out(first, 0, 64);
	laid_out(second, 5, 128);
	laid_out(first, 0, 64);
	refused(unknown, why, sizeof(why));
	refused(unknown, again, sizeof(again));
	assert_string_equal(why, again);
	laid_out(second, 5, 128);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_text_its_layout),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
