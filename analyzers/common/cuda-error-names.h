/* SPDX-License-Identifier: MIT */
/*
 * cuda-error-names.h - the names CUDA gives its error codes: cudaError_t
 * (driver_types.h) for the runtime's calls, CUresult (cuda.h) for the
 * driver's. The two enums give most errors the same value under two
 * names. The common ones and the sticky ones are named; others are shown
 * by number.
 */
#ifndef CUDATRACE_COMMON_CUDA_ERROR_NAMES_H
#define CUDATRACE_COMMON_CUDA_ERROR_NAMES_H

#include <stdint.h>

/*
 * The name of CODE returned by a call of DOMAIN (CT_DOMAIN_DRIVER: a
 * CUresult, else a cudaError_t): "CUDA_ERROR_INVALID_VALUE",
 * "cudaErrorInvalidValue"; NULL when it is not named here.
 */
const char *ct_cuda_error_name(unsigned domain, int32_t code);

#endif
