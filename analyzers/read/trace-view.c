/* SPDX-License-Identifier: MIT */
/*
 * trace-view.c - a trace directory's stream files, and views of it (see
 * trace-view.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace-view.h"

static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

GPtrArray *ct_trace_view_streams(const char *dir)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata") ||
		    ct_trace_view_join(path, dir, e->d_name) < 0 || stat(path, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		g_ptr_array_add(names, g_strdup(e->d_name));
	}
	if (d)
		closedir(d);
	/* readdir's order is the file system's: the same trace gives the same list */
	g_ptr_array_sort(names, by_name);
	return names;
}

int ct_trace_view_join(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", dir, name);

	return n < 0 || n >= PATH_MAX ? -1 : 0;
}

int ct_trace_view_create(const char *kind, char *out, size_t len, char *why, size_t why_len)
{
	const char *tmp = getenv("TMPDIR");

	if (snprintf(out, len, "%s/cudatrace-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", kind) >=
	        (int)len ||
	    !mkdtemp(out)) {
		snprintf(why, why_len, "cannot make a temporary directory: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int ct_trace_view_link(const char *dir, const char *view, const char *name)
{
	char from[PATH_MAX], to[PATH_MAX];

	if (ct_trace_view_join(from, dir, name) < 0 || ct_trace_view_join(to, view, name) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return symlink(from, to);
}

void ct_trace_view_remove(const char *view)
{
	DIR *d = opendir(view);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (ct_trace_view_join(path, view, e->d_name) == 0)
			unlink(path);
	}
	closedir(d);
	rmdir(view);
}
