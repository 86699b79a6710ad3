/* SPDX-License-Identifier: MIT */
/*
 * capture.h - stream capture: which streams are capturing, as the calls
 * that begin, join and end captures tell (capture.c).
 *
 * Work submitted to a capturing stream (kernels, *Async copies and
 * memsets, host functions, stream-ordered allocations and frees) only adds
 * nodes to a graph: the handlers ask here before they record it as an
 * operation. A callback may not call CUDA, so the state is kept from the
 * callbacks alone.
 */
#ifndef CUDATRACE_CAPTURE_H
#define CUDATRACE_CAPTURE_H

#include <stdbool.h>
#include <cupti.h>

struct api_call;

/* Whether work the call submits to stream (NULL: the default stream of
 * the call's variant) is captured into a graph rather than run. */
bool capture_stream_is_capturing(const struct api_call *call, CUstream stream);

/* For work whose stream the call does not tell (a <<<>>> launch whose
 * driver launch is not reported): whether the calling thread began a
 * capture that has not ended. */
bool capture_thread_is_capturing(void);

#endif /* CUDATRACE_CAPTURE_H */
