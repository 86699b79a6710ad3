/* SPDX-License-Identifier: MIT */
/*
 * bare-tp.c - the probes of the benchmark's own provider (bare-tp.h).
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "bare-tp.h"
