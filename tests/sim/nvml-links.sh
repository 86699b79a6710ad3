#!/bin/sh
# SPDX-License-Identifier: MIT
#
# nvml-links.sh - the simulated NVML's PCIe, NVLink and fabric answers, and
# a generated stub's (programs/nvml-links). Relays its TAP.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_tmpdir
sim_program nvml-links

sim_run "$sim_tmp/out" "$sim_tmp/err" "$sim_path"
tap_relay nvml "$sim_tmp/out"
sim_check_status nvml
tap_done
