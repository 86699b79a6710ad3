/* SPDX-License-Identifier: MIT */
/*
 * trace-view.c - a trace directory's stream files, and views of it (see
 * trace-view.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contract/assert.h"
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

/* The directory views are made in: $TMPDIR, /tmp without it. */
static const char *view_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

/* The kinds of view made (ct_trace_view_create's KIND): the stale ones
 * of these only are removed. */
static const char *const kinds[] = { "group", "repair" };

static bool known_kind(const char *kind)
{
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
		if (strcmp(kind, kinds[i]) == 0)
			return true;
	return false;
}

/*
 * This process's pid namespace, as a number: a pid is only known in its
 * own (another container may share the directory). 0 without /proc.
 */
static unsigned long long pid_namespace(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* The digits at *P as a number, *P moved past them; false when there are none or too many. */
static bool number_at(const char **p, unsigned long long *n)
{
	char *end;

	if (!g_ascii_isdigit(**p))
		return false;
	errno = 0;
	*n = strtoull(*p, &end, 10);
	*p = end;
	return errno == 0;
}

/*
 * The pid in NAME when it is a view's of pid namespace NS,
 * cudatrace-KIND-NS-PID.XXXXXX (ct_trace_view_create), KIND one of
 * kinds; 0 otherwise.
 */
static pid_t view_owner(const char *name, unsigned long long ns)
{
	const char *p = NULL, *dot = strrchr(name, '.');
	unsigned long long its_ns, pid;

	if (strncmp(name, "cudatrace-", 10) != 0 || !dot || strlen(dot + 1) != 6)
		return 0;
	for (size_t i = 0; i < G_N_ELEMENTS(kinds) && !p; i++) {
		size_t n = strlen(kinds[i]);

		if (strncmp(name + 10, kinds[i], n) == 0 && name[10 + n] == '-')
			p = name + 10 + n + 1;
	}
	if (!p || !number_at(&p, &its_ns) || *p++ != '-' || !number_at(&p, &pid) || p != dot ||
	    its_ns != ns || pid == 0 || pid > INT_MAX)
		return 0;
	return (pid_t)pid;
}

/*
 * Removes the views in DIR whose process is gone: a report killed before
 * it removed its own (by SIGKILL, or at a machine's end) left them, and
 * nothing else would. Only our own, of our pid namespace NS, and only
 * those whose pid no process has (kill(2) says ESRCH; a pid used again
 * keeps them until later).
 */
static void sweep_stale(const char *dir, unsigned long long ns)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		pid_t pid = view_owner(e->d_name, ns);
		char path[PATH_MAX];
		struct stat st;

		if (!pid || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH ||
		    ct_trace_view_join(path, dir, e->d_name) < 0 || lstat(path, &st) != 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		ct_trace_view_remove(path);
	}
	if (d)
		closedir(d);
}

int ct_trace_view_create(const char *kind, char *out, size_t len, char *why, size_t why_len)
{
	static gsize swept;
	const char *dir = view_dir();
	unsigned long long ns = pid_namespace();

	CT_ASSERT(known_kind(kind));
	if (g_once_init_enter(&swept)) {
		sweep_stale(dir, ns);
		g_once_init_leave(&swept, 1);
	}
	if (snprintf(out, len, "%s/cudatrace-%s-%llu-%ld.XXXXXX", dir, kind, ns, (long)getpid()) >=
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
