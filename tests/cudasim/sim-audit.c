/* SPDX-License-Identifier: MIT */
/*
 * sim-audit.c - libcudasim-audit.so, the audit library (rtld-audit(7)) that
 * cudasim-env names in LD_AUDIT, so that a program loads the simulator's
 * libraries whatever path it asks for them by.
 *
 * LD_LIBRARY_PATH is not enough: the dynamic linker searches an object's
 * DT_RPATH before it (PyTorch's libraries carry one naming their wheels'
 * CUDA libraries), and a dlopen of a full path searches nothing. The
 * linker asks every audit library which name to look for, once with the
 * name as asked (LA_SER_ORIG) and once for each directory it tries
 * (la_objsearch). Here a name whose last component is a soname the
 * simulator has (libcuda.so.1, libcudart.so.13, libcupti.so.13,
 * libnvidia-ml.so.1, libcudnn.so.9, and the CUDA 12 flavour's
 * libcudart.so.12 and libcupti.so.12), or that soname followed by a version
 * (libcudart.so.13.2.86), becomes the simulator's file of that soname, in
 * the directory this library was loaded from (its cuda12/ subdirectory for
 * the CUDA 12 ones); any other name is left as it is. An object already loaded under a soname is found by that name before
 * any search, so each library is loaded once, the simulator's.
 *
 * It keeps no state but the names it builds when loaded, binds no symbol
 * (la_objopen is not defined), and needs nothing but libc: it runs in a
 * link namespace of its own, before the program.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT unsigned int la_version(unsigned int version);
EXPORT char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag);

/* Each soname, and its file relative to this library's directory. */
static const struct {
	const char *soname;
	const char *file;
} sonames[] = {
	{ "libcuda.so.1", "libcuda.so.1" },
	{ "libcudart.so.13", "libcudart.so.13" },
	{ "libcupti.so.13", "libcupti.so.13" },
	{ "libnvidia-ml.so.1", "libnvidia-ml.so.1" },
	{ "libcudnn.so.9", "libcudnn.so.9" },
	{ "libcudart.so.12", "cuda12/libcudart.so.12" },
	{ "libcupti.so.12", "cuda12/libcupti.so.12" },
};
#define COUNT (sizeof(sonames) / sizeof(sonames[0]))

static char paths[COUNT][4096];
static int present[COUNT]; /* the file is there: a simulator built without
                             * the CUDA 12 flavour leaves those names alone */
static int ready;

unsigned int la_version(unsigned int version)
{
	Dl_info self;
	const char *slash;
	int dir_len;

	if (dladdr((void *)la_version, &self) && self.dli_fname &&
	    (slash = strrchr(self.dli_fname, '/'))) {
		dir_len = (int)(slash - self.dli_fname);
		ready = 1;
		for (size_t i = 0; i < COUNT; i++)
			if (snprintf(paths[i], sizeof(paths[i]), "%.*s/%s", dir_len, self.dli_fname,
			             sonames[i].file) >= (int)sizeof(paths[i]))
				ready = 0;
			else
				present[i] = access(paths[i], F_OK) == 0;
	}
	/* LAV_CURRENT is the first version; an older linker's is refused. */
	return version >= LAV_CURRENT ? LAV_CURRENT : 0;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	const char *base = strrchr(name, '/');

	(void)cookie;
	(void)flag;
	base = base ? base + 1 : name;
	for (size_t i = 0; ready && i < COUNT; i++) {
		size_t n = strlen(sonames[i].soname);

		if (present[i] && !strncmp(base, sonames[i].soname, n) &&
		    (base[n] == '\0' || base[n] == '.'))
			return paths[i];
	}
	return (char *)name;
}
