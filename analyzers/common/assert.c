/* SPDX-License-Identifier: MIT */
/*
 * assert.c - what a broken assertion does in the analyzers
 * (contract/assert.h): the internal error, with its place, straight to
 * stderr rather than through the log handler, and abort, rather than
 * write a report with wrong numbers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "contract/assert.h"

bool ct_assertion_failed(const char *file, int line, const char *func, const char *cond)
{
	fprintf(stderr,
	        "cudatrace: internal error: %s:%d: %s: assertion `%s' failed; no report is "
	        "written rather than a wrong one\n",
	        file, line, func, cond);
	fflush(stderr);
	abort();
}
