#!/bin/sh
# SPDX-License-Identifier: MIT
#
# rt-library.sh - run programs/rt-library (the runtime's cudaLibrary* calls
# on the driver's library API) on the simulator, relay its TAP and check
# its ledger: the libraries it loads, the launches of their kernels through
# cudaKernel_t handles, and the error line of every call that fails.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_program rt-library
program=$sim_path
sim_tmpdir

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$program"
tap_relay rt-library "$sim_tmp/out"
sim_check_status rt-library
sim_check_ledger "$sim_tmp/ledger" "$sim_tmp/out"
tap_done
