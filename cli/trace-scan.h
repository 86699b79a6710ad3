/* SPDX-License-Identifier: MIT */
/*
 * trace-scan.h - what the packets of an LTTng trace say about it, read
 * from their headers without decoding an event: how many events LTTng
 * discarded (each packet's context carries events_discarded, the count of
 * its stream so far), whether the metadata is whole, and whether a stream
 * file ends in a partial packet (a consumer daemon killed while writing,
 * a full disk).
 *
 * With repair, what was written is made readable by any reader, without
 * needing a byte more of disk: a partial packet at the end of a stream
 * or metadata file is cut off (babeltrace2 rejects a stream file that ends
 * in one, and stops with an error in a packet whose end is missing), and
 * a packet index that no longer matches its stream file is deleted
 * (babeltrace2 then indexes the stream itself, rather than trusting an
 * index that misses packets). The events of the cut packet are lost; all
 * those before it are kept.
 *
 * The packet layout is LTTng-UST's (lttng-ust 2.13, any word size and
 * byte order), checked against the trace's own metadata; a trace whose
 * metadata declares another is counted as unknown and left as it is.
 */
#ifndef CUDATRACE_CLI_TRACE_SCAN_H
#define CUDATRACE_CLI_TRACE_SCAN_H

#include <stdbool.h>
#include <stdint.h>

struct trace_scan {
	unsigned traces;          /* CTF traces found (metadata files) */
	unsigned streams;         /* their stream files */
	uint64_t packets;         /* complete packets in them */
	uint64_t event_packets;   /* packets that hold events (with repair: the cut ones too) */
	bool layout_known;        /* every trace's packets have LTTng-UST's layout */
	uint64_t discarded;       /* events discarded, summed over streams; valid if layout_known */
	uint64_t lost_packets;    /* packets missing between a stream's first and last */
	bool metadata_whole;      /* every metadata file was whole (before repair) */
	uint64_t metadata_bytes;  /* the metadata's text, over all traces */
	unsigned partial_streams; /* stream files that ended in a partial packet */
	uint64_t partial_bytes;   /* bytes of those partial packets */
	uint64_t dropped_bytes;   /* bytes removed by repair: no reader could use them */
	unsigned indexes_dropped; /* index files deleted (repair) */
};

/*
 * Scans the traces in DIR (for a flight recorder's output: its newest
 * snapshot), repairing them when REPAIR is true. Returns 0 (OUT filled),
 * or -1 when DIR cannot be read.
 */
int trace_scan(const char *dir, bool repair, struct trace_scan *out);

#endif
