/* SPDX-License-Identifier: MIT */
/*
 * session.h - the LTTng tracing session of one `cudatrace record`, through
 * liblttng-ctl: created in one of four modes, with two userspace channels
 * of the same sizes and timers: "cudatrace" holds the program's events
 * with the vpid and vtid contexts, "cudatrace-gpu" the GPU group's
 * (CUPTI's activity records, written by whichever thread CUPTI hands its
 * buffers to, so their thread says nothing) with the vpid context only.
 * Started, stopped, snapshotted and destroyed.
 *
 * Every function prints a message saying what to do when it fails.
 */
#ifndef CUDATRACE_CLI_SESSION_H
#define CUDATRACE_CLI_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contract/events.h"

#define SESSION_CHANNEL     "cudatrace"
#define SESSION_GPU_CHANNEL CT_GPU_CHANNEL
/* The data channels above, each with its own buffers. */
#define SESSION_DATA_CHANNELS 2

enum session_mode {
	SESSION_LOCAL,    /* written to a local directory as it is recorded */
	SESSION_SNAPSHOT, /* kept in memory (flight recorder), written on demand */
	SESSION_NETWORK,  /* streamed to an lttng-relayd */
	SESSION_LIVE,     /* streamed to an lttng-relayd, readable while recorded */
};

struct session_config {
	const char *name;
	enum session_mode mode;
	const char *output;     /* LOCAL, SNAPSHOT: absolute directory */
	const char *url;        /* NETWORK, LIVE, SNAPSHOT: the relay daemon's control URL */
	uint64_t live_timer_us; /* LIVE: how often data is sent to the relay */
	uint64_t subbuf_size;   /* bytes, a power of 2 */
	uint64_t num_subbuf;    /* a power of 2 */
	/* Microseconds an event waits for room in a full buffer before it is discarded; 0: none. */
	uint64_t blocking_timeout_us;
	/* Groups of cudatrace events left out: CT_GROUP_BIT(CT_GROUP_API), ... */
	uint32_t excluded_groups;
	/* SNAPSHOT: also take a snapshot when an allocation first fails. */
	bool snapshot_on_failure;
	/*
	 * Record only the processes whose application context
	 * $app.cudatrace:session (their CUDATRACE_SESSION, inherited by every
	 * descendant) has this value; NULL: every process of the user. A
	 * letters, digits, '.', '_' and '-' only.
	 */
	const char *only_tree;
};

/*
 * Silences liblttng-ctl's own error lines: the functions below print
 * better ones. Call it first.
 */
void session_quiet_library(void);

/* session_setup(): the daemon answers but cannot record, its consumer daemon died. */
#define SESSION_NO_CONSUMER (-2)

/*
 * Creates, configures and starts the session. On failure, whatever was
 * created is destroyed again, and -1 is returned after a message, or
 * SESSION_NO_CONSUMER without one.
 */
int session_setup(const struct session_config *cfg);

/* Stops tracing and waits until the data is written. 0, or -1 after a message. */
int session_stop(const char *name);

/*
 * Stops tracing without waiting for the data to be written, and without a
 * message: the program's events are no longer recorded from now on (what
 * a fault of LTTng calls for).
 */
void session_stop_now(const char *name);

/*
 * While QUIET, the functions here print no message when they fail: a
 * fault of LTTng that makes them fail was reported already.
 */
void session_set_quiet(bool quiet);

/* Writes a snapshot to the session's output (SNAPSHOT mode). 0, or -1 after a message. */
int session_snapshot(const char *name);

/*
 * Events the data channels discarded for want of room, and packets lost,
 * summed, as the session daemon counts them. Returns 0, or -1 (no message) when unknown.
 */
int session_discarded(const char *name, uint64_t *discarded, uint64_t *lost);

/*
 * Destroys the session, and the snapshot trigger it may have. The trace
 * written so far stays. 0, or -1 after a message.
 */
int session_destroy(const char *name);

/* The trigger name of SESSION's snapshot-on-failure trigger, into BUF. */
void session_trigger_name(const char *session, char *buf, size_t len);

/*
 * Prints a message for the liblttng-ctl error CODE (either sign) met while
 * doing WHAT, with what to do about it.
 */
void session_report_error(const char *what, int code);

#endif
