/* SPDX-License-Identifier: MIT */
/*
 * invariant.c - what a broken invariant does (invariant.h): one line on
 * stderr, the first time only, and no more tracing. Nothing here may
 * fail or block: it runs inside the program's CUDA calls.
 */
#include "invariant.h"
#include "log.h"
#include "state.h"

static bool said;

bool invariant_broken(const char *file, int line, const char *what)
{
	tracer_set_running(false);
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		log_notice("internal error at %s:%d (%s does not hold); tracing stops, the program "
		           "runs on untraced",
		           file, line, what);
	return false;
}
