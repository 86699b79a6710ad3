/* SPDX-License-Identifier: MIT */
/*
 * cupti-strings.c - CUPTI-owned copies of what records point to. The driver's
 * strings (kernel names, ...) are valid only during its call, while a client
 * reads a record's name long after, when the buffer comes back; the real
 * CUPTI keeps such names valid at least while the buffer is processed. The
 * copies here live until the process ends, one per distinct content.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cupti-internal.h"

struct entry {
	uint64_t hash;
	size_t size;
	const void *data; /* NULL: free slot */
};

/* Open addressing, linear probing, at most half full. */
static pthread_mutex_t strings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *table;
static size_t capacity; /* a power of two, or 0 */
static size_t used;

/* FNV-1a. */
static uint64_t hash_bytes(const void *data, size_t size)
{
	const unsigned char *byte = data;
	uint64_t hash = 0xcbf29ce484222325u;

	for (size_t i = 0; i < size; i++) {
		hash ^= byte[i];
		hash *= 0x100000001b3u;
	}
	return hash;
}

static struct entry *find_slot(struct entry *slots, size_t slot_count, uint64_t hash,
                               const void *data, size_t size)
{
	size_t mask = slot_count - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct entry *slot = &slots[i];

		if (!slot->data)
			return slot;
		if (slot->hash == hash && slot->size == size && memcmp(slot->data, data, size) == 0)
			return slot;
	}
}

/* Double the table (caller holds the lock). false when out of memory. */
static bool grow(void)
{
	size_t new_capacity = capacity ? capacity * 2 : 256;
	struct entry *slots = calloc(new_capacity, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t i = 0; i < capacity; i++) {
		if (table[i].data)
			*find_slot(slots, new_capacity, table[i].hash, table[i].data,
			           table[i].size) = table[i];
	}
	free(table);
	table = slots;
	capacity = new_capacity;
	return true;
}

/* The thread's last copy: a loop names the same kernel record after record,
 * found again by comparing its bytes, without hashing them and taking the
 * table's lock (copies live until the process ends). */
static __thread const void *last_copy;
static __thread size_t last_size;

/* NULL when memory runs out: a record then names nothing rather than
 * pointing at the caller's expired string. */
const void *cupti_intern_bytes(const void *data, size_t size)
{
	uint64_t hash;
	struct entry *slot;
	const void *copy = NULL;

	if (!data)
		return NULL;
	if (last_copy && last_size == size && memcmp(last_copy, data, size) == 0)
		return last_copy;
	hash = hash_bytes(data, size);
	pthread_mutex_lock(&strings_lock);
	if ((used + 1) * 2 > capacity && !grow())
		goto end;
	slot = find_slot(table, capacity, hash, data, size);
	if (!slot->data) {
		void *fresh = malloc(size ? size : 1);

		if (!fresh)
			goto end;
		memcpy(fresh, data, size);
		*slot = (struct entry){ .hash = hash, .size = size, .data = fresh };
		used++;
	}
	copy = slot->data;
	last_copy = copy;
	last_size = size;
end:
	pthread_mutex_unlock(&strings_lock);
	return copy;
}

const char *cupti_intern(const char *s)
{
	if (!s)
		return NULL;
	return cupti_intern_bytes(s, strlen(s) + 1);
}
