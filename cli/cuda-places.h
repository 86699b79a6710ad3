/* SPDX-License-Identifier: MIT */
/*
 * cuda-places.h - where CUDA's libraries are expected to come from: the
 * toolkit (CUDA_HOME, CUDA_PATH, else /usr/local/cuda) and the Python
 * environment (VIRTUAL_ENV, CONDA_PREFIX, whose nvidia-* packages bring
 * their own). `cudatrace doctor` checks the libraries it finds against
 * them; `cudatrace record` notes them for the report, which checks the
 * libraries the program loaded.
 */
#ifndef CUDATRACE_CLI_CUDA_PLACES_H
#define CUDATRACE_CLI_CUDA_PLACES_H

#include <stdbool.h>
#include <stddef.h>

#define CUDA_PLACES_MAX 4

/* A toolkit directory and what named it ("CUDA_HOME", ..., "the default"). */
struct toolkit_candidate {
	const char *dir;
	const char *source;
	bool named; /* by the user (an environment variable) */
};

/* The candidates for the toolkit in order, those set only: at most 3. */
size_t toolkit_candidates(struct toolkit_candidate *out);

/* Whether dir is a directory. */
bool toolkit_dir_usable(const char *dir);

/*
 * The toolkit: the first candidate that is a directory, resolved through
 * symbolic links, into dir (size bytes). False when there is none.
 */
bool toolkit_find(char *dir, size_t size);

/*
 * The places CUDA libraries are expected under, into out (at most
 * CUDA_PLACES_MAX, borrowed from toolkit_dir and the environment): the
 * toolkit found (toolkit_dir, "" for none), CUDA_HOME, VIRTUAL_ENV and
 * CONDA_PREFIX, each once. Returns how many.
 */
size_t cuda_places_expected(const char *toolkit_dir, const char **out);

#endif
