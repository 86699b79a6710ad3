/* SPDX-License-Identifier: MIT */
/*
 * ust-statedump.h - lttng-ust's statedump events (lttng-ust(3),
 * lttng_ust_statedump:*), which `cudatrace record` enables: the objects
 * each process had loaded, for naming the addresses of its call stacks
 * (call-stacks.h). They are not cudatrace's events: they are read by
 * member name, and one that lacks a member is skipped.
 */
#ifndef CUDATRACE_ANALYZERS_UST_STATEDUMP_H
#define CUDATRACE_ANALYZERS_UST_STATEDUMP_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "call-stacks.h"

/* The statedump events read. */
enum ct_ust_statedump {
	CT_UST_STATEDUMP_NONE = 0,
	CT_UST_STATEDUMP_BIN_INFO, /* baddr, memsz, path */
	CT_UST_STATEDUMP_BUILD_ID, /* baddr, build_id */
};

/* The statedump event called NAME ("lttng_ust_statedump:bin_info"), or NONE. */
enum ct_ust_statedump ct_ust_statedump_kind(const char *name);

/* Hands EVENT, of kind KIND, of process (HOSTNAME, PID), to CS. */
void ct_ust_statedump_read(enum ct_ust_statedump kind, const bt_event *event,
                           struct ct_call_stacks *cs, const char *hostname, int64_t pid);

#endif
