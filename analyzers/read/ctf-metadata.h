/* SPDX-License-Identifier: MIT */
/*
 * ctf-metadata.h - a CTF 1.8 trace's metadata, checked before babeltrace2
 * parses it, and the packet layout it declares.
 *
 * babeltrace2 2.0 trusts the metadata file: a packetized metadata file
 * cut inside a packet makes it loop forever, and its parser takes about
 * 90 bytes of memory per byte of text. So the file is read here first:
 * at most CT_METADATA_MAX_BYTES; each packet header checked (magic, UUID,
 * version, no compression, encryption or checksum, sizes within the
 * file); the text cut after its last complete top-level declaration (a
 * file written while it was cut short ends inside one), declarations
 * nested at most CT_METADATA_MAX_DEPTH deep. What babeltrace2 2.0 aborts
 * or crashes on is refused, with why: a structure or variant that names
 * a member twice, a pointer, a sequence length or variant tag that names
 * no field before it or one of a scope read later, a variant option that
 * no enumeration label names or whose ranges overlap another's, a range
 * that ends before it starts (tsdl-enums.h), a clock without a frequency
 * or of precision 2^64 - 1, a scope whose type is not a structure, an
 * event class whose own context holds a sequence or a variant, an event
 * header that holds a sequence.
 *
 * The layout is what the packets of the data streams start with: the
 * packet header (magic, stream id) and each stream class's packet context
 * (content and packet sizes, first and last times), as offsets in bits,
 * computed from the declarations (integers, floats, static arrays,
 * structures, enumerations, type aliases). A field after one of variable
 * size (a string, a sequence, a variant) has no fixed offset: a layout
 * that needs one is unknown. The layout also says which stream classes
 * babeltrace2 would abort on for want of an event class, so that one can
 * be added (ct_metadata_add_event_classes).
 */
#ifndef CUDATRACE_ANALYZERS_CTF_METADATA_H
#define CUDATRACE_ANALYZERS_CTF_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/*
 * The largest metadata file read, in bytes. cudatrace's own is under 100
 * KiB; babeltrace2 takes about 300 MiB of memory to parse this much.
 */
#define CT_METADATA_MAX_BYTES (4u << 20)

/* The deepest nesting of braces, brackets and parentheses in the metadata. */
#define CT_METADATA_MAX_DEPTH 32

enum ct_metadata_status {
	CT_METADATA_OK = 0,
	/* cut short or corrupt after some complete declarations: text holds them */
	CT_METADATA_DAMAGED,
	/* none of it can be read (why says so) */
	CT_METADATA_UNREADABLE,
};

struct ct_metadata {
	GString *text; /* owned: the complete declarations */
	bool packetized;
	/*
	 * The text is not what babeltrace2 would read from the file (damaged):
	 * it must be given the text itself.
	 */
	bool rewritten;
	char
	    damage[256]; /* CT_METADATA_DAMAGED: what is wrong ("is cut short ..."), "" otherwise */
};

/*
 * Reads and checks the metadata file PATH into MD (released with
 * ct_metadata_release, whatever the status). On CT_METADATA_UNREADABLE
 * the reason is in WHY (LEN bytes).
 */
enum ct_metadata_status ct_metadata_read(const char *path, struct ct_metadata *md, char *why,
                                         size_t len);
void ct_metadata_release(struct ct_metadata *md);

/* An integer field of a packet, at a fixed place. */
struct ct_packet_field {
	bool present;
	bool big_endian;
	uint8_t size;    /* bits: 8, 16, 32 or 64 */
	uint64_t offset; /* bits from the start of the packet, a multiple of 8 */
};

/* What the packets of one stream class start with. */
struct ct_stream_layout {
	uint64_t id;
	uint64_t context_end; /* bits from the start of the packet: header and context */
	struct ct_packet_field content_size, packet_size, timestamp_begin, timestamp_end;
	struct ct_packet_field events_discarded, packet_seq_num;
	/*
	 * It declares no event class and an event context of no fixed layout
	 * (a sequence or a variant in it, maybe): babeltrace2 2.0 resolves
	 * that context's lengths and tags per event class, and aborts on one
	 * left unresolved (update_field_class_stored_value_index: tgt_fc).
	 */
	bool no_event_class;
};

struct ct_packet_layout {
	bool known; /* every stream class's context has a fixed layout */
	struct ct_packet_field magic, stream_id, stream_instance_id;
	GArray *streams; /* struct ct_stream_layout, owned */
};

/*
 * The layout of the packets the metadata TEXT declares, in LAYOUT
 * (released with ct_packet_layout_release). Returns 0, or -1 with
 * LAYOUT->known false and the reason in WHY when it cannot be computed.
 */
int ct_packet_layout_parse(const char *text, struct ct_packet_layout *layout, char *why,
                           size_t len);
void ct_packet_layout_release(struct ct_packet_layout *layout);

/*
 * Appends to MD's text, which LAYOUT was parsed from, an event class for
 * each stream class that has none and needs one (no_event_class): one
 * whose id no event header can hold, so no event of the trace is read as
 * one; MD is then rewritten. Returns how many it appended.
 */
unsigned ct_metadata_add_event_classes(struct ct_metadata *md,
                                       const struct ct_packet_layout *layout);

/* The stream class ID of LAYOUT, NULL if the metadata declares none. */
const struct ct_stream_layout *ct_packet_layout_stream(const struct ct_packet_layout *layout,
                                                       uint64_t id);

#endif
