/* SPDX-License-Identifier: MIT */
/*
 * test-plot.c - the plots drawn from a report made of synthetic events:
 * the files exist and are SVG and PNG, a report without the data draws
 * nothing, and a directory that cannot be made is an error, not a crash.
 *
 * With a directory as argument the plots are left there to look at.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/plot.h"
#include "synthetic-events.h"

#define MIB  (UINT64_C(1) << 20)
#define BASE UINT64_C(0x7f0000000000)

static const char *keep_dir;

/* A sawtooth of allocations with a peak, then a failed allocation; copies of three kinds. */
static void feed_workload(struct synth *s)
{
	struct synth_copy small = { CT_DIR_HTOD,      0x1000000, BASE, 4096,
		                    CT_HOST_PAGEABLE, true,      0,    31 };
	struct synth_copy large = { CT_DIR_HTOD,    0x9000000, BASE, 256 * MIB,
		                    CT_HOST_PINNED, false,     0,    41 };
	struct synth_copy back = { CT_DIR_DTOH,    BASE, 0x5000000, 16 * MIB,
		                   CT_HOST_PINNED, true, 0,         31 };
	int64_t t = 1000000000;
	uint32_t corr = 1;

	synth_api_name(s, t, CT_DOMAIN_RUNTIME, 31, "cudaMemcpy");
	synth_api_name(s, t, CT_DOMAIN_RUNTIME, 41, "cudaMemcpyAsync");
	synth_nvtx_push(s, t, "train");
	for (int step = 0; step < 6; step++) {
		synth_nvtx_push(s, t, "step");
		for (uint64_t i = 0; i < 8; i++, t += 10000000)
			synth_mem(s, t, CT_EV_MEM_ALLOC, 0,
			          BASE + (uint64_t)step * 0x40000000 + i * 64 * MIB,
			          (uint64_t)(32 + 8 * step) * MIB);
		for (int i = 0; i < 50; i++, t += 100000, corr++) {
			small.src += 4096;
			synth_copy_call(s, t, &small, corr, 30000, t + 20000, 3000);
		}
		for (uint64_t i = 0; i < 8; i++, t += 5000000)
			if (step != 3 || i % 2)
				synth_mem(s, t, CT_EV_MEM_FREE, 0,
				          BASE + (uint64_t)step * 0x40000000 + i * 64 * MIB,
				          (uint64_t)(32 + 8 * step) * MIB);
		synth_nvtx_pop(s, t);
	}
	synth_nvtx_pop(s, t);
	synth_copy_call(s, t, &large, corr++, 8000, t + 10000, 10737418);
	t += 20000000;
	synth_copy_call(s, t, &back, corr++, 700000, t + 10000, 650000);
	t += 10000000;
	synth_mem_failed(s, t, 0, 3 * 1024 * MIB, 1024 * MIB, 4096 * MIB);
}

static bool file_starts_with(const char *dir, const char *name, const char *magic, size_t len)
{
	char path[4096], head[16] = { 0 };
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return false;
	ok = fread(head, 1, len, f) == len && !memcmp(head, magic, len);
	fclose(f);
	return ok;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

static void test_plots_drawn(void **unused)
{
	char tmp[] = "/tmp/cudatrace-plot-XXXXXX";
	const char *dir = keep_dir;
	const struct ct_node *root;
	struct synth s;

	if (!dir)
		assert_non_null((dir = mkdtemp(tmp)));
	synth_init(&s, &ct_memory_analysis, &ct_fragmentation_analysis, &ct_transfers_analysis,
	           NULL);
	feed_workload(&s);
	root = synth_report(&s);
	assert_int_equal(ct_plot_write(root, dir), 2);
	assert_true(file_starts_with(dir, "memory-100-dev0.png", "\x89PNG", 4));
	assert_true(file_starts_with(dir, "transfers.png", "\x89PNG", 4));
	assert_true(file_starts_with(dir, "memory-100-dev0.svg", "<?xml", 5));
	assert_true(file_starts_with(dir, "transfers.svg", "<?xml", 5));
	synth_fini(&s);
	if (!keep_dir)
		remove_dir(dir);
}

static void test_nothing_to_draw(void **unused)
{
	char tmp[] = "/tmp/cudatrace-plot-XXXXXX";
	struct synth s;

	assert_non_null(mkdtemp(tmp));
	synth_init(&s, &ct_api_analysis, NULL);
	synth_api_call(&s, 1000, CT_DOMAIN_RUNTIME, 20, 1, 1000, 0);
	assert_int_equal(ct_plot_write(synth_report(&s), tmp), 0);
	synth_fini(&s);
	remove_dir(tmp);
}

static void test_bad_directory(void **unused)
{
	const struct ct_node *root;
	struct synth s;

	synth_init(&s, &ct_transfers_analysis, NULL);
	root = synth_report(&s);
	assert_int_equal(ct_plot_write(root, "/nonexistent-parent/plots"), -1);
	assert_int_equal(ct_plot_write(root, "/dev/null"), -1);
	synth_fini(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plots_drawn),
		cmocka_unit_test(test_nothing_to_draw),
		cmocka_unit_test(test_bad_directory),
	};

	keep_dir = argc > 1 ? argv[1] : NULL;
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
