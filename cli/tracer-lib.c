/* SPDX-License-Identifier: MIT */
/*
 * tracer-lib.c - finding libcudatrace.so. The driver dlopens
 * CUDA_INJECTION64_PATH when the program first calls cuInit, perhaps after
 * it changed directory, so the path handed over is absolute.
 *
 * The installed library is looked for first where it lies relative to
 * this very command (an installed tree moved whole, or staged under
 * DESTDIR, keeps bindir and pkglibdir in the same relation), then in the
 * pkglibdir configure was given.
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
#ifndef CUDATRACE_BINDIR
#error "CUDATRACE_BINDIR (the directory cudatrace is installed in) must be defined"
#endif

#define TRACER_LIB_NAME "libcudatrace.so"

const char *tracer_lib_installed(void)
{
	return CUDATRACE_PKGLIBDIR "/" TRACER_LIB_NAME;
}

int tracer_lib_relative(const char *bindir, const char *pkglibdir, const char *command_dir,
                        char *out, size_t len)
{
	size_t common = 0, i, up = 0, dir_len;
	const char *rest;
	int n;

	if (bindir[0] != '/' || pkglibdir[0] != '/' || command_dir[0] != '/')
		return -1;
	/* The directories both paths share, up to a '/'. */
	for (i = 0; bindir[i] && bindir[i] == pkglibdir[i]; i++)
		if (bindir[i] == '/')
			common = i;
	if ((bindir[i] == '\0' || bindir[i] == '/') &&
	    (pkglibdir[i] == '\0' || pkglibdir[i] == '/'))
		common = i;
	/* One level up from the command's directory per directory of bindir past them. */
	for (i = common; bindir[i]; i++)
		if (bindir[i] == '/' && bindir[i + 1] && bindir[i + 1] != '/')
			up++;
	dir_len = strlen(command_dir);
	while (dir_len > 1 && command_dir[dir_len - 1] == '/')
		dir_len--;
	for (; up > 0; up--) {
		if (dir_len <= 1)
			return -1; /* above the root */
		while (dir_len > 0 && command_dir[dir_len - 1] != '/')
			dir_len--;
		while (dir_len > 1 && command_dir[dir_len - 1] == '/')
			dir_len--;
	}
	if (dir_len == 1)
		dir_len = 0; /* the root: what follows starts with '/' */
	/* Empty, or from the '/' after the shared directories on. */
	rest = pkglibdir + common;
	n = snprintf(out, len, "%.*s%s/" TRACER_LIB_NAME, (int)dir_len, command_dir, rest);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The library beside this command, if it is there: 0 with its path in OUT. */
static int beside_command(char *out, size_t len)
{
	char self[PATH_MAX], path[PATH_MAX], *slash;
	struct stat st;

	if (!realpath("/proc/self/exe", self) || !(slash = strrchr(self, '/')))
		return -1;
	*slash = '\0';
	if (tracer_lib_relative(CUDATRACE_BINDIR, CUDATRACE_PKGLIBDIR, self[0] ? self : "/", path,
	                        sizeof(path)) < 0 ||
	    stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !realpath(path, self) ||
	    strlen(self) >= len)
		return -1;
	strcpy(out, self);
	return 0;
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
	if (beside_command(out, len) == 0)
		return 0;
	return check(tracer_lib_installed(), "the installed one", out, len);
}
