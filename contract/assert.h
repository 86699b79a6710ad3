/* SPDX-License-Identifier: MIT */
/*
 * assert.h - cudatrace's assertions, in two tiers (as babeltrace's
 * BT_ASSERT and BT_ASSERT_DBG), for the tracer and the analyzers alike:
 *
 *   CT_ASSERT(cond)      always checked: for invariants whose violation
 *                        would make the trace or the report wrong. A
 *                        statement.
 *   CT_CHECK(cond)       the same, as an expression that is true when
 *                        cond holds, for the caller to leave what it was
 *                        doing:
 *                            if (!CT_CHECK(n <= CALL_FREED_MAX))
 *                                    return;
 *   CT_ASSERT_DBG(cond)  for hot paths: CT_ASSERT in a debug build
 *                        (CT_DEBUG defined: `configure --enable-debug-mode`
 *                        for every component, the sanitizer build for the
 *                        tracer), nothing otherwise: cond is type-checked
 *                        but not evaluated, so hot paths pay nothing.
 *
 * cond must have no side effects: CT_ASSERT_DBG's is not evaluated in a
 * normal build. Layout assumptions are _Static_assert, next to the code
 * that makes them.
 *
 * What a broken assertion does is each component's, for their duties
 * differ; each defines ct_assertion_failed():
 *   - the tracer must never stop the traced program: it says so once on
 *     stderr and stops tracing, the program runs on untraced, and the
 *     call returns false (libtrace/invariant.c);
 *   - the analyzers must never write a wrong report: they print the
 *     internal error and abort (analyzers/common/assert.c).
 */
#ifndef CUDATRACE_ASSERT_H
#define CUDATRACE_ASSERT_H

#include <stdbool.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

/* The source file, without the build's relative path where the compiler
 * knows it. */
#ifdef __FILE_NAME__
#define CT_FILE __FILE_NAME__
#else
#define CT_FILE __FILE__
#endif

/* COND (at FILE:LINE, in FUNC) does not hold. Returns false when it returns. */
bool ct_assertion_failed(const char *file, int line, const char *func, const char *cond)
    __attribute__((cold));

#define CT_CHECK(cond) \
	(__builtin_expect(!!(cond), 1) || ct_assertion_failed(CT_FILE, __LINE__, __func__, #cond))

#define CT_ASSERT(cond)                                                          \
	do {                                                                     \
		if (__builtin_expect(!(cond), 0))                                \
			ct_assertion_failed(CT_FILE, __LINE__, __func__, #cond); \
	} while (0)

#ifdef CT_DEBUG
#define CT_ASSERT_DBG(cond) CT_ASSERT(cond)
#else
#define CT_ASSERT_DBG(cond)            \
	do {                           \
		(void)sizeof(!(cond)); \
	} while (0)
#endif

#endif /* CUDATRACE_ASSERT_H */
