/* SPDX-License-Identifier: MIT */
/*
 * domains.h - the handlers of the CUPTI callback domains other than the
 * driver and runtime APIs, called by the dispatcher (callbacks.c).
 */
#ifndef CUDATRACE_DOMAINS_H
#define CUDATRACE_DOMAINS_H

#include <cupti.h>

#include "api-call.h"

/* RESOURCE: contexts, streams, modules. outer: the traced call active on
 * the thread, or NULL. */
void resource_callback(CUpti_CallbackId cbid, const CUpti_ResourceData *data,
                       const struct api_call *outer);

/* SYNCHRONIZE: folded into the sync API call around it, if any. */
void sync_callback(CUpti_CallbackId cbid, const CUpti_SynchronizeData *data,
                   struct api_call *outer);

/* NVTX: ranges, marks, domains and registered strings. */
void nvtx_callback(CUpti_CallbackId cbid, const CUpti_NvtxData *data);

/* Whether a session enables an event of NVTX ranges or marks. */
bool nvtx_events_wanted(void);

/* Emit nvtx_domain_create again before the next event of each domain. */
void nvtx_announce_again(void);

#endif /* CUDATRACE_DOMAINS_H */
