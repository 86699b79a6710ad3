/* SPDX-License-Identifier: MIT */
/*
 * text.h - bounded strings for event fields.
 *
 * No string field may exceed CUDATRACE_MAX_STRING bytes, but a kernel
 * name, CT_KERNEL_NAME_MAX (doc/events.md, invariant 5): these helpers
 * give the length to write, cut at a UTF-8 character boundary, without
 * copying.
 */
#ifndef CUDATRACE_TEXT_H
#define CUDATRACE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* Bytes of s to record: at most config.max_string. NULL counts as "". */
uint16_t text_length(const char *s);

/* Bytes of s to record within CAP (at most UINT16_MAX). NULL counts as "". */
uint16_t text_length_within(const char *s, size_t cap);

/* s itself, or "" for NULL: tracepoint arguments are never NULL. */
static inline const char *text_or_empty(const char *s)
{
	return s ? s : "";
}

/* Cuts list, comma-separated names, to what text_length records, after a
 * whole name rather than in the middle of one. */
void text_bound_list(char *list);

/* Convert a wide string to UTF-8 into out (size bytes, NUL-terminated),
 * stopping before the cap; returns the length written. */
size_t text_from_wide(char *out, size_t size, const wchar_t *ws);

#endif /* CUDATRACE_TEXT_H */
