/* SPDX-License-Identifier: MIT */
/*
 * invariant.h - assertions, in two tiers (as babeltrace's BT_ASSERT and
 * BT_ASSERT_DBG), that never stop the traced program.
 *
 *   CT_ASSERT(cond)      always checked: for invariants whose violation would
 *                        corrupt the trace. A broken one is said once on
 *                        stderr and tracing stops for good: the program
 *                        runs on, untraced, rather than being recorded
 *                        wrong. A statement.
 *   CT_CHECK(cond)       the same, as an expression that is true when cond
 *                        holds, for the caller to leave what it was doing:
 *                            if (!CT_CHECK(n <= CALL_FREED_MAX))
 *                                    return;
 *   CT_ASSERT_DBG(cond)  CT_ASSERT in a debug build (CT_DEBUG defined: the
 *                        sanitizer build defines it, or CPPFLAGS=-DCT_DEBUG),
 *                        nothing otherwise: cond is type-checked but not
 *                        evaluated, so hot paths pay nothing for it.
 *
 * cond must have no side effects: CT_ASSERT_DBG's is not evaluated in a
 * normal build. Layout assumptions are _Static_assert, next to the code
 * that makes them.
 */
#ifndef CUDATRACE_INVARIANT_H
#define CUDATRACE_INVARIANT_H

#include <stdbool.h>

/* The source file, without the build's relative path where the compiler
 * knows it. */
#ifdef __FILE_NAME__
#define CT_FILE __FILE_NAME__
#else
#define CT_FILE __FILE__
#endif

/* Say once that what (at file:line) does not hold, and stop tracing.
 * Returns false. */
bool invariant_broken(const char *file, int line, const char *what) __attribute__((cold));

#define CT_CHECK(cond) (__builtin_expect(!!(cond), 1) || invariant_broken(CT_FILE, __LINE__, #cond))

#define CT_ASSERT(cond)                                             \
	do {                                                        \
		if (__builtin_expect(!(cond), 0))                   \
			invariant_broken(CT_FILE, __LINE__, #cond); \
	} while (0)

#ifdef CT_DEBUG
#define CT_ASSERT_DBG(cond) CT_ASSERT(cond)
#else
#define CT_ASSERT_DBG(cond)            \
	do {                           \
		(void)sizeof(!(cond)); \
	} while (0)
#endif

#endif /* CUDATRACE_INVARIANT_H */
