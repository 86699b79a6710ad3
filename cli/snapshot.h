/* SPDX-License-Identifier: MIT */
/*
 * snapshot.h - which part of a flight recorder's output to read.
 */
#ifndef CUDATRACE_CLI_SNAPSHOT_H
#define CUDATRACE_CLI_SNAPSHOT_H

#include <stddef.h>

/*
 * A flight recorder's output holds one OUTPUT-DATE-TIME-SEQ directory per
 * snapshot (snapshot-1-20261122-101500-0, ...), each a full copy of the
 * ring buffer at that moment: reading them all would count events more
 * than once. Writes to BUF the newest snapshot of DIR (highest SEQ), or
 * DIR itself when it holds none.
 */
void snapshot_newest(const char *dir, char *buf, size_t len);

#endif /* CUDATRACE_CLI_SNAPSHOT_H */
