#!/bin/sh
# SPDX-License-Identifier: MIT
#
# stream-priorities.sh - stream priorities through the runtime and the
# driver (programs/stream-priorities): the range, priorities kept and
# clamped, those of the default streams. Relays its TAP and checks the
# ledger.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_tmpdir
sim_program stream-priorities

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$sim_path"
tap_relay priorities "$sim_tmp/out"
sim_check_status priorities
sim_check_ledger "$sim_tmp/ledger" "$sim_tmp/out"
tap_done
