/* SPDX-License-Identifier: MIT */
/*
 * discovery.c - finding the trace directories under the user's paths (see
 * discovery.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "discovery.h"
#include "live.h"

/* Directories searched below a path, at most: deep enough for LTTng's ust/uid/N/64-bit. */
#define MAX_TRACE_DEPTH 12

static int is_file(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds DIR if it is a CTF trace (has a "metadata" file), else looks below it. */
static void find_traces(GPtrArray *traces, const char *dir, int depth)
{
	DIR *d;
	struct dirent *entry;

	if (is_file(dir, "metadata")) {
		g_ptr_array_add(traces, g_strdup(dir));
		return;
	}
	if (depth >= MAX_TRACE_DEPTH)
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((entry = readdir(d))) {
		char path[4096];
		struct stat st;

		if (entry->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name) >=
		    sizeof(path))
			continue;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			find_traces(traces, path, depth + 1);
	}
	closedir(d);
}

/* The traces under PATH, sorted by name after those already in TRACES. */
static enum ct_discovery_status discover_one(const char *path, GPtrArray *traces, char *error,
                                             size_t len)
{
	guint before = traces->len;
	struct stat st;

	if (stat(path, &st) != 0) {
		snprintf(error, len, "cannot open '%s': %s", path, strerror(errno));
		return CT_DISCOVERY_INPUT_ERROR;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(error, len,
		         "'%s' is not a trace: give the trace directory (the one "
		         "`cudatrace record` or `lttng create` made)",
		         path);
		return CT_DISCOVERY_INPUT_ERROR;
	}
	find_traces(traces, path, 0);
	if (traces->len == before) {
		snprintf(error, len, "no trace in '%s': no CTF 'metadata' file in it or below it",
		         path);
		return CT_DISCOVERY_INPUT_ERROR;
	}
	/* readdir's order is the file system's: sort what this path added */
	qsort(&g_ptr_array_index(traces, before), traces->len - before, sizeof(gpointer), by_name);
	return CT_DISCOVERY_OK;
}

enum ct_discovery_status ct_discover_traces(const char *const *paths, size_t count,
                                            GPtrArray *traces, char *error, size_t len)
{
	for (size_t i = 0; i < count; i++) {
		enum ct_discovery_status status;

		/* a relay daemon's URL is a source of its own: nothing to discover */
		if (ct_live_is_url(paths[i])) {
			g_ptr_array_add(traces, g_strdup(paths[i]));
			continue;
		}
		status = discover_one(paths[i], traces, error, len);
		if (status != CT_DISCOVERY_OK)
			return status;
	}
	return CT_DISCOVERY_OK;
}
