/* SPDX-License-Identifier: MIT */
/*
 * bt-error.h - what babeltrace2 says went wrong, for a message of ours:
 * the current thread's error taken (and so cleared, as it must be before
 * the next API call), reduced to its deepest cause on one line.
 */
#ifndef CUDATRACE_ANALYZERS_BT_ERROR_H
#define CUDATRACE_ANALYZERS_BT_ERROR_H

#include <stddef.h>

/*
 * The root cause of the current thread's babeltrace2 error, its first
 * line, into BUF (LEN bytes); "unknown error" when there is none. Clears
 * the error.
 */
void ct_bt_take_error(char *buf, size_t len);

#endif
