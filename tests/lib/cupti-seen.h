/* SPDX-License-Identifier: MIT */
/*
 * cupti-seen.h - the API callbacks a test program that is its own CUPTI
 * subscriber has seen, in order: cuptiSubscribe(&handle, on_callback, NULL)
 * fills seen[0 .. nseen - 1]; the program resets nseen. Header-only.
 */
#ifndef CUDATRACE_TESTS_CUPTI_SEEN_H
#define CUDATRACE_TESTS_CUPTI_SEEN_H

#include <cupti.h>
#include <stdio.h>

#define MAX_SEEN 64

struct seen {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	CUpti_ApiCallbackSite site;
	const void *params;
	int has_return;
	int result;
	char name[64];
};

static struct seen seen[MAX_SEEN];
static int nseen;

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *cbdata)
{
	const CUpti_CallbackData *data = cbdata;
	struct seen *s;

	(void)userdata;
	if (nseen >= MAX_SEEN)
		return;
	s = &seen[nseen++];
	s->domain = domain;
	s->cbid = cbid;
	s->site = data->callbackSite;
	s->params = data->functionParams;
	s->has_return = data->callbackSite == CUPTI_API_EXIT && data->functionReturnValue;
	s->result = s->has_return ? *(const int *)data->functionReturnValue : 0;
	snprintf(s->name, sizeof(s->name), "%s", data->functionName ? data->functionName : "");
}

#endif /* CUDATRACE_TESTS_CUPTI_SEEN_H */
