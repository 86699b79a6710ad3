#!/bin/sh
# SPDX-License-Identifier: MIT
# The simulator's CUDA 12 flavour traced by the tracer built against CUPTI
# 12: examples/driver/driver-api under a CUDA 12.8 driver
# (CUDASIM_DRIVER_VERSION) with the simulated CUPTI 12
# (tests/cudasim/cuda12/libcupti.so.12 on the library path, after the
# simulator's, which has no libcupti.so.12),
# traced by libcudatrace-cuda12.so. The trace against the ledger as for
# every workload (workload.sh), and the CUPTI the tracer had is CUPTI 12:
# tracer_info's cupti_version is the API version of the CUDA 12 headers.
workload=driver-api
builddir=${CUDATRACE_BUILDDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CUDASIM_DRIVER_VERSION=12080
CUDATRACE_LIB="$builddir/libtrace/.libs/libcudatrace-cuda12.so"
LD_LIBRARY_PATH="$builddir/tests/cudasim/cuda12/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDASIM_DRIVER_VERSION CUDATRACE_LIB LD_LIBRARY_PATH

workload_extra_checks() {
	is "CUDA 12.8 driver: the tracer had the simulated CUPTI 12" \
		"$(sed -n 's/^event=cudatrace:tracer_info .* cupti_version=\([0-9]*\).*/\1/p' \
			"$lttng_tmp/$1.events" | head -n 1)" \
		"$(sed -n 's/^#define CUPTI_API_VERSION \([0-9]*\).*/\1/p' \
			"${CUDA12_HOME:-}/include/cupti_version.h" 2>/dev/null)"
}
. "$(dirname "$0")/workload.sh"
