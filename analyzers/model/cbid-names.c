/* SPDX-License-Identifier: MIT */
/*
 * cbid-names.c - API names from CUPTI's callback ids, for traces that lack
 * an api_name event (a session started late, a lost packet). The tables
 * are generated at build time from the CUDA headers (cbid-tables.c); the
 * runtime's names carry a version suffix there ("cudaMalloc_v3020"), which
 * is dropped to give the name programs call.
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "context.h"

extern const char *const ct_cupti_driver_cbid_names[];
extern const size_t ct_cupti_driver_cbid_names_count;
extern const char *const ct_cupti_runtime_cbid_names[];
extern const size_t ct_cupti_runtime_cbid_names_count;

#define RUNTIME_NAME_MAX 96

/* Runtime names without their "_vNNNN" suffix, made on first use. */
static char runtime_names[2048][RUNTIME_NAME_MAX];

void ct_api_name_normalize(char *name)
{
	char *suffix = strrchr(name, '_');
	int digits = 0;

	/* "_v" and at least four digits: "_v2" is part of a driver API's name */
	if (!suffix || suffix[1] != 'v')
		return;
	for (const char *c = suffix + 2; *c; c++) {
		if (!isdigit((unsigned char)*c))
			return;
		digits++;
	}
	if (digits >= 4)
		*suffix = '\0';
}

static const char *runtime_name(unsigned cbid)
{
	const char *raw;
	char *name;

	if (cbid >= ct_cupti_runtime_cbid_names_count || cbid >= 2048)
		return NULL;
	raw = ct_cupti_runtime_cbid_names[cbid];
	if (!raw)
		return NULL;
	name = runtime_names[cbid];
	if (name[0])
		return name;
	strncpy(name, raw, RUNTIME_NAME_MAX - 1);
	ct_api_name_normalize(name);
	return name;
}

const char *ct_cupti_cbid_name(unsigned domain, unsigned cbid)
{
	if (domain == CT_DOMAIN_DRIVER)
		return cbid < ct_cupti_driver_cbid_names_count ? ct_cupti_driver_cbid_names[cbid]
		                                               : NULL;
	if (domain == CT_DOMAIN_RUNTIME)
		return runtime_name(cbid);
	return NULL;
}
