/* SPDX-License-Identifier: MIT */
/*
 * test-cells.c - the cells analysis fed synthetic events with known truth:
 * what each notebook cell allocated, what of it was freed (in a later
 * cell, by another thread, reclaimed by CUDA; a release that failed) and
 * what it left live; what
 * was allocated while no cell ran; the kinds that count; a cell_end that
 * matches no running cell; a trace without cells.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "feed.h"

#define PID   100
#define OTHER 101 /* another thread of PID */
#define BASE  UINT64_C(0x7f0000000000)

static const struct ct_analysis_class *const cells_only[] = { &ct_cells_analysis, NULL };

/* The figures of row ROW of the first process's cells. */
static void assert_cell(const struct feed *f, int row, int64_t cell, const char *status,
                        int64_t allocations, int64_t allocated, int64_t freed, int64_t live_count,
                        int64_t live)
{
	char path[96];

#define FIELD(name) (snprintf(path, sizeof(path), "cells.0.cells.%d." name, row), path)
	assert_int_equal(feed_int(f, FIELD("cell")), cell);
	assert_string_equal(feed_string(f, FIELD("status")), status);
	assert_int_equal(feed_int(f, FIELD("allocations")), allocations);
	assert_int_equal(feed_int(f, FIELD("allocated_bytes")), allocated);
	assert_int_equal(feed_int(f, FIELD("freed_bytes")), freed);
	assert_int_equal(feed_int(f, FIELD("live_allocations")), live_count);
	assert_int_equal(feed_int(f, FIELD("live_bytes")), live);
#undef FIELD
}

/*
 * A (1M) before any cell. In [1]: B (2M), C (4M, another thread), a
 * vmm_map D (8M: no memory of its own), pinned host E (1M); B freed. In
 * [2] frees C and allocates F (3M), then raises. G (5M) between cells.
 * In [3] allocates H (6M) and never ends: the kernel died in it.
 */
static void test_charged_to_cells(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, cells_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 1 * MIB);
	feed_cell_begin(&f, PID, 1, 2, "import torch");
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * MIB, 2 * MIB);
	feed_alloc(&f, PID, OTHER, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 4 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_VMM_MAP, BASE + 16 * MIB, 8 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_HOST_PINNED, BASE + 32 * MIB, 1 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * MIB, 2 * MIB);
	feed_cell_end(&f, PID, 1, false);
	feed_cell_begin(&f, PID, 2, 1, "x = step()");
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 4 * MIB, 4 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 40 * MIB, 3 * MIB);
	feed_cell_end(&f, PID, 2, true);
	feed_alloc(&f, PID, OTHER, 0, CT_MEM_DEVICE, BASE + 48 * MIB, 5 * MIB);
	feed_cell_begin(&f, PID, 3, 1, "y = step()");
	/* the address of B, again: a new allocation, In [3]'s */
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 2 * MIB, 6 * MIB);
	feed_report(&f);

	assert_int_equal(feed_count(&f, "cells"), 1);
	assert_int_equal(feed_int(&f, "cells.0.pid"), PID);
	assert_int_equal(feed_int(&f, "cells.0.cell_count"), 3);
	assert_int_equal(feed_count(&f, "cells.0.cells"), 3);
	/* most live bytes first */
	assert_cell(&f, 0, 3, "running", 1, 6 * MIB, 0, 1, 6 * MIB);
	assert_cell(&f, 1, 2, "failed", 1, 3 * MIB, 0, 1, 3 * MIB);
	assert_cell(&f, 2, 1, "ran", 3, 7 * MIB, 6 * MIB, 1, 1 * MIB);
	assert_int_equal(feed_int(&f, "cells.0.cells.2.line"), 2);
	assert_string_equal(feed_string(&f, "cells.0.cells.2.first_line"), "import torch");
	assert_int_equal(feed_int(&f, "cells.0.outside_cells.allocations"), 2);
	assert_int_equal(feed_int(&f, "cells.0.outside_cells.allocated_bytes"), 6 * MIB);
	assert_int_equal(feed_int(&f, "cells.0.outside_cells.live_bytes"), 6 * MIB);
	assert_false(feed_get(&f, "cells.0.uncertain")->value.boolean);
	feed_release(&f);
}

/* Memory CUDA reclaimed (a context's destruction) counts as freed for its cell. */
static void test_reclaimed(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, cells_only);
	feed_cell_begin(&f, PID, 1, 1, "a = alloc()");
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 2 * MIB);
	feed_cell_end(&f, PID, 1, false);
	feed_cell_begin(&f, PID, 2, 1, "reset()");
	feed_reclaim(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 2 * MIB, CBID_CUDA_DEVICE_RESET);
	feed_cell_end(&f, PID, 2, false);
	feed_report(&f);
	assert_cell(&f, 0, 1, "ran", 1, 2 * MIB, 2 * MIB, 0, 0);
	assert_cell(&f, 1, 2, "ran", 0, 0, 0, 0, 0);
	feed_release(&f);
}

/*
 * In [2] releases In [1]'s A and B, and A's release fails: A is In [1]'s
 * again, live; B stays freed. The failure of a release whose mem_free is
 * not its thread's last call's changes nothing here.
 */
static void test_release_failed(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, cells_only);
	feed_cell_begin(&f, PID, 1, 1, "a, b = alloc(), alloc()");
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 1 * MIB);
	feed_cell_end(&f, PID, 1, false);
	feed_cell_begin(&f, PID, 2, 1, "free(b); free(a)");
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE + 8 * MIB, 1 * MIB);
	feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_free_failed(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * MIB);
	feed_cell_end(&f, PID, 2, true);
	feed_report(&f);
	assert_cell(&f, 0, 1, "ran", 2, 5 * MIB, 1 * MIB, 1, 4 * MIB);
	assert_cell(&f, 1, 2, "failed", 0, 0, 0, 0, 0);
	feed_release(&f);
}

/* A cell_end of another cell than the one running (its begin lost) ends nothing. */
static void test_end_of_another_cell(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, cells_only);
	feed_cell_begin(&f, PID, 5, 1, "a = alloc()");
	feed_cell_end(&f, PID, 4, false);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 2 * MIB);
	feed_report(&f);
	assert_int_equal(feed_count(&f, "cells.0.cells"), 1);
	assert_cell(&f, 0, 5, "running", 1, 2 * MIB, 0, 1, 2 * MIB);
	assert_int_equal(feed_int(&f, "cells.0.outside_cells.allocations"), 0);
	feed_release(&f);
}

/* A process that ran no cell is not listed. */
static void test_no_cells(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, cells_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, BASE, 2 * MIB);
	feed_report(&f);
	assert_non_null(feed_get(&f, "cells"));
	assert_null(feed_get(&f, "cells.0"));
	feed_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charged_to_cells), cmocka_unit_test(test_reclaimed),
		cmocka_unit_test(test_release_failed),   cmocka_unit_test(test_end_of_another_cell),
		cmocka_unit_test(test_no_cells),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
