/* SPDX-License-Identifier: MIT */
/*
 * tracer-lib.c - finding libcudatrace.so. The driver dlopens
 * CUDA_INJECTION64_PATH when the program first calls cuInit, perhaps after
 * it changed directory, so the path handed over is absolute.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "tracer-lib.h"

#ifndef CUDATRACE_PKGLIBDIR
#error "CUDATRACE_PKGLIBDIR (the directory libcudatrace.so is installed in) must be defined"
#endif

const char *tracer_lib_installed(void)
{
	return CUDATRACE_PKGLIBDIR "/libcudatrace.so";
}

static int check(const char *path, const char *origin, char *out, size_t len)
{
	char resolved[PATH_MAX];
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		diag_error("the tracing library %s (%s) is not there: %s", path, origin,
		           "reinstall cudatrace, or name libcudatrace.so with --library=PATH "
		           "or " TRACER_LIB_ENV);
		return -1;
	}
	if (access(path, R_OK) != 0) {
		diag_error("the tracing library %s (%s) cannot be read: %s", path, origin,
		           strerror(errno));
		return -1;
	}
	if (!realpath(path, resolved) || strlen(resolved) >= len) {
		diag_error("the tracing library %s (%s): cannot resolve its path: %s", path, origin,
		           strerror(errno ? errno : ENAMETOOLONG));
		return -1;
	}
	strcpy(out, resolved);
	return 0;
}

int tracer_lib_find(const char *option, char *out, size_t len)
{
	const char *env = getenv(TRACER_LIB_ENV);

	if (option)
		return check(option, "named by --library", out, len);
	if (env && *env)
		return check(env, "named by " TRACER_LIB_ENV, out, len);
	return check(tracer_lib_installed(), "the installed one", out, len);
}
