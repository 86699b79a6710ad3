/* SPDX-License-Identifier: MIT */
/*
 * invariant.c - what a broken assertion does in the tracer
 * (contract/assert.h): one line on stderr, the first time only, and no
 * more tracing. Nothing here may fail or block: it runs inside the
 * program's CUDA calls.
 */
#include "contract/assert.h"
#include "log.h"
#include "state.h"

static bool said;

bool ct_assertion_failed(const char *file, int line, const char *func, const char *cond)
{
	(void)func;
	tracer_set_running(false);
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		log_notice("internal error at %s:%d (%s does not hold); tracing stops, the program "
		           "runs on untraced",
		           file, line, cond);
	return false;
}
