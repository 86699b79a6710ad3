/* SPDX-License-Identifier: MIT */
/*
 * python-probe.c - the Python probe in the traced program's environment
 * (python-probe.h).
 *
 * The directory is made per run rather than installed so that the probe
 * always matches the record that wrote it, in an installed tree and in a
 * build tree alike. Interpreters started after record ends find the
 * directory gone: Python ignores a PYTHONPATH entry that does not exist.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "python-probe.h"

#define PROBE_MODULE     "sitecustomize.py"
#define PROBE_DIR_PREFIX "cudatrace-python-"

/* python-probe.py, made a string literal at build time. */
static const char probe_script[] =
#include "python-probe.inc"
    ;

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_probe(const char *dir)
{
	char path[PATH_MAX];
	int fd, ret;

	if (snprintf(path, sizeof(path), "%s/" PROBE_MODULE, dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	ret = write_all(fd, probe_script, sizeof(probe_script) - 1);
	if (close(fd) < 0)
		ret = -1;
	return ret;
}

/* DIR first on PYTHONPATH, before what the user had there. */
static int prepend_path(const char *dir)
{
	const char *old = getenv("PYTHONPATH");
	char *value = NULL;
	int ret;

	if (old && *old) {
		if (asprintf(&value, "%s:%s", dir, old) < 0)
			return -1;
	} else if (!(value = strdup(dir))) {
		return -1;
	}
	ret = setenv("PYTHONPATH", value, 1);
	free(value);
	return ret;
}

int python_probe_prepare(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");

	dir[0] = '\0';
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (snprintf(dir, size, "%s/" PROBE_DIR_PREFIX "XXXXXX", tmp) >= (int)size) {
		dir[0] = '\0';
		diag_warn("the Python probe is off: TMPDIR is too long");
		return -1;
	}
	if (!mkdtemp(dir)) {
		diag_warn("the Python probe is off: cannot make a directory in %s: %s", tmp,
		          strerror(errno));
		dir[0] = '\0';
		return -1;
	}
	if (write_probe(dir) < 0 || prepend_path(dir) < 0) {
		diag_warn("the Python probe is off: cannot write it in %s: %s", dir,
		          strerror(errno));
		python_probe_remove(dir);
		dir[0] = '\0';
		return -1;
	}
	return 0;
}

/* Unlinks every entry of DIR, then DIR. */
static void remove_flat(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				(void)unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	(void)rmdir(dir);
}

void python_probe_remove(const char *dir)
{
	char cache[PATH_MAX];
	const char *base;

	if (!dir || !*dir)
		return;
	/* DIR may come from a pid file (stale.c): only a directory of ours is emptied. */
	base = strrchr(dir, '/');
	if (strncmp(base ? base + 1 : dir, PROBE_DIR_PREFIX, strlen(PROBE_DIR_PREFIX)) != 0)
		return;
	/* Python may have written its bytecode cache beside the module. */
	if (snprintf(cache, sizeof(cache), "%s/__pycache__", dir) < (int)sizeof(cache))
		remove_flat(cache);
	remove_flat(dir);
}
