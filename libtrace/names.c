/* SPDX-License-Identifier: MIT */
/*
 * names.c - api_name and kernel_name events, once per name and process.
 *
 * A name counts as recorded only if its event was enabled when emitted, so
 * that a session started while the program runs still gets it. The names
 * recorded are claimed in two sets (table.h's claims: lock-free), one of
 * API calls, one of kernel ids. When a set is full, names are emitted
 * again rather than lost.
 */
#include <stdbool.h>

#include <cupti.h>

#include "cudatrace-tp.h"
#include "names.h"
#include "state.h"
#include "table.h"
#include "text.h"

/* Driver and runtime calls: about 1500 callback ids exist, a few hundred
 * are traced. */
#define API_SLOTS     1024
#define KERNEL_SLOTS  8192
#define KERNEL_PROBES 32

TABLE_FIXED(api_named, API_SLOTS);
TABLE_FIXED(kernel_named, KERNEL_SLOTS);
/* Counted up after each clearing of the sets: a memo of an older count
 * holds nothing. */
unsigned names_generation;

static void emit_api_name(uint8_t domain, uint16_t cbid, const char *name)
{
	lttng_ust_do_tracepoint(cudatrace, api_name,
	                        &(struct ct_ev_api_name){
	                            .domain = domain,
	                            .cbid = cbid,
	                            .name = text_or_empty(name),
	                            .name_len = text_length(name),
	                        });
}

/* The sets' generation now, read before they are looked at: a memo filled
 * under it is stale as soon as they are cleared. */
static unsigned generation_now(void)
{
	return __atomic_load_n(&names_generation, __ATOMIC_ACQUIRE);
}

/* MEMO, of generation NOW: what it held of an older one is forgotten. */
static struct names_memo *memo_of(struct names_memo *memo, unsigned now)
{
	if (memo->generation != now)
		*memo = (struct names_memo){ .generation = now };
	return memo;
}

void names_note_api_slow(struct names_memo *memo, uint8_t domain, uint16_t cbid, const char *name)
{
	uint64_t key = names_api_key(domain, cbid);
	unsigned now = generation_now();

	if (domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API)
		return;
	if (!table_contains(&api_named, key, API_SLOTS)) {
		if (!lttng_ust_tracepoint_enabled(cudatrace, api_name))
			return;
		switch (table_claim(&api_named, key, API_SLOTS)) {
		case TABLE_PRESENT:
			break;
		case TABLE_CLAIMED:
			emit_api_name(domain, cbid, name);
			break;
		case TABLE_FULL:
			/* a name the full set does not keep is emitted again next time */
			emit_api_name(domain, cbid, name);
			return;
		}
	}
	if (memo)
		memo_of(memo, now)->api_key = key;
}

void names_emit_api(uint8_t domain, uint16_t cbid, const char *name)
{
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API)
		return;
	if (!lttng_ust_tracepoint_enabled(cudatrace, api_name))
		return;
	table_claim(&api_named, names_api_key(domain, cbid), API_SLOTS);
	emit_api_name(domain, cbid, name);
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

/* Kernel names have a bound of their own (contract/events.h). */
static size_t kernel_name_cap(void)
{
	return config.max_string > CT_KERNEL_NAME_MAX ? config.max_string : CT_KERNEL_NAME_MAX;
}

void names_note_kernel_slow(struct names_memo *memo, uint64_t kernel_id, const char *name)
{
	unsigned now = generation_now();
	enum table_claim claim;

	if (kernel_id == 0)
		return;
	if (!lttng_ust_tracepoint_enabled(cudatrace, kernel_name))
		return;
	claim = table_claim(&kernel_named, kernel_id, KERNEL_PROBES);
	if (claim != TABLE_PRESENT)
		lttng_ust_do_tracepoint(cudatrace, kernel_name,
		                        &(struct ct_ev_kernel_name){
		                            .kernel_id = kernel_id,
		                            .name = text_or_empty(name),
		                            .name_len = text_length_within(name, kernel_name_cap()),
		                        });
	/* a name the full set does not keep is emitted again next time */
	if (memo && claim != TABLE_FULL)
		memo_of(memo, now)->kernel_id = kernel_id;
}

void names_announce_again(void)
{
	table_clear(&api_named);
	table_clear(&kernel_named);
	__atomic_add_fetch(&names_generation, 1, __ATOMIC_RELEASE);
}
