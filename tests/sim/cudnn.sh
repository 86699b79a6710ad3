#!/bin/sh
# SPDX-License-Identifier: MIT
#
# cudnn.sh - the simulated cuDNN's context, version and error functions and
# a generated stub (programs/cudnn-basics). Relays its TAP and checks the
# ledger.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_tmpdir
sim_program cudnn-basics

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$sim_path"
tap_relay cudnn "$sim_tmp/out"
sim_check_status cudnn
sim_check_ledger "$sim_tmp/ledger" "$sim_tmp/out"
tap_done
