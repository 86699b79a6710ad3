#!/bin/sh
# SPDX-License-Identifier: MIT
#
# cublas.sh - the simulated cuBLAS and cuBLASLt: versions, the handle and
# its settings, a GEMM and a matmul as launches of the library's kernels,
# the documented statuses of bad arguments, and a generated stub
# (programs/cublas-basics). Relays its TAP and checks the ledger: each
# GEMM is one launch, a refused one none.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_tmpdir
sim_program cublas-basics

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$sim_path"
tap_relay cublas "$sim_tmp/out"
sim_check_status cublas
sim_check_ledger "$sim_tmp/ledger" "$sim_tmp/out"
tap_done
