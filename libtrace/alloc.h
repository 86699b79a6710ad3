/* SPDX-License-Identifier: MIT */
/*
 * alloc.h - what the allocation handlers (alloc.c) offer beyond their
 * family of callbacks: the memory a context's destruction frees.
 */
#ifndef CUDATRACE_ALLOC_H
#define CUDATRACE_ALLOC_H

#include <stdint.h>

struct api_call;

/* The context of CUPTI id context is being destroyed (CUPTI's
 * CONTEXT_DESTROY_STARTING), by the traced call outer (NULL: none): every
 * allocation it owns leaves the tracker, each with a mem_reclaim. */
void alloc_context_destroyed(uint32_t context, struct api_call *outer);

#endif /* CUDATRACE_ALLOC_H */
