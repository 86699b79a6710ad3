#!/bin/sh
# SPDX-License-Identifier: MIT
#
# nvtx.sh - NVTX v3 annotations reach a tool through NVTX_INJECTION64_PATH
# and CUPTI's NVTX domain: run programs/nvtx-ranges with libtestinject.so as
# the NVTX injection (it forwards to cuptiNvtxInitialize2) and check that
# every push, pop, mark, start/end and domain call arrived with its message,
# in order, on the thread that made it. Without a tool the program must run
# the same (NVTX calls are no-ops).

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_require_python
sim_program nvtx-ranges
program=$sim_path
sim_inject_lib testinject
inject=$sim_inject
sim_tmpdir

sim_run "$sim_tmp/out" "$sim_tmp/err" NVTX_INJECTION64_PATH="$inject" \
	CUDA_INJECTION64_PATH="$inject" TESTINJECT_LOG="$sim_tmp/inject.log" "$program" --injected
tap_relay "nvtx-ranges (injected)" "$sim_tmp/out"
sim_check_status "nvtx-ranges (injected)"
"$PYTHON3" "$TESTS_SRCDIR/sim/check-cupti.py" nvtx "$sim_tmp/inject.log" "$sim_tmp/out" \
	>"$sim_tmp/check" 2>&1
tap_relay nvtx "$sim_tmp/check"

sim_run "$sim_tmp/out-plain" "$sim_tmp/err-plain" "$program"
tap_relay "nvtx-ranges (no tool)" "$sim_tmp/out-plain"
sim_check_status "nvtx-ranges (no tool)"
tap_done
