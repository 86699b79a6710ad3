/* SPDX-License-Identifier: MIT */
/*
 * assert.h - the analyzers' assertions, in two tiers:
 *
 *   CT_ASSERT(cond)      always checked, for invariants whose violation
 *                        would make the report wrong (a count gone
 *                        negative, an index outside its table). A
 *                        violation is an internal error: it is printed
 *                        with its place and the program aborts, rather
 *                        than write a report with wrong numbers.
 *   CT_ASSERT_DBG(cond)  for the per-event hot path: checked only in a
 *                        build configured with --enable-debug-mode; in
 *                        others the condition is type-checked but never
 *                        evaluated.
 *
 * Conditions must have no side effects: a CT_ASSERT_DBG one is not run
 * at all in a normal build. Layout assumptions are _Static_assert()s next
 * to the code that makes them.
 */
#ifndef CUDATRACE_ANALYZERS_ASSERT_H
#define CUDATRACE_ANALYZERS_ASSERT_H

#include "config.h"

/* Prints the internal error and aborts. */
void ct_assert_failed(const char *file, int line, const char *func, const char *cond)
    __attribute__((noreturn));

#define CT_ASSERT(cond)                                                        \
	do {                                                                   \
		if (__builtin_expect(!(cond), 0))                              \
			ct_assert_failed(__FILE__, __LINE__, __func__, #cond); \
	} while (0)

#ifdef CT_DEBUG_MODE
#define CT_ASSERT_DBG(cond) CT_ASSERT(cond)
#else
#define CT_ASSERT_DBG(cond) ((void)sizeof((cond) ? 1 : 0))
#endif

#endif
