/* SPDX-License-Identifier: MIT */
/*
 * test-site-growth.c - memory that grows at a call site, without NVTX
 * ranges: the memory analysis (memory.growing_sites) and its finding
 * (site_growth), fed synthetic training loops whose truth is known. A
 * site that keeps 8 MiB a step is one; what is not a leak is not: memory
 * freed each step or before exit, a buffer allocated once at start-up,
 * weights loaded one after the other, a cache that grows to a plateau,
 * what is too small to weigh on the peak. Several sites are told apart
 * and ranked by what they hold; memory an NVTX range's growth already
 * explains is told once; failures come first. Memory never freed at exit
 * is a leak, once, when no failure tells more.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "feed.h"
#include "findings/findings.h"

#define PID   100
#define BASE  UINT64_C(0x7f0000000000)
#define STEPS 20

/* Where each step's activations go, and where what it keeps starts. */
#define ACTIVATIONS (BASE + 64 * GIB)
#define KEPT        (BASE + 128 * GIB)
#define ASYNC_KEPT  (BASE + 192 * GIB)

static const struct ct_analysis_class *const memory_only[] = { &ct_memory_analysis, NULL };

/* One step of a training loop: 32 MiB of activations (cudaMallocAsync), freed at its end. */
static void activations(struct feed *f)
{
	feed_alloc(f, PID, PID, 0, CT_MEM_ASYNC, ACTIVATIONS, 32 * MIB);
}

static void activations_freed(struct feed *f)
{
	feed_free(f, PID, PID, 0, CT_MEM_ASYNC, ACTIVATIONS, 32 * MIB);
}

/* STEPS steps, each keeping SIZE (cudaMalloc, none when 0), FREE_IT: and freeing it. */
static void training(struct feed *f, int steps, uint64_t size, bool free_it)
{
	for (int step = 0; step < steps; step++) {
		uint64_t kept = KEPT + (uint64_t)step * 64 * MIB;

		activations(f);
		if (size)
			feed_alloc(f, PID, PID, 0, CT_MEM_DEVICE, kept, size);
		if (size && free_it)
			feed_free(f, PID, PID, 0, CT_MEM_DEVICE, kept, size);
		activations_freed(f);
	}
}

/* The report of F, with its findings. */
static void report(struct feed *f)
{
	feed_report(f);
	feed_findings(f);
}

/* How many findings of KIND the report has. */
static size_t findings_of(const struct feed *f, const char *kind)
{
	const struct ct_node *list = feed_get(f, "findings");
	size_t n = 0;

	assert_non_null(list);
	for (size_t i = 0; i < ct_node_count(list); i++) {
		const struct ct_node *k = ct_node_get(ct_node_child(list, i), "kind");

		n += k && k->type == CT_NODE_STRING && !strcmp(k->value.str, kind);
	}
	return n;
}

/*
 * memory_growth.py's loop: every step keeps 8 MiB from one site and frees
 * its activations. 20 allocations, none freed, 160 MiB held at the end,
 * 8 MiB more each step; the finding says so, first on the page.
 */
static void test_growth(void **state)
{
	struct feed f;

	feed_init(&f, memory_only);
	training(&f, STEPS, 8 * MIB, false);
	report(&f);

	assert_int_equal(feed_count(&f, "memory.growing_sites"), 1);
	assert_string_equal(feed_string(&f, "memory.growing_sites.0.site"), "cudaMalloc");
	assert_string_equal(feed_string(&f, "memory.growing_sites.0.api"), "cudaMalloc");
	assert_string_equal(feed_string(&f, "memory.growing_sites.0.nvtx_path"), "");
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.pid"), PID);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.allocations"), STEPS);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.freed"), 0);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.reclaimed"), 0);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.held_at_end_bytes"), 160 * MIB);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.high_bytes"), 160 * MIB);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.growth_per_rise_bytes"), 8 * MIB);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.smallest_bytes"), 8 * MIB);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.largest_bytes"), 8 * MIB);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.rises"), STEPS);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.steps"), STEPS);
	/* the peak: 152 MiB kept before the last step, then its 8 and its 32 */
	assert_float_equal(feed_double(&f, "memory.growing_sites.0.peak_share"), 160.0 / 192.0,
	                   1e-9);

	assert_int_equal(feed_count(&f, "findings"), 1);
	assert_string_equal(feed_string(&f, "findings.0.kind"), "site_growth");
	assert_string_equal(feed_string(&f, "findings.0.severity"), "warning");
	assert_string_equal(feed_string(&f, "findings.0.summary"),
	                    "cudaMalloc allocated 20 times 8.00 MiB and freed none: 160.00 MiB "
	                    "held at the end, growing 8.00 MiB each time");
	assert_non_null(strstr(feed_string(&f, "findings.0.explanation"), "20 steps"));
	assert_non_null(strstr(feed_string(&f, "findings.0.explanation"), "83 % of the device"));
	assert_non_null(strstr(feed_string(&f, "findings.0.advice"), "allocated at cudaMalloc"));
	assert_string_equal(feed_string(&f, "findings.0.where.site"), "cudaMalloc");
	assert_int_equal(feed_int(&f, "findings.0.where.device"), 0);
	assert_int_equal(feed_int(&f, "findings.0.count"), STEPS);
	assert_int_equal(feed_int(&f, "findings.0.numbers.held_at_end_bytes"), 160 * MIB);
	assert_string_equal(feed_string(&f, "findings.0.source"), "memory.growing_sites[0]");
	assert_string_equal(feed_string(&f, "findings.0.certainty"), "exact");
	feed_release(&f);
}

/*
 * The same loop, its memory reclaimed by CUDA when the context goes
 * (cudaDeviceReset) rather than freed: the program held it to the end.
 * Sizes that differ are said as a range.
 */
static void test_growth_reclaimed(void **state)
{
	struct feed f;

	feed_init(&f, memory_only);
	for (int step = 0; step < STEPS; step++) {
		activations(&f);
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, KEPT + (uint64_t)step * 64 * MIB,
		           (step % 2 ? 4 : 8) * MIB);
		activations_freed(&f);
	}
	for (int step = 0; step < STEPS; step++)
		feed_reclaim(&f, PID, PID, 0, CT_MEM_DEVICE, KEPT + (uint64_t)step * 64 * MIB,
		             (step % 2 ? 4 : 8) * MIB, CBID_CUDA_DEVICE_RESET);
	report(&f);

	assert_int_equal(feed_count(&f, "memory.growing_sites"), 1);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.reclaimed"), STEPS);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.freed"), 0);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.held_at_end_bytes"), 120 * MIB);
	assert_string_equal(feed_string(&f, "findings.0.summary"),
	                    "cudaMalloc allocated 20 times 4.00 MiB to 8.00 MiB and freed none: "
	                    "120.00 MiB held at the end, growing 5.89 MiB each time");
	assert_non_null(strstr(feed_string(&f, "findings.0.explanation"),
	                       "CUDA reclaimed 20 of them with the context"));
	feed_release(&f);
}

/* PROGRAM's report has no growing site, and no finding of one. */
static void assert_not_growth(void (*program)(struct feed *f))
{
	struct feed f;

	feed_init(&f, memory_only);
	program(&f);
	report(&f);
	assert_int_equal(ct_node_count(feed_get(&f, "memory.growing_sites")), 0);
	assert_int_equal(findings_of(&f, "site_growth"), 0);
	feed_release(&f);
}

/* What each step allocates, it frees. */
static void freed_each_step(struct feed *f)
{
	training(f, STEPS, 8 * MIB, true);
}

/* Kept for the whole loop, freed before exit. */
static void freed_before_exit(struct feed *f)
{
	training(f, STEPS, 8 * MIB, false);
	for (int step = 0; step < STEPS; step++)
		feed_free(f, PID, PID, 0, CT_MEM_DEVICE, KEPT + (uint64_t)step * 64 * MIB, 8 * MIB);
}

/* Each step's buffer freed two steps later: a pipeline. */
static void pipeline(struct feed *f)
{
	for (int step = 0; step < STEPS; step++) {
		activations(f);
		feed_alloc(f, PID, PID, 0, CT_MEM_DEVICE, KEPT + (uint64_t)step * 64 * MIB,
		           8 * MIB);
		if (step >= 2)
			feed_free(f, PID, PID, 0, CT_MEM_DEVICE,
			          KEPT + (uint64_t)(step - 2) * 64 * MIB, 8 * MIB);
		activations_freed(f);
	}
}

static void test_freed(void **state)
{
	assert_not_growth(freed_each_step);
	assert_not_growth(freed_before_exit);
	assert_not_growth(pipeline);
}

/*
 * A framework's pool (JAX's 75 %): one big buffer at start-up, then the
 * loop; CUDA reclaims it with the context at exit.
 */
static void pool(struct feed *f)
{
	feed_alloc(f, PID, PID, 0, CT_MEM_DEVICE, BASE, 3 * GIB);
	training(f, STEPS, 0, false);
	feed_reclaim(f, PID, PID, 0, CT_MEM_DEVICE, BASE, 3 * GIB, CBID_CUDA_DEVICE_RESET);
}

/* 50 weights of 4 MiB, back to back, then the loop. */
static void weights(struct feed *f)
{
	for (int i = 0; i < 50; i++)
		feed_alloc(f, PID, PID, 0, CT_MEM_DEVICE, BASE + (uint64_t)i * 4 * MIB, 4 * MIB);
	training(f, STEPS, 0, false);
}

/* A caching allocator's segments: three, in the first two steps. */
static void segments(struct feed *f)
{
	for (int step = 0; step < STEPS; step++) {
		activations(f);
		if (step < 2)
			feed_alloc(f, PID, PID, 0, CT_MEM_DEVICE, KEPT + (uint64_t)step * 64 * MIB,
			           20 * MIB);
		if (step == 1)
			feed_alloc(f, PID, PID, 0, CT_MEM_DEVICE, KEPT + 128 * MIB, 2 * MIB);
		activations_freed(f);
	}
}

/* What start-up allocates and keeps is not growth, though it is held at exit. */
static void test_start_up(void **state)
{
	assert_not_growth(pool);
	assert_not_growth(weights);
	assert_not_growth(segments);
}

/* A cache that grows for the first 5 steps of 20, then holds. */
static void plateau(struct feed *f)
{
	training(f, 5, 8 * MIB, false);
	training(f, STEPS - 5, 0, false);
}

/* ... growing for the first half, held in the second. */
static void plateau_late(struct feed *f)
{
	training(f, STEPS / 2, 8 * MIB, false);
	training(f, STEPS / 2, 0, false);
}

/*
 * A cache that grows to a plateau is not growth; the same cache growing
 * more slowly, every fourth step, but to the end, is.
 */
static void test_plateau(void **state)
{
	struct feed f;

	assert_not_growth(plateau);
	assert_not_growth(plateau_late);

	feed_init(&f, memory_only);
	for (int step = 0; step < STEPS; step++) {
		activations(&f);
		if (step % 4 == 3)
			feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, KEPT + (uint64_t)step * 64 * MIB,
			           8 * MIB);
		activations_freed(&f);
	}
	report(&f);
	assert_int_equal(feed_count(&f, "memory.growing_sites"), 1);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.steps"), 5);
	feed_release(&f);
}

/*
 * A caching allocator (PyTorch's) never frees: it asks CUDA for a 20 MiB
 * segment when its cache is full. Steps KEEP_FROM to KEEP_TO of 20, each
 * launching kernels, keep 8 MiB: a new segment every other step.
 */
static void caching(struct feed *f, int keep_from, int keep_to)
{
	int segments = 0;

	activations(f); /* the cache's first segment, for the activations */
	for (int step = 0; step < STEPS; step++) {
		feed_launch(f, PID, 0);
		if (step >= keep_from && step < keep_to && (step - keep_from) % 2 == 0)
			feed_alloc(f, PID, PID, 0, CT_MEM_DEVICE,
			           KEPT + (uint64_t)segments++ * 64 * MIB, 20 * MIB);
		feed_launch(f, PID, 0);
	}
}

/* Weights allocated one after the other, then the loop of a caching allocator. */
static void caching_weights(struct feed *f)
{
	for (int i = 0; i < 50; i++)
		feed_alloc(f, PID, PID, 0, CT_MEM_DEVICE, BASE + (uint64_t)i * 4 * MIB, 4 * MIB);
	caching(f, 0, 0);
}

static void caching_plateau(struct feed *f)
{
	caching(f, 0, 6);
}

/*
 * Under a caching allocator, with no free at all, the kernels launched
 * between its segments make the steps: growth to the end is found, not
 * the weights it loads nor a cache that stops growing.
 */
static void test_caching_allocator(void **state)
{
	struct feed f;

	feed_init(&f, memory_only);
	caching(&f, 0, STEPS);
	report(&f);
	assert_int_equal(feed_count(&f, "memory.growing_sites"), 1);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.steps"), STEPS / 2);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.held_at_end_bytes"), 200 * MIB);
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.freed"), 0);
	feed_release(&f);

	assert_not_growth(caching_weights);
	assert_not_growth(caching_plateau);
}

/*
 * 4 KiB a step beside a 4 GiB buffer. Without call stacks both are the
 * site "cudaMalloc": the buffer, held once, is not what grew.
 */
static void small_growth(struct feed *f)
{
	feed_alloc(f, PID, PID, 0, CT_MEM_DEVICE, BASE, 4 * GIB);
	training(f, STEPS, 4096, false);
}

/* Growth too small to weigh on the peak. */
static void test_too_small(void **state)
{
	assert_not_growth(small_growth);
}

/*
 * Two sites keep memory each step, 8 MiB (cudaMalloc) and 2 MiB
 * (cudaMallocAsync), the activations allocated in an NVTX range that does
 * not grow: both sites are found, the most held first, and both are
 * findings in that order.
 */
static void test_several_sites(void **state)
{
	struct feed f;

	feed_init(&f, memory_only);
	for (int step = 0; step < STEPS; step++) {
		feed_push(&f, PID, PID, "forward");
		activations(&f);
		feed_pop(&f, PID, PID);
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, KEPT + (uint64_t)step * 64 * MIB,
		           8 * MIB);
		feed_alloc(&f, PID, PID, 0, CT_MEM_ASYNC, ASYNC_KEPT + (uint64_t)step * 64 * MIB,
		           2 * MIB);
		activations_freed(&f);
	}
	report(&f);

	assert_int_equal(feed_count(&f, "memory.growing_ranges"), 0);
	assert_int_equal(feed_count(&f, "memory.growing_sites"), 2);
	assert_string_equal(feed_string(&f, "memory.growing_sites.0.site"), "cudaMalloc");
	assert_int_equal(feed_int(&f, "memory.growing_sites.0.held_at_end_bytes"), 160 * MIB);
	assert_string_equal(feed_string(&f, "memory.growing_sites.1.site"), "cudaMallocAsync");
	assert_int_equal(feed_int(&f, "memory.growing_sites.1.held_at_end_bytes"), 40 * MIB);
	assert_int_equal(feed_int(&f, "memory.growing_sites.1.allocations"), STEPS);
	assert_int_equal(feed_int(&f, "memory.growing_sites.1.growth_per_rise_bytes"), 2 * MIB);
	assert_int_equal(findings_of(&f, "site_growth"), 2);
	assert_string_equal(feed_string(&f, "findings.0.where.site"), "cudaMalloc");
	assert_string_equal(feed_string(&f, "findings.1.where.site"), "cudaMallocAsync");
	feed_release(&f);
}

/*
 * The leak inside an NVTX range that repeats: the range's growth names
 * the site already; the memory is told once, by the range.
 */
static void test_told_once(void **state)
{
	struct feed f;

	feed_init(&f, memory_only);
	feed_push(&f, PID, PID, "train");
	for (int step = 0; step < STEPS; step++) {
		feed_push(&f, PID, PID, "step");
		activations(&f);
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, KEPT + (uint64_t)step * 64 * MIB,
		           8 * MIB);
		activations_freed(&f);
		feed_pop(&f, PID, PID);
	}
	feed_pop(&f, PID, PID);
	report(&f);

	assert_int_equal(feed_count(&f, "memory.growing_sites"), 1);
	assert_string_equal(feed_string(&f, "memory.growing_sites.0.site"),
	                    "train/step:cudaMalloc");
	assert_string_equal(feed_string(&f, "memory.growing_sites.0.nvtx_path"), "train/step");
	assert_int_equal(findings_of(&f, "site_growth"), 0);
	/* train ran once: it is no repetition */
	assert_int_equal(findings_of(&f, "memory_growth"), 1);
	assert_string_equal(feed_string(&f, "findings.0.where.nvtx_path"), "train/step");
	feed_release(&f);
}

/* A failed allocation at the end: failures first, then the growth. */
static void test_ranked_after_failures(void **state)
{
	struct feed f;

	feed_init(&f, (const struct ct_analysis_class *const[]){
	                  &ct_memory_analysis, &ct_fragmentation_analysis, NULL });
	training(&f, STEPS, 8 * MIB, false);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 8 * MIB, 4 * MIB, 4 * GIB);
	report(&f);

	assert_string_equal(feed_string(&f, "findings.0.kind"), "allocation_failure");
	assert_string_equal(feed_string(&f, "findings.1.kind"), "site_growth");
	feed_release(&f);
}

/*
 * 78 MiB allocated once and never freed, beside temporaries freed each
 * time: a leak at exit, told once with its size and count; the growth
 * findings have nothing to say.
 */
static void test_leak_at_exit(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, KEPT, 78 * MIB);
	for (int i = 0; i < 5; i++) {
		feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, ACTIVATIONS, 4 * MIB);
		feed_free(&f, PID, PID, 0, CT_MEM_DEVICE, ACTIVATIONS, 4 * MIB);
	}
	report(&f);

	assert_int_equal(findings_of(&f, "site_growth"), 0);
	assert_int_equal(findings_of(&f, "leak"), 1);
	assert_string_equal(feed_string(&f, "findings.0.kind"), "leak");
	assert_string_equal(feed_string(&f, "findings.0.severity"), "warning");
	assert_string_equal(feed_string(&f, "findings.0.summary"),
	                    "proc100 (pid 100) ended with 78.00 MiB on device 0 it never freed: 1 "
	                    "allocation at cudaMalloc, 78.00 MiB");
	assert_int_equal(feed_int(&f, "findings.0.count"), 1);
	assert_int_equal(feed_int(&f, "findings.0.numbers.leaked_bytes"), 78 * MIB);
	feed_release(&f);
}

/* A process whose allocation failed: the failure is the finding, not what it held. */
static void test_no_leak_after_failure(void **state)
{
	struct feed f;

	(void)state;
	feed_init(&f, memory_only);
	feed_alloc(&f, PID, PID, 0, CT_MEM_DEVICE, KEPT, 78 * MIB);
	feed_failed(&f, PID, PID, 0, CT_MEM_DEVICE, 8 * GIB, 2 * GIB, 4 * GIB);
	report(&f);

	assert_int_equal(findings_of(&f, "leak"), 0);
	feed_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_growth_reclaimed),
		cmocka_unit_test(test_freed),
		cmocka_unit_test(test_start_up),
		cmocka_unit_test(test_plateau),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_caching_allocator),
		cmocka_unit_test(test_several_sites),
		cmocka_unit_test(test_told_once),
		cmocka_unit_test(test_ranked_after_failures),
		cmocka_unit_test(test_leak_at_exit),
		cmocka_unit_test(test_no_leak_after_failure),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
