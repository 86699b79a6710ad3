/* SPDX-License-Identifier: MIT */
/*
 * analyses.c - the list of analyses, in the order of the report, and what
 * they share: what their statuses mean, taking a context slot, ranking
 * the rows of a report.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "analysis.h"

/* One a line, in report order. */
/* clang-format off */
const struct ct_analysis_class *const ct_analyses[] = {
	&ct_environment_analysis,
	&ct_memory_analysis,
	&ct_host_memory_analysis,
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

const char *ct_analysis_status_text(enum ct_analysis_status status)
{
	switch (status) {
	case CT_ANALYSIS_OK:
		return "no error";
	case CT_ANALYSIS_NO_SLOT:
		return "no context slot left (too many analyses)";
	}
	return "unknown error";
}

int ct_analysis_slot(struct ct_context *ctx)
{
	return ct_context_slot(ctx);
}

size_t ct_result_index(const struct ct_result *results, size_t count,
                       const struct ct_analysis_class *cls)
{
	size_t i = 0;

	while (i < count && results[i].cls != cls)
		i++;
	return i;
}

const void *ct_result_of(const struct ct_result *results, size_t count,
                         const struct ct_analysis_class *cls)
{
	size_t i = ct_result_index(results, count, cls);

	return i < count ? results[i].result : NULL;
}

uint32_t *ct_analysis_rank(uint32_t count, int (*cmp)(const void *, const void *, void *),
                           void *data)
{
	/* one at least: g_new of nothing is NULL, which qsort_r must not be given */
	uint32_t *order = g_new(uint32_t, count ? count : 1);

	for (uint32_t i = 0; i < count; i++)
		order[i] = i;
	qsort_r(order, count, sizeof(*order), cmp, data);
	return order;
}
