/* SPDX-License-Identifier: MIT */
/*
 * stale.h - sessions left behind by a `cudatrace record` that died
 * (SIGKILL, a crash, a reboot of the machine but not of the daemon).
 *
 * Each record names its session with the "cudatrace-" prefix and leaves a
 * pid file for it in the session daemon's run directory
 * (RUNDIR/cudatrace/NAME.pid) while it runs. The next record finds
 * sessions with that prefix whose recorder is gone, and closes them: a
 * flight-recorder session gets its snapshot written first, every session
 * keeps the trace it wrote.
 */
#ifndef CUDATRACE_CLI_STALE_H
#define CUDATRACE_CLI_STALE_H

#include <stdbool.h>

#define STALE_SESSION_PREFIX "cudatrace-"

/*
 * Registers the session NAME (mode "local", "snapshot", "network" or
 * "live"; OUTPUT: its local directory, or "") as owned by this process.
 * Returns 0, or -1 after a message.
 */
int stale_register(const char *name, const char *mode, const char *output);

/* Removes the pid file of NAME. */
void stale_unregister(const char *name);

/*
 * Closes every session with the prefix whose recorder is dead, and
 * forgets pid files whose session is gone. Prints one line per session
 * closed. Returns the number of sessions closed.
 */
int stale_cleanup(void);

#endif
