/* SPDX-License-Identifier: MIT */
/*
 * test-tracer-lib.c - unit tests of where `cudatrace record` looks for the
 * libcudatrace.so of an installed tree that was moved or staged under
 * DESTDIR (cli/tracer-lib.c, compiled into this test): pkglibdir as seen
 * from the command's own directory standing for bindir. And which tracer
 * a driver gets: libcudatrace-cuda12.so beside libcudatrace.so for CUPTI
 * 12, in directories made here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tracer-lib.h"

static void expect_path(const char *bindir, const char *pkglibdir, const char *command_dir,
                        const char *expected)
{
	char out[256];

	assert_int_equal(tracer_lib_relative(bindir, pkglibdir, command_dir, out, sizeof(out)), 0);
	assert_string_equal(out, expected);
}

static void test_installed_where_configured(void **state)
{
	expect_path("/usr/local/bin", "/usr/local/lib/cudatrace", "/usr/local/bin",
	            "/usr/local/lib/cudatrace/libcudatrace.so");
	expect_path("/usr/bin", "/usr/lib/x86_64-linux-gnu/cudatrace", "/usr/bin",
	            "/usr/lib/x86_64-linux-gnu/cudatrace/libcudatrace.so");
}

static void test_staged_under_destdir(void **state)
{
	expect_path("/usr/local/bin", "/usr/local/lib/cudatrace", "/tmp/stage/usr/local/bin",
	            "/tmp/stage/usr/local/lib/cudatrace/libcudatrace.so");
	expect_path("/home/u/.local/bin", "/home/u/.local/lib/cudatrace",
	            "/tmp/stage/home/u/.local/bin/",
	            "/tmp/stage/home/u/.local/lib/cudatrace/libcudatrace.so");
}

static void test_prefix_moved(void **state)
{
	expect_path("/usr/local/bin", "/usr/local/lib/cudatrace", "/opt/cudatrace/bin",
	            "/opt/cudatrace/lib/cudatrace/libcudatrace.so");
	/* bindir two levels below the shared part. */
	expect_path("/opt/ct/sub/bin", "/opt/ct/lib/cudatrace", "/srv/x/sub/bin",
	            "/srv/x/lib/cudatrace/libcudatrace.so");
}

static void test_the_root(void **state)
{
	expect_path("/bin", "/lib/cudatrace", "/bin", "/lib/cudatrace/libcudatrace.so");
	expect_path("/x/bin", "/x/bin/cudatrace", "/y/bin", "/y/bin/cudatrace/libcudatrace.so");
	expect_path("/x/lib/cudatrace/bin", "/x/lib/cudatrace", "/y/bin", "/y/libcudatrace.so");
}

/* DIR/NAME, an empty file. */
static void touch(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
}

static void remove_in(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static void test_tracer_for_cupti(void **state)
{
	char dir[] = "/tmp/test-tracer-lib.XXXXXX", path[512], expected[512], other[512];

	assert_non_null(mkdtemp(dir));
	touch(dir, TRACER_LIB_NAME);
	touch(dir, TRACER_LIB_CUDA12_NAME);
	snprintf(expected, sizeof(expected), "%s/" TRACER_LIB_CUDA12_NAME, dir);
	/* CUPTI 12: the sibling */
	snprintf(path, sizeof(path), "%s/" TRACER_LIB_NAME, dir);
	assert_int_equal(tracer_lib_for_cupti(path, sizeof(path), 12), 0);
	assert_string_equal(path, expected);
	/* CUPTI 13, or none: libcudatrace.so as it is */
	snprintf(expected, sizeof(expected), "%s/" TRACER_LIB_NAME, dir);
	for (int major = 0; major <= 13; major += 13) {
		snprintf(path, sizeof(path), "%s", expected);
		assert_int_equal(tracer_lib_for_cupti(path, sizeof(path), major), 0);
		assert_string_equal(path, expected);
	}
	/* another library named by hand is taken as it is */
	snprintf(other, sizeof(other), "%s/libmytracer.so", dir);
	snprintf(path, sizeof(path), "%s", other);
	assert_int_equal(tracer_lib_for_cupti(path, sizeof(path), 12), 0);
	assert_string_equal(path, other);
	/* too short a buffer for the sibling: unchanged, -1 */
	snprintf(path, strlen(expected) + 1, "%s", expected);
	assert_int_equal(tracer_lib_for_cupti(path, strlen(expected) + 1, 12), -1);
	assert_string_equal(path, expected);
	/* no sibling: unchanged, -1 */
	remove_in(dir, TRACER_LIB_CUDA12_NAME);
	snprintf(path, sizeof(path), "%s", expected);
	assert_int_equal(tracer_lib_for_cupti(path, sizeof(path), 12), -1);
	assert_string_equal(path, expected);
	remove_in(dir, TRACER_LIB_NAME);
	assert_int_equal(rmdir(dir), 0);
}

static void test_refused(void **state)
{
	char out[64];

	/* Above the root, relative paths, an output too short. */
	assert_int_equal(
	    tracer_lib_relative("/a/b/bin", "/lib/cudatrace", "/bin", out, sizeof(out)), -1);
	assert_int_equal(tracer_lib_relative("bin", "/lib/cudatrace", "/bin", out, sizeof(out)),
	                 -1);
	assert_int_equal(tracer_lib_relative("/bin", "/lib", "bin", out, sizeof(out)), -1);
	assert_int_equal(tracer_lib_relative("/usr/bin", "/usr/lib/cudatrace", "/usr/bin", out, 8),
	                 -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_installed_where_configured),
		cmocka_unit_test(test_staged_under_destdir),
		cmocka_unit_test(test_prefix_moved),
		cmocka_unit_test(test_the_root),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_tracer_for_cupti),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("tracer-lib", tests, NULL, NULL);
}
