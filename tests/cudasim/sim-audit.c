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
 * libnvidia-ml.so.1, libcudnn.so.9, libcublas.so.13, libcublasLt.so.13,
 * and the CUDA 12 flavour's
 * libcudart.so.12 and libcupti.so.12), or that soname followed by a version
 * (libcudart.so.13.2.86), becomes the simulator's file of that soname, in
 * the directory this library was loaded from (its cuda12/ subdirectory for
 * the CUDA 12 ones); any other name is left as it is. Under a CUDA 12
 * driver (CUDASIM_DRIVER_VERSION below 13000) libcudnn.so.9 is the CUDA 12
 * flavour's, which uses libcudart.so.12, as a CUDA 12 machine has the
 * cuDNN built for CUDA 12 (nvidia-cudnn-cu12): the simulator's other one
 * uses libcudart.so.13, which refuses that driver. An object already loaded under a soname is found by that name before
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT unsigned int la_version(unsigned int version);
EXPORT char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag);

/* Each soname, its file relative to this library's directory, and the
 * file under a CUDA 12 driver where that differs. */
static const struct {
	const char *soname;
	const char *file;
	const char *cuda12_file;
} sonames[] = {
	{ "libcuda.so.1", "libcuda.so.1", NULL },
	{ "libcudart.so.13", "libcudart.so.13", NULL },
	{ "libcupti.so.13", "libcupti.so.13", NULL },
	{ "libnvidia-ml.so.1", "libnvidia-ml.so.1", NULL },
	{ "libcudnn.so.9", "libcudnn.so.9", "cuda12/libcudnn.so.9" },
	{ "libcublas.so.13", "libcublas.so.13", NULL },
	{ "libcublasLt.so.13", "libcublasLt.so.13", NULL },
	{ "libcudart.so.12", "cuda12/libcudart.so.12", NULL },
	{ "libcupti.so.12", "cuda12/libcupti.so.12", NULL },
};
#define COUNT (sizeof(sonames) / sizeof(sonames[0]))

static char paths[COUNT][4096];
static int present[COUNT]; /* the file is there: a simulator built without
                             * the CUDA 12 flavour leaves those names alone */
static int ready;

/* The driver is a CUDA 12 one: CUDASIM_DRIVER_VERSION (sim-env.c) from
 * 12000 to below 13000. */
static int cuda12_driver(void)
{
	const char *text = getenv("CUDASIM_DRIVER_VERSION");
	long value = text ? strtol(text, NULL, 10) : 0;

	return value >= 12000 && value < 13000;
}

/* PATHS[I]: FILE in directory DIR (DIR_LEN bytes), and PRESENT[I]: it is
 * there; 0 if the path does not fit. */
static int set_path(size_t i, const char *dir, int dir_len, const char *file)
{
	if (snprintf(paths[i], sizeof(paths[i]), "%.*s/%s", dir_len, dir, file) >=
	    (int)sizeof(paths[i]))
		return 0;
	present[i] = access(paths[i], F_OK) == 0;
	return 1;
}

unsigned int la_version(unsigned int version)
{
	Dl_info self;
	const char *slash;
	int dir_len;
	int cuda12 = cuda12_driver();

	if (dladdr((void *)la_version, &self) && self.dli_fname &&
	    (slash = strrchr(self.dli_fname, '/'))) {
		dir_len = (int)(slash - self.dli_fname);
		ready = 1;
		for (size_t i = 0; i < COUNT; i++) {
			if (cuda12 && sonames[i].cuda12_file &&
			    set_path(i, self.dli_fname, dir_len, sonames[i].cuda12_file) &&
			    present[i])
				continue;
			if (!set_path(i, self.dli_fname, dir_len, sonames[i].file))
				ready = 0;
		}
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
