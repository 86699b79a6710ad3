/* SPDX-License-Identifier: MIT */
/*
 * analyses.c - the list of analyses, in the order of the report. Nothing
 * else lives here: an analysis depends on what it uses, never on this
 * list, so that no object below the registry depends on one above it.
 */
#include <string.h>

#include "registry/analyses.h"

/* One a line, in report order. */
/* clang-format off */
const struct ct_analysis_class *const ct_analyses[] = {
	&ct_environment_analysis,
	&ct_memory_analysis,
	&ct_host_memory_analysis,
	&ct_framework_analysis,
	&ct_fragmentation_analysis,
	&ct_cells_analysis,
	&ct_transfers_analysis,
	&ct_kernels_analysis,
	&ct_api_analysis,
	&ct_cuda_errors_analysis,
	NULL,
};
/* clang-format on */

const struct ct_analysis_class *ct_analysis_find(const char *name)
{
	for (size_t i = 0; ct_analyses[i]; i++)
		if (!strcmp(ct_analyses[i]->name, name))
			return ct_analyses[i];
	return NULL;
}
