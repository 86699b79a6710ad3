/* SPDX-License-Identifier: MIT */
/*
 * tracker.c - the allocation map, in two tables of table.h.
 *
 * Address ranges are found by any address inside them without an ordered
 * index. Each range has a size class: class c holds sizes up to 2^shift(c)
 * bytes, the classes 16 times apart (4 KiB, 64 KiB, ... 2^60), so that a
 * range touches at most two aligned granules of 2^shift(c) bytes; it is
 * added to the table under the key (c, granule) of each. "Which range
 * contains A" is then one key per class that has ranges, (c, A's granule):
 * one probe or two for most programs, and none takes a lock (table_read).
 * Ranges never overlap (an insert first drops the stale ones it overlaps:
 * allocations whose release cudatrace did not see), so at most one
 * contains A.
 *
 * VMM physical allocation handles are exact keys of a table of their own.
 *
 * A value is the whole entry (ENTRY_WORDS words, pack/unpack): what the
 * statedump and a context's destruction need is there too, with no second
 * table to keep in step. A lookup, on the path of every copy, reads only
 * the words in front: the range, its kind and device.
 *
 * Inserts and removals hold their table's lock: allocations and releases
 * of all threads are serialised there, for the few hundred nanoseconds an
 * update takes, while the lookups of copies and memsets run in parallel.
 */
#include "contract/events.h"
#include "contract/assert.h"
#include "table.h"
#include "tracker.h"

#define CLASS_COUNT 13 /* shifts 12 to 60 */
#define CLASS_BITS  58 /* a key: class + 1 above this bit, the granule below */
/* Stale ranges an insert drops one by one, before it sweeps the table. */
#define PURGE_MAX 64

/* The value of an entry: start, size, kind, device and the allocating
 * call's domain and cbid, context and stream, correlation id, allocation
 * time, then the VMM word (a mapping's handle, or a physical allocation's
 * references and mappings). */
#define ENTRY_WORDS 7

static struct table addresses = TABLE_INIT(ENTRY_WORDS, SIZE_MAX);
static struct table handles = TABLE_INIT(ENTRY_WORDS, SIZE_MAX);

/* Changes to the address ranges so far (tracker_changes): bumped after
 * each change, under the lock, with release; read with acquire, so that a
 * thread that sees a count sees the ranges as they were when it was
 * reached, or later. */
static uint64_t address_changes;

/* Ranges of each class, under addresses' lock; the classes that have
 * some, for lock-free lookups. */
static uint32_t class_ranges[CLASS_COUNT];
static uint32_t active_classes;

/* Classes are bits of a uint32_t; a key holds class + 1 above CLASS_BITS
 * and, below, any granule (the smallest granules are 2^12 bytes). */
_Static_assert(CLASS_COUNT <= 32 && 12 + 4 * (CLASS_COUNT - 1) < 64 &&
                   CLASS_COUNT < (1u << (64 - CLASS_BITS)) && 64 - 12 <= CLASS_BITS,
               "a key holds a class and any granule of it");
_Static_assert(sizeof(((struct tracker_entry *)0)->kind) == 1 &&
                   sizeof(((struct tracker_entry *)0)->device) == 1 &&
                   sizeof(((struct tracker_entry *)0)->api.domain) == 1 &&
                   sizeof(((struct tracker_entry *)0)->api.cbid) == 2,
               "kind, device, domain and cbid are packed in a value word");
_Static_assert(sizeof(((struct tracker_entry *)0)->context) == 4 &&
                   sizeof(((struct tracker_entry *)0)->stream) == 4 &&
                   sizeof(((struct tracker_entry *)0)->api.correlation_id) == 4 &&
                   sizeof(((struct tracker_entry *)0)->refs) == 4 &&
                   sizeof(((struct tracker_entry *)0)->maps) == 4,
               "context and stream, references and mappings share a value word");

static unsigned class_shift(unsigned c)
{
	return 12 + 4 * c;
}

uint64_t tracker_range_end(const struct tracker_entry *e)
{
	uint64_t size = e->size ? e->size : 1;

	return e->start + size < e->start ? UINT64_MAX : e->start + size;
}

/* The smallest class whose granule holds size: its range touches at most
 * two granules (the last class: as many as it must). */
static unsigned class_of(const struct tracker_entry *e)
{
	uint64_t size = tracker_range_end(e) - e->start;
	unsigned c = 0;

	while (c < CLASS_COUNT - 1 && size > (UINT64_C(1) << class_shift(c)))
		c++;
	return c;
}

static uint64_t granule_key(unsigned c, uint64_t granule)
{
	return (uint64_t)(c + 1) << CLASS_BITS | granule;
}

/* The key of class c under which the range containing address is. */
static uint64_t address_key(unsigned c, uint64_t address)
{
	return granule_key(c, address >> class_shift(c));
}

static void pack(const struct tracker_entry *e, uint64_t *value)
{
	value[0] = e->start;
	value[1] = e->size;
	value[2] = e->kind | (uint64_t)e->device << 8 | (uint64_t)e->api.domain << 16 |
	           (uint64_t)e->api.cbid << 24 | (uint64_t)e->write_combined << 40;
	value[3] = e->context | (uint64_t)e->stream << 32;
	value[4] = e->api.correlation_id;
	value[5] = e->alloc_time;
	if (e->kind == CT_MEM_VMM_MAP)
		value[6] = e->handle;
	else if (e->kind == CT_MEM_VMM_PHYSICAL)
		value[6] = e->refs | (uint64_t)e->maps << 32;
	else
		value[6] = 0;
}

/* What a lookup reads: the first LOOKUP_WORDS words of a value. */
#define LOOKUP_WORDS 3

static void unpack_lookup(const uint64_t *value, struct tracker_entry *e)
{
	*e = (struct tracker_entry){
		.start = value[0],
		.size = value[1],
		.kind = (uint8_t)value[2],
		.device = (uint8_t)(value[2] >> 8),
		.api = { .domain = (uint8_t)(value[2] >> 16), .cbid = (uint16_t)(value[2] >> 24) },
		.stream = CT_STREAM_NONE,
		.write_combined = (value[2] >> 40) & 1,
	};
}

static void unpack(const uint64_t *value, struct tracker_entry *e)
{
	*e = (struct tracker_entry){
		.start = value[0],
		.size = value[1],
		.kind = (uint8_t)value[2],
		.device = (uint8_t)(value[2] >> 8),
		.api = { .domain = (uint8_t)(value[2] >> 16),
		         .cbid = (uint16_t)(value[2] >> 24),
		         .correlation_id = (uint32_t)value[4] },
		.context = (uint32_t)value[3],
		.stream = (uint32_t)(value[3] >> 32),
		.alloc_time = value[5],
		.write_combined = (value[2] >> 40) & 1,
	};
	if (e->kind == CT_MEM_VMM_MAP) {
		e->handle = value[6];
	} else if (e->kind == CT_MEM_VMM_PHYSICAL) {
		e->refs = (uint32_t)value[6];
		e->maps = (uint32_t)(value[6] >> 32);
	}
}

/* Called on every probe of a lookup: reads the range only. */
static bool value_contains(const uint64_t *value, const void *ctx)
{
	uint64_t address = *(const uint64_t *)ctx;
	struct tracker_entry e = { .start = value[0], .size = value[1] };

	return e.start <= address && address < tracker_range_end(&e);
}

static bool value_starts_at(const uint64_t *value, const void *ctx)
{
	return value[0] == *(const uint64_t *)ctx;
}

/* [lo, hi) */
struct interval {
	uint64_t lo;
	uint64_t hi;
};

static bool value_starts_within(const uint64_t *value, const void *ctx)
{
	const struct interval *in = ctx;

	return in->lo <= value[0] && value[0] < in->hi;
}

/* ------------------------------------------------------- address ranges */

/* The range containing address; lock-free, or under the lock. */
static bool find_containing(uint64_t address, bool locked, struct tracker_entry *found)
{
	uint32_t classes = __atomic_load_n(&active_classes, __ATOMIC_ACQUIRE);
	uint64_t value[ENTRY_WORDS];

	while (classes) {
		unsigned c = (unsigned)__builtin_ctz(classes);
		uint64_t key = address_key(c, address);
		bool hit = locked ? table_find(&addresses, key, value_contains, &address, value)
		                  : table_read_first(&addresses, key, value_contains, &address,
		                                     value, LOOKUP_WORDS);

		if (hit) {
			if (locked)
				unpack(value, found);
			else
				unpack_lookup(value, found);
			return true;
		}
		classes &= classes - 1;
	}
	return false;
}

static void count_range(unsigned c, bool added)
{
	if (added) {
		class_ranges[c]++;
	} else {
		/* A class with no range left would be searched forever more,
		 * or one with ranges never. */
		if (!CT_CHECK(class_ranges[c] > 0))
			return;
		class_ranges[c]--;
	}
	__atomic_store_n(&active_classes,
	                 class_ranges[c] ? active_classes | 1u << c : active_classes & ~(1u << c),
	                 __ATOMIC_RELEASE);
}

/* Under the lock: take e (of class c) out of the granules it is under. */
static void drop_keys(unsigned c, const struct tracker_entry *e)
{
	uint64_t last = (tracker_range_end(e) - 1) >> class_shift(c);

	for (uint64_t g = e->start >> class_shift(c); g <= last; g++) {
		bool removed =
		    table_remove(&addresses, granule_key(c, g), value_starts_at, &e->start, NULL);

		CT_ASSERT(removed);
	}
	count_range(c, false);
}

/* Under the lock: add e under the granules it touches; false (and nothing
 * added) when memory runs out. */
static bool add_keys(const struct tracker_entry *e)
{
	unsigned c = class_of(e);
	uint64_t first = e->start >> class_shift(c);
	uint64_t last = (tracker_range_end(e) - 1) >> class_shift(c);
	uint64_t value[ENTRY_WORDS];

	pack(e, value);
	for (uint64_t g = first; g <= last; g++) {
		if (table_add(&addresses, granule_key(c, g), value))
			continue;
		while (g-- > first)
			table_remove(&addresses, granule_key(c, g), value_starts_at, &e->start,
			             NULL);
		return false;
	}
	count_range(c, true);
	return true;
}

/* Under the lock: remove the range that starts at start. */
static bool remove_range(uint64_t start, struct tracker_entry *removed)
{
	uint32_t classes = active_classes;
	uint64_t value[ENTRY_WORDS];

	while (classes) {
		unsigned c = (unsigned)__builtin_ctz(classes);

		if (table_find(&addresses, address_key(c, start), value_starts_at, &start, value)) {
			unpack(value, removed);
			drop_keys(c, removed);
			return true;
		}
		classes &= classes - 1;
	}
	return false;
}

struct scan {
	uint32_t classes;
	struct interval in;
	uint64_t value[ENTRY_WORDS];
	bool found;
};

static bool scan_visit(uint64_t key, const uint64_t *value, void *ctx)
{
	struct scan *s = ctx;
	unsigned c = (unsigned)(key >> CLASS_BITS) - 1;

	if (!(s->classes & 1u << c) || !value_starts_within(value, &s->in))
		return true;
	for (unsigned w = 0; w < ENTRY_WORDS; w++)
		s->value[w] = value[w];
	s->found = true;
	return false;
}

/* Under the lock: a range that starts in [lo, hi). Per class, the keys of
 * the granules of [lo, hi), or, where those outnumber the table's keys,
 * one pass over the table: bounded by the smaller. */
static bool find_starting_within(uint64_t lo, uint64_t hi, struct tracker_entry *found)
{
	struct scan scan = { .classes = 0, .in = { lo, hi }, .found = false };
	uint32_t classes = active_classes;
	uint64_t keys = table_count(&addresses);

	while (classes) {
		unsigned c = (unsigned)__builtin_ctz(classes);
		uint64_t first = lo >> class_shift(c);
		uint64_t last = (hi - 1) >> class_shift(c);

		classes &= classes - 1;
		if (last - first >= keys) {
			scan.classes |= 1u << c;
			continue;
		}
		for (uint64_t g = first; g <= last; g++) {
			if (table_find(&addresses, granule_key(c, g), value_starts_within, &scan.in,
			               scan.value)) {
				unpack(scan.value, found);
				return true;
			}
		}
	}
	if (scan.classes)
		table_each(&addresses, scan_visit, &scan);
	if (scan.found)
		unpack(scan.value, found);
	return scan.found;
}

/* Under the lock: a range that overlaps [start, end). */
static bool find_overlap(uint64_t start, uint64_t end, struct tracker_entry *found)
{
	return find_containing(start, true, found) || find_starting_within(start, end, found);
}

/* Whether key is the first granule key of the range value (each range is
 * under one key or two). */
static bool first_key(uint64_t key, const uint64_t *value)
{
	unsigned c = (unsigned)(key >> CLASS_BITS) - 1;

	return key == address_key(c, value[0]);
}

struct overlapping {
	struct interval in;
	struct tracker_entry *out;
	size_t max;
	size_t count;
};

static bool overlap_visit(uint64_t key, const uint64_t *value, void *ctx)
{
	struct overlapping *o = ctx;
	struct tracker_entry e;

	if (!first_key(key, value))
		return true;
	unpack(value, &e);
	if (e.start < o->in.hi && o->in.lo < tracker_range_end(&e))
		o->out[o->count++] = e;
	return o->count < o->max;
}

/* Under the lock: drop every range that overlaps [start, end). One by
 * one for the few an insert usually finds; past PURGE_MAX, whole passes
 * over the table, PURGE_MAX ranges a pass. */
static void purge_overlaps(uint64_t start, uint64_t end)
{
	struct tracker_entry stale[PURGE_MAX];
	struct overlapping o = { .in = { start, end }, .out = stale, .max = PURGE_MAX };
	int i;

	for (i = 0; i < PURGE_MAX && find_overlap(start, end, &stale[0]); i++)
		remove_range(stale[0].start, &stale[0]);
	if (i < PURGE_MAX)
		return;
	do {
		o.count = 0;
		table_each(&addresses, overlap_visit, &o);
		for (size_t n = 0; n < o.count; n++)
			drop_keys(class_of(&stale[n]), &stale[n]);
	} while (o.count == o.max);
}

/* Ends a change of the address ranges: counted, then unlocked. */
static void unlock_changed(void)
{
	__atomic_add_fetch(&address_changes, 1, __ATOMIC_RELEASE);
	table_unlock(&addresses);
}

static bool insert_address(const struct tracker_entry *entry)
{
	bool added;

	table_lock(&addresses);
	purge_overlaps(entry->start, tracker_range_end(entry));
	added = add_keys(entry);
	unlock_changed();
	return added;
}

static bool remove_address(uint64_t start, struct tracker_entry *removed)
{
	bool hit;

	table_lock(&addresses);
	hit = remove_range(start, removed);
	unlock_changed();
	return hit;
}

/* ---------------------------------------------------------- VMM handles */

static bool insert_handle(const struct tracker_entry *entry)
{
	uint64_t value[ENTRY_WORDS];
	bool added;

	if (entry->start == 0)
		return false; /* not a handle, and not a key */
	pack(entry, value);
	table_lock(&handles);
	table_remove(&handles, entry->start, NULL, NULL, NULL);
	added = table_add(&handles, entry->start, value);
	table_unlock(&handles);
	return added;
}

static bool remove_handle(uint64_t handle, struct tracker_entry *removed)
{
	uint64_t value[ENTRY_WORDS];
	bool hit;

	if (handle == 0)
		return false;
	table_lock(&handles);
	hit = table_remove(&handles, handle, NULL, NULL, value);
	table_unlock(&handles);
	if (hit)
		unpack(value, removed);
	return hit;
}

static bool lookup_handle(uint64_t handle, struct tracker_entry *found)
{
	uint64_t value[ENTRY_WORDS];

	if (handle == 0 || !table_read(&handles, handle, NULL, NULL, value))
		return false;
	unpack(value, found);
	return true;
}

/* ------------------------------------------------------------ interface */

bool tracker_insert(enum tracker_space space, const struct tracker_entry *entry)
{
	if (space == TRACKER_VMM_HANDLES)
		return insert_handle(entry);
	return insert_address(entry);
}

bool tracker_remove(enum tracker_space space, uint64_t start, struct tracker_entry *removed)
{
	if (space == TRACKER_VMM_HANDLES)
		return remove_handle(start, removed);
	return remove_address(start, removed);
}

static bool value_any(const uint64_t *value, const void *ctx)
{
	(void)value;
	(void)ctx;
	return true;
}

/* A range is kept under the key of every granule of its class it meets
 * (add_range): a granule whose key holds none meets no range of that
 * class. */
bool tracker_free_around(uint64_t address, uint64_t *lo, uint64_t *hi)
{
	uint32_t classes = __atomic_load_n(&active_classes, __ATOMIC_ACQUIRE);

	*lo = 0;
	*hi = UINT64_MAX;
	while (classes) {
		unsigned c = (unsigned)__builtin_ctz(classes);
		uint64_t granule = UINT64_C(1) << class_shift(c);
		uint64_t start = address & ~(granule - 1);
		/* the space's last granule ends at its last address (left out) */
		uint64_t end = start + granule ? start + granule : UINT64_MAX;

		if (table_read_first(&addresses, address_key(c, address), value_any, NULL, NULL, 0))
			return false;
		if (start > *lo)
			*lo = start;
		if (end < *hi)
			*hi = end;
		classes &= classes - 1;
	}
	return true;
}

bool tracker_lookup(enum tracker_space space, uint64_t key, struct tracker_entry *found)
{
	if (space == TRACKER_VMM_HANDLES)
		return lookup_handle(key, found);
	return find_containing(key, false, found);
}

uint64_t tracker_changes(void)
{
	return __atomic_load_n(&address_changes, __ATOMIC_ACQUIRE);
}

bool tracker_remove_within(uint64_t start, uint64_t end, struct tracker_entry *removed)
{
	struct tracker_entry e;
	bool hit;

	if (end <= start)
		return false;
	table_lock(&addresses);
	hit = find_starting_within(start, end, &e) && remove_range(e.start, removed);
	unlock_changed();
	return hit;
}

/* ------------------------------------------------------- VMM bookkeeping */

enum tracker_vmm tracker_vmm_adjust(uint64_t handle, int refs, int maps,
                                    struct tracker_entry *freed)
{
	enum tracker_vmm result = TRACKER_VMM_UNKNOWN;
	uint64_t value[ENTRY_WORDS];
	struct tracker_entry e;

	if (handle == 0)
		return result;
	table_lock(&handles);
	if (!table_find(&handles, handle, NULL, NULL, value))
		goto end;
	unpack(value, &e);
	/* A count that would go below 0 or wrap is someone else's mistake
	 * (a call that will fail): nothing changes. */
	if ((refs < 0 && e.refs == 0) || (maps < 0 && e.maps == 0) ||
	    (refs > 0 && e.refs == UINT32_MAX) || (maps > 0 && e.maps == UINT32_MAX))
		goto end;
	e.refs += (uint32_t)refs;
	e.maps += (uint32_t)maps;
	if (e.refs == 0 && e.maps == 0) {
		table_remove(&handles, handle, NULL, NULL, NULL);
		if (freed)
			*freed = e;
		result = TRACKER_VMM_FREED;
	} else {
		pack(&e, value);
		table_replace(&handles, handle, NULL, NULL, value);
		result = TRACKER_VMM_ADJUSTED;
	}
end:
	table_unlock(&handles);
	return result;
}

/* -------------------------------------------------------- whole-map walks */

struct collect {
	struct tracker_entry *out;
	size_t max;
	size_t count;
	bool ranges;      /* address ranges: each under its first key only */
	uint32_t context; /* 0: every entry; else those this context owns */
};

static bool collect_visit(uint64_t key, const uint64_t *value, void *ctx)
{
	struct collect *c = ctx;
	struct tracker_entry e;

	if (c->ranges && !first_key(key, value))
		return true;
	unpack(value, &e);
	if (c->context != 0 && e.context != c->context)
		return true;
	if (c->count < c->max)
		c->out[c->count] = e;
	c->count++;
	/* Taking a context's: only what fits, the caller comes back. */
	return c->context == 0 || c->count < c->max;
}

size_t tracker_take_context(uint32_t context, struct tracker_entry *out, size_t max)
{
	struct collect c = { .out = out, .max = max, .ranges = true, .context = context };

	if (context == 0 || max == 0)
		return 0;
	table_lock(&addresses);
	table_each(&addresses, collect_visit, &c);
	for (size_t i = 0; i < c.count; i++)
		drop_keys(class_of(&out[i]), &out[i]);
	unlock_changed();
	return c.count;
}

size_t tracker_count(void)
{
	return table_count(&addresses) + table_count(&handles);
}

size_t tracker_snapshot(struct tracker_entry *out, size_t max)
{
	struct collect c = { .out = out, .max = max, .ranges = true };

	/* Both locks, always in this order: one moment for both spaces. */
	table_lock(&addresses);
	table_lock(&handles);
	table_each(&addresses, collect_visit, &c);
	c.ranges = false;
	table_each(&handles, collect_visit, &c);
	table_unlock(&handles);
	table_unlock(&addresses);
	return c.count;
}
