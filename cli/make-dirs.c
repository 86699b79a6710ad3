/* SPDX-License-Identifier: MIT */
/*
 * make-dirs.c - mkdir -p: each component of the path in turn, those that
 * exist already left as they are; private files and trees.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "make-dirs.h"

/* mkdir PATH with MODE exactly, or less the umask when EXACT is false. 0, EEXIST, or an errno. */
static int make_one(const char *path, mode_t mode, int exact)
{
	if (mkdir(path, mode) != 0)
		return errno;
	if (exact && chmod(path, mode) != 0)
		return errno;
	return 0;
}

static int make_parents(const char *path, mode_t mode, int exact)
{
	char buf[PATH_MAX];
	int err;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		err = make_one(buf, mode, exact);
		if (err && err != EEXIST)
			return err;
		*p = '/';
	}
	err = make_one(buf, mode, exact);
	return err == EEXIST ? 0 : err;
}

int make_dirs(const char *path)
{
	return make_parents(path, 0777, 0);
}

int make_dirs_mode(const char *path, mode_t mode)
{
	return make_parents(path, mode, 1);
}

FILE *open_private(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	FILE *f;

	if (fd < 0)
		return NULL;
	/* The mode a file had, or the umask's, is not the one wanted. */
	if (fchmod(fd, 0600) != 0 || !(f = fdopen(fd, "w"))) {
		int err = errno;

		close(fd);
		errno = err;
		return NULL;
	}
	return f;
}

static int make_private(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (st->st_uid != geteuid())
		return 0;
	if (type == FTW_D && (st->st_mode & 07777) != 0700)
		(void)chmod(path, 0700);
	else if (type == FTW_F && S_ISREG(st->st_mode) && (st->st_mode & 07777) != 0600)
		(void)chmod(path, 0600);
	return 0;
}

void make_private_tree(const char *path)
{
	(void)nftw(path, make_private, 16, FTW_PHYS);
}
