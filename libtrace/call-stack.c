/* SPDX-License-Identifier: MIT */
/*
 * call-stack.c - call_stack events: the calling thread's stack, unwound
 * with libunwind, recorded once per distinct stack and process.
 *
 * Programs are built with optimisation and without frame pointers, so the
 * stack is unwound from the DWARF call frame information (.eh_frame) by
 * libunwind's local unwinder: unw_backtrace() walks it with a per-thread
 * cache of the frames it has decoded, so a stack seen before costs about
 * seventy instructions a frame (bench/stack-depth.md). It
 * takes no lock of ours; libunwind looks an address it has not cached up
 * with dl_iterate_phdr(3), which holds the loader's lock only for the
 * time of the walk, as loaded-objects.c does. It is called from the
 * callbacks' handler only, which a thread never re-enters (callbacks.c's
 * busy flag): a signal handler that allocates while this thread unwinds
 * is not traced, rather than unwinding within the unwinder. It adds no
 * thread-local variable: the static TLS block a dlopened library may use
 * is small, and lttng-ust's and callbacks.c's fill most of it.
 *
 * A stack is named by the FNV-1a hash of its addresses, claimed in a fixed
 * lock-free set (table.h) as names.c claims kernel names: memory stays
 * bounded, and when the set is full a stack is emitted again rather than
 * lost. Symbols are resolved offline by the analyzers, from the
 * addresses and the objects lttng-ust's statedump records.
 *
 * In a Python process the thread's Python frames (python-frames.h) go
 * with its native ones, in the same event and under the same id: the
 * hash covers both, so one native stack reached from two Python lines
 * is two stacks.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "api-call.h"
#include "call-stack.h"
#include "cudatrace-tp.h"
#include "python-frames.h"
#include "repeats.h"
#include "state.h"
#include "table.h"

#define STACK_SLOTS  16384
#define STACK_PROBES 32

/* Our own frames are left out: CUPTI's callback, the tracer's dispatch.
 * At most this many of them sit above the caller's first frame. */
#define OWN_FRAMES_MAX 16

/* The most bytes of Python frames a stack carries, on the caller's stack:
 * about 60 frames of usual names; the innermost that fit are kept. */
#define PYTHON_TEXT_MAX 8192

TABLE_FIXED(stacks_named, STACK_SLOTS);

/* The bounds of libcudatrace's own mapping: the linker's symbols, bound
 * to this object (hidden), so that no lookup is needed at run time. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char __etext[] __attribute__((visibility("hidden")));

/* libunwind caches what it decoded per thread rather than in one cache
 * behind its own lock (its default): application threads allocating at
 * once never wait on each other here. Set when the library is loaded,
 * before any callback. */
__attribute__((constructor)) static void per_thread_caching(void)
{
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

static bool own_frame(const void *ip)
{
	return (const char *)ip >= __ehdr_start && (const char *)ip < __etext;
}

static uint64_t stack_hash(void *const *frames, int n, const char *python, size_t python_len)
{
	uint64_t hash = 0xcbf29ce484222325ULL;

	for (int i = 0; i < n; i++) {
		uint64_t a = (uint64_t)(uintptr_t)frames[i];

		for (int b = 0; b < 64; b += 8) {
			hash ^= (a >> b) & 0xff;
			hash *= 0x100000001b3ULL;
		}
	}
	for (size_t i = 0; i < python_len; i++) {
		hash ^= (unsigned char)python[i];
		hash *= 0x100000001b3ULL;
	}
	return hash ? hash : 1;
}

uint64_t call_stack_id(void)
{
	void *frames[OWN_FRAMES_MAX + CT_STACK_FRAMES_MAX];
	char python[PYTHON_TEXT_MAX];
	size_t python_len;
	unsigned depth = config.stack_depth;
	int n, first = 0;
	uint64_t id;

	if (depth == 0 || !lttng_ust_tracepoint_enabled(cudatrace, call_stack))
		return 0;
	n = unw_backtrace(frames, (int)(OWN_FRAMES_MAX + depth));
	while (first < n && own_frame(frames[first]))
		first++;
	n -= first;
	if (n <= 0)
		return 0;
	if (n > (int)depth)
		n = (int)depth;
	python_len = python_frames_format(python, sizeof(python), depth);
	id = stack_hash(frames + first, n, python, python_len);
	if (table_claim(&stacks_named, id, STACK_PROBES) == TABLE_PRESENT)
		return id;
	_Static_assert(sizeof(void *) == sizeof(uint64_t),
	               "frames are written as 64-bit addresses");
	lttng_ust_do_tracepoint(cudatrace, call_stack,
	                        &(struct ct_ev_call_stack){
	                            .stack_id = id,
	                            .frames = (const uint64_t *)(frames + first),
	                            .frames_count = (uint16_t)n,
	                            .python = python,
	                            .python_len = (uint16_t)python_len,
	                        });
	return id;
}

bool call_stack_sites_off;

/* Bumped when a session starts: each thread's site is said again. */
static unsigned sites_generation;

static void write_site(struct api_call *call, uint32_t correlation_id, uint64_t stack_id)
{
	repeats_flush(call->repeats); /* the thread's events stay in the order of its calls */
	lttng_ust_do_tracepoint(cudatrace, call_site,
	                        &(struct ct_ev_call_site){
	                            .correlation_id = correlation_id,
	                            .stack_id = stack_id,
	                        });
}

/* The stack of the calling thread, whose Python frames give KEY (not 0):
 * the one SITE remembers for them, else taken and remembered. */
static uint64_t stack_of_frames(struct op_site *site, uint64_t key)
{
	struct op_site_known *known = &site->known[key % OP_SITE_KNOWN];

	if (known->python_key != key) {
		known->python_key = key;
		known->stack_id = call_stack_id();
	}
	return known->stack_id;
}

void call_stack_site_note(struct api_call *call, uint32_t correlation_id)
{
	struct op_site *site = call->site;
	unsigned generation = __atomic_load_n(&sites_generation, __ATOMIC_RELAXED);
	uint64_t key, id;

	if (!config.stack_calls && python_frames_absent()) {
		__atomic_store_n(&call_stack_sites_off, true, __ATOMIC_RELAXED);
		return;
	}
	if (!config.stack_depth || !lttng_ust_tracepoint_enabled(cudatrace, call_site))
		return;
	if (config.stack_calls) {
		if ((id = call_stack_id()))
			write_site(call, correlation_id, id);
		return;
	}
	if (site->generation != generation) {
		/* a new session: its trace knows neither the site nor the stacks */
		memset(site, 0, sizeof(*site));
		site->generation = generation;
	}
	key = python_frames_key(config.stack_depth);
	if (key == site->python_key)
		return; /* the same frames, at the same instructions, as the last call */
	/* what follows may write a call_stack: after the repeats of the calls before */
	repeats_flush(call->repeats);
	id = key ? stack_of_frames(site, key) : 0;
	if (id != site->stack_id)
		/* from native code alone (0): the thread's site is no longer known */
		write_site(call, correlation_id, id);
	site->python_key = key;
	site->stack_id = id;
}

void call_stack_announce_again(void)
{
	table_clear(&stacks_named);
	__atomic_add_fetch(&sites_generation, 1, __ATOMIC_RELAXED);
}
