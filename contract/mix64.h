/* SPDX-License-Identifier: MIT */
/*
 * mix64.h - the 64-bit mixing the contract's shapes are made with (the
 * shape a repeat names: shape.h, doc/events.md), which the tracer and the
 * readers use for keys of their own too (libtrace/kernel-shapes.c's
 * table, analyzers/export/perfetto-writer.c's track keys): splitmix64's
 * finaliser, which spreads every bit of its input over the 64 bits of its
 * output.
 */
#ifndef CUDATRACE_CONTRACT_MIX64_H
#define CUDATRACE_CONTRACT_MIX64_H

#include <stdint.h>

static inline uint64_t ct_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif /* CUDATRACE_CONTRACT_MIX64_H */
