/* SPDX-License-Identifier: MIT */
/*
 * names.c - api_name and kernel_name events, once per name and process.
 *
 * A name counts as recorded only if its event was enabled when emitted, so
 * that a session started while the program runs still gets it. Lookups are
 * lock-free: a bitmap for API callback ids, an open-addressing set of
 * kernel ids. When the kernel set is full, names are emitted again rather
 * than lost.
 */
#include <stdbool.h>

#include <cupti.h>

#include "cudatrace-tp.h"
#include "names.h"
#include "text.h"

#define API_CBID_MAX  1024
#define KERNEL_SLOTS  8192
#define KERNEL_PROBES 32

/* [domain - 1][cbid]: driver and runtime only. */
static uint8_t api_named[2][API_CBID_MAX];
static uint64_t kernel_named[KERNEL_SLOTS];

void names_note_api(uint8_t domain, uint16_t cbid, const char *name)
{
	uint8_t *flag;

	if (domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API)
		return;
	if (cbid >= API_CBID_MAX)
		return;
	flag = &api_named[domain - 1][cbid];
	if (__atomic_load_n(flag, __ATOMIC_RELAXED))
		return;
	if (!lttng_ust_tracepoint_enabled(cudatrace, api_name))
		return;
	if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
		return;
	lttng_ust_do_tracepoint(cudatrace, api_name,
	                        &(struct ct_ev_api_name){
	                            .domain = domain,
	                            .cbid = cbid,
	                            .name = text_or_empty(name),
	                            .name_len = text_length(name),
	                        });
}

uint64_t names_kernel_id(const char *name)
{
	uint64_t hash = 0xcbf29ce484222325ULL;

	if (!name)
		return 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		hash ^= *p;
		hash *= 0x100000001b3ULL;
	}
	return hash ? hash : 1;
}

/* Claim kernel_id in the set: true if this call is the first to. */
static bool kernel_claim(uint64_t kernel_id)
{
	size_t slot = (size_t)(kernel_id % KERNEL_SLOTS);

	for (int i = 0; i < KERNEL_PROBES; i++) {
		uint64_t *cell = &kernel_named[(slot + (size_t)i) % KERNEL_SLOTS];
		uint64_t seen = __atomic_load_n(cell, __ATOMIC_RELAXED);

		if (seen == kernel_id)
			return false;
		if (seen == 0) {
			uint64_t expected = 0;

			if (__atomic_compare_exchange_n(cell, &expected, kernel_id, false,
			                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				return true;
			if (expected == kernel_id)
				return false;
		}
	}
	return true;
}

void names_note_kernel(uint64_t kernel_id, const char *name)
{
	if (kernel_id == 0 || !lttng_ust_tracepoint_enabled(cudatrace, kernel_name))
		return;
	if (!kernel_claim(kernel_id))
		return;
	lttng_ust_do_tracepoint(cudatrace, kernel_name,
	                        &(struct ct_ev_kernel_name){
	                            .kernel_id = kernel_id,
	                            .name = text_or_empty(name),
	                            .name_len = text_length(name),
	                        });
}

void names_announce_again(void)
{
	for (size_t d = 0; d < 2; d++) {
		for (size_t cbid = 0; cbid < API_CBID_MAX; cbid++)
			__atomic_store_n(&api_named[d][cbid], 0, __ATOMIC_RELAXED);
	}
	for (size_t slot = 0; slot < KERNEL_SLOTS; slot++)
		__atomic_store_n(&kernel_named[slot], 0, __ATOMIC_RELAXED);
}
