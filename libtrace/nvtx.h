/* SPDX-License-Identifier: MIT */
/*
 * nvtx.h - NVTX ranges, marks and domains (nvtx.c), handled through
 * nvtx_family (api-call.h).
 */
#ifndef CUDATRACE_NVTX_H
#define CUDATRACE_NVTX_H

/* Emit nvtx_domain_create again before the next event of each domain. */
void nvtx_announce_again(void);

#endif /* CUDATRACE_NVTX_H */
