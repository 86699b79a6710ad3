/* SPDX-License-Identifier: MIT */
/*
 * environment.h - the result of the environment analysis (environment.c)
 * as the findings read it: per process, in the order of the
 * "environment" section, what NVIDIA's compatibility rules found of what
 * its CUDA stood on. The section itself (the driver, devices, libraries,
 * modules and failed calls) is written from the analysis's own state.
 */
#ifndef CUDATRACE_ANALYZERS_ENVIRONMENT_H
#define CUDATRACE_ANALYZERS_ENVIRONMENT_H

#include <stdint.h>

#include <glib.h>

#include "common/compat.h"

struct ct_environment_process {
	int64_t pid;
	const char *procname;                      /* NULL when unknown */
	const struct ct_compat_findings *findings; /* NVIDIA's rules on its environment */
};

struct ct_environment_result {
	GArray *processes; /* struct ct_environment_process, as the section lists them */
};

#endif
