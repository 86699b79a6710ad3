/* SPDX-License-Identifier: MIT */
/*
 * make-dirs.c - mkdir -p: each component of the path in turn, those that
 * exist already left as they are.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "make-dirs.h"

int make_dirs(const char *path)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return errno;
		*p = '/';
	}
	if (mkdir(buf, 0777) != 0 && errno != EEXIST)
		return errno;
	return 0;
}
