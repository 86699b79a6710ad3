/* SPDX-License-Identifier: MIT */
/*
 * analyses.h - the registry of analyses: every analysis a report can run,
 * in the report's order. It lists and finds; what the analyses share is
 * in analyses/analysis.h, below it.
 */
#ifndef CUDATRACE_ANALYZERS_REGISTRY_ANALYSES_H
#define CUDATRACE_ANALYZERS_REGISTRY_ANALYSES_H

#include "analyses/analysis.h"

/* Every analysis, in report order, NULL-terminated. */
extern const struct ct_analysis_class *const ct_analyses[];

/* The analysis called NAME, NULL if none. */
const struct ct_analysis_class *ct_analysis_find(const char *name);

#endif
