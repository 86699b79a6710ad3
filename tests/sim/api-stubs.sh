#!/bin/sh
# SPDX-License-Identifier: MIT
#
# api-stubs.sh - run programs/api-stubs (unimplemented calls, struct- and
# void-returning exports) on the simulator and check its ledger.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_program api-stubs
program=$sim_path
sim_tmpdir

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$program"
tap_relay api-stubs "$sim_tmp/out"
sim_check_status api-stubs
sim_check_ledger "$sim_tmp/ledger" "$sim_tmp/out"
tap_done
