/* SPDX-License-Identifier: MIT */
/*
 * sessions.h - what cudatrace leaves on while no LTTng session records its
 * events.
 */
#ifndef CUDATRACE_SESSIONS_H
#define CUDATRACE_SESSIONS_H

/* Match the callbacks and activity kinds to the sessions now, then every
 * CUDATRACE_SESSION_POLL_MS from a thread of cudatrace (0: never; all
 * stays on). After callbacks_enable and activity_start. */
void sessions_watch_start(void);

/* Stop the thread. */
void sessions_watch_stop(void);

/* One look, what the thread does every period: switch the callbacks and
 * activity kinds to what the started sessions enable, have names emitted
 * again once naming events have been on for a period, and dump the live
 * set once its events have. */
void sessions_follow(void);

#endif /* CUDATRACE_SESSIONS_H */
