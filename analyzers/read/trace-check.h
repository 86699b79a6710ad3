/* SPDX-License-Identifier: MIT */
/*
 * trace-check.h - a trace directory checked for what babeltrace2 2.0 would
 * trip on, before it reads it: it loops forever, aborts on an assertion
 * or takes gigabytes of memory on some damaged traces, where cudatrace
 * must end with a message.
 *
 *   - the metadata (ctf-metadata.h): its size, its packet headers, the
 *     completeness of its declarations;
 *   - each stream file, packet by packet, with the layout the metadata
 *     declares: the magic number, a stream class the metadata declares
 *     (one per file), packet and content sizes that are whole bytes, no
 *     smaller than the packet's header and context, content within the
 *     packet and the packet within the file;
 *   - each index file (index/NAME.idx, written by LTTng) against its
 *     stream file: header, entry size, one entry per packet with its
 *     offset, sizes and times.
 *
 * What is found decides how the trace is read: as it is; from a repaired
 * copy (trace-repair.h) that keeps the declarations and packets before the
 * damage, cuts a partial last packet to the bytes that are there, and
 * leaves out index files that do not match; or not at all.
 */
#ifndef CUDATRACE_ANALYZERS_TRACE_CHECK_H
#define CUDATRACE_ANALYZERS_TRACE_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "ctf-metadata.h"

enum ct_trace_check_status {
	CT_TRACE_CHECK_OK = 0,    /* read it as it is */
	CT_TRACE_CHECK_REPAIR,    /* read a repaired copy (trace-repair.h) */
	CT_TRACE_CHECK_UNREADABLE /* nothing of it can be read: why says so */
};

/* A stream file read other than as it is. */
struct ct_stream_repair {
	char *name;       /* owned: its name in the trace directory */
	uint64_t keep;    /* bytes kept: the packets before the damage, and a partial one */
	uint64_t partial; /* where a partial last packet starts, UINT64_MAX if none */
	/* the partial packet's size fields, set to the bytes there in the copy */
	struct ct_packet_field packet_size, content_size;
};

struct ct_trace_check {
	enum ct_trace_check_status status;
	char *metadata;     /* owned: the metadata text the copy gets, NULL: the file's */
	GPtrArray *streams; /* struct ct_stream_repair *, owned: the stream files cut */
	bool drop_index;    /* the copy leaves the index files out */
	GString *damage;    /* owned: what the copy leaves out, "" when nothing */
	GString *warnings;  /* owned: what is wrong but costs no event (an index), "" if nothing */
	char why[512];      /* CT_TRACE_CHECK_UNREADABLE: why */
};

/*
 * Checks trace directory DIR (shown as SHOWN in messages) into CHECK,
 * released with ct_trace_check_release whatever the status.
 */
void ct_trace_check(const char *dir, const char *shown, struct ct_trace_check *check);
void ct_trace_check_release(struct ct_trace_check *check);

#endif
