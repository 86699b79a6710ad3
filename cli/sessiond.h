/* SPDX-License-Identifier: MIT */
/*
 * sessiond.h - the user's LTTng session daemon: find the one that answers,
 * or start one (`lttng-sessiond --daemonize`) and wait, for a bounded
 * time, until it answers.
 */
#ifndef CUDATRACE_CLI_SESSIOND_H
#define CUDATRACE_CLI_SESSIOND_H

#include <stdbool.h>
#include <stddef.h>

/* How long a daemon that was just started has to answer, by default. */
#define SESSIOND_START_TIMEOUT_MS 10000u

/*
 * Makes sure a session daemon answers. Returns 0 when one already did
 * (*started false) or one was started and answers (*started true); -1
 * after a message saying what to do (LTTng not installed, the daemon will
 * not start).
 */
int sessiond_ensure(unsigned timeout_ms, bool *started);

/* 1 when a session daemon answers now, 0 when none does. */
int sessiond_alive(void);

/* The 64-bit userspace consumer daemon of the session daemon that answers. */
enum sessiond_consumer {
	SESSIOND_CONSUMER_NONE,  /* not started yet: the daemon starts it when a session needs it */
	SESSIOND_CONSUMER_ALIVE, /* it answers */
	SESSIOND_CONSUMER_DEAD,  /* it was started and died: the daemon cannot record any more */
};

/*
 * The state of the consumer daemon, from its health socket in the run
 * directory: there and answering, there and dead, or not there yet.
 */
enum sessiond_consumer sessiond_consumer_state(void);

/*
 * The directory where this user's session daemon keeps its runtime files
 * (root: /var/run/lttng; others: $LTTNG_HOME/.lttng, LTTNG_HOME defaulting
 * to $HOME). Returns 0, or -1 when it cannot be named.
 */
int sessiond_rundir(char *buf, size_t len);

/*
 * Switches to cudatrace's own session daemon (see sessiond.c), after the
 * one in use was found unable to record: its home goes to HOME (LEN
 * bytes), LTTNG_HOME is set to it, and the daemon there is started when
 * none answers, or restarted when its own consumer died too (*STARTED
 * true). Returns 0, or -1 after a message.
 */
int sessiond_use_private(unsigned timeout_ms, bool *started, char *home, size_t len);

/*
 * In the traced program's child process, before exec: back to the mount
 * namespace, root and working directory cudatrace had before
 * sessiond_use_private() left them (root only). 0, or -1 (errno set).
 */
int sessiond_before_exec(void);

#endif
