/* SPDX-License-Identifier: MIT */
/*
 * test-allocator.c - unit tests of the simulated device heap
 * (tests/cudasim/driver-allocator.c, compiled into this test): rounding,
 * alignment, chunks, first-fit, real out-of-memory and fragmentation,
 * coalescing, lookup, hole punching and thread safety.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "driver-allocator.h"

#define MiB       (1024u * 1024u)
#define HEAP_SIZE (64u * MiB)

static int heap_setup(void **state)
{
	struct sim_heap *heap = NULL;

	if (sim_heap_create(HEAP_SIZE, "test-heap", &heap) != 0)
		return -1;
	*state = heap;
	return 0;
}

static int heap_teardown(void **state)
{
	sim_heap_destroy(*state);
	return 0;
}

static void test_empty_heap(void **state)
{
	struct sim_heap *heap = *state;

	assert_int_equal(sim_heap_reserved(heap), 0);
	assert_int_equal(sim_heap_free_bytes(heap), HEAP_SIZE);
	assert_int_equal(sim_heap_largest_free(heap), HEAP_SIZE);
	assert_int_equal((uintptr_t)sim_heap_base(heap) % (2 * MiB), 0);
	assert_int_equal(sim_heap_size(heap), HEAP_SIZE);
}

static void test_rounding(void **state)
{
	(void)state;
	assert_int_equal(sim_heap_round(0), 0);
	assert_int_equal(sim_heap_round(1), 512);
	assert_int_equal(sim_heap_round(512), 512);
	assert_int_equal(sim_heap_round(513), 1024);
	assert_int_equal(sim_heap_round(MiB - 1), MiB);
	assert_int_equal(sim_heap_round(MiB), 2 * MiB);
	assert_int_equal(sim_heap_round(2 * MiB), 2 * MiB);
	assert_int_equal(sim_heap_round(2 * MiB + 1), 4 * MiB);
	assert_int_equal(sim_heap_round(SIZE_MAX), 0);
}

static void test_bad_sizes(void **state)
{
	struct sim_heap *heap = *state;
	struct sim_heap_block block;

	assert_int_equal(sim_heap_alloc(heap, 0, &block), EINVAL);
	assert_int_equal(sim_heap_alloc(heap, SIZE_MAX, &block), ENOMEM);
	assert_int_equal(sim_heap_alloc(heap, HEAP_SIZE + 1, &block), ENOMEM);
	assert_int_equal(sim_heap_alloc_granules(heap, SIZE_MAX, &block), ENOMEM);
	assert_int_equal(sim_heap_reserved(heap), 0);
}

static void test_small_share_a_chunk(void **state)
{
	struct sim_heap *heap = *state;
	struct sim_heap_block a, b, c;

	assert_int_equal(sim_heap_alloc(heap, 1, &a), 0);
	assert_int_equal(sim_heap_alloc(heap, 1, &b), 0);
	assert_int_equal(sim_heap_alloc(heap, 700, &c), 0);
	assert_int_equal(a.reserved, 512);
	assert_int_equal(c.reserved, 1024);
	assert_int_equal(a.base % 512, 0);
	/* consecutive small allocations are 512 bytes apart, as on a GPU */
	assert_int_equal(b.base - a.base, 512);
	assert_int_equal(c.base - b.base, 512);
	/* the shared chunk is what the heap gives up */
	assert_int_equal(sim_heap_reserved(heap), 2 * MiB);

	assert_int_equal(sim_heap_free(heap, b.base, NULL), 0);
	assert_int_equal(sim_heap_reserved(heap), 2 * MiB);
	assert_int_equal(sim_heap_free(heap, a.base, NULL), 0);
	assert_int_equal(sim_heap_free(heap, c.base, NULL), 0);
	/* the chunk went back with its last allocation */
	assert_int_equal(sim_heap_reserved(heap), 0);
	assert_int_equal(sim_heap_largest_free(heap), HEAP_SIZE);
}

static void test_freed_slot_reused_first_fit(void **state)
{
	struct sim_heap *heap = *state;
	struct sim_heap_block a, b, c, d;

	assert_int_equal(sim_heap_alloc(heap, 512, &a), 0);
	assert_int_equal(sim_heap_alloc(heap, 512, &b), 0);
	assert_int_equal(sim_heap_alloc(heap, 512, &c), 0);
	assert_int_equal(sim_heap_free(heap, a.base, NULL), 0);
	assert_int_equal(sim_heap_alloc(heap, 100, &d), 0);
	assert_int_equal(d.base, a.base);
	sim_heap_free(heap, b.base, NULL);
	sim_heap_free(heap, c.base, NULL);
	sim_heap_free(heap, d.base, NULL);
	assert_int_equal(sim_heap_reserved(heap), 0);
}

static void test_large_alignment(void **state)
{
	struct sim_heap *heap = *state;
	struct sim_heap_block small, big, bigger;

	assert_int_equal(sim_heap_alloc(heap, 10, &small), 0);
	assert_int_equal(sim_heap_alloc(heap, MiB, &big), 0);
	assert_int_equal(sim_heap_alloc(heap, 2 * MiB + 1, &bigger), 0);
	assert_int_equal(big.reserved, 2 * MiB);
	assert_int_equal(bigger.reserved, 4 * MiB);
	assert_int_equal(big.base % (2 * MiB), 0);
	assert_int_equal(bigger.base % (2 * MiB), 0);
	assert_int_equal(sim_heap_reserved(heap), 8 * MiB);
	sim_heap_free(heap, small.base, NULL);
	sim_heap_free(heap, big.base, NULL);
	sim_heap_free(heap, bigger.base, NULL);
	assert_int_equal(sim_heap_reserved(heap), 0);
}

static void test_granules(void **state)
{
	struct sim_heap *heap = *state;
	struct sim_heap_block block;

	/* a small size still takes a whole granule of its own */
	assert_int_equal(sim_heap_alloc_granules(heap, 4096, &block), 0);
	assert_int_equal(block.reserved, 2 * MiB);
	assert_int_equal(block.base % (2 * MiB), 0);
	assert_int_equal(sim_heap_offset(heap, block.base),
	                 block.base - (uintptr_t)sim_heap_base(heap));
	assert_int_equal(sim_heap_free(heap, block.base, NULL), 0);
}

static void test_out_of_memory_and_fragmentation(void **state)
{
	struct sim_heap *heap = *state;
	struct sim_heap_block blocks[32], extra;

	for (int i = 0; i < 32; i++)
		assert_int_equal(sim_heap_alloc(heap, 2 * MiB, &blocks[i]), 0);
	assert_int_equal(sim_heap_alloc(heap, 2 * MiB, &extra), ENOMEM);
	assert_int_equal(sim_heap_alloc(heap, 1, &extra), ENOMEM);
	assert_int_equal(sim_heap_free_bytes(heap), 0);
	assert_int_equal(sim_heap_largest_free(heap), 0);

	for (int i = 0; i < 32; i += 2)
		assert_int_equal(sim_heap_free(heap, blocks[i].base, NULL), 0);
	/* 32 MiB free, in 2 MiB holes: a 4 MiB request cannot be met */
	assert_int_equal(sim_heap_free_bytes(heap), 32 * MiB);
	assert_int_equal(sim_heap_largest_free(heap), 2 * MiB);
	assert_int_equal(sim_heap_alloc(heap, 4 * MiB, &extra), ENOMEM);
	/* first fit: a 2 MiB request takes the lowest hole */
	assert_int_equal(sim_heap_alloc(heap, 2 * MiB, &extra), 0);
	assert_int_equal(extra.base, blocks[0].base);
	assert_int_equal(sim_heap_free(heap, extra.base, NULL), 0);

	/* freeing the rest coalesces everything into one range */
	for (int i = 1; i < 32; i += 2)
		assert_int_equal(sim_heap_free(heap, blocks[i].base, NULL), 0);
	assert_int_equal(sim_heap_largest_free(heap), HEAP_SIZE);
	assert_int_equal(sim_heap_alloc(heap, HEAP_SIZE, &extra), 0);
	assert_int_equal(sim_heap_free(heap, extra.base, NULL), 0);
}

static void test_bad_frees(void **state)
{
	struct sim_heap *heap = *state;
	struct sim_heap_block block;

	assert_int_equal(sim_heap_alloc(heap, 4 * MiB, &block), 0);
	assert_int_equal(sim_heap_free(heap, block.base + 512, NULL), EINVAL);
	assert_int_equal(sim_heap_free(heap, 0, NULL), EINVAL);
	assert_int_equal(sim_heap_free(heap, UINTPTR_MAX, NULL), EINVAL);
	assert_int_equal(sim_heap_free(heap, block.base, NULL), 0);
	assert_int_equal(sim_heap_free(heap, block.base, NULL), EINVAL);
	assert_int_equal(sim_heap_reserved(heap), 0);
}

static void test_lookup(void **state)
{
	struct sim_heap *heap = *state;
	struct sim_heap_block a, b, found;

	assert_int_equal(sim_heap_alloc(heap, 1000, &a), 0);
	assert_int_equal(sim_heap_alloc(heap, 3 * MiB, &b), 0);
	assert_true(sim_heap_lookup(heap, a.base + 999, &found));
	assert_int_equal(found.base, a.base);
	assert_int_equal(found.requested, 1000);
	assert_int_equal(found.reserved, 1024);
	assert_true(sim_heap_lookup(heap, b.base + 3 * MiB, &found));
	assert_int_equal(found.base, b.base);
	assert_int_equal(found.reserved, 4 * MiB);
	/* the slot after a small allocation belongs to nobody */
	assert_false(sim_heap_lookup(heap, a.base + 1024, &found));
	assert_false(sim_heap_lookup(heap, 16, &found));
	sim_heap_free(heap, a.base, NULL);
	assert_false(sim_heap_lookup(heap, a.base, &found));
	sim_heap_free(heap, b.base, NULL);
}

static void test_many_allocations(void **state)
{
	struct sim_heap *heap = *state;
	enum { COUNT = 20000 };
	struct sim_heap_block *blocks = calloc(COUNT, sizeof(*blocks));
	struct sim_heap_block found;

	assert_non_null(blocks);
	for (int i = 0; i < COUNT; i++)
		assert_int_equal(sim_heap_alloc(heap, 512 + (size_t)(i % 3) * 512, &blocks[i]), 0);
	for (int i = 0; i < COUNT; i++) {
		assert_true(sim_heap_lookup(heap, blocks[i].base + blocks[i].reserved - 1, &found));
		assert_int_equal(found.base, blocks[i].base);
	}
	for (int i = 0; i < COUNT; i += 2)
		assert_int_equal(sim_heap_free(heap, blocks[i].base, NULL), 0);
	for (int i = 1; i < COUNT; i += 2)
		assert_int_equal(sim_heap_free(heap, blocks[i].base, NULL), 0);
	assert_int_equal(sim_heap_reserved(heap), 0);
	assert_int_equal(sim_heap_largest_free(heap), HEAP_SIZE);
	free(blocks);
}

static void test_memory_is_real_and_punched(void **state)
{
	struct sim_heap *heap = *state;
	struct sim_heap_block block;
	struct stat before, after;
	unsigned char byte = 0;

	assert_int_equal(sim_heap_alloc(heap, 8 * MiB, &block), 0);
	memset((void *)block.base, 0xab, 8 * MiB);
	/* the memfd holds the bytes written through the device pointer */
	assert_int_equal(
	    pread(sim_heap_fd(heap), &byte, 1, (off_t)sim_heap_offset(heap, block.base + 12345)),
	    1);
	assert_int_equal(byte, 0xab);
	assert_int_equal(fstat(sim_heap_fd(heap), &before), 0);
	assert_true((uint64_t)before.st_blocks * 512 >= 8 * MiB);
	assert_int_equal(sim_heap_free(heap, block.base, NULL), 0);
	assert_int_equal(fstat(sim_heap_fd(heap), &after), 0);
	assert_true((uint64_t)after.st_blocks * 512 < MiB);
	/* punched pages read back as zeros */
	assert_int_equal(*(volatile unsigned char *)(block.base + 4096), 0);
}

static void test_tiny_heaps(void **state)
{
	struct sim_heap *heap = NULL;
	struct sim_heap_block block;

	(void)state;
	assert_int_equal(sim_heap_create(0, "empty", &heap), 0);
	assert_int_equal(sim_heap_alloc(heap, 1, &block), ENOMEM);
	assert_int_equal(sim_heap_largest_free(heap), 0);
	sim_heap_destroy(heap);

	assert_int_equal(sim_heap_create(3 * MiB, "odd", &heap), 0);
	assert_int_equal(sim_heap_free_bytes(heap), 2 * MiB);
	assert_int_equal(sim_heap_alloc(heap, 3 * MiB, &block), ENOMEM);
	assert_int_equal(sim_heap_alloc(heap, 2 * MiB, &block), 0);
	sim_heap_destroy(heap);
	sim_heap_destroy(NULL);
}

static void test_range_tree(void **state)
{
	struct sim_range nodes[100];
	struct sim_range_tree tree;

	(void)state;
	sim_range_tree_init(&tree);
	assert_null(sim_range_first(&tree));
	assert_null(sim_range_first_fit(&tree, 1));
	for (int i = 0; i < 100; i++) {
		/* inserted out of order */
		int k = (i * 37) % 100;
		nodes[k].base = 1000 + (uintptr_t)k * 100;
		nodes[k].size = (size_t)(k % 10) * 10;
		sim_range_insert(&tree, &nodes[k]);
	}
	assert_int_equal(tree.count, 100);
	assert_ptr_equal(sim_range_first(&tree), &nodes[0]);
	assert_ptr_equal(sim_range_floor(&tree, 1050), &nodes[0]);
	assert_ptr_equal(sim_range_next(&tree, 1050), &nodes[1]);
	assert_null(sim_range_floor(&tree, 999));
	assert_null(sim_range_find(&tree, 1000)); /* node 0 has size 0 */
	assert_ptr_equal(sim_range_find(&tree, 1105), &nodes[1]);
	assert_null(sim_range_find(&tree, 1110));
	assert_ptr_equal(sim_range_first_fit(&tree, 85), &nodes[9]);
	assert_int_equal(sim_range_max_size(&tree), 90);
	sim_range_remove(&tree, &nodes[9]);
	assert_ptr_equal(sim_range_first_fit(&tree, 85), &nodes[19]);
	assert_int_equal(tree.count, 99);
}

static void test_free_ranges(void **state)
{
	struct sim_range_tree set;
	uintptr_t addr = 0;

	(void)state;
	sim_range_tree_init(&set);
	assert_int_equal(sim_free_ranges_take(&set, 1, &addr), ENOMEM);
	assert_int_equal(sim_free_ranges_put(&set, 1000, 100), 0);
	assert_int_equal(sim_free_ranges_put(&set, 1200, 100), 0);
	assert_int_equal(set.count, 2);
	/* the gap between them closes into one range */
	assert_int_equal(sim_free_ranges_put(&set, 1100, 100), 0);
	assert_int_equal(set.count, 1);
	assert_int_equal(sim_range_max_size(&set), 300);
	/* carving the middle leaves both ends */
	assert_true(sim_free_ranges_carve(&set, 1100, 50));
	assert_int_equal(set.count, 2);
	assert_false(sim_free_ranges_carve(&set, 1100, 10));
	assert_false(sim_free_ranges_carve(&set, 1150, 200));
	assert_int_equal(sim_free_ranges_take(&set, 150, &addr), 0);
	assert_int_equal(addr, 1150);
	assert_int_equal(sim_free_ranges_take(&set, 100, &addr), 0);
	assert_int_equal(addr, 1000);
	sim_free_ranges_clear(&set);
	assert_int_equal(set.count, 0);
}

struct worker {
	struct sim_heap *heap;
	unsigned int seed;
	int failures;
};

static void *worker_run(void *arg)
{
	struct worker *worker = arg;
	struct sim_heap_block blocks[64];

	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 64; i++) {
			size_t size = 1 + (size_t)(rand_r(&worker->seed) % (3 * MiB));
			if (sim_heap_alloc(worker->heap, size, &blocks[i]) != 0) {
				blocks[i].base = 0;
				continue;
			}
			/* stamp the block: an overlap with another thread shows */
			memset((void *)blocks[i].base, (int)(worker->seed & 0xff), 64);
			*(volatile unsigned char *)blocks[i].base = (unsigned char)i;
		}
		for (int i = 0; i < 64; i++) {
			if (!blocks[i].base)
				continue;
			if (*(volatile unsigned char *)blocks[i].base != (unsigned char)i)
				worker->failures++;
			if (sim_heap_free(worker->heap, blocks[i].base, NULL) != 0)
				worker->failures++;
		}
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct sim_heap *heap = NULL;
	struct worker workers[4];
	pthread_t threads[4];

	(void)state;
	assert_int_equal(sim_heap_create(512 * MiB, "threads", &heap), 0);
	for (int i = 0; i < 4; i++) {
		workers[i] = (struct worker){ heap, (unsigned int)i + 1, 0 };
		assert_int_equal(pthread_create(&threads[i], NULL, worker_run, &workers[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(threads[i], NULL);
		assert_int_equal(workers[i].failures, 0);
	}
	assert_int_equal(sim_heap_reserved(heap), 0);
	assert_int_equal(sim_heap_largest_free(heap), 512 * MiB);
	sim_heap_destroy(heap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_heap, heap_setup, heap_teardown),
		cmocka_unit_test(test_rounding),
		cmocka_unit_test_setup_teardown(test_bad_sizes, heap_setup, heap_teardown),
		cmocka_unit_test_setup_teardown(test_small_share_a_chunk, heap_setup,
		                                heap_teardown),
		cmocka_unit_test_setup_teardown(test_freed_slot_reused_first_fit, heap_setup,
		                                heap_teardown),
		cmocka_unit_test_setup_teardown(test_large_alignment, heap_setup, heap_teardown),
		cmocka_unit_test_setup_teardown(test_granules, heap_setup, heap_teardown),
		cmocka_unit_test_setup_teardown(test_out_of_memory_and_fragmentation, heap_setup,
		                                heap_teardown),
		cmocka_unit_test_setup_teardown(test_bad_frees, heap_setup, heap_teardown),
		cmocka_unit_test_setup_teardown(test_lookup, heap_setup, heap_teardown),
		cmocka_unit_test_setup_teardown(test_many_allocations, heap_setup, heap_teardown),
		cmocka_unit_test_setup_teardown(test_memory_is_real_and_punched, heap_setup,
		                                heap_teardown),
		cmocka_unit_test(test_tiny_heaps),
		cmocka_unit_test(test_range_tree),
		cmocka_unit_test(test_free_ranges),
		cmocka_unit_test(test_threads),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("allocator", tests, NULL, NULL);
}
