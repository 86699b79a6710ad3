/* SPDX-License-Identifier: MIT */
/*
 * demangle.c - C++ names demangled by the C++ runtime's demangler
 * (demangle.h). The analyzers are C and need no C++ runtime to run: where
 * libstdc++ is missing, names stay mangled.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

/* The Itanium C++ ABI's demangler (cxxabi.h), as libstdc++ exports it. */
typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static demangle_fn demangler;

/* The library stays loaded for the life of the process: names may be demangled until its end. */
static void load(void)
{
	void *library = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	demangler = library ? (demangle_fn)dlsym(library, "__cxa_demangle") : NULL;
}

char *ct_demangle(const char *name)
{
	int status = -1;
	char *text;

	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	pthread_once(&loaded, load);
	if (!demangler)
		return NULL;
	text = demangler(name, NULL, NULL, &status);
	if (status != 0) {
		free(text);
		return NULL;
	}
	return text;
}
