/* SPDX-License-Identifier: MIT */
/*
 * recorded-read.h - reads what `cudatrace record` kept beside its traces
 * (analyzers/common/recorded.h): cudatrace.info's driver_cuda and driver_path,
 * and the audit library's lists, objects-PID (libtrace/audit.c writes
 * them: PATH, SONAME, BUILD-ID and FILE, tab-separated, one object a
 * line).
 */
#ifndef CUDATRACE_CLI_RECORDED_READ_H
#define CUDATRACE_CLI_RECORDED_READ_H

#include <stddef.h>

#include "common/recorded.h"

/*
 * The processes listed beside each of PATHS (directories; one with no
 * lists adds nothing) into OUT, which recorded_free releases. 0, or -1
 * when out of memory. A list that cannot be read, a line that is not
 * one, is left out: the report then knows less, and says nothing wrong.
 */
int recorded_read(char *const *paths, size_t count, struct ct_recorded *out);

void recorded_free(struct ct_recorded *recorded);

#endif
