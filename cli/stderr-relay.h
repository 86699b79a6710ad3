/* SPDX-License-Identifier: MIT */
/*
 * stderr-relay.h - the traced program's standard error, passed on to
 * record's own as it comes and kept within bounds (common/stderr-log.h)
 * for the report: its last words say why it gave up.
 *
 * The program is not to notice: every byte goes on unchanged, as soon as
 * it is read, by a process of its own that only waits where record's
 * stderr makes it wait (the program would have waited there too), and
 * that outlives record, should record be killed. When
 * record's stderr is a terminal, the program's fd 2 is a pseudo-terminal
 * whose window size is that terminal's, kept in step on SIGWINCH, and
 * whose output is not processed (no newline becomes CR LF), so that
 * isatty(2), colours and progress bars behave as without cudatrace;
 * otherwise a pipe. The program's children inherit it.
 *
 * Once the program has ended, the relay waits a little for the rest (its
 * descendants may still hold fd 2) and the capture is written; it goes
 * on passing bytes on until nothing holds the program's stderr any more.
 * A record that dies leaves the capture written then.
 */
#ifndef CUDATRACE_CLI_STDERR_RELAY_H
#define CUDATRACE_CLI_STDERR_RELAY_H

#include <stdbool.h>
#include <sys/types.h>

struct stderr_relay;

/*
 * A relay ready for a program, its process already reading (started
 * before the program's child is forked, so that a relay that cannot
 * start costs nothing), keeping what it reads for DIR/stderr.log; or
 * NULL after one line on stderr saying why not: the program then runs
 * with record's stderr, as it would have.
 */
struct stderr_relay *stderr_relay_open(const char *dir);

/* In the program's child, before exec: its fd 2 becomes the relay's. -1 with errno. */
int stderr_relay_child(const struct stderr_relay *relay);

/*
 * In record, once the program's child PID exists: record's copies of the
 * pipe's (or pseudo-terminal's) ends are closed, the relay told the pid.
 */
void stderr_relay_started(struct stderr_relay *relay, pid_t pid);

/* The program never started: the relay ends, writing nothing, and RELAY is freed. */
void stderr_relay_close(struct stderr_relay *relay);

/*
 * The program has ended: the relay waits until every holder of its fd 2
 * closed it, or nothing came for a moment (a bounded wait), then writes
 * what it kept (stderr-log.h); this waits for that. 0, or -1 after a
 * warning.
 */
int stderr_relay_save(struct stderr_relay *relay);

/* Whether the program's fd 2 was a pseudo-terminal. */
bool stderr_relay_tty(const struct stderr_relay *relay);

#endif
