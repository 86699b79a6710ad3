/* SPDX-License-Identifier: MIT */
/*
 * tracker.c - adding the traced program and its descendants to the
 * session's virtual-pid tracker.
 *
 * The tree is rooted at cudatrace itself: as a child subreaper, it
 * inherits the descendants whose parent exits, so they stay reachable by
 * parent pid. A scan reads the parent of every process in /proc and adds
 * those whose parent chain leads here.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "diag.h"
#include "tracker.h"

struct tracker {
	struct lttng_process_attr_tracker_handle *handle; /* owned */
	void (*added_cb)(pid_t pid, void *data);          /* told of each process added */
	void *data;
	pid_t *added; /* owned; count of capacity used */
	size_t count, capacity;
	bool warned; /* a failed add was reported once */
};

/* A process and its parent, from /proc. */
struct proc_link {
	pid_t pid, ppid;
};

struct tracker *tracker_create(const char *session, void (*added)(pid_t pid, void *data),
                               void *data)
{
	struct tracker *t = calloc(1, sizeof(*t));
	enum lttng_error_code ret;

	if (!t) {
		diag_error("cannot follow the program's processes: out of memory");
		return NULL;
	}
	ret = lttng_session_get_tracker_handle(session, LTTNG_DOMAIN_UST,
	                                       LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &t->handle);
	if (ret != LTTNG_OK) {
		diag_error("cannot follow the program's processes: %s; --all-processes records "
		           "every process of the user instead",
		           lttng_strerror(-(int)ret));
		free(t);
		return NULL;
	}
	t->added_cb = added;
	t->data = data;
	/* Orphans of the program come to us, and so stay in the tree. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	return t;
}

static bool is_added(const struct tracker *t, pid_t pid)
{
	for (size_t i = 0; i < t->count; i++) {
		if (t->added[i] == pid)
			return true;
	}
	return false;
}

int tracker_add(struct tracker *t, pid_t pid)
{
	enum lttng_process_attr_tracker_handle_status st;

	if (is_added(t, pid))
		return 0;
	if (t->count == t->capacity) {
		size_t cap = t->capacity ? t->capacity * 2 : 16;
		pid_t *grown = realloc(t->added, cap * sizeof(*grown));

		if (!grown)
			goto fail;
		t->added = grown;
		t->capacity = cap;
	}
	st = lttng_process_attr_virtual_process_id_tracker_handle_add_pid(t->handle, pid);
	if (st != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK &&
	    st != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_EXISTS)
		goto fail;
	t->added[t->count++] = pid;
	if (t->added_cb)
		t->added_cb(pid, t->data);
	return 0;
fail:
	if (!t->warned)
		diag_error("cannot record process %ld: the session daemon refused to follow it",
		           (long)pid);
	t->warned = true;
	return -1;
}

/* The parent of PID from /proc/PID/stat ("pid (comm) state ppid ..."); 0 if gone. */
static pid_t parent_of(const char *pid)
{
	char path[64], buf[512];
	FILE *f;
	char *p;
	long ppid = 0;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		(void)sscanf(p + 1, " %*c %ld", &ppid);
	fclose(f);
	return (pid_t)ppid;
}

/* Every process with its parent. Returns the count, links in *OUT (to free). */
static size_t read_links(struct proc_link **out)
{
	struct proc_link *links = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	*out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (n == cap) {
			struct proc_link *grown;

			cap = cap ? cap * 2 : 512;
			grown = realloc(links, cap * sizeof(*grown));
			if (!grown)
				break;
			links = grown;
		}
		links[n].pid = (pid_t)atol(de->d_name);
		links[n].ppid = parent_of(de->d_name);
		n++;
	}
	closedir(d);
	*out = links;
	return n;
}

void tracker_scan(struct tracker *t)
{
	struct proc_link *links;
	size_t n = read_links(&links);
	pid_t self = getpid();
	bool grew = true;

	/* Parents may come after their children in /proc order: repeat until stable. */
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			if (links[i].ppid == 0 || is_added(t, links[i].pid))
				continue;
			if (links[i].ppid != self && !is_added(t, links[i].ppid))
				continue;
			if (tracker_add(t, links[i].pid) == 0)
				grew = true;
			else
				links[i].ppid = 0;
		}
	}
	free(links);
}

void tracker_destroy(struct tracker *t)
{
	if (!t)
		return;
	lttng_process_attr_tracker_handle_destroy(t->handle);
	free(t->added);
	free(t);
}
