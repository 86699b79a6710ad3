/* SPDX-License-Identifier: MIT */
/*
 * lib-probe.c - CUDA's libraries loaded to be asked (lib-probe.h).
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

#include "lib-probe.h"

void lib_probe_path(void *handle, char *out, size_t size)
{
	struct link_map *map = NULL;

	out[0] = '\0';
	if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
		snprintf(out, size, "%s", map->l_name);
}

void *lib_probe_open(const char *const *names, const char **which, char *path, size_t size)
{
	for (size_t i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);

		if (h) {
			*which = names[i];
			lib_probe_path(h, path, size);
			return h;
		}
	}
	return NULL;
}

int lib_probe_driver_version(void *cuda, int *version)
{
	int (*get)(int *) = (int (*)(int *))dlsym(cuda, "cuDriverGetVersion");

	*version = 0;
	return get ? get(version) : -1;
}
