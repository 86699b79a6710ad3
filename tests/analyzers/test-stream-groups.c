/* SPDX-License-Identifier: MIT */
/*
 * test-stream-groups.c - the groups of stream files decoded in parallel
 * (stream-groups.c) on a trace directory made here, whose files' sizes
 * are known: the largest file goes first, each to the group with the
 * fewest bytes, or, where the index says when the files were written, to
 * a group apart from the files written at the same time (an index whose
 * times are damaged is weighed all the same); each group's
 * view holds the metadata, the index and its
 * own files only, as links to the trace's; no more groups than files;
 * one group (the trace itself, no view) when one is wanted or the trace
 * is live; by default, a group per MiB of stream files, up to one more
 * than the cores; the views removed with the groups;
 * CUDATRACE_DECODE_GROUPS read as a number from 1 on.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>

#include "read/stream-groups.h"

static char trace[PATH_MAX];

static void write_file(const char *name, size_t bytes)
{
	gchar *path = g_build_filename(trace, name, NULL);
	FILE *f = fopen(path, "wb");

	g_free(path);
	assert_non_null(f);
	for (size_t i = 0; i < bytes; i++)
		fputc(0, f);
	assert_int_equal(fclose(f), 0);
}

/* A trace of stream files of 300, 200 and 100 bytes, an index and a hidden file. */
static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char index[PATH_MAX + 8];

	(void)state;
	snprintf(trace, sizeof(trace), "%s/test-stream-groups.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(trace));
	write_file("metadata", 10);
	write_file("cudatrace_1", 200);
	write_file("cudatrace_0", 300);
	write_file("cudatrace-gpu_0", 100);
	write_file(".hidden", 1000);
	snprintf(index, sizeof(index), "%s/index", trace);
	assert_int_equal(mkdir(index, 0700), 0);
	return 0;
}

/* Big-endian V into 8 bytes at B. */
static void put64(unsigned char *b, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
}

/* An index for stream file NAME of BYTES: one packet, from BEGIN to END (LTTng's index 1.1). */
static void write_index(const char *name, uint64_t bytes, uint64_t begin, uint64_t end)
{
	static const unsigned char header[16] = { 0xc1, 0xf1, 0xdc, 0xc1, 0, 0, 0, 1,
		                                  0,    0,    0,    1,    0, 0, 0, 72 };
	unsigned char entry[72] = { 0 };
	gchar *base = g_strconcat(name, ".idx", NULL);
	gchar *path = g_build_filename(trace, "index", base, NULL);
	FILE *f = fopen(path, "wb");

	g_free(base);
	g_free(path);
	assert_non_null(f);
	put64(entry + 8, bytes * 8);
	put64(entry + 16, bytes * 8);
	put64(entry + 24, begin);
	put64(entry + 32, end);
	assert_int_equal(fwrite(header, 1, sizeof(header), f), sizeof(header));
	assert_int_equal(fwrite(entry, 1, sizeof(entry), f), sizeof(entry));
	assert_int_equal(fclose(f), 0);
}

/*
 * A trace as a process that moved to another CPU halfway leaves it: its
 * stream (300 bytes) and the GPU records of the same moments (200) on the
 * first CPU's files until time 2000, then on the second's from 3000 (150
 * and 100).
 */
static int setup_moved(void **state)
{
	setup(state);
	write_file("cudatrace-gpu_1", 200);
	write_file("cudatrace-gpu_0", 100);
	write_file("cudatrace_1", 150);
	write_index("cudatrace_0", 300, 1000, 2000);
	write_index("cudatrace-gpu_1", 200, 1000, 2000);
	write_index("cudatrace_1", 150, 3000, 4000);
	write_index("cudatrace-gpu_0", 100, 3000, 4000);
	return 0;
}

/* An index whose times span the whole clock, and one whose packet ends before it begins. */
static int setup_damaged(void **state)
{
	setup(state);
	write_index("cudatrace_0", 300, 0, UINT64_MAX);
	write_index("cudatrace_1", 200, UINT64_MAX / 2, UINT64_MAX / 2 - 5);
	write_index("cudatrace-gpu_0", 100, UINT64_MAX - 1, UINT64_MAX);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", trace);
	return system(cmd) == 0 ? 0 : -1;
}

/* Where VIEW/NAME links to, "" when it is not a link. */
static const char *link_of(const char *view, const char *name)
{
	static char target[PATH_MAX];
	char path[PATH_MAX * 2];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", view, name);
	n = readlink(path, target, sizeof(target) - 1);
	target[n < 0 ? 0 : n] = '\0';
	return target;
}

static bool exists(const char *view, const char *name)
{
	char path[PATH_MAX * 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", view, name);
	return lstat(path, &st) == 0;
}

/* The only view of group G of GROUPS: its trace, its metadata and index. */
static const char *only_view(const struct ct_stream_groups *groups, size_t g)
{
	char real[PATH_MAX], want[PATH_MAX * 2];
	const char *view;

	assert_int_equal(ct_stream_groups_view_count(groups, g), 1);
	assert_string_equal(ct_stream_groups_shown(groups, g)[0], trace);
	assert_int_equal(ct_stream_groups_trace_of(groups, g, 0), 0);
	view = ct_stream_groups_views(groups, g)[0];
	assert_string_not_equal(view, trace);
	assert_non_null(realpath(trace, real));
	snprintf(want, sizeof(want), "%s/metadata", real);
	assert_string_equal(link_of(view, "metadata"), want);
	snprintf(want, sizeof(want), "%s/index", real);
	assert_string_equal(link_of(view, "index"), want);
	assert_false(exists(view, ".hidden"));
	return view;
}

/* The groups of the COUNT TRACES, WANTED wanted: EXPECTED of them. */
static struct ct_stream_groups *groups_of(const char *const *traces, size_t count, size_t wanted,
                                          size_t expected)
{
	struct ct_stream_groups *groups;
	char why[256];

	groups = ct_stream_groups_create(traces, count, wanted, why, sizeof(why));
	assert_non_null(groups);
	assert_int_equal(ct_stream_groups_count(groups), expected);
	return groups;
}

static void test_two_groups_balance_bytes(void **state)
{
	const char *const traces[] = { trace };
	struct ct_stream_groups *groups = groups_of(traces, 1, 2, 2);
	char real[PATH_MAX], want[PATH_MAX * 2];
	char *first, *second;

	(void)state;
	assert_non_null(realpath(trace, real));
	/*
	 * 300 to the first; the GPU file's 100, weighed as 200 and first of
	 * the two of 200 by name, to the second; 200 to the second (201 < 301)
	 */
	first = g_strdup(only_view(groups, 0));
	second = g_strdup(only_view(groups, 1));
	snprintf(want, sizeof(want), "%s/cudatrace_0", real);
	assert_string_equal(link_of(first, "cudatrace_0"), want);
	assert_false(exists(first, "cudatrace_1"));
	assert_false(exists(first, "cudatrace-gpu_0"));
	snprintf(want, sizeof(want), "%s/cudatrace_1", real);
	assert_string_equal(link_of(second, "cudatrace_1"), want);
	snprintf(want, sizeof(want), "%s/cudatrace-gpu_0", real);
	assert_string_equal(link_of(second, "cudatrace-gpu_0"), want);
	assert_false(exists(second, "cudatrace_0"));
	ct_stream_groups_destroy(groups);
	/* the views are gone, the trace is not */
	assert_false(access(first, F_OK) == 0);
	assert_false(access(second, F_OK) == 0);
	assert_true(exists(trace, "cudatrace_0"));
	g_free(first);
	g_free(second);
}

/* Whether view V holds exactly the stream files NAMES (NULL-terminated). */
static bool holds(const char *view, const char *const *names)
{
	static const char *const all[] = { "cudatrace_0", "cudatrace_1", "cudatrace-gpu_0",
		                           "cudatrace-gpu_1" };

	for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
		bool wanted = false;

		for (const char *const *n = names; *n; n++)
			wanted |= strcmp(*n, all[i]) == 0;
		if (exists(view, all[i]) != wanted)
			return false;
	}
	return true;
}

static void test_files_written_together_go_apart(void **state)
{
	const char *const traces[] = { trace };
	struct ct_stream_groups *groups = groups_of(traces, 1, 3, 3);

	(void)state;
	/*
	 * By bytes alone, the files of the second CPU would share the third
	 * group, and one thread would decode all of the second half. A GPU
	 * file weighs twice its bytes (400, 200). The first CPU's files go
	 * apart (400, 300); the second CPU's GPU records where nothing else
	 * is decoded then, the least work; its stream (150) where it adds
	 * least, the first two groups as idle then, the one of less work.
	 * Not both GPU files in one group: each costs twice its bytes, and
	 * that group's thread would be the slowest.
	 */
	assert_true(holds(only_view(groups, 0), (const char *const[]){ "cudatrace-gpu_1", NULL }));
	assert_true(holds(only_view(groups, 1),
	                  (const char *const[]){ "cudatrace_0", "cudatrace_1", NULL }));
	assert_true(holds(only_view(groups, 2), (const char *const[]){ "cudatrace-gpu_0", NULL }));
	ct_stream_groups_destroy(groups);
}

static void test_damaged_index(void **state)
{
	const char *const traces[] = { trace };
	struct ct_stream_groups *groups = groups_of(traces, 1, 2, 2);

	(void)state;
	/* the groups are made, each a view of its own, the largest file in the first */
	only_view(groups, 0);
	only_view(groups, 1);
	assert_true(exists(ct_stream_groups_views(groups, 0)[0], "cudatrace_0"));
	ct_stream_groups_destroy(groups);
}

static void test_no_more_groups_than_files(void **state)
{
	const char *const traces[] = { trace };
	struct ct_stream_groups *groups = groups_of(traces, 1, 8, 3);

	(void)state;
	for (size_t g = 0; g < 3; g++)
		only_view(groups, g);
	ct_stream_groups_destroy(groups);
}

static void test_one_group_is_the_trace(void **state)
{
	const char *const traces[] = { trace };
	const char *const live[] = { trace, "net://localhost/host/h/s" };
	struct ct_stream_groups *groups = groups_of(traces, 1, 1, 1);

	(void)state;
	assert_int_equal(ct_stream_groups_view_count(groups, 0), 1);
	assert_string_equal(ct_stream_groups_views(groups, 0)[0], trace);
	ct_stream_groups_destroy(groups);
	assert_true(exists(trace, "cudatrace_0"));

	groups = groups_of(live, 2, 4, 1);
	assert_int_equal(ct_stream_groups_view_count(groups, 0), 2);
	assert_string_equal(ct_stream_groups_views(groups, 0)[1], live[1]);
	assert_int_equal(ct_stream_groups_trace_of(groups, 0, 1), 1);
	ct_stream_groups_destroy(groups);
}

/* Sets stream file NAME's size to BYTES (a sparse file: only its size is read). */
static void resize(const char *name, off_t bytes)
{
	gchar *path = g_build_filename(trace, name, NULL);

	assert_int_equal(truncate(path, bytes), 0);
	g_free(path);
}

static void test_groups_by_size(void **state)
{
	const char *const traces[] = { trace };
	size_t most = g_get_num_processors() + 1;
	struct ct_stream_groups *groups;

	(void)state;
	/* 600 bytes: one group, the trace itself */
	groups = groups_of(traces, 1, CT_STREAM_GROUPS_AUTO, 1);
	assert_string_equal(ct_stream_groups_views(groups, 0)[0], trace);
	ct_stream_groups_destroy(groups);
	/* exactly one group's bytes: still one */
	resize("cudatrace_0", (off_t)CT_STREAM_GROUP_BYTES - 300);
	groups = groups_of(traces, 1, CT_STREAM_GROUPS_AUTO, 1);
	ct_stream_groups_destroy(groups);
	/* a byte more: two, each a view */
	resize("cudatrace_0", (off_t)CT_STREAM_GROUP_BYTES - 299);
	groups = groups_of(traces, 1, CT_STREAM_GROUPS_AUTO, 2);
	only_view(groups, 0);
	only_view(groups, 1);
	ct_stream_groups_destroy(groups);
	/* 10 groups' bytes: one a file, up to one more than the cores */
	resize("cudatrace_0", (off_t)CT_STREAM_GROUP_BYTES * 10);
	groups = groups_of(traces, 1, CT_STREAM_GROUPS_AUTO, MIN(most, 3));
	ct_stream_groups_destroy(groups);
	/* a number asked for is made, however small the files */
	resize("cudatrace_0", 300);
	groups = groups_of(traces, 1, 2, 2);
	ct_stream_groups_destroy(groups);
}

static void test_wanted_from_the_environment(void **state)
{
	size_t chosen = CT_STREAM_GROUPS_AUTO;

	(void)state;
	assert_int_equal(setenv("CUDATRACE_DECODE_GROUPS", "3", 1), 0);
	assert_int_equal(ct_stream_groups_wanted(), 3);
	assert_int_equal(setenv("CUDATRACE_DECODE_GROUPS", "1", 1), 0);
	assert_int_equal(ct_stream_groups_wanted(), 1);
	/* not a number from 1 on: a warning, and the groups chosen by size */
	assert_int_equal(setenv("CUDATRACE_DECODE_GROUPS", "0", 1), 0);
	assert_int_equal(ct_stream_groups_wanted(), chosen);
	assert_int_equal(setenv("CUDATRACE_DECODE_GROUPS", "-2", 1), 0);
	assert_int_equal(ct_stream_groups_wanted(), chosen);
	assert_int_equal(setenv("CUDATRACE_DECODE_GROUPS", "2x", 1), 0);
	assert_int_equal(ct_stream_groups_wanted(), chosen);
	assert_int_equal(unsetenv("CUDATRACE_DECODE_GROUPS"), 0);
	assert_int_equal(ct_stream_groups_wanted(), chosen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_groups_balance_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files_written_together_go_apart, setup_moved,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_damaged_index, setup_damaged, teardown),
		cmocka_unit_test_setup_teardown(test_no_more_groups_than_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_group_is_the_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_groups_by_size, setup, teardown),
		cmocka_unit_test(test_wanted_from_the_environment),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
