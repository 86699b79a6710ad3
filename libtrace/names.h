/* SPDX-License-Identifier: MIT */
/*
 * names.h - names recorded once per process: API calls and kernels.
 *
 * Frequent events carry a (domain, cbid) or a kernel_id instead of a name;
 * the first event that refers to one is preceded by an api_name or
 * kernel_name event (doc/events.md, "Names recorded once").
 */
#ifndef CUDATRACE_NAMES_H
#define CUDATRACE_NAMES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The names one thread noted last, and the count of names_announce_again
 * they were noted under: a loop's calls note the same call and kernel each
 * time, and find them here with a comparison instead of a look in the
 * process's sets. Zeroed: none. Its thread's own (callbacks.c).
 */
struct names_memo {
	unsigned generation;
	uint64_t api_key;
	uint64_t kernel_id;
};

/* (domain, cbid) as a key of the set of API names, and of a memo: never 0,
 * the domain is not. */
static inline uint64_t names_api_key(uint8_t domain, uint16_t cbid)
{
	return (uint64_t)domain << 16 | cbid;
}

/* Counted up each time the sets of names noted are cleared
 * (names_announce_again); names.c's, read by the memo's inline checks. */
extern unsigned names_generation;

/* Whether MEMO was filled in the sets' generation now. */
static inline bool names_memo_current(const struct names_memo *memo)
{
	return memo->generation == __atomic_load_n(&names_generation, __ATOMIC_ACQUIRE);
}

/* What names_note_api and names_note_kernel do when MEMO does not answer:
 * a look in the process's sets, the name's event written if it is not
 * there, and MEMO filled. */
void names_note_api_slow(struct names_memo *memo, uint8_t domain, uint16_t cbid, const char *name);
void names_note_kernel_slow(struct names_memo *memo, uint64_t kernel_id, const char *name);

/* Emit api_name for (domain, cbid) unless already done while enabled.
 * MEMO: the calling thread's, or NULL. Inline: a loop's call finds its
 * name in its memo, and costs a comparison. */
static inline void names_note_api(struct names_memo *memo, uint8_t domain, uint16_t cbid,
                                  const char *name)
{
	if (memo && memo->api_key == names_api_key(domain, cbid) && names_memo_current(memo))
		return;
	names_note_api_slow(memo, domain, cbid, name);
}

/* Emit api_name for (domain, cbid) now, whether or not it was before (a
 * statedump names what it refers to, for a snapshot that lost the first
 * api_name), and count it as emitted. */
void names_emit_api(uint8_t domain, uint16_t cbid, const char *name);

/* The kernel_id of a kernel name: FNV-1a 64 of the whole name (0: none). */
uint64_t names_kernel_id(const char *name);

/* Emit kernel_name for id unless already done while enabled. MEMO: the
 * calling thread's, or NULL. */
static inline void names_note_kernel(struct names_memo *memo, uint64_t kernel_id, const char *name)
{
	if (memo && memo->kernel_id == kernel_id && names_memo_current(memo))
		return;
	names_note_kernel_slow(memo, kernel_id, name);
}

/* Forget which names were emitted: each is emitted again before the next
 * event that refers to it. */
void names_announce_again(void);

#endif /* CUDATRACE_NAMES_H */
