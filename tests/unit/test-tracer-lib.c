/* SPDX-License-Identifier: MIT */
/*
 * test-tracer-lib.c - unit tests of where `cudatrace record` looks for the
 * libcudatrace.so of an installed tree that was moved or staged under
 * DESTDIR (cli/tracer-lib.c, compiled into this test): pkglibdir as seen
 * from the command's own directory standing for bindir.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("tracer-lib", tests, NULL, NULL);
}
