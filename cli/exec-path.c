/* SPDX-License-Identifier: MIT */
/*
 * exec-path.c - the $PATH search of execvp(3), done ahead of time. A file
 * that exists but cannot be executed is remembered and reported as EACCES
 * when nothing better is found further on, as execvp does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec-path.h"

/* 0 if PATH is an executable regular file, else an errno. */
static int check_file(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return errno == ENOTDIR ? ENOENT : errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
		return EACCES;
	return 0;
}

static int copy_out(const char *path, char *out, size_t len)
{
	if (strlen(path) >= len)
		return ENAMETOOLONG;
	strcpy(out, path);
	return 0;
}

int exec_path_find(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	const char *dir;
	int best = ENOENT;

	if (name[0] == '\0')
		return ENOENT;
	if (strchr(name, '/')) {
		int err = check_file(name);

		return err ? err : copy_out(name, out, len);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	dir = path;
	for (;;) {
		const char *end = strchrnul(dir, ':');
		size_t dlen = (size_t)(end - dir);
		char candidate[4096];
		int n, err;

		/* An empty entry means the current directory. */
		n = dlen ? snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)dlen, dir, name)
		         : snprintf(candidate, sizeof(candidate), "%s", name);
		if (n > 0 && (size_t)n < sizeof(candidate)) {
			err = check_file(candidate);
			if (err == 0)
				return copy_out(candidate, out, len);
			if (err == EACCES)
				best = EACCES;
		}
		if (*end == '\0')
			break;
		dir = end + 1;
	}
	return best;
}
