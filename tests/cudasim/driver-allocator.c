/* SPDX-License-Identifier: MIT */
/*
 * driver-allocator.c - the device heap: a memfd per device, first-fit over
 * address-ordered free ranges, 512-byte alignment, small allocations carved
 * from shared 2 MiB chunks, freed pages punched out of the memfd.
 *
 * Nothing here knows about CUDA, so that tests/unit/test-allocator.c can
 * link this file alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "driver-allocator.h"

#define CHUNK_SLOTS (SIM_HEAP_GRANULARITY / SIM_HEAP_ALIGNMENT) /* 4096 */
#define CHUNK_WORDS (CHUNK_SLOTS / 64)
#define PUNCH_PAGE  4096u

/* ------------------------------------------------------------ treap */

static size_t max3(size_t a, size_t b, size_t c)
{
	size_t m = a > b ? a : b;
	return m > c ? m : c;
}

static void range_update(struct sim_range *node)
{
	node->max_size = max3(node->size, node->left ? node->left->max_size : 0,
	                      node->right ? node->right->max_size : 0);
}

static uint32_t tree_random(struct sim_range_tree *tree)
{
	/* xorshift32: priorities only need to be well spread */
	uint32_t x = tree->seed;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	tree->seed = x;
	return x;
}

/* Join two treaps, every key of a below every key of b. */
static struct sim_range *range_merge(struct sim_range *a, struct sim_range *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->priority > b->priority) {
		a->right = range_merge(a->right, b);
		range_update(a);
		return a;
	}
	b->left = range_merge(a, b->left);
	range_update(b);
	return b;
}

/* Split into keys < key (*lo) and keys >= key (*hi). */
static void range_split(struct sim_range *node, uintptr_t key, struct sim_range **lo,
                        struct sim_range **hi)
{
	if (!node) {
		*lo = NULL;
		*hi = NULL;
		return;
	}
	if (node->base < key) {
		range_split(node->right, key, &node->right, hi);
		range_update(node);
		*lo = node;
	} else {
		range_split(node->left, key, lo, &node->left);
		range_update(node);
		*hi = node;
	}
}

void sim_range_tree_init(struct sim_range_tree *tree)
{
	tree->root = NULL;
	tree->count = 0;
	tree->seed = 2463534242u;
}

void sim_range_insert(struct sim_range_tree *tree, struct sim_range *range)
{
	struct sim_range *lo, *hi;

	range->left = NULL;
	range->right = NULL;
	range->priority = tree_random(tree);
	range_update(range);
	range_split(tree->root, range->base, &lo, &hi);
	tree->root = range_merge(range_merge(lo, range), hi);
	tree->count++;
}

void sim_range_remove(struct sim_range_tree *tree, struct sim_range *range)
{
	struct sim_range *lo, *mid, *hi;

	range_split(tree->root, range->base, &lo, &mid);
	range_split(mid, range->base + 1, &mid, &hi);
	/* mid holds exactly the node with this base, if it was in the tree */
	tree->root = range_merge(lo, hi);
	if (mid) {
		tree->count--;
		mid->left = NULL;
		mid->right = NULL;
	}
}

struct sim_range *sim_range_floor(const struct sim_range_tree *tree, uintptr_t addr)
{
	struct sim_range *node = tree->root, *best = NULL;

	while (node) {
		if (node->base <= addr) {
			best = node;
			node = node->right;
		} else {
			node = node->left;
		}
	}
	return best;
}

struct sim_range *sim_range_find(const struct sim_range_tree *tree, uintptr_t addr)
{
	struct sim_range *node = sim_range_floor(tree, addr);

	if (node && addr - node->base < node->size)
		return node;
	return NULL;
}

struct sim_range *sim_range_next(const struct sim_range_tree *tree, uintptr_t addr)
{
	struct sim_range *node = tree->root, *best = NULL;

	while (node) {
		if (node->base > addr) {
			best = node;
			node = node->left;
		} else {
			node = node->right;
		}
	}
	return best;
}

struct sim_range *sim_range_first(const struct sim_range_tree *tree)
{
	struct sim_range *node = tree->root;

	while (node && node->left)
		node = node->left;
	return node;
}

struct sim_range *sim_range_first_fit(const struct sim_range_tree *tree, size_t size)
{
	struct sim_range *node = tree->root;

	if (!node || node->max_size < size)
		return NULL;
	while (node) {
		if (node->left && node->left->max_size >= size)
			node = node->left;
		else if (node->size >= size)
			return node;
		else
			node = node->right;
	}
	return NULL;
}

size_t sim_range_max_size(const struct sim_range_tree *tree)
{
	return tree->root ? tree->root->max_size : 0;
}

/* ------------------------------------------------------------ heap */

/* One live allocation. */
struct heap_alloc {
	struct sim_range range; /* base, size = reserved bytes */
	size_t requested;
	struct heap_chunk *chunk; /* NULL when taken from the heap directly */
};

/* A granule shared by small allocations. Its range's size is its largest
 * free run in bytes, so that first-fit over chunks is a tree query. */
struct heap_chunk {
	struct sim_range range;
	uint64_t used[CHUNK_WORDS]; /* one bit per 512-byte slot */
	unsigned int used_slots;
};

struct sim_heap {
	pthread_mutex_t lock;
	int fd;
	uint8_t *base;
	uint64_t size;
	uint64_t usable; /* whole granules */
	uint64_t reserved;
	struct sim_range_tree free_ranges; /* nodes are malloc'd sim_range */
	struct sim_range_tree allocs;      /* struct heap_alloc */
	struct sim_range_tree chunks;      /* struct heap_chunk */
};

static size_t round_up(size_t value, size_t to)
{
	return (value + to - 1) / to * to;
}

size_t sim_heap_round(size_t size)
{
	if (size == 0 || size > SIZE_MAX - SIM_HEAP_GRANULARITY)
		return 0;
	if (size < SIM_HEAP_SMALL_LIMIT)
		return round_up(size, SIM_HEAP_ALIGNMENT);
	return round_up(size, SIM_HEAP_GRANULARITY);
}

/* Let the process's memory follow live allocations: drop the pages of
 * [addr, addr + size) that lie wholly inside it. */
static void heap_punch(struct sim_heap *heap, uintptr_t addr, size_t size)
{
	uintptr_t start = round_up(addr, PUNCH_PAGE);
	uintptr_t end = (addr + size) / PUNCH_PAGE * PUNCH_PAGE;

	if (end <= start)
		return;
	/* Failure (a file system without hole punching) only costs memory. */
	(void)fallocate(heap->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	                (off_t)(start - (uintptr_t)heap->base), (off_t)(end - start));
}

static int map_aligned(int fd, uint64_t size, uint8_t **base)
{
	size_t span = size + SIM_HEAP_GRANULARITY;
	uint8_t *area, *aligned;
	void *mapped;

	area = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED)
		return errno;
	aligned = (uint8_t *)round_up((uintptr_t)area, SIM_HEAP_GRANULARITY);
	mapped = mmap(aligned, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (mapped == MAP_FAILED) {
		int err = errno;
		munmap(area, span);
		return err;
	}
	if (aligned > area)
		munmap(area, (size_t)(aligned - area));
	if (aligned + size < area + span)
		munmap(aligned + size, (size_t)(area + span - (aligned + size)));
	*base = aligned;
	return 0;
}

int sim_heap_create(uint64_t size, const char *name, struct sim_heap **out)
{
	struct sim_heap *heap;
	struct sim_range *all = NULL;
	int err;

	if (!out || size > (uint64_t)SIZE_MAX - SIM_HEAP_GRANULARITY)
		return EINVAL;
	heap = calloc(1, sizeof(*heap));
	if (!heap)
		return ENOMEM;
	heap->fd = -1;
	pthread_mutex_init(&heap->lock, NULL);
	sim_range_tree_init(&heap->free_ranges);
	sim_range_tree_init(&heap->allocs);
	sim_range_tree_init(&heap->chunks);
	heap->size = size;
	heap->usable = size / SIM_HEAP_GRANULARITY * SIM_HEAP_GRANULARITY;

	heap->fd = memfd_create(name ? name : "cudasim-heap", MFD_CLOEXEC);
	if (heap->fd < 0) {
		err = errno;
		goto error;
	}
	if (size == 0)
		goto end; /* a device with no memory: every allocation fails */
	if (ftruncate(heap->fd, (off_t)size) != 0) {
		err = errno;
		goto error;
	}
	err = map_aligned(heap->fd, size, &heap->base);
	if (err)
		goto error;
	if (heap->usable) {
		all = calloc(1, sizeof(*all));
		if (!all) {
			err = ENOMEM;
			goto error;
		}
		all->base = (uintptr_t)heap->base;
		all->size = heap->usable;
		sim_range_insert(&heap->free_ranges, all);
	}
end:
	*out = heap;
	return 0;
error:
	if (heap->base)
		munmap(heap->base, size);
	if (heap->fd >= 0)
		close(heap->fd);
	pthread_mutex_destroy(&heap->lock);
	free(heap);
	return err;
}

static void free_tree_nodes(struct sim_range_tree *tree, size_t offset)
{
	struct sim_range *node;

	while ((node = sim_range_first(tree)) != NULL) {
		sim_range_remove(tree, node);
		free((char *)node - offset);
	}
}

void sim_heap_destroy(struct sim_heap *heap)
{
	if (!heap)
		return;
	sim_free_ranges_clear(&heap->free_ranges);
	free_tree_nodes(&heap->allocs, offsetof(struct heap_alloc, range));
	free_tree_nodes(&heap->chunks, offsetof(struct heap_chunk, range));
	if (heap->base)
		munmap(heap->base, heap->size);
	if (heap->fd >= 0)
		close(heap->fd);
	pthread_mutex_destroy(&heap->lock);
	free(heap);
}

void *sim_heap_base(const struct sim_heap *heap)
{
	return heap->base;
}

uint64_t sim_heap_size(const struct sim_heap *heap)
{
	return heap->size;
}

int sim_heap_fd(const struct sim_heap *heap)
{
	return heap->fd;
}

uint64_t sim_heap_offset(const struct sim_heap *heap, uintptr_t addr)
{
	return addr - (uintptr_t)heap->base;
}

bool sim_heap_overlaps(const struct sim_heap *heap, uintptr_t addr, size_t size)
{
	uintptr_t lo = (uintptr_t)heap->base;

	if (!heap->base || size == 0)
		return false;
	return addr < lo + heap->size && addr + size > lo;
}

/* ------------------------------------------------------------ free ranges */

int sim_free_ranges_take(struct sim_range_tree *set, size_t size, uintptr_t *addr)
{
	struct sim_range *free_range = sim_range_first_fit(set, size);

	if (!free_range || size == 0)
		return ENOMEM;
	*addr = free_range->base;
	sim_range_remove(set, free_range);
	if (free_range->size == size) {
		free(free_range);
	} else {
		free_range->base += size;
		free_range->size -= size;
		sim_range_insert(set, free_range);
	}
	return 0;
}

int sim_free_ranges_put(struct sim_range_tree *set, uintptr_t base, size_t size)
{
	struct sim_range *prev = sim_range_floor(set, base);
	struct sim_range *next = sim_range_next(set, base);
	struct sim_range *merged;

	if (prev && prev->base + prev->size == base) {
		sim_range_remove(set, prev);
		prev->size += size;
		merged = prev;
	} else {
		merged = malloc(sizeof(*merged));
		if (!merged)
			return ENOMEM;
		merged->base = base;
		merged->size = size;
	}
	if (next && merged->base + merged->size == next->base) {
		sim_range_remove(set, next);
		merged->size += next->size;
		free(next);
	}
	sim_range_insert(set, merged);
	return 0;
}

bool sim_free_ranges_carve(struct sim_range_tree *set, uintptr_t base, size_t size)
{
	struct sim_range *outer = sim_range_find(set, base), *tail;
	uintptr_t end = base + size, outer_end;

	if (!outer || outer->base + outer->size < end)
		return false;
	outer_end = outer->base + outer->size;
	tail = NULL;
	if (outer_end > end) {
		tail = malloc(sizeof(*tail));
		if (!tail)
			return false;
		tail->base = end;
		tail->size = outer_end - end;
	}
	sim_range_remove(set, outer);
	if (outer->base < base) {
		outer->size = base - outer->base;
		sim_range_insert(set, outer);
	} else {
		free(outer);
	}
	if (tail)
		sim_range_insert(set, tail);
	return true;
}

void sim_free_ranges_clear(struct sim_range_tree *set)
{
	struct sim_range *node;

	while ((node = sim_range_first(set)) != NULL) {
		sim_range_remove(set, node);
		free(node);
	}
}

/* --- granules: first-fit over the heap's free ranges --- */

static int granules_take(struct sim_heap *heap, size_t size, uintptr_t *addr)
{
	int err = sim_free_ranges_take(&heap->free_ranges, size, addr);

	if (err == 0)
		heap->reserved += size;
	return err;
}

static void granules_return(struct sim_heap *heap, uintptr_t addr, size_t size)
{
	heap_punch(heap, addr, size);
	/* On failure the range cannot be tracked: it stays reserved, lost. */
	if (sim_free_ranges_put(&heap->free_ranges, addr, size) == 0)
		heap->reserved -= size;
}

/* --- chunks: a bitmap of 512-byte slots per 2 MiB granule --- */

static bool slot_used(const struct heap_chunk *chunk, unsigned int slot)
{
	return chunk->used[slot / 64] >> (slot % 64) & 1;
}

static void slots_mark(struct heap_chunk *chunk, unsigned int first, unsigned int count, bool used)
{
	for (unsigned int slot = first; slot < first + count; slot++) {
		uint64_t bit = (uint64_t)1 << (slot % 64);
		if (used)
			chunk->used[slot / 64] |= bit;
		else
			chunk->used[slot / 64] &= ~bit;
	}
}

/* First run of count free slots; CHUNK_SLOTS when none. Also reports the
 * largest free run when count is 0 (used to refresh the tree key). */
static unsigned int slots_find(const struct heap_chunk *chunk, unsigned int count,
                               unsigned int *largest)
{
	unsigned int run_start = 0, run = 0, best = 0;

	for (unsigned int slot = 0; slot < CHUNK_SLOTS; slot++) {
		if (slot % 64 == 0 && chunk->used[slot / 64] == UINT64_MAX) {
			run = 0;
			slot += 63;
			continue;
		}
		if (slot_used(chunk, slot)) {
			run = 0;
			continue;
		}
		if (run++ == 0)
			run_start = slot;
		if (run > best)
			best = run;
		if (count && run == count)
			return run_start;
	}
	if (largest)
		*largest = best;
	return CHUNK_SLOTS;
}

/* Re-key the chunk in the tree by its largest free run. */
static void chunk_rekey(struct sim_heap *heap, struct heap_chunk *chunk)
{
	unsigned int largest = 0;

	sim_range_remove(&heap->chunks, &chunk->range);
	slots_find(chunk, 0, &largest);
	chunk->range.size = (size_t)largest * SIM_HEAP_ALIGNMENT;
	sim_range_insert(&heap->chunks, &chunk->range);
}

static int chunk_new(struct sim_heap *heap, struct heap_chunk **out)
{
	struct heap_chunk *chunk = calloc(1, sizeof(*chunk));
	uintptr_t addr;
	int err;

	if (!chunk)
		return ENOMEM;
	err = granules_take(heap, SIM_HEAP_GRANULARITY, &addr);
	if (err) {
		free(chunk);
		return err;
	}
	chunk->range.base = addr;
	chunk->range.size = SIM_HEAP_GRANULARITY;
	sim_range_insert(&heap->chunks, &chunk->range);
	*out = chunk;
	return 0;
}

static int small_take(struct sim_heap *heap, size_t reserved, struct heap_chunk **chunk_out,
                      uintptr_t *addr)
{
	unsigned int count = (unsigned int)(reserved / SIM_HEAP_ALIGNMENT), first;
	struct sim_range *fit = sim_range_first_fit(&heap->chunks, reserved);
	struct heap_chunk *chunk;
	int err;

	if (fit) {
		chunk = container_of(fit, struct heap_chunk, range);
	} else {
		err = chunk_new(heap, &chunk);
		if (err)
			return err;
	}
	first = slots_find(chunk, count, NULL);
	if (first == CHUNK_SLOTS)
		return ENOMEM; /* the tree key promised a run: cannot happen */
	slots_mark(chunk, first, count, true);
	chunk->used_slots += count;
	chunk_rekey(heap, chunk);
	*chunk_out = chunk;
	*addr = chunk->range.base + (uintptr_t)first * SIM_HEAP_ALIGNMENT;
	return 0;
}

static void small_return(struct sim_heap *heap, struct heap_chunk *chunk, uintptr_t addr,
                         size_t reserved)
{
	unsigned int count = (unsigned int)(reserved / SIM_HEAP_ALIGNMENT);
	unsigned int first = (unsigned int)((addr - chunk->range.base) / SIM_HEAP_ALIGNMENT);

	slots_mark(chunk, first, count, false);
	chunk->used_slots -= count;
	if (chunk->used_slots == 0) {
		/* The chunk's last allocation: the granule goes back. */
		sim_range_remove(&heap->chunks, &chunk->range);
		granules_return(heap, chunk->range.base, SIM_HEAP_GRANULARITY);
		free(chunk);
		return;
	}
	heap_punch(heap, addr, reserved);
	chunk_rekey(heap, chunk);
}

/* --- public allocation entry points --- */

static int heap_alloc_locked(struct sim_heap *heap, size_t size, bool granules_only,
                             struct sim_heap_block *block)
{
	size_t reserved = granules_only ? (size > SIZE_MAX - SIM_HEAP_GRANULARITY
	                                       ? 0
	                                       : round_up(size, SIM_HEAP_GRANULARITY))
	                                : sim_heap_round(size);
	struct heap_alloc *alloc;
	struct heap_chunk *chunk = NULL;
	uintptr_t addr;
	int err;

	if (reserved == 0 || reserved > heap->usable)
		return ENOMEM;
	alloc = calloc(1, sizeof(*alloc));
	if (!alloc)
		return ENOMEM;
	if (reserved < SIM_HEAP_SMALL_LIMIT && !granules_only)
		err = small_take(heap, reserved, &chunk, &addr);
	else
		err = granules_take(heap, reserved, &addr);
	if (err) {
		free(alloc);
		return err;
	}
	alloc->range.base = addr;
	alloc->range.size = reserved;
	alloc->requested = size;
	alloc->chunk = chunk;
	sim_range_insert(&heap->allocs, &alloc->range);
	block->base = addr;
	block->requested = size;
	block->reserved = reserved;
	return 0;
}

static int heap_alloc(struct sim_heap *heap, size_t size, bool granules_only,
                      struct sim_heap_block *block)
{
	int err;

	if (!heap || !block)
		return EINVAL;
	if (size == 0)
		return EINVAL;
	pthread_mutex_lock(&heap->lock);
	err = heap_alloc_locked(heap, size, granules_only, block);
	pthread_mutex_unlock(&heap->lock);
	return err;
}

int sim_heap_alloc(struct sim_heap *heap, size_t size, struct sim_heap_block *block)
{
	return heap_alloc(heap, size, false, block);
}

int sim_heap_alloc_granules(struct sim_heap *heap, size_t size, struct sim_heap_block *block)
{
	return heap_alloc(heap, size, true, block);
}

int sim_heap_free(struct sim_heap *heap, uintptr_t addr, struct sim_heap_block *block)
{
	struct sim_range *range;
	struct heap_alloc *alloc;

	if (!heap)
		return EINVAL;
	pthread_mutex_lock(&heap->lock);
	range = sim_range_find(&heap->allocs, addr);
	if (!range || range->base != addr) {
		pthread_mutex_unlock(&heap->lock);
		return EINVAL;
	}
	alloc = container_of(range, struct heap_alloc, range);
	sim_range_remove(&heap->allocs, range);
	if (alloc->chunk)
		small_return(heap, alloc->chunk, alloc->range.base, alloc->range.size);
	else
		granules_return(heap, alloc->range.base, alloc->range.size);
	pthread_mutex_unlock(&heap->lock);
	if (block) {
		block->base = alloc->range.base;
		block->requested = alloc->requested;
		block->reserved = alloc->range.size;
	}
	free(alloc);
	return 0;
}

bool sim_heap_lookup(struct sim_heap *heap, uintptr_t addr, struct sim_heap_block *block)
{
	struct sim_range *range;
	bool found = false;

	if (!heap)
		return false;
	pthread_mutex_lock(&heap->lock);
	range = sim_range_find(&heap->allocs, addr);
	if (range) {
		struct heap_alloc *alloc = container_of(range, struct heap_alloc, range);
		if (block) {
			block->base = range->base;
			block->requested = alloc->requested;
			block->reserved = range->size;
		}
		found = true;
	}
	pthread_mutex_unlock(&heap->lock);
	return found;
}

uint64_t sim_heap_reserved(struct sim_heap *heap)
{
	uint64_t reserved;

	pthread_mutex_lock(&heap->lock);
	reserved = heap->reserved;
	pthread_mutex_unlock(&heap->lock);
	return reserved;
}

uint64_t sim_heap_free_bytes(struct sim_heap *heap)
{
	uint64_t free_bytes;

	pthread_mutex_lock(&heap->lock);
	free_bytes = heap->usable - heap->reserved;
	pthread_mutex_unlock(&heap->lock);
	return free_bytes;
}

uint64_t sim_heap_largest_free(struct sim_heap *heap)
{
	uint64_t largest;

	pthread_mutex_lock(&heap->lock);
	largest = sim_range_max_size(&heap->free_ranges);
	pthread_mutex_unlock(&heap->lock);
	return largest;
}
