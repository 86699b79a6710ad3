/* SPDX-License-Identifier: MIT */
/*
 * arg-check.c - path arguments the system cannot take, refused by name;
 * the message of a wrong command line.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
