/* SPDX-License-Identifier: MIT */
/*
 * assert.c - what a failed CT_ASSERT does (see assert.h): the program is
 * about to abort, so the internal error goes straight to stderr rather
 * than through the log handler.
 */
#include <stdio.h>
#include <stdlib.h>

#include "assert.h"

void ct_assert_failed(const char *file, int line, const char *func, const char *cond)
{
	fprintf(stderr,
	        "cudatrace: internal error: %s:%d: %s: assertion `%s' failed; no report is "
	        "written rather than a wrong one\n",
	        file, line, func, cond);
	fflush(stderr);
	abort();
}
