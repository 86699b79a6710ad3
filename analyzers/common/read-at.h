/* SPDX-License-Identifier: MIT */
/*
 * read-at.h - whole reads at an offset of a file.
 */
#ifndef CUDATRACE_ANALYZERS_READ_AT_H
#define CUDATRACE_ANALYZERS_READ_AT_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Reads LEN bytes at OFFSET of FD into BUF, through short reads and
 * interruptions. Returns 0, or -1 with errno (EINVAL: the file ends first).
 */
int ct_read_at(int fd, void *buf, size_t len, off_t offset);

#endif
