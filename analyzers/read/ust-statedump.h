/* SPDX-License-Identifier: MIT */
/*
 * ust-statedump.h - lttng-ust's statedump events (lttng-ust(3),
 * lttng_ust_statedump:*), which `cudatrace record` enables: the objects
 * each process had loaded, for naming the addresses of its call stacks
 * (call-stacks.h), and its name, for a process that no cudatrace event
 * names (one the Python probe alone speaks for: a spawned worker). They
 * are not cudatrace's events: they are read by member name, and one that
 * lacks a member is skipped.
 */
#ifndef CUDATRACE_ANALYZERS_UST_STATEDUMP_H
#define CUDATRACE_ANALYZERS_UST_STATEDUMP_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "model/context.h"

/* The statedump events read. */
enum ct_ust_statedump {
	CT_UST_STATEDUMP_NONE = 0,
	CT_UST_STATEDUMP_BIN_INFO, /* baddr, memsz, path */
	CT_UST_STATEDUMP_BUILD_ID, /* baddr, build_id */
	CT_UST_STATEDUMP_PROCNAME, /* procname */
};

/* The statedump event called NAME ("lttng_ust_statedump:bin_info"), or NONE. */
enum ct_ust_statedump ct_ust_statedump_kind(const char *name);

/* The build ids kept: GNU ld writes 20 bytes (SHA-1); some linkers 16 or 32. */
#define CT_UST_BUILD_ID_MAX 64

/*
 * What a statedump event says, read where babeltrace2 decodes (the decode
 * thread) and handed to the call stacks where the analyses run.
 */
struct ct_ust_statedump_record {
	enum ct_ust_statedump kind;
	const char *hostname; /* NULL: none; in the caller's storage */
	int64_t pid;
	uint64_t baddr;
	uint64_t memsz;       /* BIN_INFO */
	const char *path;     /* BIN_INFO; in the caller's storage */
	uint8_t build_id_len; /* BUILD_ID */
	uint8_t build_id[CT_UST_BUILD_ID_MAX];
	const char *procname; /* PROCNAME; in the caller's storage */
};

/*
 * Reads EVENT, of kind KIND, into REC (hostname and pid are the caller's),
 * its path or name copied into STRINGS. false if a member is missing or of
 * another type: the event is skipped.
 */
bool ct_ust_statedump_decode(enum ct_ust_statedump kind, const bt_event *event,
                             GStringChunk *strings, struct ct_ust_statedump_record *rec);

/* Hands REC to the call stacks of the process it names in CTX (created
 * unlisted when no cudatrace event named it yet), or names that process
 * when nothing named it before. */
void ct_ust_statedump_apply(const struct ct_ust_statedump_record *rec, struct ct_context *ctx);

#endif
