/* SPDX-License-Identifier: MIT */
/*
 * test-trace-view.c - the views of a trace (trace-view.c) in a temporary
 * directory made here: a view is named after its kind, its pid namespace
 * and its process; the first view a process makes removes those left by
 * a process of its namespace that is gone, with the links in them, and
 * nothing else: not the views of a live process or of another namespace,
 * not a directory of another kind or of another name's shape.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>

#include "read/trace-view.h"

static char dir[PATH_MAX];

/* DIR/NAME made, with a link in it when LINKED; its path into PATH. */
static void make_dir(const char *name, bool linked, char *path)
{
	assert_true(snprintf(path, PATH_MAX, "%s/%s", dir, name) < PATH_MAX);
	assert_int_equal(mkdir(path, 0700), 0);
	if (linked) {
		char link[PATH_MAX + 16];

		snprintf(link, sizeof(link), "%s/metadata", path);
		assert_int_equal(symlink("/nonexistent/metadata", link), 0);
	}
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* A pid no process has: a child's, once it is reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return pid;
}

static void test_stale_views_removed(void **state)
{
	struct stat st;
	unsigned long long ns;
	pid_t dead = dead_pid();
	char name[256], view[PATH_MAX], why[256];
	char gone_group[PATH_MAX], gone_repair[PATH_MAX], live[PATH_MAX], other_ns[PATH_MAX],
	    other_kind[PATH_MAX], short_suffix[PATH_MAX], old_shape[PATH_MAX];
	unsigned long long its_ns;
	long its_pid;

	(void)state;
	assert_int_equal(stat("/proc/self/ns/pid", &st), 0);
	ns = (unsigned long long)st.st_ino;
	snprintf(name, sizeof(name), "cudatrace-group-%llu-%ld.AbC123", ns, (long)dead);
	make_dir(name, true, gone_group);
	snprintf(name, sizeof(name), "cudatrace-repair-%llu-%ld.xYz789", ns, (long)dead);
	make_dir(name, true, gone_repair);
	snprintf(name, sizeof(name), "cudatrace-group-%llu-%ld.live00", ns, (long)getppid());
	make_dir(name, true, live);
	snprintf(name, sizeof(name), "cudatrace-group-%llu-%ld.other0", ns + 1, (long)dead);
	make_dir(name, true, other_ns);
	snprintf(name, sizeof(name), "cudatrace-python-%llu-%ld.kind00", ns, (long)dead);
	make_dir(name, true, other_kind);
	snprintf(name, sizeof(name), "cudatrace-group-%llu-%ld.abc", ns, (long)dead);
	make_dir(name, true, short_suffix);
	make_dir("cudatrace-group.Old123", true, old_shape);

	assert_int_equal(ct_trace_view_create("group", view, sizeof(view), why, sizeof(why)), 0);

	assert_false(exists(gone_group));
	assert_false(exists(gone_repair));
	assert_true(exists(live));
	assert_true(exists(other_ns));
	assert_true(exists(other_kind));
	assert_true(exists(short_suffix));
	assert_true(exists(old_shape));
	/* the new view is named so that a later process knows whose it is */
	assert_int_equal(strncmp(view, dir, strlen(dir)), 0);
	assert_int_equal(
	    sscanf(view + strlen(dir), "/cudatrace-group-%llu-%ld.", &its_ns, &its_pid), 2);
	assert_true(its_ns == ns);
	assert_int_equal(its_pid, (long)getpid());
	assert_true(exists(view));
	ct_trace_view_remove(view);
	assert_false(exists(view));
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/test-trace-view.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	/* the views are made there */
	assert_int_equal(setenv("TMPDIR", dir, 1), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stale_views_removed, setup, teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
