/* SPDX-License-Identifier: MIT */
/*
 * cudatrace-tp.c - the probes of the `cudatrace` provider and the tracepoint
 * definitions, both in this one translation unit (hidden: see
 * cudatrace-tp.h).
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "cudatrace-tp.h"
