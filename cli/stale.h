/* SPDX-License-Identifier: MIT */
/*
 * stale.h - sessions left behind by a `cudatrace record` that died
 * (SIGKILL, a crash, a reboot of the machine but not of the daemon).
 *
 * Each record names its session with the "cudatrace-" prefix and leaves a
 * pid file for it in the session daemon's run directory
 * (RUNDIR/cudatrace/NAME.pid) while it runs, with the processes the
 * session records. The next record, report, export or list finds sessions
 * with that prefix whose recorder is gone, and, once the processes they
 * record are gone too, closes them: a flight-recorder session gets its
 * snapshot written first, every session keeps the trace it wrote, made
 * private (LTTng's consumer makes its files 0660).
 */
#ifndef CUDATRACE_CLI_STALE_H
#define CUDATRACE_CLI_STALE_H

#include <stdbool.h>
#include <sys/types.h>

#define STALE_SESSION_PREFIX "cudatrace-"

/*
 * Registers the session NAME (mode "local", "snapshot", "network" or
 * "live"; OUTPUT: its local directory, or "") as owned by this process.
 * Returns 0, or -1 after a message.
 */
int stale_register(const char *name, const char *mode, const char *output);

/* Notes in NAME's pid file that the session records PID (the program, a descendant). */
void stale_add_process(const char *name, pid_t pid);

/*
 * Notes in NAME's pid file the directory of its Python probe
 * (python-probe.h), which its program's interpreters read as they start:
 * it goes with the session, once they are all gone.
 */
void stale_add_probe(const char *name, const char *dir);

/* Removes the pid file of NAME. */
void stale_unregister(const char *name);

/*
 * Closes every session with the prefix whose recorder is dead and whose
 * recorded processes are all gone, and forgets pid files whose session is
 * gone; a session that still records a live program is left alone (its
 * trace is not cut). Marks the traces' notes: abandoned, and complete
 * unless the session was gone before it could be closed. Prints one line
 * per session closed or left alone. Returns the number of sessions closed.
 */
int stale_cleanup(void);

/*
 * stale_cleanup() for a command that reads or lists traces (report, list,
 * export): the traces of records that died are closed, made private and
 * marked before they are read, so that they are read whole and said to be
 * cut when they are. Nothing to do costs a directory lookup.
 */
void stale_cleanup_before_reading(void);

#endif
