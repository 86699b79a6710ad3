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

#include <stdint.h>

/* Emit api_name for (domain, cbid) unless already done while enabled. */
void names_note_api(uint8_t domain, uint16_t cbid, const char *name);

/* Emit api_name for (domain, cbid) now, whether or not it was before (a
 * statedump names what it refers to, for a snapshot that lost the first
 * api_name), and count it as emitted. */
void names_emit_api(uint8_t domain, uint16_t cbid, const char *name);

/* The kernel_id of a kernel name: FNV-1a 64 of the whole name (0: none). */
uint64_t names_kernel_id(const char *name);

/* Emit kernel_name for id unless already done while enabled. */
void names_note_kernel(uint64_t kernel_id, const char *name);

/* Forget which names were emitted: each is emitted again before the next
 * event that refers to it. */
void names_announce_again(void);

#endif /* CUDATRACE_NAMES_H */
