/* SPDX-License-Identifier: MIT */
/*
 * arg-check.c - path arguments the system cannot take, refused by name;
 * the message of a wrong command line.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arg-check.h"
#include "diag.h"
#include "verbs.h"

/* How much of an argument a message quotes. */
#define QUOTED 48

const char *arg_shorten(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (n < QUOTED || len < 8)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "%.*s...", (int)(len - 4 < QUOTED ? len - 4 : QUOTED), s);
	return buf;
}

int arg_check_path(const char *option, const char *path, size_t reserve)
{
	size_t len = strlen(path), limit = PATH_MAX - 1 > reserve ? PATH_MAX - 1 - reserve : 0;
	char shown[QUOTED + 8];
	const char *name = path;

	if (len == 0) {
		diag_error("%s: the path is empty", option);
		return -1;
	}
	if (len > limit) {
		diag_error("%s '%s': the path is %zu bytes long; it may have at most %zu", option,
		           arg_shorten(path, shown, sizeof(shown)), len, limit);
		return -1;
	}
	while (*name) {
		size_t n = strcspn(name, "/");

		if (n > NAME_MAX) {
			char name_shown[QUOTED + 8];

			snprintf(name_shown, sizeof(name_shown), "%.*s...", QUOTED, name);
			diag_error("%s '%s': it holds a name of %zu bytes ('%s'); a file name may "
			           "have at most %d",
			           option, arg_shorten(path, shown, sizeof(shown)), n, name_shown,
			           NAME_MAX);
			return -1;
		}
		name += n;
		name += strspn(name, "/");
	}
	return 0;
}

/* The index of the input in INPUTS that is PATH (by device and inode), or -1. */
static long same_input(const char *path, const struct stat *inputs, size_t count)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -1;
	for (size_t i = 0; i < count; i++)
		if (inputs[i].st_ino && st.st_dev == inputs[i].st_dev &&
		    st.st_ino == inputs[i].st_ino)
			return (long)i;
	return -1;
}

int arg_check_output_outside(const char *option, const char *output, const char *const *inputs,
                             size_t count)
{
	char path[PATH_MAX], real[PATH_MAX], shown[QUOTED + 8], input_shown[QUOTED + 8];
	struct stat *st = calloc(count ? count : 1, sizeof(*st));
	bool itself = false;
	long hit = -1;

	if (!st) {
		diag_error("out of memory");
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		if (stat(inputs[i], &st[i]) != 0)
			st[i].st_ino = 0; /* the reader says what is wrong with it */
	/* the output, or the nearest directory above it that exists */
	snprintf(path, sizeof(path), "%s", output);
	while (!realpath(path, real)) {
		char *slash = strrchr(path, '/');

		while (slash && slash > path && slash[1] == '\0') { /* "dir/" */
			*slash = '\0';
			slash = strrchr(path, '/');
		}
		if (!slash)
			snprintf(path, sizeof(path), ".");
		else if (slash == path)
			path[1] = '\0';
		else
			*slash = '\0';
		if (!strcmp(path, ".") && !realpath(path, real)) {
			free(st);
			return 0; /* the output's own error comes when it is written */
		}
	}
	/* that directory and each one above it */
	for (bool first = true;; first = false) {
		char *slash;

		hit = same_input(real, st, count);
		if (hit >= 0) {
			itself = first && !strcmp(path, output);
			break;
		}
		if (!strcmp(real, "/"))
			break;
		slash = strrchr(real, '/');
		if (slash == real)
			real[1] = '\0';
		else
			*slash = '\0';
	}
	free(st);
	if (hit < 0)
		return 0;
	diag_error("%s '%s' is %sthe trace '%s' that is read: write the output elsewhere", option,
	           arg_shorten(output, shown, sizeof(shown)), itself ? "" : "inside ",
	           arg_shorten(inputs[hit], input_shown, sizeof(input_shown)));
	return -1;
}

int arg_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cudatrace %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'cudatrace %s --help'.\n", verb);
	return EXIT_USAGE;
}
