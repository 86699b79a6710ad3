/* SPDX-License-Identifier: MIT */
/*
 * discovery.c - finding the trace directories under the user's paths (see
 * discovery.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "discovery.h"
#include "live.h"
#include "common/log.h"

/* One path's search. */
struct search {
	GPtrArray *traces; /* borrowed: where the traces found go */
	bool too_deep;     /* directories below the depth limit were left out */
	bool too_long;     /* paths too long to open were left out */
};

/* DIR/NAME into BUF (PATH_MAX bytes); -1 if it does not fit. */
static int join(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", dir, name);

	return n < 0 || n >= PATH_MAX ? -1 : 0;
}

static int is_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	return join(path, dir, name) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds DIR if it is a CTF trace (has a "metadata" file), else looks below it. */
static void find_traces(struct search *s, const char *dir, int depth)
{
	DIR *d;
	struct dirent *entry;

	if (is_file(dir, "metadata")) {
		g_ptr_array_add(s->traces, g_strdup(dir));
		return;
	}
	d = opendir(dir);
	if (!d)
		return;
	while ((entry = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (entry->d_name[0] == '.')
			continue;
		if (join(path, dir, entry->d_name) < 0) {
			s->too_long = true;
			continue;
		}
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (depth + 1 > CT_DISCOVERY_MAX_DEPTH) {
			s->too_deep = true;
			break;
		}
		find_traces(s, path, depth + 1);
	}
	closedir(d);
}

/* Why nothing was found under PATH, in ERROR. */
static void nothing_found(const struct search *s, const char *path, char *error, size_t len)
{
	char shown[CT_SHOWN_PATH_MAX];

	ct_shown_path(path, shown, sizeof(shown));
	if (s->too_deep)
		snprintf(error, len,
		         "no trace in '%s' within %d directory levels: deeper directories are not "
		         "searched; give the trace directory itself",
		         shown, CT_DISCOVERY_MAX_DEPTH);
	else if (s->too_long)
		snprintf(error, len,
		         "no trace in '%s': the paths below it that are too long to open (%d "
		         "bytes) were left out",
		         shown, PATH_MAX);
	else
		snprintf(error, len, "no trace in '%s': no CTF 'metadata' file in it or below it",
		         shown);
}

/* The traces under PATH, sorted by name after those already in TRACES. */
static enum ct_discovery_status discover_one(const char *path, GPtrArray *traces, char *error,
                                             size_t len)
{
	struct search s = { .traces = traces };
	guint before = traces->len;
	char shown[CT_SHOWN_PATH_MAX];
	struct stat st;

	ct_shown_path(path, shown, sizeof(shown));
	if (strlen(path) >= PATH_MAX) {
		snprintf(error, len, "'%s' is too long for a path (at most %d bytes)", shown,
		         PATH_MAX - 1);
		return CT_DISCOVERY_INPUT_ERROR;
	}
	if (stat(path, &st) != 0) {
		snprintf(error, len, "cannot open '%s': %s", shown, strerror(errno));
		return CT_DISCOVERY_INPUT_ERROR;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(error, len,
		         "'%s' is not a trace: give the trace directory (the one "
		         "`cudatrace record` or `lttng create` made)",
		         shown);
		return CT_DISCOVERY_INPUT_ERROR;
	}
	find_traces(&s, path, 0);
	if (traces->len == before) {
		nothing_found(&s, path, error, len);
		return CT_DISCOVERY_INPUT_ERROR;
	}
	if (s.too_deep)
		ct_log_warning("'%s': directories more than %d levels below it were not searched",
		               shown, CT_DISCOVERY_MAX_DEPTH);
	/* readdir's order is the file system's: sort what this path added */
	qsort(&g_ptr_array_index(traces, before), traces->len - before, sizeof(gpointer), by_name);
	return CT_DISCOVERY_OK;
}

/* A key that is the same for two names of one trace: its device and inode, or the URL. */
static char *identity(const char *trace)
{
	struct stat st;

	if (ct_live_is_url(trace) || stat(trace, &st) != 0)
		return g_strdup(trace);
	return g_strdup_printf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
}

/*
 * Drops from TRACES, after FROM, each trace already there under another
 * name (the same path given twice, a directory and one below it, a
 * symbolic link): a trace read twice would count its events twice.
 */
static void drop_duplicates(GPtrArray *traces, guint from)
{
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; i < traces->len;) {
		char *key = identity(g_ptr_array_index(traces, i));
		const char *first = g_hash_table_lookup(seen, key);

		if (!first) {
			g_hash_table_insert(seen, key, g_ptr_array_index(traces, i));
			i++;
			continue;
		}
		if (i >= from) {
			const char *again = g_ptr_array_index(traces, i);
			char a[CT_SHOWN_PATH_MAX], b[CT_SHOWN_PATH_MAX];

			ct_shown_path(again, a, sizeof(a));
			if (!strcmp(again, first))
				ct_log_warning("the trace '%s' is named twice: it is read once", a);
			else
				ct_log_warning("'%s' is the same trace as '%s': it is read once", a,
				               ct_shown_path(first, b, sizeof(b)));
		}
		g_free(key);
		g_ptr_array_remove_index(traces, i);
	}
	g_hash_table_destroy(seen);
}

enum ct_discovery_status ct_discover_traces(const char *const *paths, size_t count,
                                            GPtrArray *traces, char *error, size_t len)
{
	guint before = traces->len;

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
	drop_duplicates(traces, before);
	return CT_DISCOVERY_OK;
}
