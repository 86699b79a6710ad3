/* SPDX-License-Identifier: MIT */
/*
 * analysis.c - what the analyses share: what their statuses mean, taking
 * a context slot, finding a result, ranking the rows of a report. The
 * list of analyses is the registry's (registry/analyses.c).
 */
#include <stdlib.h>

#include <glib.h>

#include "analysis.h"

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

size_t ct_result_index(const struct ct_result *results, size_t count, enum ct_analysis_id id)
{
	size_t i = 0;

	while (i < count && results[i].cls->id != id)
		i++;
	return i;
}

const void *ct_result_of(const struct ct_result *results, size_t count, enum ct_analysis_id id)
{
	size_t i = ct_result_index(results, count, id);

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
