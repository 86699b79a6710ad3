/* SPDX-License-Identifier: MIT */
/*
 * trace-view.h - a trace directory's stream files, and views of it:
 * temporary directories whose entries are symbolic links to the
 * original's (or files of their own), so that babeltrace2 reads a trace
 * made of some of its files without the original being modified or
 * copied. The repaired copies (trace-repair.h) and the groups of stream
 * files decoded in parallel (stream-groups.h) are such views.
 *
 *	if (ct_trace_view_create("group", view, sizeof(view), why, len) == 0) {
 *		ct_trace_view_link(trace, view, "metadata");
 *		...
 *		ct_trace_view_remove(view);
 *	}
 */
#ifndef CUDATRACE_ANALYZERS_TRACE_VIEW_H
#define CUDATRACE_ANALYZERS_TRACE_VIEW_H

#include <stddef.h>

#include <glib.h>

/*
 * The stream files of trace directory DIR, by name (owned strings): its
 * regular files but the metadata and hidden ones. Empty when DIR cannot
 * be listed.
 */
GPtrArray *ct_trace_view_streams(const char *dir);

/* DIR/NAME into BUF (PATH_MAX bytes); -1 if it does not fit. */
int ct_trace_view_join(char *buf, const char *dir, const char *name);

/*
 * Makes a new empty view, $TMPDIR/cudatrace-KIND-NS-PID.XXXXXX (/tmp
 * without TMPDIR; KIND "group" or "repair"; PID this process's, in the
 * pid namespace NS), whose path goes to OUT (LEN bytes). 0, or -1 with a
 * reason in WHY. The first view a process makes first removes the views
 * there of processes of its namespace that are gone (killed before they
 * removed theirs).
 */
int ct_trace_view_create(const char *kind, char *out, size_t len, char *why, size_t why_len);

/* VIEW/NAME made a symbolic link to DIR/NAME (DIR absolute). 0, or -1 (errno). */
int ct_trace_view_link(const char *dir, const char *view, const char *name);

/* Removes VIEW: its entries (the links, not what they point to), then itself. */
void ct_trace_view_remove(const char *view);

#endif
