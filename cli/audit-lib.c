/* SPDX-License-Identifier: MIT */
/*
 * audit-lib.c - the audit library in the traced program's environment
 * (audit-lib.h).
 *
 * LD_AUDIT is a colon-separated list, each library asked in turn
 * (rtld-audit(7)): one the user set stays, and is asked first. A library
 * the dynamic linker cannot load as an audit library (a 32-bit program
 * exec'd by the traced one) is ignored with a message from ld.so, never
 * an error; a set-user-ID program ignores LD_AUDIT.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit-lib.h"
#include "diag.h"

/* DIR/AUDIT_LIB_NAME, where DIR is the directory of TRACER. */
static int audit_lib_path(const char *tracer, char *out, size_t size)
{
	const char *slash = strrchr(tracer, '/');
	int dir_len = slash ? (int)(slash - tracer) : 1;

	if (snprintf(out, size, "%.*s/%s", dir_len, slash ? tracer : ".", AUDIT_LIB_NAME) >=
	    (int)size)
		return -1;
	return 0;
}

int audit_lib_prepare(const char *tracer, const char *dir)
{
	const char *old = getenv("LD_AUDIT");
	char lib[PATH_MAX], *list = NULL;
	int ret = 0;

	if (audit_lib_path(tracer, lib, sizeof(lib)) < 0 || access(lib, R_OK) != 0) {
		diag_warn("no %s beside %s: the libraries the program loads are known only once "
		          "CUDA starts",
		          AUDIT_LIB_NAME, tracer);
		return -1;
	}
	/* Named already (a traced program that runs cudatrace record): once is enough. */
	if (old && strstr(old, lib))
		list = strdup(old);
	else if (old && *old && asprintf(&list, "%s:%s", old, lib) < 0)
		list = NULL;
	else if (!old || !*old)
		list = strdup(lib);
	if (!list || setenv(AUDIT_DIR_ENV, dir, 1) != 0 || setenv("LD_AUDIT", list, 1) != 0) {
		diag_warn("cannot name %s in LD_AUDIT: %s", lib, strerror(errno));
		ret = -1;
	}
	free(list);
	return ret;
}
