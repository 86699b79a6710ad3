/* SPDX-License-Identifier: MIT */
/*
 * tracker.h - the processes a session records: the traced program and its
 * descendants, not every process of the user. LTTng traces every process
 * of the user that loads the tracer; two `cudatrace record` running at
 * once (two notebooks) would each record both programs without this.
 *
 * The program is added before it runs any code; descendants are found by
 * scanning /proc while it runs (tracker_scan) and added then. A
 * descendant that starts and initialises CUDA faster than one scan period
 * loses its first events: `cudatrace record --all-processes` records
 * every process of the user instead.
 */
#ifndef CUDATRACE_CLI_TRACKER_H
#define CUDATRACE_CLI_TRACKER_H

#include <sys/types.h>

/* How often record looks for new descendants, in ms. */
#define TRACKER_SCAN_MS 100

struct tracker;

/*
 * Opens the process tracker of SESSION, whose policy session_setup() set
 * to "only the processes added". Makes this process a child subreaper, so
 * that descendants whose parent exits stay in its tree. ADDED (when not
 * NULL) is told of each process added, with DATA. NULL after a message.
 */
struct tracker *tracker_create(const char *session, void (*added)(pid_t pid, void *data),
                               void *data);

/* Records PID's events from now on. 0, or -1 after a message. */
int tracker_add(struct tracker *t, pid_t pid);

/* Adds the descendants of this process that are not added yet. */
void tracker_scan(struct tracker *t);

void tracker_destroy(struct tracker *t);

#endif
