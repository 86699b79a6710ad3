/* SPDX-License-Identifier: MIT */
/*
 * analyses.c - the list of analyses, in the order of the report.
 */
#include <string.h>

#include "analysis.h"

const struct ct_analysis_class *const ct_analyses[] = {
	&ct_memory_analysis,  &ct_fragmentation_analysis, &ct_transfers_analysis,
	&ct_kernels_analysis, &ct_api_analysis,           NULL,
};

const struct ct_analysis_class *ct_analysis_find(const char *name)
{
	for (size_t i = 0; ct_analyses[i]; i++)
		if (!strcmp(ct_analyses[i]->name, name))
			return ct_analyses[i];
	return NULL;
}
