/* SPDX-License-Identifier: MIT */
/*
 * invariant-debug.c - CT_ASSERT_DBG as a debug build compiles it, for
 * test-invariant.c.
 */
#define CT_DEBUG 1
#include "contract/assert.h"

void debug_assert(bool cond);

void debug_assert(bool cond)
{
	CT_ASSERT_DBG(cond);
}
