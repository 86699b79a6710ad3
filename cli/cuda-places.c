/* SPDX-License-Identifier: MIT */
/*
 * cuda-places.c - where CUDA's libraries are expected (cuda-places.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuda-places.h"

size_t toolkit_candidates(struct toolkit_candidate *out)
{
	const struct toolkit_candidate all[] = {
		{ getenv("CUDA_HOME"), "CUDA_HOME", true },
		{ getenv("CUDA_PATH"), "CUDA_PATH", true },
		{ "/usr/local/cuda", "the default", false },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].dir && *all[i].dir)
			out[n++] = all[i];
	return n;
}

bool toolkit_dir_usable(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

bool toolkit_find(char *dir, size_t size)
{
	struct toolkit_candidate candidates[3];
	size_t n = toolkit_candidates(candidates);
	char resolved[PATH_MAX];

	for (size_t i = 0; i < n; i++) {
		if (!toolkit_dir_usable(candidates[i].dir))
			continue;
		snprintf(dir, size, "%s",
		         realpath(candidates[i].dir, resolved) ? resolved : candidates[i].dir);
		return true;
	}
	return false;
}

size_t cuda_places_expected(const char *toolkit_dir, const char **out)
{
	const char *places[] = { toolkit_dir, getenv("CUDA_HOME"), getenv("VIRTUAL_ENV"),
		                 getenv("CONDA_PREFIX") };
	size_t n = 0;

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]) && n < CUDA_PLACES_MAX; i++) {
		bool listed = false;

		for (size_t k = 0; k < n && places[i]; k++)
			listed |= !strcmp(out[k], places[i]);
		if (places[i] && *places[i] && !listed)
			out[n++] = places[i];
	}
	return n;
}
