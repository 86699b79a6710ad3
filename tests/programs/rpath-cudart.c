/* SPDX-License-Identifier: MIT */
/*
 * rpath-cudart.c - a program that asks for NVIDIA's runtime as frameworks
 * do: linked with a DT_RPATH naming the toolkit's lib64 (searched before
 * LD_LIBRARY_PATH), and loading each PATH given with dlopen by that full
 * path. Prints "loaded FILE" for each CUDA library mapped in the process
 * (/proc/self/maps), then "runtime VERSION" from cudaRuntimeGetVersion.
 *
 *   rpath-cudart [PATH...]
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void list_loaded(void)
{
	FILE *maps = fopen("/proc/self/maps", "re");
	char line[4096], last[4096] = "";

	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		char *file = strchr(line, '/');

		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		if (!strstr(file, "libcud") && !strstr(file, "libcupti") &&
		    !strstr(file, "libnvidia-ml"))
			continue;
		if (strcmp(file, last))
			printf("loaded %s\n", file);
		snprintf(last, sizeof(last), "%s", file);
	}
	fclose(maps);
}

int main(int argc, char **argv)
{
	int version = 0;

	for (int i = 1; i < argc; i++)
		if (!dlopen(argv[i], RTLD_NOW))
			fprintf(stderr, "rpath-cudart: %s\n", dlerror());
	list_loaded();
	if (cudaRuntimeGetVersion(&version) != cudaSuccess)
		return 1;
	printf("runtime %d\n", version);
	return 0;
}
