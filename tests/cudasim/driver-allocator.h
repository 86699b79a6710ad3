/* SPDX-License-Identifier: MIT */
/*
 * driver-allocator.h - the simulated device heap, independent of CUDA.
 *
 * Two pieces:
 *  - sim_range_tree: an ordered map of address ranges (an intrusive treap
 *    keyed by base address, each node knowing the largest size in its
 *    subtree), for O(log n) lookup, first-fit and neighbour queries;
 *  - sim_heap: one device's memory, a memfd mapped once, carved first-fit
 *    into 512-byte aligned allocations (see README.md, "Memory model").
 *
 * The heap is thread-safe; a sim_range_tree is not (its owner locks it).
 */
#ifndef CUDASIM_DRIVER_ALLOCATOR_H
#define CUDASIM_DRIVER_ALLOCATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef HIDDEN
#define HIDDEN __attribute__((visibility("hidden")))
#endif

#define SIM_HEAP_ALIGNMENT   512u            /* textureAlignment */
#define SIM_HEAP_SMALL_LIMIT (1024u * 1024u) /* below it: carved from chunks */
#define SIM_HEAP_GRANULARITY (2u * 1024u * 1024u)

/* ------------------------------------------------------------ ranges */

/* The struct of the given type whose member ptr points to: the record a
 * range is embedded in. */
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* Embed in a record; the tree owns no memory. */
struct sim_range {
	uintptr_t base;
	size_t size; /* what first-fit and the subtree maximum look at */
	/* private to the tree */
	struct sim_range *left, *right;
	uint32_t priority;
	size_t max_size;
};

struct sim_range_tree {
	struct sim_range *root;
	size_t count;
	uint32_t seed;
};

HIDDEN void sim_range_tree_init(struct sim_range_tree *tree);
/* Bases must be unique in a tree. */
HIDDEN void sim_range_insert(struct sim_range_tree *tree, struct sim_range *range);
HIDDEN void sim_range_remove(struct sim_range_tree *tree, struct sim_range *range);
/* The range with the greatest base <= addr, or NULL. */
HIDDEN struct sim_range *sim_range_floor(const struct sim_range_tree *tree, uintptr_t addr);
/* The range with base <= addr < base + size, or NULL. */
HIDDEN struct sim_range *sim_range_find(const struct sim_range_tree *tree, uintptr_t addr);
/* The range with the smallest base > addr (addr 0 and no range at 0: the
 * first), or NULL. */
HIDDEN struct sim_range *sim_range_next(const struct sim_range_tree *tree, uintptr_t addr);
HIDDEN struct sim_range *sim_range_first(const struct sim_range_tree *tree);
/* The lowest-addressed range whose size is >= size, or NULL. */
HIDDEN struct sim_range *sim_range_first_fit(const struct sim_range_tree *tree, size_t size);
/* Largest size in the tree (0 when empty). */
HIDDEN size_t sim_range_max_size(const struct sim_range_tree *tree);

/*
 * A set of free address ranges: a tree whose nodes the set allocates,
 * kept coalesced. Not thread-safe.
 */
/* Take size bytes from the lowest-addressed range that has them; ENOMEM
 * when none does. */
HIDDEN int sim_free_ranges_take(struct sim_range_tree *set, size_t size, uintptr_t *addr);
/* Give [base, base + size) back, merging it with its neighbours; ENOMEM if
 * a node cannot be allocated (the range is then lost). */
HIDDEN int sim_free_ranges_put(struct sim_range_tree *set, uintptr_t base, size_t size);
/* Remove [base, base + size) if it is wholly free; false otherwise. */
HIDDEN bool sim_free_ranges_carve(struct sim_range_tree *set, uintptr_t base, size_t size);
/* Free every node. */
HIDDEN void sim_free_ranges_clear(struct sim_range_tree *set);

/* ------------------------------------------------------------ heap */

struct sim_heap;

struct sim_heap_block {
	uintptr_t base;   /* start of the allocation */
	size_t requested; /* size asked for */
	size_t reserved;  /* size taken after rounding */
};

/*
 * Create a heap of size bytes: a memfd named name, mapped once, aligned to
 * SIM_HEAP_GRANULARITY. Only whole granules are allocatable. Returns 0 or
 * an errno value.
 */
HIDDEN int sim_heap_create(uint64_t size, const char *name, struct sim_heap **heap);
/* Unmap and close; every allocation becomes invalid. */
HIDDEN void sim_heap_destroy(struct sim_heap *heap);

HIDDEN void *sim_heap_base(const struct sim_heap *heap);
HIDDEN uint64_t sim_heap_size(const struct sim_heap *heap);
HIDDEN int sim_heap_fd(const struct sim_heap *heap);

/* What a request of size bytes takes from the heap by the rounding rules
 * (512 B under 1 MiB, 2 MiB multiples from 1 MiB), 0 when it overflows. */
HIDDEN size_t sim_heap_round(size_t size);

/*
 * Allocate by the rounding rules: small requests share 2 MiB chunks, larger
 * ones are 2 MiB aligned. Returns 0, EINVAL (size 0) or ENOMEM (no block
 * large enough, or a size too big to round).
 */
HIDDEN int sim_heap_alloc(struct sim_heap *heap, size_t size, struct sim_heap_block *block);
/* Allocate a whole number of granules directly from the heap, whatever the
 * size (VMM physical memory, pool segments, context memory). */
HIDDEN int sim_heap_alloc_granules(struct sim_heap *heap, size_t size,
                                   struct sim_heap_block *block);
/* Free the allocation starting at addr; EINVAL if none starts there. The
 * freed pages are punched out of the memfd. */
HIDDEN int sim_heap_free(struct sim_heap *heap, uintptr_t addr, struct sim_heap_block *block);
/* The live allocation whose reserved extent holds addr. */
HIDDEN bool sim_heap_lookup(struct sim_heap *heap, uintptr_t addr, struct sim_heap_block *block);

/* Bytes taken from the heap (whole chunks count in full). */
HIDDEN uint64_t sim_heap_reserved(struct sim_heap *heap);
/* Allocatable bytes not taken. */
HIDDEN uint64_t sim_heap_free_bytes(struct sim_heap *heap);
/* Largest block a large request could get. */
HIDDEN uint64_t sim_heap_largest_free(struct sim_heap *heap);
/* Offset of addr in the memfd (addr must lie inside the heap). */
HIDDEN uint64_t sim_heap_offset(const struct sim_heap *heap, uintptr_t addr);
/* true if [addr, addr + size) overlaps the heap's mapping. */
HIDDEN bool sim_heap_overlaps(const struct sim_heap *heap, uintptr_t addr, size_t size);

#endif /* CUDASIM_DRIVER_ALLOCATOR_H */
